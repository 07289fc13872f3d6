//! The runs whose fingerprints are pinned (every preset, fencing off and
//! on), shared by the native tests and the browser tests (tests/web.rs
//! includes this file): equal fingerprints on both sides prove the wasm build
//! produces the same trace, byte for byte, as the native one.

use fencing_sim::presets::PRESETS;
use fencing_sim::{run, Scenario};

pub fn pinned_runs() -> Vec<(String, Scenario)> {
    PRESETS
        .iter()
        .flat_map(|preset| {
            [false, true].map(|fencing| {
                (format!("{} fencing={}", preset.id, if fencing { "on" } else { "off" }), Scenario { fencing, ..(preset.build)() })
            })
        })
        .collect()
}

/// The fingerprint file's text for this build: one line per pinned run,
/// then one per pinned fleet (each built-in pause shape, ten minutes of
/// eight workers: their draws go through the model's own exp and ln).
#[allow(dead_code)] // Not every including test uses both.
pub fn fingerprint_lines() -> String {
    let stories = pinned_runs().into_iter().map(|(name, scenario)| {
        let trace = run(&scenario).unwrap_or_else(|error| panic!("preset {name} is invalid: {error}"));
        format!("{name} {:016x}\n", trace.fingerprint())
    });
    let fleets = fleet_runs().into_iter().map(|(name, scenario)| {
        let report = fencing_sim::fleet::run(&scenario).unwrap_or_else(|error| panic!("fleet {name} is invalid: {error}"));
        format!("{name} {:016x}\n", report.fingerprint())
    });
    stories.chain(fleets).collect()
}

/// The link fingerprints (`fp=`) of the pinned runs, one line each: the
/// same text natively and in wasm, or a link made on one would read as
/// changed on the other.
#[allow(dead_code)] // Not every including test uses both.
pub fn story_lines() -> String {
    let story = |scenario: &Scenario| fencing_sim::permalink::story::of_scenario(scenario).expect("a pinned run is valid");
    pinned_runs().into_iter().map(|(name, scenario)| format!("{name} {}\n", story(&scenario))).collect()
}

/// The pinned fleets.
pub fn fleet_runs() -> Vec<(String, Scenario)> {
    let fleet = |facts: &fencing_sim::pauses::ShapeFacts| fencing_sim::fleet::base(8, 600_000, facts.shape);
    fencing_sim::pauses::SHAPES.iter().map(|facts| (format!("fleet {}", facts.id), fleet(facts))).collect()
}
