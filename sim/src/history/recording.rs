//! A real run recorded as a history, and a fresh real run compared with its
//! recording (`recordings/`, docs/histories.md "Recordings").
//!
//! `Recorder` is a small builder the reality checks feed as they watch a
//! real server: each call is one fact they observed, at a time in µs from
//! the run's start that the caller measured (nothing here reads a clock).
//! `compare` judges both histories with `judge` and lists every fact the
//! model claims on which they differ (holders and tokens in grant order,
//! leases dropped early, each write and its decision, who wrote last, the
//! verdict's counters) apart from the timing differences, which are only
//! told: a real server's timers and a loaded machine move every moment of a
//! run, and none of the model's claims rests on a moment being exact.

use super::{judge, Entry, History, HistoryError, Line, Provenance, ReleaseHow, RECORDS_MAX};
use crate::actor::Actor;
use crate::format_us;
use crate::permalink::{self, Permalink};
use crate::scenario::Scenario;

/// The link of a model's run (`permalink::to_query`, no cursor and no
/// comparison), if it reads back as exactly that scenario with nothing
/// ignored. A link carries a preset and the settings the page can change;
/// a scenario tuned past them (a start gap, a backoff, a request timeout of
/// its own) has none.
pub fn model_link(scenario: &Scenario) -> Option<String> {
    let link = permalink::to_query(&Permalink { scenario: scenario.clone(), cursor: None, compare: None });
    let (read, notices) = permalink::parse(&link);
    (notices.is_empty() && read.scenario == *scenario).then_some(link)
}

/// Builds a history from what a real run was seen to do, in any order of
/// calls: `finish` sorts the records by time (ties keep the calls' order).
#[derive(Clone, Debug)]
pub struct Recorder {
    provenance: Provenance,
    fencing: bool,
    entries: Vec<Entry>,
    /// Calls past `RECORDS_MAX`, refused by `finish`.
    overflow: usize,
}

impl Recorder {
    /// A recording of a run whose store fences (`fencing`) or checks nothing.
    pub fn new(provenance: Provenance, fencing: bool) -> Recorder {
        Recorder { provenance, fencing, entries: Vec::with_capacity(32), overflow: 0 }
    }

    /// Names the model's run this recording is held to: the header's
    /// `model` is `scenario`'s link, when a link gives back exactly that
    /// scenario (`model_link`); otherwise the header has none. Whether it
    /// was written.
    pub fn held_to(&mut self, scenario: &Scenario) -> bool {
        self.provenance.model = model_link(scenario);
        self.provenance.model.is_some()
    }

    fn push(&mut self, entry: Entry) {
        if self.entries.len() < RECORDS_MAX {
            self.entries.push(entry);
        } else {
            self.overflow += 1;
        }
    }

    /// The service granted `holder` a lease at `at_us` that runs until
    /// `lease_end_us` unless renewed, released or dropped.
    pub fn grant(&mut self, holder: Actor, token: Option<u64>, at_us: u64, lease_end_us: u64) {
        self.push(Entry::Grant { holder, token, lease_start_us: at_us, lease_end_us });
    }

    /// The holder's latest grant ends at `lease_end_us` after all: for a
    /// service whose lease ends when the server acts on it (ZooKeeper
    /// expires a session at its tick after the timeout), once that moment
    /// is seen. Nothing happens if `holder` has no grant yet.
    pub fn lease_ends(&mut self, holder: Actor, lease_end_us: u64) {
        let latest =
            self.entries.iter_mut().rev().find(|entry| matches!(entry, Entry::Grant { holder: granted, .. } if *granted == holder));
        if let Some(Entry::Grant { lease_end_us: end, .. }) = latest {
            *end = lease_end_us;
        }
    }

    pub fn renewal(&mut self, holder: Actor, at_us: u64, lease_end_us: u64) {
        self.push(Entry::Renewal { holder, at_us, lease_end_us });
    }

    /// The service dropped the holder's lease before its end (a failover
    /// that lost the key, a demoted primary's data replaced).
    pub fn expiry(&mut self, holder: Actor, at_us: u64) {
        self.push(Entry::Expiry { holder, at_us });
    }

    /// A compare-and-delete release.
    pub fn release(&mut self, worker: Actor, at_us: u64) {
        self.push(Entry::Release { worker, at_us, how: ReleaseHow::IfMine });
    }

