//! A fleet's two rhythms: each worker starts its next job after a rest
//! while the span lasts, and pauses as its distribution draws, the gaps
//! measured from the end of its last pause. Both stop at the span's end, so
//! a fleet run ends when its last jobs have.

use super::{Due, World};
use crate::incident::Incidents;
use crate::mode::Mode;
use crate::worker::Timer;
use crate::Scenario;

impl World<'static> {
    /// A world that owns its scenario, for a run taken in slices.
    pub fn owning(scenario: Scenario, mode: Mode) -> World<'static> {
        World::of(std::borrow::Cow::Owned(scenario), mode)
    }
}

impl World<'_> {
    /// At most `slice` more steps: `None` while work remains, or whether
    /// the bound ended the run.
    pub fn advance(&mut self, slice: u64) -> Option<bool> {
        self.step_some(slice)
    }

    /// The simulated clock.
    pub fn now_us(&self) -> u64 {
        self.now_us
    }

    /// The incidents so far (a fleet's; none for a story).
    pub fn incidents(&self) -> Option<&Incidents> {
        self.observer.incidents.as_ref()
    }

    fn span_end_us(&self) -> u64 {
        self.scenario.fleet.map_or(0, |fleet| fleet.span_ms * 1000)
    }

    /// After a worker's step: if its job is over, the next one after the rest.
    pub(super) fn arm_next_job(&mut self, worker: u8) {
        let Some(fleet) = self.scenario.fleet else { return };
        let at_us = self.now_us + fleet.think_ms * 1000;
        let span_end_us = self.span_end_us();
        let slot = &mut self.slots[usize::from(worker)];
        if slot.next_job_armed || !slot.worker.is_done() || slot.crashed || at_us >= span_end_us {
            return;
        }
        slot.next_job_armed = true;
        self.queue.push(at_us, Due::Timer { worker, timer: Timer::NextJob });
    }

    /// The job timer fired: the worker may be armed again after this job.
    pub(super) fn next_job_started(&mut self, worker: u8) {
        let slot = &mut self.slots[usize::from(worker)];
        // One next job at a time: its timer was armed once.
        crate::invariant!(slot.next_job_armed, "worker {worker}'s next job started unarmed");
        crate::invariant!(slot.worker.is_done(), "worker {worker}'s next job started before its last ended");
        slot.next_job_armed = false;
    }

    /// Schedules each worker's first pause, from the start.
    pub(super) fn schedule_fleet_pauses(&mut self) {
        for worker in 0..self.scenario.workers {
            self.schedule_fleet_pause(worker, 0);
        }
    }

    fn schedule_fleet_pause(&mut self, worker: u8, from_us: u64) {
        let Some(fleet) = self.scenario.fleet else { return };
        let law = fleet.pauses.law();
        let Some(rng) = self.slots[usize::from(worker)].pauses.as_mut() else { return };
        let at_us = from_us + law.gap_us(rng.unit());
        if at_us < self.span_end_us() {
            self.queue.push(at_us, Due::FleetPause { worker });
        }
    }

    /// A drawn pause strikes; the next is drawn from when this one ends.
    pub(super) fn fleet_pause(&mut self, worker: u8) {
        let Some(fleet) = self.scenario.fleet else { return };
        let slot = &mut self.slots[usize::from(worker)];
        let Some(rng) = slot.pauses.as_mut() else { return };
        let pause_us = fleet.pauses.law().length_us(rng.unit()).max(1);
        if slot.crashed {
            return;
        }
        self.begin_pause(worker, pause_us);
        self.schedule_fleet_pause(worker, self.now_us + pause_us);
    }
}
