//! Prints runs per second of the classic preset natively: building the full
//! trace, and in the summary-only mode that sweeps, quiz keys and the
//! explorer use. Figures for the bench script, not a test.

use fencing_sim::explore::{explore, Outcome};
use fencing_sim::property::Property;
use fencing_sim::{presets, run, run_counts, run_summary, Scenario};
use std::time::Instant;

/// Runs `runs` seeds of the classic preset through `one` and prints the rate.
fn measure(what: &str, runs: u64, one: impl Fn(&Scenario) -> u64) -> f64 {
    // One scenario, its seed set in place: the figure is the runs', not a
    // clone's per seed.
    let mut scenario = presets::classic();
    let started = Instant::now();
    let mut checksum = 0u64;
    for seed in 0..runs {
        scenario.seed = seed;
        checksum = checksum.wrapping_add(one(&scenario));
    }
    let seconds = started.elapsed().as_secs_f64();
    let rate = runs as f64 / seconds;
    println!("native, {what}: {rate:.0} runs/s over {runs} seeds ({:.2} µs per run; checksum {checksum})", seconds * 1e6 / runs as f64);
    rate
}

fn main() {
    // `bench counts` measures only the counters, for a profiler.
    if let Some(runs) = std::env::args().nth(1).filter(|arg| arg.starts_with("counts")) {
        let runs = runs.trim_start_matches("counts").parse().unwrap_or(1_000_000);
        measure("counters only", runs, |scenario| u64::from(run_counts(scenario).expect("valid").tally.accepted_writes));
        return;
    }
    let events = run(&presets::classic()).expect("the classic preset is valid").events.len();
    println!("classic preset: {events} events per run (seed 1)");
    measure("full trace", 40_000, |scenario| run(scenario).expect("valid").events.len() as u64);
    measure("summary with its verdict", 100_000, |scenario| u64::from(run_summary(scenario).expect("valid").accepted_writes));
    measure("counters only (sweeps, quiz keys, the explorer)", 300_000, |scenario| {
        u64::from(run_counts(scenario).expect("valid").tally.accepted_writes)
    });
    fleet_hour();
    println!("native, explorer per preset (fencing on, no_stale_overwrite, up to two faults):");
    for preset in presets::PRESETS {
        let scenario = Scenario { fencing: true, ..(preset.build)() };
        let started = Instant::now();
        let tried = match explore(&scenario, Property::NoStaleOverwrite, 2).expect("every preset is valid") {
            Outcome::Counterexample(found) => found.schedules_tried,
            Outcome::None { schedules_tried, .. } => schedules_tried,
        };
        let seconds = started.elapsed().as_secs_f64();
        println!("  {:<24} {tried:>6} schedules  {:>6.0} ms  ({:.0} schedules/s)", preset.id, seconds * 1e3, tried as f64 / seconds);
    }
}

/// One simulated hour of a 16-worker fleet with JVM full-GC pauses, the
/// issue's "fast enough to feel live" figure (natively; the page's wasm
/// build is slower by its own factor).
fn fleet_hour() {
    use fencing_sim::fleet;
    use fencing_sim::pauses::PauseShape;
    let scenario = fleet::base(16, 3_600_000, PauseShape::JvmFullGc);
    let started = Instant::now();
    let report = fleet::run(&scenario).expect("the fleet base is valid");
    let seconds = started.elapsed().as_secs_f64();
    println!("fleet: one simulated hour of 16 workers ({} jobs, {} pauses): {:.3} s", report.jobs, report.pauses, seconds);
}
