//! Redisson as it is (issue 41, finding 3): a refused watchdog renewal stops
//! the watchdog, not the work (`renewExpiration` only calls
//! `cancelExpirationRenewal`), so a holder frozen past its lease wakes and
//! writes; a client that asks `isHeldByCurrentThread()` before writing is
//! still unsafe. Both failed on the model whose worker gave its work up
//! when a renewal was refused.

use fencing_sim::event::Disbelief;
use fencing_sim::msg::Msg;
use fencing_sim::{presets, run, Actor, Fault, Kind, LockService, Scenario, When};

const A: Actor = Actor::Worker(0);

/// Redisson's defaults (a 30 s watchdog lease renewed every 10 s), a job of
/// `work_ms`, and one pause of A's.
fn redisson(work_ms: u64, when: When, pause_ms: u64) -> Scenario {
    let pause = Fault::Pause { worker: A, when, pause_ms };
    Scenario { work_ms, faults: vec![pause], ..presets::build("redisson-gc-pause").unwrap() }
}

#[test]
fn a_sixty_second_job_frozen_for_forty_five_seconds_writes_as_a_zombie() {
    // A takes the lock at 0 s; its watchdog renews at 10 s; frozen from 15 s
    // to 60 s, it lets the lease run out at 40 s, and B locks. A wakes, its
    // watchdog's renewal is refused, and the job goes on to write at 60 s.
    let scenario = redisson(60_000, When::AtMs(15_000), 45_000);
    assert_eq!(scenario.lock_service, LockService::Redisson);
    let trace = run(&scenario).unwrap();
    let refused = trace
        .events
        .iter()
        .any(|event| event.actor == A && matches!(event.kind, Kind::Receive { body: Msg::RenewReply { ok: false }, .. }));
    assert!(refused, "A's watchdog is refused after the pause");
    let gave_up = trace.events.iter().any(|event| event.actor == A && event.kind == Kind::LostLock { why: Disbelief::RenewalRefused });
    assert!(!gave_up, "nothing tells A's thread that the renewal was refused");
    assert!(trace.summary.zombie_writes >= 1, "A's write lands after B was granted: {:?}", trace.summary);
}

#[test]
fn checking_is_held_by_current_thread_before_writing_is_still_unsafe() {
    // The check answers yes at 12 s; the 45 s pause falls between it and
    // the write.
    let scenario = Scenario { check_before_write: true, ..redisson(12_000, When::BeforeWrite(1), 45_000) };
    let trace = run(&scenario).unwrap();
    let checked: Vec<String> = trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            Kind::Send { body: body @ Msg::Check { .. }, .. } if event.actor == A => Some(LockService::Redisson.label_of(&body)),
            _ => None,
        })
        .collect();
    assert_eq!(checked.len(), 1, "{checked:?}");
    assert!(checked[0].starts_with("isHeldByCurrentThread"), "{checked:?}");
    assert_eq!((trace.summary.zombie_writes, trace.summary.stale_overwrites), (1, 1), "{:?}", trace.summary);
}
