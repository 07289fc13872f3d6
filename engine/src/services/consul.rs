//! Consul's session lock on three servers (Raft: the consensus family), as
//! its server and its Go client (`api/lock.go`) run it. Consul is not in
//! Debian, so there is no reality check: each rule below cites the source
//! (hashicorp/consul) or the documentation page it comes from.
//!
//! - A contender creates a session with a TTL (10 s to 24 h; the server
//!   refuses others: `SessionTTLMin` in the server config, `SessionTTLMax`
//!   in `agent/structs/structs.go`) and a lock-delay (default 15 s: the
//!   `/v1/session/create` API page, `LockDelay`), and acquires the key with
//!   `PUT /v1/kv/lock?acquire=<session>`.
//! - The server invalidates a session 2 × TTL after its last renewal, not at
//!   the TTL: `createSessionTimer` (`agent/consul/session_ttl.go`) arms the
//!   timer for `ttl * structs.SessionTTLMultiplier` (2), "a session is not
//!   expired before the TTL, but there is no explicit promise about the
//!   upper bound". The timer is reset on every renewal (`resetSessionTimer`)
//!   and, for every session, when a server becomes leader
//!   (`initializeSessionTimers`).
//! - The client renews every TTL / 2 (`renewSession` in `api/lock.go`,
//!   `RenewPeriodic` in `api/session.go`: `time.After(ttl / 2)`).
//! - There is no queue. A refused acquire is just `false`. While another
//!   session holds the key the client blocks on it (`kv.Get` with a wait
//!   index, the `WAIT` loop of `Lock`); once the key is free it tries again,
//!   and if that is refused too (a lock-delay), it waits
//!   `DefaultLockRetryTime` (5 s) and tries again.
//! - The token is the key's `LockIndex`: "the number of times this key has
//!   successfully been acquired in a lock" (the KV API page). It moves only
//!   on a successful acquire (`kvsLockTxn` in the state store), not on a
//!   refusal or a release, and it belongs to the key: a deleted and
//!   recreated key starts again at 1. The lock recipe releases (it does not
//!   delete) the key, so in the model it keeps counting.
//! - Lock-delay: when a session holding the lock is invalidated, nobody may
//!   acquire it for the lock-delay (the Sessions page); a release by the
//!   holder itself starts none.
//!
//! - A client blocked on the key across a change of leader: its query
//!   (`kv.Get` with a wait index and `LockWaitTime`, `DefaultLockWaitTime`
//!   15 s, in `Lock`'s `WAIT` loop) is not retried by `Lock` when it fails
//!   (it returns "failed to read lock"; only `monitorLock` retries, with
//!   `MonitorRetries`, 0 by default). What carries it to the new leader is
//!   the client's agent, which retries a failed read against another server
//!   for up to `rpc_hold_timeout` (7 s; `canRetry` in the agent's RPC
//!   client), that server forwarding it to the leader once there is one;
//!   and a query that only reached its wait time returns unchanged and the
//!   loop asks again. The model folds that into the replicated state: the
//!   new leader knows the blocked clients and answers them when the key
//!   changes. The wait time is modelled in the worker: a blocked client
//!   asks again `LOCK_WAIT_MS` after it blocked (one timer per block, the
//!   server keeping one watch per client), so a "key changed" answer lost
//!   in a partition costs it at most one wait time, not the rest of the run.
//!
//! So the bound a design can count on runs from the holder's last renewal:
//! a holder frozen for a pause that ends less than TTL + lock-delay after
//! its last renewal (TTL being all Consul promises) finds nobody's newer
//! data when it wakes; this server waits 2 × TTL + lock-delay, and a longer
//! pause still lands on a successor's data.

use super::CONSENSUS_MEMBERS;
use super::{Family, LeaderLoss, SessionRules, Spec, Words, SESSION_OPTIONS};
use crate::msg::Msg;

/// Consul's default lock-delay (the `/v1/session/create` API page).
pub const LOCK_DELAY_MS: u64 = 15_000;

/// `structs.SessionTTLMultiplier` (`agent/structs/structs.go`).
pub const SESSION_TTL_MULTIPLIER: u64 = 2;

/// `DefaultLockRetryTime` (`api/lock.go`): the wait after a refused acquire
/// on a free key, "so that once a lock-delay is in effect, we do not hot
/// loop retrying the acquisition".
pub const LOCK_RETRY_MS: u64 = 5_000;

