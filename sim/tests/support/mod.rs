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

/// Where a check keeps its run: `FENCING_LAB_RECORD`, when set
/// (`scripts/record.sh`), is the folder a fresh recording is written to;
/// otherwise the run is compared with the committed one in `recordings/`.
pub const RECORD_VAR: &str = "FENCING_LAB_RECORD";

/// The committed recordings: `recordings/` at the workspace's root.
pub fn recordings_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("recordings")
}

/// A command's first line of output, trimmed ("?" if it cannot run): the
/// kernel (`uname -sr`) and the date (`date -u +%F`) of a recording.
fn command_line(program: &str, args: &[&str]) -> String {
    let output = std::process::Command::new(program).args(args).output();
    let text = output.ok().filter(|output| output.status.success()).map(|output| String::from_utf8_lossy(&output.stdout).into_owned());
    text.and_then(|text| text.lines().next().map(|line| line.trim().to_string()))
        .filter(|line| !line.is_empty())
        .unwrap_or_else(|| "?".to_string())
}

/// A recording's header: what recorded it (the server's name and version
/// as it reports them), the kernel and today's date, and a note on the run.
pub fn provenance(source: String, notes: String) -> fencing_sim::history::Provenance {
    fencing_sim::history::Provenance {
        source,
        kernel: Some(command_line("uname", &["-sr"])),
        date: Some(command_line("date", &["-u", "+%F"])),
        notes: Some(notes),
        model: None,
        time_zero_unix_us: None,
    }
}

/// µs from a real run's start, from the ms a check's timeline keeps.
pub fn us(t_ms: f64) -> u64 {
    (t_ms * 1000.0).round().max(0.0) as u64
}

/// Writes the fresh run as `recordings/<name>` (into `$FENCING_LAB_RECORD`)
/// or, in a normal test run, compares it with the committed recording:
/// every fact the model claims must agree (a failure names the recording,
/// the fact and both values); the timing differences are printed only.
pub fn record_or_compare(name: &str, fresh: &fencing_sim::history::History) {
    use fencing_sim::history;
    let judged = history::judge(fresh).unwrap_or_else(|error| panic!("the real run, as a history ({name}), cannot be judged: {error}"));
    let text = fresh.to_jsonl();
    if let Ok(dir) = std::env::var(RECORD_VAR) {
        let path = std::path::Path::new(&dir).join(name);
        std::fs::write(&path, &text).unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
        println!(
            "recorded {} ({} records, {} bytes; zombie_writes {}, stale_overwrites {}): review it with git diff",
            path.display(),
            fresh.records.len(),
            text.len(),
            judged.trace.summary.zombie_writes,
            judged.trace.summary.stale_overwrites
        );
        return;
    }
    let path = recordings_dir().join(name);
    let redo = "run scripts/record.sh and review the new recording with git diff";
    let bytes = std::fs::read(&path).unwrap_or_else(|error| panic!("no recording recordings/{name} ({error}): {redo}"));
    let recorded = history::parse(&bytes).unwrap_or_else(|error| panic!("recordings/{name} cannot be read: {error}; {redo}"));
    let comparison = history::compare(&recorded, fresh).unwrap_or_else(|error| panic!("recordings/{name}: {error}; {redo}"));
    let date = recorded.provenance.date.as_deref().unwrap_or("?");
    println!("\nthis run beside recordings/{name} ({}, recorded {date}):", recorded.provenance.source);
    for note in &comparison.timing {
        println!("  timing (not compared): {note}");
    }
    if comparison.timing.is_empty() {
        println!("  timing: every moment within a millisecond of the recording's");
    }
    let differ: Vec<String> = comparison
        .disagreements
        .iter()
        .map(|disagreement| format!("{}: recorded {}, this run {}", disagreement.fact, disagreement.recorded, disagreement.fresh))
        .collect();
    assert!(differ.is_empty(), "this real run disagrees with recordings/{name}: {}; {redo}", differ.join("; "));
    println!("  agree with recordings/{name} on holders and tokens, dropped leases, writes and decisions, the last writer and the verdict's counters");
}
