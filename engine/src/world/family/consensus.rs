//! The consensus family (etcd, ZooKeeper, Consul): replicated members with a
//! leader that needs a majority, an election term, and members that fall
//! behind while out of the leader's reach.
//!
//! The service decides by reachability, not only by who crashed, as real
//! clusters do: a consensus leader commits only while it reaches a majority
//! of the members (itself included); cut off from it, it still renews leases
//! in its own memory (etcd's lessor does, without raft) until it steps down
//! after an election timeout (etcd runs with CheckQuorum), and a member that
//! reaches a majority is elected. How long that takes is each service's own
//! (`SessionRules::leader_loss`): etcd's election timeout (the scenario's
//! `failover_ms`), ZooKeeper's `syncLimit` × `tickTime`, Consul's Raft
//! heartbeat timeout × `raft_multiplier`; a member cut off from the leader
//! misses what it commits and catches up when it is back in reach. The
//! members run with pre-vote (etcd's default from 3.5; 3.4 takes
//! `--pre-vote`), so one back from a partition rejoins as a follower without
//! forcing an election.

use super::super::World;
use super::leader::{Leadership, Led};
use super::Progress;
use crate::actor::{Actor, LOCK_NODES_MAX};
use crate::event::{Kind, Loss, NodeRole};
use crate::lock::{EtcdNode, Machine};
use crate::msg::Msg;
use crate::scenario::{Scenario, CONSENSUS_QUORUM};

pub(in crate::world) struct Consensus {
    /// Each member's replicated state machine, run by its service's rules.
    members: Vec<EtcdNode>,
    lead: Leadership,
    /// The election term.
    term: u32,
    /// Per member: it missed commits while out of the leader's reach.
    behind: [bool; LOCK_NODES_MAX as usize],
}

/// Whether `node` is up and reaches a majority of the live members, itself
/// included.
fn has_majority(world: &World, node: u8) -> bool {
    if world.nodes[usize::from(node)].down {
        return false;
    }
    let reached = (0..world.scenario.lock_service.nodes())
        .filter(|member| {
            !world.nodes[usize::from(*member)].down && (*member == node || world.link_open(Actor::LockNode(node), Actor::LockNode(*member)))
        })
        .count();
    reached >= usize::from(CONSENSUS_QUORUM)
}

impl Consensus {
    pub(super) fn new(scenario: &Scenario) -> Consensus {
        let rules = scenario.lock_service.spec().session.expect("a consensus service has session rules");
        let members =
            (0..scenario.lock_service.nodes()).map(|index| EtcdNode::new(Actor::LockNode(index), scenario.first_token, rules)).collect();
        Consensus { members, lead: Leadership::new(), term: 1, behind: [false; LOCK_NODES_MAX as usize] }
    }

    pub(super) fn machine(&mut self, node: u8) -> &mut dyn Machine {
        &mut self.members[usize::from(node)]
    }

    pub(super) fn leader(&self) -> u8 {
        self.lead.primary
    }

    pub(super) fn progress(&self) -> Progress {
        Progress { term: self.term, epoch: self.lead.epoch }
    }

    /// The leader's invariants, and: the term only moves on, and a term
    /// begins with an election, so there are never more terms than lives.
    pub(super) fn check(&self, world: &World, before: Progress) {
        self.lead.check(world, before);
        crate::invariant!(self.term >= before.term, "the election term went back: {} -> {}", before.term, self.term);
        crate::invariant!(self.term <= self.lead.epoch + 1, "term {} after only {} leaders lost", self.term, self.lead.epoch);
        crate::invariant!(self.members.len() == world.nodes.len(), "{} members on {} nodes", self.members.len(), world.nodes.len());
    }

    /// Whether the leader may commit now; a leader that cannot is no longer
    /// serving and so revokes nothing either.
    pub(super) fn serving(&self, world: &World, node: u8) -> bool {
        node == self.lead.primary && !self.lead.leaderless && has_majority(world, node)
    }

