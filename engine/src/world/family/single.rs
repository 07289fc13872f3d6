//! The single-Redis family (Redis, and Redisson's fenced lock on one
//! Redis): one node that answers for the lock whenever it is up. Redlock's
//! masters come back the same way (`node_restarted`).

use super::super::World;
use crate::actor::Actor;
use crate::event::{Kind, NodeRole};
use crate::lock::{Machine, RedisNode};
use crate::scenario::Scenario;

/// The one Redis node.
pub(in crate::world) struct Single {
    node: RedisNode,
}

impl Single {
    pub(super) fn new(scenario: &Scenario) -> Single {
        Single { node: RedisNode::new(scenario.first_token) }
    }

    pub(super) fn machine(&mut self, node: u8) -> &mut dyn Machine {
        crate::invariant!(node == 0, "L{} of a single Redis", node + 1);
        &mut self.node
    }

    /// One node, nothing else to hold.
    pub(super) fn check(&self, world: &World) {
        crate::invariant!(world.nodes.len() == 1, "a single Redis on {} nodes", world.nodes.len());
    }
}

/// The node went down: the lease it did not keep is lost.
pub(super) fn node_crashed(world: &mut World, node: u8, lost: Option<Actor>, was_serving: bool) {
    super::lease_lost(world, node, lost, was_serving);
}

/// A node with no leader to follow is back, serving at once. It checks its
/// leases, and so does L1, as the replicated families' leader does (L1's
/// check is kept for the single node's and Redlock's runs to stay as they
/// were: an extra check at this instant can expire a lease sooner).
pub(super) fn node_restarted(world: &mut World, node: u8) {
    world.log(Actor::LockNode(node), Kind::NodeUp { role: NodeRole::Serving }, None);
    world.schedule_check(node, world.now_us);
    world.schedule_check(0, world.now_us);
}
