//! An etcd-like consensus lock, as etcd 3.4's lock recipe behaves: a
//! contender takes a lease (at least 2 s), creates a key under the lock
//! prefix tied to that lease, and holds the lock once every key with a lower
//! create revision is gone. The token is the key's create revision: it only
//! grows, but with gaps, since deletes and expiries use revisions too. Expired
//! leases are revoked at the next 500 ms tick, so up to half a second late.
//!
//! ZooKeeper's recipe is the same machine with other session rules
//! (`crate::services::zookeeper`): its ephemeral sequential znode is the key,
//! its `czxid` the token (every transaction moves the zxid), while its
//! sequence number, which only creates under the parent move, goes back to
//! 0 when the server deletes the empty container parent; its sessions are
//! bounded and ticked differently.
//!
//! Consul's session lock is the same machine with no line
//! (`SessionRules::refused_retry_ms`): it keeps one holder per key and no
//! queue, answers a refused acquire with `false`, and wakes the clients
//! blocked on the key when its holder goes; they try again.

use super::{Crash, Machine, NodeClock, Note, Outcome};
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;
use crate::scenario::RedisPersistence;
use crate::services::SessionRules;

/// Lease IDs are opaque numbers; start somewhere that does not look like a token.
const FIRST_LEASE_ID: u64 = 0x694d_0001;

/// A lease; its expiry is in the member's own (monotonic) clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lease {
    id: u64,
    holder: Actor,
    ttl_ms: u64,
    expires_node_us: u64,
}

/// A contender's key under the lock prefix, with the request that put it
/// (the "your turn" answers that request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    holder: Actor,
    lease: u64,
    /// The token: the create revision, LockIndex or `czxid`.
    revision: u64,
    /// ZooKeeper: the sequence number in the znode's name.
    seq: u64,
    req: u32,
}

/// The first zxid of a ZooKeeper ensemble: epoch 1, counter 0. A zxid's
/// high 32 bits are the leader's epoch, its low 32 the transaction's number
/// within it (`ZxidUtils`).
const FIRST_ZXID: u64 = 1 << 32;

/// ZooKeeper's counters: the ensemble's zxid and the lock parent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ZooKeeper {
    /// The last transaction's zxid.
    zxid: u64,
    /// The sequence number the parent's next sequential child gets.
    next_seq: u64,
    /// False once the server deleted the empty container parent: the next
    /// create recreates it (a transaction of its own).
    parent: bool,
    /// When the next container check (by the member's clock) finds the
    /// parent empty and deletes it; 0: none pending.
    container_check_node_us: u64,
}

/// The replicated state machine of one member. The world keeps the members
/// in step (every committed change reaches every live member), so any live
/// member can take over as leader with the same leases, keys and revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdNode {
    actor: Actor,
    /// How many changes this member has applied: Raft elects only a member
    /// whose log is at least as long as a majority's.
    applied: u64,
    revision: u64,
    next_lease: u64,
    leases: Vec<Lease>,
    /// In create-revision order: the first key holds the lock.
    keys: Vec<Key>,
    rules: SessionRules,
    /// Consul's lock-delay: after a holder's session is invalidated, nobody
    /// holds the lock until this time of the member's clock (0: no delay
    /// pending). While it is pending, the first key in line waits too.
    delayed_until_node_us: u64,
    /// Consul: the clients whose acquire was refused while another session
    /// held the key, blocked on it (`kv.Get` with a wait index, in
    /// `api/lock.go`'s `Lock`): each with the request it answers and its
    /// session. Always empty for a service that keeps a line.
    watchers: Vec<Watcher>,
    zookeeper: ZooKeeper,
    pub clock: NodeClock,
}

/// A client blocked on the lock key until it changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Watcher {
    client: Actor,
    req: u32,
    lease: u64,
}

impl EtcdNode {
    pub fn new(actor: Actor, first_token: u64, rules: SessionRules) -> EtcdNode {
        EtcdNode {
            actor,
            applied: 0,
            revision: first_token - 1,
            next_lease: FIRST_LEASE_ID,
            leases: Vec::new(),
            keys: Vec::new(),
            rules,
            delayed_until_node_us: 0,
            watchers: Vec::new(),
            // The parent has seen `first_token` sequential creates.
            zookeeper: ZooKeeper { zxid: FIRST_ZXID, next_seq: first_token, parent: true, container_check_node_us: 0 },
            clock: NodeClock::default(),
        }
    }

