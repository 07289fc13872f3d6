//! A Redis lock node: one key with an expiry, one counter for tokens. Like a
//! real Redis it runs one command at a time, so each command is atomic, but
//! `SET NX` and `INCR` are two commands: nothing ties the token to the lease
//! — unless one Lua script runs both (`AcquireScript`), which Redis also runs
//! as one command.

use super::{Crash, Machine, NodeClock, Note, Outcome};
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;
use crate::scenario::RedisPersistence;

/// The lease as the node stores it. Expiry is in the node's own clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    pub value: u64,
    pub holder: Actor,
    expires_node_us: u64,
}

/// What a replica receives: the primary's whole state at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    lease: Option<Lease>,
    counter: u64,
}

pub struct RedisNode {
    lease: Option<Lease>,
    counter: u64,
    pub clock: NodeClock,
    /// What is on disk for a node that persists only now and then: the
    /// state at its last snapshot or fsync, and when that was.
    disk: (Snapshot, u64),
    /// When the state last changed (or might have): the state at any
    /// snapshot since then is the current one.
    changed_us: u64,
    /// The latest real time the node handled anything at: the world's
    /// clock never goes backwards, so neither may this.
    seen_us: u64,
}

impl RedisNode {
    pub fn new(first_token: u64) -> RedisNode {
        let fresh = Snapshot { lease: None, counter: first_token - 1 };
        RedisNode { lease: None, counter: first_token - 1, clock: NodeClock::default(), disk: (fresh, 0), changed_us: 0, seen_us: 0 }
    }

    /// A step at real time `now_us`: the node's view of real time only moves on.
    fn step_at(&mut self, now_us: u64) {
        crate::invariant!(now_us >= self.seen_us, "time went back on a Redis node: {} -> {now_us} µs", self.seen_us);
        self.seen_us = now_us;
    }

    /// Brings the disk up to `now_us` for a node that writes it every
    /// `period_us`: if a snapshot (or fsync) fell since the last change, it
    /// holds the current state. Called before every change and at a crash,
    /// so the disk is exact without a timer per period.
    pub fn sync_disk(&mut self, now_us: u64, period_us: u64) {
        crate::invariant!(period_us > 0, "a Redis node persists every 0 µs");
        crate::invariant!(now_us >= self.changed_us, "a Redis node's disk went back in time: {} -> {now_us} µs", self.changed_us);
        let last_us = now_us / period_us * period_us;
        if last_us > self.changed_us {
            self.disk = (self.snapshot(), last_us);
        }
        self.changed_us = now_us;
        crate::invariant!(self.disk.1 <= now_us, "a Redis node's disk holds a snapshot from the future: {} > {now_us} µs", self.disk.1);
    }

    /// A restart from the disk: the state as of its last snapshot or fsync,
    /// and when that was.
    pub fn restore_disk(&mut self) -> u64 {
        let (snapshot, at_us) = self.disk;
        crate::invariant!(at_us <= self.changed_us, "a restart from a snapshot taken after the crash: {at_us} > {} µs", self.changed_us);
        self.apply(snapshot);
        at_us
    }

    pub fn lease(&self) -> Option<Lease> {
        self.lease
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot { lease: self.lease, counter: self.counter }
    }

    pub fn apply(&mut self, snapshot: Snapshot) {
        self.lease = snapshot.lease;
        self.counter = snapshot.counter;
    }

    pub fn wipe(&mut self) {
        self.lease = None;
        self.counter = 0;
    }

    fn incr(&mut self, from: Actor, outcome: &mut Outcome) -> u64 {
        // Tokens never go back on one counter (a restart or a failover may
        // swap the counter for an older one: that is the model's point).
        crate::invariant!(self.counter < u64::MAX, "the token counter would wrap");
        self.counter += 1;
        outcome.notes.push(Note { kind: Kind::TokenIssued { to: from }, token: Some(self.counter) });
        self.counter
    }

    fn renew(&mut self, now_us: u64, from: Actor, value: u64, ttl_ms: u64, outcome: &mut Outcome) -> bool {
        let Some(lease) = self.lease.filter(|lease| lease.value == value) else { return false };
        // Lock values are random per acquisition: only the holder knows its own.
        crate::invariant!(lease.holder == from, "{from:?} renewed {:?}'s lease on a Redis node", lease.holder);
        let expires_node_us = self.clock.read_us(now_us) + ttl_ms * 1000;
        self.lease = Some(Lease { expires_node_us, ..lease });
        let expires_at_us = self.clock.real_at_us(expires_node_us, now_us);
        crate::invariant!(expires_at_us > now_us, "a renewed lease already expired: at {expires_at_us} µs, now {now_us} µs");
        outcome.check_at_us = Some(expires_at_us);
        outcome.notes.push(Note { kind: Kind::Renewed { holder: from, expires_at_us }, token: None });
        true
    }

