//! An etcd-like consensus lock, as etcd 3.4's lock recipe behaves: a
//! contender takes a lease (at least 2 s), creates a key under the lock
//! prefix tied to that lease, and holds the lock once every key with a lower
//! create revision is gone. The token is the key's create revision: it only
//! grows, but with gaps, since deletes and expiries use revisions too. Expired
//! leases are revoked at the next 500 ms tick, so up to half a second late.

use super::{Note, Outcome};
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;

/// etcd refuses leases shorter than this; it grants 2 s instead.
pub const LEASE_MS_MIN: u64 = 2_000;
/// How often etcd looks for expired leases.
pub const EXPIRY_TICK_US: u64 = 500_000;
/// Lease IDs are opaque numbers; start somewhere that does not look like a token.
const FIRST_LEASE_ID: u64 = 0x694d_0001;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lease {
    id: u64,
    holder: Actor,
    ttl_ms: u64,
    expires_us: u64,
}

/// A contender's key under the lock prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    holder: Actor,
    lease: u64,
    revision: u64,
}

pub struct EtcdNode {
    actor: Actor,
    first_revision: u64,
    revision: u64,
    next_lease: u64,
    leases: Vec<Lease>,
    /// In create-revision order: the first key holds the lock.
    keys: Vec<Key>,
}

impl EtcdNode {
    pub fn new(actor: Actor, first_token: u64) -> EtcdNode {
        EtcdNode {
            actor,
            first_revision: first_token - 1,
            revision: first_token - 1,
            next_lease: FIRST_LEASE_ID,
            leases: Vec::new(),
            keys: Vec::new(),
        }
    }

    pub fn wipe(&mut self) {
        *self = EtcdNode::new(self.actor, self.first_revision + 1);
    }

    pub fn handle(&mut self, now_us: u64, from: Actor, msg: &Msg) -> Outcome {
        let mut outcome = Outcome::default();
        let reply = match *msg {
            Msg::LeaseGrant { ttl_ms } => self.grant_lease(now_us, from, ttl_ms, &mut outcome),
            Msg::PutLock { lease } => self.put(from, lease, &mut outcome),
            Msg::Renew { value, .. } => self.keep_alive(now_us, from, value, &mut outcome),
            Msg::Check { value } => Msg::CheckReply { mine: self.keys.first().is_some_and(|key| key.lease == value) },
            Msg::ReleaseCad { value } => {
                let deleted = self.revoke(value, from, false, &mut outcome);
                Msg::ReleaseReply { deleted }
            }
            ref other => unreachable!("an etcd node never receives {other:?}"),
        };
        outcome.sends.insert(0, (from, reply));
        outcome.check_at_us = self.next_check_us();
        outcome
    }

    /// Revokes every lease whose time is up at this tick.
    pub fn expire(&mut self, now_us: u64) -> Outcome {
        let mut outcome = Outcome::default();
        let due: Vec<Lease> = self.leases.iter().copied().filter(|lease| lease.expires_us <= now_us).collect();
        for lease in due {
            self.revoke(lease.id, lease.holder, true, &mut outcome);
        }
        outcome.check_at_us = self.next_check_us();
        outcome
    }

    fn grant_lease(&mut self, now_us: u64, from: Actor, asked_ms: u64, outcome: &mut Outcome) -> Msg {
        let ttl_ms = asked_ms.max(LEASE_MS_MIN);
        let id = self.next_lease;
        self.next_lease += 1;
        self.leases.push(Lease { id, holder: from, ttl_ms, expires_us: now_us + ttl_ms * 1000 });
        if ttl_ms != asked_ms {
            outcome.notes.push(Note {
                kind: Kind::LeaseClamped { holder: from, ttl_ms },
                token: None,
                text: format!("{}: no lease is shorter than {LEASE_MS_MIN} ms, so {from} gets {ttl_ms} ms, not {asked_ms}", self.actor),
            });
        }
        Msg::LeaseGrantReply { lease: id, ttl_ms }
    }

    fn put(&mut self, from: Actor, lease: u64, outcome: &mut Outcome) -> Msg {
        if !self.leases.iter().any(|live| live.id == lease) {
            return Msg::PutReply { revision: 0, owner: false };
        }
        self.revision += 1;
        let key = Key { holder: from, lease, revision: self.revision };
        self.keys.push(key);
        let owner = self.keys.len() == 1;
        if owner {
            outcome.notes.push(self.granted(key));
        } else {
            let first = self.keys[0];
            outcome.notes.push(Note {
                kind: Kind::Denied { holder: first.holder },
                token: Some(key.revision),
                text: format!(
                    "{}: {from}'s key (revision {}) waits behind {}'s ({})",
                    self.actor, key.revision, first.holder, first.revision
                ),
            });
        }
        Msg::PutReply { revision: key.revision, owner }
    }