    /// Takes the leader's committed state (a follower catching up); the
    /// member keeps its own name and clock.
    pub fn follow(&mut self, leader: &EtcdNode) {
        // Only a member that commits (has a majority) is followed, and every
        // token is a committed change: a follower's never goes back.
        crate::invariant!(
            leader.revision >= self.revision,
            "{:?} followed {:?} back from revision {} to {}",
            self.actor,
            leader.actor,
            self.revision,
            leader.revision
        );
        crate::invariant!(leader.rules == self.rules, "members of one cluster run different session rules");
        let (actor, clock) = (self.actor, self.clock);
        *self = EtcdNode { actor, clock, ..leader.clone() };
    }

    /// A new leader does not trust the old leader's timing: it gives every
    /// lease a full TTL from now, plus `election_us` (the election timeout)
    /// where the service's rules say so (etcd's lessor, `Promote(extend)`).
    pub fn refresh_leases(&mut self, now_us: u64, election_us: u64) {
        let extend_us = if self.rules.election_extends { election_us } else { 0 };
        let node_now_us = self.clock.read_us(now_us);
        // A new ZooKeeper leader starts an epoch: the zxid's high half moves
        // on and its counter starts over, so a czxid still only grows.
        let zxid_before = self.zookeeper.zxid;
        self.zookeeper.zxid = ((self.zookeeper.zxid >> 32) + 1) << 32;
        crate::invariant!(
            self.zookeeper.zxid > zxid_before,
            "a new epoch's zxid went back: {zxid_before:#x} -> {:#x}",
            self.zookeeper.zxid
        );
        let multiplier = self.rules.ttl_multiplier;
        for lease in &mut self.leases {
            lease.expires_node_us = node_now_us + extend_us + session_us(lease.ttl_ms, multiplier);
        }
        crate::invariant!(
            self.leases.iter().all(|lease| lease.expires_node_us > node_now_us),
            "a new leader refreshed a lease into the past at {node_now_us} µs"
        );
    }

    /// The holder of the lock, if any.
    #[cfg(test)]
    pub fn holder(&self) -> Option<Actor> {
        self.keys.first().map(|key| key.holder)
    }

    /// The first key in line: its holder, the request that put it, and
    /// its revision (the holder's token).
    /// None while a lock-delay keeps the first key from holding.
    pub fn first_key(&self) -> Option<(Actor, u32, u64)> {
        let held = self.keys.first().filter(|_| self.delayed_until_node_us == 0);
        held.map(|key| (key.holder, key.req, key.revision))
    }

    /// How up to date this member's log is.
    pub fn applied(&self) -> u64 {
        self.applied
    }

    fn grant_lease(&mut self, now_us: u64, from: Actor, asked_ms: u64, outcome: &mut Outcome) -> Msg {
        let ttl_ms = asked_ms.clamp(self.rules.ttl_ms_min, self.rules.ttl_ms_max);
        crate::invariant!(ttl_ms > 0, "a session granted for 0 ms");
        // Lease IDs are never reused: a later lease never passes for an earlier one.
        let id = self.next_lease;
        crate::invariant!(self.leases.iter().all(|lease| lease.id < id), "lease ID {id:#x} handed out twice");
        self.next_lease += 1;
        self.zookeeper.zxid += 1; // ZooKeeper: `createSession` is a transaction
        let expires_node_us = self.clock.read_us(now_us) + session_us(ttl_ms, self.rules.ttl_multiplier);
        self.leases.push(Lease { id, holder: from, ttl_ms, expires_node_us });
        if ttl_ms != asked_ms {
            outcome.notes.push(Note { kind: Kind::LeaseClamped { holder: from, ttl_ms, asked_ms }, token: None });
        }
        Msg::LeaseGrantReply { lease: id, ttl_ms }
    }

