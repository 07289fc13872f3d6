//! The network: one ordered connection per pair of actors, latency from the
//! scenario, and the faults that strike messages — a held write packet, a
//! lost message, a partitioned node.
//!
//! Messages between two actors arrive in the order they were sent, as over
//! TCP: a message drawn a shorter latency than its predecessor waits for it.
//! Only an explicit fault breaks that: a held packet is overtaken, a lost
//! one never arrives.

use super::World;
use crate::actor::{Actor, LOCK_NODES_MAX, WORKERS_MAX};
use crate::event::{Kind, Loss};
use crate::msg::Msg;
use crate::scenario::{Fault, LockService, CONSENSUS_QUORUM};

/// Workers, lock nodes and the store, each with a slot of its own.
pub const ACTOR_SLOTS: usize = (WORKERS_MAX + LOCK_NODES_MAX + 1) as usize;

fn slot(actor: Actor) -> usize {
    match actor {
        Actor::Worker(index) => usize::from(index),
        Actor::LockNode(index) => usize::from(WORKERS_MAX + index),
        Actor::Store => ACTOR_SLOTS - 1,
    }
}

impl World<'_> {
    /// Sends `body` as request (or answer to request) `req`.
    pub(super) fn send(&mut self, from: Actor, to: Actor, req: u32, body: Msg) {
        let to = self.route(to);
        let msg = self.next_msg;
        self.next_msg += 1;
        let held_us = self.write_delay_us(from, &body);
        let latency_us = self.net_rng.between(self.scenario.latency_us_min, self.scenario.latency_us_max);
        let mut arrive_us = self.now_us + latency_us;
        if held_us == 0 {
            let last_us = &mut self.arrival_us[slot(from)][slot(to)];
            arrive_us = arrive_us.max(*last_us);
            *last_us = arrive_us;
        } else {
            arrive_us += held_us;
        }
        let lost = self.lose_at_send(from, to);
        let token = match body {
            Msg::Write(request) => request.token,
            _ => None,
        };
        self.log(from, Kind::Send { msg, to, req, body, held_us, fate: None, settled_at: None }, token);
        self.queue.push(arrive_us, super::Due::Deliver { msg, from, to, req, body, lost });
    }

    /// Requests for "the lock service" go to the current Redis primary or
    /// consensus leader.
    fn route(&self, to: Actor) -> Actor {
        match (to, self.scenario.lock_service) {
            (Actor::LockNode(0), LockService::RedisFailover | LockService::Consensus) => Actor::LockNode(self.primary),
            _ => to,
        }
    }

    fn write_delay_us(&mut self, actor: Actor, body: &Msg) -> u64 {
        let Msg::Write(request) = body else { return 0 };
        if !self.faults_present.delay_write {
            return 0;
        }
        let found = self.scenario.faults.iter().enumerate().find_map(|(index, fault)| match *fault {
            Fault::DelayWrite { worker, write, delay_ms } if worker == actor && write == request.nth && !self.fault_fired(index) => {
                Some((index, delay_ms))
            }
            _ => None,
        });
        let Some((index, delay_ms)) = found else { return 0 };
        self.fire_fault(index);
        delay_ms * 1000
    }

    /// A message is lost when a loss fault picks it or either end is cut off
    /// as it leaves.
    fn lose_at_send(&mut self, from: Actor, to: Actor) -> Option<Loss> {
        if !self.faults_present.lose_message {
            return self.cut_off(from, to);
        }
        let now_us = self.now_us;
        let picked = self.scenario.faults.iter().enumerate().position(|(index, fault)| {
            !self.fault_fired(index)
                && matches!(*fault, Fault::LoseMessage { from: sender, at_ms } if sender == from && at_ms * 1000 <= now_us)
        });
        if let Some(index) = picked {
            self.fire_fault(index);
            return Some(Loss::Network);
        }
        self.cut_off(from, to)
    }

    /// Why a message cannot be read now, if it cannot.
    pub(super) fn unreachable(&self, from: Actor, to: Actor) -> Option<Loss> {
        if let Actor::LockNode(node) = to {
            if self.nodes[usize::from(node)].down {
                return Some(Loss::NodeDown(to));
            }
            if self.scenario.lock_service == LockService::Consensus && (self.leaderless || self.members_up() < CONSENSUS_QUORUM) {
                return Some(Loss::NoQuorum(to));
            }
        }
        self.cut_off(from, to)
    }

    /// Asked twice per message: inlined, so a run without partitions pays
    /// one test of a flag, not a call.
    #[inline]
    fn cut_off(&self, from: Actor, to: Actor) -> Option<Loss> {
        if !self.faults_present.partition {
            return None;
        }
        self.either_partitioned(from, to)
    }

    fn either_partitioned(&self, from: Actor, to: Actor) -> Option<Loss> {
        [from, to].into_iter().find(|end| self.partitioned(*end)).map(Loss::Partition)
    }

    fn partitioned(&self, actor: Actor) -> bool {
        let now_us = self.now_us;
        self.scenario.faults.iter().any(|fault| {
            matches!(*fault, Fault::Partition { node, at_ms, for_ms }
                if node == actor && (at_ms * 1000..(at_ms + for_ms) * 1000).contains(&now_us))
        })
    }

    pub(super) fn members_up(&self) -> u8 {
        self.nodes.iter().filter(|slot| !slot.down).count() as u8
    }
}
