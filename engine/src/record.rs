//! What a run leaves behind, as typed facts: the scenario, every event in
//! order (a full run), the timelines, the counters and the moments a verdict
//! names. No sentence: the story crate renders words from this record when
//! something asks (the page, the JSON, the command line), so a change of
//! wording never changes what the engine did.

use crate::actor::Actor;
use crate::event::{Event, Tally};
use crate::ledger::WorkTally;
use crate::observer::{Highlights, Observer, Span};
use crate::scenario::{Scenario, StoreKind};
use crate::store::Datum;
use serde::Serialize;

/// A finished run. Its JSON is the behaviour fingerprint's input: equal
/// records mean the engine took the same steps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    pub scenario: Scenario,
    /// Every event of a full run; empty in a summary run.
    pub events: Vec<Event>,
    pub counts: Counts,
    /// Lease, belief and pause stretches per worker (a full run's).
    pub spans: Vec<Span>,
    /// The first of each kind of trouble, which a verdict names; derived
    /// from the events, so not part of the fingerprint.
    #[serde(skip)]
    pub highlights: Highlights,
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