    fn put(&mut self, from: Actor, req: u32, lease: u64, outcome: &mut Outcome) -> Msg {
        if !self.leases.iter().any(|live| live.id == lease) {
            return Msg::PutReply { revision: 0, owner: false };
        }
        if self.rules.czxid_token {
            if let Some(position) = self.keys.iter().position(|key| key.lease == lease) {
                // A protected create asked again: the session's own znode,
                // now answering this request (Curator's `withProtection`
                // finds it among the children by its GUID prefix).
                self.keys[position].req = req;
                let key = self.keys[position];
                return Msg::Created { seq: key.seq, czxid: key.revision, owner: position == 0 };
            }
        }
        let taken = !self.keys.is_empty() || self.delayed_until_node_us != 0;
        if self.rules.refused_retry_ms > 0 && taken {
            return self.refuse(from, req, lease, outcome);
        }
        let key = self.new_key(from, lease, req);
        // A new key goes to the back of the line: its revision is above
        // every key's before it.
        crate::invariant!(
            self.keys.last().is_none_or(|last| last.revision < key.revision),
            "a key put behind a later one: revision {} after {:?}",
            key.revision,
            self.keys.last().map(|last| last.revision)
        );
        self.keys.push(key);
        let owner = self.keys.len() == 1 && self.delayed_until_node_us == 0;
        if owner {
            outcome.notes.push(self.granted(key));
        } else {
            let first = self.keys[0];
            outcome.notes.push(Note { kind: Kind::Waits { waiter: from, holder: first.holder }, token: Some(key.revision) });
        }
        if self.rules.czxid_token {
            return Msg::Created { seq: key.seq, czxid: key.revision, owner };
        }
        Msg::PutReply { revision: key.revision, owner }
    }

    /// A contender's key and its token: the next revision (etcd) or
    /// LockIndex (Consul); for ZooKeeper the znode, with the parent's next
    /// sequence number (recreating the parent first if the server deleted
    /// it) and the create's zxid as its `czxid`.
    fn new_key(&mut self, holder: Actor, lease: u64, req: u32) -> Key {
        let revision_before = self.revision;
        let key = self.create(holder, lease, req);
        // Tokens never go back, nor repeat, on one member.
        crate::invariant!(key.revision > revision_before, "a token went back on {:?}: {revision_before} -> {}", self.actor, key.revision);
        crate::invariant!(self.revision == key.revision, "the member's revision is not its latest key's");
        key
    }

    fn create(&mut self, holder: Actor, lease: u64, req: u32) -> Key {
        if !self.rules.czxid_token {
            self.revision += 1;
            return Key { holder, lease, revision: self.revision, seq: self.revision, req };
        }
        let zk = &mut self.zookeeper;
        zk.container_check_node_us = 0;
        if !zk.parent {
            // `creatingParentContainersIfNeeded`: a create of its own, and a
            // new parent numbers its children from 0.
            zk.zxid += 1;
            zk.parent = true;
            zk.next_seq = 0;
        }
        zk.zxid += 1;
        let seq = zk.next_seq;
        zk.next_seq += 1;
        self.revision = zk.zxid;
        Key { holder, lease, revision: zk.zxid, seq, req }
    }

    /// Consul: no line, so a refused acquire is just `false`. While another
    /// session holds the key the client blocks on it (a watcher here); when
    /// nobody holds it (a lock-delay) it retries on its own timer.
    fn refuse(&mut self, from: Actor, req: u32, lease: u64, outcome: &mut Outcome) -> Msg {
        crate::invariant!(self.rules.refused_retry_ms > 0, "a service that keeps a line refused an acquire");
        let Some(&Key { holder, lease: held_by, .. }) = self.keys.first() else { return Msg::AcquireRefused { held: false } };
        // A client whose earlier session still holds the key may be refused
        // (its answer was lost, and it started over), never the session itself.
        crate::invariant!(held_by != lease, "{from:?}'s session {lease:#x} was refused the key it holds");
        // A client has one blocking query at a time: the one it asks when its
        // last came back at its wait time (`LockWaitTime`, `api/lock.go`)
        // replaces it, so the list holds at most one watcher per worker.
        self.watchers.retain(|watcher| watcher.client != from);
        assert!(self.watchers.len() < usize::from(u8::MAX), "one watcher per contender, and contenders are few");
        self.watchers.push(Watcher { client: from, req, lease });
        outcome.notes.push(Note { kind: Kind::Denied { holder }, token: None });
        Msg::AcquireRefused { held: true }
    }