    /// Where a client's request that reaches member `to` is handled: a
    /// member that is not the leader forwards it to the leader while there
    /// is one (ZooKeeper: `FollowerRequestProcessor` "forwards any requests
    /// that modify the state of the system to the Leader"; etcd: raft's
    /// `stepFollower` sends a `MsgProp` on to `r.lead`, and drops it while
    /// there is no leader). A request addressed to the old leader before an
    /// election is in flight when the new one takes over; without this the
    /// old leader, now a follower, would commit it alone and be followed
    /// back to an older revision. Only a member that reaches the leader
    /// knows it and can forward: an old leader cut off from the others
    /// still answers for itself until it steps down (`unreachable`: it
    /// renews leases alone, as etcd's lessor does).
    pub(super) fn forwarded(&self, world: &World, to: Actor) -> Actor {
        let leader = Actor::LockNode(self.lead.primary);
        match to {
            // A member that is down reads nothing, so forwards nothing.
            Actor::LockNode(node)
                if node != self.lead.primary
                    && !self.lead.leaderless
                    && !world.nodes[usize::from(node)].down
                    && world.link_open(to, leader) =>
            {
                leader
            }
            _ => to,
        }
    }

    /// Why a message cannot be read now (a down node aside): a member
    /// without a quorum answers nothing it would have to commit, and a
    /// client reaches the leader directly or through any live member that
    /// reaches it (a follower forwards a request to its leader, and the
    /// answer comes back the same way).
    pub(super) fn unreachable(&self, world: &World, from: Actor, to: Actor, body: &Msg) -> Option<Loss> {
        if let Actor::LockNode(node) = to {
            // A leader that has not stepped down yet still renews leases: etcd's
            // lessor does it in the leader's memory, without raft. Nothing
            // else it can commit without a majority.
            let renews_alone = matches!(body, Msg::Renew { .. }) && !self.lead.leaderless;
            if (self.lead.leaderless || !has_majority(world, node)) && !renews_alone {
                return Some(Loss::NoQuorum(to));
            }
        }
        let cut = world.cut_off(from, to)?;
        let (client, leader) = match (from, to) {
            (Actor::LockNode(node), client) | (client, Actor::LockNode(node)) if !matches!(client, Actor::LockNode(_)) => (client, node),
            _ => return Some(cut),
        };
        let relayed = (0..world.scenario.lock_service.nodes()).any(|member| {
            let via = Actor::LockNode(member);
            member != leader
                && !world.nodes[usize::from(member)].down
                && world.link_open(client, via)
                && world.link_open(via, Actor::LockNode(leader))
        });
        (!relayed).then_some(cut)
    }

    /// A change the leader made is committed on every live member it
    /// reaches before anyone hears of it (the model folds Raft's round into
    /// the message latency); a member out of its reach falls behind and
    /// catches up once back.
    pub(super) fn commit_to_followers(&mut self, world: &mut World, leader: u8) {
        // A leader without a majority commits nothing (what it did alone,
        // renewing a lease, stays in its own memory).
        if leader != self.lead.primary || !has_majority(world, leader) {
            return;
        }
        crate::invariant!(!self.lead.leaderless, "L{} committed while the cluster had no leader", leader + 1);
        let state = self.members[usize::from(leader)].clone();
        for index in 0..world.nodes.len() {
            let reached = world.link_open(Actor::LockNode(leader), Actor::LockNode(index as u8));
            if index == usize::from(leader) || world.nodes[index].down {
                continue;
            }
            if !reached {
                self.behind[index] = true;
            } else {
                self.members[index].follow(&state);
                self.behind[index] = false;
            }
        }
    }

    /// A member went down: the leader's death ends its life and arms an
    /// election (a member's log is on disk: it loses no lease).
    pub(super) fn node_crashed(mut self, world: &mut World, node: u8, lost: Option<Actor>, was_serving: bool) -> Self {
        self.lead.node_crashed(world, node, lost, was_serving);
        self
    }

    /// A member is back: a follower (the leader too, if another was
    /// elected meanwhile or none yet), copying what it missed.
    pub(super) fn node_restarted(mut self, world: &mut World, node: u8) -> Self {
        let role = if node != self.lead.primary || self.lead.leaderless { NodeRole::Follower } else { NodeRole::Serving };
        self.catch_up(world, node);
        world.log(Actor::LockNode(node), Kind::NodeUp { role }, None);
        self.lead.node_back(world, node);
        self
    }

