//! The single faults the explorer places, read off a run: every fault kind
//! the design allows, at every event of the run its target takes part in,
//! within the search's `Bounds`. Each worker is paused before each of its
//! messages, loses each one, crashes right after each one, and has each
//! write held; each lock node crashes, is cut off, loses its reply, jumps
//! its clock either way right after each of the service's steps, and runs
//! its clock fast or slow from the start. Crashes, cuts, losses and jumps
//! are pinned to the event they follow, not to its time rounded to a
//! millisecond: a crash meant for "right after the grant" lands there,
//! inside a replication window of milliseconds.

use super::bounds::Bounds;
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;
use crate::scenario::{Fault, FaultKind, Scenario, When};
use crate::trace::Trace;

/// One fault placement and where it sits in the shrinking order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub fault: Fault,
    /// How much of the fault there is (a pause's, hold's, cut's or
    /// downtime's length; a jump's size; 0 for crashes, losses and drift):
    /// shrinking prefers less.
    pub length_ms: u64,
    /// Where it strikes in the run it was read from: twice the index of the
    /// event it comes before, or that plus one for the event it follows
    /// (drift strikes at 0, from the start). Shrinking prefers earlier, and
    /// a pair's second fault strikes after its first.
    pub position: u32,
}

/// Every single placement for this design on `run`, in the order tried:
/// earliest first.
pub fn singles(scenario: &Scenario, bounds: &Bounds, run: &Trace) -> Vec<Placement> {
    let mut placements = Vec::new();
    for worker in scenario.worker_actors() {
        worker_placements(scenario, bounds, run, worker, &mut placements);
    }
    for node in (0..scenario.lock_service.nodes()).map(Actor::LockNode) {
        node_placements(bounds, run, node, &mut placements);
    }
    placements.retain(|placement| bounds.kinds.contains(&placement.fault.kind()));
    // Stable: placements at one position keep the order they were made in.
    placements.sort_by_key(|placement| placement.position);
    placements
}

/// Before, at and right after each of the worker's first messages.
fn worker_placements(scenario: &Scenario, bounds: &Bounds, run: &Trace, worker: Actor, out: &mut Vec<Placement>) {
    let sends = run.events.iter().filter(|event| event.actor == worker && matches!(event.kind, Kind::Send { .. }));
    // The write numbers already placed: a retried job numbers its writes
    // from 1 again, and a scenario's "write n" names the first.
    let mut writes_placed: u64 = 0;
    for (step, event) in sends.take(usize::from(bounds.steps_max)).enumerate() {
        let (index, at_ms) = (event.index, event.t_us / 1000);
        let step = step as u16 + 1;
        for &pause_ms in &bounds.pause_lengths_ms {
            let fault = Fault::Pause { worker, when: When::BeforeSend(step), pause_ms };
            out.push(Placement { fault, length_ms: pause_ms, position: 2 * index });
        }
        // The first message the worker sends after the event before this
        // one is this one.
        let lose = Fault::LoseMessage { from: worker, at_ms, after_event: index.checked_sub(1) };
        out.push(Placement { fault: lose, length_ms: 0, position: (2 * index).saturating_sub(1) });
        let crash = Fault::Crash { worker, at_ms, after_event: Some(index) };
        out.push(Placement { fault: crash, length_ms: 0, position: 2 * index + 1 });
        // A write past the hold's count (a conditional write redone) has no
        // number a scenario can name, nor has a retried job's write.
        let write = match event.kind {
            Kind::Send { body: Msg::Write(request), .. } if request.nth <= scenario.writes_per_hold && request.nth < 64 => {
                let bit = 1u64 << request.nth;
                let first = writes_placed & bit == 0;
                writes_placed |= bit;
                first.then_some(request.nth)
            }
            _ => None,
        };
        if let Some(write) = write {
            for &delay_ms in &bounds.hold_lengths_ms {
                let fault = Fault::DelayWrite { worker, write, delay_ms };
                out.push(Placement { fault, length_ms: delay_ms, position: 2 * index });
            }
        }
    }
}

/// Right after each of the service's first steps, and from the start.
fn node_placements(bounds: &Bounds, run: &Trace, node: Actor, out: &mut Vec<Placement>) {
    for &ppm in &bounds.drift_ppm {
        out.push(Placement { fault: Fault::ClockDrift { node, ppm }, length_ms: 0, position: 0 });
    }
    let moments =
        run.events.iter().filter(|event| matches!(event.kind, Kind::Granted { .. } | Kind::TokenIssued { .. } | Kind::Renewed { .. }));
    for event in moments.take(usize::from(bounds.node_moments_max)) {
        let (after_event, at_ms, position) = (Some(event.index), event.t_us / 1000, 2 * event.index + 1);
        let mut place = |fault: Fault, length_ms: u64| out.push(Placement { fault, length_ms, position });
        for &down_ms in &bounds.node_down_ms {
            place(Fault::NodeCrash { node, at_ms, down_ms, after_event }, down_ms);
        }
        for &for_ms in &bounds.partition_ms {
            place(Fault::Partition { node, at_ms, for_ms, from: None, after_event }, for_ms);
        }
        place(Fault::LoseMessage { from: node, at_ms, after_event }, 0);
        for &jump_ms in &bounds.clock_jumps_ms {
            place(Fault::ClockJump { node, at_ms, jump_ms, after_event }, jump_ms.unsigned_abs());
        }
    }
}

/// How many placements of each kind, in `FaultKind::ALL` order.
pub fn count_by_kind<'a>(placements: impl IntoIterator<Item = &'a Placement>) -> Vec<(FaultKind, usize)> {
    let mut counts: Vec<(FaultKind, usize)> = FaultKind::ALL.iter().map(|kind| (*kind, 0)).collect();
    for placement in placements {
        if let Some(slot) = counts.iter_mut().find(|(kind, _)| *kind == placement.fault.kind()) {
            slot.1 += 1;
        }
    }
    counts
}