    /// A measured stop-the-world pause (a SIGSTOP and its SIGCONT).
    pub fn pause(&mut self, worker: Actor, from_us: u64, to_us: u64) {
        self.push(Entry::Pause { worker, from_us, to_us });
    }

    pub fn write(&mut self, writer: Actor, token: Option<u64>, sent_at_us: u64, decided_at_us: u64, accepted: bool) {
        self.push(Entry::Write { writer, token, sent_at_us, decided_at_us, accepted });
    }

    /// The history, its records in time order; refused if the run saw more
    /// than a history may hold.
    pub fn finish(self) -> Result<History, HistoryError> {
        if self.overflow > 0 {
            return Err(HistoryError::one(format!(
                "the run recorded {} records, over the limit of {RECORDS_MAX}",
                RECORDS_MAX + self.overflow
            )));
        }
        let mut entries = self.entries;
        // Stable: one moment's records keep the order they were seen in.
        entries.sort_by_key(Entry::at_us);
        let records = entries.into_iter().enumerate().map(|(index, entry)| Line { line: index as u32 + 2, entry }).collect();
        Ok(History { provenance: self.provenance, fencing: self.fencing, records })
    }
}

/// The comparison's name for the holders and their tokens in grant order.
pub const GRANTS_FACT: &str = "holders and tokens in grant order";

/// One fact on which a fresh run and its recording differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The fact, as the check's report names it: "holders and tokens in grant order".
    pub fact: &'static str,
    pub recorded: String,
    pub fresh: String,
}

/// What a comparison found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// The facts the model claims on which the two runs differ: any one
    /// fails the check.
    pub disagreements: Vec<Disagreement>,
    /// How the moments moved, one sentence each ("B's grant 412 ms later
    /// than recorded (10.912 s; recorded 10.500 s)"): told, never failed on.
    pub timing: Vec<String>,
}

impl Comparison {
    pub fn agrees(&self) -> bool {
        self.disagreements.is_empty()
    }
}

/// The facts of a judged history that a comparison holds a fresh run to.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Facts {
    fencing: String,
    grants: String,
    dropped: String,
    writes: String,
    final_store: String,
    zombie_writes: String,
    stale_overwrites: String,
    rejected_writes: String,
    rightful_writes_rejected: String,
    mutual_exclusion_violations: String,
}

fn token_text(token: Option<u64>) -> String {
    token.map_or("-".to_string(), |token| token.to_string())
}

fn listed(items: Vec<String>) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(" ")
    }
}

fn facts_of(history: &History) -> Result<Facts, HistoryError> {
    let judged = judge(history)?;
    let summary = &judged.trace.summary;
    let entries = || history.records.iter().map(|record| record.entry);
    let grants = entries()
        .filter_map(|entry| match entry {
            Entry::Grant { holder, token, .. } => Some(format!("{holder}:{}", token_text(token))),
            _ => None,
        })
        .collect();
    let dropped = entries()
        .filter_map(|entry| match entry {
            Entry::Expiry { holder, .. } => Some(holder.to_string()),
            _ => None,
        })
        .collect();
    let writes = entries()
        .filter_map(|entry| match entry {
            Entry::Write { writer, token, accepted, .. } => {
                Some(format!("{writer}:{} {}", token_text(token), if accepted { "accepted" } else { "refused" }))
            }
            _ => None,
        })
        .collect::<Vec<_>>();
    let final_store = summary.final_store.map_or("empty".to_string(), |datum| format!("{}:{}", datum.writer, token_text(datum.token)));
    Ok(Facts {
        fencing: if history.fencing { "on" } else { "off" }.to_string(),
        grants: listed(grants),
        dropped: listed(dropped),
        writes: if writes.is_empty() { "none".to_string() } else { writes.join(", ") },
        final_store,
        zombie_writes: summary.zombie_writes.to_string(),
        stale_overwrites: summary.stale_overwrites.to_string(),
        rejected_writes: summary.rejected_writes.to_string(),
        rightful_writes_rejected: summary.rightful_writes_rejected.to_string(),
        mutual_exclusion_violations: summary.mutual_exclusion_violations.to_string(),
    })
}

