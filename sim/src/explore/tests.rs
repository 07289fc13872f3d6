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
    let Outcome::None { schedules_tried, claim, .. } = explore(&design, Property::NoStaleOverwrite, 2).unwrap() else {
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
        assert!(explorer.tried() <= total);
    };
    assert!(slices > 1);
    assert_eq!(sliced, explore(&gc_pause_fenced(), Property::NoStaleOverwrite, 2).unwrap());
}

/// The claim is written from what ran: every schedule run is one the
/// bounds describe, none twice, the counts per kind are the claim's, and a
/// pair's second fault strikes after its first.
#[test]
fn the_claim_equals_what_ran() {
    for design in [
        Scenario { lock_service: LockService::Consensus, ..gc_pause_fenced() },
        Scenario { token_source: TokenSource::AtomicScript, redis_persistence: RedisPersistence::FsyncAlways, ..gc_pause_fenced() },
    ] {
        let mut explorer = Explorer::new(&design, Property::NoStaleOverwrite, 2).unwrap().logging();
        let total = explorer.total();
        let outcome = loop {
            if let Some(outcome) = explorer.step(500) {
                break outcome.clone();
            }
        };
        let Outcome::None { schedules_tried, claim, bounds, searched, pairs, .. } = outcome else { panic!("both designs are safe") };
        let log = explorer.log();
        assert_eq!((log.len(), schedules_tried, total), (schedules_tried, total, total), "ran exactly the schedules counted");
        let mut seen = std::collections::HashSet::new();
        let twice: Vec<&Vec<Fault>> = log.iter().filter(|schedule| !seen.insert(format!("{schedule:?}"))).collect();
        assert!(twice.is_empty(), "no schedule twice: {} of them, {:?}", twice.len(), twice.first());
        let singles: Vec<&Fault> = log.iter().filter(|schedule| schedule.len() == 1).map(|schedule| &schedule[0]).collect();
        assert_eq!(singles.len() + pairs, schedules_tried);
        for entry in &searched {
            let ran = singles.iter().filter(|fault| fault.kind() == entry.kind).count();
            assert_eq!(ran, entry.singles, "{:?}", entry.kind);
            assert!(claim.contains(&format!("({})", entry.singles)), "the claim names {} {:?}: {claim}", entry.singles, entry.kind);
        }
        assert!(claim.contains(&format!("{pairs} pairs")), "{claim}");
        assert_eq!(searched.iter().map(|entry| entry.kind).collect::<Vec<_>>(), bounds.kinds);
        for fault in log.iter().flatten() {
            assert!(bounds.kinds.contains(&fault.kind()), "{fault:?}");
            let within = match *fault {
                Fault::Pause { pause_ms, when: When::BeforeSend(step), .. } => {
                    bounds.pause_lengths_ms.contains(&pause_ms) && step <= bounds.steps_max
                }
                Fault::DelayWrite { delay_ms, .. } => bounds.hold_lengths_ms.contains(&delay_ms),
                Fault::NodeCrash { down_ms, after_event, .. } => bounds.node_down_ms.contains(&down_ms) && after_event.is_some(),
                Fault::Partition { for_ms, from: None, after_event, .. } => bounds.partition_ms.contains(&for_ms) && after_event.is_some(),
                Fault::ClockJump { jump_ms, after_event, .. } => bounds.clock_jumps_ms.contains(&jump_ms) && after_event.is_some(),
                Fault::ClockDrift { ppm, .. } => bounds.drift_ppm.contains(&ppm),
                Fault::Crash { after_event, .. } => after_event.is_some(),
                Fault::LoseMessage { .. } => true,
                _ => false,
            };
            assert!(within, "outside the bounds: {fault:?}");
        }
    }
}

/// A pair's second fault is read off the run its first produced: it can
/// strike an event only that run has.
#[test]
fn a_pairs_second_fault_is_placed_on_the_first_ones_run() {
    let design = Scenario { lock_service: LockService::Consensus, ..gc_pause_fenced() };
    let base_events = run(&design).unwrap().events.len() as u32;
    let mut explorer = Explorer::new(&design, Property::NoStaleOverwrite, 2).unwrap().logging();
    while explorer.step(1_000).is_none() {}
    let beyond_base = explorer
        .log()
        .iter()
        .filter(|schedule| schedule.len() == 2)
        .any(|schedule| schedule[1].after_event().is_some_and(|index| index >= base_events));
    assert!(beyond_base, "some second fault strikes after an event the fault-free run never reaches");
}

/// Issue 42, item 6: the answer starts with one sentence that connects to
/// the run just seen (the classic fencing run: the store refused A's write),
/// then the cause chain's steps, then the bounds as a short list.
#[test]
fn the_answer_starts_from_the_run_just_seen_in_plain_words() {
    let found = counterexample(explore(&gc_pause_fenced(), Property::NoStaleOverwrite, 2).unwrap());
    assert_eq!(
        found.lead,
        "Fencing saved this run: the store refused the stale write. But with the token drawn by a second command (an INCR after the SET), one stop-the-world pause can still break the rule: a stale write overwrites data written under a newer grant."
    );
    assert!(found.chain.split("; ").count() >= 4, "the chain is a list of steps: {}", found.chain);
    assert!(found.searched_words[0].starts_with("Pauses of 3,334, 9,999, 10,001"), "{:?}", found.searched_words);

    let design =
        Scenario { token_source: TokenSource::AtomicScript, redis_persistence: RedisPersistence::FsyncAlways, ..gc_pause_fenced() };
    let Outcome::None { schedules_tried, lead, searched_words, .. } = explore(&design, Property::NoStaleOverwrite, 2).unwrap() else {
        panic!("no counterexample expected")
    };
    assert_eq!(
        lead,
        format!("Fencing saved this run: the store refused the stale write. And none of the {schedules_tried} schedules of up to two faults the search tried broke the rule that no write overwrites data written under a newer grant.")
    );
    // Not one nine-line sentence of numbers: short items, each its own.
    assert!(searched_words.len() >= 4, "{searched_words:?}");
    for item in &searched_words {
        assert!(item.len() <= 140 && !item.contains(';') && item.ends_with(" schedules)"), "{item}");
    }
    assert!(searched_words.last().unwrap().starts_with("Pairs of these"), "{searched_words:?}");
    // A design run without faults says so.
    let plain = Scenario { faults: Vec::new(), ..design };
    let Outcome::None { lead, .. } = explore(&plain, Property::NoStaleOverwrite, 1).unwrap() else { panic!() };
    assert!(lead.starts_with("This design's run without faults goes well. And none of the"), "{lead}");
}
