//! A worker as a pure state machine: it takes a timer or a message and
//! returns what should happen (messages, timers, notes for the trace). It
//! never sees the clock of the world, faults or other workers: a paused or
//! crashed worker simply receives nothing until the world lets it.

use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::{Msg, WriteReq};
use crate::rng::SimRng;
use crate::scenario::{Release, Scenario};

/// Timers a worker sets on itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Start,
    Retry,
    Work,
    /// Watchdog renewal; the generation lets a released lease ignore old timers.
    Renew(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Send(Actor, Msg),
    After { delay_us: u64, timer: Timer },
    Note { kind: Kind, token: Option<u64>, text: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Setting,
    Incrementing,
    Backoff,
    Working,
    Checking,
    Writing,
    Releasing,
    Done,
}

pub struct Worker {
    actor: Actor,
    lock: Actor,
    phase: Phase,
    attempt: u32,
    /// This acquisition's random lock value (the owner token of the seeds).
    value: u64,
    token: Option<u64>,
    writes_done: u8,
    /// Whether the worker thinks it holds the lock.
    believes: bool,
    renew_generation: u32,
}

impl Worker {
    pub fn new(actor: Actor, lock: Actor) -> Worker {
        Worker {
            actor,
            lock,
            phase: Phase::Idle,
            attempt: 0,
            value: 0,
            token: None,
            writes_done: 0,
            believes: false,
            renew_generation: 0,
        }
    }

    pub fn on_timer(&mut self, timer: Timer, scenario: &Scenario, rng: &mut SimRng) -> Vec<Action> {
        match (timer, self.phase) {
            (Timer::Start, Phase::Idle) => {
                let mut actions = vec![self.note(Kind::Start, format!("{} starts and asks for the lock", self.actor))];
                actions.extend(self.try_acquire(scenario, rng));
                actions
            }
            (Timer::Retry, Phase::Backoff) => self.try_acquire(scenario, rng),
            (Timer::Work, Phase::Working) if self.believes => self.before_write(scenario),
            (Timer::Renew(generation), Phase::Working | Phase::Checking | Phase::Writing)
                if generation == self.renew_generation && self.believes =>
            {
                vec![
                    Action::Send(self.lock, Msg::Renew { value: self.value, ttl_ms: scenario.ttl_ms }),
                    Action::After { delay_us: renew_interval_us(scenario), timer: timer },
                ]
            }
            // A timer that outlived its purpose (the lease was released or lost).
            _ => Vec::new(),
        }
    }

    pub fn on_message(&mut self, msg: Msg, scenario: &Scenario, rng: &mut SimRng) -> Vec<Action> {
        match (msg, self.phase) {
            (Msg::SetReply { ok: true }, Phase::Setting) => {
                self.phase = Phase::Incrementing;
                vec![Action::Send(self.lock, Msg::Incr)]
            }
            (Msg::SetReply { ok: false }, Phase::Setting) => self.acquire_failed(scenario, rng),
            (Msg::IncrReply { value }, Phase::Incrementing) => self.acquired(value, scenario),
            (Msg::CheckReply { mine: true }, Phase::Checking) => self.write(),
            (Msg::CheckReply { mine: false }, Phase::Checking) => {
                self.lose_lock("its lease check says the lock is no longer its own: it skips the write")
            }
            (Msg::RenewReply { ok: false }, _) if self.believes => {
                self.lose_lock("the watchdog's renewal was refused: the lease had already expired")
            }
            (Msg::WriteReply { accepted, .. }, Phase::Writing) => self.after_write(accepted, scenario),
            (Msg::ReleaseReply { deleted }, Phase::Releasing) => {
                self.phase = Phase::Done;
                let outcome = if deleted { "the lock key was deleted" } else { "the lock was not its own any more: nothing deleted" };
                vec![self.note(Kind::Finished, format!("{} is done: {outcome}", self.actor))]
            }
            // Replies that arrive after the worker moved on (e.g. a renewal
            // answered after the release) change nothing.
            _ => Vec::new(),
        }
    }

    fn note(&self, kind: Kind, text: String) -> Action {
        Action::Note { kind, token: self.token, text }
    }

    fn try_acquire(&mut self, scenario: &Scenario, rng: &mut SimRng) -> Vec<Action> {
        self.attempt += 1;
        self.phase = Phase::Setting;
        self.value = rng.value();
        vec![Action::Send(self.lock, Msg::SetNx { value: self.value, ttl_ms: scenario.ttl_ms })]
    }

    fn acquire_failed(&mut self, scenario: &Scenario, rng: &mut SimRng) -> Vec<Action> {
        let attempt = self.attempt;
        let mut actions = vec![self.note(
            Kind::AcquireFailed { attempt },
            format!("{} did not get the lock (attempt {attempt}): someone holds it", self.actor),
        )];
        if attempt >= scenario.acquire_attempts_max {
            self.phase = Phase::Done;
            actions.push(self.note(Kind::GaveUp, format!("{} gives up after {attempt} attempts", self.actor)));
            return actions;
        }
        self.phase = Phase::Backoff;
        let delay_us = backoff_us(attempt, scenario, rng);
        actions.push(self.note(
            Kind::Backoff { delay_us },
            format!("{} backs off for {} before trying again", self.actor, crate::format_us(delay_us)),
        ));
        actions.push(Action::After { delay_us, timer: Timer::Retry });
        actions
    }

    fn acquired(&mut self, token: u64, scenario: &Scenario) -> Vec<Action> {
        self.token = Some(token);
        self.believes = true;
        self.phase = Phase::Working;
        self.writes_done = 0;
        let mut actions = vec![self.note(
            Kind::Acquired,
            format!("{} holds the lock with token {token} (lease {} ms)", self.actor, scenario.ttl_ms),
        )];
        actions.push(Action::After { delay_us: scenario.work_ms * 1000, timer: Timer::Work });
        if scenario.renewal {
            self.renew_generation += 1;
            let timer = Timer::Renew(self.renew_generation);
            actions.push(Action::After { delay_us: renew_interval_us(scenario), timer });
        }
        actions
    }

    fn before_write(&mut self, scenario: &Scenario) -> Vec<Action> {
        if scenario.check_before_write {
            self.phase = Phase::Checking;
            return vec![Action::Send(self.lock, Msg::Check { value: self.value })];
        }
        self.write()
    }

    fn write(&mut self) -> Vec<Action> {
        self.phase = Phase::Writing;
        let request = WriteReq { token: self.token, epoch: 0, nth: self.writes_done + 1 };
        vec![Action::Send(Actor::Store, Msg::Write(request))]
    }

    fn after_write(&mut self, accepted: bool, scenario: &Scenario) -> Vec<Action> {
        self.writes_done += 1;
        let mut actions = Vec::new();
        if !accepted && self.believes {
            actions.extend(self.lose_lock("the store refused its token: someone newer holds the lock"));
        }
        if !self.believes {
            // It learnt it lost the lock while the write was in flight (or from
            // the refusal): a careful client still runs its release step.
            self.phase = Phase::Done;
            actions.extend(self.release(scenario));
            return actions;
        }
        if self.writes_done < scenario.writes_per_hold {
            self.phase = Phase::Working;
            actions.push(Action::After { delay_us: scenario.work_ms * 1000, timer: Timer::Work });
            return actions;
        }
        self.believes = false;
        actions.push(self.note(Kind::Released, format!("{} finished its work and releases the lock", self.actor)));
        actions.extend(self.release(scenario));
        actions
    }

    fn release(&mut self, scenario: &Scenario) -> Vec<Action> {
        self.phase = Phase::Releasing;
        self.renew_generation += 1;
        let msg = match scenario.release {
            Release::CompareAndDelete => Msg::ReleaseCad { value: self.value },
            Release::NaiveDel => Msg::Del,
        };
        vec![Action::Send(self.lock, msg)]
    }

    fn lose_lock(&mut self, why: &str) -> Vec<Action> {
        self.believes = false;
        self.renew_generation += 1;
        if matches!(self.phase, Phase::Working | Phase::Checking) {
            self.phase = Phase::Done;
        }
        vec![self.note(Kind::LostLock, format!("{} stops believing it holds the lock: {why}", self.actor))]
    }
}

/// The watchdog renews every third of the lease.
pub fn renew_interval_us(scenario: &Scenario) -> u64 {
    (scenario.ttl_ms * 1000 / 3).max(1)
}

/// Exponential backoff with "equal jitter": half the cap for sure, the other
/// half at random, so retries neither stampede nor starve.
fn backoff_us(attempt: u32, scenario: &Scenario, rng: &mut SimRng) -> u64 {
    let doublings = attempt.saturating_sub(1).min(20);
    let cap_ms = (scenario.backoff_ms_min << doublings).min(scenario.backoff_ms_max);
    let cap_us = cap_ms * 1000;
    cap_us / 2 + rng.between(0, cap_us / 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    fn sends(actions: &[Action]) -> Vec<&Msg> {
        actions.iter().filter_map(|action| if let Action::Send(_, msg) = action { Some(msg) } else { None }).collect()
    }

    #[test]
    fn acquire_takes_two_round_trips_then_works() {
        let scenario = Scenario::default();
        let mut rng = SimRng::new(1, Stream::Worker(0));
        let mut worker = Worker::new(Actor::Worker(0), Actor::LockNode(0));
        let actions = worker.on_timer(Timer::Start, &scenario, &mut rng);
        assert!(matches!(sends(&actions)[..], [Msg::SetNx { ttl_ms: 10_000, .. }]));
        let actions = worker.on_message(Msg::SetReply { ok: true }, &scenario, &mut rng);
        assert_eq!(sends(&actions), vec![&Msg::Incr]);
        let actions = worker.on_message(Msg::IncrReply { value: 33 }, &scenario, &mut rng);
        assert!(actions.contains(&Action::After { delay_us: 0, timer: Timer::Work }));
        let actions = worker.on_timer(Timer::Work, &scenario, &mut rng);
        assert_eq!(sends(&actions), vec![&Msg::Write(WriteReq { token: Some(33), epoch: 0, nth: 1 })]);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let scenario = Scenario { backoff_ms_min: 100, backoff_ms_max: 1000, ..Scenario::default() };
        let mut rng = SimRng::new(1, Stream::Worker(1));
        for attempt in 1..30 {
            let cap_us = (100_000u64 << (attempt - 1).min(20)).min(1_000_000);
            let delay_us = backoff_us(attempt, &scenario, &mut rng);
            assert!((cap_us / 2..=cap_us).contains(&delay_us), "attempt {attempt}: {delay_us}");
        }
    }

    #[test]
    fn a_refused_renewal_stops_the_work() {
        let scenario = Scenario { renewal: true, ..Scenario::default() };
        let mut rng = SimRng::new(1, Stream::Worker(0));
        let mut worker = Worker::new(Actor::Worker(0), Actor::LockNode(0));
        worker.on_timer(Timer::Start, &scenario, &mut rng);
        worker.on_message(Msg::SetReply { ok: true }, &scenario, &mut rng);
        worker.on_message(Msg::IncrReply { value: 7 }, &scenario, &mut rng);
        let actions = worker.on_message(Msg::RenewReply { ok: false }, &scenario, &mut rng);
        assert!(matches!(actions[..], [Action::Note { kind: Kind::LostLock, .. }]));
        assert!(worker.on_timer(Timer::Work, &scenario, &mut rng).is_empty(), "no write after losing the lock");
    }
}
