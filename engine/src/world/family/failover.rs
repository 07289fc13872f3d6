//! The Redis failover family: a primary, an asynchronously replicated
//! replica, and Sentinel promoting the replica.
//!
//! Redis Sentinel promotes the replica when it has not seen the primary for
//! its `down-after` time (`failover_ms` here), whether the primary crashed
//! or was only cut off. The model's Sentinels run beside the replica (the
//! node that starts as L2), so they see whatever it sees. A primary that
//! was only cut off goes on as a primary for the clients that still reach
//! it, so there are two, both granting the lock, until the partition heals
//! and Sentinel demotes the old one, which drops what it wrote meanwhile.

use super::super::nodes::disk_catches_up;
use super::super::{Due, World};
use super::leader::{Leadership, Led};
use super::Progress;
use crate::actor::Actor;
use crate::event::{Kind, NodeRole};
use crate::lock::{Machine, RedisNode, Snapshot};
use crate::scenario::Scenario;

/// Where the model's Sentinels run: beside the node that starts as the
/// replica.
const SENTINEL_HOME: u8 = 1;

pub(in crate::world) struct Failover {
    /// The primary and its replica (which is which is `lead.primary`).
    nodes: Vec<RedisNode>,
    /// Per worker: the node its connection goes to, once it has one.
    connected: Vec<Option<u8>>,
    lead: Leadership,
    /// The old primary Sentinel replaced while it was only cut off; it
    /// answers as a primary until Sentinel sees it again.
    stale_primary: Option<u8>,
}

impl Failover {
    pub(super) fn new(scenario: &Scenario) -> Failover {
        let nodes = (0..scenario.lock_service.nodes()).map(|_| RedisNode::new(scenario.first_token)).collect();
        let connected = vec![None; usize::from(scenario.workers)];
        Failover { nodes, connected, lead: Leadership::new(), stale_primary: None }
    }

    pub(super) fn machine(&mut self, node: u8) -> &mut dyn Machine {
        &mut self.nodes[usize::from(node)]
    }

    /// Node `node`'s disk catches up before it changes (`World::before_change`).
    fn before_change(&mut self, world: &World, node: u8) {
        disk_catches_up(&mut self.nodes[usize::from(node)], world.scenario.redis_persistence, world.now_us);
    }

    pub(super) fn progress(&self) -> Progress {
        Progress { term: 0, epoch: self.lead.epoch }
    }

    /// The leader's invariants, and: a stale primary is one of the two
    /// nodes, and a primary was replaced (a life ended) for it to be stale.
    /// (It can be Sentinel's primary again: promoted back when its successor
    /// dies while it is still cut off.)
    pub(super) fn check(&self, world: &World, before: Progress) {
        self.lead.check(world, before);
        crate::invariant!(
            self.nodes.len() == world.nodes.len()
                && self.stale_primary.is_none_or(|old| usize::from(old) < world.nodes.len() && self.lead.epoch > 0),
            "stale primary {:?} beside primary L{} in life {}",
            self.stale_primary,
            self.lead.primary + 1,
            self.lead.epoch
        );
    }

    /// After a node's outcome: the primary's change goes to the replica.
    pub(super) fn after_outcome(&self, world: &mut World, node: u8) {
        if node == self.lead.primary {
            self.schedule_replication(world);
        }
    }

    fn schedule_replication(&self, world: &mut World) {
        let snapshot = self.nodes[usize::from(self.lead.primary)].snapshot();
        let at_us = world.now_us + world.scenario.replication_lag_ms * 1000;
        world.queue.push(at_us, Due::Replicate { snapshot, epoch: self.lead.epoch });
    }

    /// The primary's change reaches the replica, unless the primary died
    /// first (asynchronous replication: the crash takes it along), the
    /// replica is down (it resynchronises when it is back), or a partition
    /// is between them (the old primary it replaced, still cut off, is no
    /// replica of anyone until Sentinel demotes it).
    pub(super) fn replicate(mut self, world: &mut World, snapshot: Snapshot, epoch: u32) -> Self {
        let other = 1 - self.lead.primary;
        let cut = !world.link_open(Actor::LockNode(self.lead.primary), Actor::LockNode(other));
        if epoch != self.lead.epoch || cut || self.stale_primary == Some(other) {
            return self;
        }
        if world.nodes[usize::from(other)].down {
            return self;
        }
        self.before_change(world, other);
        self.nodes[usize::from(other)].apply(snapshot);
        self
    }

    /// Whether Sentinel sees `node` (up, and in reach of the Sentinels'
    /// home).
    fn sentinel_sees(world: &World, node: u8) -> bool {
        !world.nodes[usize::from(node)].down
            && (node == SENTINEL_HOME || world.link_open(Actor::LockNode(node), Actor::LockNode(SENTINEL_HOME)))
    }

    /// Whether `node` answers as a primary now: Sentinel's primary, or an
    /// old primary that does not know it was replaced.
    pub(super) fn acts_as_primary(&self, world: &World, node: u8) -> bool {
        !world.nodes[usize::from(node)].down && ((node == self.lead.primary && !self.lead.leaderless) || self.stale_primary == Some(node))
    }

    /// Where a request to "the lock service" from `from` goes: a worker's
    /// to the primary it is connected to (`redis_route`); anyone else's to L1.
    pub(super) fn route(&mut self, world: &World, from: Actor) -> Actor {
        match from {
            Actor::Worker(worker) => Actor::LockNode(self.redis_route(world, worker)),
            Actor::LockNode(_) | Actor::Store => Actor::LockNode(0),
        }
    }

