//! The floor under the race's first load: the smallest Leptos page that
//! runs the model as the race's first screen needs it, and shows nothing
//! else. scripts/bench.sh prints its size and
//! bench/load.mjs its load time beside the race's.

use fencing_sim::cursor::AtCursor;
use fencing_sim::{permalink, run};
use leptos::prelude::*;

/// What the first screen takes from a run at `cursor`: every event's words
/// up to there, the verdict and the store's highest token (all of it used,
/// so none of the model is optimised away).
fn first_screen_words(query: &str, cursor: usize) -> String {
    let (link, _) = permalink::parse(query);
    let Ok(trace) = run(&link.scenario) else { return String::new() };
    let Some(last) = trace.events.len().checked_sub(1) else { return String::new() };
    let index = cursor.min(last);
    let at = AtCursor::of(&trace);
    let mut words: String = trace.events[..=index].iter().map(|event| event.text.as_str()).collect();
    words.push_str(&at.verdict(index as u32).text);
    if let Some(token) = at.store(index as u32).highest_token {
        words.push_str(&token.to_string());
    }
    words
}

#[component]
fn Floor() -> impl IntoView {
    let (cursor, set_cursor) = signal(0);
    let query = window().location().search().unwrap_or_default();
    view! {
        <button on:click=move |_| set_cursor.update(|cursor| *cursor += 1)>
            {move || first_screen_words(query.trim_start_matches('?'), cursor.get())}
        </button>
    }
}

fn main() {
    leptos::mount::mount_to_body(Floor);
    // The load bench reads this mark, as it reads the race's.
    if let Some(performance) = web_sys::window().and_then(|window| window.performance()) {
        let _ = performance.mark("fencing-lab-mounted");
    }
}
