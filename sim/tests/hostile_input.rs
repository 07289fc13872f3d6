//! Hostile input: the two doors a stranger's text comes in by — a shared
//! link (`permalink::parse`) and a scenario file (`serde_json` into a
//! `Scenario`, then `validate`, then `run`). Nothing may panic or hang; a link
//! that had anything ignored must say so; a bad scenario must be refused
//! with a message that names the problem; a valid one must run to its bound.
//!
//! Explicit tables pin the class of outcome of each known-bad input;
//! proptest then throws arbitrary and mutated text at both doors.
//! docs/hostile-input.md lists the inputs, the messages and the timings.

use fencing_sim::permalink::{self, Permalink, PAIRS_MAX};
use fencing_sim::scenario::{EVENTS_MAX, FAULTS_MAX};
use fencing_sim::{presets, run, Kind, Scenario};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Cases per property: four properties of 3,000.
const CASES: u32 = 3_000;
/// Generated scenarios run with at most this many events, so that 3,000 of
/// them stay within seconds; the table runs the real maximum once.
const FUZZ_EVENTS_MAX: u32 = 20_000;
/// The longest notice a link may produce: values are repeated back briefly.
const NOTICE_CHARS_MAX: usize = 600;
/// How far past `events_max + 1` a truncated run may go. Zero since the
/// world stops logging at the bound (it once overshot by a step's events).
const KNOWN_OVERSHOOT_MAX: usize = 0;

/// The seed every hostile-input property draws from: the same hostile text
/// on every machine, every run (fresh seeds belong to `scripts/soak.sh`).
const SEED: u64 = 0x0405_711e;

/// The cases and persistence both properties share; each names its fixed
/// seed where it is declared.
fn config() -> ProptestConfig {
    ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() }
}

#[path = "hostile_input/links.rs"]
mod links;
#[path = "hostile_input/scenarios.rs"]
mod scenarios;
