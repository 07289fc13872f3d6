//! Fencing Lab's page: Leptos components that render the simulator's traces.
//! Nothing here decides an outcome; every number comes from `fencing_sim`.

pub mod browser;
pub mod code_panel;
pub mod compare_view;
pub mod controls;
pub mod diagram;
pub mod embed;
pub mod export;
pub mod faults;
pub mod glyphs;
pub mod lesson;
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
pub mod sweep_chart;
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
    Lesson,
    /// The lease sweep alone (it also heads the lesson view).
    Sweep,
}

/// What the URL asks of the page itself, apart from the scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageQuery {
    pub view: Option<View>,
    /// Show one widget alone, for an iframe.
    pub embed: bool,
    /// Everything else: the scenario's keys, parsed by the core.
    pub rest: String,
}

/// Splits the page's own keys (`view`, `quiz`, `embed`) from the scenario's.
pub fn split_query(query: &str) -> PageQuery {
    let mut page = PageQuery::default();
    let mut rest = Vec::new();
    let mut quiz = None;
    for pair in query.split('&').filter(|pair| !pair.is_empty()).take(permalink::PAIRS_MAX) {
        match pair.split_once('=').unwrap_or((pair, "")) {
            ("quiz", id) => quiz = Some(View::Quiz(fencing_sim::quiz::find(id).map_or(0, |(index, _)| index))),
            ("view" | "embed", "quiz") => page.view = page.view.or(Some(View::Quiz(0))),
            ("view" | "embed", "race") => page.view = Some(View::Race),
            ("view" | "embed", "compare") => page.view = Some(View::Compare),
            ("view" | "embed", "lesson") => page.view = Some(View::Lesson),
            ("view" | "embed", "sweep") => page.view = Some(View::Sweep),
            _ => rest.push(pair),
        }
        page.embed |= pair.starts_with("embed=");
    }
    if quiz.is_some() && matches!(page.view, None | Some(View::Quiz(_))) {
        page.view = quiz;
    }
    if page.view == Some(View::Compare) && !rest.iter().any(|pair| pair.starts_with("compare=")) {
        rest.push("compare=fencing");
    }
    page.rest = rest.join("&");
    page
}

/// The whole page: the view the URL names, with a notice for anything in
/// the URL that was ignored.
#[component]
pub fn App() -> impl IntoView {
    let page = split_query(&browser::query());
    let (initial, notices) = permalink::parse(&page.rest);
    let first = page.view.unwrap_or(if initial.compare.is_some() { View::Compare } else { View::Race });
    if page.embed {
        return view! { <Embedded view=first initial notices/> }.into_any();
    }
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
                {tab("Lesson and code", View::Lesson, "tab-lesson")}
                <theme::ThemeSwitch/>
            </nav>
        </header>
        <main id="main">
            {notice_box(notices)}
            {move || match view.get() {
                View::Race => view! { <RaceView initial=race_link.clone() sync_url=true/> }.into_any(),
                View::Compare => view! { <CompareView initial=compare_link.clone() sync_url=true/> }.into_any(),
                View::Quiz(start) => view! { <QuizView start sync_url=true/> }.into_any(),
                View::Sweep => view! { <sweep_chart::LeaseSweep/> }.into_any(),
                View::Lesson => view! {
                    <sweep_chart::LeaseSweep/>
                    <embed::EmbedButton widget="sweep" title="the lease sweep" query=Signal::derive(String::new) height_px=640/>
                    <lesson::Lesson/>
                    <embed::EmbedButton widget="lesson" title="the lesson" query=Signal::derive(String::new) height_px=1200/>
                    <code_panel::CodePanel/>
                }.into_any(),
            }}
        </main>
        <footer class="site-footer">
            <p>"Every run is computed in your browser by a deterministic simulator: same seed, same story."</p>
        </footer>
    }
    .into_any()
}

fn notice_box(notices: Vec<String>) -> impl IntoView {
    (!notices.is_empty()).then(|| {
        view! {
            <div class="notice" role="status" data-testid="url-notice">
                <p>"Parts of this link could not be used, so defaults stand in:"</p>
                <ul>{notices.into_iter().map(|notice| view! { <li>{notice}</li> }).collect_view()}</ul>
            </div>
        }
    })
}

/// One widget alone, for an iframe in course material: minimal chrome, the
/// height reported to the page around it, and a way out to the full lab.
#[component]
fn Embedded(view: View, initial: Permalink, notices: Vec<String>) -> impl IntoView {
    embed::report_height();
    if let Some(root) = document().document_element() {
        let _ = root.class_list().add_1("embedded");
    }
    let full = strip_key(&browser::href(), "embed");
    let widget = match view {
        View::Race => view! { <RaceView initial embedded=true/> }.into_any(),
        View::Compare => view! { <CompareView initial embedded=true/> }.into_any(),
        View::Quiz(start) => view! { <QuizView start embedded=true/> }.into_any(),
        View::Lesson => view! { <lesson::Lesson/> }.into_any(),
        View::Sweep => view! { <sweep_chart::LeaseSweep/> }.into_any(),
    };
    view! {
        <div class="embed-bar">
            <span>"Fencing Lab"</span>
            <a href=full target="_blank" rel="noopener">"Open in Fencing Lab ↗"</a>
        </div>
        <main id="main">{notice_box(notices)} {widget}</main>
    }
}

/// The URL without one query key (and its value).
fn strip_key(url: &str, key: &str) -> String {
    let Some((base, query)) = url.split_once('?') else { return url.to_string() };
    let kept: Vec<&str> = query.split('&').filter(|pair| pair.split('=').next() != Some(key)).collect();
    if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    }
}
