//! Lock nodes that die and come back: crashes (with or without their data),
//! restarts, Redis replication and Sentinel's promotion of the replica, and
//! the consensus members' election of a new leader.

use super::{Due, World};
use crate::actor::Actor;
use crate::event::{Kind, NodeRole};
use crate::lock::{LockNode, Snapshot};
use crate::msg::Msg;
use crate::services::Family;

impl World<'_> {
    pub(super) fn schedule_replication(&mut self) {
        let Some(primary) = self.nodes[usize::from(self.primary)].node.redis() else { return };
        let snapshot = primary.snapshot();
        let at_us = self.now_us + self.scenario.replication_lag_ms * 1000;
        self.queue.push(at_us, Due::Replicate { snapshot, epoch: self.primary_epoch });
    }

    /// The primary's change reaches the replica, unless the primary died
    /// first (asynchronous replication: the crash takes it along), the
    /// replica is down (it resynchronises when it is back), or a partition
    /// is between them (the old primary it replaced, still cut off, is no
    /// replica of anyone until Sentinel demotes it).
    pub(super) fn replicate(&mut self, snapshot: Snapshot, epoch: u32) {
        let other = 1 - self.primary;
        let cut = !self.link_open(Actor::LockNode(self.primary), Actor::LockNode(other));
        if epoch != self.primary_epoch || cut || self.stale_primary == Some(other) {
            return;
        }
        if self.nodes[usize::from(other)].down {
            return;
        }
        self.before_change(other);
        if let Some(replica) = self.nodes[usize::from(other)].node.redis() {
            replica.apply(snapshot);
        }
    }

    pub(super) fn node_crash(&mut self, node: u8, down_ms: u64) {
        let actor = Actor::LockNode(node);
        let was_serving = self.serving(node);
        let slot = &mut self.nodes[usize::from(node)];
        if slot.down {
            return;
        }
        slot.down = true;
        let held = slot.node.redis().and_then(|redis| redis.lease());
        if self.stale_primary == Some(node) {
            // An old primary that dies comes back as Sentinel's replica.
            self.stale_primary = None;
        }
        // A consensus member's log is on disk; a Redis keeps everything with
        // an append-only file (written before each reply: a process crash
        // loses none of it), its last snapshot with RDB, and nothing without.
        let persistence = self.scenario.redis_persistence;
        let persists = matches!(slot.node, LockNode::Etcd(_)) || persistence.keeps_every_write();
        let mut restores_from_us = None;
        if let (false, Some(redis)) = (persists, slot.node.redis()) {
            match persistence.period_us() {
                Some(period_us) => {
                    redis.sync_disk(self.now_us, period_us);
                    restores_from_us = Some(redis.restore_disk());
                }
                None => redis.wipe(),
            }
        }
        let kept = slot.node.redis().and_then(|redis| redis.lease()).map(|lease| lease.holder);
        // The lease is lost unless the node comes back with it.
        let held = held.filter(|lease| !persists && kept != Some(lease.holder));
        self.log(actor, Kind::NodeDown { persists, restores_from_us }, None);
        let leader_died = matches!(self.scenario.lock_service.family(), Family::RedisFailover | Family::Consensus) && node == self.primary;
        if leader_died {
            self.primary_epoch += 1;
            self.leaderless = true;
            self.queue.push(self.now_us + self.leader_loss_ms() * 1000, Due::Promote);
        } else if let (Some(lease), true) = (held, was_serving) {
            self.lost_with_node(actor, lease.holder);
        }
        self.queue.push(self.now_us + down_ms * 1000, Due::NodeRestart { node });
    }

    fn lost_with_node(&mut self, actor: Actor, holder: Actor) {
        if self.scenario.lock_service.family() == Family::Redlock {
            self.recount_majority(actor, None);
        } else {
            self.log(actor, Kind::LeaseLost { holder }, None);
        }
    }

    pub(super) fn node_restart(&mut self, node: u8) {
        let actor = Actor::LockNode(node);
        self.nodes[usize::from(node)].down = false;
        if self.scenario.lock_service.family() == Family::RedisFailover && node == self.primary && self.leaderless {
            // Back before Sentinel gave up on it: it stays the primary (with
            // whatever it kept), and the pending promotion lapses.
            self.leaderless = false;
        }
        let role = match self.scenario.lock_service.family() {
            Family::RedisFailover if node != self.primary => NodeRole::Replica,
            Family::Consensus if node != self.primary || self.leaderless => NodeRole::Follower,
            _ => NodeRole::Serving,
        };
        self.catch_up(node);
        self.log(actor, Kind::NodeUp { role }, None);
        if self.leaderless && self.promotion_stalled {
            // Nobody could take over before; this node's return may let it.
            self.promotion_stalled = false;
            self.queue.push(self.now_us + self.leader_loss_ms() * 1000, Due::Promote);
        }
        // Its return may give the leader its majority back: check both.
        self.schedule_check(node, self.now_us);
        self.schedule_check(self.primary, self.now_us);
    }

    /// A node back from a crash copies what it missed: a Redis replica
    /// resynchronises from the primary, a consensus member from the leader.
    pub(super) fn catch_up(&mut self, node: u8) {
        let leader = usize::from(self.primary);
        if usize::from(node) == leader || self.leaderless {
            return;
        }
        if !self.link_open(Actor::LockNode(self.primary), Actor::LockNode(node)) {
            // Out of reach: it catches up when the partition heals.
            self.nodes[usize::from(node)].behind = true;
            return;
        }
        match self.scenario.lock_service.family() {
            Family::RedisFailover => {
                self.before_change(node);
                if let Some(snapshot) = self.nodes[leader].node.redis().map(|primary| primary.snapshot()) {
                    if let Some(replica) = self.nodes[usize::from(node)].node.redis() {
                        replica.apply(snapshot);
                    }
                }
            }
            Family::Consensus => {
                if let Some(state) = self.nodes[leader].node.etcd().map(|leader| leader.clone()) {
                    if let Some(member) = self.nodes[usize::from(node)].node.etcd() {
                        member.follow(&state);
                    }
                }
            }
            _ => {}
        }
    }

    /// Sentinel promotes the replica, or the live members elect a leader.
    /// Nobody can take over without a live candidate (and, for consensus,
    /// a majority): then the service stays leaderless until a node returns.
    pub(super) fn promote(&mut self) {
        self.election_due = false;
        if !self.leaderless && !self.leader_out_of_reach() {
            return;
        }
        let old = self.primary;
        let candidate = self.candidate(old);
        let quorum = |node: u8| self.scenario.lock_service.family() != Family::Consensus || self.has_majority(node);
        let Some(node) = candidate.filter(|node| quorum(*node)) else {
            self.promotion_stalled = true;
            return;
        };
        self.primary = node;
        self.leaderless = false;
        match self.scenario.lock_service.family() {
            Family::Consensus => self.elected(node),
            _ => self.promoted(node),
        }
        self.schedule_check(node, self.now_us);
    }

    /// The leader (or primary) is alive but out of reach for the service's
    /// whole leader-loss time (`World::leader_loss_ms`; Sentinel's
    /// `down-after`): a consensus leader steps down; the
    /// Redis primary goes on for whoever still reaches it, replaced.
    fn leader_out_of_reach(&mut self) -> bool {
        let old = self.primary;
        match self.scenario.lock_service.family() {
            Family::Consensus if !self.has_majority(old) => self.step_down(),
            Family::RedisFailover if !self.sentinel_sees(old) => {
                self.stale_primary = Some(old);
                self.leaderless = true;
                self.primary_epoch += 1;
            }
            _ => return false,
        }
        true
    }

    /// Who takes over: Sentinel promotes the live replica; Raft elects the
    /// live member with the longest log (a member that missed changes while
    /// it was down cannot win), the lowest-numbered on a tie.
    fn candidate(&mut self, old: u8) -> Option<u8> {
        let live = (0..self.scenario.lock_service.nodes()).filter(|node| *node != old && !self.nodes[usize::from(*node)].down);
        let mut best: Option<(u64, u8)> = None;
        for node in live.collect::<Vec<u8>>() {
            let applied = self.nodes[usize::from(node)].node.etcd().map_or(0, |member| member.applied());
            if best.is_none_or(|(most, _)| applied > most) {
                best = Some((applied, node));
            }
        }
        best.map(|(_, node)| node)
    }

    /// Sentinel's promotion: whatever the old primary had not passed on —
    /// the lock, the last `INCR` — is gone.
    fn promoted(&mut self, node: u8) {
        let actor = Actor::LockNode(node);
        let crashed_holder = self.history.lease_holder();
        let kept = self.nodes[usize::from(node)].node.redis().and_then(|redis| redis.lease()).map(|lease| lease.holder);
        self.log(actor, Kind::Promoted { kept }, None);
        if let Some(holder) = crashed_holder.filter(|holder| Some(*holder) != kept) {
            self.log(actor, Kind::LeaseLost { holder }, None);
        }
    }

    /// A consensus election: the new leader has every committed change, and
    /// gives every lease an election timeout plus a full TTL from now, as
    /// etcd's lessor does on promotion, so a holder keeps its lock across the
    /// change of leader.
    fn elected(&mut self, node: u8) {
        self.term += 1;
        let extend_us = self.leader_loss_ms() * 1000;
        if let Some(leader) = self.nodes[usize::from(node)].node.etcd() {
            leader.refresh_leases(self.now_us, extend_us);
        }
        self.log(Actor::LockNode(node), Kind::Elected { term: self.term }, None);
        self.commit_to_followers(node);
        self.resume_watch(node);
    }

    /// A contender still waiting for its turn loses its watch with the old
    /// leader and resumes it on the new one from the revision it last saw,
    /// so it learns of a turn it missed — the notice lost in a partition
    /// included (an etcd watch resumes at a revision; it does not wait).
    fn resume_watch(&mut self, node: u8) {
        let Some((holder, req, revision)) = self.nodes[usize::from(node)].node.etcd().and_then(|leader| leader.first_key()) else {
            return;
        };
        let waiting = holder.worker_index().is_some_and(|index| self.slots[usize::from(index)].worker.watches_its_turn());
        if waiting {
            self.send(Actor::LockNode(node), holder, req, Msg::LockReady { revision });
        }
    }
}
