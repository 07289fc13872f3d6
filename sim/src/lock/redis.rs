//! A Redis lock node: one key with an expiry, one counter for tokens. Like a
//! real Redis it runs one command at a time, so each command is atomic, but
//! `SET NX` and `INCR` are two commands: nothing ties the token to the lease.

use super::{NodeClock, Note, Outcome};
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::{short_value, Msg};

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
    actor: Actor,
    lease: Option<Lease>,
    counter: u64,
    pub clock: NodeClock,
}

impl RedisNode {
    pub fn new(actor: Actor, first_token: u64) -> RedisNode {
        RedisNode { actor, lease: None, counter: first_token - 1, clock: NodeClock::default() }
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

    /// Deletes the lease if its time is up by this node's clock, as Redis
    /// does lazily on access and actively in the background.
    pub fn expire(&mut self, now_us: u64) -> Outcome {
        let mut outcome = Outcome::default();
        if let Some(lease) = self.lease {
            if self.clock.read_us(now_us) >= lease.expires_node_us {
                self.lease = None;
                outcome.notes.push(Note {
                    kind: Kind::Expired { holder: lease.holder },
                    token: None,
                    text: format!("{}: {}'s lease expired, the lock is free", self.actor, lease.holder),
                });
            } else {
                outcome.check_at_us = Some(self.clock.real_at_us(lease.expires_node_us, now_us));
            }
        }
        outcome
    }

    pub fn handle(&mut self, now_us: u64, from: Actor, msg: &Msg) -> Outcome {
        let mut outcome = self.expire(now_us);
        let reply = match *msg {
            Msg::SetNx { value, ttl_ms } => self.set_nx(now_us, from, value, ttl_ms, &mut outcome),
            Msg::Incr => {
                self.counter += 1;
                outcome.notes.push(Note {
                    kind: Kind::TokenIssued,
                    token: Some(self.counter),
                    text: format!("{} counted the fencing token up to {} for {from}", self.actor, self.counter),
                });
                Msg::IncrReply { value: self.counter }
            }
            Msg::Renew { value, ttl_ms } => match self.lease {
                Some(lease) if lease.value == value => {
                    let expires_node_us = self.clock.read_us(now_us) + ttl_ms * 1000;
                    self.lease = Some(Lease { expires_node_us, ..lease });
                    let expires_at_us = self.clock.real_at_us(expires_node_us, now_us);
                    outcome.check_at_us = Some(expires_at_us);
                    outcome.notes.push(Note {
                        kind: Kind::Renewed { holder: from, expires_at_us },
                        token: None,
                        text: format!("{} extended {from}'s lease until {}", self.actor, crate::format_us(expires_at_us)),
                    });
                    Msg::RenewReply { ok: true }
                }
                _ => Msg::RenewReply { ok: false },
            },
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
            ref other => unreachable!("a Redis node never receives {other:?}"),
        };
        outcome.sends.push((from, reply));
        outcome
    }

    fn set_nx(&mut self, now_us: u64, from: Actor, value: u64, ttl_ms: u64, outcome: &mut Outcome) -> Msg {
        if let Some(lease) = self.lease {
            outcome.notes.push(Note {
                kind: Kind::Denied { holder: lease.holder },
                token: None,
                text: format!("{} refused {from}: {} holds the lock", self.actor, lease.holder),
            });
            return Msg::SetReply { ok: false };
        }
        let expires_node_us = self.clock.read_us(now_us) + ttl_ms * 1000;
        self.lease = Some(Lease { value, holder: from, expires_node_us });
        let expires_at_us = self.clock.real_at_us(expires_node_us, now_us);
        outcome.check_at_us = Some(expires_at_us);
        outcome.notes.push(Note {
            kind: Kind::Granted { holder: from, expires_at_us },
            token: None,
            text: format!(
                "{} granted the lock to {from} (value {}) until {}",
                self.actor,
                short_value(value),
                crate::format_us(expires_at_us)
            ),
        });
        Msg::SetReply { ok: true }
    }

    fn delete(&mut self, lease: Lease, by: Actor) -> Note {
        self.lease = None;
        let text = if lease.holder == by {
            format!("{by} released the lock")
        } else {
            format!("{by}'s plain DEL deleted {}'s lock: the lock is free while {} still works", lease.holder, lease.holder)
        };
        Note { kind: Kind::Deleted { holder: lease.holder, by }, token: None, text }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Actor = Actor::Worker(0);
    const B: Actor = Actor::Worker(1);

    fn reply(outcome: Outcome) -> Msg {
        outcome.sends.into_iter().next().unwrap().1
    }

    #[test]
    fn set_nx_px_grants_once_until_expiry() {
        let mut node = RedisNode::new(Actor::LockNode(0), 33);
        let granted = node.handle(0, A, &Msg::SetNx { value: 1, ttl_ms: 10 });
        assert_eq!(granted.check_at_us, Some(10_000));
        assert_eq!(reply(granted), Msg::SetReply { ok: true });
        assert_eq!(reply(node.handle(9_999, B, &Msg::SetNx { value: 2, ttl_ms: 10 })), Msg::SetReply { ok: false });
        assert_eq!(reply(node.handle(10_000, B, &Msg::SetNx { value: 2, ttl_ms: 10 })), Msg::SetReply { ok: true });
    }

    #[test]
    fn tokens_count_up_from_the_first() {
        let mut node = RedisNode::new(Actor::LockNode(0), 33);
        assert_eq!(reply(node.handle(0, A, &Msg::Incr)), Msg::IncrReply { value: 33 });
        assert_eq!(reply(node.handle(0, B, &Msg::Incr)), Msg::IncrReply { value: 34 });
    }

    #[test]
    fn compare_and_delete_spares_a_successor_but_del_does_not() {
        let mut node = RedisNode::new(Actor::LockNode(0), 1);
        node.handle(0, A, &Msg::SetNx { value: 1, ttl_ms: 10 });
        node.handle(20_000, B, &Msg::SetNx { value: 2, ttl_ms: 10 });
        assert_eq!(reply(node.handle(20_001, A, &Msg::ReleaseCad { value: 1 })), Msg::ReleaseReply { deleted: false });
        let naive = node.handle(20_002, A, &Msg::Del);
        assert_eq!(naive.notes[0].kind, Kind::Deleted { holder: B, by: A });
        assert_eq!(reply(naive), Msg::ReleaseReply { deleted: true });
    }

    #[test]
    fn a_clock_jump_frees_the_lock_early() {
        let mut node = RedisNode::new(Actor::LockNode(0), 1);
        node.handle(0, A, &Msg::SetNx { value: 1, ttl_ms: 10_000 });
        node.clock.jump(9_000);
        assert!(node.expire(999_999).notes.is_empty());
        assert_eq!(node.expire(1_000_000).notes[0].kind, Kind::Expired { holder: A });
    }
}
