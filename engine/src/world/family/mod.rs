//! What a lock service's family means to the world and to its workers, one
//! file per family: `single.rs` (one Redis), `failover.rs` (a primary, its
//! replica and Sentinel), `redlock.rs` (independent masters and the
//! majority), `consensus.rs` (members, a leader, a term) and `none.rs` (no
//! lock service). `leader.rs` is what the two replicated families share:
//! a leader that can be lost, and its promotion or election.
//!
//! The family's state is the data of its `Cluster` variant, so what only a
//! failover or only a consensus service has (a stale primary, a term) exists
//! only for it. The driver calls each hook below, which is one exhaustive
//! `match` on the cluster: a new family is its file, its `Cluster` variant
//! and the arms the compiler asks for here. What a family means to a worker
//! and to validation is its `Client`, in `services/family.rs`.
//!
//! The nodes' state machines are the family's too, each of its own type (a
//! Redis node, a consensus member), so no code asks a node what it is.
//!
//! A hook takes its family's state out of the world, changes it, and hands
//! it back to be stored; while it runs, the world holds none, so a hook
//! passes its state on to whatever it calls that needs it, and the world
//! asserts (`lent`) that no hook reads the world's meanwhile.

mod consensus;
mod failover;
mod leader;
mod none;
mod redlock;
mod single;

use super::World;
use crate::actor::Actor;
use crate::event::{Kind, Loss};
use crate::lock::{Machine, Note, Snapshot};
use crate::msg::Msg;
use crate::scenario::Scenario;
use crate::services::Family;

/// The lock service as a whole, as the world keeps it: each family's nodes
/// and own state, and nothing for a family that has none.
pub(super) enum Cluster {
    Single(single::Single),
    Failover(failover::Failover),
    Redlock(redlock::Redlock),
    Consensus(consensus::Consensus),
    None,
}

/// What only moves on in a step of the world: the election term and the
/// leader's (or primary's) life; 0 for a family that has neither.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Progress {
    pub term: u32,
    pub epoch: u32,
}

impl Cluster {
    /// The cluster as a run starts: every node fresh, L1 the primary or
    /// leader.
    pub(super) fn of(scenario: &Scenario) -> Cluster {
        match scenario.lock_service.family() {
            Family::SingleRedis => Cluster::Single(single::Single::new(scenario)),
            Family::RedisFailover => Cluster::Failover(failover::Failover::new(scenario)),
            Family::Redlock => Cluster::Redlock(redlock::Redlock::new(scenario)),
            Family::Consensus => Cluster::Consensus(consensus::Consensus::new(scenario)),
            Family::None => Cluster::None,
        }
    }

    /// Node `node`'s state machine, for what every node does alike: handle
    /// a command, expire leases, keep a clock, crash.
    pub(super) fn machine(&mut self, node: u8) -> &mut dyn Machine {
        match self {
            Cluster::Single(state) => state.machine(node),
            Cluster::Failover(state) => state.machine(node),
            Cluster::Redlock(state) => state.machine(node),
            Cluster::Consensus(state) => state.machine(node),
            Cluster::None => unreachable!("no lock service has no node L{}", node + 1),
        }
    }

    /// Whether the service reacts when a partition begins and ends (the
    /// replicated ones do: `reach_changed`), rather than only when a message
    /// passes.
    pub(super) fn watches_reach(&self) -> bool {
        match self {
            Cluster::Failover(_) | Cluster::Consensus(_) => true,
            Cluster::Single(_) | Cluster::Redlock(_) | Cluster::None => false,
        }
    }

    pub(super) fn progress(&self) -> Progress {
        match self {
            Cluster::Failover(state) => state.progress(),
            Cluster::Consensus(state) => state.progress(),
            Cluster::Single(_) | Cluster::Redlock(_) | Cluster::None => Progress::default(),
        }
    }

    /// A node's note as the trace tells it (a Redlock master's grant is a
    /// vote, not the lock).
    pub(super) fn note(&self, note: Note) -> Note {
        match self {
            Cluster::Redlock(_) => redlock::as_vote(note),
            Cluster::Single(_) | Cluster::Failover(_) | Cluster::Consensus(_) | Cluster::None => note,
        }
    }
}

