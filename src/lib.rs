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
pub mod race;
pub mod store_panel;
pub mod theme;
pub mod timelines;

use fencing_sim::permalink::{self, Permalink};
use leptos::prelude::*;

pub use compare_view::CompareView;
pub use race::RaceView;

/// The whole page: the view the URL names (the race, or the side-by-side
/// comparison), with a notice for anything in the URL that was ignored.
#[component]
pub fn App() -> impl IntoView {
    let (initial, notices) = permalink::parse(&browser::query());
    let comparing = RwSignal::new(initial.compare.is_some());
    let race_link = Permalink { compare: None, ..initial.clone() };
    let compare_link = initial;
    view! {
        <a class="skip-link" href="#main">"Skip to the simulator"</a>
        <header class="site-header">
            <h1>"Fencing Lab"</h1>
            <p class="tagline">
                "Why a lease-based lock cannot keep two workers apart — and how a fencing token, checked by the store, can."
            </p>
            <nav class="tabs" aria-label="Views">
                <button type="button" aria-pressed=move || (!comparing.get()).to_string() on:click=move |_| comparing.set(false)>"The race"</button>
                <button type="button" aria-pressed=move || comparing.get().to_string() on:click=move |_| comparing.set(true) data-testid="tab-compare">"Side by side"</button>
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
            {move || if comparing.get() {
                view! { <CompareView initial=compare_link.clone() sync_url=true/> }.into_any()
            } else {
                view! { <RaceView initial=race_link.clone() sync_url=true/> }.into_any()
            }}
        </main>
        <footer class="site-footer">
            <p>"Every run is computed in your browser by a deterministic simulator: same seed, same story."</p>
        </footer>
    }
}
