//! The Redlock family: independent Redis masters, no replication, and a lock
//! that belongs to whoever holds a majority of them, which no single master
//! knows about: the world keeps the majority and tells it as the lock
//! service's view.

use super::super::World;
use crate::actor::Actor;
use crate::event::Kind;
use crate::lock::{Machine, Note, RedisNode};
use crate::scenario::{Scenario, REDLOCK_QUORUM};

pub(in crate::world) struct Redlock {
    masters: Vec<RedisNode>,
    /// The value and holder that hold a majority, if any.
    majority: Option<(u64, Actor)>,
}

/// On a Redlock master, a grant or an expiry is one vote, not the lock.
pub(super) fn as_vote(note: Note) -> Note {
    let kind = match note.kind {
        Kind::Granted { holder, .. } => Kind::Voted { holder },
        Kind::Expired { holder, .. } | Kind::Deleted { holder, .. } => Kind::Unvoted { holder },
        other => other,
    };
    Note { kind, ..note }
}

impl Redlock {
    pub(super) fn new(scenario: &Scenario) -> Redlock {
        let masters = (0..scenario.lock_service.nodes()).map(|_| RedisNode::new(scenario.first_token)).collect();
        Redlock { masters, majority: None }
    }

    pub(super) fn machine(&mut self, node: u8) -> &mut dyn Machine {
        &mut self.masters[usize::from(node)]
    }

    /// The majority the world last told is the one the masters hold: it is
    /// recounted after every change, and only a worker holds one.
    pub(super) fn check(&self, world: &World) {
        crate::invariant!(
            self.majority.is_none_or(|(_, holder)| holder.worker_index().is_some()),
            "a Redlock majority held by {:?}",
            self.majority
        );
        crate::invariant!(
            world.nodes.len() == self.masters.len() && self.masters.len() >= usize::from(REDLOCK_QUORUM),
            "Redlock on {} masters, {} nodes",
            self.masters.len(),
            world.nodes.len()
        );
    }

    /// The lock belongs to whoever holds a majority of masters. Log the
    /// moment a majority forms or breaks, as the lock service's view;
    /// `deleted_by` is whoever deleted a key just now, if anyone did.
    pub(super) fn recount(mut self, world: &mut World, actor: Actor, deleted_by: Option<Actor>) -> Self {
        let now = self.majority_now(world);
        if now == self.majority {
            return self;
        }
        if let Some((_, holder)) = self.majority.take() {
            let kind = match deleted_by {
                Some(by) => Kind::Deleted { holder, by, revision: None },
                None => Kind::Expired { holder, revision: None },
            };
            world.log(actor, kind, None);
        }
        if let Some((value, holder)) = now {
            self.majority = Some((value, holder));
            let expires_at_us = world.now_us + world.scenario.ttl_ms * 1000;
            world.log(actor, Kind::Granted { holder, expires_at_us }, None);
        }
        self
    }

    /// The value and holder whose keys stand on a majority of the live
    /// masters, if any (only one can). Counted in place: this runs after
    /// every Redlock command, and a list per command would be an allocation.
    fn majority_now(&self, world: &World) -> Option<(u64, Actor)> {
        let live = || self.masters.iter().zip(&world.nodes).filter(|(_, slot)| !slot.down).filter_map(|(master, _)| master.lease());
        let holding = |value: u64| live().filter(|lease| lease.value == value).count();
        let lease = live().find(|lease| holding(lease.value) >= usize::from(REDLOCK_QUORUM))?;
        // A majority is the lock: no two values hold one at once.
        let others = live().filter(|other| other.value != lease.value).count();
        crate::invariant!(
            others < usize::from(REDLOCK_QUORUM),
            "two Redlock values hold a majority ({:?} and {others} others)",
            lease.holder
        );
        Some((lease.value, lease.holder))
    }

    /// A master went down: a lease it held as a vote may take the majority
    /// with it.
    pub(super) fn node_crashed(self, world: &mut World, node: u8, lost: Option<Actor>, was_serving: bool) -> Self {
        if lost.is_some() && was_serving {
            return self.recount(world, Actor::LockNode(node), None);
        }
        self
    }
}
