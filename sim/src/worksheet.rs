//! The race as a worksheet: one line above Play that says what the run on
//! screen is (the preset's story while the scenario is the preset's, else
//! what the learner set, in the scenario's own words, so it is never stale),
//! and once the run is over, the next experiment as one change. Both are
//! read off the scenario and its run; the page only draws them.

use crate::presets;
use crate::scenario::{Fault, LockService, Scenario, StoreKind, TokenSource};
use crate::sweep::Param;
use crate::trace::{Fencing, Trace};

/// How much longer than the lease the suggested pause is.
const PAUSE_PAST_LEASE_MS: u64 = 5_000;

/// What the run on screen is about, in one line.
pub fn story_line(scenario: &Scenario) -> String {
    let preset = presets::find(&scenario.preset);
    // The preset's story holds for its own scenario at any seed (its
    // causes are tested fencing off and on).
    if let Some(preset) = preset.filter(|preset| Scenario { seed: scenario.seed, ..(preset.build)() } == *scenario) {
        return format!("{}.", preset.story);
    }
    // A change the page itself offers (the fencing switch, the next
    // experiment, a quiz's link to its run) keeps the story the learner was
    // following, with the change said in words.
    if let Some(changes) = preset.and_then(|preset| offered_changes(&Scenario { seed: scenario.seed, ..(preset.build)() }, scenario)) {
        let preset = preset.expect("changes are read against a preset");
        return format!("{} \u{2026} and now {}.", preset.story, changes.join(", and "));
    }
    // After any other edit, only the edit's own words can be trusted.
    let from = preset.map_or(String::new(), |preset| format!("Edited from \u{201c}{}\u{201d}: ", preset.name));
    format!("{from}{}.", setting_words(scenario))
}

/// The changes from `preset` to `scenario`, in words, when every one of
/// them is one the page offers as a single step (at most
/// `OFFERED_CHANGES_MAX`); None for any other edit.
fn offered_changes(preset: &Scenario, scenario: &Scenario) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut rebuilt = preset.clone();
    if scenario.fencing != preset.fencing {
        rebuilt.fencing = scenario.fencing;
        words.push(if scenario.fencing { "the store checks tokens" } else { "the store checks nothing" }.to_string());
    }
    if scenario.store != preset.store && scenario.store != StoreKind::Versioned {
        rebuilt.store = scenario.store;
        words.push(
            match scenario.store {
                StoreKind::NfsFile => "the store is a plain file on NFS, which cannot check a token",
                _ => "the store is a database that can check tokens",
            }
            .to_string(),
        );
    }
    if scenario.lock_service != preset.lock_service && scenario.lock_service == LockService::SingleRedis {
        rebuilt.lock_service = scenario.lock_service;
        words.push("the lock comes from one Redis, which hands out a token".to_string());
    }
    if scenario.token_source != preset.token_source && scenario.token_source == TokenSource::AtomicScript {
        rebuilt.token_source = scenario.token_source;
        words.push("the token is drawn in the same script as the grant".to_string());
    }
    let pause_ms = scenario.pause_ms_default();
    if preset.faults.iter().any(|fault| matches!(fault, Fault::Pause { .. })) && pause_ms != preset.pause_ms_default() {
        rebuilt = Param::PauseMs.apply(&rebuilt, pause_ms);
        words.push(format!("the pause lasts {}", duration(pause_ms)));
    }
    if scenario.work_ms != preset.work_ms {
        rebuilt.work_ms = scenario.work_ms;
        words.push(format!("each holder works {} before writing", duration(scenario.work_ms)));
    }
    (!words.is_empty() && words.len() <= OFFERED_CHANGES_MAX && rebuilt == *scenario).then_some(words)
}

/// More changes than this at once read as the learner's own edit.
const OFFERED_CHANGES_MAX: usize = 2;

/// The scenario's setting in its own words, faults included, outcome left
/// out: "Single Redis (SET NX PX); a 10 s lease; A pauses 15000 ms before
/// write 1; fencing off" (an instructor's question states it too).
pub fn setting_words(scenario: &Scenario) -> String {
    let mut parts = vec![scenario.lock_service.label().to_string(), format!("a {} lease", duration(scenario.ttl_ms))];
    parts.extend(scenario.faults.iter().map(Fault::describe));
    parts.push(format!("fencing {}", Fencing::of(scenario).short()));
    parts.join("; ")
}

