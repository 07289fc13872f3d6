//! A run's result: the scenario, every event in order, the timelines and the
//! summary. This is the command line's JSON and everything the page draws.

use crate::actor::Actor;
use crate::event::{Event, Tally};
use crate::ledger::WorkTally;
use crate::observer::{Observer, Span};
use crate::scenario::{Scenario, StoreKind};
use crate::store::Datum;
use crate::verdict::{verdict, Tone, Verdict};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Trace {
    pub scenario: Scenario,
    pub events: Vec<Event>,
    pub summary: Summary,
    /// Lease, belief and pause stretches per worker, for the timelines.
    pub spans: Vec<Span>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub zombie_writes: u32,
    pub stale_overwrites: u32,
    pub rejected_writes: u32,
    /// Refusals of the worker that, by ground truth, held the lock last.
    pub rightful_writes_rejected: u32,
    pub accepted_writes: u32,
    /// Writer and token of the store's last accepted write.
    pub final_store: Option<Datum>,
    pub mutual_exclusion_violations: u32,
    pub lock_lost_by_successor_release: u32,
    /// Accepted writes computed from data a newer accepted write had
    /// replaced (written only when there are some).
    #[serde(skip_serializing_if = "is_zero")]
    pub lost_updates: u32,
    /// Work done again after its first result was refused.
    #[serde(skip_serializing_if = "is_zero")]
    pub work_redone: u32,
    pub fencing: Fencing,
    /// One line that says what happened to the data, its tone, and a line
    /// for each red counter the verdict does not explain.
    pub verdict: String,
    pub tone: Tone,
    pub notes: Vec<String>,
    pub end_us: u64,
    /// Who still held the lock, by the lock service's view, when the run
    /// ended (nobody, in a run that finished its business).
    pub lock_holder_at_end: Option<Actor>,
    /// True when the run hit `events_max` before it was over.
    pub truncated: bool,
}

/// Whether the store really checked tokens in this run, and if not, why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "reason", rename_all = "snake_case")]
pub enum Fencing {
    On,
    Off,
    /// No lock and no token: the store's version check does the job.
    VersionCheck,
    Unavailable(String),
}

impl Fencing {
    pub fn of(scenario: &Scenario) -> Fencing {
        match (scenario.store, scenario.fencing, scenario.lock_service) {
            (StoreKind::Versioned, _, _) => Fencing::VersionCheck,
            (_, false, _) => Fencing::Off,
            (StoreKind::NfsFile, true, _) => {
                Fencing::Unavailable("a plain file on NFS cannot compare tokens: every write lands".to_string())
            }
            (StoreKind::Database, true, service) => match service.spec().tokens {
                Ok(()) => Fencing::On,
                Err(instead) => Fencing::Unavailable(instead.to_string()),
            },
        }
    }

    /// In a word or three, as the verdict table and the design's facts say it.
    pub fn short(&self) -> &'static str {
        match self {
            Fencing::On => "on",
            Fencing::Off => "off",
            Fencing::VersionCheck => "version check instead",
            Fencing::Unavailable(_) => "unavailable",
        }
    }

    /// How the page and the command line say it: "Fencing was … for this run."
    pub fn describe(&self) -> String {
        match self {
            Fencing::On => "on".to_string(),
            Fencing::Off => "off".to_string(),
            Fencing::VersionCheck => "not used: the store checks versions instead".to_string(),
            Fencing::Unavailable(reason) => format!("unavailable ({reason})"),
        }
    }
}

/// A run's counters without its prose: what sweeps, quiz keys and the
/// explorer read, thousands of runs at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub tally: Tally,
    pub work: WorkTally,
    /// As logged: a truncated run's store may have taken a write it could no
    /// longer log.
    pub final_store: Option<Datum>,
    pub lock_holder_at_end: Option<Actor>,
    pub end_us: u64,
    pub truncated: bool,
}

impl Counts {
    /// The observer's counters, and whose lease the world's grant history
    /// has open at the end.
    pub fn of(observer: &Observer, lock_holder_at_end: Option<Actor>, end_us: u64, truncated: bool) -> Counts {
        Counts {
            tally: observer.tally(),
            work: observer.ledger.tally(),
            final_store: observer.final_store,
            lock_holder_at_end,
            end_us,
            truncated,
        }
    }
}

