//! Carrying out workers' actions, and the faults that strike workers: the
//! stop-the-world pause and the crash.

use super::{Due, World};
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;
use crate::scenario::{Fault, When};
use crate::worker::Action;

/// Longest random stagger of a worker's threads when it resumes from a pause:
/// which of its pending actions runs first is a real race.
const RESUME_JITTER_US: u64 = 100;

impl World<'_> {
    /// Carries out a worker's actions in order. A pause due "before write n"
    /// strikes when the worker is about to send that write: the write and
    /// everything after it wait for the resume.
    pub(super) fn perform(&mut self, worker: u8, actions: Vec<Action>) {
        let actor = Actor::Worker(worker);
        let mut actions = actions.into_iter();
        while let Some(action) = actions.next() {
            match action {
                Action::Send(to, Msg::Write(mut request)) => {
                    if let Some(pause_ms) = self.pause_before_write(actor, request.nth) {
                        let mut held = vec![Action::Send(to, Msg::Write(request))];
                        held.extend(actions);
                        self.begin_pause(worker, pause_ms);
                        self.slots[usize::from(worker)].deferred.push(Due::Perform { worker, actions: held });
                        return;
                    }
                    request.epoch = self.observer.epoch_of(actor);
                    self.send(actor, to, Msg::Write(request));
                }
                Action::Send(to, body) => self.send(actor, to, body),
                Action::After { delay_us, timer } => self.queue.push(self.now_us + delay_us, Due::Timer { worker, timer }),
                Action::Note { kind, token, text } => self.log(actor, kind, token, text),
            }
        }
    }

    /// The length of an unfired "pause before write n" fault, firing it.
    fn pause_before_write(&mut self, actor: Actor, nth: u8) -> Option<u64> {
        let index = self.scenario.faults.iter().enumerate().position(|(index, fault)| {
            !self.fault_fired[index]
                && matches!(*fault, Fault::Pause { worker, when: When::BeforeWrite(n), .. } if worker == actor && n == nth)
        })?;
        self.fault_fired[index] = true;
        match self.scenario.faults[index] {
            Fault::Pause { pause_ms, .. } => Some(pause_ms),
            _ => unreachable!("the position matched a pause"),
        }
    }

    pub(super) fn begin_pause(&mut self, worker: u8, pause_ms: u64) {
        let until_us = self.now_us + pause_ms * 1000;
        let slot = &mut self.slots[usize::from(worker)];
        let until_us = slot.paused_until_us.map_or(until_us, |earlier| earlier.max(until_us));
        let already_paused = slot.paused_until_us.replace(until_us).is_some();
        if !already_paused {
            let actor = Actor::Worker(worker);
            let text = format!(
                "{actor} froze in a stop-the-world pause of {}: no thread of it runs, timers included",
                crate::format_us(pause_ms * 1000)
            );
            self.log(actor, Kind::PauseBegan { until_us }, None, text);
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
        let deferred = std::mem::take(&mut slot.deferred);
        for due in deferred {
            let jitter_us = slot.rng.between(0, RESUME_JITTER_US);
            self.queue.push(self.now_us + jitter_us, due);
        }
        let actor = Actor::Worker(worker);
        self.log(actor, Kind::PauseEnded, None, format!("{actor} resumed, unaware that any time passed"));
    }

    pub(super) fn crash(&mut self, worker: u8) {
        let slot = &mut self.slots[usize::from(worker)];
        slot.crashed = true;
        slot.paused_until_us = None;
        slot.deferred.clear();
        let actor = Actor::Worker(worker);
        let text = format!("{actor} crashed without releasing: only the lease's expiry can free the lock");
        self.log(actor, Kind::Crashed, None, text);
    }

    pub(super) fn drop_for_crash(&mut self, due: Due) {
        if let Due::Deliver { msg, to, body, .. } = due {
            let label = body.label();
            let text = format!("{label} reached {to}, which has crashed: nobody reads it");
            self.log(to, Kind::Lost { msg, to, label }, None, text);
        }
    }
}
