//! What a live run's processes say, typed: each worker prints one JSON line
//! per step on stdout, the lab notes its own signals, and everything after
//! reads these values (never their text).

use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

/// Who said it: a worker process, or the lab (the parent) about its signals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
pub enum Who {
    #[value(name = "A")]
    A,
    #[value(name = "B")]
    B,
    #[serde(rename = "lab")]
    #[value(skip)]
    Lab,
}

impl std::fmt::Display for Who {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Who::A => "A",
            Who::B => "B",
            Who::Lab => "lab",
        })
    }
}

/// Where a worker waits for the lab's word before it goes on: the lab
/// freezes it there, so the freeze lands at an exact step of the recipe,
/// not wherever a signal happens to catch the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum FreezePoint {
    /// Right after `SET NX` said OK, before the `INCR` that draws the token.
    Granted,
    /// Right after the `INCR`, at the start of its work.
    Acquired,
}

impl FreezePoint {
    /// As `--freeze-at` spells it.
    pub fn name(self) -> &'static str {
        match self {
            FreezePoint::Granted => "granted",
            FreezePoint::Acquired => "acquired",
        }
    }
}

/// The two stores every write goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Store {
    /// A `SET` that checks nothing: last writer wins.
    Plain,
    /// A Lua script that refuses a token below the highest it accepted.
    Fenced,
}

impl Store {
    pub const BOTH: [Store; 2] = [Store::Plain, Store::Fenced];

    pub fn name(self) -> &'static str {
        match self {
            Store::Plain => "plain",
            Store::Fenced => "fenced",
        }
    }
}

/// One step of the run, at `t_ms` after the lab's start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveEvent {
    pub t_ms: f64,
    pub worker: Who,
    #[serde(flatten)]
    pub what: What,
}

/// What happened. Tagged `"event"` in JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum What {
    /// Connected; about to ask for the lock with this (random) value.
    Started {
        pid: u32,
        value: String,
    },
    /// The first `SET NX` was refused: someone holds the lock (later
    /// refusals are not reported, only the attempt that succeeds).
    Busy,
    GaveUp {
        attempts: u32,
    },
    /// `SET lock value NX PX ttl` said OK on this attempt: the lock service
    /// granted the lease. The token comes from the `INCR` after it.
    Granted {
        attempts: u32,
    },
    /// `INCR fence` returned the token: the worker now believes it holds
    /// the lock.
    Acquired {
        token: u64,
    },
    /// The worker's work before its `nth` write is over (its sleep returned).
    Worked {
        token: u64,
        nth: u8,
    },
    /// The `nth` write, to one store. The plain store accepts every write;
    /// `highest` is the fenced store's highest token after it; `replaced` is
    /// the datum the write replaced ("B:34"), none if refused or empty.
    Wrote {
        store: Store,
        token: u64,
        nth: u8,
        accepted: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        highest: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replaced: Option<String>,
    },
    /// Compare-and-delete: whether the key was still its own and went.
    Released {
        token: u64,
        deleted: bool,
    },
    /// The lab froze A with SIGSTOP (and the kernel says it is stopped).
    Stopped {
        pid: u32,
    },
    /// The lab thawed A with SIGCONT after `paused_ms` of real time.
    Resumed {
        pid: u32,
        paused_ms: f64,
    },
}

impl LiveEvent {
    pub fn new(t_ms: f64, worker: Who, what: What) -> LiveEvent {
        LiveEvent { t_ms, worker, what }
    }
}

/// Milliseconds since a start instant that the parent hands to its workers
/// (the wall clock: the one clock that several processes share).
#[derive(Clone, Copy)]
pub struct Clock {
    pub start_unix_us: u64,
}

impl Clock {
    pub fn starting_now() -> Clock {
        Clock { start_unix_us: unix_us() }
    }

    /// With microseconds: two lines a millisecond apart still sort right.
    pub fn now_ms(&self) -> f64 {
        unix_us().saturating_sub(self.start_unix_us) as f64 / 1000.0
    }
}

fn unix_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| u64::try_from(since.as_micros()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_round_trips_with_flat_fields() {
        let wrote = LiveEvent::new(
            1.5,
            Who::A,
            What::Wrote { store: Store::Fenced, token: 33, nth: 1, accepted: false, highest: Some(34), replaced: None },
        );
        let line = serde_json::to_string(&wrote).unwrap();
        assert_eq!(line, r#"{"t_ms":1.5,"worker":"A","event":"wrote","store":"fenced","token":33,"nth":1,"accepted":false,"highest":34}"#);
        assert_eq!(serde_json::from_str::<LiveEvent>(&line).unwrap(), wrote);
        let stopped = LiveEvent::new(2.0, Who::Lab, What::Stopped { pid: 7 });
        assert_eq!(serde_json::to_string(&stopped).unwrap(), r#"{"t_ms":2.0,"worker":"lab","event":"stopped","pid":7}"#);
    }
}
