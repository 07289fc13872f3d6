//! Fencing Lab's page: Leptos components that render the simulator's traces.
//! Nothing here decides an outcome; every number comes from `fencing_sim`.

pub mod browser;
pub mod compare_view;
pub mod controls;
pub mod diagram;
pub mod export;
pub mod faults;
pub mod glyphs;
pub mod narration;
pub mod outcome;
pub mod pane;
pub mod panic_box;
pub mod playback;
pub mod player;
pub mod quiz;
pub mod race;
pub mod storage;
pub mod store_panel;
pub mod theme;
pub mod timelines;

use fencing_sim::permalink::{self, Permalink};
use leptos::prelude::*;

pub use compare_view::CompareView;
pub use quiz::QuizView;
pub use race::RaceView;

/// The page's views; the URL says which one opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Race,
    Compare,
    /// The quiz, at this question.
    Quiz(usize),
}

/// Splits the page's own keys (`view`, `quiz`) from the scenario's, which
/// the core parses. Returns the view asked for, if any, and the rest.
pub fn split_query(query: &str) -> (Option<View>, String) {
    let mut view = None;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()).take(permalink::PAIRS_MAX) {
        match pair.split_once('=').unwrap_or((pair, "")) {
            ("quiz", id) => view = Some(View::Quiz(fencing_sim::quiz::find(id).map_or(0, |(index, _)| index))),
            ("view", "quiz") => view = Some(View::Quiz(0)),
            ("view", "race") => view = Some(View::Race),
            _ => rest.push(pair),
        }
    }
    (view, rest.join("&"))
}

/// The whole page: the view the URL names, with a notice for anything in
/// the URL that was ignored.
#[component]
pub fn App() -> impl IntoView {
    let (asked, scenario_query) = split_query(&browser::query());
    let (initial, notices) = permalink::parse(&scenario_query);
    let first = asked.unwrap_or(if initial.compare.is_some() { View::Compare } else { View::Race });
    let view = RwSignal::new(first);
    let race_link = Permalink { compare: None, ..initial.clone() };
    let compare_link = initial;
    let tab = move |label: &'static str, target: View, testid: &'static str| {
        let selected = move || match (view.get(), target) {
            (View::Quiz(_), View::Quiz(_)) => true,
            (current, target) => current == target,
        };
        view! {
            <button type="button" aria-pressed=move || selected().to_string() data-testid=testid
                on:click=move |_| if !selected() { view.set(target) }>{label}</button>
        }
    };
    view! {
        <a class="skip-link" href="#main">"Skip to the simulator"</a>
        <header class="site-header">
            <h1>"Fencing Lab"</h1>
            <p class="tagline">
                "Why a lease-based lock cannot keep two workers apart — and how a fencing token, checked by the store, can."
            </p>
            <nav class="tabs" aria-label="Views">
                {tab("The race", View::Race, "tab-race")}
                {tab("Side by side", View::Compare, "tab-compare")}
                {tab("Quiz", View::Quiz(0), "tab-quiz")}
                <theme::ThemeSwitch/>
            </nav>
        </header>
        <main id="main">
            {(!notices.is_empty()).then(|| view! {
                <div class="notice" role="status" data-testid="url-notice">
                    <p>"Parts of this link could not be used, so defaults stand in:"</p>
                    <ul>{notices.into_iter().map(|notice| view! { <li>{notice}</li> }).collect_view()}</ul>
                </div>
            })}
            {move || match view.get() {
                View::Race => view! { <RaceView initial=race_link.clone() sync_url=true/> }.into_any(),
                View::Compare => view! { <CompareView initial=compare_link.clone() sync_url=true/> }.into_any(),
                View::Quiz(start) => view! { <QuizView start sync_url=true/> }.into_any(),
            }}
        </main>
        <footer class="site-footer">
            <p>"Every run is computed in your browser by a deterministic simulator: same seed, same story."</p>
        </footer>
    }
}
