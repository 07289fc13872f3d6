//! A Redis lock node: one key with an expiry, one counter for tokens. Like a
//! real Redis it answers one command at a time, so each command is atomic, but
//! `SET NX` and `INCR` are two commands: nothing ties the token to the lease.

use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::{short_value, Msg};

/// The lease as the node stores it. Expiry is in the node's own clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lease {
    value: u64,
    holder: Actor,
    expires_node_us: u64,
}

/// A note for the trace from the lock service's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub kind: Kind,
    pub token: Option<u64>,
    pub text: String,
}

/// What handling one command produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub reply: Msg,
    pub notes: Vec<Note>,
    /// Real time at which the current lease would expire, for the world to
    /// schedule an expiry check.
    pub expiry_check_at_us: Option<u64>,
}

pub struct RedisNode {
    actor: Actor,
    lease: Option<Lease>,
    counter: u64,
}

impl RedisNode {
    pub fn new(actor: Actor, first_token: u64) -> RedisNode {
        RedisNode { actor, lease: None, counter: first_token - 1 }
    }

    /// The node's clock; drift and jumps come with the fault model.
    fn clock_us(&self, now_us: u64) -> u64 {
        now_us
    }

    /// Real time at which the node's clock reads `node_us`.
    fn real_us(&self, node_us: u64) -> u64 {
        node_us
    }

    /// Deletes the lease if its time is up, as Redis does lazily on access
    /// and actively in the background.
    pub fn expire(&mut self, now_us: u64) -> Option<Note> {
        let lease = self.lease?;
        if self.clock_us(now_us) < lease.expires_node_us {
            return None;
        }
        self.lease = None;
        Some(Note {
            kind: Kind::Expired { holder: lease.holder },
            token: None,
            text: format!("{}'s lease expired: the lock is free", lease.holder),
        })
    }

    pub fn handle(&mut self, now_us: u64, from: Actor, msg: &Msg) -> Outcome {
        let mut notes: Vec<Note> = self.expire(now_us).into_iter().collect();
        let mut expiry_check_at_us = None;
        let reply = match *msg {
            Msg::SetNx { value, ttl_ms } => match self.lease {
                Some(lease) => {
                    notes.push(Note {
                        kind: Kind::Denied { holder: lease.holder },
                        token: None,
                        text: format!("{} refused {from}: {} holds the lock", self.actor, lease.holder),
                    });
                    Msg::SetReply { ok: false }
                }
                None => {
                    let expires_node_us = self.clock_us(now_us) + ttl_ms * 1000;
                    self.lease = Some(Lease { value, holder: from, expires_node_us });
                    let expires_at_us = self.real_us(expires_node_us);
                    expiry_check_at_us = Some(expires_at_us);
                    notes.push(Note {
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
            },
            Msg::Incr => {
                self.counter += 1;
                notes.push(Note {
                    kind: Kind::TokenIssued,
                    token: Some(self.counter),
                    text: format!("{} counted the fencing token up to {} for {from}", self.actor, self.counter),
                });
                Msg::IncrReply { value: self.counter }
            }
            Msg::Renew { value, ttl_ms } => match self.lease {
                Some(lease) if lease.value == value => {
                    let expires_node_us = self.clock_us(now_us) + ttl_ms * 1000;
                    self.lease = Some(Lease { expires_node_us, ..lease });
                    let expires_at_us = self.real_us(expires_node_us);
                    expiry_check_at_us = Some(expires_at_us);
                    notes.push(Note {
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
                    notes.push(self.delete(lease, from));
                    Msg::ReleaseReply { deleted: true }
                }
                _ => Msg::ReleaseReply { deleted: false },
            },
            Msg::Del => match self.lease {
                Some(lease) => {
                    notes.push(self.delete(lease, from));
                    Msg::ReleaseReply { deleted: true }
                }
                None => Msg::ReleaseReply { deleted: false },
            },
            ref other => unreachable!("a lock node never receives {other:?}"),
        };
        Outcome { reply, notes, expiry_check_at_us }
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

    #[test]
    fn set_nx_px_grants_once_until_expiry() {
        let mut node = RedisNode::new(Actor::LockNode(0), 33);
        let granted = node.handle(0, A, &Msg::SetNx { value: 1, ttl_ms: 10 });
        assert_eq!(granted.reply, Msg::SetReply { ok: true });
        assert_eq!(granted.expiry_check_at_us, Some(10_000));
        assert_eq!(node.handle(9_999, B, &Msg::SetNx { value: 2, ttl_ms: 10 }).reply, Msg::SetReply { ok: false });
        assert_eq!(node.handle(10_000, B, &Msg::SetNx { value: 2, ttl_ms: 10 }).reply, Msg::SetReply { ok: true });
    }

    #[test]
    fn tokens_count_up_from_the_first() {
        let mut node = RedisNode::new(Actor::LockNode(0), 33);
        assert_eq!(node.handle(0, A, &Msg::Incr).reply, Msg::IncrReply { value: 33 });
        assert_eq!(node.handle(0, B, &Msg::Incr).reply, Msg::IncrReply { value: 34 });
    }

    #[test]
    fn compare_and_delete_spares_a_successor_but_del_does_not() {
        let mut node = RedisNode::new(Actor::LockNode(0), 1);
        node.handle(0, A, &Msg::SetNx { value: 1, ttl_ms: 10 });
        node.handle(20_000, B, &Msg::SetNx { value: 2, ttl_ms: 10 });
        assert_eq!(node.handle(20_001, A, &Msg::ReleaseCad { value: 1 }).reply, Msg::ReleaseReply { deleted: false });
        let naive = node.handle(20_002, A, &Msg::Del);
        assert_eq!(naive.reply, Msg::ReleaseReply { deleted: true });
        assert_eq!(naive.notes[0].kind, Kind::Deleted { holder: B, by: A });
    }
}
