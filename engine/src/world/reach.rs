//! The replicated services decide by reachability, not only by who crashed,
//! as real clusters do:
//! - a consensus leader commits only while it reaches a majority of the
//!   members (itself included); cut off from it, it still renews leases in
//!   its own memory (etcd's lessor does, without raft) until it steps down
//!   after an election timeout (etcd runs with CheckQuorum), and a member that
//!   reaches a majority is elected. How long that takes is each service's
//!   own (`SessionRules::leader_loss`): etcd's election timeout (the
//!   scenario's `failover_ms`), ZooKeeper's `syncLimit` × `tickTime`, Consul's
//!   Raft heartbeat timeout × `raft_multiplier`; a member cut off from the leader misses
//!   what it commits and catches up when it is back in reach. The members run
//!   with pre-vote (etcd's default from 3.5; 3.4 takes `--pre-vote`), so one
//!   back from a partition rejoins as a follower without forcing an election;
//! - Redis Sentinel promotes the replica when it has not seen the primary for
//!   its `down-after` time (`failover_ms` here), whether the primary crashed
//!   or was only cut off. The model's Sentinels run beside the replica (the
//!   node that starts as L2), so they see whatever it sees. A primary that
//!   was only cut off goes on as a primary for the clients that still reach
//!   it, so there are two, both granting the lock, until the partition heals
//!   and Sentinel demotes the old one, which drops what it wrote meanwhile.
//!
//! Nothing here runs unless the scenario has a partition: runs without one
//! take exactly the steps they always took.

use super::{Due, World};
use crate::actor::Actor;
use crate::event::{Kind, NodeRole};
use crate::scenario::CONSENSUS_QUORUM;
use crate::services::Family;

/// Where the model's Sentinels run: beside the node that starts as the
/// replica.
const SENTINEL_HOME: u8 = 1;

