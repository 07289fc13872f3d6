//! What the two replicated families share: a leader (Sentinel's primary, or
//! the consensus leader) that can die or be cut off, the time the service
//! takes to notice, and the promotion or election that replaces it. Each
//! family says who may take over and what taking over does (`Led`).

use super::super::{Due, World};
use super::Progress;
use crate::actor::Actor;

/// The leader as a replicated service keeps it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Leadership {
    /// Redis failover: the primary; consensus: the leader.
    pub primary: u8,
    /// How many times the primary (or leader) died; a crash ends a life.
    pub epoch: u32,
    /// No primary or leader answers until a promotion or election.
    pub leaderless: bool,
    /// A promotion found no candidate; the next node back triggers another.
    pub stalled: bool,
    /// A promotion or election is armed (`election_in`).
    pub election_due: bool,
}

impl Leadership {
    /// L1 leads as a run starts.
    pub(super) fn new() -> Leadership {
        Leadership { primary: 0, epoch: 0, leaderless: false, stalled: false, election_due: false }
    }

    /// The leader died (or gave up): its life ends, nobody leads, and a
    /// promotion is due after the service's leader-loss time.
    pub(super) fn lost(&mut self, world: &mut World) {
        self.epoch += 1;
        self.leaderless = true;
        world.queue.push(world.now_us + world.leader_loss_ms() * 1000, Due::Promote);
    }

    /// Node `node` went down: the leader's death ends its life (`lost`);
    /// any other node's lease on it dies with it (`super::lease_lost`).
    pub(super) fn node_crashed(&mut self, world: &mut World, node: u8, lost: Option<Actor>, was_serving: bool) {
        if node == self.primary {
            self.lost(world);
        } else {
            super::lease_lost(world, node, lost, was_serving);
        }
    }

    /// Arms a promotion or election `after_ms` from now, unless one is due.
    pub(super) fn election_in(&mut self, world: &mut World, after_ms: u64) {
        if !self.election_due {
            self.election_due = true;
            world.queue.push(world.now_us + after_ms * 1000, Due::Promote);
        }
    }

    /// The end of a node's return: a stalled promotion is tried again, and
    /// the node and the leader check their leases.
    pub(super) fn node_back(&mut self, world: &mut World, node: u8) {
        if self.leaderless && self.stalled {
            // Nobody could take over before; this node's return may let it.
            self.stalled = false;
            world.queue.push(world.now_us + world.leader_loss_ms() * 1000, Due::Promote);
        }
        // Its return may give the leader its majority back: check both.
        world.schedule_check(node, world.now_us);
        world.schedule_check(self.primary, world.now_us);
    }

    /// A leader's life only moves on, and the leader is one of the nodes.
    pub(super) fn check(&self, world: &World, before: Progress) {
        crate::invariant!(self.epoch >= before.epoch, "the primary's life went back: {} -> {}", before.epoch, self.epoch);
        crate::invariant!(usize::from(self.primary) < world.nodes.len(), "primary L{} of {} nodes", self.primary + 1, world.nodes.len());
        crate::invariant!(!self.election_due || !world.queue.is_empty(), "an election is due and nothing is queued");
    }
}

/// A replicated family's part in a promotion or election.
pub(super) trait Led {
    fn lead(&mut self) -> &mut Leadership;
    /// The leader is alive but out of reach for the service's leader-loss
    /// time: whether that ends its leadership (and if so, ends it).
    fn out_of_reach(&mut self, world: &mut World) -> bool;
    /// Who takes over from `old`, if anyone may now.
    fn candidate(&self, world: &World, old: u8) -> Option<u8>;
    /// `node` has just taken over.
    fn took_over(&mut self, world: &mut World, node: u8);
}

/// Sentinel promotes the replica, or the live members elect a leader.
/// Nobody can take over without a live candidate (and, for consensus, a
/// majority): then the service stays leaderless until a node returns.
pub(super) fn promote<F: Led>(mut family: F, world: &mut World) -> F {
    family.lead().election_due = false;
    if !family.lead().leaderless && !family.out_of_reach(world) {
        return family;
    }
    let old = family.lead().primary;
    let Some(node) = family.candidate(world, old) else {
        family.lead().stalled = true;
        return family;
    };
    let lead = family.lead();
    lead.primary = node;
    lead.leaderless = false;
    family.took_over(world, node);
    world.schedule_check(node, world.now_us);
    family
}
