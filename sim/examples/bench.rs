//! Prints runs per second of the classic preset, natively, and its event
//! count. A figure for the bench script, not a test.

use fencing_sim::{presets, run, Scenario};
use std::time::Instant;

fn main() {
    const RUNS: u64 = 20_000;
    let scenario = presets::classic();
    let events = run(&scenario).expect("the classic preset is valid").events.len();
    let started = Instant::now();
    let mut checksum = 0u64;
    for seed in 0..RUNS {
        let trace = run(&Scenario { seed, ..scenario.clone() }).expect("valid");
        checksum = checksum.wrapping_add(trace.events.len() as u64);
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("classic preset: {events} events per run (seed 1)");
    println!(
        "native: {:.0} runs/s over {RUNS} seeds ({:.1} µs per run; checksum {checksum})",
        RUNS as f64 / seconds,
        seconds * 1e6 / RUNS as f64
    );
}
