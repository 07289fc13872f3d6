//! One line of a run's record: what happened, when, to whom, with which
//! token, and the running tallies after it. Events are typed facts: every
//! field a view needs is here, and no sentence is. The story crate renders
//! the sentence the page narrates from these fields (`narrate`) when
//! something asks, and never parses one back.

use crate::actor::Actor;
use crate::msg::{Msg, Refusal};
use crate::store::Datum;
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
    /// Outcome counters as they stand after this event.
    pub tally: Tally,
}

/// What became of a write, as the diagram colours its arrow. The core
/// settles it when the store answers (or the packet is lost) and writes it
/// onto the write's `Send`, with the index of the event that settled it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    Accepted,
    /// Accepted from a worker that was no longer the holder.
    Zombie,
    /// Accepted, and it replaced data written under a newer grant.
    StaleOverwrite,
    /// Refused: a stale writer stopped (or a version that moved on).
    Rejected,
    /// Refused although the writer held the lock last: lost liveness.
    RightfulRejected,
    /// Never reached the store.
    Lost,
}

/// Why a message was never read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "why", content = "actor", rename_all = "snake_case")]
pub enum Loss {
    /// A loss fault picked it.
    Network,
    /// This end was cut off by a partition.
    Partition(Actor),
    /// The lock node it was sent to is down.
    NodeDown(Actor),
    /// The consensus cluster had no majority to commit it.
    NoQuorum(Actor),
    /// It reached a worker that had crashed.
    Crashed(Actor),
}

/// Why an acquire attempt failed, in the worker's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum AcquireFailure {
    Taken,
    NoAnswer {
        waited_ms: u64,
    },
    /// Consensus: the lease expired before the key was put.
    LeaseGone,
    /// Redlock: too few masters agreed, or no validity was left.
    Minority {
        yes: u8,
    },
    /// Consul: nobody holds the key, but a lock-delay refuses it (last: a
    /// link's story hash covers the variant's index).
    LockDelay,
}

/// Why a worker stops believing it holds the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Disbelief {
    CheckSaysNo,
    CheckNoAnswer,
    RenewalRefused,
    StoreRefused,
    /// Redlock: its validity time has run out by its own clock.
    ValidityOver,
}

/// How a worker's part in the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    Released,
    NothingToRelease,
    /// Redlock: the release went to every master; each deletes the key only
    /// if it is still the worker's, and the first answer says nothing of
    /// the others.
    ReleaseSentToAll,
    ReleaseNoAnswer,
    ConditionalWriteLanded,
}

/// What a node came back as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeRole {
    /// A single node (Redis or a Redlock master) answering again.
    Serving,
    /// A Redis node back as a replica nobody asks.
    Replica,
    /// A consensus member rejoining as a follower.
    Follower,
}

