//! A worker as a pure state machine: it takes a timer or a message and
//! returns what should happen (messages, timers, notes for the trace). It
//! never sees faults or other workers: a paused or crashed worker simply
//! receives nothing until the world lets it. The acquire step depends on the
//! lock service (`acquire.rs`); holding, working, writing and releasing are
//! shared.
//!
//! Every request carries an id the worker chose (`req`), and a reply is acted
//! on only if it answers the request the worker is waiting for: a late answer
//! to an earlier attempt, a renewal of an earlier hold, or a vote of an
//! earlier Redlock round changes nothing.

mod acquire;

use crate::actor::Actor;
use crate::event::{AcquireFailure, Disbelief, Finish, Kind};
use crate::msg::{Msg, WriteReq};
use crate::rng::SimRng;
use crate::scenario::{Release, Scenario, REDLOCK_NODES};
use crate::services::{Check, Renewal};

pub use crate::scenario::JOB_RETRIES_MAX;

/// Timers a worker sets on itself. A timer names the request or the hold it
/// belongs to, so one that outlived its purpose changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Start,
    Retry,
    /// The work of one hold (or read) ends: it names that hold, so the
    /// timer of a hold the worker lost changes nothing in a retried job's.
    Work(u32),
    Renew(u32),
    Timeout(u32),
    /// Consul: a blocked query's wait time runs out. It names the request
    /// that blocked, so only the latest block's can fire.
    LockWait(u32),
    /// A fleet worker's next job, after its rest.
    NextJob,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Send { to: Actor, req: u32, body: Msg },
    After { delay_us: u64, timer: Timer },
    Note { kind: NoteKind, token: Option<u64> },
}

/// The worker-side events a worker can note. A subset of `Kind`, kept `Copy`
/// so a worker's actions never allocate.
pub type NoteKind = Kind;

/// What the worker sees when it handles something: its own clock reading and
/// the scenario's settings.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub now_us: u64,
    pub scenario: &'a Scenario,
}

/// Where a worker's handlers put what should happen; the world reuses one.
pub type Actions = Vec<Action>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Backoff,
    /// Redis: waiting for `SET NX`'s answer (or the acquire script's), then
    /// for `INCR`'s.
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

impl Phase {
    /// Whether a worker may go from `self` to `to`: the state machine's
    /// edges, every other step being a bug. An acquire begins from rest
    /// (a first try, a backoff, a retried job; the no-lock worker re-reads
    /// after a refused write); it ends holding (`Working`), backing off or
    /// giving up; a hold goes through its writes to its release; anything
    /// under way can end (`Done`).
    fn may_go_to(self, to: Phase) -> bool {
        use Phase::*;
        match to {
            Idle => false,
            Setting | Voting | Leasing => matches!(self, Idle | Backoff | Done),
            Reading => matches!(self, Idle | Backoff | Done | Writing),
            Incrementing => self == Setting,
            Backoff => matches!(self, Setting | Incrementing | Voting | Leasing | Putting | Reading),
            // Curator's protected create asks again; Consul asks again.
            Putting => matches!(self, Leasing | Putting | Queued),
            Queued => self == Putting,
            Working => matches!(self, Setting | Incrementing | Voting | Putting | Queued | Reading | Writing),
            Checking => self == Working,
            Writing => matches!(self, Working | Checking),
            Releasing => self == Writing,
            Done => !matches!(self, Idle | Done),
        }
    }
}

/// A Redlock round in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Votes {
    yes: u8,
    answers: u8,
}

pub struct Worker {
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
    /// The last request id handed out, and the one whose reply is awaited.
    last_req: u32,
    awaiting: u32,
    /// Renewals of the current hold have ids from here up; 0: not renewing.
    renew_from_req: u32,
    renew_generation: u32,
    votes: Votes,
    /// When the current acquire attempt started, by the worker's clock.
    attempt_started_us: u64,
    /// Until when the worker's own clock says its lease or validity runs.
    valid_until_us: u64,
    /// A session's timeout as the service granted it (0: no session yet).
    session_ttl_ms: u64,
    /// The latest renewal sent: its request id and when it left.
    last_renew: (u32, u64),
    /// Holds (and version reads) so far: names the current one's work timer.
    holds: u32,
    /// This job's result did not land: a write was refused or the lock was
    /// lost before the work was done. The job runner retries it.
    job_failed: bool,
    /// The current hold's writes the store accepted: once all have landed,
    /// the job is done, whatever the worker learns afterwards.
    writes_landed: u8,
    /// Retries of this job so far (at most `Scenario::job_retries_max`).
    job_retries: u8,
}