impl World<'_> {
    /// Consensus: whether `node` is up and reaches a majority of the live
    /// members, itself included.
    pub(super) fn has_majority(&self, node: u8) -> bool {
        if self.nodes[usize::from(node)].down {
            return false;
        }
        let reached = (0..self.scenario.lock_service.nodes())
            .filter(|member| {
                !self.nodes[usize::from(*member)].down
                    && (*member == node || self.link_open(Actor::LockNode(node), Actor::LockNode(*member)))
            })
            .count();
        reached >= usize::from(CONSENSUS_QUORUM)
    }

    /// Redis failover: whether Sentinel sees `node` (up, and in reach of the
    /// Sentinels' home).
    pub(super) fn sentinel_sees(&self, node: u8) -> bool {
        !self.nodes[usize::from(node)].down
            && (node == SENTINEL_HOME || self.link_open(Actor::LockNode(node), Actor::LockNode(SENTINEL_HOME)))
    }

    /// Redis failover: whether `node` answers as a primary now: Sentinel's
    /// primary, or an old primary that does not know it was replaced.
    pub(super) fn acts_as_primary(&self, node: u8) -> bool {
        !self.nodes[usize::from(node)].down && ((node == self.primary && !self.leaderless) || self.stale_primary == Some(node))
    }

    /// Redis failover: the node a worker's request goes to. A client keeps
    /// its connection while the node it is connected to still answers as a
    /// primary and is in reach; otherwise it asks Sentinel, and if it cannot
    /// reach the primary Sentinel names, it takes another primary it can
    /// reach (its configured fallback). The model skips the timeout a real
    /// client waits before it reconnects.
    pub(super) fn redis_route(&mut self, worker: u8) -> u8 {
        let client = Actor::Worker(worker);
        let usable = |world: &Self, node: u8| world.acts_as_primary(node) && world.link_open(client, Actor::LockNode(node));
        if let Some(node) = self.slots[usize::from(worker)].connected.filter(|node| usable(self, *node)) {
            return node;
        }
        let fallback = self.stale_primary.filter(|node| usable(self, *node) && !usable(self, self.primary));
        let node = fallback.unwrap_or(self.primary);
        self.slots[usize::from(worker)].connected = Some(node);
        node
    }

    /// A partition began or ended: the services look at what they reach.
    pub(super) fn reach_changed(&mut self) {
        match self.scenario.lock_service.family() {
            Family::Consensus => self.consensus_reach_changed(),
            Family::RedisFailover => self.sentinel_reach_changed(),
            _ => {}
        }
    }

    /// How long after its leader is lost the service has a new one, by the
    /// service's own timers (`LockService::leader_loss_ms`: etcd's election
    /// timeout, ZooKeeper's `syncLimit` × `tickTime`, Consul's Raft
    /// heartbeat timeout; Sentinel's `failover_ms`).
    pub(super) fn leader_loss_ms(&self) -> u64 {
        self.scenario.lock_service.leader_loss_ms(self.scenario.failover_ms)
    }

    fn consensus_reach_changed(&mut self) {
        if self.leaderless {
            // A healed split may give a member its majority back.
            if self.promotion_stalled {
                self.promotion_stalled = false;
                self.election_in(self.leader_loss_ms());
            }
            return;
        }
        let leader = self.primary;
        if !self.has_majority(leader) {
            // The members cut off from the leader notice after the
            // service's own timeout, and the leader steps down after as long
            // without its quorum.
            self.election_in(self.leader_loss_ms());
            return;
        }
        // Members back in the leader's reach take what they missed.
        for member in 0..self.scenario.lock_service.nodes() {
            let slot = &self.nodes[usize::from(member)];
            if member != leader && slot.behind && !slot.down && self.link_open(Actor::LockNode(leader), Actor::LockNode(member)) {
                self.nodes[usize::from(member)].behind = false;
                self.catch_up(member);
                self.log(Actor::LockNode(member), Kind::Healed { role: NodeRole::Follower }, None);
            }
        }
        // A leader with its majority back revokes what ran out meanwhile.
        self.schedule_check(leader, self.now_us);
    }

    fn sentinel_reach_changed(&mut self) {
        if !self.leaderless && !self.sentinel_sees(self.primary) {
            self.election_in(self.scenario.failover_ms);
        }
        if let Some(old) = self.stale_primary.filter(|old| self.sentinel_sees(*old)) {
            self.demote(old);
        }
    }

    /// Arms a promotion or election `after_ms` from now, unless one is due.
    pub(super) fn election_in(&mut self, after_ms: u64) {
        if !self.election_due {
            self.election_due = true;
            self.queue.push(self.now_us + after_ms * 1000, Due::Promote);
        }
    }

    /// Sentinel sees the old primary again and makes it a replica of the
    /// new one: it copies the new primary's data and drops its own, the lock
    /// it granted meanwhile included.
    fn demote(&mut self, old: u8) {
        self.stale_primary = None;
        let new = usize::from(self.primary);
        let Some(snapshot) = self.nodes[new].node.redis().map(|primary| primary.snapshot()) else { return };
        self.before_change(old);
        let Some(replica) = self.nodes[usize::from(old)].node.redis() else { return };
        let held = replica.lease().map(|lease| lease.holder);
        replica.apply(snapshot);
        let kept = replica.lease().map(|lease| lease.holder);
        let dropped = held.filter(|holder| Some(*holder) != kept);
        self.log(Actor::LockNode(old), Kind::Demoted { dropped }, None);
    }

    /// Consensus: whether the leader may commit now; a leader that cannot
    /// is no longer `serving` and so revokes nothing either.
    pub(super) fn consensus_serving(&self, node: u8) -> bool {
        node == self.primary && !self.leaderless && self.has_majority(node)
    }

    /// The old leader gives up: it has not reached a majority for an
    /// election timeout.
    pub(super) fn step_down(&mut self) {
        let old = self.primary;
        self.leaderless = true;
        self.primary_epoch += 1;
        self.nodes[usize::from(old)].behind = true;
        if !self.nodes[usize::from(old)].down {
            self.log(Actor::LockNode(old), Kind::SteppedDown, None);
        }
    }
}