    /// ZooKeeper: once the parent is empty, the container check after now
    /// deletes it (`ContainerManager` runs every
    /// `znode.container.checkIntervalMs` from the server's start).
    fn schedule_container_check(&mut self, node_now_us: u64) {
        let interval_us = self.rules.container_check_ms * 1000;
        if interval_us > 0 && self.keys.is_empty() && self.zookeeper.parent {
            self.zookeeper.container_check_node_us = (node_now_us / interval_us + 1) * interval_us;
        }
    }

    /// ZooKeeper: a container check due now deletes the empty parent.
    fn remove_parent_if_due(&mut self, node_now_us: u64, outcome: &mut Outcome) {
        let due_us = self.zookeeper.container_check_node_us;
        if due_us == 0 || due_us > node_now_us {
            return;
        }
        self.zookeeper.container_check_node_us = 0;
        if self.keys.is_empty() && self.zookeeper.parent {
            self.zookeeper.parent = false;
            self.zookeeper.zxid += 1;
            outcome.notes.push(Note { kind: Kind::ParentRemoved, token: None });
        }
    }

    /// Consul: the key changed (its holder went), so every blocked client's
    /// query returns, and it tries the acquire again.
    fn wake_watchers(&mut self, outcome: &mut Outcome) {
        for watcher in self.watchers.drain(..) {
            outcome.sends.push((watcher.client, watcher.req, Msg::KeyChanged));
        }
    }

    fn keep_alive(&mut self, now_us: u64, from: Actor, lease_id: u64, outcome: &mut Outcome) -> Msg {
        let node_now_us = self.clock.read_us(now_us);
        let Some(lease) = self.leases.iter_mut().find(|lease| lease.id == lease_id && lease.expires_node_us > node_now_us) else {
            return Msg::RenewReply { ok: false };
        };
        lease.expires_node_us = node_now_us + session_us(lease.ttl_ms, self.rules.ttl_multiplier);
        crate::invariant!(lease.holder == from, "{from:?} kept {:?}'s session alive", lease.holder);
        let expires_at_us = self.clock.real_at_us(lease.expires_node_us, now_us);
        crate::invariant!(expires_at_us > now_us, "a kept-alive session already expired: at {expires_at_us} µs, now {now_us} µs");
        if self.first_key().is_some() && self.keys[0].lease == lease_id {
            outcome.notes.push(Note { kind: Kind::Renewed { holder: from, expires_at_us }, token: None });
        }
        Msg::RenewReply { ok: true }
    }

    /// Removes a lease and its key (each delete takes a revision where the
    /// rules say so), then hands the lock to the next key in line — or, when
    /// an expiry ends a hold and the service has a lock-delay, to nobody
    /// until the delay is over. Returns whether a key went.
    fn revoke(&mut self, lease_id: u64, by: Actor, expired: bool, node_now_us: u64, outcome: &mut Outcome) -> bool {
        self.leases.retain(|lease| lease.id != lease_id);
        // A blocked client whose own session went stops waiting.
        self.watchers.retain(|watcher| watcher.lease != lease_id);
        let Some(position) = self.keys.iter().position(|key| key.lease == lease_id) else { return false };
        let key = self.keys.remove(position);
        crate::invariant!(self.keys.iter().all(|other| other.lease != lease_id), "a session held two keys in one line: {lease_id:#x}");
        let revision_before = self.revision;
        if self.rules.deletes_count {
            self.revision += 1;
        }
        if self.rules.czxid_token {
            // The delete (or the expired session's close) is a transaction.
            self.zookeeper.zxid += 1;
            self.revision = self.zookeeper.zxid;
            self.schedule_container_check(node_now_us);
        }
        crate::invariant!(self.revision >= revision_before, "a delete moved the revision back: {revision_before} -> {}", self.revision);
        let revision = Some(self.revision);
        let kind =
            if expired { Kind::Expired { holder: key.holder, revision } } else { Kind::Deleted { holder: key.holder, by, revision } };
        // Only the first key held the lock, and only with no lock-delay
        // pending; a waiter leaving changes nothing else.
        let held = position == 0 && self.delayed_until_node_us == 0;
        if held || !expired {
            outcome.notes.push(Note { kind, token: None });
        }
        if held && expired && self.rules.lock_delay_ms > 0 {
            self.delayed_until_node_us = node_now_us + self.rules.lock_delay_ms * 1000;
        } else if held {
            self.grant_first(outcome);
        }
        if position == 0 {
            self.wake_watchers(outcome);
        }
        true
    }

