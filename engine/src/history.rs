//! The grant history: ground truth the world keeps as the lock service
//! grants and loses leases, and reads to stamp each write with the grant it
//! acts under and to judge it at the store. It is written from the world's
//! own events and from nothing the observer counts, so a change to how
//! outcomes are counted cannot change a trace. The observer only reads what
//! the events carry.

use crate::actor::{Actor, WORKERS_MAX};
use crate::event::Kind;

#[derive(Debug)]
pub struct History {
    /// Every grant in order; a grant's epoch is its position + 1.
    grants: Vec<Actor>,
    /// The grant each worker acts under now (0 before any).
    epoch_of: [u32; WORKERS_MAX as usize],
    /// Whose lease the lock service holds open now.
    leased: [bool; WORKERS_MAX as usize],
}

impl Default for History {
    fn default() -> History {
        History { grants: Vec::with_capacity(16), epoch_of: [0; WORKERS_MAX as usize], leased: [false; WORKERS_MAX as usize] }
    }
}

impl History {
    /// Takes one event of the lock service into the record.
    pub fn record(&mut self, kind: &Kind) {
        match *kind {
            Kind::Granted { holder, .. } => {
                self.grants.push(holder);
                if let Some(index) = holder.worker_index() {
                    self.epoch_of[usize::from(index)] = self.grants.len() as u32;
                    self.leased[usize::from(index)] = true;
                }
            }
            Kind::Expired { holder, .. }
            | Kind::LeaseLost { holder }
            | Kind::Demoted { dropped: Some(holder) }
            | Kind::Deleted { holder, .. } => {
                if let Some(index) = holder.worker_index() {
                    self.leased[usize::from(index)] = false;
                }
            }
            _ => {}
        }
    }

    /// The worker whose lease is open in the lock service's view, if any.
    pub fn lease_holder(&self) -> Option<Actor> {
        (0..WORKERS_MAX).find(|index| self.leased[usize::from(*index)]).map(Actor::Worker)
    }

    /// The grant the worker currently acts under (0 before any).
    pub fn epoch_of(&self, worker: Actor) -> u32 {
        worker.worker_index().map_or(0, |index| self.epoch_of[usize::from(index)])
    }

    /// A zombie write: accepted although the lock service had since granted
    /// the lock to another worker (`is_zombie_write`).
    pub fn is_zombie(&self, writer: Actor, epoch: u32) -> bool {
        is_zombie_write(&self.grants, writer, epoch)
    }

    /// A refusal of the rightful holder (`is_rightful_refusal`).
    pub fn is_rightful(&self, writer: Actor, epoch: u32) -> bool {
        is_rightful_refusal(&self.grants, writer, epoch)
    }

    /// A stale overwrite (`is_stale_overwrite`).
    pub fn is_stale_overwrite(epoch: u32, replaced_epoch: u32) -> bool {
        is_stale_overwrite(epoch, replaced_epoch)
    }
}

// The three rules a write is judged by, over the grants in order (a grant's
// epoch is its position + 1; 0: before any). Public so that a history read
// from a real incident (`fencing_sim::history`, judge.rs) is judged by the
// very rules the world stamps its own writes with.

/// A zombie write: one accepted from `writer`, acting under grant `epoch`,
/// although the lock service has since granted the lock to another worker.
pub fn is_zombie_write(grants: &[Actor], writer: Actor, epoch: u32) -> bool {
    grants.iter().skip(epoch as usize).any(|holder| *holder != writer)
}

/// A refusal of the rightful holder: `writer` acts under the latest grant
/// there is, so nobody newer exists to protect (lost liveness, not safety).
pub fn is_rightful_refusal(grants: &[Actor], writer: Actor, epoch: u32) -> bool {
    epoch != 0 && epoch as usize == grants.len() && grants.last() == Some(&writer)
}

/// A stale overwrite: the data replaced was written under a newer grant.
pub fn is_stale_overwrite(epoch: u32, replaced_epoch: u32) -> bool {
    replaced_epoch > epoch
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Actor = Actor::Worker(0);
    const B: Actor = Actor::Worker(1);

    #[test]
    fn a_write_under_an_old_grant_is_a_zombies_and_the_latest_holders_is_rightful() {
        let mut history = History::default();
        history.record(&Kind::Granted { holder: A, expires_at_us: 10 });
        let a_epoch = history.epoch_of(A);
        history.record(&Kind::Expired { holder: A, revision: None });
        assert_eq!(history.lease_holder(), None);
        history.record(&Kind::Granted { holder: B, expires_at_us: 20 });
        assert_eq!(history.lease_holder(), Some(B));
        assert!(history.is_zombie(A, a_epoch));
        assert!(!history.is_zombie(B, history.epoch_of(B)));
        assert!(history.is_rightful(B, history.epoch_of(B)) && !history.is_rightful(A, a_epoch));
    }
}
