//! The network: latency from the scenario, plus the faults that strike
//! messages — a held write packet, a lost message, a partitioned node.

use super::{Due, World};
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;
use crate::scenario::{Fault, LockService};

impl World<'_> {
    pub(super) fn send(&mut self, from: Actor, to: Actor, body: Msg) {
        let to = self.route(to);
        let msg = self.next_msg;
        self.next_msg += 1;
        let delay_us = self.write_delay_us(from, &body);
        let latency_us = self.net_rng.between(self.scenario.latency_us_min, self.scenario.latency_us_max) + delay_us;
        let lost = self.lose_at_send(from, to);
        let label = body.label();
        let text = if delay_us > 0 {
            format!("{from} sent {label} to {to}; the network holds the packet for {}", crate::format_us(delay_us))
        } else {
            format!("{from} sent {label} to {to}")
        };
        self.log(from, Kind::Send { msg, to, label }, None, text);
        self.queue.push(self.now_us + latency_us, Due::Deliver { msg, from, to, body, lost });
    }

    /// Requests for "the lock service" go to the current Redis primary.
    fn route(&self, to: Actor) -> Actor {
        match to {
            Actor::LockNode(0) if self.scenario.lock_service == LockService::RedisFailover => Actor::LockNode(self.primary),
            other => other,
        }
    }

    fn write_delay_us(&mut self, actor: Actor, body: &Msg) -> u64 {
        let Msg::Write(request) = body else { return 0 };
        let found = self.scenario.faults.iter().enumerate().find_map(|(index, fault)| match *fault {
            Fault::DelayWrite { worker, write, delay_ms } if worker == actor && write == request.nth && !self.fault_fired[index] => {
                Some((index, delay_ms))
            }
            _ => None,
        });
        let Some((index, delay_ms)) = found else { return 0 };
        self.fault_fired[index] = true;
        delay_ms * 1000
    }

    /// A message is lost when a loss fault picks it or either end is cut off
    /// as it leaves.
    fn lose_at_send(&mut self, from: Actor, to: Actor) -> Option<String> {
        let now_us = self.now_us;
        let picked = self.scenario.faults.iter().enumerate().position(|(index, fault)| {
            !self.fault_fired[index]
                && matches!(*fault, Fault::LoseMessage { from: sender, at_ms } if sender == from && at_ms * 1000 <= now_us)
        });
        if let Some(index) = picked {
            self.fault_fired[index] = true;
            return Some("the network lost it".to_string());
        }
        [from, to].into_iter().find(|end| self.partitioned(*end)).map(|end| format!("{end} was cut off by a partition"))
    }

    /// Why a message cannot be delivered now, if it cannot.
    pub(super) fn unreachable_reason(&self, from: Actor, to: Actor) -> Option<String> {
        if let Actor::LockNode(node) = to {
            if self.nodes[usize::from(node)].down {
                return Some(format!("{to} is down"));
            }
        }
        [from, to].into_iter().find(|end| self.partitioned(*end)).map(|end| format!("{end} was cut off by a partition"))
    }

    fn partitioned(&self, actor: Actor) -> bool {
        let now_us = self.now_us;
        self.scenario.faults.iter().any(|fault| {
            matches!(*fault, Fault::Partition { node, at_ms, for_ms }
                if node == actor && (at_ms * 1000..(at_ms + for_ms) * 1000).contains(&now_us))
        })
    }
}