    /// The first key in line holds the lock now: note it and tell its
    /// contender (the answer to its put; a watch, in the recipes).
    fn grant_first(&self, outcome: &mut Outcome) {
        if let Some(next) = self.keys.first().copied() {
            outcome.notes.push(self.granted(next));
            outcome.sends.push((next.holder, next.req, Msg::LockReady { revision: next.revision }));
        }
    }

    /// A lock-delay that is over lets the first key in line hold.
    fn end_delay_if_due(&mut self, node_now_us: u64, outcome: &mut Outcome) {
        if self.delayed_until_node_us != 0 && self.delayed_until_node_us <= node_now_us {
            self.delayed_until_node_us = 0;
            self.grant_first(outcome);
        }
    }

    fn granted(&self, key: Key) -> Note {
        // One holder at a time: only the first key in line, and only with
        // no lock-delay pending, holds the lock.
        crate::invariant!(self.keys.first() == Some(&key), "{:?} granted the lock to a key not first in line", key.holder);
        crate::invariant!(self.delayed_until_node_us == 0, "{:?} granted the lock during a lock-delay", key.holder);
        let expires_node_us = self.leases.iter().find(|lease| lease.id == key.lease).map_or(0, |lease| lease.expires_node_us);
        // Reported in real time (the trace's clock); `real_at_us` never
        // schedules the past, so "now" is the floor.
        let expires_at_us = self.clock.real_at_us(expires_node_us, 0);
        Note { kind: Kind::Granted { holder: key.holder, expires_at_us }, token: Some(key.revision) }
    }

    /// The tick (of the member's clock) that expires the earliest lease, in
    /// real time: the first at or after it, or (ZooKeeper) strictly after.
    /// A pending lock-delay's end is checked too.
    fn next_check_us(&self, now_us: u64) -> Option<u64> {
        let tick_us = self.rules.tick_us;
        let tick_at = |earliest: u64| {
            if self.rules.tick_strictly_after {
                (earliest / tick_us + 1) * tick_us
            } else {
                earliest.div_ceil(tick_us) * tick_us
            }
        };
        let lease_tick = self.leases.iter().map(|lease| lease.expires_node_us).min().map(tick_at);
        let delay_end = Some(self.delayed_until_node_us).filter(|until| *until != 0);
        let container_check = Some(self.zookeeper.container_check_node_us).filter(|at| *at != 0);
        let node_us = [lease_tick, delay_end, container_check].into_iter().flatten().min()?;
        Some(self.clock.real_at_us(node_us, now_us))
    }

    /// What holds after every command and every tick: the line is in
    /// create-revision order, every key's session is live, the counters
    /// only grew during the step (`before`: revision, zxid, applied), and
    /// only the rules' own features are in use.
    fn check(&self, before: (u64, u64, u64), outcome: &Outcome, now_us: u64) {
        let (revision, zxid, applied) = before;
        crate::invariant!(self.revision >= revision, "a token went back on {:?}: {revision} -> {}", self.actor, self.revision);
        crate::invariant!(self.zookeeper.zxid >= zxid, "the zxid went back on {:?}: {zxid:#x} -> {:#x}", self.actor, self.zookeeper.zxid);
        crate::invariant!(self.applied == applied + 1, "{:?} applied {} changes in one step", self.actor, self.applied - applied);
        crate::invariant!(
            self.keys.windows(2).all(|pair| pair[0].revision < pair[1].revision),
            "{:?}'s line is out of revision order",
            self.actor
        );
        crate::invariant!(
            self.keys.iter().all(|key| self.leases.iter().any(|lease| lease.id == key.lease)),
            "{:?} keeps a key whose session is gone",
            self.actor
        );
        crate::invariant!(self.watchers.is_empty() || self.rules.refused_retry_ms > 0, "a service that keeps a line has watchers");
        crate::invariant!(self.delayed_until_node_us == 0 || self.rules.lock_delay_ms > 0, "a lock-delay without the rule");
        crate::invariant!(outcome.check_at_us.is_none_or(|at_us| at_us >= now_us), "an expiry check scheduled in the past");
    }

