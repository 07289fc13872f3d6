//! The lock service's side of the world: node outcomes, expiry checks,
//! Redis replication and failover, node crashes, clock jumps, and Redlock's
//! majority, which no single node knows about.

use super::{Due, World};
use crate::actor::Actor;
use crate::event::Kind;
use crate::lock::{LockNode, Note, Outcome, Snapshot};
use crate::scenario::{LockService, REDLOCK_QUORUM};

impl World<'_> {
    /// Logs a node's notes, sends its messages, schedules its next expiry
    /// check, and keeps replication and Redlock's majority up to date.
    pub(super) fn node_outcome(&mut self, node: u8, outcome: Outcome) {
        let actor = Actor::LockNode(node);
        let redlock = self.scenario.lock_service == LockService::Redlock;
        let deleted_by = outcome.notes.iter().find_map(|note| match note.kind {
            Kind::Deleted { by, .. } => Some(by),
            _ => None,
        });
        for note in outcome.notes {
            let note = if redlock { as_vote(note) } else { note };
            self.log(actor, note.kind, note.token, note.text);
        }
        if let Some(at_us) = outcome.check_at_us {
            self.queue.push(at_us.max(self.now_us), Due::ExpiryCheck { node });
        }
        for (to, msg) in outcome.sends {
            self.send(actor, to, msg);
        }
        if redlock {
            self.recount_majority(actor, deleted_by);
        }
        if self.scenario.lock_service == LockService::RedisFailover && node == self.primary {
            self.schedule_replication();
        }
    }

    pub(super) fn expiry_check(&mut self, node: u8) {
        if self.nodes[usize::from(node)].down {
            return;
        }
        let outcome = self.nodes[usize::from(node)].node.expire(self.now_us);
        // Re-arming is only needed when something changed or is still pending.
        let rearm = !outcome.notes.is_empty() || !outcome.sends.is_empty();
        let outcome = Outcome { check_at_us: if rearm { outcome.check_at_us } else { None }, ..outcome };
        self.node_outcome(node, outcome);
    }

    /// Redlock: the lock belongs to whoever holds a majority of masters.
    /// Log the moment a majority forms or breaks, as the lock service's view;
    /// `deleted_by` is whoever deleted a key just now, if anyone did.
    fn recount_majority(&mut self, actor: Actor, deleted_by: Option<Actor>) {
        let mut counts: Vec<(u64, Actor, u8)> = Vec::new();
        for slot in &mut self.nodes {
            let Some(lease) = slot.node.redis().and_then(|node| node.lease()) else { continue };
            if slot.down {
                continue;
            }
            match counts.iter_mut().find(|(value, _, _)| *value == lease.value) {
                Some(entry) => entry.2 += 1,
                None => counts.push((lease.value, lease.holder, 1)),
            }
        }
        let now = counts.iter().find(|(_, _, count)| *count >= REDLOCK_QUORUM).map(|(value, holder, _)| (*value, *holder));
        if now == self.majority {
            return;
        }
        if let Some((_, holder)) = self.majority.take() {
            let (kind, text) = match deleted_by {
                Some(by) if by == holder => (Kind::Deleted { holder, by }, format!("{holder} released its masters: the lock is free")),
                Some(by) => (
                    Kind::Deleted { holder, by },
                    format!("{by}'s plain DEL broke {holder}'s majority: the lock is free while {holder} still works"),
                ),
                _ => (Kind::Expired { holder }, format!("{holder} no longer holds a majority of masters: the lock is free")),
            };
            self.log(actor, kind, None, text);
        }
        if let Some((value, holder)) = now {
            self.majority = Some((value, holder));
            let text = format!("{holder} now holds {REDLOCK_QUORUM} of 5 masters: the lock is {holder}'s");
            self.log(actor, Kind::Granted { holder, expires_at_us: self.now_us + self.scenario.ttl_ms * 1000 }, None, text);
        }
    }

    fn schedule_replication(&mut self) {
        let Some(primary) = self.nodes[usize::from(self.primary)].node.redis() else { return };
        let snapshot = primary.snapshot();
        let at_us = self.now_us + self.scenario.replication_lag_ms * 1000;
        self.queue.push(at_us, Due::Replicate { snapshot, epoch: self.primary_epoch });
    }

    /// The primary's change reaches the replica, unless the primary died
    /// first (asynchronous replication: the crash takes it along).
    pub(super) fn replicate(&mut self, snapshot: Snapshot, epoch: u32) {
        if epoch != self.primary_epoch || self.primary != 0 {
            return;
        }
        if let Some(replica) = self.nodes[1].node.redis() {
            replica.apply(snapshot);
        }
    }

    pub(super) fn node_crash(&mut self, node: u8, down_ms: u64) {
        let actor = Actor::LockNode(node);
        let slot = &mut self.nodes[usize::from(node)];
        if slot.down {
            return;
        }
        slot.down = true;
        let held = slot.node.redis().and_then(|redis| redis.lease());
        let persists = matches!(slot.node, LockNode::Etcd(_));
        if !persists {
            slot.node.wipe();
        }
        let memory = if persists { "its log is on disk" } else { "everything it held in memory is gone" };
        self.log(actor, Kind::NodeDown, None, format!("{actor} crashed: {memory}"));
        let failover = self.scenario.lock_service == LockService::RedisFailover && node == self.primary;
        if failover {
            self.primary_epoch += 1;
            self.queue.push(self.now_us + self.scenario.failover_ms * 1000, Due::Promote);
        } else if let Some(lease) = held {
            self.lost_with_node(actor, lease.holder);
        }
        self.queue.push(self.now_us + down_ms * 1000, Due::NodeRestart { node });
    }

    fn lost_with_node(&mut self, actor: Actor, holder: Actor) {
        if self.scenario.lock_service == LockService::Redlock {
            self.recount_majority(actor, None);
        } else {
            let text = format!("{holder}'s lease vanished with {actor}'s memory: the lock is free");
            self.log(actor, Kind::LeaseLost { holder }, None, text);
        }
    }

    pub(super) fn node_restart(&mut self, node: u8) {
        let actor = Actor::LockNode(node);
        self.nodes[usize::from(node)].down = false;
        let role = if self.scenario.lock_service == LockService::RedisFailover && node != self.primary {
            "as a replica nobody asks"
        } else {
            "and answers again"
        };
        self.log(actor, Kind::NodeUp, None, format!("{actor} is back {role}"));
        self.queue.push(self.now_us, Due::ExpiryCheck { node });
    }

    /// Sentinel promotes the replica. Whatever the old primary had not
    /// passed on — the lock, the token counter — is gone.
    pub(super) fn promote(&mut self) {
        let old = Actor::LockNode(self.primary);
        let crashed_holder = self.observer.lease_holder();
        self.primary = 1;
        let actor = Actor::LockNode(1);
        let kept = self.nodes[1].node.redis().and_then(|node| node.lease()).map(|lease| lease.holder);
        let text = match kept {
            Some(holder) => format!("{actor} was promoted to primary; it had {holder}'s lock from replication"),
            None => format!("{actor} was promoted to primary; it never saw {old}'s last writes"),
        };
        self.log(actor, Kind::NodeUp, None, text);
        if let Some(holder) = crashed_holder.filter(|holder| Some(*holder) != kept) {
            let text = format!("{holder}'s lease did not survive the failover: the lock is free");
            self.log(actor, Kind::LeaseLost { holder }, None, text);
        }
        self.queue.push(self.now_us, Due::ExpiryCheck { node: 1 });
    }

    pub(super) fn clock_jump(&mut self, node: u8, jump_ms: i64) {
        let actor = Actor::LockNode(node);
        if let Some(redis) = self.nodes[usize::from(node)].node.redis() {
            redis.clock.jump(jump_ms);
        }
        let text = format!(
            "{actor}'s clock jumped {} {}",
            if jump_ms >= 0 { "ahead" } else { "back" },
            crate::format_us(jump_ms.unsigned_abs() * 1000)
        );
        self.log(actor, Kind::ClockJumped { jump_ms }, None, text);
        self.queue.push(self.now_us, Due::ExpiryCheck { node });
    }
}

/// On a Redlock master, a grant or an expiry is one vote, not the lock.
fn as_vote(note: Note) -> Note {
    let kind = match note.kind {
        Kind::Granted { holder, .. } => Kind::Voted { holder },
        Kind::Expired { holder } | Kind::Deleted { holder, .. } => Kind::Unvoted { holder },
        other => other,
    };
    Note { kind, ..note }
}