    fn set_nx(&mut self, now_us: u64, from: Actor, value: u64, ttl_ms: u64, outcome: &mut Outcome) -> bool {
        if let Some(lease) = self.lease {
            outcome.notes.push(Note { kind: Kind::Denied { holder: lease.holder }, token: None });
            return false;
        }
        // Only a free key is granted: one node never grants a lease to two
        // holders at once.
        crate::invariant!(self.lease.is_none(), "a Redis node granted a held lease to {from:?}");
        let expires_node_us = self.clock.read_us(now_us) + ttl_ms * 1000;
        self.lease = Some(Lease { value, holder: from, expires_node_us });
        let expires_at_us = self.clock.real_at_us(expires_node_us, now_us);
        crate::invariant!(expires_at_us > now_us, "a granted lease already expired: at {expires_at_us} µs, now {now_us} µs");
        outcome.check_at_us = Some(expires_at_us);
        outcome.notes.push(Note { kind: Kind::Granted { holder: from, expires_at_us }, token: None });
        true
    }

    fn delete(&mut self, lease: Lease, by: Actor) -> Note {
        self.lease = None;
        Note { kind: Kind::Deleted { holder: lease.holder, by, revision: None }, token: None }
    }
}

impl Machine for RedisNode {
    fn clock_mut(&mut self) -> &mut NodeClock {
        &mut self.clock
    }

    fn sync_disk(&mut self, now_us: u64, period_us: u64) {
        RedisNode::sync_disk(self, now_us, period_us);
    }

    /// A Redis keeps everything with an append-only file (written before
    /// each reply: a process crash loses none of it), its last snapshot
    /// with RDB, and nothing without.
    fn crash(&mut self, now_us: u64, persistence: RedisPersistence) -> Crash {
        let held = self.lease();
        let persists = persistence.keeps_every_write();
        let mut restores_from_us = None;
        if !persists {
            match persistence.period_us() {
                Some(period_us) => {
                    RedisNode::sync_disk(self, now_us, period_us);
                    restores_from_us = Some(self.restore_disk());
                }
                None => self.wipe(),
            }
        }
        let kept = self.lease().map(|lease| lease.holder);
        // The lease is lost unless the node comes back with it.
        let lost = held.filter(|lease| !persists && kept != Some(lease.holder)).map(|lease| lease.holder);
        Crash { persists, restores_from_us, lost }
    }

    /// Deletes the lease if its time is up by this node's clock, as Redis
    /// does lazily on access and actively in the background.
    fn expire(&mut self, now_us: u64, outcome: &mut Outcome) {
        self.step_at(now_us);
        if let Some(lease) = self.lease {
            if self.clock.read_us(now_us) >= lease.expires_node_us {
                self.lease = None;
                outcome.notes.push(Note { kind: Kind::Expired { holder: lease.holder, revision: None }, token: None });
            } else {
                outcome.check_at_us = Some(self.clock.real_at_us(lease.expires_node_us, now_us));
            }
        }
        // What is left is live by the node's clock, and its check is not in the past.
        crate::invariant!(
            self.lease.is_none_or(|lease| lease.expires_node_us > self.clock.read_us(now_us)),
            "a Redis node kept an expired lease at {now_us} µs"
        );
        crate::invariant!(outcome.check_at_us.is_none_or(|at_us| at_us >= now_us), "an expiry check scheduled in the past");
    }