/// How a comparison's sentences name its two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sides {
    /// Each side in a problem's words: "the recording", "the fresh run".
    pub first: &'static str,
    pub second: &'static str,
    /// The first side in a timing note: "… later than recorded (…; recorded …)".
    pub than: &'static str,
    pub then: &'static str,
    /// The least a moment must move to be told, in µs.
    pub told_from_us: u64,
}

/// A reality check's: a fresh real run held to its recording.
pub const RECORDED_AND_FRESH: Sides =
    Sides { first: "the recording", second: "the fresh run", than: "than recorded", then: "recorded", told_from_us: 1_000 };

/// The page's: a recording beside the model's run it is held to.
/// A real run's scheduling (a process woken, a packet sent) moves its moments
/// by a few milliseconds on any machine: the page tells what moved by 10 ms or more.
pub const MODEL_AND_REAL: Sides =
    Sides { first: "the model's run", second: "the real run", than: "than in the model", then: "the model", told_from_us: 10_000 };

/// Compares a fresh real run with its recording: every fact the model
/// claims must be the same (`Comparison::disagreements`); the moments are
/// only compared in words (`Comparison::timing`). Either history that
/// cannot be judged is an error naming which.
pub fn compare(recorded: &History, fresh: &History) -> Result<Comparison, HistoryError> {
    compare_as(recorded, fresh, RECORDED_AND_FRESH)
}

/// `compare`, its sentences naming the sides as `sides` says.
pub fn compare_as(recorded: &History, fresh: &History, sides: Sides) -> Result<Comparison, HistoryError> {
    let named = |whose: &str, error: HistoryError| HistoryError {
        problems: error.problems.into_iter().map(|problem| format!("{whose}: {problem}")).collect(),
    };
    let before = facts_of(recorded).map_err(|error| named(sides.first, error))?;
    let now = facts_of(fresh).map_err(|error| named(sides.second, error))?;
    let pairs: [(&'static str, &String, &String); 10] = [
        ("the store's fencing", &before.fencing, &now.fencing),
        (GRANTS_FACT, &before.grants, &now.grants),
        ("leases the service dropped before their end", &before.dropped, &now.dropped),
        ("writes in order and the store's decisions", &before.writes, &now.writes),
        ("who wrote last (the store's final data)", &before.final_store, &now.final_store),
        ("zombie_writes", &before.zombie_writes, &now.zombie_writes),
        ("stale_overwrites", &before.stale_overwrites, &now.stale_overwrites),
        ("rejected_writes", &before.rejected_writes, &now.rejected_writes),
        ("rightful_writes_rejected", &before.rightful_writes_rejected, &now.rightful_writes_rejected),
        ("mutual_exclusion_violations", &before.mutual_exclusion_violations, &now.mutual_exclusion_violations),
    ];
    let disagreements = pairs
        .into_iter()
        .filter(|(_, recorded, fresh)| recorded != fresh)
        .map(|(fact, recorded, fresh)| Disagreement { fact, recorded: recorded.clone(), fresh: fresh.clone() })
        .collect();
    Ok(Comparison { disagreements, timing: timing(recorded, fresh, sides) })
}

/// A record's kind and the moments a timing note compares: (name of the
/// moment, µs), its first time first.
fn moments(entry: &Entry) -> (&'static str, Vec<(&'static str, u64)>) {
    match *entry {
        Entry::Grant { lease_start_us, lease_end_us, .. } => ("grant", vec![("grant", lease_start_us), ("lease end", lease_end_us)]),
        Entry::Renewal { at_us, .. } => ("renewal", vec![("renewal", at_us)]),
        Entry::Expiry { at_us, .. } => ("expiry", vec![("lease dropped", at_us)]),
        Entry::Release { at_us, .. } => ("release", vec![("release", at_us)]),
        Entry::Pause { from_us, to_us, .. } => ("pause", vec![("pause", from_us), ("pause's end", to_us)]),
        Entry::Write { sent_at_us, decided_at_us, .. } => ("write", vec![("write", sent_at_us), ("write's decision", decided_at_us)]),
    }
}

