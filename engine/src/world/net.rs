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
use crate::scenario::Fault;

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
        let to = self.route(from, to);
        let msg = self.next_msg;
        crate::invariant!(msg < u32::MAX, "message ids ran out");
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
        // A message arrives after it leaves (a latency of 0 arrives at once).
        crate::invariant!(arrive_us >= self.now_us, "{from:?} -> {to:?}: a message due at {arrive_us} µs, sent at {} µs", self.now_us);
        let lost = self.lose_at_send(from, to);
        let token = match body {
            Msg::Write(request) => request.token,
            _ => None,
        };
        self.log(from, Kind::Send { msg, to, req, body, held_us, fate: None, settled_at: None }, token);
        self.queue.push(arrive_us, super::Due::Deliver { msg, from, to, req, body, lost });
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
                && matches!(*fault, Fault::LoseMessage { from: sender, .. } if sender == from && self.fault_start_us[index] <= now_us)
        });
        if let Some(index) = picked {
            self.fire_fault(index);
            return Some(Loss::Network);
        }
        self.cut_off(from, to)
    }

    /// Asked twice per message: inlined, so a run without partitions pays
    /// one test of a flag, not a call.
    #[inline]
    pub(super) fn cut_off(&self, from: Actor, to: Actor) -> Option<Loss> {
        if !self.faults_present.partition {
            return None;
        }
        self.either_partitioned(from, to)
    }

    fn either_partitioned(&self, from: Actor, to: Actor) -> Option<Loss> {
        [(from, to), (to, from)].into_iter().find(|(end, other)| self.cut_from(*end, *other)).map(|(end, _)| Loss::Partition(end))
    }

    /// Whether a partition now cuts `end` off from `other`: from everyone,
    /// or over this one link.
    fn cut_from(&self, end: Actor, other: Actor) -> bool {
        let now_us = self.now_us;
        self.scenario.faults.iter().enumerate().any(|(index, fault)| {
            let start_us = self.fault_start_us[index];
            matches!(*fault, Fault::Partition { node, for_ms, from, .. }
                if node == end && from.is_none_or(|peer| peer == other) && (start_us..start_us.saturating_add(for_ms * 1000)).contains(&now_us))
        })
    }

    /// Whether `a` and `b` can exchange messages now (crashes aside).
    pub(super) fn link_open(&self, a: Actor, b: Actor) -> bool {
        self.cut_off(a, b).is_none()
    }
}
