//! The model's engine in WebAssembly, for timing from JavaScript: the wasm
//! side only runs; the clock is read by the caller (bench/engine.mjs), so
//! the model stays free of time.

use fencing_sim::explore::{Explorer, Outcome};
use fencing_sim::property::Property;
use fencing_sim::{presets, run_counts, Scenario};
use wasm_bindgen::prelude::*;

/// Runs the classic preset's counters for seeds `0..runs`; returns a
/// checksum so the work cannot be skipped.
#[wasm_bindgen]
pub fn classic_counts(runs: u32) -> u32 {
    // One scenario, its seed set in place: the figure is the runs', not a
    // clone's per seed.
    let mut scenario = presets::classic();
    (0..runs)
        .map(|seed| {
            scenario.seed = u64::from(seed);
            run_counts(&scenario).map_or(0, |counts| counts.tally.accepted_writes)
        })
        .sum()
}

/// Explores a preset's design (fencing on) for `no_stale_overwrite` with up
/// to two faults; returns the schedules tried.
#[wasm_bindgen]
pub fn explore_preset(id: &str) -> u32 {
    let Some(preset) = presets::find(id) else { return 0 };
    let scenario = Scenario { fencing: true, ..(preset.build)() };
    let Ok(explorer) = Explorer::new(&scenario, Property::NoStaleOverwrite, 2) else { return 0 };
    match explorer.run_to_end() {
        Outcome::Counterexample(found) => found.schedules_tried as u32,
        Outcome::None { schedules_tried, .. } => schedules_tried as u32,
    }
}

/// The preset ids, comma-separated.
#[wasm_bindgen]
pub fn preset_ids() -> String {
    presets::PRESETS.iter().map(|preset| preset.id).collect::<Vec<_>>().join(",")
}

/// Runs the fleet link `query` (the page's `?view=fleet&…` keys) to its
/// end; returns its jobs.
#[wasm_bindgen]
pub fn fleet_jobs(query: &str) -> u32 {
    let (link, _) = fencing_sim::permalink::fleet::parse(query);
    fencing_sim::fleet::run(&link.scenario()).map_or(0, |report| report.jobs)
}
