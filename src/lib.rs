//! Fencing Lab's page: Leptos components that render the simulator's traces.
//! Nothing here decides an outcome; every number comes from `fencing_sim`.

pub mod panic_box;
pub mod race;

use leptos::prelude::*;

pub use race::RaceWidget;

/// The whole page: a header, the race, and a footer.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <a class="skip-link" href="#race">"Skip to the simulator"</a>
        <header class="site-header">
            <h1>"Fencing Lab"</h1>
            <p class="tagline">
                "Why a lease-based lock cannot keep two workers apart — and how a fencing token, checked by the store, can."
            </p>
        </header>
        <main id="main">
            <RaceWidget/>
        </main>
        <footer class="site-footer">
            <p>"Every run is computed in your browser by a deterministic simulator: same seed, same story."</p>
        </footer>
    }
}
