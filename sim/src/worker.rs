//! A worker as a pure state machine: it takes a timer or a message and
//! returns what should happen (messages, timers, notes for the trace). It
//! never sees faults or other workers: a paused or crashed worker simply
//! receives nothing until the world lets it. The acquire step depends on the
//! lock service; holding, working, writing and releasing are shared.

use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::{Msg, WriteReq};
use crate::rng::SimRng;
use crate::scenario::{LockService, Release, Scenario, REDLOCK_NODES, REDLOCK_QUORUM};

/// Timers a worker sets on itself. Generations let a worker ignore timers
/// that belong to a lease or a request it has moved past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Start,
    Retry,
    Work,
    Renew(u32),
    Timeout(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Send(Actor, Msg),
    After { delay_us: u64, timer: Timer },
    Note { kind: Kind, token: Option<u64>, text: String },
}

/// What the worker sees when it handles something: its own clock reading and
/// the scenario's settings.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub now_us: u64,
    pub scenario: &'a Scenario,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Backoff,
    /// Redis: waiting for `SET NX`'s answer, then for `INCR`'s.
    Setting,
    Incrementing,
    /// Redlock: collecting the masters' answers.
    Voting,
    /// Consensus: waiting for the lease, for the key's revision, for its turn.
    Leasing,
    Putting,
    Queued,
    /// Versioned store: reading the version to write against.
    Reading,
    Working,
    Checking,
    Writing,
    Releasing,
    Done,
}

/// A Redlock round in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Votes {
    yes: u8,
    answers: u8,
    started_us: u64,
}

pub struct Worker {
    actor: Actor,
    phase: Phase,
    attempt: u32,
    /// Redis: this acquisition's random lock value; consensus: the lease ID.
    value: u64,
    token: Option<u64>,
    /// Versioned store: the version read.
    version: Option<u64>,
    writes_done: u8,
    /// Whether the worker thinks it holds the lock.
    believes: bool,
    renew_generation: u32,
    request_generation: u32,
    votes: Votes,
    /// Redlock: when the worker's own validity time runs out.
    validity_end_us: u64,
}

impl Worker {
    pub fn new(actor: Actor) -> Worker {
        Worker {
            actor,
            phase: Phase::Idle,
            attempt: 0,
            value: 0,
            token: None,
            version: None,
            writes_done: 0,
            believes: false,
            renew_generation: 0,
            request_generation: 0,
            votes: Votes::default(),
            validity_end_us: 0,
        }
    }

    pub fn on_timer(&mut self, timer: Timer, ctx: Ctx, rng: &mut SimRng) -> Vec<Action> {
        match (timer, self.phase) {
            (Timer::Start, Phase::Idle) => {
                let mut actions = vec![self.note(Kind::Start, format!("{} starts and asks for the lock", self.actor))];
                actions.extend(self.try_acquire(ctx, rng));
                actions
            }
            (Timer::Retry, Phase::Backoff) => self.try_acquire(ctx, rng),
            (Timer::Work, Phase::Working) if self.believes || self.version.is_some() => self.before_write(ctx),
            (Timer::Renew(generation), _) if generation == self.renew_generation && self.renewing() => vec![
                Action::Send(Actor::LockNode(0), Msg::Renew { value: self.value, ttl_ms: ctx.scenario.ttl_ms }),
                Action::After { delay_us: renew_interval_us(ctx.scenario), timer },
            ],
            (Timer::Timeout(generation), _) if generation == self.request_generation => self.timed_out(ctx, rng),
            // A timer that outlived its purpose changes nothing.
            _ => Vec::new(),
        }
    }