impl Worker {
    pub fn new() -> Worker {
        Worker {
            phase: Phase::Idle,
            attempt: 0,
            value: 0,
            token: None,
            version: None,
            writes_done: 0,
            believes: false,
            last_req: 0,
            awaiting: 0,
            renew_from_req: 0,
            renew_generation: 0,
            votes: Votes::default(),
            attempt_started_us: 0,
            valid_until_us: 0,
            session_ttl_ms: 0,
            last_renew: (0, 0),
            holds: 0,
            job_failed: false,
            writes_landed: 0,
            job_retries: 0,
        }
    }

    pub fn on_timer(&mut self, timer: Timer, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        self.step(ctx, |worker| worker.timer(timer, ctx, rng, out));
    }

    /// Handles a message; `req` is the id of the request it answers.
    pub fn on_message(&mut self, req: u32, msg: Msg, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        self.step(ctx, |worker| worker.message(req, msg, ctx, rng, out));
    }

    /// One step, and what must hold after it whatever it was.
    fn step(&mut self, ctx: Ctx, handle: impl FnOnce(&mut Worker)) {
        let last_req = self.last_req;
        handle(self);
        crate::invariant!(self.last_req >= last_req, "a worker's request ids went back: {last_req} -> {}", self.last_req);
        self.check(ctx);
    }

    /// What holds between any two steps of a worker.
    fn check(&self, ctx: Ctx) {
        let phase = self.phase;
        // Belief lives only in a hold: working, checking, writing.
        crate::invariant!(
            !self.believes || matches!(phase, Phase::Working | Phase::Checking | Phase::Writing),
            "a worker believes it holds the lock while {phase:?}"
        );
        // An awaited answer belongs to a request sent, from a phase that sends one.
        crate::invariant!(self.awaiting <= self.last_req, "a worker awaits request {} it never sent", self.awaiting);
        crate::invariant!(
            self.awaiting == 0 || !matches!(phase, Phase::Idle | Phase::Backoff | Phase::Working | Phase::Done),
            "a worker awaits request {} while {phase:?}",
            self.awaiting
        );
        crate::invariant!(self.writes_landed <= self.writes_done, "{} writes landed of {} sent", self.writes_landed, self.writes_done);
        crate::invariant!(self.job_retries <= ctx.scenario.job_retries_max, "a job retried {} times", self.job_retries);
        crate::invariant!(
            self.attempt <= ctx.scenario.acquire_attempts_max,
            "acquire attempt {} of at most {}",
            self.attempt,
            ctx.scenario.acquire_attempts_max
        );
        // A lock that issues tokens gave the holder one (Redlock's has none).
        // Tested in this order, so a step that holds nothing asks no spec.
        crate::invariant!(
            !self.believes || self.token.is_some() || !ctx.scenario.lock_service.family().client().tokens,
            "a worker holds a {:?} lock without a token",
            ctx.scenario.lock_service
        );
    }

    /// Moves to `to`, one of the state machine's edges.
    fn go(&mut self, to: Phase) {
        crate::invariant!(self.phase.may_go_to(to), "a worker went from {:?} to {to:?}", self.phase);
        self.phase = to;
    }

    fn timer(&mut self, timer: Timer, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        match (timer, self.phase) {
            (Timer::Start, Phase::Idle) => {
                self.note(Kind::Start, out);
                self.try_acquire(ctx, rng, out);
            }
            (Timer::Retry, Phase::Backoff) => self.try_acquire(ctx, rng, out),
            // Consul: the wait after a refused acquire on a free key.
            (Timer::Retry, Phase::Queued) if self.awaiting == 0 => self.acquire_again(ctx, out),
            // Consul: the blocked query returned at its wait time with no
            // change heard (the change may have been lost): ask again.
            (Timer::LockWait(req), Phase::Queued) if req == self.awaiting => self.ask_after_wait(ctx, out),
            (Timer::NextJob, Phase::Done) => self.next_job(ctx, rng, out),
            (Timer::Work(hold), Phase::Working) if hold == self.holds && (self.believes || self.version.is_some()) => {
                self.before_write(ctx, rng, out)
            }
            (Timer::Renew(generation), _) if generation == self.renew_generation && self.renewing() => {
                let req = self.next_req();
                self.last_renew = (req, ctx.now_us);
                out.push(Action::Send { to: Actor::LockNode(0), req, body: Msg::Renew { value: self.value, ttl_ms: ctx.scenario.ttl_ms } });
                out.push(Action::After { delay_us: self.renew_every_us(ctx.scenario), timer });
            }
            (Timer::Timeout(req), _) if req == self.awaiting => self.timed_out(ctx, rng, out),
            // A timer that outlived its purpose changes nothing.
            _ => {}
        }
    }

