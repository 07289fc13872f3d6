//! Every view of the lab: the race, side by side, the quiz and the sweep
//! (the instructors' builder and questions are `src/bin/teach.rs`'s).

use fencing_lab_web::shell::app::routed_shell;
use fencing_lab_web::{every_view, in_every_view, start};
use wasm_bindgen::prelude::wasm_bindgen;

fn main() {
    start(every_view, in_every_view, routed_shell);
}

/// The trace of the scenario a link describes, as the command line's JSON
/// (for the race's entry point, which carries no serialiser).
#[wasm_bindgen]
pub fn trace_json(query: &str) -> String {
    let (link, _) = fencing_sim::permalink::parse(query);
    fencing_lab_web::race::pane::Pane::run(&link.scenario).trace.to_json()
}
