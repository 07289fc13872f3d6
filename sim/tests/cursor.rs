//! The page's per-cursor answers (`AtCursor`) against the replays they stand
//! in for (`Trace::verdict_at`, `Trace::store_at`): the same at every event of
//! every preset, fencing off and on, and past the end.

use fencing_sim::cursor::AtCursor;
use fencing_sim::{presets, run, Kind, Trace};

fn check(trace: &Trace, name: &str) {
    let at = AtCursor::of(trace);
    let beyond = trace.events.len() as u32 + 3;
    for index in 0..beyond {
        assert_eq!(*at.verdict(index), trace.verdict_at(index), "{name}: verdict at event {index}");
        assert_eq!(*at.store(index), trace.store_at(index), "{name}: store at event {index}");
        let writes: Vec<u32> = trace
            .events
            .iter()
            .take(index as usize + 1)
            .filter(|event| matches!(event.kind, Kind::WriteAccepted { .. } | Kind::WriteRejected { .. }))
            .map(|event| event.index)
            .collect();
        assert_eq!(at.writes_to(index), writes.as_slice(), "{name}: writes up to event {index}");
    }
}

#[test]
fn every_preset_says_the_same_at_every_event_as_a_replay() {
    assert!(presets::PRESETS.len() >= 10, "the presets are all here");
    for preset in presets::PRESETS {
        for fencing in [false, true] {
            let mut scenario = (preset.build)();
            scenario.fencing = fencing;
            let trace = run(&scenario).expect("a preset runs");
            assert!(trace.events.len() > 20, "{}: a real run", preset.id);
            check(&trace, &format!("{} fencing {fencing}", preset.id));
        }
    }
}

/// While nothing is damaged yet, the verdict says what is happening at that
/// moment of the GC-pause story: A's lease gone while A still believes, then
/// A and B both believing they hold the lock; at the end, the summary's.
#[test]
fn the_verdict_names_the_moment_before_the_damage() {
    let trace = run(&presets::classic()).unwrap();
    let at = |wanted: &dyn Fn(&fencing_sim::Event) -> bool| trace.events.iter().find(|event| wanted(event)).unwrap().index;
    let expired = at(&|event| matches!(event.kind, Kind::Expired { .. }));
    let b_holds = at(&|event| event.actor == fencing_sim::Actor::Worker(1) && matches!(event.kind, Kind::Acquired { .. }));
    assert_eq!(trace.verdict_at(expired - 1).text, "So far one holder at a time: no write damaged");
    assert_eq!(trace.verdict_at(expired).text, "A's lease has run out, but A still believes it holds the lock: no write damaged yet");
    assert_eq!(trace.verdict_at(b_holds).text, "A and B both believe they hold the lock right now: no write damaged yet");
    let last = trace.events.len() as u32 - 1;
    assert!(
        trace.verdict_at(last).text.starts_with("A's stale write (token 33) overwrote B's newer data"),
        "{}",
        trace.verdict_at(last).text
    );
}
