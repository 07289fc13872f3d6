use super::*;
use crate::rng::Stream;
use crate::scenario::{LockService, TokenSource};

fn sends(actions: &[Action]) -> Vec<(u32, Msg)> {
    actions.iter().filter_map(|action| if let Action::Send { req, body, .. } = action { Some((*req, *body)) } else { None }).collect()
}

fn notes(actions: &[Action]) -> Vec<Kind> {
    actions.iter().filter_map(|action| if let Action::Note { kind, .. } = action { Some(*kind) } else { None }).collect()
}

/// A worker driven by hand: each step returns what it did.
struct Driven {
    worker: Worker,
    rng: SimRng,
    scenario: Scenario,
}

impl Driven {
    fn new(scenario: Scenario) -> Driven {
        Driven { worker: Worker::new(), rng: SimRng::new(1, Stream::Worker(0)), scenario }
    }

    fn timer(&mut self, timer: Timer) -> Actions {
        let mut out = Vec::new();
        let ctx = Ctx { now_us: 0, scenario: &self.scenario };
        self.worker.on_timer(timer, ctx, &mut self.rng, &mut out);
        out
    }

    fn reply(&mut self, req: u32, msg: Msg) -> Actions {
        let mut out = Vec::new();
        let ctx = Ctx { now_us: 0, scenario: &self.scenario };
        self.worker.on_message(req, msg, ctx, &mut self.rng, &mut out);
        out
    }
}

#[test]
fn redis_acquire_takes_two_round_trips_then_works() {
    let mut driven = Driven::new(Scenario::default());
    let actions = driven.timer(Timer::Start);
    let [(set, Msg::SetNx { ttl_ms: 10_000, .. })] = sends(&actions)[..] else { panic!("{actions:?}") };
    let actions = driven.reply(set, Msg::SetReply { ok: true });
    let [(incr, Msg::Incr)] = sends(&actions)[..] else { panic!("{actions:?}") };
    let actions = driven.reply(incr, Msg::IncrReply { value: 33 });
    assert!(actions.contains(&Action::After { delay_us: 0, timer: Timer::Work(1) }));
    let actions = driven.timer(Timer::Work(1));
    let write = WriteReq { token: Some(33), epoch: 0, nth: 1, version: None };
    assert_eq!(sends(&actions).into_iter().map(|(_, msg)| msg).collect::<Vec<_>>(), vec![Msg::Write(write)]);
}

#[test]
fn the_atomic_script_grants_and_counts_in_one_round_trip() {
    let mut driven = Driven::new(Scenario { token_source: TokenSource::AtomicScript, ..Scenario::default() });
    let actions = driven.timer(Timer::Start);
    let [(script, Msg::AcquireScript { .. })] = sends(&actions)[..] else { panic!("{actions:?}") };
    let actions = driven.reply(script, Msg::AcquireScriptReply { token: Some(33) });
    assert!(matches!(notes(&actions)[..], [Kind::Acquired { valid_until_us: 10_000_000 }]), "{actions:?}");
}

