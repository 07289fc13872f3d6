//! `fencing-lab check` on every committed recording (`recordings/`,
//! docs/histories.md "Recordings"): the exit its story promises (1 when a
//! write was damaged, 0 when none was) and the verdict's counters it prints.

use std::process::Command;

/// (file, exit code, lines `check` must print).
const PROMISES: &[(&str, i32, &[&str])] = &[
    ("gc-pause.redis.jsonl", 1, &["zombie_writes                  1", "final_store                    A (token 33)"]),
    (
        "gc-pause.fenced.redis.jsonl",
        0,
        &["zombie_writes                  0", "rejected_writes                1", "final_store                    B (token 34)"],
    ),
    ("token-inversion.redis.jsonl", 1, &["rejected_writes                1", "final_store                    A (token 34)"]),
    ("token-inversion.plain.redis.jsonl", 1, &["stale_overwrites               2"]),
    ("redis-failover.jsonl", 0, &["zombie_writes                  0"]),
    ("redis-split-brain.jsonl", 0, &["zombie_writes                  0"]),
    ("etcd-partition.jsonl", 0, &["mutual_exclusion_violations    0"]),
    ("zookeeper-gc-pause.jsonl", 0, &["mutual_exclusion_violations    0"]),
];

#[test]
fn check_gives_every_recording_the_verdict_its_story_promises() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("recordings");
    let mut failures = Vec::new();
    for (file, exit, lines) in PROMISES {
        let output = Command::new(env!("CARGO_BIN_EXE_fencing-lab")).arg("check").arg(dir.join(file)).output().expect("the binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        if output.status.code() != Some(*exit) {
            failures.push(format!("{file}: exit {:?}, promised {exit}: {}", output.status.code(), String::from_utf8_lossy(&output.stderr)));
        }
        for line in lines.iter().filter(|line| !stdout.lines().any(|printed| printed.starts_with(*line))) {
            failures.push(format!("{file}: no line {line:?} in:\n{stdout}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