/// What happened. Tagged `"kind"` in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    /// A worker starts trying to take the lock.
    Start,
    /// `held_us`: a fault holds this packet in the network that long.
    /// `fate` (writes only) is settled by the event at `settled_at`.
    Send {
        msg: u32,
        to: Actor,
        req: u32,
        body: Msg,
        held_us: u64,
        fate: Option<Fate>,
        settled_at: Option<u32>,
    },
    Receive {
        msg: u32,
        from: Actor,
        req: u32,
        body: Msg,
    },
    /// A message that was never read.
    Lost {
        msg: u32,
        to: Actor,
        req: u32,
        body: Msg,
        loss: Loss,
    },
    /// Lock service's view: the lease now belongs to `holder`.
    Granted {
        holder: Actor,
        expires_at_us: u64,
    },
    Denied {
        holder: Actor,
    },
    /// Consensus: `waiter`'s key queues behind the holder's.
    Waits {
        waiter: Actor,
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
        asked_ms: u64,
    },
    /// Lock service's view: the lease vanished without expiring or being
    /// released (a failover to a replica that never saw it, a node restart
    /// without persistence).
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
    /// A lock node crashed (`persists`: it keeps its data on disk), came
    /// back, was promoted to Redis primary, or was elected consensus leader.
    NodeDown {
        persists: bool,
        /// A Redis that keeps only its snapshots comes back with its state
        /// as of this moment (its last RDB snapshot).
        #[serde(skip_serializing_if = "Option::is_none")]
        restores_from_us: Option<u64>,
    },
    NodeUp {
        role: NodeRole,
    },
    /// `kept`: the lock holder the promoted replica knew of, if any.
    Promoted {
        kept: Option<Actor>,
    },
    /// Consensus: this member leads now; every lease's time was renewed.
    Elected {
        term: u32,
    },
    /// Consensus: the leader has not reached a majority for an election
    /// timeout and steps down (etcd's CheckQuorum): it commits nothing more.
    SteppedDown,
    /// A member out of the leader's reach is in it again (the partition
    /// healed) and catches up, as `role`.
    Healed {
        role: NodeRole,
    },
    /// Redis: Sentinel sees the old primary again and makes it a replica of
    /// the new one; it drops its own data, the lock `dropped` held there
    /// included (lock service's view: that lease is gone).
    Demoted {
        dropped: Option<Actor>,
    },
    /// A lock node's clock jumped.
    ClockJumped {
        jump_ms: i64,
    },
    /// Lock service's view: the lease ran out (`revision`: consensus delete).
    Expired {
        holder: Actor,
        revision: Option<u64>,
    },
    /// Lock service's view: the key was deleted; `by` differs from `holder`
    /// when a naive `DEL` removed a successor's lock.
    Deleted {
        holder: Actor,
        by: Actor,
        revision: Option<u64>,
    },
    /// The counter handed out `event.token` to `to`.
    TokenIssued {
        to: Actor,
    },
    /// Worker's view: it now believes it holds the lock, until
    /// `valid_until_us` by its own clock (its request time + the lease, or
    /// Redlock's validity).
    Acquired {
        valid_until_us: u64,
    },
    AcquireFailed {
        attempt: u32,
        failure: AcquireFailure,
    },
    /// Consensus lock: the worker's key waits behind an older one.
    Queued {
        revision: u64,
    },
    Backoff {
        delay_us: u64,
    },
    /// `attempts`: after that many; `None`: its lease ran out while it waited.
    GaveUp {
        attempts: Option<u32>,
    },
    /// Worker's view: it learns it no longer holds the lock.
    LostLock {
        why: Disbelief,
    },
    /// Worker's view: it let the lock go after its work.
    Released,
    /// A write went unanswered for `request_timeout_ms`.
    Timeout {
        waited_ms: u64,
    },
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
    /// `replaced`: what the write overwrote; `highest_token`: the highest
    /// token the store has accepted, this write included.
    WriteAccepted {
        msg: u32,
        writer: Actor,
        zombie: bool,
        stale_overwrite: bool,
        replaced: Option<Datum>,
        highest_token: Option<u64>,
    },
    /// `rightful`: the writer held the lock last, by ground truth.
    WriteRejected {
        msg: u32,
        writer: Actor,
        refusal: Refusal,
        rightful: bool,
        highest_token: Option<u64>,
    },
    Finished {
        how: Finish,
    },
    /// The run hit `events_max` and stopped here.
    Truncated {
        events_max: u32,
    },
    /// ZooKeeper: the lock's container parent was empty at the server's
    /// container check and was deleted; the next create recreates it, and
    /// its sequence numbers start again at 0. (Last: a link's story hash
    /// covers each kind's index.)
    ParentRemoved,
}

/// The outcome counters, named as the page and the JSON summary name them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub zombie_writes: u32,
    pub stale_overwrites: u32,
    pub rejected_writes: u32,
    pub rightful_writes_rejected: u32,
    pub accepted_writes: u32,
    pub mutual_exclusion_violations: u32,
    pub lock_lost_by_successor_release: u32,
}