    /// A member copies what it missed from the leader, if it reaches it;
    /// otherwise it is behind until the partition heals.
    fn catch_up(&mut self, world: &mut World, node: u8) {
        let leader = self.lead.primary;
        if node == leader || self.lead.leaderless {
            return;
        }
        if !world.link_open(Actor::LockNode(leader), Actor::LockNode(node)) {
            self.behind[usize::from(node)] = true;
            return;
        }
        let state = self.members[usize::from(leader)].clone();
        self.members[usize::from(node)].follow(&state);
    }

    /// A partition began or ended: the members look at what they reach.
    pub(super) fn reach_changed(mut self, world: &mut World) -> Self {
        if self.lead.leaderless {
            // A healed split may give a member its majority back.
            if self.lead.stalled {
                self.lead.stalled = false;
                self.lead.election_in(world, world.leader_loss_ms());
            }
            return self;
        }
        let leader = self.lead.primary;
        if !has_majority(world, leader) {
            // The members cut off from the leader notice after the
            // service's own timeout, and the leader steps down after as long
            // without its quorum.
            self.lead.election_in(world, world.leader_loss_ms());
            return self;
        }
        // Members back in the leader's reach take what they missed.
        for member in 0..world.scenario.lock_service.nodes() {
            let down = world.nodes[usize::from(member)].down;
            if member != leader
                && self.behind[usize::from(member)]
                && !down
                && world.link_open(Actor::LockNode(leader), Actor::LockNode(member))
            {
                self.behind[usize::from(member)] = false;
                self.catch_up(world, member);
                world.log(Actor::LockNode(member), Kind::Healed { role: NodeRole::Follower }, None);
            }
        }
        // A leader with its majority back revokes what ran out meanwhile.
        world.schedule_check(leader, world.now_us);
        self
    }

    /// A contender still waiting for its turn loses its watch with the old
    /// leader and resumes it on the new one from the revision it last saw,
    /// so it learns of a turn it missed — the notice lost in a partition
    /// included (an etcd watch resumes at a revision; it does not wait).
    fn resume_watch(&self, world: &mut World, node: u8) {
        let Some((holder, req, revision)) = self.members[usize::from(node)].first_key() else {
            return;
        };
        let waiting = holder.worker_index().is_some_and(|index| world.slots[usize::from(index)].worker.watches_its_turn());
        if waiting {
            world.send(Actor::LockNode(node), holder, req, Msg::LockReady { revision });
        }
    }
}

impl Led for Consensus {
    fn lead(&mut self) -> &mut Leadership {
        &mut self.lead
    }

    /// The old leader gives up: it has not reached a majority for an
    /// election timeout.
    fn out_of_reach(&mut self, world: &mut World) -> bool {
        let old = self.lead.primary;
        if has_majority(world, old) {
            return false;
        }
        self.lead.leaderless = true;
        self.lead.epoch += 1;
        self.behind[usize::from(old)] = true;
        if !world.nodes[usize::from(old)].down {
            world.log(Actor::LockNode(old), Kind::SteppedDown, None);
        }
        true
    }

    /// Raft elects the live member with the longest log (a member that
    /// missed changes while it was down cannot win), the lowest-numbered on
    /// a tie, if it reaches a majority.
    fn candidate(&self, world: &World, old: u8) -> Option<u8> {
        let mut best: Option<(u64, u8)> = None;
        for node in (0..world.scenario.lock_service.nodes()).filter(|node| *node != old && !world.nodes[usize::from(*node)].down) {
            let applied = self.members[usize::from(node)].applied();
            if best.is_none_or(|(most, _)| applied > most) {
                best = Some((applied, node));
            }
        }
        best.map(|(_, node)| node).filter(|node| has_majority(world, *node))
    }

    /// A consensus election: the new leader has every committed change, and
    /// gives every lease an election timeout plus a full TTL from now, as
    /// etcd's lessor does on promotion, so a holder keeps its lock across the
    /// change of leader.
    fn took_over(&mut self, world: &mut World, node: u8) {
        self.term += 1;
        let extend_us = world.leader_loss_ms() * 1000;
        self.members[usize::from(node)].refresh_leases(world.now_us, extend_us);
        world.log(Actor::LockNode(node), Kind::Elected { term: self.term }, None);
        self.commit_to_followers(world, node);
        self.resume_watch(world, node);
    }
}
