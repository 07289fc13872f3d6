//! The run's record: every event in a full run (typed, no sentence), only a
//! count in a summary run, and the bound on both. Writes' fates are settled
//! here, onto the write's `Send`, when the store answers or the packet is
//! lost.

use super::World;
use crate::actor::Actor;
use crate::event::{Event, Fate, Kind, Loss};
use crate::mode::Mode;
use crate::msg::Msg;
use crate::observer::Observer;

/// Marks a message whose `Send` was not recorded.
const UNRECORDED: u32 = u32::MAX;
/// Room a full run's record starts with: a story's run logs about 120
/// events, so most runs never grow the vector (a longer run doubles it as
/// usual; the bound is still `events_max`).
const EVENTS_RESERVED: usize = 256;

pub struct Log {
    mode: Mode,
    events_max: u32,
    count: u32,
    truncated: bool,
    events: Vec<Event>,
    /// Full runs: the index of each message's `Send`, by message id from
    /// `send_base` (0, or a window's first recorded message).
    send_index: Vec<u32>,
    send_base: Option<u32>,
    /// A window run keeps only the events from `.0` to `.1` µs (a fleet's
    /// incident, replayed without the hours around it).
    window: Option<(u64, u64)>,
    /// Whether the latest event was kept (always, outside a window).
    kept_last: bool,
}

impl Log {
    pub fn new(mode: Mode, events_max: u32) -> Log {
        let (send_base, window, kept_last) = (None, None, true);
        let reserved = if mode == Mode::Full { EVENTS_RESERVED.min(events_max as usize) } else { 0 };
        let (events, send_index) = (Vec::with_capacity(reserved), Vec::with_capacity(reserved / 2));
        Log { mode, events_max, count: 0, truncated: false, events, send_index, send_base, window, kept_last }
    }

    /// The same log, keeping only the events from `from_us` to `to_us`.
    pub fn windowed(self, from_us: u64, to_us: u64) -> Log {
        Log { window: Some((from_us, to_us)), ..self }
    }

    /// How many events the run has logged so far.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Whether the run has reached its bound.
    pub fn full(&self) -> bool {
        self.count >= self.events_max
    }

    /// Whether an event was refused for the bound: the run stops there.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    pub fn truncate(&mut self) {
        self.truncated = true;
    }

    /// The events; a truncated full run ends with one closing line past its
    /// bound, saying so.
    pub fn finish(mut self, end_us: u64, observer: &Observer) -> Vec<Event> {
        if self.truncated && self.mode == Mode::Full {
            let kind = Kind::Truncated { events_max: self.events_max };
            self.push(end_us, Actor::Store, kind, None, observer);
        }
        self.events
    }

    fn push(&mut self, t_us: u64, actor: Actor, kind: Kind, token: Option<u64>, observer: &Observer) {
        self.kept_last = self.window.is_none_or(|(from_us, to_us)| (from_us..=to_us).contains(&t_us));
        if !self.kept_last {
            return;
        }
        let index = self.events.len() as u32;
        // The record never goes back in time.
        crate::invariant!(self.events.last().is_none_or(|last| last.t_us <= t_us), "an event at {t_us} µs logged after a later one");
        let tally = observer.tally();
        if let Kind::Send { msg, .. } = kind {
            let base = *self.send_base.get_or_insert(if self.window.is_some() { msg } else { 0 });
            let slot = msg.saturating_sub(base) as usize;
            if self.send_index.len() <= slot {
                self.send_index.resize(slot + 1, UNRECORDED);
            }
            self.send_index[slot] = index;
        }
        self.events.push(Event { index, t_us, actor, kind, token, tally });
    }

    /// Writes the fate of message `msg` onto its `Send`.
    fn settle(&mut self, msg: u32, fate: Fate) {
        // The settling event, if the window kept it.
        let settled_at = self.kept_last.then(|| self.events.len().saturating_sub(1) as u32);
        let Some(base) = self.send_base.filter(|base| msg >= *base) else { return };
        let Some(&index) = self.send_index.get((msg - base) as usize) else { return };
        if index == UNRECORDED {
            return;
        }
        if let Kind::Send { fate: slot, settled_at: at, .. } = &mut self.events[index as usize].kind {
            *slot = Some(fate);
            *at = settled_at;
        }
    }
}

impl World<'_> {
    /// Logs an event, unless the run is at its bound: then it is marked
    /// truncated and stops at the next step, with exactly `events_max`
    /// events before its closing line. Returns whether it was logged.
    pub(super) fn log(&mut self, actor: Actor, kind: Kind, token: Option<u64>) -> bool {
        if self.log.full() {
            self.log.truncate();
            return false;
        }
        self.history.record(&kind);
        self.observer.observe(self.now_us, actor, &kind, token);
        self.log.count += 1;
        crate::invariant!(self.log.count <= self.log.events_max, "a run logged past its bound of {} events", self.log.events_max);
        if self.mode == Mode::Full {
            self.log.push(self.now_us, actor, kind, token, &self.observer);
        }
        if self.pinned_next < self.pinned.len() {
            self.arm_pinned_losses();
        }
        true
    }

    /// A loss pinned after this event is armed at once, so it takes the
    /// very next message, even one sent in the same step. (Faults that act
    /// — a crash, a pause, a cut — wait for the step to end.)
    fn arm_pinned_losses(&mut self) {
        while let Some(&(event, index)) = self.pinned.get(self.pinned_next) {
            if event >= self.log.count || !matches!(self.scenario.faults[usize::from(index)], crate::scenario::Fault::LoseMessage { .. }) {
                break;
            }
            self.pinned_next += 1;
            self.fault_start_us[usize::from(index)] = self.now_us;
        }
    }

    /// Logs a message that will never be read; a lost write's fate is settled.
    pub(super) fn log_lost(&mut self, msg: u32, to: Actor, req: u32, body: Msg, loss: Loss) {
        if self.log(to, Kind::Lost { msg, to, req, body, loss }, None) && matches!(body, Msg::Write(_)) && self.mode == Mode::Full {
            self.log.settle(msg, Fate::Lost);
        }
    }

    /// Logs the store's verdict on write `msg` and settles its fate.
    pub(super) fn log_verdict(&mut self, kind: Kind, token: Option<u64>) {
        let (msg, fate) = match kind {
            Kind::WriteAccepted { msg, stale_overwrite: true, .. } => (msg, Fate::StaleOverwrite),
            Kind::WriteAccepted { msg, zombie: true, .. } => (msg, Fate::Zombie),
            Kind::WriteAccepted { msg, .. } => (msg, Fate::Accepted),
            Kind::WriteRejected { msg, rightful: true, .. } => (msg, Fate::RightfulRejected),
            Kind::WriteRejected { msg, .. } => (msg, Fate::Rejected),
            _ => unreachable!("not a store verdict: only a write's acceptance or refusal is"),
        };
        if self.log(Actor::Store, kind, token) && self.mode == Mode::Full {
            self.log.settle(msg, fate);
        }
    }
}
