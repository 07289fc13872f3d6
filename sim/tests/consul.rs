//! Consul as its server and its Go client run it (issue 41, finding 2): the
//! server invalidates a session 2 × TTL after its last renewal, the client
//! renews every TTL / 2 and retries a refused acquire after 5 s, the
//! lock-delay then keeps everyone out, and a refused acquire is just
//! `false`. Each test failed on the model that invalidated at the TTL,
//! renewed every TTL / 3 and queued the refused contender.

use fencing_sim::msg::Msg;
use fencing_sim::{presets, run, Actor, Kind, LockService, Trace};

const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);
const TTL_US: u64 = 10_000_000;
const LOCK_DELAY_US: u64 = 15_000_000;

fn trace(preset: &str) -> Trace {
    run(&presets::build(preset).unwrap_or_else(|| panic!("no preset {preset}"))).unwrap()
}

/// When the leader last heard from `worker`'s session: its creation or a
/// renewal, before `before_us`.
fn last_renewal_us(trace: &Trace, worker: Actor, before_us: u64) -> u64 {
    let heard = |event: &&fencing_sim::Event| {
        matches!(event.kind, Kind::Receive { from, body: Msg::Renew { .. } | Msg::LeaseGrant { .. }, .. } if from == worker)
            && event.t_us < before_us
    };
    trace.events.iter().filter(heard).map(|event| event.t_us).max().expect("the session was created")
}

fn granted_us(trace: &Trace, worker: Actor) -> u64 {
    let granted = trace.events.iter().find(|event| matches!(event.kind, Kind::Granted { holder, .. } if holder == worker));
    granted.unwrap_or_else(|| panic!("{worker} is never granted")).t_us
}

fn sends(trace: &Trace, worker: Actor, wanted: impl Fn(&Msg) -> bool) -> Vec<u64> {
    let sent = |event: &&fencing_sim::Event| event.actor == worker && matches!(event.kind, Kind::Send { body, .. } if wanted(&body));
    trace.events.iter().filter(sent).map(|event| event.t_us).collect()
}

#[test]
fn b_is_granted_no_earlier_than_twice_the_ttl_after_as_last_renewal_plus_the_lock_delay() {
    let landed = trace("consul-long-pause");
    let b_us = granted_us(&landed, B);
    let renewed_us = last_renewal_us(&landed, A, b_us);
    assert!(b_us >= renewed_us + 2 * TTL_US + LOCK_DELAY_US, "B granted at {b_us} µs, A last renewed at {renewed_us} µs");
    // And not much later: B's 5 s retries find the delay over within one.
    assert!(b_us < renewed_us + 2 * TTL_US + LOCK_DELAY_US + 5_100_000, "B granted at {b_us} µs");
    let invalidated = landed.events.iter().find(|event| matches!(event.kind, Kind::Expired { holder: A, .. })).expect("invalidated");
    assert!(invalidated.t_us >= renewed_us + 2 * TTL_US, "invalidated at {} µs, not at the TTL", invalidated.t_us);
    let last = landed.summary.final_store.expect("data");
    assert_eq!((last.writer, last.token, landed.summary.stale_overwrites), (A, Some(33), 1), "A's 33 over B's 34");
}

#[test]
fn a_pause_past_the_ttl_but_inside_twice_the_ttl_plus_the_delay_is_survived() {
    let survived = trace("consul-lock-delay");
    let pause_us = 30_000_000;
    assert!(pause_us > 2 * TTL_US && pause_us < 2 * TTL_US + LOCK_DELAY_US);
    assert_eq!(survived.summary.zombie_writes, 0);
    assert!(granted_us(&survived, B) >= 2 * TTL_US + LOCK_DELAY_US);
}

#[test]
fn the_client_renews_every_half_ttl() {
    // B holds from about 35 s to its release; its session renews all along.
    let landed = trace("consul-long-pause");
    let renewals = sends(&landed, B, |body| matches!(body, Msg::Renew { .. }));
    assert!(renewals.len() >= 3, "{renewals:?}");
    for pair in renewals.windows(2) {
        assert_eq!(pair[1] - pair[0], TTL_US / 2, "{renewals:?}");
    }
}

#[test]
fn a_refused_acquire_is_just_false_and_is_retried_after_five_seconds() {
    let landed = trace("consul-long-pause");
    let service = LockService::Consul;
    let labels: Vec<String> = landed
        .events
        .iter()
        .filter_map(|event| match event.kind {
            Kind::Send { body, .. } => Some(service.label_of(&body)),
            _ => None,
        })
        .collect();
    assert!(labels.iter().any(|label| label == "false"), "{labels:?}");
    assert!(labels.iter().all(|label| !label.contains("wait") && !label.contains("next")), "no invented queue: {labels:?}");
    // B blocks on the key while A's session holds it, asks again when the
    // invalidation frees it (20 s), and then every 5 s while the lock-delay
    // refuses it.
    let acquires = sends(&landed, B, |body| matches!(body, Msg::PutLock { .. }));
    assert_eq!(acquires.len(), 5, "{acquires:?}: once at start, at 20 s, then at 25, 30 and 35 s");
    for pair in acquires[1..].windows(2) {
        let gap_us = pair[1] - pair[0];
        assert!((5_000_000..5_010_000).contains(&gap_us), "{acquires:?}");
    }
}

#[test]
fn lock_index_moves_only_on_a_successful_acquire() {
    let landed = trace("consul-long-pause");
    let granted: Vec<Option<u64>> =
        landed.events.iter().filter(|event| matches!(event.kind, Kind::Granted { .. })).map(|event| event.token).collect();
    assert_eq!(granted, [Some(33), Some(34)], "four refusals in between take no LockIndex");
}
