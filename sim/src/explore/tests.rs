use super::*;
use crate::scenario::{LockService, RedisPersistence, TokenSource, When};
use crate::{presets, run};

fn gc_pause_fenced() -> Scenario {
    Scenario { fencing: true, ..presets::classic() }
}

fn counterexample(outcome: Outcome) -> Counterexample {
    match outcome {
        Outcome::Counterexample(found) => found,
        Outcome::None { claim, .. } => panic!("expected a counterexample, got: {claim}"),
    }
}

#[test]
fn a_separate_incr_breaks_fencing_with_one_pause_before_the_incr() {
    let found = counterexample(explore(&gc_pause_fenced(), Property::NoStaleOverwrite, 2).unwrap());
    let [Fault::Pause { worker, when: When::BeforeSend(2), pause_ms }] = found.scenario.faults[..] else {
        panic!("shrunk to one pause before A's second message (its INCR): {:?}", found.scenario.faults)
    };
    assert_eq!(worker, crate::Actor::Worker(0));
    assert_eq!(pause_ms, pause_lengths_ms(&gc_pause_fenced()).into_iter().find(|ms| *ms == pause_ms).unwrap());
    assert!(run(&found.scenario).unwrap().summary.stale_overwrites >= 1, "it replays");
    assert!(found.chain.contains("A froze before its INCR (its SET already granted)"), "{}", found.chain);
    // A's INCR answers after its lease ran out: it only believes it holds the lock.
    assert!(found.chain.contains("A went on as the holder (token 34), though its lease had run out"), "{}", found.chain);
    assert!(found.chain.contains("B took the lock (token 33)"), "{}", found.chain);
    assert!(found.chain.contains("over B's newer data"), "{}", found.chain);
}

#[test]
fn an_atomic_token_with_a_durable_counter_survives_every_schedule_tried() {
    let design =
        Scenario { token_source: TokenSource::AtomicScript, redis_persistence: RedisPersistence::FsyncAlways, ..gc_pause_fenced() };
    let Outcome::None { schedules_tried, claim } = explore(&design, Property::NoStaleOverwrite, 2).unwrap() else {
        panic!("no counterexample expected")
    };
    assert!(schedules_tried > 1_000, "{schedules_tried}");
    assert!(claim.starts_with(&format!("No schedule broke no_stale_overwrite in {schedules_tried} tried")), "{claim}");
}

#[test]
fn an_atomic_token_without_persistence_breaks_only_by_a_restart() {
    let design = Scenario { token_source: TokenSource::AtomicScript, ..gc_pause_fenced() };
    let found = counterexample(explore(&design, Property::NoStaleOverwrite, 2).unwrap());
    assert!(found.scenario.faults.iter().any(|fault| matches!(fault, Fault::NodeCrash { .. })), "{:?}", found.scenario.faults);
}

#[test]
fn the_consensus_lock_survives_every_schedule_tried() {
    let design = Scenario { lock_service: LockService::Consensus, ..gc_pause_fenced() };
    assert!(matches!(explore(&design, Property::NoStaleOverwrite, 1).unwrap(), Outcome::None { .. }));
}

#[test]
fn slices_reach_the_same_answer_as_one_go() {
    let mut explorer = Explorer::new(&gc_pause_fenced(), Property::NoStaleOverwrite, 2).unwrap();
    let total = explorer.total();
    let mut slices = 0;
    let sliced = loop {
        slices += 1;
        if let Some(outcome) = explorer.step(7) {
            break outcome.clone();
        }
        assert!(explorer.tried() <= total + SHRINK_RUNS_MAX);
    };
    assert!(slices > 1);
    assert_eq!(sliced, explore(&gc_pause_fenced(), Property::NoStaleOverwrite, 2).unwrap());
}
