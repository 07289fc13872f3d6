//! The acquire step, per lock service: Redis (`SET NX` then `INCR`, or one
//! script), Redlock (a round of votes), the consensus lock (lease, key, turn)
//! and no lock at all (read the version to write against).

use super::{lock_nodes, Action, Actions, Ctx, Phase, Timer, Votes, Worker};
use crate::actor::Actor;
use crate::event::{AcquireFailure, Kind};
use crate::msg::Msg;
use crate::rng::SimRng;
use crate::scenario::{TokenSource, REDLOCK_NODES, REDLOCK_QUORUM};
use crate::services::Family;

impl Worker {
    pub(super) fn try_acquire(&mut self, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        crate::invariant!(!self.believes, "a worker asked for a lock it believed it held");
        crate::invariant!(self.attempt < ctx.scenario.acquire_attempts_max, "acquire attempt {} past the bound", self.attempt + 1);
        self.attempt += 1;
        self.token = None;
        self.attempt_started_us = ctx.now_us;
        let ttl_ms = ctx.scenario.ttl_ms;
        let lock = lock_nodes(ctx.scenario);
        match ctx.scenario.lock_service.family() {
            Family::SingleRedis | Family::RedisFailover => {
                self.value = rng.value();
                let body = match ctx.scenario.token_source_used() {
                    TokenSource::SeparateIncr => Msg::SetNx { value: self.value, ttl_ms },
                    TokenSource::AtomicScript => Msg::AcquireScript { value: self.value, ttl_ms },
                };
                self.request(ctx, Phase::Setting, lock, body, out);
            }
            Family::Redlock => {
                self.value = rng.value();
                self.votes = Votes::default();
                self.request(ctx, Phase::Voting, lock, Msg::SetNx { value: self.value, ttl_ms }, out);
            }
            Family::Consensus => self.request(ctx, Phase::Leasing, lock, Msg::LeaseGrant { ttl_ms }, out),
            Family::None => self.request(ctx, Phase::Reading, &[Actor::Store], Msg::Read, out),
        }
    }

    /// The lease by the worker's own clock: from when it asked, not from
    /// when it heard back, since the server may have granted it any time in
    /// between (the careful client's rule).
    fn own_lease_until_us(&self, ttl_ms: u64) -> u64 {
        self.attempt_started_us + ttl_ms * 1000
    }

    pub(super) fn on_redis_reply(&mut self, msg: Msg, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        match (msg, self.phase) {
            (Msg::SetReply { ok: true }, Phase::Setting) => {
                self.valid_until_us = self.own_lease_until_us(ctx.scenario.ttl_ms);
                self.request(ctx, Phase::Incrementing, lock_nodes(ctx.scenario), Msg::Incr, out);
            }
            (Msg::SetReply { ok: false } | Msg::AcquireScriptReply { token: None }, Phase::Setting) => {
                self.acquire_failed(ctx, rng, AcquireFailure::Taken, out)
            }
            (Msg::AcquireScriptReply { token: Some(token) }, Phase::Setting) => {
                self.valid_until_us = self.own_lease_until_us(ctx.scenario.ttl_ms);
                self.acquired(Some(token), ctx, out);
            }
            (Msg::SetReply { ok }, Phase::Voting) => self.vote(ok, ctx, rng, out),
            (Msg::IncrReply { value }, Phase::Incrementing) => self.acquired(Some(value), ctx, out),
            // The awaited id always belongs to the current phase's request.
            _ => {}
        }
    }

    pub(super) fn on_consensus_reply(&mut self, msg: Msg, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        // ZooKeeper's create answer: its token is the `czxid`, not the
        // sequence number in the znode's name.
        let msg = match msg {
            Msg::Created { czxid, owner, .. } => Msg::PutReply { revision: czxid, owner },
            other => other,
        };
        match (msg, self.phase) {
            (Msg::LeaseGrantReply { lease, ttl_ms }, Phase::Leasing) => {
                self.value = lease;
                self.session_ttl_ms = ttl_ms;
                self.valid_until_us = self.own_lease_until_us(ttl_ms);
                self.start_renewing(ctx, out);
                self.request(ctx, Phase::Putting, lock_nodes(ctx.scenario), Msg::PutLock { lease }, out);
            }
            (Msg::PutReply { revision: 0, .. }, Phase::Putting) => self.acquire_failed(ctx, rng, AcquireFailure::LeaseGone, out),
            (Msg::PutReply { revision, owner: true }, Phase::Putting) => self.acquired(Some(revision), ctx, out),
            (Msg::PutReply { revision, owner: false }, Phase::Putting) => {
                // The turn comes as an answer to this same request: keep
                // awaiting it, with no deadline but the lease's.
                self.go(Phase::Queued);
                self.token = Some(revision);
                self.note(Kind::Queued { revision }, out);
            }
            (Msg::LockReady { revision }, Phase::Queued) => self.acquired(Some(revision), ctx, out),
            (Msg::AcquireRefused { held }, Phase::Putting) => self.refused(held, ctx, out),
            // The key it blocked on changed: try again (`api/lock.go`, `Lock`).
            (Msg::KeyChanged, Phase::Queued) => self.acquire_again(ctx, out),
            _ => {}
        }
    }