    /// Handles request `req` from `from`; one command at a time.
    fn handle(&mut self, now_us: u64, from: Actor, req: u32, msg: &Msg, outcome: &mut Outcome) {
        self.expire(now_us, outcome);
        let (counter_before, sends_before) = (self.counter, outcome.sends.len());
        let reply = match *msg {
            Msg::SetNx { value, ttl_ms } => Msg::SetReply { ok: self.set_nx(now_us, from, value, ttl_ms, outcome) },
            Msg::Incr => Msg::IncrReply { value: self.incr(from, outcome) },
            Msg::AcquireScript { value, ttl_ms } => {
                let set = self.set_nx(now_us, from, value, ttl_ms, outcome);
                Msg::AcquireScriptReply { token: set.then(|| self.incr(from, outcome)) }
            }
            Msg::Renew { value, ttl_ms } => Msg::RenewReply { ok: self.renew(now_us, from, value, ttl_ms, outcome) },
            Msg::Check { value } => Msg::CheckReply { mine: self.lease.is_some_and(|lease| lease.value == value) },
            Msg::ReleaseCad { value } => match self.lease {
                Some(lease) if lease.value == value => {
                    outcome.notes.push(self.delete(lease, from));
                    Msg::ReleaseReply { deleted: true }
                }
                _ => Msg::ReleaseReply { deleted: false },
            },
            Msg::Del => match self.lease {
                Some(lease) => {
                    outcome.notes.push(self.delete(lease, from));
                    Msg::ReleaseReply { deleted: true }
                }
                None => Msg::ReleaseReply { deleted: false },
            },
            ref other => unreachable!("a Redis node never receives {}", other.label()),
        };
        outcome.sends.push((from, req, reply));
        // A command moves the counter on by at most one, never back, and
        // answers only its sender, once.
        crate::invariant!(
            self.counter == counter_before || self.counter == counter_before + 1,
            "a token went back or jumped on a Redis node: {counter_before} -> {}",
            self.counter
        );
        crate::invariant!(outcome.sends.len() == sends_before + 1, "a Redis command answered {} times", outcome.sends.len() - sends_before);
        // A granted key is the sender's (SET NX, or the script's SET).
        if matches!(reply, Msg::SetReply { ok: true } | Msg::AcquireScriptReply { token: Some(_) }) {
            crate::invariant!(self.lease.is_some_and(|lease| lease.holder == from), "a Redis grant to {from:?} left another holder");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{expired, handled};

    const A: Actor = Actor::Worker(0);
    const B: Actor = Actor::Worker(1);

    fn reply(outcome: Outcome) -> Msg {
        outcome.sends.into_iter().next().unwrap().2
    }

    #[test]
    fn set_nx_px_grants_once_until_expiry() {
        let mut node = RedisNode::new(33);
        let granted = handled(&mut node, 0, A, 1, &Msg::SetNx { value: 1, ttl_ms: 10 });
        assert_eq!(granted.check_at_us, Some(10_000));
        assert_eq!(reply(granted), Msg::SetReply { ok: true });
        assert_eq!(reply(handled(&mut node, 9_999, B, 1, &Msg::SetNx { value: 2, ttl_ms: 10 })), Msg::SetReply { ok: false });
        assert_eq!(reply(handled(&mut node, 10_000, B, 1, &Msg::SetNx { value: 2, ttl_ms: 10 })), Msg::SetReply { ok: true });
    }

    #[test]
    fn tokens_count_up_from_the_first() {
        let mut node = RedisNode::new(33);
        assert_eq!(reply(handled(&mut node, 0, A, 1, &Msg::Incr)), Msg::IncrReply { value: 33 });
        assert_eq!(reply(handled(&mut node, 0, B, 1, &Msg::Incr)), Msg::IncrReply { value: 34 });
    }

    #[test]
    fn the_acquire_script_counts_only_when_it_sets() {
        let mut node = RedisNode::new(33);
        let script = |value| Msg::AcquireScript { value, ttl_ms: 10 };
        assert_eq!(reply(handled(&mut node, 0, A, 1, &script(1))), Msg::AcquireScriptReply { token: Some(33) });
        assert_eq!(reply(handled(&mut node, 1, B, 1, &script(2))), Msg::AcquireScriptReply { token: None });
        assert_eq!(reply(handled(&mut node, 10_000, B, 2, &script(2))), Msg::AcquireScriptReply { token: Some(34) });
    }

    #[test]
    fn compare_and_delete_spares_a_successor_but_del_does_not() {
        let mut node = RedisNode::new(1);
        handled(&mut node, 0, A, 1, &Msg::SetNx { value: 1, ttl_ms: 10 });
        handled(&mut node, 20_000, B, 1, &Msg::SetNx { value: 2, ttl_ms: 10 });
        assert_eq!(reply(handled(&mut node, 20_001, A, 1, &Msg::ReleaseCad { value: 1 })), Msg::ReleaseReply { deleted: false });
        let naive = handled(&mut node, 20_002, A, 1, &Msg::Del);
        assert_eq!(naive.notes[0].kind, Kind::Deleted { holder: B, by: A, revision: None });
        assert_eq!(reply(naive), Msg::ReleaseReply { deleted: true });
    }

    #[test]
    fn a_clock_jump_frees_the_lock_early() {
        let mut node = RedisNode::new(1);
        handled(&mut node, 0, A, 1, &Msg::SetNx { value: 1, ttl_ms: 10_000 });
        node.clock.jump(9_000);
        assert!(expired(&mut node, 999_999).notes.is_empty());
        assert_eq!(expired(&mut node, 1_000_000).notes[0].kind, Kind::Expired { holder: A, revision: None });
    }

    // The invariants are live in every test run (`crate::invariant!`): these
    // feed a node what the world never would, and the node stops.

    #[test]
    #[should_panic(expected = "time went back on a Redis node: 20000 -> 10000 µs")]
    fn a_node_stops_when_time_goes_back() {
        let mut node = RedisNode::new(33);
        handled(&mut node, 20_000, A, 1, &Msg::Incr);
        handled(&mut node, 10_000, B, 1, &Msg::Incr);
    }

    #[test]
    #[should_panic(expected = "a Redis node's disk went back in time")]
    fn a_disk_never_goes_back() {
        let mut node = RedisNode::new(33);
        node.sync_disk(2_000_000, 1_000_000);
        node.sync_disk(1_000_000, 1_000_000);
    }

    #[test]
    #[should_panic(expected = "Worker(1) renewed Worker(0)'s lease on a Redis node")]
    fn only_the_holder_renews_its_lease() {
        let mut node = RedisNode::new(33);
        handled(&mut node, 0, A, 1, &Msg::SetNx { value: 7, ttl_ms: 10 });
        handled(&mut node, 1, B, 1, &Msg::Renew { value: 7, ttl_ms: 10 });
    }
}