    pub fn on_message(&mut self, from: Actor, msg: Msg, ctx: Ctx, rng: &mut SimRng) -> Vec<Action> {
        match (msg, self.phase) {
            (Msg::SetReply { ok: true }, Phase::Setting) => self.request(ctx, Phase::Incrementing, vec![(from, Msg::Incr)]),
            (Msg::SetReply { ok: false }, Phase::Setting) => self.acquire_failed(ctx, rng, "someone holds it"),
            (Msg::SetReply { ok }, Phase::Voting) => self.vote(ok, ctx, rng),
            (Msg::IncrReply { value }, Phase::Incrementing) => self.acquired(Some(value), ctx),
            (Msg::LeaseGrantReply { lease, .. }, Phase::Leasing) => {
                self.value = lease;
                let mut actions = self.start_renewing(ctx);
                actions.extend(self.request(ctx, Phase::Putting, vec![(from, Msg::PutLock { lease })]));
                actions
            }
            (Msg::PutReply { revision: 0, .. }, Phase::Putting) => self.acquire_failed(ctx, rng, "its lease was gone"),
            (Msg::PutReply { revision, owner: true }, Phase::Putting) => self.acquired(Some(revision), ctx),
            (Msg::PutReply { revision, owner: false }, Phase::Putting) => {
                self.phase = Phase::Queued;
                self.request_generation += 1;
                self.token = Some(revision);
                vec![self.note(Kind::Queued, format!("{} waits for its turn (key revision {revision})", self.actor))]
            }
            (Msg::LockReady { revision }, Phase::Queued) => self.acquired(Some(revision), ctx),
            (Msg::ReadReply { version }, Phase::Reading) => self.read(version, ctx),
            (Msg::CheckReply { mine: true }, Phase::Checking) => self.write(ctx),
            (Msg::CheckReply { mine: false }, Phase::Checking) => {
                self.lose_lock("its lease check says the lock is no longer its own: it skips the write")
            }
            (Msg::RenewReply { ok: false }, _) if self.believes => self.lose_lock("its renewal was refused: the lease had already expired"),
            (Msg::RenewReply { ok: false }, Phase::Queued) => {
                self.phase = Phase::Done;
                vec![self.note(Kind::GaveUp, format!("{}'s lease expired while it waited: it gives up", self.actor))]
            }
            (Msg::WriteReply { accepted, .. }, Phase::Writing) => self.after_write(Some(accepted), ctx, rng),
            (Msg::ReleaseReply { deleted }, Phase::Releasing) => {
                self.phase = Phase::Done;
                self.request_generation += 1;
                let outcome = if deleted { "the lock was released" } else { "the lock was not its own any more: nothing deleted" };
                vec![self.note(Kind::Finished, format!("{} is done: {outcome}", self.actor))]
            }
            // Replies that arrive after the worker moved on change nothing.
            _ => Vec::new(),
        }
    }

    fn note(&self, kind: Kind, text: String) -> Action {
        Action::Note { kind, token: self.token, text }
    }

    fn renewing(&self) -> bool {
        self.believes || self.phase == Phase::Queued || self.phase == Phase::Putting
    }

    /// Sends a request and arms its timeout.
    fn request(&mut self, ctx: Ctx, phase: Phase, sends: Vec<(Actor, Msg)>) -> Vec<Action> {
        self.phase = phase;
        self.request_generation += 1;
        let mut actions: Vec<Action> = sends.into_iter().map(|(to, msg)| Action::Send(to, msg)).collect();
        let delay_us = ctx.scenario.request_timeout_ms * 1000;
        actions.push(Action::After { delay_us, timer: Timer::Timeout(self.request_generation) });
        actions
    }

    fn try_acquire(&mut self, ctx: Ctx, rng: &mut SimRng) -> Vec<Action> {
        self.attempt += 1;
        self.token = None;
        let ttl_ms = ctx.scenario.ttl_ms;
        match ctx.scenario.lock_service {
            LockService::SingleRedis | LockService::RedisFailover => {
                self.value = rng.value();
                let set = Msg::SetNx { value: self.value, ttl_ms };
                self.request(ctx, Phase::Setting, vec![(Actor::LockNode(0), set)])
            }
            LockService::Redlock => {
                self.value = rng.value();
                self.votes = Votes { yes: 0, answers: 0, started_us: ctx.now_us };
                let sends = (0..REDLOCK_NODES).map(|node| (Actor::LockNode(node), Msg::SetNx { value: self.value, ttl_ms })).collect();
                self.request(ctx, Phase::Voting, sends)
            }
            LockService::Consensus => self.request(ctx, Phase::Leasing, vec![(Actor::LockNode(0), Msg::LeaseGrant { ttl_ms })]),
            LockService::None => self.request(ctx, Phase::Reading, vec![(Actor::Store, Msg::Read)]),
        }
    }

    fn vote(&mut self, yes: bool, ctx: Ctx, rng: &mut SimRng) -> Vec<Action> {
        self.votes.answers += 1;
        self.votes.yes += u8::from(yes);
        if self.votes.answers < REDLOCK_NODES {
            return Vec::new();
        }
        self.decide_votes(ctx, rng)
    }