/// `DefaultLockWaitTime` (`api/lock.go`): how long a blocked client's
/// query waits for the key to change before it returns and `Lock`'s loop
/// asks again (the worker's `Timer::LockWait`).
pub const LOCK_WAIT_MS: u64 = 15_000;

/// `performance.raft_multiplier`'s default: `DefaultRaftMultiplier uint = 5`
/// (`agent/consul/config.go`); Consul multiplies hashicorp/raft's timers by
/// it ("Server Performance", developer.hashicorp.com/consul/docs/reference/
/// architecture/server: the default favours cheap servers over fast leader
/// failure detection).
pub const RAFT_MULTIPLIER: u64 = 5;

/// hashicorp/raft's `DefaultConfig`: `HeartbeatTimeout` 1 s
/// (`ElectionTimeout` 1 s, `LeaderLeaseTimeout` 500 ms).
pub const RAFT_HEARTBEAT_TIMEOUT_MS: u64 = 1_000;

/// How long the servers take to notice a lost leader: a follower that has
/// heard nothing from its leader for the heartbeat timeout (raft's
/// `runFollower`: `randomTimeout(HeartbeatTimeout)`, between it and twice
/// it) becomes a candidate; × 5, that is 5 s at the earliest, which the
/// model takes (the election's own round, up to another `ElectionTimeout`,
/// left out). A cut-off leader steps down once it has not reached a quorum
/// for `LeaderLeaseTimeout` × 5 = 2.5 s (`checkLeaderLease`); the model
/// steps it down at the election, and it commits nothing meanwhile either
/// way.
pub const LEADER_LOSS_MS: u64 = RAFT_HEARTBEAT_TIMEOUT_MS * RAFT_MULTIPLIER;

pub const SPEC: Spec = Spec {
    id: "consul",
    label: "Consul session lock (lock-delay 15 s, 3 servers)",
    lane: "consul",
    nodes: CONSENSUS_MEMBERS,
    family: Family::Consensus,
    tokens: Ok(()),
    session: Some(SessionRules {
        ttl_ms_min: 10_000,
        ttl_ms_max: 86_400_000,
        // A timer per session, not a tick: invalidation at the TTL itself.
        tick_us: 1,
        tick_strictly_after: false,
        election_extends: false,
        // LockIndex counts acquisitions, not releases.
        deletes_count: false,
        clamps: false,
        lock_delay_ms: LOCK_DELAY_MS,
        ttl_multiplier: SESSION_TTL_MULTIPLIER,
        // `renewSession`: `time.After(ttl / 2)`.
        renewals_per_ttl: 2,
        refused_retry_ms: LOCK_RETRY_MS,
        container_check_ms: 0,
        czxid_token: false,
        leader_loss: LeaderLoss::Timers { ms: LEADER_LOSS_MS, how: "Raft's heartbeat timeout × raft_multiplier = 1 s × 5" },
    }),
    options: SESSION_OPTIONS,
    words: Words {
        key: "acquire request",
        lease: "session",
        number: "lock index",
        counter: "the last lock index given is",
        revoker: "Consul",
        dropped: "released its lock",
    },
    wire_label: label,
};

/// The messages as Consul's HTTP API names them.
fn label(msg: &Msg) -> Option<String> {
    let text = match *msg {
        Msg::LeaseGrant { ttl_ms } => format!("PUT /session/create TTL {}s", ttl_ms / 1000),
        Msg::LeaseGrantReply { lease, .. } => format!("session {lease:x}"),
        Msg::PutLock { .. } => "PUT /kv/lock?acquire".to_string(),
        Msg::PutReply { revision: 0, .. } | Msg::RenewReply { ok: false } => "session invalid".to_string(),
        Msg::PutReply { revision, owner: true } => format!("true (LockIndex {revision})"),
        // No queue: a refused acquire is just `false`.
        Msg::AcquireRefused { .. } => "false".to_string(),
        Msg::KeyChanged => "GET /kv/lock?index: Session \"\" (free)".to_string(),
        Msg::Renew { .. } => "PUT /session/renew".to_string(),
        Msg::RenewReply { ok: true } => "renewed".to_string(),
        Msg::Check { .. } => "GET /kv/lock (still mine?)".to_string(),
        Msg::CheckReply { mine } => if mine { "yes, your session" } else { "no, not yours" }.to_string(),
        Msg::ReleaseCad { .. } => "PUT /kv/lock?release".to_string(),
        Msg::ReleaseReply { deleted } => if deleted { "true" } else { "false (not yours)" }.to_string(),
        _ => return None,
    };
    Some(text)
}