    fn message(&mut self, req: u32, msg: Msg, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        if let Msg::RenewReply { ok } = msg {
            // Any renewal of the current hold counts, not only the latest.
            if self.renew_from_req != 0 && req >= self.renew_from_req && self.renewing() {
                self.renewed(ok, req, ctx, rng, out);
            }
            return;
        }
        if req != self.awaiting || !msg.is_reply() {
            // A late answer to an earlier request (or a request sent to a
            // worker, which no actor does) changes nothing.
            return;
        }
        match msg {
            Msg::SetReply { .. } | Msg::IncrReply { .. } | Msg::AcquireScriptReply { .. } => self.on_redis_reply(msg, ctx, rng, out),
            Msg::LeaseGrantReply { .. }
            | Msg::PutReply { .. }
            | Msg::LockReady { .. }
            | Msg::AcquireRefused { .. }
            | Msg::KeyChanged
            | Msg::Created { .. } => self.on_consensus_reply(msg, ctx, rng, out),
            Msg::ReadReply { version } if self.phase == Phase::Reading => self.read(version, ctx, out),
            Msg::CheckReply { mine: true } if self.phase == Phase::Checking => self.write(ctx, out),
            Msg::CheckReply { mine: false } if self.phase == Phase::Checking => self.lose_lock(Disbelief::CheckSaysNo, ctx, rng, out),
            Msg::WriteReply { refusal } if self.phase == Phase::Writing => self.after_write(Some(refusal.is_none()), ctx, rng, out),
            Msg::ReleaseReply { deleted } if self.phase == Phase::Releasing => {
                self.go(Phase::Done);
                self.awaiting = 0;
                let how = match (ctx.scenario.lock_service.family().client().every_master, deleted) {
                    (true, _) => Finish::ReleaseSentToAll,
                    (false, true) => Finish::Released,
                    (false, false) => Finish::NothingToRelease,
                };
                self.note(Kind::Finished { how }, out);
                self.retry_if_failed(ctx, rng, out);
            }
            // The awaited id always belongs to the current phase's request:
            // the id changes whenever the phase does.
            _ => {}
        }
    }

    /// Whether the worker has finished its job (or given it up).
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// A fleet worker starts over: a new job, nothing of the last one kept
    /// but its request ids and its timers' names (so no late answer or
    /// timer can pass for a new one's).
    fn next_job(&mut self, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        let last_req = self.last_req;
        self.stop_renewing();
        let (renew_generation, holds) = (self.renew_generation, self.holds);
        *self = Worker { last_req, renew_generation, holds, ..Worker::new() };
        self.note(Kind::Start, out);
        self.try_acquire(ctx, rng, out);
    }

    fn note(&self, kind: Kind, out: &mut Actions) {
        out.push(Action::Note { kind, token: self.token });
    }

    fn next_req(&mut self) -> u32 {
        crate::invariant!(self.last_req < u32::MAX, "a worker ran out of request ids");
        self.last_req += 1;
        self.last_req
    }

    /// Consensus: its key is in line and it waits for its turn (its watch
    /// on the key before it is open).
    pub fn watches_its_turn(&self) -> bool {
        self.phase == Phase::Queued
    }

    fn renewing(&self) -> bool {
        self.believes || matches!(self.phase, Phase::Queued | Phase::Putting)
    }