    /// Redlock: the lock is held if a majority agreed and time is left:
    /// validity = ttl − elapsed − drift, drift = 1% of ttl + 2 ms.
    fn decide_votes(&mut self, ctx: Ctx, rng: &mut SimRng) -> Vec<Action> {
        let ttl_us = ctx.scenario.ttl_ms * 1000;
        let elapsed_us = ctx.now_us - self.votes.started_us;
        let drift_us = ttl_us / 100 + 2_000;
        let validity_us = ttl_us.saturating_sub(elapsed_us + drift_us);
        if self.votes.yes >= REDLOCK_QUORUM && validity_us > 0 {
            self.validity_end_us = ctx.now_us + validity_us;
            return self.acquired(None, ctx);
        }
        let why = format!("only {} of {REDLOCK_NODES} masters agreed", self.votes.yes);
        // A failed round must undo its partial votes, or they block others.
        let mut actions: Vec<Action> =
            (0..REDLOCK_NODES).map(|node| Action::Send(Actor::LockNode(node), Msg::ReleaseCad { value: self.value })).collect();
        actions.extend(self.acquire_failed(ctx, rng, &why));
        actions
    }

    fn timed_out(&mut self, ctx: Ctx, rng: &mut SimRng) -> Vec<Action> {
        let waited = ctx.scenario.request_timeout_ms;
        match self.phase {
            Phase::Voting => self.decide_votes(ctx, rng),
            Phase::Setting | Phase::Incrementing | Phase::Leasing | Phase::Putting | Phase::Reading => {
                self.acquire_failed(ctx, rng, &format!("no answer within {waited} ms"))
            }
            Phase::Checking => self.lose_lock("its lease check got no answer: it skips the write"),
            Phase::Writing => {
                let mut actions = vec![self.note(Kind::Timeout, format!("{}'s write got no answer within {waited} ms", self.actor))];
                actions.extend(self.after_write(None, ctx, rng));
                actions
            }
            Phase::Releasing => {
                self.phase = Phase::Done;
                vec![self.note(Kind::Finished, format!("{}'s release got no answer; it is done", self.actor))]
            }
            _ => Vec::new(),
        }
    }

    fn acquire_failed(&mut self, ctx: Ctx, rng: &mut SimRng, why: &str) -> Vec<Action> {
        let attempt = self.attempt;
        self.request_generation += 1;
        self.renew_generation += 1;
        let mut actions =
            vec![self.note(Kind::AcquireFailed { attempt }, format!("{} did not get the lock (attempt {attempt}): {why}", self.actor))];
        if attempt >= ctx.scenario.acquire_attempts_max {
            self.phase = Phase::Done;
            actions.push(self.note(Kind::GaveUp, format!("{} gives up after {attempt} attempts", self.actor)));
            return actions;
        }
        self.phase = Phase::Backoff;
        let delay_us = backoff_us(attempt, ctx.scenario, rng);
        actions.push(
            self.note(
                Kind::Backoff { delay_us },
                format!("{} backs off for {} before trying again", self.actor, crate::format_us(delay_us)),
            ),
        );
        actions.push(Action::After { delay_us, timer: Timer::Retry });
        actions
    }

    fn acquired(&mut self, token: Option<u64>, ctx: Ctx) -> Vec<Action> {
        self.token = token;
        self.believes = true;
        self.phase = Phase::Working;
        self.request_generation += 1;
        self.writes_done = 0;
        let text = match token {
            Some(token) => format!("{} holds the lock with token {token} (lease {} ms)", self.actor, ctx.scenario.ttl_ms),
            None => format!(
                "{} holds the lock for {} by its own clock; Redlock gives no token",
                self.actor,
                crate::format_us(self.validity_end_us - ctx.now_us)
            ),
        };
        let mut actions = vec![self.note(Kind::Acquired, text)];
        actions.push(Action::After { delay_us: ctx.scenario.work_ms * 1000, timer: Timer::Work });
        if ctx.scenario.lock_service != LockService::Consensus {
            actions.extend(self.start_renewing(ctx));
        }
        actions
    }

    /// Starts the watchdog: every ttl/3 for Redis when asked, always for a
    /// consensus session (its keep-alive is what holds the lease).
    fn start_renewing(&mut self, ctx: Ctx) -> Vec<Action> {
        let wanted = ctx.scenario.renewal || ctx.scenario.lock_service == LockService::Consensus;
        if !wanted {
            return Vec::new();
        }
        self.renew_generation += 1;
        vec![Action::After { delay_us: renew_interval_us(ctx.scenario), timer: Timer::Renew(self.renew_generation) }]
    }

