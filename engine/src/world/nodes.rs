//! The lock service's side of the world: node outcomes, expiry checks,
//! clock jumps, consensus replication, and Redlock's majority, which no
//! single node knows about. Crashes, restarts, promotions and elections are
//! in `failover.rs`.

use super::{Due, NodeSlot, World};
use crate::actor::Actor;
use crate::event::Kind;
use crate::lock::{LockNode, Note, Outcome};
use crate::scenario::REDLOCK_QUORUM;
use crate::services::Family;

impl World<'_> {
    /// Logs a node's notes, sends its messages, schedules its next expiry
    /// check, and keeps replication and Redlock's majority up to date.
    /// Takes the outcome buffer back afterwards, emptied, for the next one.
    pub(super) fn node_outcome(&mut self, node: u8, mut outcome: Outcome) {
        let actor = Actor::LockNode(node);
        let redlock = self.scenario.lock_service.family() == Family::Redlock;
        let deleted_by = outcome.notes.iter().find_map(|note| match note.kind {
            Kind::Deleted { by, .. } => Some(by),
            _ => None,
        });
        for note in outcome.notes.drain(..) {
            let note = if redlock { as_vote(note) } else { note };
            self.log(actor, note.kind, note.token);
        }
        if let Some(at_us) = outcome.check_at_us {
            self.schedule_check(node, at_us);
        }
        for (to, req, msg) in outcome.sends.drain(..) {
            self.send(actor, to, req, msg);
        }
        outcome.clear();
        self.outcome = outcome;
        match self.scenario.lock_service.family() {
            Family::Redlock => self.recount_majority(actor, deleted_by),
            Family::RedisFailover if node == self.primary => self.schedule_replication(),
            Family::Consensus => self.commit_to_followers(node),
            _ => {}
        }
    }

    /// Arms the node's next expiry check, unless one is due no later: one
    /// pending check per node, however often leases are granted or renewed.
    pub(super) fn schedule_check(&mut self, node: u8, at_us: u64) {
        let at_us = at_us.max(self.now_us);
        let slot = &mut self.nodes[usize::from(node)];
        // One pending check per node, never in the past.
        crate::invariant!(slot.check_at_us.is_none_or(|due_us| due_us >= self.now_us), "L{}'s expiry check was missed", node + 1);
        if slot.check_at_us.is_some_and(|due_us| due_us <= at_us) {
            return;
        }
        slot.check_at_us = Some(at_us);
        self.queue.push(at_us, Due::ExpiryCheck { node });
    }

    /// A Redis node's state is about to change: its disk first catches up
    /// with any snapshot or fsync that fell since the last change (nothing
    /// to do for a node that keeps everything or nothing).
    pub(super) fn before_change(&mut self, node: u8) {
        let Some(period_us) = self.scenario.redis_persistence.period_us() else { return };
        let now_us = self.now_us;
        if let Some(redis) = self.nodes[usize::from(node)].node.redis() {
            redis.sync_disk(now_us, period_us);
        }
    }

    pub(super) fn expiry_check(&mut self, node: u8) {
        let slot = &mut self.nodes[usize::from(node)];
        if slot.check_at_us != Some(self.now_us) {
            // Superseded by an earlier check, which re-armed what it needed.
            return;
        }
        slot.check_at_us = None;
        if !self.serving(node) {
            return;
        }
        self.before_change(node);
        let mut outcome = std::mem::take(&mut self.outcome);
        self.nodes[usize::from(node)].node.expire(self.now_us, &mut outcome);
        self.node_outcome(node, outcome);
    }

    /// Whether this node is the one that answers for the lock now: any live
    /// Redis or Redlock node; the live primary after a failover; the
    /// consensus leader while a majority is up.
    pub(super) fn serving(&self, node: u8) -> bool {
        if self.nodes[usize::from(node)].down {
            return false;
        }
        match self.scenario.lock_service.family() {
            Family::RedisFailover => self.acts_as_primary(node),
            Family::Consensus => self.consensus_serving(node),
            _ => true,
        }
    }

    /// Consensus: a change the leader made is committed on every live
    /// member it reaches before anyone hears of it (the model folds Raft's
    /// round into the message latency); a member out of its reach falls
    /// behind and catches up once back.
    pub(super) fn commit_to_followers(&mut self, leader: u8) {
        // A leader without a majority commits nothing (what it did alone,
        // renewing a lease, stays in its own memory).
        if leader != self.primary || !self.has_majority(leader) {
            return;
        }
        crate::invariant!(!self.leaderless, "L{} committed while the cluster had no leader", leader + 1);
        let Some(state) = self.nodes[usize::from(leader)].node.etcd().map(|node| node.clone()) else { return };
        for index in 0..self.nodes.len() {
            let reached = self.link_open(Actor::LockNode(leader), Actor::LockNode(index as u8));
            let slot = &mut self.nodes[index];
            if index == usize::from(leader) || slot.down {
                continue;
            }
            if !reached {
                slot.behind = true;
            } else if let Some(member) = slot.node.etcd() {
                member.follow(&state);
                slot.behind = false;
            }
        }
    }

    /// Redlock: the lock belongs to whoever holds a majority of masters.
    /// Log the moment a majority forms or breaks, as the lock service's view;
    /// `deleted_by` is whoever deleted a key just now, if anyone did.
    pub(super) fn recount_majority(&mut self, actor: Actor, deleted_by: Option<Actor>) {
        let now = self.majority_now();
        if now == self.majority {
            return;
        }
        if let Some((_, holder)) = self.majority.take() {
            let kind = match deleted_by {
                Some(by) => Kind::Deleted { holder, by, revision: None },
                None => Kind::Expired { holder, revision: None },
            };
            self.log(actor, kind, None);
        }
        if let Some((value, holder)) = now {
            self.majority = Some((value, holder));
            let expires_at_us = self.now_us + self.scenario.ttl_ms * 1000;
            self.log(actor, Kind::Granted { holder, expires_at_us }, None);
        }
    }

    /// The value and holder whose keys stand on a majority of the live
    /// masters, if any (only one can). Counted in place: this runs after
    /// every Redlock command, and a list per command would be an allocation.
    fn majority_now(&self) -> Option<(u64, Actor)> {
        let live_lease = |slot: &NodeSlot| match &slot.node {
            LockNode::Redis(node) if !slot.down => node.lease(),
            _ => None,
        };
        let holding = |value: u64| self.nodes.iter().filter_map(live_lease).filter(|lease| lease.value == value).count();
        let lease = self.nodes.iter().filter_map(live_lease).find(|lease| holding(lease.value) >= usize::from(REDLOCK_QUORUM))?;
        // A majority is the lock: no two values hold one at once.
        let others = self.nodes.iter().filter_map(live_lease).filter(|other| other.value != lease.value).count();
        crate::invariant!(
            others < usize::from(REDLOCK_QUORUM),
            "two Redlock values hold a majority ({:?} and {others} others)",
            lease.holder
        );
        Some((lease.value, lease.holder))
    }

    pub(super) fn clock_jump(&mut self, node: u8, jump_ms: i64) {
        self.nodes[usize::from(node)].node.clock_mut().jump(jump_ms);
        self.log(Actor::LockNode(node), Kind::ClockJumped { jump_ms }, None);
        self.schedule_check(node, self.now_us);
    }
}

/// On a Redlock master, a grant or an expiry is one vote, not the lock.
fn as_vote(note: Note) -> Note {
    let kind = match note.kind {
        Kind::Granted { holder, .. } => Kind::Voted { holder },
        Kind::Expired { holder, .. } | Kind::Deleted { holder, .. } => Kind::Unvoted { holder },
        other => other,
    };
    Note { kind, ..note }
}