/// "10 s", "1.5 s", "250 ms".
pub fn duration(ms: u64) -> String {
    match ms {
        _ if ms >= 1_000 && ms.is_multiple_of(1_000) => format!("{} s", ms / 1_000),
        _ if ms >= 1_000 && ms.is_multiple_of(100) => format!("{}.{} s", ms / 1_000, (ms % 1_000) / 100),
        _ => format!("{ms} ms"),
    }
}

/// The experiment to try after this run.
#[derive(Clone, Debug, PartialEq)]
pub struct NextStep {
    /// The button's words.
    pub words: String,
    pub kind: Step,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Run this scenario instead (one setting changed).
    Change(Box<Scenario>),
    /// Let the explorer search this design for a schedule that breaks it.
    Explore,
}

/// The next experiment the run suggests, if any: fencing after damage, a
/// store or a lock service that can fence when fencing was unavailable, the
/// token drawn with the grant when fencing failed on a separate `INCR`, a
/// pause past the lease when a pause was survived, the explorer once the
/// store refused the zombie.
pub fn next_step(scenario: &Scenario, trace: &Trace) -> Option<NextStep> {
    let summary = &trace.summary;
    // A change whose faults do not fit it (a fault on a node the other lock
    // service lacks) is no experiment.
    let change = |words: String, next: Scenario| next.validate().is_ok().then_some(NextStep { words, kind: Step::Change(Box::new(next)) });
    let damaged = summary.stale_overwrites > 0;
    match &summary.fencing {
        Fencing::Off if damaged && scenario.store == StoreKind::Database => {
            change("Now turn fencing on".to_string(), Scenario { fencing: true, ..scenario.clone() })
        }
        Fencing::Unavailable(_) if damaged && scenario.store == StoreKind::NfsFile => change(
            "Now use a store that checks tokens (a database)".to_string(),
            Scenario { store: StoreKind::Database, ..scenario.clone() },
        ),
        Fencing::Unavailable(_) if damaged => change(
            "Now take the lock from one Redis, which hands out a token".to_string(),
            Scenario { lock_service: LockService::SingleRedis, ..scenario.clone() },
        ),
        Fencing::On if damaged && scenario.token_source == TokenSource::SeparateIncr && scenario.lock_service.token_source_applies() => {
            change(
                "Now draw the token in the same script as the grant".to_string(),
                Scenario { token_source: TokenSource::AtomicScript, ..scenario.clone() },
            )
        }
        Fencing::On if !damaged && summary.rejected_writes > 0 => {
            Some(NextStep { words: "Can this still go wrong? Let the explorer search this design".to_string(), kind: Step::Explore })
        }
        _ if !damaged && summary.zombie_writes == 0 => longer_pause(scenario),
        _ => None,
    }
}

