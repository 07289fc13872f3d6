//! The single faults the explorer places, read off the design's own
//! fault-free run: a pause of each worker before each of its messages (at
//! six lengths drawn from the scenario's timing), a held write packet, a
//! crash of each worker right after each of its messages, a crash of each
//! lock node and a clock jump on each Redis node right after each of the
//! service's steps. Crashes and jumps are pinned to the event they follow,
//! not to its time rounded to a millisecond: a crash meant for "right after
//! the grant" lands there, inside a replication window of milliseconds.

use crate::actor::Actor;
use crate::event::Kind;
use crate::scenario::{Fault, LockService, Scenario, When};
use crate::trace::Trace;
use crate::worker::renew_interval_us;

/// Steps per worker the explorer places faults at; more add little.
pub const STEPS_MAX: u16 = 16;
/// Lock-service moments it crashes a node or jumps its clock at.
pub const NODE_MOMENTS_MAX: usize = 8;

/// One fault placement and where it sits in the shrinking order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub fault: Fault,
    /// How much of the fault there is (a pause's or a hold's length; 0 for
    /// crashes and jumps): shrinking prefers less.
    pub length_ms: u64,
    /// The step it strikes at: shrinking prefers earlier.
    pub step: u32,
}

/// The pause lengths tried, shortest first: just under and just over the
/// lease, past the renewal period, past the lease plus a consensus expiry
/// tick and a full backoff (so a successor surely got in), twice and four
/// times the lease.
pub fn pause_lengths_ms(scenario: &Scenario) -> Vec<u64> {
    let ttl_ms = scenario.ttl_ms;
    let mut lengths = vec![
        ttl_ms.saturating_sub(1).max(1),
        ttl_ms + 1,
        renew_interval_us(scenario) / 1000 + 1,
        ttl_ms + 500 + scenario.backoff_ms_max + 1,
        ttl_ms * 2,
        ttl_ms * 4,
    ];
    lengths.sort_unstable();
    lengths.dedup();
    lengths
}

/// Every single placement for this design, in the order tried.
pub fn singles(scenario: &Scenario, base: &Trace) -> Vec<Placement> {
    let mut placements = Vec::new();
    let lengths = pause_lengths_ms(scenario);
    for worker in scenario.worker_actors() {
        let sends = sends_of(base, worker);
        for (step, &(index, at_us)) in sends.iter().enumerate() {
            let step = step as u16 + 1;
            for &pause_ms in &lengths {
                let fault = Fault::Pause { worker, when: When::BeforeSend(step), pause_ms };
                placements.push(Placement { fault, length_ms: pause_ms, step: u32::from(step) });
            }
            let fault = Fault::Crash { worker, at_ms: at_us / 1000, after_event: Some(index) };
            placements.push(Placement { fault, length_ms: 0, step: u32::from(step) });
        }
        for write in 1..=scenario.writes_per_hold {
            for delay_ms in [scenario.ttl_ms + 1, scenario.ttl_ms + 500 + scenario.backoff_ms_max + 1] {
                let fault = Fault::DelayWrite { worker, write, delay_ms };
                placements.push(Placement { fault, length_ms: delay_ms, step: u32::from(write) });
            }
        }
    }
    placements.extend(node_placements(scenario, base));
    placements
}

/// The worker's messages in the fault-free run: (event index, time).
fn sends_of(base: &Trace, worker: Actor) -> Vec<(u32, u64)> {
    let sends = base.events.iter().filter(|event| event.actor == worker && matches!(event.kind, Kind::Send { .. }));
    sends.map(|event| (event.index, event.t_us)).take(usize::from(STEPS_MAX)).collect()
}

/// Lock-node crashes (briefly, and for twice the lease) and Redis clock
/// jumps past the lease, at each moment the service granted, counted or
/// renewed something in the fault-free run.
fn node_placements(scenario: &Scenario, base: &Trace) -> Vec<Placement> {
    let moments: Vec<(u32, u64)> = base
        .events
        .iter()
        .filter(|event| matches!(event.kind, Kind::Granted { .. } | Kind::TokenIssued { .. } | Kind::Renewed { .. }))
        .map(|event| (event.index, event.t_us / 1000))
        .take(NODE_MOMENTS_MAX)
        .collect();
    let mut placements = Vec::new();
    for node in (0..scenario.lock_service.nodes()).map(Actor::LockNode) {
        for (step, &(index, at_ms)) in moments.iter().enumerate() {
            let after_event = Some(index);
            let step = step as u32 + 1;
            for down_ms in [1_000, scenario.ttl_ms * 2] {
                placements.push(Placement { fault: Fault::NodeCrash { node, at_ms, down_ms, after_event }, length_ms: down_ms, step });
            }
            if scenario.lock_service != LockService::Consensus {
                let jump = Fault::ClockJump { node, at_ms, jump_ms: scenario.ttl_ms as i64, after_event };
                placements.push(Placement { fault: jump, length_ms: 0, step });
            }
        }
    }
    placements
}