/// The timing notes: each worker's n-th record of a kind in the fresh run
/// against its n-th in the recording, every moment that moved by a
/// millisecond or more; renewals only by their number (a watchdog's count
/// follows the run's length, not a claim).
fn timing(recorded: &History, fresh: &History, sides: Sides) -> Vec<String> {
    let of_kind = |history: &History, kind: &str, worker: Actor| -> Vec<Entry> {
        history.records.iter().map(|record| record.entry).filter(|entry| moments(entry).0 == kind && entry.worker() == worker).collect()
    };
    let mut workers: Vec<Actor> = recorded.records.iter().chain(&fresh.records).map(|record| record.entry.worker()).collect();
    workers.sort_by_key(|worker| worker.worker_index());
    workers.dedup();
    let mut notes = Vec::new();
    for worker in workers {
        for kind in ["grant", "pause", "write", "expiry", "release", "renewal"] {
            let (before, now) = (of_kind(recorded, kind, worker), of_kind(fresh, kind, worker));
            if kind == "renewal" {
                if before.len() != now.len() {
                    notes.push(format!("{worker}'s renewals: {} ({} {})", now.len(), sides.then, before.len()));
                }
                continue;
            }
            for (then, fresh) in before.iter().zip(&now) {
                for ((what, then_us), (_, now_us)) in moments(then).1.into_iter().zip(moments(fresh).1) {
                    let delta_us = now_us.abs_diff(then_us);
                    if delta_us < sides.told_from_us {
                        continue;
                    }
                    let way = if now_us > then_us { "later" } else { "earlier" };
                    notes.push(format!(
                        "{worker}'s {what} {} ms {way} {} ({}; {} {})",
                        delta_us / 1_000,
                        sides.than,
                        format_us(now_us),
                        sides.then,
                        format_us(then_us)
                    ));
                }
            }
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::parse;

    const A: Actor = Actor::Worker(0);
    const B: Actor = Actor::Worker(1);

    /// The GC pause as a real Redis run might record it: A's lease of 1 s,
    /// A frozen 2 s, B granted at A's lease end, A's zombie write.
    fn gc_pause(fencing: bool, b_granted_us: u64) -> History {
        let provenance = Provenance { source: "redis-server 7.0.15".to_string(), ..Provenance::default() };
        let mut recorder = Recorder::new(provenance, fencing);
        // Out of order on purpose: `finish` sorts.
        recorder.pause(A, 5_000, 2_005_000);
        recorder.grant(A, Some(33), 1_000, 1_001_000);
        recorder.grant(B, Some(34), b_granted_us, b_granted_us + 1_000_000);
        recorder.write(B, Some(34), b_granted_us + 300, b_granted_us + 500, true);
        recorder.release(B, b_granted_us + 900);
        recorder.write(A, Some(33), 2_005_100, 2_005_300, !fencing);
        recorder.finish().expect("a small history")
    }

    #[test]
    fn a_recording_is_a_history_in_time_order_that_round_trips_and_is_judged() {
        let history = gc_pause(false, 1_010_000);
        let times: Vec<u64> = history.records.iter().map(|record| record.entry.at_us()).collect();
        assert!(times.windows(2).all(|pair| pair[0] <= pair[1]), "{times:?}");
        let read = parse(history.to_jsonl().as_bytes()).expect("the recording parses");
        assert_eq!(read, history);
        let judged = judge(&read).expect("judged");
        assert_eq!((judged.trace.summary.zombie_writes, judged.trace.summary.stale_overwrites), (1, 1));
    }

    #[test]
    fn a_fresh_run_that_only_moved_in_time_agrees_and_its_moments_are_told() {
        let comparison = compare(&gc_pause(false, 1_010_000), &gc_pause(false, 1_422_000)).expect("both judged");
        assert!(comparison.agrees(), "{:?}", comparison.disagreements);
        assert!(comparison.timing.iter().any(|note| note.starts_with("B's grant 412 ms later than recorded")), "{:?}", comparison.timing);
        assert!(compare(&gc_pause(true, 1_010_000), &gc_pause(true, 1_010_000)).unwrap().timing.is_empty());
    }

    #[test]
    fn an_edited_token_in_a_recording_fails_the_comparison_naming_the_fact_and_both_values() {
        let fresh = gc_pause(false, 1_010_000);
        // The file as committed, with B's token (its grant's and its
        // write's) edited by hand.
        let edited = fresh.to_jsonl().replace(r#""token":34"#, r#""token":35"#);
        assert_ne!(edited, fresh.to_jsonl(), "the edit landed");
        let recorded = parse(edited.as_bytes()).expect("the edited recording parses");
        let comparison = compare(&recorded, &fresh).expect("both judged");
        assert!(!comparison.agrees());
        let grants = comparison.disagreements.iter().find(|disagreement| disagreement.fact == "holders and tokens in grant order");
        assert_eq!(
            grants,
            Some(&Disagreement {
                fact: "holders and tokens in grant order",
                recorded: "A:33 B:35".to_string(),
                fresh: "A:33 B:34".to_string()
            })
        );
        assert!(comparison.disagreements.iter().any(|disagreement| disagreement.fact == "writes in order and the store's decisions"));
    }

    #[test]
    fn fencing_changes_the_decisions_the_last_writer_and_the_verdict() {
        let comparison = compare(&gc_pause(false, 1_010_000), &gc_pause(true, 1_010_000)).expect("both judged");
        let facts: Vec<&str> = comparison.disagreements.iter().map(|disagreement| disagreement.fact).collect();
        assert_eq!(
            facts,
            [
                "the store's fencing",
                "writes in order and the store's decisions",
                "who wrote last (the store's final data)",
                "zombie_writes",
                "stale_overwrites",
                "rejected_writes"
            ]
        );
        let last = &comparison.disagreements[2];
        assert_eq!((last.recorded.as_str(), last.fresh.as_str()), ("A:33", "B:34"));
    }

    #[test]
    fn a_history_that_cannot_be_judged_is_named() {
        let mut broken = gc_pause(false, 1_010_000);
        broken.records.retain(|record| !matches!(record.entry, Entry::Grant { holder: B, .. }));
        let error = compare(&gc_pause(false, 1_010_000), &broken).expect_err("B writes with no grant");
        assert!(error.problems[0].starts_with("the fresh run: line "), "{error}");
        let error = compare(&broken, &gc_pause(false, 1_010_000)).expect_err("B writes with no grant");
        assert!(error.problems[0].starts_with("the recording: "), "{error}");
    }

    #[test]
    fn the_model_a_recording_is_held_to_is_a_link_that_reads_back_and_no_fact() {
        let scenario = crate::presets::build("gc-pause").expect("a preset");
        let held = crate::scenario::Scenario { ttl_ms: 1_000, fencing: true, ..scenario.clone() };
        let mut recorder = Recorder::new(Provenance::default(), true);
        assert!(recorder.held_to(&held));
        recorder.grant(A, Some(33), 0, 1_000_000);
        let history = recorder.finish().unwrap();
        let link = history.provenance.model.clone().expect("the link");
        assert!(link.starts_with("preset=gc-pause&seed=") && link.contains("fencing=on") && link.contains("ttl_ms=1000"), "{link}");
        let (read, notices) = permalink::parse(&link);
        assert_eq!((read.scenario, notices), (held, Vec::<String>::new()));
        // Written, read back, and never a disagreement: it is provenance.
        let read = parse(history.to_jsonl().as_bytes()).expect("parses");
        assert_eq!(read, history);
        let mut other = history.clone();
        other.provenance.model = Some("preset=redis-failover".to_string());
        assert!(compare(&history, &other).unwrap().agrees());
        other.provenance.model = None;
        assert!(compare(&other, &history).unwrap().agrees());
        // A setting no link carries: no link rather than another scenario's.
        let tuned = crate::scenario::Scenario { latency_us_max: scenario.latency_us_max + 1, ..scenario };
        assert_eq!(model_link(&tuned), None);
        let mut recorder = Recorder::new(Provenance::default(), false);
        assert!(!recorder.held_to(&tuned));
        assert_eq!(recorder.finish().unwrap().provenance.model, None);
    }

    #[test]
    fn a_late_lease_end_replaces_the_latest_grants() {
        let mut recorder = Recorder::new(Provenance::default(), false);
        recorder.grant(A, Some(1), 0, 10);
        recorder.grant(A, Some(2), 20, 30);
        recorder.lease_ends(A, 45);
        recorder.lease_ends(B, 99);
        let history = recorder.finish().unwrap();
        let ends: Vec<u64> = history
            .records
            .iter()
            .filter_map(|record| match record.entry {
                Entry::Grant { lease_end_us, .. } => Some(lease_end_us),
                _ => None,
            })
            .collect();
        assert_eq!(ends, [10, 45]);
    }
}
