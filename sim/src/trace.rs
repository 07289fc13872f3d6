//! A run's result: the scenario, every event in order, the timelines and the
//! summary. This is the command line's JSON and everything the page draws.

use crate::actor::Actor;
use crate::event::{Event, Tally};
use crate::observer::{Highlight, Observer, Span};
use crate::scenario::{LockService, Scenario, StoreKind};
use crate::store::Datum;
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
    pub accepted_writes: u32,
    /// Writer and token of the store's last accepted write.
    pub final_store: Option<Datum>,
    pub mutual_exclusion_violations: u32,
    pub lock_lost_by_successor_release: u32,
    pub fencing: Fencing,
    /// One line that says what happened to the data.
    pub verdict: String,
    pub end_us: u64,
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
            (StoreKind::Database, true, LockService::Redlock) => {
                Fencing::Unavailable("Redlock's lock value is random, not a token: there is nothing to compare".to_string())
            }
            (StoreKind::Database, true, _) => Fencing::On,
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

impl Summary {
    pub fn new(scenario: &Scenario, observer: &Observer, final_store: Option<Datum>, end_us: u64, truncated: bool) -> Summary {
        let tally = observer.tally();
        let verdict = verdict(&tally, observer.highlight.as_ref());
        Summary {
            zombie_writes: tally.zombie_writes,
            stale_overwrites: tally.stale_overwrites,
            rejected_writes: tally.rejected_writes,
            accepted_writes: tally.accepted_writes,
            final_store,
            mutual_exclusion_violations: tally.mutual_exclusion_violations,
            lock_lost_by_successor_release: tally.lock_lost_by_successor_release,
            fencing: Fencing::of(scenario),
            verdict,
            end_us,
            truncated,
        }
    }
}

fn verdict(tally: &Tally, highlight: Option<&Highlight>) -> String {
    match highlight {
        Some(Highlight::StaleOverwrite { writer, token, victim, victim_token }) => {
            format!("{writer}'s stale write{} overwrote {victim}'s newer data{}", token_suffix(*token), token_suffix(*victim_token))
        }
        Some(Highlight::Rejected { writer, reason, .. }) if tally.zombie_writes == 0 => {
            format!("{writer}'s stale write was rejected: {reason}")
        }
        Some(Highlight::SuccessorRelease { by, holder }) => format!(
            "{by}'s plain DEL deleted {holder}'s lock, so a third worker got it while {holder} still worked: {} zombie write(s)",
            tally.zombie_writes
        ),
        _ if tally.zombie_writes > 0 => {
            "A worker wrote after losing the lock, before anyone newer had written: nothing could tell".to_string()
        }
        _ if tally.mutual_exclusion_violations > 0 => {
            "Two workers believed they held the lock at once, but no write was damaged".to_string()
        }
        _ => "One holder at a time: no write was damaged".to_string(),
    }
}

fn token_suffix(token: Option<u64>) -> String {
    token.map_or_else(String::new, |token| format!(" (token {token})"))
}

impl Trace {
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

fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    use super::fnv1a;

    #[test]
    fn fnv1a_matches_its_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
