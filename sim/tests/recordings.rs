//! The committed recordings (`recordings/`, docs/histories.md
//! "Recordings"): what real servers were seen to do, written by the reality
//! checks under `scripts/record.sh`. Each must parse, be judged (as
//! `fencing-lab check` judges it) and bear out the story its check tells;
//! and every file there must be one of the stories below, so that a
//! recording nobody holds to anything cannot sit in the folder.

use fencing_sim::history::{self, Entry, History};
use fencing_sim::permalink;
use fencing_sim::Summary;
use std::path::Path;

/// What one recording's story promises, checked on its judged summary and
/// its records.
struct Story {
    file: &'static str,
    /// The header's fencing.
    fencing: bool,
    /// The check that writes it.
    check: &'static str,
    promise: fn(&History, &Summary) -> Result<(), String>,
}

/// Holders and tokens in grant order, "A:33 B:34".
fn grants(history: &History) -> String {
    let grants = history.records.iter().filter_map(|record| match record.entry {
        Entry::Grant { holder, token, .. } => Some(format!("{holder}:{}", token.map_or("-".to_string(), |token| token.to_string()))),
        _ => None,
    });
    grants.collect::<Vec<_>>().join(" ")
}

/// Leases the service dropped before their end, in order: "A".
fn dropped(history: &History) -> String {
    let dropped = history.records.iter().filter_map(|record| match record.entry {
        Entry::Expiry { holder, .. } => Some(holder.to_string()),
        _ => None,
    });
    dropped.collect::<Vec<_>>().join(" ")
}

fn final_store(summary: &Summary) -> String {
    summary.final_store.map_or("empty".to_string(), |datum| format!("{}:{}", datum.writer, datum.token.unwrap_or(0)))
}

/// (zombie_writes, stale_overwrites, rejected_writes, rightful_writes_rejected).
fn counters(summary: &Summary) -> (u32, u32, u32, u32) {
    (summary.zombie_writes, summary.stale_overwrites, summary.rejected_writes, summary.rightful_writes_rejected)
}

fn expect<T: PartialEq + std::fmt::Debug>(what: &str, found: T, promised: T) -> Result<(), String> {
    if found == promised {
        Ok(())
    } else {
        Err(format!("{what}: found {found:?}, the story promises {promised:?}"))
    }
}

