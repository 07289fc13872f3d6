//! ZooKeeper's lock recipe as Curator runs it (`InterProcessMutex`) on a
//! three-server ensemble (ZAB: a leader that needs a majority, as the
//! consensus family models it). A contender opens a session and creates an
//! ephemeral sequential znode under the lock's parent; the lowest sequence
//! number holds the lock, and each waiter watches only its predecessor, so a
//! release wakes one waiter (no herd).
//!
//! The token is the znode's `czxid`, the zxid of the transaction that
//! created it (in its `Stat`): the leader numbers every transaction, with
//! its epoch in the high 32 bits, so it never goes back, not even across a
//! change of leader. The sequence number is not a token. It is the parent's
//! counter of sequential creates, and Curator creates that parent as a
//! *container* znode (`creatingParentContainersIfNeeded`), which the server
//! deletes once it is empty (`ContainerManager`, every
//! `znode.container.checkIntervalMs`, default 60 s); the next lock
//! recreates it and numbers from 0 again. A real ZooKeeper 3.8 did exactly
//! that (`scripts/fidelity-zookeeper.sh`): `n-0000000000`, `n-0000000001`,
//! then after the parent was cleared, `n-0000000000` again, with a larger
//! `czxid` each time. Within one parent, a delete or an expiry takes no
//! sequence number (the parent's child version does count deletes, but the
//! number is not taken from it: A, B, then after two deletes C are 0, 1, 2).
//!
//! Sessions as ZooKeeper 3.8 times them with the default `tickTime=2000`:
//! the server grants a timeout between 2 and 20 ticks (4 s to 40 s), the
//! client pings every third of it, and the session is expired at the tick
//! after its deadline — up to 2 s late. A paused client sends no pings; its
//! session expires, its znode is deleted and the next waiter is told, and it
//! learns of this only when it runs again. A new leader gives every session
//! a full timeout from the moment it leads (the session tracker it starts
//! touches each session once), and starts a new epoch.

use super::LockService;
use super::CONSENSUS_MEMBERS;
use super::{Family, LeaderLoss, SessionRules, Spec, Words, SESSION_OPTIONS};
use crate::msg::{Msg, WriteReq};

/// ZooKeeper's default `tickTime`.
pub const TICK_MS: u64 = 2_000;

/// `znode.container.checkIntervalMs`'s default (`ContainerManager`).
pub const CONTAINER_CHECK_MS: u64 = 60_000;

/// `syncLimit` as Debian's `zookeeper` 3.8.0 package ships it
/// (`/etc/zookeeper/conf_example/zoo.cfg`: `tickTime=2000`, `initLimit=10`,
/// `syncLimit=5`; reality check on this machine): the ticks a follower and
/// its leader may go without hearing from each other.
pub const SYNC_LIMIT_TICKS: u64 = 5;

/// How long the ensemble takes to notice a lost leader: `syncLimit` ×
/// `tickTime`, 10 s with those defaults. A follower reads from its leader
/// with that socket timeout (`Learner.syncWithLeader`:
/// `sock.setSoTimeout(self.tickTime * self.syncLimit)`), so after as long
/// without a packet it gives up on the leader and starts a leader election.
/// The leader, every half tick, counts the followers that acked within
/// `syncLimit` ticks (`LearnerHandler.synced`, its `tickOfNextAckDeadline`)
/// and shuts down when they and it are not a quorum (`Leader.lead`: "Not
/// sufficient followers synced"), so a cut-off leader steps down after about
/// as long. The model takes a crashed leader's machine as gone (no FIN or
/// RST reaches the followers: they wait for the read timeout; a process
/// killed on a live machine would be noticed at once, its sockets closed by
/// the kernel), and leaves out the election's own rounds
/// (`FastLeaderElection`, `finalizeWait` 200 ms and up).
pub const LEADER_LOSS_MS: u64 = SYNC_LIMIT_TICKS * TICK_MS;

pub const SPEC: Spec = Spec {
    id: "zookeeper",
    label: "ZooKeeper (ephemeral sequential znodes, 3 servers)",
    lane: "zookeeper",
    nodes: CONSENSUS_MEMBERS,
    family: Family::Consensus,
    tokens: Ok(()),
    session: Some(SessionRules {
        ttl_ms_min: 2 * TICK_MS,
        ttl_ms_max: 20 * TICK_MS,
        tick_us: TICK_MS * 1000,
        tick_strictly_after: true,
        election_extends: false,
        deletes_count: false,
        clamps: true,
        lock_delay_ms: 0,
        // The session expires at its timeout (`SessionTrackerImpl`); the
        // client pings when a third of it has passed idle (`ClientCnxn`:
        // readTimeout = 2/3 of the timeout, a ping after half of that).
        ttl_multiplier: 1,
        renewals_per_ttl: 3,
        refused_retry_ms: 0,
        container_check_ms: CONTAINER_CHECK_MS,
        czxid_token: true,
        leader_loss: LeaderLoss::Timers { ms: LEADER_LOSS_MS, how: "syncLimit × tickTime = 5 × 2 s" },
    }),
    options: SESSION_OPTIONS,
    words: Words {
        key: "znode",
        lease: "session",
        number: "czxid",
        counter: "the last zxid is",
        revoker: "the 2 s tick",
        dropped: "deleted its znode",
    },
    wire_label: label,
};

/// The messages as ZooKeeper's client and server name them: a session, an
/// ephemeral sequential znode under `/lock` (its name ends in the 10-digit
/// sequence number), pings, a watch on the predecessor.
fn label(msg: &Msg) -> Option<String> {
    let text = match *msg {
        Msg::LeaseGrant { ttl_ms } => format!("connect, session timeout {ttl_ms} ms"),
        Msg::LeaseGrantReply { lease, ttl_ms } => format!("session {lease:x} ({ttl_ms} ms)"),
        Msg::PutLock { .. } => "create /lock/n- ephemeral sequential".to_string(),
        Msg::PutReply { revision: 0, .. } | Msg::RenewReply { ok: false } => "session expired".to_string(),
        Msg::Created { seq, czxid, owner: true } => format!("n-{seq:010} (czxid {czxid:#x}): lowest, you hold it"),
        Msg::Created { seq, czxid, owner: false } => format!("n-{seq:010} (czxid {czxid:#x}): watch your predecessor"),
        Msg::LockReady { revision } => format!("watch: predecessor gone, yours is lowest (czxid {revision:#x})"),
        Msg::Renew { .. } => "ping".to_string(),
        Msg::RenewReply { ok: true } => "pong".to_string(),
        Msg::Check { .. } => "getChildren /lock (still lowest?)".to_string(),
        Msg::CheckReply { mine } => if mine { "yes, yours is lowest" } else { "no, not yours" }.to_string(),
        Msg::ReleaseCad { .. } => "delete my znode, close session".to_string(),
        Msg::ReleaseReply { deleted } => if deleted { "deleted" } else { "no node: session expired" }.to_string(),
        // The store's messages name the czxid as every ZooKeeper sentence
        // does (`LockService::token_words`).
        Msg::Write(WriteReq { token: Some(token), version: None, .. }) => format!("write(token {token:#x})"),
        Msg::WriteReply { refusal: Some(refusal) } => format!("rejected: {}", LockService::ZooKeeper.refusal_words(refusal)),
        _ => return None,
    };
    Some(text)
}
