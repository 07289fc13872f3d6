//! The classic GC-pause story, to the token, both ways.

use fencing_sim::{presets, run, Actor, Kind, Scenario};

const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);

fn classic(fencing: bool) -> Scenario {
    Scenario { fencing, ..presets::classic() }
}

#[test]
fn without_fencing_a_zombie_write_overwrites_b() {
    let trace = run(&classic(false)).unwrap();
    let summary = &trace.summary;
    assert_eq!(summary.zombie_writes, 1);
    assert_eq!(summary.stale_overwrites, 1);
    assert_eq!(summary.rejected_writes, 0);
    assert_eq!(summary.accepted_writes, 2);
    let last = summary.final_store.unwrap();
    assert_eq!((last.writer, last.token), (A, Some(33)));
    assert_eq!(summary.verdict, "A's stale write (token 33) overwrote B's newer data (token 34)");
    assert_eq!(summary.mutual_exclusion_violations, 1, "A still believed when B acquired");
}

#[test]
fn with_fencing_the_store_rejects_the_zombie() {
    let trace = run(&classic(true)).unwrap();
    let summary = &trace.summary;
    assert_eq!(summary.zombie_writes, 0);
    assert_eq!(summary.stale_overwrites, 0);
    assert_eq!(summary.rejected_writes, 1);
    // B's write, then A's retried job's under token 35 (see below).
    assert_eq!(summary.accepted_writes, 2);
    let b_wrote = trace.events.iter().find(|event| matches!(event.kind, Kind::WriteAccepted { .. })).unwrap();
    assert_eq!((b_wrote.actor, b_wrote.token), (Actor::Store, Some(34)));
    assert!(matches!(b_wrote.kind, Kind::WriteAccepted { writer: B, .. }));
    assert_eq!(summary.verdict, "A's stale write was rejected: token 33 < 34 already accepted");
    assert_eq!(summary.mutual_exclusion_violations, 1, "fencing orders writes; it does not stop the overlap");
}

/// A job runner retries a job whose result did not land (issue 41, finding
/// 5): fencing keeps the data right, and A's work, done once before its
/// refused write, is done again under a newer token. Only an idempotent
/// job makes that harmless.
#[test]
fn with_fencing_the_refused_job_is_retried_and_its_work_done_twice() {
    let trace = run(&classic(true)).unwrap();
    let summary = &trace.summary;
    assert_eq!(summary.stale_overwrites, 0, "fencing keeps the data right");
    let retried = trace.events.iter().position(|event| event.actor == A && event.kind == Kind::Retry).expect("A's job is retried");
    let rejected = trace.events.iter().position(|event| matches!(event.kind, Kind::WriteRejected { writer: A, .. })).unwrap();
    assert!(rejected < retried, "the retry follows the refusal");
    assert_eq!(summary.work_redone, 1, "A's work is done twice");
    let last = summary.final_store.unwrap();
    assert_eq!((last.writer, last.token), (A, Some(35)), "the retried job lands under a newer token");
    let said = trace.text(&trace.events[retried]);
    assert!(said.contains("retries"), "{said}");
    assert!(summary.notes.iter().any(|note| note.starts_with("A's job was retried")), "{:?}", summary.notes);
}

#[test]
fn the_story_happens_in_the_right_order_at_the_right_times() {
    let trace = run(&classic(true)).unwrap();
    let find = |actor: Actor, wanted: &dyn Fn(&Kind) -> bool| {
        trace.events.iter().find(|event| event.actor == actor && wanted(&event.kind)).unwrap_or_else(|| panic!("no such event for {actor}"))
    };
    let a_holds = find(A, &|kind| matches!(kind, Kind::Acquired { .. }));
    assert_eq!(a_holds.token, Some(33));
    assert!(a_holds.t_us < 2_000, "A holds the lock within two round trips: {}", a_holds.t_us);
    let pause = find(A, &|kind| matches!(kind, Kind::PauseBegan { .. }));
    let Kind::PauseBegan { until_us } = pause.kind else { unreachable!() };
    assert_eq!(until_us - pause.t_us, 15_000_000);
    let expired = find(Actor::LockNode(0), &|kind| matches!(kind, Kind::Expired { holder: A, .. }));
    assert!((10_000_000..10_002_000).contains(&expired.t_us), "lease expires at 10 s: {}", expired.t_us);
    let b_holds = find(B, &|kind| matches!(kind, Kind::Acquired { .. }));
    assert_eq!(b_holds.token, Some(34));
    assert!(b_holds.t_us > expired.t_us && b_holds.t_us < 11_100_000, "B gets it soon after expiry: {}", b_holds.t_us);
    let rejected = find(Actor::Store, &|kind| matches!(kind, Kind::WriteRejected { .. }));
    assert_eq!(rejected.token, Some(33));
    assert!(rejected.t_us > until_us);
    assert_eq!(trace.text(rejected), "Store rejected A's write: token 33 < 34 already accepted");
}

#[test]
fn the_same_seed_gives_the_same_trace_and_another_seed_another() {
    let scenario = classic(false);
    let first = run(&scenario).unwrap();
    assert_eq!(first.to_json(), run(&scenario).unwrap().to_json());
    let other = run(&Scenario { seed: 2, ..scenario }).unwrap();
    assert_ne!(first.fingerprint(), other.fingerprint(), "the seed must matter");
    assert_eq!(other.summary.stale_overwrites, 1, "but not the outcome");
}
