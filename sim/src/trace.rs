//! A run as it is told: the engine's record, every event with its sentence
//! on demand, the timelines and the verdict. The command line's JSON and everything the page draws.

use crate::actor::Actor;
use crate::event::{Event, Kind, Tally};
use crate::ledger::WorkTally;
use crate::observer::{Observer, Span};
use crate::scenario::Scenario;
use crate::store::Datum;
use crate::verdict::{verdict, Tone, Verdict};
pub use fencing_engine::{Counts, Fencing, Record};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// A run as the page and the command line tell it: the engine's record
/// (typed events, timelines) with its verdict. Its JSON gives every event
/// its sentence (`text`), rendered at serialisation; its fingerprint hashes
/// the typed record only, so a change of wording is not a change of
/// behaviour.
#[derive(Clone, Debug, PartialEq, Eq)]
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

impl Summary {
    /// The record's counters, and the verdict on them.
    pub fn new(record: &Record) -> Summary {
        let Counts { tally, work, final_store, lock_holder_at_end, end_us, truncated } = record.counts;
        let fencing = Fencing::of(&record.scenario);
        let Verdict { tone, text, notes } = verdict(&tally, &record.highlights, true, fencing == Fencing::On, record.scenario.lock_service);
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

impl From<Record> for Trace {
    fn from(record: Record) -> Trace {
        let summary = Summary::new(&record);
        let Record { scenario, events, spans, .. } = record;
        Trace { scenario, events, summary, spans }
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

    /// The sentence the page narrates for `event`, rendered from its typed
    /// fields now (the engine keeps none).
    pub fn text(&self, event: &Event) -> String {
        crate::narrate::narrate(event.actor, &event.kind, event.token, event.t_us, &self.scenario)
    }

    /// The trace as the command line's JSON: the record with a sentence per
    /// event and the verdict.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a trace always serialises")
    }

    /// The typed record as JSON, with no sentence in it: the engine's
    /// `Record` exactly (`record_json_is_the_engines`).
    pub fn record_json(&self) -> String {
        let typed = Typed { scenario: &self.scenario, events: &self.events, counts: self.summary.counts(), spans: &self.spans };
        serde_json::to_string(&typed).expect("a record always serialises")
    }

    /// A 64-bit FNV-1a hash of the typed record's JSON: equal fingerprints
    /// mean the engine took the same steps, natively and in wasm. Words are
    /// not hashed: rewording a sentence or a verdict keeps every fingerprint.
    pub fn fingerprint(&self) -> u64 {
        fnv1a(self.record_json().as_bytes())
    }

    /// Workers in the run, for drawing one lane each.
    pub fn workers(&self) -> Vec<Actor> {
        self.scenario.worker_actors().collect()
    }
}

/// The engine's `Record`, borrowed from a trace, field for field: what the
/// fingerprint hashes.
#[derive(Serialize)]
struct Typed<'a> {
    scenario: &'a Scenario,
    events: &'a [Event],
    counts: Counts,
    spans: &'a [Span],
}

/// One event as the JSON gives it: the typed fields in the engine's order,
/// and its sentence between the token and the tallies, where the format has
/// always had it (docs/trace-format.md).
#[derive(Serialize)]
struct Told<'a> {
    index: u32,
    t_us: u64,
    actor: Actor,
    #[serde(flatten)]
    kind: &'a Kind,
    token: Option<u64>,
    text: String,
    tally: Tally,
}

/// The events with their sentences, rendered as they are written.
struct ToldEvents<'a>(&'a Trace);

impl Serialize for ToldEvents<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let trace = self.0;
        serializer.collect_seq(trace.events.iter().map(|event| Told {
            index: event.index,
            t_us: event.t_us,
            actor: event.actor,
            kind: &event.kind,
            token: event.token,
            text: trace.text(event),
            tally: event.tally,
        }))
    }
}

impl Serialize for Trace {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = serializer.serialize_struct("Trace", 4)?;
        fields.serialize_field("scenario", &self.scenario)?;
        fields.serialize_field("events", &ToldEvents(self))?;
        fields.serialize_field("summary", &self.summary)?;
        fields.serialize_field("spans", &self.spans)?;
        fields.end()
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