impl Summary {
    pub fn new(scenario: &Scenario, observer: &Observer, counts: Counts) -> Summary {
        let Counts { tally, work, final_store, lock_holder_at_end, end_us, truncated } = counts;
        let fencing = Fencing::of(scenario);
        let Verdict { tone, text, notes } = verdict(&tally, &observer.highlights, true, fencing == Fencing::On, scenario.lock_service);
        Summary {
            zombie_writes: tally.zombie_writes,
            stale_overwrites: tally.stale_overwrites,
            rejected_writes: tally.rejected_writes,
            rightful_writes_rejected: tally.rightful_writes_rejected,
            accepted_writes: tally.accepted_writes,
            final_store,
            mutual_exclusion_violations: tally.mutual_exclusion_violations,
            lock_lost_by_successor_release: tally.lock_lost_by_successor_release,
            lost_updates: work.lost_updates,
            work_redone: work.work_redone,
            fencing,
            verdict: text,
            tone,
            notes,
            end_us,
            lock_holder_at_end,
            truncated,
        }
    }

    /// The counters alone, as a summary-only run gives them.
    pub fn counts(&self) -> Counts {
        let tally = Tally {
            zombie_writes: self.zombie_writes,
            stale_overwrites: self.stale_overwrites,
            rejected_writes: self.rejected_writes,
            rightful_writes_rejected: self.rightful_writes_rejected,
            accepted_writes: self.accepted_writes,
            mutual_exclusion_violations: self.mutual_exclusion_violations,
            lock_lost_by_successor_release: self.lock_lost_by_successor_release,
        };
        Counts {
            tally,
            work: WorkTally { lost_updates: self.lost_updates, work_redone: self.work_redone },
            final_store: self.final_store,
            lock_holder_at_end: self.lock_holder_at_end,
            end_us: self.end_us,
            truncated: self.truncated,
        }
    }
}

/// The store as it stands at a cursor: what it holds, the highest token it
/// has accepted, and — once a stale write has landed — what that write
/// replaced and what it wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StoreState {
    pub holds: Option<Datum>,
    pub highest_token: Option<u64>,
    pub before_after: Option<(Option<Datum>, Datum)>,
}

/// What `observer` has seen of a run of `scenario`, as a verdict: the
/// summary's at the end, the moment's before (`verdict::at_moment`).
pub(crate) fn verdict_seen(observer: &Observer, finished: bool, scenario: &Scenario) -> Verdict {
    let so_far = verdict(&observer.tally(), &observer.highlights, finished, Fencing::of(scenario) == Fencing::On, scenario.lock_service);
    if finished {
        return so_far;
    }
    crate::verdict::at_moment(so_far, &observer.believers(), scenario.lock_service.nodes() == 1)
}

impl Trace {
    /// The verdict at event `index` (clamped to the trace), exactly as the
    /// summary would say it had the run stopped there: the events up to it
    /// go through a fresh observer.
    /// Before the end, while nothing is damaged yet, it says what is
    /// happening at that moment (`verdict::at_moment`).
    pub fn verdict_at(&self, index: u32) -> Verdict {
        let (observer, last) = self.observed_to(index);
        verdict_seen(&observer, last + 1 >= self.events.len(), &self.scenario)
    }

    /// The store at event `index` (clamped to the trace).
    pub fn store_at(&self, index: u32) -> StoreState {
        let mut state = StoreState::default();
        let end = (index as usize).min(self.events.len().saturating_sub(1));
        for event in self.events.iter().take(end + 1) {
            state.step(&event.kind, event.token);
        }
        state
    }

    fn observed_to(&self, index: u32) -> (Observer, usize) {
        let mut observer = Observer::new(crate::mode::Mode::Summary);
        let last = (index as usize).min(self.events.len().saturating_sub(1));
        for event in self.events.iter().take(last + 1) {
            observer.observe(event.t_us, event.actor, &event.kind, event.token);
        }
        (observer, last)
    }

    /// The trace as the command line's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a trace always serialises")
    }

    /// A 64-bit FNV-1a hash of the JSON: equal fingerprints mean byte-identical
    /// traces, natively and in wasm.
    pub fn fingerprint(&self) -> u64 {
        fnv1a(self.to_json().as_bytes())
    }

    /// Workers in the run, for drawing one lane each.
    pub fn workers(&self) -> Vec<Actor> {
        self.scenario.worker_actors().collect()
    }
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

/// A 32-bit FNV-1a hash: short enough for a link (a question's checksum,
/// a first screen's file name, a link's fingerprint).
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    fnv1a32_on(FNV32_OFFSET, bytes)
}

/// Where a 32-bit FNV-1a hash starts.
pub const FNV32_OFFSET: u32 = 0x811c_9dc5;

/// A 32-bit FNV-1a hash carried on from `hash` over more bytes.
pub fn fnv1a32_on(hash: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(hash, |hash, byte| (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193))
}

/// A 64-bit FNV-1a hash: the fingerprint of any of the model's JSON.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    use super::fnv1a;

    #[test]
    fn fnv1a32_matches_its_reference_values() {
        assert_eq!(super::fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(super::fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(super::fnv1a32_on(super::fnv1a32(b"fo"), b"o"), super::fnv1a32(b"foo"));
    }

    #[test]
    fn fnv1a_matches_its_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
