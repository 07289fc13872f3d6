//! One line of a trace: what happened, when, to whom, with which token, in
//! plain words, and the running tallies after it.

use crate::actor::Actor;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    /// Position in the trace (0-based); the page's cursor.
    pub index: u32,
    pub t_us: u64,
    pub actor: Actor,
    #[serde(flatten)]
    pub kind: Kind,
    /// The fencing token involved, if any.
    pub token: Option<u64>,
    /// The explanation the page narrates.
    pub text: String,
    /// Outcome counters as they stand after this event.
    pub tally: Tally,
}

/// What happened. Tagged `"kind"` in JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    /// A worker starts trying to take the lock.
    Start,
    Send {
        msg: u32,
        to: Actor,
        label: String,
    },
    Receive {
        msg: u32,
        from: Actor,
        label: String,
    },
    /// A message that never arrived (sent to a crashed or paused-forever actor).
    Lost {
        msg: u32,
        to: Actor,
        label: String,
    },
    /// Lock service's view: the lease now belongs to `holder`.
    Granted {
        holder: Actor,
        expires_at_us: u64,
    },
    Denied {
        holder: Actor,
    },
    Renewed {
        holder: Actor,
        expires_at_us: u64,
    },
    /// The service granted a longer lease than asked (etcd's 2 s minimum).
    LeaseClamped {
        holder: Actor,
        ttl_ms: u64,
    },
    /// Lock service's view: the lease vanished without expiring or being
    /// released (a failover to a replica that never saw it, a node restart).
    LeaseLost {
        holder: Actor,
    },
    /// A Redlock master agreed (one vote toward a quorum), or its vote went
    /// (expired, deleted, or lost in a restart).
    Voted {
        holder: Actor,
    },
    Unvoted {
        holder: Actor,
    },
    /// A lock node crashed, came back, or was promoted.
    NodeDown,
    NodeUp,
    /// A lock node's clock jumped.
    ClockJumped {
        jump_ms: i64,
    },
    /// Lock service's view: the lease ran out.
    Expired {
        holder: Actor,
    },
    /// Lock service's view: the key was deleted; `by` differs from `holder`
    /// when a naive `DEL` removed a successor's lock.
    Deleted {
        holder: Actor,
        by: Actor,
    },
    TokenIssued,
    /// Worker's view: it now believes it holds the lock.
    Acquired,
    AcquireFailed {
        attempt: u32,
    },
    /// Consensus lock: the worker's key waits behind an older one.
    Queued,
    Backoff {
        delay_us: u64,
    },
    GaveUp,
    /// Worker's view: it learns it no longer holds the lock.
    LostLock,
    /// Worker's view: it let the lock go after its work.
    Released,
    /// A request went unanswered for `request_timeout_ms`.
    Timeout,
    /// No lock: the worker read the data at this version.
    ReadVersion {
        version: u64,
    },
    /// No lock: a conditional write failed; the worker starts over.
    Retry,
    PauseBegan {
        until_us: u64,
    },
    PauseEnded,
    Crashed,
    WriteAccepted {
        writer: Actor,
        zombie: bool,
        stale_overwrite: bool,
    },
    WriteRejected {
        writer: Actor,
    },
    Finished,
    /// The run hit `events_max` and stopped here.
    Truncated,
}

/// The outcome counters, named as the page and the JSON summary name them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub zombie_writes: u32,
    pub stale_overwrites: u32,
    pub rejected_writes: u32,
    pub accepted_writes: u32,
    pub mutual_exclusion_violations: u32,
    pub lock_lost_by_successor_release: u32,
}