    fn read(&mut self, version: u64, ctx: Ctx) -> Vec<Action> {
        self.version = Some(version);
        self.phase = Phase::Working;
        self.request_generation += 1;
        let text = format!("{} read the data at version {version} and works on it", self.actor);
        vec![self.note(Kind::ReadVersion { version }, text), Action::After { delay_us: ctx.scenario.work_ms * 1000, timer: Timer::Work }]
    }

    fn before_write(&mut self, ctx: Ctx) -> Vec<Action> {
        if !ctx.scenario.check_before_write || ctx.scenario.lock_service == LockService::None {
            return self.write(ctx);
        }
        if ctx.scenario.lock_service == LockService::Redlock {
            // A Redlock client can only consult its own clock.
            if ctx.now_us >= self.validity_end_us {
                return self.lose_lock("its validity time has run out by its own clock: it skips the write");
            }
            return self.write(ctx);
        }
        self.request(ctx, Phase::Checking, vec![(Actor::LockNode(0), Msg::Check { value: self.value })])
    }

    fn write(&mut self, ctx: Ctx) -> Vec<Action> {
        let request = WriteReq { token: self.token, epoch: 0, nth: self.writes_done + 1, version: self.version };
        self.request(ctx, Phase::Writing, vec![(Actor::Store, Msg::Write(request))])
    }

    /// `accepted` is None when the write got no answer in time.
    fn after_write(&mut self, accepted: Option<bool>, ctx: Ctx, rng: &mut SimRng) -> Vec<Action> {
        self.writes_done += 1;
        self.request_generation += 1;
        if ctx.scenario.lock_service == LockService::None {
            return self.after_conditional_write(accepted == Some(true), ctx, rng);
        }
        let mut actions = Vec::new();
        if accepted == Some(false) && self.believes {
            actions.extend(self.lose_lock("the store refused its write: someone newer holds the lock"));
        }
        if self.believes && self.writes_done < ctx.scenario.writes_per_hold {
            self.phase = Phase::Working;
            actions.push(Action::After { delay_us: ctx.scenario.work_ms * 1000, timer: Timer::Work });
            return actions;
        }
        if self.believes {
            self.believes = false;
            actions.push(self.note(Kind::Released, format!("{} finished its work and releases the lock", self.actor)));
        }
        // A careful client runs its release step even after losing the lock.
        actions.extend(self.release(ctx));
        actions
    }

    /// No lock: a refused conditional write means someone else wrote first;
    /// read again and redo the work on fresh data.
    fn after_conditional_write(&mut self, accepted: bool, ctx: Ctx, rng: &mut SimRng) -> Vec<Action> {
        self.version = None;
        if accepted {
            self.phase = Phase::Done;
            return vec![self.note(Kind::Finished, format!("{} is done: its conditional write landed", self.actor))];
        }
        let mut actions = vec![self.note(Kind::Retry, format!("{} re-reads and redoes its work on the newer data", self.actor))];
        if self.attempt >= ctx.scenario.acquire_attempts_max {
            self.phase = Phase::Done;
            actions.push(self.note(Kind::GaveUp, format!("{} gives up after {} attempts", self.actor, self.attempt)));
            return actions;
        }
        actions.extend(self.try_acquire(ctx, rng));
        actions
    }

    fn release(&mut self, ctx: Ctx) -> Vec<Action> {
        self.renew_generation += 1;
        let msg = match ctx.scenario.release {
            Release::CompareAndDelete => Msg::ReleaseCad { value: self.value },
            Release::NaiveDel => Msg::Del,
        };
        let nodes = if ctx.scenario.lock_service == LockService::Redlock { REDLOCK_NODES } else { 1 };
        let sends = (0..nodes).map(|node| (Actor::LockNode(node), msg.clone())).collect();
        self.request(ctx, Phase::Releasing, sends)
    }

    fn lose_lock(&mut self, why: &str) -> Vec<Action> {
        self.believes = false;
        self.renew_generation += 1;
        if matches!(self.phase, Phase::Working | Phase::Checking) {
            self.phase = Phase::Done;
            self.request_generation += 1;
        }
        vec![self.note(Kind::LostLock, format!("{} stops believing it holds the lock: {why}", self.actor))]
    }
}

