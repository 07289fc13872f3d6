//! The lock service's side of the world: node outcomes, expiry checks and
//! clock jumps. What follows a node's outcome in each family (replication,
//! a consensus commit, Redlock's majority) is in `family/`; crashes and
//! restarts in `crash.rs`.

use super::{Due, World};
use crate::actor::Actor;
use crate::event::Kind;
use crate::lock::{Machine, Outcome};
use crate::scenario::RedisPersistence;

impl World<'_> {
    /// Logs a node's notes, sends its messages, schedules its next expiry
    /// check, and hands over to the family (`World::after_outcome`).
    /// Takes the outcome buffer back afterwards, emptied, for the next one.
    pub(super) fn node_outcome(&mut self, node: u8, mut outcome: Outcome) {
        let actor = Actor::LockNode(node);
        let deleted_by = outcome.notes.iter().find_map(|note| match note.kind {
            Kind::Deleted { by, .. } => Some(by),
            _ => None,
        });
        for note in outcome.notes.drain(..) {
            let note = self.cluster.note(note);
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
        self.after_outcome(node, deleted_by);
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
        disk_catches_up(self.cluster.machine(node), self.scenario.redis_persistence, self.now_us);
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
        self.cluster.machine(node).expire(self.now_us, &mut outcome);
        self.node_outcome(node, outcome);
    }

    pub(super) fn clock_jump(&mut self, node: u8, jump_ms: i64) {
        self.cluster.machine(node).clock_mut().jump(jump_ms);
        self.log(Actor::LockNode(node), Kind::ClockJumped { jump_ms }, None);
        self.schedule_check(node, self.now_us);
    }
}

/// `World::before_change` for a node its family holds while the world does
/// not (a family's hook).
pub(super) fn disk_catches_up(machine: &mut dyn Machine, persistence: RedisPersistence, now_us: u64) {
    let Some(period_us) = persistence.period_us() else { return };
    machine.sync_disk(now_us, period_us);
}