    /// A renewal's answer. A granted one moves the worker's own lease on,
    /// by the careful client's rule, from when the renewal left (only the
    /// latest: an older answer says less).
    fn renewed(&mut self, ok: bool, req: u32, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        if ok {
            let (latest, sent_us) = self.last_renew;
            if req == latest {
                let ttl_ms = if self.session_ttl_ms > 0 { self.session_ttl_ms } else { ctx.scenario.ttl_ms };
                self.valid_until_us = self.valid_until_us.max(sent_us + ttl_ms * 1000);
            }
            return;
        }
        if self.believes && ctx.scenario.lock_service.spec().options.renewal == Renewal::Watchdog {
            // Redisson's `renewExpiration`: a renewal answered `false` only
            // cancels the watchdog (`cancelExpirationRenewal`); nothing tells
            // the thread that holds the lock, which goes on and writes.
            return self.stop_renewing();
        }
        if self.believes {
            return self.lose_lock(Disbelief::RenewalRefused, ctx, rng, out);
        }
        if self.phase == Phase::Queued {
            self.go(Phase::Done);
            self.awaiting = 0;
            self.note(Kind::GaveUp { attempts: None }, out);
        }
    }

    /// Sends one request (or a Redlock round: the same id to every master)
    /// and arms its timeout.
    fn request(&mut self, ctx: Ctx, phase: Phase, to: &[Actor], body: Msg, out: &mut Actions) {
        crate::invariant!(!to.is_empty(), "a request to nobody while {phase:?}");
        self.go(phase);
        let req = self.next_req();
        // A fresh id: no late answer to an earlier request can pass for its.
        crate::invariant!(req > self.awaiting, "request {req} reuses an id at or below {}", self.awaiting);
        self.awaiting = req;
        for to in to {
            out.push(Action::Send { to: *to, req, body });
        }
        let delay_us = ctx.scenario.request_timeout_ms * 1000;
        out.push(Action::After { delay_us, timer: Timer::Timeout(req) });
    }

    fn timed_out(&mut self, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        let waited_ms = ctx.scenario.request_timeout_ms;
        match self.phase {
            Phase::Voting => self.decide_votes(ctx, rng, out),
            // Curator's protected create (`withProtection`): a create whose
            // answer was lost is asked again on the same session, and the
            // server's answer is the znode it already made, found by its
            // GUID prefix, so the client neither loses nor doubles it.
            Phase::Putting if ctx.scenario.lock_service.spec().session.is_some_and(|rules| rules.czxid_token) => {
                self.note(Kind::Timeout { waited_ms }, out);
                self.acquire_again(ctx, out)
            }
            Phase::Setting | Phase::Incrementing | Phase::Leasing | Phase::Putting | Phase::Reading => {
                self.acquire_failed(ctx, rng, AcquireFailure::NoAnswer { waited_ms }, out)
            }
            Phase::Checking => self.lose_lock(Disbelief::CheckNoAnswer, ctx, rng, out),
            Phase::Writing => {
                self.note(Kind::Timeout { waited_ms }, out);
                self.after_write(None, ctx, rng, out);
            }
            Phase::Releasing => {
                self.go(Phase::Done);
                self.awaiting = 0;
                self.note(Kind::Finished { how: Finish::ReleaseNoAnswer }, out);
                self.retry_if_failed(ctx, rng, out);
            }
            // Waiting for its turn has no deadline but the lease's.
            Phase::Queued | Phase::Idle | Phase::Backoff | Phase::Working | Phase::Done => {}
        }
    }

    fn acquire_failed(&mut self, ctx: Ctx, rng: &mut SimRng, failure: AcquireFailure, out: &mut Actions) {
        let attempt = self.attempt;
        self.awaiting = 0;
        self.stop_renewing();
        self.note(Kind::AcquireFailed { attempt, failure }, out);
        if attempt >= ctx.scenario.acquire_attempts_max {
            self.go(Phase::Done);
            self.note(Kind::GaveUp { attempts: Some(attempt) }, out);
            return;
        }
        self.go(Phase::Backoff);
        let delay_us = backoff_us(attempt, ctx.scenario, rng);
        self.note(Kind::Backoff { delay_us }, out);
        out.push(Action::After { delay_us, timer: Timer::Retry });
    }

    fn acquired(&mut self, token: Option<u64>, ctx: Ctx, out: &mut Actions) {
        crate::invariant!(!self.believes, "a worker acquired a lock it already believed it held");
        crate::invariant!(
            self.valid_until_us >= self.attempt_started_us,
            "a lease valid until {} µs, before its request left at {} µs",
            self.valid_until_us,
            self.attempt_started_us
        );
        self.token = token;
        self.believes = true;
        self.go(Phase::Working);
        self.awaiting = 0;
        self.writes_done = 0;
        self.writes_landed = 0;
        self.holds += 1;
        self.note(Kind::Acquired { valid_until_us: self.valid_until_us }, out);
        out.push(Action::After { delay_us: ctx.scenario.work_ms * 1000, timer: Timer::Work(self.holds) });
        // A session's keep-alive began with the session; a watchdog begins now.
        if ctx.scenario.lock_service.spec().options.renewal != Renewal::Always {
            self.start_renewing(ctx, out);
        }
    }

