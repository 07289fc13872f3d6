//! Consul's session lock on three servers (Raft: the consensus family), as
//! Consul's documentation describes it; Consul is not in Debian, so unlike
//! etcd and ZooKeeper this is checked against the documented semantics, not
//! a running server. A contender creates a session with a TTL (10 s to
//! 24 h; Consul refuses others) and a lock-delay (default 15 s, at most
//! 60 s), renews the session, and acquires the lock key with it; the key's
//! `LockIndex`, the number of times the lock has been acquired, is the
//! sequencer a fencing store can check.
//!
//! The second time-based fix the lesson warns about: when a session is
//! invalidated (its TTL ran out) while it holds the lock, Consul lets nobody
//! acquire the lock for the lock-delay (a release by the holder does not
//! start one). So a holder frozen for less than TTL + lock-delay finds
//! nobody's newer data when it wakes; a longer pause still lands on it.
//!
//! What the model simplifies: Consul's TTL is a lower bound (it may
//! invalidate later, which only lengthens what a pause survives); the model
//! invalidates at the TTL, the bound a design can rely on. A waiting
//! contender is granted the lock the moment the delay ends; Consul's client
//! library retries a refused acquire after a wait of its own. A new leader
//! gives every session a full TTL.

use super::CONSENSUS_MEMBERS;
use super::{Family, SessionRules, Spec, Words, SESSION_OPTIONS};
use crate::msg::Msg;

/// Consul's default lock-delay.
pub const LOCK_DELAY_MS: u64 = 15_000;

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
        Msg::PutReply { revision, owner: false } => format!("false: wait (LockIndex {revision} next)"),
        Msg::LockReady { revision } => format!("lock free: acquired, LockIndex {revision}"),
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