impl World<'_> {
    /// Takes the family's state out for a hook (see the module's comment).
    fn lend(&mut self) -> Cluster {
        crate::invariant!(!self.lent, "a family's hook read the world's copy of its state");
        self.lent = true;
        std::mem::replace(&mut self.cluster, Cluster::None)
    }

    /// Stores the state a hook hands back.
    fn store_back(&mut self, cluster: Cluster) {
        self.lent = false;
        self.cluster = cluster;
    }

    /// What holds after every step (`before`: the progress before it),
    /// each family checking its own state.
    pub(super) fn check_family(&self, before: Progress) {
        crate::invariant!(!self.lent, "a family's state was not handed back");
        match &self.cluster {
            Cluster::Single(state) => state.check(self),
            Cluster::Failover(state) => state.check(self, before),
            Cluster::Redlock(state) => state.check(self),
            Cluster::Consensus(state) => state.check(self, before),
            Cluster::None => none::check(self),
        }
    }

    /// After a node's outcome was logged and sent: Redlock recounts its
    /// majority, a Redis primary replicates, a consensus leader commits.
    pub(super) fn after_outcome(&mut self, node: u8, deleted_by: Option<Actor>) {
        let cluster = match self.lend() {
            Cluster::Redlock(state) => Cluster::Redlock(state.recount(self, Actor::LockNode(node), deleted_by)),
            Cluster::Failover(state) => {
                state.after_outcome(self, node);
                Cluster::Failover(state)
            }
            Cluster::Consensus(mut state) => {
                state.commit_to_followers(self, node);
                Cluster::Consensus(state)
            }
            cluster @ (Cluster::Single(_) | Cluster::None) => cluster,
        };
        self.store_back(cluster);
    }

    /// Whether this node is the one that answers for the lock now: any live
    /// Redis or Redlock node; the live primary after a failover; the
    /// consensus leader while a majority is up.
    pub(super) fn serving(&self, node: u8) -> bool {
        crate::invariant!(!self.lent, "a family's hook read the world's copy of its state");
        if self.nodes[usize::from(node)].down {
            return false;
        }
        match &self.cluster {
            Cluster::Failover(state) => state.acts_as_primary(self, node),
            Cluster::Consensus(state) => state.serving(self, node),
            Cluster::Single(_) | Cluster::Redlock(_) | Cluster::None => true,
        }
    }

    /// Requests for "the lock service" (L1, as a worker addresses it) go to
    /// the consensus leader, or to the Redis primary the worker is connected
    /// to (`failover.rs`, `Failover::route`).
    pub(super) fn route(&mut self, from: Actor, to: Actor) -> Actor {
        if to != Actor::LockNode(0) {
            return to;
        }
        match self.lend() {
            Cluster::Consensus(state) => {
                let leader = state.leader();
                self.store_back(Cluster::Consensus(state));
                Actor::LockNode(leader)
            }
            Cluster::Failover(mut state) => {
                let routed = state.route(self, from);
                self.store_back(Cluster::Failover(state));
                routed
            }
            cluster @ (Cluster::Single(_) | Cluster::Redlock(_) | Cluster::None) => {
                self.store_back(cluster);
                to
            }
        }
    }

    /// Where a client's request to member `to` is handled once it arrives:
    /// a consensus follower forwards it to its leader (`consensus.rs`,
    /// `Consensus::forwarded`); every other family's node handles its own.
    pub(super) fn forwarded(&self, from: Actor, to: Actor) -> Actor {
        crate::invariant!(!self.lent, "a family's hook read the world's copy of its state");
        if matches!(from, Actor::LockNode(_)) {
            return to;
        }
        match &self.cluster {
            Cluster::Consensus(state) => state.forwarded(self, to),
            Cluster::Single(_) | Cluster::Failover(_) | Cluster::Redlock(_) | Cluster::None => to,
        }
    }

    /// Why a message cannot be read now, if it cannot.
    pub(super) fn unreachable(&self, from: Actor, to: Actor, body: &Msg) -> Option<Loss> {
        crate::invariant!(!self.lent, "a family's hook read the world's copy of its state");
        if let Actor::LockNode(node) = to {
            if self.nodes[usize::from(node)].down {
                return Some(Loss::NodeDown(to));
            }
        }
        match &self.cluster {
            Cluster::Consensus(state) => state.unreachable(self, from, to, body),
            Cluster::Single(_) | Cluster::Failover(_) | Cluster::Redlock(_) | Cluster::None => self.cut_off(from, to),
        }
    }

    /// Node `node` just went down and its `NodeDown` is logged; `lost` is
    /// the holder whose lease it did not keep, `was_serving` whether it
    /// answered for the lock.
    pub(super) fn node_crashed(&mut self, node: u8, lost: Option<Actor>, was_serving: bool) {
        let cluster = match self.lend() {
            Cluster::Failover(state) => Cluster::Failover(state.node_crashed(self, node, lost, was_serving)),
            Cluster::Consensus(state) => Cluster::Consensus(state.node_crashed(self, node, lost, was_serving)),
            Cluster::Redlock(state) => Cluster::Redlock(state.node_crashed(self, node, lost, was_serving)),
            Cluster::Single(state) => {
                single::node_crashed(self, node, lost, was_serving);
                Cluster::Single(state)
            }
            Cluster::None => {
                none::no_node(node);
                Cluster::None
            }
        };
        self.store_back(cluster);
    }

    /// Node `node` is up again (its `down` already cleared).
    pub(super) fn node_restarted(&mut self, node: u8) {
        let cluster = match self.lend() {
            Cluster::Failover(state) => Cluster::Failover(state.node_restarted(self, node)),
            Cluster::Consensus(state) => Cluster::Consensus(state.node_restarted(self, node)),
            cluster @ (Cluster::Single(_) | Cluster::Redlock(_)) => {
                single::node_restarted(self, node);
                cluster
            }
            Cluster::None => {
                none::no_node(node);
                Cluster::None
            }
        };
        self.store_back(cluster);
    }

    /// The Redis primary's change reaches its replica (`Due::Replicate`).
    pub(super) fn replicate(&mut self, snapshot: Snapshot, epoch: u32) {
        let cluster = match self.lend() {
            Cluster::Failover(state) => Cluster::Failover(state.replicate(self, snapshot, epoch)),
            cluster @ (Cluster::Single(_) | Cluster::Redlock(_) | Cluster::Consensus(_) | Cluster::None) => {
                crate::invariant!(false, "only a Redis failover replicates");
                cluster
            }
        };
        self.store_back(cluster);
    }

    /// Sentinel promotes the replica, or the live members elect a leader
    /// (`Due::Promote`).
    pub(super) fn promote(&mut self) {
        let cluster = match self.lend() {
            Cluster::Failover(state) => Cluster::Failover(leader::promote(state, self)),
            Cluster::Consensus(state) => Cluster::Consensus(leader::promote(state, self)),
            cluster @ (Cluster::Single(_) | Cluster::Redlock(_) | Cluster::None) => {
                crate::invariant!(false, "only a replicated service promotes or elects");
                cluster
            }
        };
        self.store_back(cluster);
    }

    /// A partition began or ended: the replicated services look at what
    /// they reach (`Due::Reach`).
    pub(super) fn reach_changed(&mut self) {
        let cluster = match self.lend() {
            Cluster::Failover(state) => Cluster::Failover(state.reach_changed(self)),
            Cluster::Consensus(state) => Cluster::Consensus(state.reach_changed(self)),
            cluster @ (Cluster::Single(_) | Cluster::Redlock(_) | Cluster::None) => {
                crate::invariant!(false, "only a replicated service watches reach");
                cluster
            }
        };
        self.store_back(cluster);
    }
}

/// A node of a family with no leader lost a lease in its crash: the holder
/// has lost it, if the node was answering for it.
fn lease_lost(world: &mut World, node: u8, lost: Option<Actor>, was_serving: bool) {
    if let (Some(holder), true) = (lost, was_serving) {
        world.log(Actor::LockNode(node), Kind::LeaseLost { holder }, None);
    }
}