    /// Starts the watchdog: every ttl/3 for Redis when asked, always for
    /// Redisson's watchdog and a consensus session (its keep-alive is what
    /// holds the lease).
    fn start_renewing(&mut self, ctx: Ctx, out: &mut Actions) {
        let wanted = match ctx.scenario.lock_service.spec().options.renewal {
            Renewal::Always | Renewal::Watchdog => true,
            Renewal::Optional => ctx.scenario.renewal,
            Renewal::Never => false,
        };
        if !wanted {
            return;
        }
        self.renew_generation += 1;
        self.renew_from_req = self.last_req + 1;
        out.push(Action::After { delay_us: self.renew_every_us(ctx.scenario), timer: Timer::Renew(self.renew_generation) });
    }

    /// A client keeps a session alive as often as its service's client does
    /// (`SessionRules::renewals_per_ttl`: a third of the timeout for etcd
    /// and ZooKeeper, half for Consul; a watchdog every third). ZooKeeper
    /// may grant less than was asked (at most 40 s), and then pings more
    /// often; a longer grant (etcd's 2 s minimum) changes nothing, since the
    /// lease asked for is still renewed in time.
    fn renew_every_us(&self, scenario: &Scenario) -> u64 {
        let per_ttl = scenario.lock_service.spec().session.map_or(3, |rules| rules.renewals_per_ttl);
        let ttl_ms = match self.session_ttl_ms {
            granted_ms if granted_ms > 0 && granted_ms < scenario.ttl_ms => granted_ms,
            _ => scenario.ttl_ms,
        };
        (ttl_ms * 1000 / per_ttl).max(1)
    }

    fn stop_renewing(&mut self) {
        self.renew_generation += 1;
        self.renew_from_req = 0;
    }

    fn read(&mut self, version: u64, ctx: Ctx, out: &mut Actions) {
        self.version = Some(version);
        self.go(Phase::Working);
        self.awaiting = 0;
        self.holds += 1;
        self.note(Kind::ReadVersion { version }, out);
        out.push(Action::After { delay_us: ctx.scenario.work_ms * 1000, timer: Timer::Work(self.holds) });
    }

    fn before_write(&mut self, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        if !ctx.scenario.check_before_write {
            return self.write(ctx, out);
        }
        match ctx.scenario.lock_service.family().client().check {
            Check::Nothing => self.write(ctx, out),
            // A Redlock client can only consult its own clock.
            Check::OwnClock if ctx.now_us >= self.valid_until_us => self.lose_lock(Disbelief::ValidityOver, ctx, rng, out),
            Check::OwnClock => self.write(ctx, out),
            Check::AskService => self.request(ctx, Phase::Checking, &[Actor::LockNode(0)], Msg::Check { value: self.value }, out),
        }
    }

    fn write(&mut self, ctx: Ctx, out: &mut Actions) {
        let request = WriteReq { token: self.token, epoch: 0, nth: self.writes_done + 1, version: self.version };
        self.request(ctx, Phase::Writing, &[Actor::Store], Msg::Write(request), out);
    }

    /// `accepted` is None when the write got no answer in time.
    fn after_write(&mut self, accepted: Option<bool>, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        crate::invariant!(self.phase == Phase::Writing, "a write's answer handled while {:?}", self.phase);
        crate::invariant!(self.writes_done < u8::MAX, "a worker's write count would wrap");
        self.writes_done += 1;
        self.awaiting = 0;
        if ctx.scenario.lock_service.family().client().conditional {
            return self.after_conditional_write(accepted == Some(true), ctx, rng, out);
        }
        self.writes_landed += u8::from(accepted == Some(true));
        if accepted == Some(false) {
            // A refused result did not land, whether or not the worker
            // still believed it held the lock.
            self.job_failed = true;
            if self.believes {
                self.lose_lock(Disbelief::StoreRefused, ctx, rng, out);
            }
        }
        if self.believes && self.writes_done < ctx.scenario.writes_per_hold {
            self.go(Phase::Working);
            out.push(Action::After { delay_us: ctx.scenario.work_ms * 1000, timer: Timer::Work(self.holds) });
            return;
        }
        if self.believes {
            self.believes = false;
            self.note(Kind::Released, out);
        }
        // A careful client runs its release step even after losing the lock.
        self.release(ctx, out);
    }