/// The watchdog renews every third of the lease.
pub fn renew_interval_us(scenario: &Scenario) -> u64 {
    (scenario.ttl_ms * 1000 / 3).max(1)
}

/// The model's backoff draws its jitter from the worker's own stream.
fn backoff_us(attempt: u32, scenario: &Scenario, rng: &mut SimRng) -> u64 {
    crate::backoff::backoff_us(attempt, scenario.backoff_ms_min, scenario.backoff_ms_max, |half_us| rng.between(0, half_us))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    const L1: Actor = Actor::LockNode(0);

    fn sends(actions: &[Action]) -> Vec<&Msg> {
        actions.iter().filter_map(|action| if let Action::Send(_, msg) = action { Some(msg) } else { None }).collect()
    }

    fn ctx(scenario: &Scenario) -> Ctx<'_> {
        Ctx { now_us: 0, scenario }
    }

    #[test]
    fn redis_acquire_takes_two_round_trips_then_works() {
        let scenario = crate::presets::classic();
        let mut rng = SimRng::new(1, Stream::Worker(0));
        let mut worker = Worker::new(Actor::Worker(0));
        let actions = worker.on_timer(Timer::Start, ctx(&scenario), &mut rng);
        assert!(matches!(sends(&actions)[..], [Msg::SetNx { ttl_ms: 10_000, .. }]));
        let actions = worker.on_message(L1, Msg::SetReply { ok: true }, ctx(&scenario), &mut rng);
        assert_eq!(sends(&actions), vec![&Msg::Incr]);
        let actions = worker.on_message(L1, Msg::IncrReply { value: 33 }, ctx(&scenario), &mut rng);
        assert!(actions.contains(&Action::After { delay_us: 0, timer: Timer::Work }));
        let actions = worker.on_timer(Timer::Work, ctx(&scenario), &mut rng);
        let write = WriteReq { token: Some(33), epoch: 0, nth: 1, version: None };
        assert_eq!(sends(&actions), vec![&Msg::Write(write)]);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let scenario = Scenario { backoff_ms_min: 100, backoff_ms_max: 1000, ..crate::presets::classic() };
        let mut rng = SimRng::new(1, Stream::Worker(1));
        for attempt in 1..30 {
            let cap_us = (100_000u64 << (attempt - 1).min(20)).min(1_000_000);
            let delay_us = backoff_us(attempt, &scenario, &mut rng);
            assert!((cap_us / 2..=cap_us).contains(&delay_us), "attempt {attempt}: {delay_us}");
        }
    }

    #[test]
    fn a_refused_renewal_stops_the_work() {
        let scenario = Scenario { renewal: true, ..crate::presets::classic() };
        let mut rng = SimRng::new(1, Stream::Worker(0));
        let mut worker = Worker::new(Actor::Worker(0));
        worker.on_timer(Timer::Start, ctx(&scenario), &mut rng);
        worker.on_message(L1, Msg::SetReply { ok: true }, ctx(&scenario), &mut rng);
        worker.on_message(L1, Msg::IncrReply { value: 7 }, ctx(&scenario), &mut rng);
        let actions = worker.on_message(L1, Msg::RenewReply { ok: false }, ctx(&scenario), &mut rng);
        assert!(matches!(actions[..], [Action::Note { kind: Kind::LostLock, .. }]));
        assert!(worker.on_timer(Timer::Work, ctx(&scenario), &mut rng).is_empty(), "no write after losing the lock");
    }

    #[test]
    fn redlock_needs_a_majority_and_undoes_a_minority() {
        let scenario = Scenario { lock_service: LockService::Redlock, ..crate::presets::classic() };
        let mut rng = SimRng::new(1, Stream::Worker(0));
        let mut worker = Worker::new(Actor::Worker(0));
        let actions = worker.on_timer(Timer::Start, ctx(&scenario), &mut rng);
        assert_eq!(sends(&actions).len(), 5);
        for ok in [true, true, false, false] {
            assert!(worker.on_message(L1, Msg::SetReply { ok }, ctx(&scenario), &mut rng).is_empty());
        }
        let actions = worker.on_message(L1, Msg::SetReply { ok: false }, ctx(&scenario), &mut rng);
        assert_eq!(sends(&actions).iter().filter(|msg| matches!(msg, Msg::ReleaseCad { .. })).count(), 5);
        assert!(actions.iter().any(|action| matches!(action, Action::Note { kind: Kind::AcquireFailed { .. }, .. })));
    }
}
