//! Helpers shared by the tests against real servers (each test crate
//! includes this file and uses part of it).

use fencing_sim::{Actor, Kind, Trace};
use std::time::Instant;

/// A value no other run uses (the tests, not the model, may use entropy):
/// std's randomly keyed hasher over the time.
pub fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    hasher.finish()
}

/// The variable a script sets for a real-server test; a clear failure
/// without it (a missing server is never a pass).
pub fn required_env(name: &str, script: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run {script}, which starts the server(s) and sets it"))
}

/// A worker's letter: 0 is A.
pub fn letter(worker: u8) -> char {
    char::from(b'A' + worker)
}

/// Compares the order in which workers got the lock on the real server and
/// in the model. A difference is a failure, unless it follows a reply that
/// was already tolerated for timing (then it is printed).
pub fn check_grants(what: &str, server: &str, real: &[u8], model: &[u8], tolerated_before: bool, failures: &mut Vec<String>) {
    if real == model {
        return;
    }
    let names = |grants: &[u8]| grants.iter().map(|worker| letter(*worker).to_string()).collect::<Vec<_>>().join(" ");
    let said = format!("{what}: the lock went to [{}] on the real {server}, to [{}] in the model", names(real), names(model));
    if tolerated_before {
        println!("  TOLERATED (follows a timing-tolerated reply): {said}");
    } else {
        failures.push(said);
    }
}

/// Workers' letters, space-separated: "A B C".
pub fn names(grants: &[u8]) -> String {
    grants.iter().map(|worker| letter(*worker).to_string()).collect::<Vec<_>>().join(" ")
}

/// The model's side of a story for a report: the events `shown` keeps, up
/// to B's grant, one line each.
pub fn model_lines(trace: &Trace, shown: fn(&Kind) -> bool) -> Vec<String> {
    let b_holds_us = trace
        .events
        .iter()
        .find(|event| event.actor == Actor::Worker(1) && matches!(event.kind, Kind::Acquired { .. }))
        .map_or(u64::MAX, |event| event.t_us);
    trace
        .events
        .iter()
        .filter(|event| shown(&event.kind) && event.t_us <= b_holds_us)
        .map(|event| format!("{:>12}  {:<6} {}", fencing_sim::format_us(event.t_us), event.actor.to_string(), trace.text(event)))
        .collect()
}
