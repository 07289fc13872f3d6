//! No lock service: the store's conditional write keeps writers apart. The
//! world has no node of it to drive; its workers read a version, write
//! against it and start over when someone else wrote first.

use super::super::World;

/// No lock service has no nodes.
pub(super) fn check(world: &World) {
    crate::invariant!(world.nodes.is_empty(), "no lock service, yet {} nodes", world.nodes.len());
}

/// A node's fault struck a service that has none (validation refuses it).
pub(super) fn no_node(node: u8) {
    crate::invariant!(false, "L{} of no lock service", node + 1);
}
