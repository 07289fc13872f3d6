//! An etcd-like consensus lock, as etcd 3.4's lock recipe behaves: a lease
//! (at least 2 s), a key per contender tied to it, the key's create revision
//! as the token. Expired leases are revoked at the next 500 ms tick, and a
//! new leader gives every lease its election timeout plus a full TTL
//! (`Promote(extend)` in etcd's lessor). A leader cut off from its
//! followers renews leases in its own memory, as etcd 3.4's lessor does
//! (newer releases check leadership before a renewal).

use super::CONSENSUS_MEMBERS;
use super::{Family, LeaderLoss, SessionRules, Spec, Words, SESSION_OPTIONS};
use crate::msg::Msg;

pub const SPEC: Spec = Spec {
    id: "consensus",
    label: "Consensus lock (etcd-like, 3 members)",
    lane: "etcd",
    nodes: CONSENSUS_MEMBERS,
    family: Family::Consensus,
    tokens: Ok(()),
    session: Some(SessionRules {
        ttl_ms_min: 2_000,
        // etcd grants any longer lease (its cap is 9,000,000,000 s).
        ttl_ms_max: u64::MAX,
        tick_us: 500_000,
        tick_strictly_after: false,
        election_extends: true,
        deletes_count: true,
        clamps: true,
        lock_delay_ms: 0,
        // etcd's lessor revokes at the TTL itself; `clientv3`'s keep-alive
        // loop sends the next keep-alive a third of the TTL later
        // (`lease.go`, `sendKeepAliveLoop`/`recvKeepAlive`).
        ttl_multiplier: 1,
        renewals_per_ttl: 3,
        refused_retry_ms: 0,
        container_check_ms: 0,
        czxid_token: false,
        // etcd's followers start an election once they have heard nothing
        // from the leader for `--election-timeout`, and a leader running
        // with CheckQuorum steps down after as long without a quorum: the
        // scenario's `failover_ms`.
        leader_loss: LeaderLoss::ElectionTimeout,
    }),
    options: SESSION_OPTIONS,
    words: Words {
        key: "key",
        lease: "lease",
        number: "revision",
        counter: "revision",
        revoker: "the 500 ms tick",
        dropped: "deleted its key",
    },
    wire_label: label,
};

/// The messages as etcd's gRPC API and its `concurrency` package name them:
/// a lease, a transaction that puts the contender's key under the lock's
/// prefix, keep-alives, and `Unlock` (a delete of the key) with the
/// session's `LeaseRevoke`.
fn label(msg: &Msg) -> Option<String> {
    let text = match *msg {
        Msg::LeaseGrant { ttl_ms } => format!("LeaseGrant TTL {} s", ttl_ms.div_ceil(1000)),
        Msg::LeaseGrantReply { lease, ttl_ms } => format!("lease {lease:x} (TTL {} s)", ttl_ms.div_ceil(1000)),
        Msg::PutLock { lease } => format!("Txn: put my key under /lock with lease {lease:x}"),
        Msg::PutReply { revision: 0, .. } | Msg::RenewReply { ok: false } => "lease not found".to_string(),
        Msg::Renew { value, .. } => format!("LeaseKeepAlive {value:x}"),
        Msg::RenewReply { ok: true } => "kept alive".to_string(),
        Msg::Check { .. } => "Range /lock (is my key first?)".to_string(),
        Msg::ReleaseCad { .. } => "Unlock: delete my key, LeaseRevoke".to_string(),
        Msg::ReleaseReply { deleted } => if deleted { "deleted" } else { "lease not found" }.to_string(),
        _ => return None,
    };
    Some(text)
}