    fn counters(&self) -> (u64, u64, u64) {
        (self.revision, self.zookeeper.zxid, self.applied)
    }
}

/// How long a session lasts on the server after its last renewal: the TTL
/// times the service's multiplier (Consul's `createSessionTimer`, in
/// `agent/consul/session_ttl.go`: `ttl * structs.SessionTTLMultiplier`).
fn session_us(ttl_ms: u64, multiplier: u64) -> u64 {
    ttl_ms * 1000 * multiplier
}

impl Machine for EtcdNode {
    fn clock_mut(&mut self) -> &mut NodeClock {
        &mut self.clock
    }

    /// A member's log is always on disk: nothing to catch up.
    fn sync_disk(&mut self, _now_us: u64, _period_us: u64) {}

    /// A member's log is on disk: it comes back with everything.
    fn crash(&mut self, _now_us: u64, _persistence: RedisPersistence) -> Crash {
        Crash { persists: true, restores_from_us: None, lost: None }
    }

    fn handle(&mut self, now_us: u64, from: Actor, req: u32, msg: &Msg, outcome: &mut Outcome) {
        let before = self.counters();
        self.applied += 1;
        let first_send = outcome.sends.len();
        let node_now_us = self.clock.read_us(now_us);
        self.end_delay_if_due(node_now_us, outcome);
        let reply = match *msg {
            Msg::LeaseGrant { ttl_ms } => self.grant_lease(now_us, from, ttl_ms, outcome),
            Msg::PutLock { lease } => self.put(from, req, lease, outcome),
            Msg::Renew { value, .. } => self.keep_alive(now_us, from, value, outcome),
            Msg::Check { value } => Msg::CheckReply { mine: self.keys.first().is_some_and(|key| key.lease == value) },
            Msg::ReleaseCad { value } => {
                let deleted = self.revoke(value, from, false, node_now_us, outcome);
                Msg::ReleaseReply { deleted }
            }
            ref other => unreachable!("an etcd member never receives {}", other.label()),
        };
        // The reply goes before any "your turn" the command caused.
        outcome.sends.insert(first_send, (from, req, reply));
        outcome.check_at_us = self.next_check_us(now_us);
        self.check(before, outcome, now_us);
    }