    fn keep_alive(&mut self, now_us: u64, from: Actor, lease_id: u64, outcome: &mut Outcome) -> Msg {
        let Some(lease) = self.leases.iter_mut().find(|lease| lease.id == lease_id && lease.expires_us > now_us) else {
            return Msg::RenewReply { ok: false };
        };
        lease.expires_us = now_us + lease.ttl_ms * 1000;
        let expires_at_us = lease.expires_us;
        if self.keys.first().is_some_and(|key| key.lease == lease_id) {
            outcome.notes.push(Note {
                kind: Kind::Renewed { holder: from, expires_at_us },
                token: None,
                text: format!("{} kept {from}'s lease alive until {}", self.actor, crate::format_us(expires_at_us)),
            });
        }
        Msg::RenewReply { ok: true }
    }

    /// Removes a lease and its key (each delete takes a revision), then
    /// hands the lock to the next key in line. Returns whether a key went.
    fn revoke(&mut self, lease_id: u64, by: Actor, expired: bool, outcome: &mut Outcome) -> bool {
        self.leases.retain(|lease| lease.id != lease_id);
        let Some(position) = self.keys.iter().position(|key| key.lease == lease_id) else { return false };
        let key = self.keys.remove(position);
        self.revision += 1;
        let note = if expired {
            Note {
                kind: Kind::Expired { holder: key.holder },
                token: None,
                text: format!(
                    "{}: {}'s lease ran out; the 500 ms tick revoked it and deleted its key (revision {})",
                    self.actor, key.holder, self.revision
                ),
            }
        } else {
            Note {
                kind: Kind::Deleted { holder: key.holder, by },
                token: None,
                text: format!("{}: {by} released the lock (revision {})", self.actor, self.revision),
            }
        };
        // Only the first key held the lock; a waiter leaving changes nothing else.
        if position == 0 || !expired {
            outcome.notes.push(note);
        }
        if position == 0 {
            if let Some(next) = self.keys.first().copied() {
                outcome.notes.push(self.granted(next));
                outcome.sends.push((next.holder, Msg::LockReady { revision: next.revision }));
            }
        }
        true
    }

    fn granted(&self, key: Key) -> Note {
        let expires_at_us = self.leases.iter().find(|lease| lease.id == key.lease).map_or(0, |lease| lease.expires_us);
        Note {
            kind: Kind::Granted { holder: key.holder, expires_at_us },
            token: Some(key.revision),
            text: format!("{}: {}'s key (revision {}) is first, {} holds the lock", self.actor, key.holder, key.revision, key.holder),
        }
    }

    /// The first 500 ms tick at or after the earliest lease expiry.
    fn next_check_us(&self) -> Option<u64> {
        let earliest = self.leases.iter().map(|lease| lease.expires_us).min()?;
        Some(earliest.div_ceil(EXPIRY_TICK_US) * EXPIRY_TICK_US)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Actor = Actor::Worker(0);
    const B: Actor = Actor::Worker(1);

    fn reply(outcome: &Outcome) -> Msg {
        outcome.sends[0].1.clone()
    }

    #[test]
    fn leases_are_at_least_two_seconds() {
        let mut node = EtcdNode::new(Actor::LockNode(0), 33);
        let outcome = node.handle(0, A, &Msg::LeaseGrant { ttl_ms: 500 });
        assert!(matches!(reply(&outcome), Msg::LeaseGrantReply { ttl_ms: 2_000, .. }));
        assert!(matches!(outcome.notes[0].kind, Kind::LeaseClamped { ttl_ms: 2_000, .. }));
    }

    #[test]
    fn tokens_grow_with_gaps_and_expiry_is_up_to_a_tick_late() {
        let mut node = EtcdNode::new(Actor::LockNode(0), 33);
        let Msg::LeaseGrantReply { lease: a, .. } = reply(&node.handle(200, A, &Msg::LeaseGrant { ttl_ms: 10_000 })) else { panic!() };
        let Msg::LeaseGrantReply { lease: b, .. } = reply(&node.handle(100, B, &Msg::LeaseGrant { ttl_ms: 10_000 })) else { panic!() };
        assert_eq!(reply(&node.handle(200, A, &Msg::PutLock { lease: a })), Msg::PutReply { revision: 33, owner: true });
        let put_b = node.handle(300, B, &Msg::PutLock { lease: b });
        assert_eq!(reply(&put_b), Msg::PutReply { revision: 34, owner: false });
        // A's lease runs out at 10.0002 s; the tick at 10.5 s revokes it.
        assert_eq!(node.next_check_us(), Some(10_500_000));
        node.handle(5_000_000, B, &Msg::Renew { value: b, ttl_ms: 10_000 });
        let expired = node.expire(10_500_000);
        assert_eq!(expired.notes[0].kind, Kind::Expired { holder: A });
        assert_eq!(expired.sends, vec![(B, Msg::LockReady { revision: 34 })]);
        // The delete took revision 35: a third contender's token jumps to 36.
        let Msg::LeaseGrantReply { lease: c, .. } = reply(&node.handle(11_000_000, A, &Msg::LeaseGrant { ttl_ms: 10_000 })) else {
            panic!()
        };
        assert_eq!(reply(&node.handle(11_000_000, A, &Msg::PutLock { lease: c })), Msg::PutReply { revision: 36, owner: false });
    }
}