const STORIES: &[Story] = &[
    Story {
        file: "gc-pause.redis.jsonl",
        fencing: false,
        check: "scripts/live-demo.sh",
        // A frozen past its lease writes with 33 over B's 34: one zombie
        // write, which overwrote newer data.
        promise: |history, summary| {
            expect("grants", grants(history).as_str(), "A:33 B:34")?;
            expect("counters", counters(summary), (1, 1, 0, 0))?;
            expect("who wrote last", final_store(summary).as_str(), "A:33")
        },
    },
    Story {
        file: "gc-pause.fenced.redis.jsonl",
        fencing: true,
        check: "scripts/live-demo.sh",
        // The same run at the fenced store: A's 33 refused, B's data kept.
        promise: |history, summary| {
            expect("grants", grants(history).as_str(), "A:33 B:34")?;
            expect("counters", counters(summary), (0, 0, 1, 0))?;
            expect("who wrote last", final_store(summary).as_str(), "B:34")
        },
    },
    Story {
        file: "token-inversion.redis.jsonl",
        fencing: true,
        check: "scripts/live-demo.sh",
        // A granted first but frozen before its INCR: B draws 33, A 34; the
        // fenced store takes A's stale write and refuses B, the rightful holder.
        promise: |history, summary| {
            expect("grants", grants(history).as_str(), "A:34 B:33")?;
            expect("counters", counters(summary), (2, 1, 1, 1))?;
            expect("who wrote last", final_store(summary).as_str(), "A:34")
        },
    },
    Story {
        file: "token-inversion.plain.redis.jsonl",
        fencing: false,
        check: "scripts/live-demo.sh",
        promise: |history, summary| {
            expect("grants", grants(history).as_str(), "A:34 B:33")?;
            expect("counters", counters(summary), (2, 2, 0, 0))?;
            expect("who wrote last", final_store(summary).as_str(), "A:34")
        },
    },
    Story {
        file: "redis-failover.jsonl",
        fencing: false,
        check: "scripts/fidelity-failover.sh",
        // The key and the counter's last INCR lost with the primary: the
        // same token twice, A's lease dropped by the failover.
        promise: |history, summary| {
            expect("grants", grants(history).as_str(), "A:33 B:33")?;
            expect("dropped", dropped(history).as_str(), "A")?;
            expect("counters", counters(summary), (0, 0, 0, 0))
        },
    },
    Story {
        file: "redis-split-brain.jsonl",
        fencing: false,
        check: "scripts/fidelity-sentinel.sh",
        // Two primaries: B granted on the new one while A still holds the
        // old one, C granted there after A with B's token; C's key dropped
        // when Sentinel demotes the old primary.
        promise: |history, summary| {
            expect("grants", grants(history).as_str(), "A:33 B:34 C:34")?;
            expect("dropped", dropped(history).as_str(), "C")?;
            expect("two holders at once", summary.mutual_exclusion_violations > 0, true)
        },
    },
    Story {
        file: "etcd-partition.jsonl",
        fencing: false,
        check: "scripts/fidelity-etcd-partition.sh",
        // The cut-off leader changes nothing: A keeps its lease, B holds
        // after A's release with a later revision, nobody dropped.
        promise: |history, summary| {
            let tokens: Vec<u64> = history
                .records
                .iter()
                .filter_map(|record| match record.entry {
                    Entry::Grant { token, .. } => token,
                    _ => None,
                })
                .collect();
            expect("holders", grants(history).split(' ').map(|grant| &grant[..1]).collect::<Vec<_>>(), vec!["A", "B"])?;
            expect("B's revision after A's", tokens.windows(2).all(|pair| pair[0] < pair[1]), true)?;
            expect("dropped", dropped(history).as_str(), "")?;
            expect("two holders at once", summary.mutual_exclusion_violations, 0)
        },
    },
    Story {
        file: "zookeeper-gc-pause.jsonl",
        fencing: false,
        check: "scripts/fidelity-zookeeper.sh",
        // A frozen past its session: ZooKeeper ends it, B holds, then C,
        // the sequence numbers one apart; nobody held it twice at once.
        promise: |history, summary| {
            expect("grants", grants(history).as_str(), "A:33 B:34 C:35")?;
            let paused = history.records.iter().any(|record| matches!(record.entry, Entry::Pause { .. }));
            expect("A's pause recorded", paused, true)?;
            expect("two holders at once", summary.mutual_exclusion_violations, 0)
        },
    },
];

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("recordings")
}

#[test]
fn every_committed_recording_is_judged_as_its_story_promises() {
    let mut failures = Vec::new();
    for story in STORIES {
        let path = dir().join(story.file);
        let outcome = std::fs::read(&path)
            .map_err(|error| format!("missing ({error}): run scripts/record.sh ({})", story.check))
            .and_then(|bytes| history::parse(&bytes).map_err(|error| error.to_string()))
            .and_then(|history| {
                let judged = history::judge(&history).map_err(|error| error.to_string())?;
                expect("fencing", history.fencing, story.fencing)?;
                let kernel_and_date = history.provenance.kernel.is_some() && history.provenance.date.is_some();
                expect("the header names the kernel and the date", kernel_and_date, true)?;
                // The model's run it is held to, where the header names it:
                // a link the page reads with nothing ignored.
                if let Some(model) = &history.provenance.model {
                    expect(&format!("what reading the model link {model:?} ignored"), permalink::parse(model).1, Vec::new())?;
                }
                (story.promise)(&history, &judged.trace.summary)?;
                // `fencing-lab check`'s exit: 1 exactly when a write was damaged.
                let damaged = judged.trace.summary.zombie_writes + judged.trace.summary.stale_overwrites > 0;
                expect("damaged (check exits 1)", judged.damaged(), damaged)
            });
        if let Err(problem) = outcome {
            failures.push(format!("recordings/{}: {problem}", story.file));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_file_in_recordings_is_a_story_held_to_its_promise() {
    let entries = std::fs::read_dir(dir()).expect("recordings/ is committed");
    let mut unknown = Vec::new();
    for entry in entries.take(1_000) {
        let name = entry.expect("a directory entry").file_name().to_string_lossy().into_owned();
        if !STORIES.iter().any(|story| story.file == name) {
            unknown.push(name);
        }
    }
    assert!(unknown.is_empty(), "recordings/ holds files no story checks: {unknown:?} (add each to STORIES)");
}