#[test]
fn a_late_reply_to_an_earlier_attempt_changes_nothing() {
    let mut driven = Driven::new(Scenario::default());
    let actions = driven.timer(Timer::Start);
    let (first, _) = sends(&actions)[0];
    // The first SET times out; the worker backs off and tries again.
    let actions = driven.timer(Timer::Timeout(first));
    assert!(notes(&actions).iter().any(|kind| matches!(kind, Kind::Backoff { .. })));
    let actions = driven.timer(Timer::Retry);
    let (second, _) = sends(&actions)[0];
    assert_ne!(first, second);
    // The first SET's "OK" arrives late: it is not the answer to the second.
    assert!(driven.reply(first, Msg::SetReply { ok: true }).is_empty());
    let actions = driven.reply(second, Msg::SetReply { ok: false });
    assert!(notes(&actions).iter().any(|kind| matches!(kind, Kind::AcquireFailed { failure: AcquireFailure::Taken, .. })));
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
fn a_refused_renewal_stops_the_work_and_the_job_is_retried() {
    let mut driven = Driven::new(Scenario { renewal: true, ..Scenario::default() });
    let set = sends(&driven.timer(Timer::Start))[0].0;
    let incr = sends(&driven.reply(set, Msg::SetReply { ok: true }))[0].0;
    let actions = driven.reply(incr, Msg::IncrReply { value: 7 });
    let Some(Action::After { timer: renew @ Timer::Renew(_), .. }) =
        actions.iter().find(|a| matches!(a, Action::After { timer: Timer::Renew(_), .. }))
    else {
        panic!("renewal armed: {actions:?}")
    };
    let renewal = sends(&driven.timer(*renew))[0].0;
    let actions = driven.reply(renewal, Msg::RenewReply { ok: false });
    assert_eq!(notes(&actions), vec![Kind::LostLock { why: Disbelief::RenewalRefused }, Kind::Retry]);
    assert!(matches!(sends(&actions)[..], [(_, Msg::SetNx { .. })]), "the job runner retries the job: {actions:?}");
    assert!(driven.timer(Timer::Work(1)).is_empty(), "no write of the lost hold's work");
}

#[test]
fn a_refused_write_retries_the_job_at_most_job_retries_max_times() {
    let mut driven = Driven::new(Scenario::default());
    let mut set = sends(&driven.timer(Timer::Start))[0].0;
    let mut retries = 0;
    for hold in 1..=u32::from(JOB_RETRIES_MAX) + 1 {
        let incr = sends(&driven.reply(set, Msg::SetReply { ok: true }))[0].0;
        driven.reply(incr, Msg::IncrReply { value: 7 });
        let write = sends(&driven.timer(Timer::Work(hold)))[0].0;
        let release =
            sends(&driven.reply(write, Msg::WriteReply { refusal: Some(crate::msg::Refusal::StaleToken { token: 7, highest: 8 }) }))[0].0;
        let actions = driven.reply(release, Msg::ReleaseReply { deleted: true });
        match sends(&actions)[..] {
            [(next, Msg::SetNx { .. })] => {
                set = next;
                retries += 1;
                assert!(notes(&actions).contains(&Kind::Retry));
            }
            [] => assert!(driven.worker.is_done(), "{actions:?}"),
            _ => panic!("{actions:?}"),
        }
    }
    assert_eq!(retries, JOB_RETRIES_MAX);
    assert!(driven.worker.is_done());
}

#[test]
fn redlock_needs_a_majority_and_undoes_a_minority() {
    let mut driven = Driven::new(Scenario { lock_service: LockService::Redlock, ..Scenario::default() });
    let actions = driven.timer(Timer::Start);
    assert_eq!(sends(&actions).len(), 5);
    let round = sends(&actions)[0].0;
    for ok in [true, true, false, false] {
        assert!(driven.reply(round, Msg::SetReply { ok }).is_empty());
    }
    // A vote of another round does not count toward this one.
    assert!(driven.reply(round + 7, Msg::SetReply { ok: true }).is_empty());
    let actions = driven.reply(round, Msg::SetReply { ok: false });
    assert_eq!(sends(&actions).iter().filter(|(_, msg)| matches!(msg, Msg::ReleaseCad { .. })).count(), 5);
    assert!(notes(&actions).iter().any(|kind| matches!(kind, Kind::AcquireFailed { failure: AcquireFailure::Minority { yes: 2 }, .. })));
}

#[test]
fn a_consensus_waiter_holds_when_its_turn_answers_its_put() {
    let mut driven = Driven::new(Scenario { lock_service: LockService::Consensus, ..Scenario::default() });
    let grant = sends(&driven.timer(Timer::Start))[0].0;
    let put = sends(&driven.reply(grant, Msg::LeaseGrantReply { lease: 9, ttl_ms: 10_000 }))[0].0;
    let actions = driven.reply(put, Msg::PutReply { revision: 34, owner: false });
    assert_eq!(notes(&actions), vec![Kind::Queued { revision: 34 }]);
    let actions = driven.reply(put, Msg::LockReady { revision: 34 });
    assert!(matches!(notes(&actions)[..], [Kind::Acquired { .. }]), "{actions:?}");
}

#[test]
fn the_phases_edges_are_the_state_machines() {
    assert!(Phase::Idle.may_go_to(Phase::Setting));
    assert!(Phase::Setting.may_go_to(Phase::Incrementing));
    assert!(Phase::Writing.may_go_to(Phase::Releasing));
    assert!(!Phase::Idle.may_go_to(Phase::Writing), "a write needs a hold");
    assert!(!Phase::Releasing.may_go_to(Phase::Working), "a release ends a hold");
    assert!(!Phase::Done.may_go_to(Phase::Done));
    assert!(!Phase::Working.may_go_to(Phase::Idle), "nothing goes back to the start");
}

#[test]
#[should_panic(expected = "a worker went from Idle to Writing")]
fn a_worker_that_skips_its_hold_stops() {
    let mut worker = Worker::new();
    worker.go(Phase::Writing);
}

#[test]
#[should_panic(expected = "a worker believes it holds the lock while Queued")]
fn a_worker_that_believes_outside_a_hold_stops_at_its_next_step() {
    let mut driven = Driven::new(Scenario { lock_service: LockService::Consensus, ..Scenario::default() });
    let grant = sends(&driven.timer(Timer::Start))[0].0;
    let put = sends(&driven.reply(grant, Msg::LeaseGrantReply { lease: 9, ttl_ms: 10_000 }))[0].0;
    driven.worker.believes = true;
    driven.reply(put, Msg::PutReply { revision: 34, owner: false });
}

/// Consul: a client blocked on the key asks again when its query's wait
/// time runs out, once per block: the wait timer of a block it has left
/// (answered, or replaced by the next ask) changes nothing.
#[test]
fn a_blocked_consul_client_asks_again_at_its_wait_time_and_only_the_latest_wait_counts() {
    let scenario = Scenario { lock_service: LockService::Consul, ..Scenario::default() };
    let mut driven = Driven::new(scenario);
    let actions = driven.timer(Timer::Start);
    let [(lease_req, Msg::LeaseGrant { .. })] = sends(&actions)[..] else { panic!("{actions:?}") };
    let actions = driven.reply(lease_req, Msg::LeaseGrantReply { lease: 7, ttl_ms: 10_000 });
    let Some(&(put, Msg::PutLock { lease: 7 })) = sends(&actions).iter().find(|(_, msg)| matches!(msg, Msg::PutLock { .. })) else {
        panic!("{actions:?}")
    };
    let actions = driven.reply(put, Msg::AcquireRefused { held: true });
    let wait = Timer::LockWait(put);
    assert!(actions.contains(&Action::After { delay_us: crate::services::LOCK_WAIT_MS * 1000, timer: wait }), "{actions:?}");
    // The wait runs out with no answer: the same session asks again, as the
    // same attempt.
    let actions = driven.timer(wait);
    let [(again, Msg::PutLock { lease: 7 })] = sends(&actions)[..] else { panic!("{actions:?}") };
    assert!(again > put);
    assert_eq!(driven.worker.attempt, 1);
    // Blocked again: the first block's timer, fired late, changes nothing.
    let actions = driven.reply(again, Msg::AcquireRefused { held: true });
    assert!(actions.contains(&Action::After { delay_us: crate::services::LOCK_WAIT_MS * 1000, timer: Timer::LockWait(again) }));
    assert!(driven.timer(wait).is_empty());
    // The answer comes first: the key changed, and it tries at once; the
    // second block's timer then changes nothing either.
    let actions = driven.reply(again, Msg::KeyChanged);
    assert!(matches!(sends(&actions)[..], [(_, Msg::PutLock { lease: 7 })]), "{actions:?}");
    assert!(driven.timer(Timer::LockWait(again)).is_empty());
}
