//! Projector mode ("Present", key P): the race or the side-by-side view
//! alone on the screen, large enough to read from the back of a lecture
//! hall, with only step back, play and step. The button is plain markup:
//! `static/theme.js` (the page's small script, loaded first) switches the
//! mode, asks for full screen where the browser allows it (not in an iframe
//! without `allowfullscreen`) and leaves on Esc; the look is CSS
//! (`html.presenting` in style/main.css). So the race's first load carries
//! a button, not a second copy of the page's logic.

use leptos::prelude::*;

/// The "Present" button, with its words for both states (CSS shows one);
/// `id` names its test id ("race-present"). Beside it, shown only while
/// presenting, the switch between the whole run in one picture (the
/// overview, first) and the detailed diagram with its arrows (key D): a
/// projector has room for one of them at a size the back row can read.
#[component]
pub fn PresentButtons(id: &'static str) -> impl IntoView {
    view! {
        <button
            type="button"
            class="present-view"
            data-present-view=""
            aria-pressed="false"
            title="The detailed diagram, with its arrows, instead of the whole run (D)"
            data-testid=format!("{id}-present-detail")
        >
            "Detailed diagram (D)"
        </button>
        <button type="button" class="present-button" data-present="" aria-pressed="false" title="Projector mode (P); Esc leaves" data-testid=format!("{id}-present")>
            <span class="present-enter">
                <svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
                    <path d="M1 5V1h4M11 1h4v4M15 11v4h-4M5 15H1v-4" fill="none" stroke="currentColor" stroke-width="2"/>
                </svg>
                " Present"
            </span>
            <span class="present-leave">"✕ Leave projector mode (Esc)"</span>
        </button>
    }
}