    /// The node a worker's request goes to. A client keeps its connection
    /// while the node it is connected to still answers as a primary and is
    /// in reach; otherwise it asks Sentinel, and if it cannot reach the
    /// primary Sentinel names, it takes another primary it can reach (its
    /// configured fallback). The model skips the timeout a real client
    /// waits before it reconnects.
    fn redis_route(&mut self, world: &World, worker: u8) -> u8 {
        let client = Actor::Worker(worker);
        let usable = |node: u8| self.acts_as_primary(world, node) && world.link_open(client, Actor::LockNode(node));
        if let Some(node) = self.connected[usize::from(worker)].filter(|node| usable(*node)) {
            return node;
        }
        let fallback = self.stale_primary.filter(|node| usable(*node) && !usable(self.lead.primary));
        let node = fallback.unwrap_or(self.lead.primary);
        self.connected[usize::from(worker)] = Some(node);
        node
    }

    /// A node went down: an old primary that dies comes back as Sentinel's
    /// replica; the primary's death ends its life and arms a promotion; a
    /// stale primary's lease dies with it.
    pub(super) fn node_crashed(mut self, world: &mut World, node: u8, lost: Option<Actor>, was_serving: bool) -> Self {
        if self.stale_primary == Some(node) {
            self.stale_primary = None;
        }
        self.lead.node_crashed(world, node, lost, was_serving);
        self
    }

    /// A node is back: the primary back before Sentinel gave up on it stays
    /// the primary (with whatever it kept), and the pending promotion
    /// lapses; any other node is the primary's replica and resynchronises.
    pub(super) fn node_restarted(mut self, world: &mut World, node: u8) -> Self {
        if node == self.lead.primary && self.lead.leaderless {
            self.lead.leaderless = false;
        }
        let role = if node != self.lead.primary { NodeRole::Replica } else { NodeRole::Serving };
        self.catch_up(world, node);
        world.log(Actor::LockNode(node), Kind::NodeUp { role }, None);
        self.lead.node_back(world, node);
        self
    }

    /// A replica back from a crash resynchronises from the primary, if it
    /// reaches it (otherwise when the partition heals: Sentinel demotes it).
    fn catch_up(&mut self, world: &mut World, node: u8) {
        let primary = self.lead.primary;
        if node == primary || self.lead.leaderless || !world.link_open(Actor::LockNode(primary), Actor::LockNode(node)) {
            return;
        }
        self.before_change(world, node);
        let snapshot = self.nodes[usize::from(primary)].snapshot();
        self.nodes[usize::from(node)].apply(snapshot);
    }

    /// A partition began or ended: Sentinel arms a promotion when it stops
    /// seeing the primary, and demotes an old primary it sees again.
    pub(super) fn reach_changed(mut self, world: &mut World) -> Self {
        if !self.lead.leaderless && !Self::sentinel_sees(world, self.lead.primary) {
            self.lead.election_in(world, world.scenario.failover_ms);
        }
        if let Some(old) = self.stale_primary.filter(|old| Self::sentinel_sees(world, *old)) {
            self.demote(world, old);
        }
        self
    }

    /// Sentinel sees the old primary again and makes it a replica of the
    /// new one: it copies the new primary's data and drops its own, the lock
    /// it granted meanwhile included.
    fn demote(&mut self, world: &mut World, old: u8) {
        self.stale_primary = None;
        let snapshot = self.nodes[usize::from(self.lead.primary)].snapshot();
        self.before_change(world, old);
        let replica = &mut self.nodes[usize::from(old)];
        let held = replica.lease().map(|lease| lease.holder);
        replica.apply(snapshot);
        let kept = replica.lease().map(|lease| lease.holder);
        let dropped = held.filter(|holder| Some(*holder) != kept);
        world.log(Actor::LockNode(old), Kind::Demoted { dropped }, None);
    }
}

impl Led for Failover {
    fn lead(&mut self) -> &mut Leadership {
        &mut self.lead
    }

    /// The primary, alive but unseen by Sentinel for `down-after`, is
    /// replaced: it goes on for whoever still reaches it, as a stale primary.
    fn out_of_reach(&mut self, world: &mut World) -> bool {
        let old = self.lead.primary;
        if Self::sentinel_sees(world, old) {
            return false;
        }
        self.stale_primary = Some(old);
        self.lead.leaderless = true;
        self.lead.epoch += 1;
        true
    }

    /// Sentinel promotes the live replica.
    fn candidate(&self, world: &World, old: u8) -> Option<u8> {
        (0..world.scenario.lock_service.nodes()).find(|node| *node != old && !world.nodes[usize::from(*node)].down)
    }

    /// Sentinel's promotion: whatever the old primary had not passed on —
    /// the lock, the last `INCR` — is gone.
    fn took_over(&mut self, world: &mut World, node: u8) {
        let actor = Actor::LockNode(node);
        let crashed_holder = world.history.lease_holder();
        let kept = self.nodes[usize::from(node)].lease().map(|lease| lease.holder);
        world.log(actor, Kind::Promoted { kept }, None);
        if let Some(holder) = crashed_holder.filter(|holder| Some(*holder) != kept) {
            world.log(actor, Kind::LeaseLost { holder }, None);
        }
    }
}