/// A survived pause, made longer than the lease.
fn longer_pause(scenario: &Scenario) -> Option<NextStep> {
    let has_pause = scenario.faults.iter().any(|fault| matches!(fault, Fault::Pause { .. }));
    let pause_ms = scenario.ttl_ms.checked_add(PAUSE_PAST_LEASE_MS)?;
    (has_pause && scenario.pause_ms_default() < pause_ms).then(|| NextStep {
        words: format!("Now try a {} pause against this {} lease", duration(pause_ms), duration(scenario.ttl_ms)),
        kind: Step::Change(Box::new(Param::PauseMs.apply(scenario, pause_ms))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(scenario: &Scenario) -> Trace {
        crate::run(scenario).expect("a valid scenario")
    }

    #[test]
    fn the_story_line_is_the_presets_until_an_edit_and_then_the_edit() {
        let classic = presets::classic();
        assert!(story_line(&classic).starts_with("A holds a 10 s lease with token 33"));
        assert_eq!(story_line(&Scenario { seed: 7, ..classic.clone() }), story_line(&classic), "a seed is not an edit");
        let edited = Param::PauseMs.apply(&Scenario { ttl_ms: 40_000, ..classic.clone() }, 45_000);
        assert_eq!(
            story_line(&edited),
            "Edited from \u{201c}GC pause\u{201d}: Single Redis (SET NX PX); a 40 s lease; A pauses 45000 ms before write 1; fencing off."
        );
    }

    /// The page's own suggestions (the fencing switch, the next experiment,
    /// a quiz's link to its run) keep the preset's story and say the change.
    #[test]
    fn a_change_the_page_offers_keeps_the_story_and_says_the_change() {
        let classic = presets::classic();
        let story = story_line(&classic);
        let fenced = Scenario { fencing: true, ..classic.clone() };
        assert_eq!(story_line(&fenced), format!("{} \u{2026} and now the store checks tokens.", story.trim_end_matches('.')));
        // Every next experiment of every preset reads as the story plus the change.
        for preset in presets::PRESETS {
            for fencing in [false, true] {
                let scenario = Scenario { fencing, ..(preset.build)() };
                if let Some(NextStep { kind: Step::Change(next), words }) = next_step(&scenario, &run(&scenario)) {
                    let line = story_line(&next);
                    // (A change back to the preset itself is its own story.)
                    let said = line.contains(" and now ") || *next == (preset.build)();
                    assert!(line.starts_with(preset.story) && said, "{}: {words} → {line}", preset.id);
                }
            }
        }
        // The quiz's links to its runs.
        for question in crate::quiz::QUESTIONS {
            let scenario = (question.scenario)();
            let preset = presets::build(&scenario.preset);
            // (A schedule the explorer found places faults of its own: an edit.)
            if preset.is_some_and(|preset| Param::PauseMs.apply(&preset, scenario.pause_ms_default()).faults == scenario.faults) {
                assert!(!story_line(&scenario).starts_with("Edited from"), "{}: {}", question.id, story_line(&scenario));
            }
        }
        let x4 = presets::build("lease-x4").unwrap();
        assert_eq!(
            story_line(&Param::PauseMs.apply(&x4, 45_000)),
            format!("{} \u{2026} and now the pause lasts 45 s.", presets::find("lease-x4").unwrap().story)
        );
    }

    /// Each step's words say what it changes, and the change does it: the
    /// GC-pause story walks from damage to fencing to the explorer.
    #[test]
    fn the_gc_pause_story_walks_from_damage_to_fencing_to_the_explorer() {
        let classic = presets::classic();
        let step = next_step(&classic, &run(&classic)).expect("damage suggests fencing");
        assert_eq!(step.words, "Now turn fencing on");
        let Step::Change(fenced) = step.kind else { panic!("fencing is a change") };
        assert!(fenced.fencing && run(&fenced).summary.stale_overwrites == 0);
        assert_eq!(next_step(&fenced, &run(&fenced)).map(|step| step.kind), Some(Step::Explore));
    }

    /// The explorer's hole in the fenced GC-pause design (a freeze between
    /// SET and INCR) suggests the atomic script, and the script closes it.
    #[test]
    fn a_token_from_a_separate_incr_suggests_the_script_and_the_script_holds() {
        let design = Scenario { fencing: true, ..presets::classic() };
        let found = match crate::explore::explore(&design, crate::property::Property::NoStaleOverwrite, 1) {
            Ok(crate::explore::Outcome::Counterexample(found)) => found.scenario,
            _ => panic!("the explorer finds the separate INCR's hole"),
        };
        let step = next_step(&found, &run(&found)).expect("damage under fencing suggests a fix");
        assert_eq!(step.words, "Now draw the token in the same script as the grant");
        let Step::Change(fixed) = step.kind else { panic!("a change") };
        assert_eq!(run(&fixed).summary.stale_overwrites, 0, "the same freeze, with one script");
    }

    #[test]
    fn a_survived_pause_suggests_one_past_the_lease_and_that_one_loses() {
        let survived = presets::build("lease-x4").unwrap();
        assert_eq!(run(&survived).summary.stale_overwrites, 0, "a 40 s lease survives the 15 s pause");
        let step = next_step(&survived, &run(&survived)).expect("a survived pause suggests a longer one");
        assert_eq!(step.words, "Now try a 45 s pause against this 40 s lease");
        let Step::Change(longer) = step.kind else { panic!("a change") };
        assert!(run(&longer).summary.stale_overwrites > 0, "the 45 s pause loses");
    }

    /// Every preset, fencing off and on: a suggested change is one that
    /// runs, and differs from the scenario it came from.
    #[test]
    fn every_suggested_change_is_a_valid_other_scenario() {
        for preset in presets::PRESETS {
            for fencing in [false, true] {
                let scenario = Scenario { fencing, ..(preset.build)() };
                if let Some(NextStep { kind: Step::Change(next), words }) = next_step(&scenario, &run(&scenario)) {
                    assert_ne!(*next, scenario, "{}: {words}", preset.id);
                    assert!(next.validate().is_ok(), "{}: {words}", preset.id);
                }
            }
        }
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!((duration(10_000), duration(1_500), duration(250)), ("10 s".into(), "1.5 s".into(), "250 ms".into()));
    }
}
