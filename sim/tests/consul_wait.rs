//! A client blocked on a Consul lock key asks again when its query's wait
//! time runs out (`Lock` in `api/lock.go`: `QueryOptions.WaitTime` is
//! `LockWaitTime`, `DefaultLockWaitTime` 15 s, and the `WAIT` loop asks
//! again), so a "key changed" answer lost in a partition does not leave it
//! waiting for good. The model before this waited until the run's bound.

use fencing_sim::scenario::Fault;
use fencing_sim::services::LOCK_WAIT_MS;
use fencing_sim::{presets, run, Actor, Kind, Scenario, Trace};

const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);

/// Consul's default lock-delay (the `/v1/session/create` API page).
const LOCK_DELAY_MS: u64 = 15_000;

/// consul-long-pause (A frozen 40 s holding the key, its session
/// invalidated at 20 s, B blocked on the key since 5 s), with B cut off
/// from everyone from `at_ms` for `for_ms`.
fn b_cut_off(at_ms: u64, for_ms: u64) -> Scenario {
    let mut scenario = presets::build("consul-long-pause").expect("preset");
    scenario.faults.push(Fault::Partition { node: B, at_ms, for_ms, from: None, after_event: None });
    scenario
}

fn first_us(trace: &Trace, wanted: impl Fn(&fencing_sim::Event) -> bool) -> Option<u64> {
    trace.events.iter().find(|event| wanted(event)).map(|event| event.t_us)
}

fn granted_to_b_us(trace: &Trace) -> Option<u64> {
    first_us(trace, |event| matches!(event.kind, Kind::Granted { holder, .. } if holder == B))
}

#[test]
fn a_blocked_consul_client_whose_answer_was_lost_asks_again_within_its_wait_time() {
    let (cut_ms, heal_ms) = (19_000, 25_000);
    let trace = run(&b_cut_off(cut_ms, heal_ms - cut_ms)).unwrap();
    assert!(!trace.summary.truncated, "the run ends on its own");
    let invalidated =
        first_us(&trace, |event| matches!(event.kind, Kind::Expired { holder, .. } if holder == A)).expect("A's session goes");
    assert!(invalidated > cut_ms * 1000 && invalidated < heal_ms * 1000, "A's session invalidated at {invalidated} µs, inside the cut");
    let lost = trace.events.iter().any(|event| {
        event.t_us >= invalidated && matches!(&event.kind, Kind::Send { to, body: fencing_sim::msg::Msg::KeyChanged, .. } if *to == B)
    });
    assert!(lost, "the server told B the key changed while B was cut off");
    // Once the cut heals and A's session is gone, B hears within one wait
    // time (plus a round trip) that the key is free; the lock-delay that
    // followed the invalidation then holds it to its 5 s retries.
    let heard_us = heal_ms * 1000 + LOCK_WAIT_MS * 1000 + 2 * 1_000;
    let granted = granted_to_b_us(&trace).expect("B is granted the lock");
    let lock_delay_over = invalidated + LOCK_DELAY_MS * 1000;
    assert!(granted <= heard_us.max(lock_delay_over + 5_000_000 + 2_000), "B granted at {granted} µs");
    assert!(granted >= lock_delay_over, "B granted at {granted} µs, inside the lock-delay");
}

/// The cut ends just before B's wait time does: the "key changed" answer
/// was lost, and B's own session, kept and renewed, asks again at its wait
/// time and hears that the key is free (only a lock-delay refuses it).
#[test]
fn the_same_session_asks_again_one_wait_time_after_it_blocked() {
    let trace = run(&b_cut_off(19_000, 1_004)).unwrap();
    let blocked = first_us(&trace, |event| event.actor == B && matches!(event.kind, Kind::AcquireFailed { .. })).expect("B blocks");
    let asks: Vec<u64> = trace
        .events
        .iter()
        .filter(|event| event.actor == B && matches!(&event.kind, Kind::Send { body: fencing_sim::msg::Msg::PutLock { .. }, .. }))
        .map(|event| event.t_us)
        .collect();
    assert!(asks.len() >= 2, "B asked {} times", asks.len());
    // The refusal reaches B a half round trip after the server sent it; the
    // wait time runs from B's sending of the blocking query, folded here
    // into the refusal's arrival.
    assert_eq!(asks[1], blocked + LOCK_WAIT_MS * 1000, "B asks again one wait time after it blocked");
    let new_sessions = trace
        .events
        .iter()
        .filter(|event| event.actor == B && matches!(&event.kind, Kind::Send { body: fencing_sim::msg::Msg::LeaseGrant { .. }, .. }))
        .count();
    assert_eq!(new_sessions, 1, "B keeps its session");
    let granted = granted_to_b_us(&trace).expect("B is granted the lock");
    assert!(granted < 36_000_000 + 5_000_000, "B granted at {granted} µs, by its first retry after the lock-delay");
}

/// Without the cut nothing changes: the answer comes before the wait time
/// runs out, and B never asks again while blocked.
#[test]
fn an_answer_before_the_wait_time_leaves_no_second_ask() {
    let trace = run(&presets::build("consul-long-pause").expect("preset")).unwrap();
    let asks_while_held = trace
        .events
        .iter()
        .filter(|event| event.actor == B && event.t_us < 20_000_000)
        .filter(|event| matches!(&event.kind, Kind::Send { body: fencing_sim::msg::Msg::PutLock { .. }, .. }))
        .count();
    assert_eq!(asks_while_held, 1);
}

/// A holder that works for an hour, renewing its 20 min session, then
/// freezes for an hour: its session goes 2 × 20 min after its last renewal.
/// B, blocked all that time, asks every wait time (over 300 times); its
/// asks are not acquire attempts (the scenario's bound of 100 does not end
/// them) and the server keeps one watch for it, not one per ask (the old
/// list of watchers stopped the run at 255).
#[test]
fn a_long_block_asks_every_wait_time_and_is_granted_when_the_holder_goes() {
    let mut scenario = presets::build("consul-long-pause").expect("preset");
    scenario.ttl_ms = 1_200_000;
    scenario.work_ms = 3_600_000;
    for fault in &mut scenario.faults {
        if let Fault::Pause { pause_ms, .. } = fault {
            *pause_ms = 3_600_000;
        }
    }
    let trace = run(&scenario).unwrap();
    assert!(!trace.summary.truncated, "the run ends on its own");
    let invalidated =
        first_us(&trace, |event| matches!(event.kind, Kind::Expired { holder, .. } if holder == A)).expect("A's session goes");
    assert!(invalidated > 3_600_000_000 + 2 * 1_200_000_000 - 600_000_000, "A's session invalidated at {invalidated} µs");
    let asks = trace
        .events
        .iter()
        .filter(|event| event.actor == B && event.t_us < invalidated)
        .filter(|event| matches!(&event.kind, Kind::Send { body: fencing_sim::msg::Msg::PutLock { .. }, .. }))
        .count();
    let blocked_us = invalidated - 5_000_000;
    assert_eq!(asks as u64, blocked_us / (LOCK_WAIT_MS * 1000) + 1, "B asks once and then once a wait time");
    assert!(asks > 255, "B asked {asks} times");
    let granted = granted_to_b_us(&trace).expect("B is granted the lock");
    assert!(granted >= invalidated + LOCK_DELAY_MS * 1000, "B granted at {granted} µs");
    assert!(granted < invalidated + LOCK_DELAY_MS * 1000 + LOCK_WAIT_MS * 1000, "B granted at {granted} µs");
}