    /// Consul: `false`. The client keeps its session (and renews it) and
    /// either blocks on the key (another session holds it: the answer to
    /// this same request comes when the key changes) or, when the key is
    /// free and still refused (a lock-delay), waits `DefaultLockRetryTime`.
    fn refused(&mut self, held: bool, ctx: Ctx, out: &mut Actions) {
        self.go(Phase::Queued);
        let failure = if held { AcquireFailure::Taken } else { AcquireFailure::LockDelay };
        self.note(Kind::AcquireFailed { attempt: self.attempt, failure }, out);
        if held {
            // The blocking query has a wait time: `Lock` sets
            // `QueryOptions.WaitTime` to `LockWaitTime` (`DefaultLockWaitTime`,
            // 15 s, `api/lock.go`), the server answers unchanged when it runs
            // out, and the `WAIT` loop asks again. So a client whose "key
            // changed" answer was lost (a partition) asks within 15 s of it,
            // not never. One timer per block, named by this request: a new
            // block (or the answer) leaves the last one's timer stale.
            let delay_us = crate::services::LOCK_WAIT_MS * 1000;
            out.push(Action::After { delay_us, timer: Timer::LockWait(self.awaiting) });
            return;
        }
        self.awaiting = 0;
        let delay_us = ctx.scenario.lock_service.spec().session.map_or(0, |rules| rules.refused_retry_ms) * 1000;
        self.note(Kind::Backoff { delay_us }, out);
        out.push(Action::After { delay_us, timer: Timer::Retry });
    }

    /// Consul: the same session asks for the key again, up to the
    /// scenario's bound on attempts (the real client loops until stopped).
    pub(super) fn acquire_again(&mut self, ctx: Ctx, out: &mut Actions) {
        if self.attempt >= ctx.scenario.acquire_attempts_max {
            self.go(Phase::Done);
            self.awaiting = 0;
            self.stop_renewing();
            return self.note(Kind::GaveUp { attempts: Some(self.attempt) }, out);
        }
        self.attempt += 1;
        self.request(ctx, Phase::Putting, lock_nodes(ctx.scenario), Msg::PutLock { lease: self.value }, out);
    }

    /// Consul: the blocked query came back at its wait time, and the same
    /// attempt asks again. It is not a new attempt: `Lock`'s `WAIT` loop
    /// goes on until the key is free or the caller stops it, so the
    /// scenario's bound on attempts does not end it (the run's bound on
    /// events does). The request has a new id, so the watch the server kept
    /// for the last one is replaced, not added to.
    pub(super) fn ask_after_wait(&mut self, ctx: Ctx, out: &mut Actions) {
        self.request(ctx, Phase::Putting, lock_nodes(ctx.scenario), Msg::PutLock { lease: self.value }, out);
    }

    fn vote(&mut self, yes: bool, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        // A round hears each master once: it is decided at the last answer.
        crate::invariant!(self.votes.answers < REDLOCK_NODES, "a Redlock round counted {} answers", self.votes.answers + 1);
        self.votes.answers += 1;
        self.votes.yes += u8::from(yes);
        if self.votes.answers == REDLOCK_NODES {
            self.decide_votes(ctx, rng, out);
        }
    }

    /// Redlock: the lock is held if a majority agreed and time is left:
    /// validity = ttl − elapsed − drift, drift = 1% of ttl + 2 ms.
    pub(super) fn decide_votes(&mut self, ctx: Ctx, rng: &mut SimRng, out: &mut Actions) {
        crate::invariant!(self.votes.yes <= self.votes.answers, "{} yes votes of {} answers", self.votes.yes, self.votes.answers);
        crate::invariant!(ctx.now_us >= self.attempt_started_us, "a Redlock round decided before it began");
        let ttl_us = ctx.scenario.ttl_ms * 1000;
        let elapsed_us = ctx.now_us - self.attempt_started_us;
        let drift_us = ttl_us / 100 + 2_000;
        let validity_us = ttl_us.saturating_sub(elapsed_us + drift_us);
        if self.votes.yes >= REDLOCK_QUORUM && validity_us > 0 {
            self.valid_until_us = ctx.now_us + validity_us;
            return self.acquired(None, ctx, out);
        }
        // A failed round must undo its partial votes, or they block others;
        // nobody waits for these answers.
        let req = self.next_req();
        for to in lock_nodes(ctx.scenario) {
            out.push(Action::Send { to: *to, req, body: Msg::ReleaseCad { value: self.value } });
        }
        self.acquire_failed(ctx, rng, AcquireFailure::Minority { yes: self.votes.yes }, out);
    }
}