    /// No lock: a refused conditional write means someone else wrote first;
    /// read again and redo the work on fresh data.
    fn after_conditional_write(&mut self, accepted: bool, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        self.version = None;
        if accepted {
            self.go(Phase::Done);
            return self.note(Kind::Finished { how: Finish::ConditionalWriteLanded }, out);
        }
        self.note(Kind::Retry, out);
        if self.attempt >= ctx.scenario.acquire_attempts_max {
            self.go(Phase::Done);
            return self.note(Kind::GaveUp { attempts: Some(self.attempt) }, out);
        }
        self.try_acquire(ctx, rng, out);
    }

    fn release(&mut self, ctx: Ctx, out: &mut Actions) {
        crate::invariant!(!self.believes, "a worker released a lock it still believed it held");
        self.stop_renewing();
        let msg = match ctx.scenario.release {
            Release::CompareAndDelete => Msg::ReleaseCad { value: self.value },
            Release::NaiveDel => Msg::Del,
        };
        self.request(ctx, Phase::Releasing, lock_nodes(ctx.scenario), msg, out);
    }

    /// The worker learns it lost the lock before its work was done: the job
    /// has failed. Losing it with a write in flight waits for that write's
    /// answer (and the release after it); otherwise the job is over now,
    /// and its job runner retries it.
    fn lose_lock(&mut self, why: Disbelief, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        crate::invariant!(self.believes, "a worker lost a lock it did not believe it held ({why:?})");
        self.believes = false;
        self.job_failed = true;
        self.stop_renewing();
        self.note(Kind::LostLock { why }, out);
        if matches!(self.phase, Phase::Working | Phase::Checking) {
            self.go(Phase::Done);
            self.awaiting = 0;
            self.retry_if_failed(ctx, rng, out);
        }
    }

    /// A lock worker's job whose result did not land (a write refused, or
    /// the lock lost before every write was accepted) is retried from the
    /// start, as a job runner retries a failed task (at most
    /// `Scenario::job_retries_max` times): it asks for the lock again and, once it
    /// holds it, does the work again. Work already done (a zombie's effect,
    /// an email sent before the refused write) is then done twice, unless
    /// the job is idempotent. The no-lock worker starts over on its own
    /// terms (`after_conditional_write`).
    fn retry_if_failed(&mut self, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        crate::invariant!(self.phase == Phase::Done, "a job retried while {:?}", self.phase);
        let landed = self.writes_landed >= ctx.scenario.writes_per_hold;
        if !self.job_failed
            || landed
            || self.job_retries >= ctx.scenario.job_retries_max
            || ctx.scenario.lock_service.family().client().conditional
        {
            return;
        }
        self.job_failed = false;
        self.job_retries += 1;
        self.attempt = 0;
        self.note(Kind::Retry, out);
        self.try_acquire(ctx, rng, out);
    }
}

/// The nodes a release or an acquire round goes to: all five Redlock
/// masters, or the one lock service (the world routes it to the current
/// primary or leader).
fn lock_nodes(scenario: &Scenario) -> &'static [Actor] {
    const REDLOCK: [Actor; REDLOCK_NODES as usize] =
        [Actor::LockNode(0), Actor::LockNode(1), Actor::LockNode(2), Actor::LockNode(3), Actor::LockNode(4)];
    if scenario.lock_service.family().client().every_master {
        &REDLOCK
    } else {
        &REDLOCK[..1]
    }
}

/// The watchdog renews every third of the lease.
pub fn renew_interval_us(scenario: &Scenario) -> u64 {
    (scenario.ttl_ms * 1000 / 3).max(1)
}

/// The model's backoff (one formula with the live workers', in
/// `crate::backoff`) draws its jitter from the worker's own stream.
fn backoff_us(attempt: u32, scenario: &Scenario, rng: &mut SimRng) -> u64 {
    crate::backoff::backoff_us(attempt, scenario.backoff_ms_min, scenario.backoff_ms_max, |half_us| rng.between(0, half_us))
}

#[cfg(test)]
mod tests;
