//! Carrying out workers' actions, and the faults that strike workers: the
//! stop-the-world pause and the crash.

use super::{Due, World};
use crate::actor::Actor;
use crate::event::{Kind, Loss};
use crate::msg::{Msg, WriteReq};
use crate::scenario::{Fault, When};
use crate::worker::{Action, Actions};

/// Longest random stagger of a worker's threads when it resumes from a pause:
/// which of its pending actions runs first is a real race.
const RESUME_JITTER_US: u64 = 100;

impl World<'_> {
    /// Carries out a worker's actions in order. A pause due "before write
    /// n" or "before message n" strikes when the worker is about to send
    /// that message: it and everything after it wait for the resume.
    pub(super) fn perform(&mut self, worker: u8, mut actions: Actions) {
        let actor = Actor::Worker(worker);
        // A frozen or dead process does nothing: the world held its steps.
        let slot = &self.slots[usize::from(worker)];
        crate::invariant!(!slot.crashed, "crashed worker {actor:?} acted");
        crate::invariant!(slot.paused_until_us.is_none(), "paused worker {actor:?} acted");
        for position in 0..actions.len() {
            match actions[position] {
                Action::Send { to, req, body } => {
                    if let Some(pause_ms) = self.pause_before_send(worker, &body) {
                        let held: Actions = actions.drain(position..).collect();
                        self.begin_pause(worker, pause_ms * 1000);
                        self.slots[usize::from(worker)].deferred.push(Due::Perform { worker, actions: held });
                        break;
                    }
                    self.slots[usize::from(worker)].sends_done += 1;
                    let body = match body {
                        Msg::Write(request) => Msg::Write(WriteReq { epoch: self.history.epoch_of(actor), ..request }),
                        other => other,
                    };
                    self.send(actor, to, req, body);
                }
                Action::After { delay_us, timer } => self.queue.push(self.now_us + delay_us, Due::Timer { worker, timer }),
                Action::Note { kind, token } => {
                    self.log(actor, kind, token);
                }
            }
        }
        // Hand the buffer back for the next step (held actions took their own).
        actions.clear();
        if self.scratch.capacity() < actions.capacity() {
            self.scratch = actions;
        }
        if self.scenario.fleet.is_some() {
            self.arm_next_job(worker);
        }
    }

    /// The length of an unfired pause due just before this message, firing
    /// it: "before message n" counts every message the worker sends, "before
    /// write n" only its writes.
    fn pause_before_send(&mut self, worker: u8, body: &Msg) -> Option<u64> {
        let actor = Actor::Worker(worker);
        let next_send = self.slots[usize::from(worker)].sends_done + 1;
        let write = match body {
            Msg::Write(request) => Some(request.nth),
            _ => None,
        };
        let index = self.scenario.faults.iter().enumerate().position(|(index, fault)| {
            !self.fault_fired(index)
                && match *fault {
                    Fault::Pause { worker, when: When::BeforeWrite(n), .. } => worker == actor && write == Some(n),
                    Fault::Pause { worker, when: When::BeforeSend(n), .. } => worker == actor && u32::from(n) == next_send,
                    _ => false,
                }
        })?;
        self.fire_fault(index);
        match self.scenario.faults[index] {
            Fault::Pause { pause_ms, .. } => Some(pause_ms),
            _ => unreachable!("the position matched a pause"),
        }
    }

    pub(super) fn begin_pause(&mut self, worker: u8, pause_us: u64) {
        let until_us = self.now_us + pause_us;
        let slot = &mut self.slots[usize::from(worker)];
        let until_us = slot.paused_until_us.map_or(until_us, |earlier| earlier.max(until_us));
        crate::invariant!(!slot.crashed, "a crashed worker paused");
        crate::invariant!(until_us >= self.now_us, "a pause that ends before it begins");
        let already_paused = slot.paused_until_us.replace(until_us).is_some();
        if !already_paused {
            self.log(Actor::Worker(worker), Kind::PauseBegan { until_us }, None);
        }
        self.queue.push(until_us, Due::Resume { worker });
    }

    pub(super) fn resume(&mut self, worker: u8) {
        let slot = &mut self.slots[usize::from(worker)];
        match slot.paused_until_us {
            Some(until_us) if until_us <= self.now_us => slot.paused_until_us = None,
            // An earlier resume of a pause that was since extended.
            _ => return,
        }
        // Its threads wake in a random order; what its connections buffered
        // is read in the order it arrived, by one of them.
        crate::invariant!(!slot.crashed, "a crashed worker resumed");
        let deferred = std::mem::take(&mut slot.deferred);
        for due in deferred {
            let jitter_us = slot.rng.between(0, RESUME_JITTER_US);
            self.queue.push(self.now_us + jitter_us, due);
        }
        if !slot.inbox.is_empty() {
            let jitter_us = slot.rng.between(0, RESUME_JITTER_US);
            self.queue.push(self.now_us + jitter_us, Due::Drain { worker });
        }
        self.log(Actor::Worker(worker), Kind::PauseEnded, None);
    }

    pub(super) fn crash(&mut self, worker: u8) {
        let slot = &mut self.slots[usize::from(worker)];
        slot.crashed = true;
        slot.paused_until_us = None;
        slot.deferred.clear();
        slot.inbox.clear();
        crate::invariant!(slot.deferred.is_empty() && slot.inbox.is_empty(), "a crashed worker kept work to do");
        self.log(Actor::Worker(worker), Kind::Crashed, None);
    }

    /// Reads what the worker's connections buffered while it was frozen, in
    /// order, until it is done or frozen again.
    pub(super) fn drain(&mut self, worker: u8) {
        for _ in 0..super::INBOX_MAX {
            let slot = &mut self.slots[usize::from(worker)];
            if slot.paused_until_us.is_some() || slot.crashed {
                return;
            }
            let Some(Due::Deliver { msg, from, to, req, body, lost }) = slot.inbox.pop_front() else { return };
            self.deliver(msg, from, to, req, body, lost);
        }
    }

    pub(super) fn drop_for_crash(&mut self, due: Due) {
        if let Due::Deliver { msg, to, req, body, .. } = due {
            self.log_lost(msg, to, req, body, Loss::Crashed(to));
        }
    }
}