    /// Revokes every lease whose time is up at this tick.
    fn expire(&mut self, now_us: u64, outcome: &mut Outcome) {
        let before = self.counters();
        self.applied += 1;
        let node_now_us = self.clock.read_us(now_us);
        let due: Vec<Lease> = self.leases.iter().copied().filter(|lease| lease.expires_node_us <= node_now_us).collect();
        for lease in due {
            self.revoke(lease.id, lease.holder, true, node_now_us, outcome);
        }
        self.end_delay_if_due(node_now_us, outcome);
        self.remove_parent_if_due(node_now_us, outcome);
        outcome.check_at_us = self.next_check_us(now_us);
        // Every session whose time is up by this member's clock is gone.
        crate::invariant!(
            self.leases.iter().all(|lease| lease.expires_node_us > node_now_us),
            "{:?} kept an expired session at {node_now_us} µs",
            self.actor
        );
        self.check(before, outcome, now_us);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{expired, handled};

    const A: Actor = Actor::Worker(0);
    const B: Actor = Actor::Worker(1);
    const ETCD: SessionRules = crate::services::spec(crate::scenario::LockService::Consensus).session.unwrap();

    fn reply(outcome: &Outcome) -> Msg {
        outcome.sends[0].2
    }

    fn lease(node: &mut EtcdNode, now_us: u64, who: Actor) -> u64 {
        let Msg::LeaseGrantReply { lease, .. } = reply(&handled(node, now_us, who, 1, &Msg::LeaseGrant { ttl_ms: 10_000 })) else {
            panic!()
        };
        lease
    }

    #[test]
    fn leases_are_at_least_two_seconds() {
        let mut node = EtcdNode::new(Actor::LockNode(0), 33, ETCD);
        let outcome = handled(&mut node, 0, A, 1, &Msg::LeaseGrant { ttl_ms: 500 });
        assert!(matches!(reply(&outcome), Msg::LeaseGrantReply { ttl_ms: 2_000, .. }));
        assert!(matches!(outcome.notes[0].kind, Kind::LeaseClamped { ttl_ms: 2_000, asked_ms: 500, .. }));
    }

    #[test]
    fn tokens_grow_with_gaps_and_expiry_is_up_to_a_tick_late() {
        let mut node = EtcdNode::new(Actor::LockNode(0), 33, ETCD);
        let a = lease(&mut node, 200, A);
        let b = lease(&mut node, 100, B);
        assert_eq!(reply(&handled(&mut node, 200, A, 2, &Msg::PutLock { lease: a })), Msg::PutReply { revision: 33, owner: true });
        let put_b = handled(&mut node, 300, B, 7, &Msg::PutLock { lease: b });
        assert_eq!(reply(&put_b), Msg::PutReply { revision: 34, owner: false });
        // A's lease runs out at 10.0002 s; the tick at 10.5 s revokes it.
        assert_eq!(node.next_check_us(300), Some(10_500_000));
        handled(&mut node, 5_000_000, B, 8, &Msg::Renew { value: b, ttl_ms: 10_000 });
        let revoked = expired(&mut node, 10_500_000);
        assert_eq!(revoked.notes[0].kind, Kind::Expired { holder: A, revision: Some(35) });
        // B's turn answers B's put (request 7).
        assert_eq!(revoked.sends, [(B, 7, Msg::LockReady { revision: 34 })]);
        // The delete took revision 35: a third contender's token jumps to 36.
        let c = lease(&mut node, 11_000_000, A);
        assert_eq!(reply(&handled(&mut node, 11_000_000, A, 3, &Msg::PutLock { lease: c })), Msg::PutReply { revision: 36, owner: false });
    }

    #[test]
    fn a_new_leader_gives_every_lease_an_election_timeout_and_a_full_ttl_and_keeps_the_revision() {
        let mut leader = EtcdNode::new(Actor::LockNode(0), 33, ETCD);
        let a = lease(&mut leader, 0, A);
        handled(&mut leader, 0, A, 2, &Msg::PutLock { lease: a });
        let mut follower = EtcdNode::new(Actor::LockNode(1), 33, ETCD);
        follower.follow(&leader);
        // The old leader dies at 9 s; the follower is elected at 10 s and
        // refreshes A's lease rather than revoking it at once: a 1 s
        // election timeout plus the 10 s TTL from now.
        follower.refresh_leases(10_000_000, 1_000_000);
        assert!(expired(&mut follower, 10_000_000).notes.is_empty());
        assert_eq!(follower.holder(), Some(A));
        assert_eq!(follower.next_check_us(10_000_000), Some(21_000_000));
        let b = lease(&mut follower, 10_000_000, B);
        assert_eq!(
            reply(&handled(&mut follower, 10_000_000, B, 2, &Msg::PutLock { lease: b })),
            Msg::PutReply { revision: 34, owner: false }
        );
    }

    #[test]
    fn consul_invalidates_at_twice_the_ttl_keeps_no_line_and_its_lock_delay_follows_an_invalidation_not_a_release() {
        const CONSUL: SessionRules = crate::services::spec(crate::scenario::LockService::Consul).session.unwrap();
        let mut node = EtcdNode::new(Actor::LockNode(0), 33, CONSUL);
        let (a, b) = (lease(&mut node, 0, A), lease(&mut node, 0, B));
        assert_eq!(reply(&handled(&mut node, 0, A, 2, &Msg::PutLock { lease: a })), Msg::PutReply { revision: 33, owner: true });
        // No line: B's acquire is just `false`, and B blocks on the key.
        assert_eq!(reply(&handled(&mut node, 0, B, 7, &Msg::PutLock { lease: b })), Msg::AcquireRefused { held: true });
        handled(&mut node, 5_000_000, B, 8, &Msg::Renew { value: b, ttl_ms: 10_000 });
        // A's 10 s session is invalidated at twice its TTL, not at 10 s
        // (`SessionTTLMultiplier`), and B's blocked query returns.
        assert_eq!(node.next_check_us(5_000_000), Some(20_000_000));
        assert!(expired(&mut node, 19_999_999).notes.is_empty(), "not before 2 × TTL");
        let invalidated = expired(&mut node, 20_000_000);
        assert_eq!(invalidated.sends, [(B, 7, Msg::KeyChanged)]);
        // The lock-delay refuses B's retry although nobody holds the key;
        // it takes no LockIndex.
        assert_eq!(reply(&handled(&mut node, 20_000_000, B, 9, &Msg::PutLock { lease: b })), Msg::AcquireRefused { held: false });
        handled(&mut node, 25_000_000, B, 10, &Msg::Renew { value: b, ttl_ms: 10_000 });
        assert_eq!(reply(&handled(&mut node, 30_000_000, B, 11, &Msg::PutLock { lease: b })), Msg::AcquireRefused { held: false });
        assert_eq!(node.first_key(), None, "nobody holds the lock during the delay");
        // The delay ends at 35 s: B's next try takes LockIndex 34.
        assert_eq!(reply(&handled(&mut node, 35_000_000, B, 12, &Msg::PutLock { lease: b })), Msg::PutReply { revision: 34, owner: true });
        // B releases: no delay, and a newcomer holds at once (LockIndex 35:
        // the release took no number).
        handled(&mut node, 36_000_000, B, 13, &Msg::ReleaseCad { value: b });
        let c = lease(&mut node, 36_000_000, A);
        assert_eq!(reply(&handled(&mut node, 36_000_000, A, 3, &Msg::PutLock { lease: c })), Msg::PutReply { revision: 35, owner: true });
    }

    #[test]
    fn a_fast_clock_expires_leases_early() {
        let mut node = EtcdNode::new(Actor::LockNode(0), 33, ETCD);
        node.clock.ppm = 100_000;
        let a = lease(&mut node, 0, A);
        handled(&mut node, 0, A, 2, &Msg::PutLock { lease: a });
        // 10 s of lease by a clock 10% fast: the tick at node time 10.0 s
        // comes at about 9.09 s of real time.
        let check_us = node.next_check_us(0).unwrap();
        assert!((9_090_000..9_100_000).contains(&check_us), "{check_us}");
        assert!(matches!(expired(&mut node, check_us).notes[0].kind, Kind::Expired { holder: A, .. }));
    }

    // The invariants are live in every test run (`crate::invariant!`): these
    // feed a member what the world never would, and the member stops.

    #[test]
    #[should_panic(expected = "LockNode(1) followed LockNode(0) back from revision 33 to 32")]
    fn a_follower_never_goes_back_to_an_older_revision() {
        let leader = EtcdNode::new(Actor::LockNode(0), 33, ETCD);
        let mut follower = EtcdNode::new(Actor::LockNode(1), 33, ETCD);
        let a = lease(&mut follower, 0, A);
        handled(&mut follower, 0, A, 2, &Msg::PutLock { lease: a });
        follower.follow(&leader);
    }

    #[test]
    #[should_panic(expected = "a key put behind a later one: revision 34 after Some(40)")]
    fn a_member_whose_line_is_out_of_order_stops_at_its_next_key() {
        let mut node = EtcdNode::new(Actor::LockNode(0), 33, ETCD);
        let (a, b) = (lease(&mut node, 0, A), lease(&mut node, 0, B));
        handled(&mut node, 0, A, 2, &Msg::PutLock { lease: a });
        // A corrupted member: its line's key says 40, its counter still 33.
        node.keys[0].revision = 40;
        handled(&mut node, 0, B, 3, &Msg::PutLock { lease: b });
    }
}
