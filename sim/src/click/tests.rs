use super::*;
use crate::presets::PRESETS;

/// About a dozen cursors per run, first and last included: every event in
/// the quick run would be thousands of reruns for no more coverage.
fn cursors(trace: &Trace) -> Vec<u32> {
    let count = trace.events.len() as u32;
    let stride = (count / 12).max(1);
    (0..count).step_by(stride as usize).chain([count - 1]).collect()
}

#[test]
fn every_offered_click_on_every_preset_keeps_the_past() {
    for preset in PRESETS {
        let scenario = (preset.build)();
        let trace = crate::run(&scenario).expect("a preset runs");
        for upto in cursors(&trace) {
            for button in buttons(&scenario, &trace, Some(upto)).into_iter().filter(|button| button.refused.is_none()) {
                let action = Action::parse(&button.action).expect("a button's action parses");
                let changed = apply(action, &scenario, &trace, Some(upto));
                let changed = changed.unwrap_or_else(|why| panic!("{} at event {upto} on {}: {why}", button.action, preset.id));
                let rerun = crate::run(&changed).expect("a clicked scenario runs");
                assert!(keeps_the_past(&trace, &rerun, Some(upto)), "{} at event {upto} on {} changed the past", button.action, preset.id);
            }
        }
    }
}

#[test]
fn the_past_is_told_apart_from_a_changed_one() {
    let scenario = crate::presets::classic();
    let trace = crate::run(&scenario).unwrap();
    let calm = crate::run(&Scenario { faults: Vec::new(), ..scenario }).unwrap();
    let pause = trace.events.iter().position(|event| matches!(event.kind, Kind::PauseBegan { .. })).unwrap() as u32;
    assert!(keeps_the_past(&trace, &calm, Some(pause - 1)), "the runs agree before the pause");
    assert!(!keeps_the_past(&trace, &calm, Some(pause)), "and not from it on");
}

#[test]
fn a_click_is_pinned_to_the_event_on_screen() {
    let scenario = crate::presets::classic();
    let trace = crate::run(&scenario).unwrap();
    let changed = apply(Action::Add(FaultKind::Crash, Actor::Worker(1)), &scenario, &trace, Some(3)).unwrap();
    assert_eq!(changed.faults.last().and_then(|fault| fault.after_event()), Some(3));
}

#[test]
fn a_held_write_is_refused_once_the_worker_has_no_write_left() {
    let scenario = crate::presets::classic();
    let trace = crate::run(&scenario).unwrap();
    let last = trace.events.len() as u32 - 1;
    let delay = buttons(&scenario, &trace, Some(last)).into_iter().find(|button| button.kind == FaultKind::DelayWrite).unwrap();
    assert_eq!(delay.refused.as_deref(), Some("A has no write left to hold after this moment"));
    let refused = apply(Action::Add(FaultKind::DelayWrite, Actor::Worker(0)), &scenario, &trace, Some(last));
    assert_eq!(refused.unwrap_err(), "That fault cannot be added: A has no write left to hold after this moment.");
}

#[test]
fn the_buttons_follow_the_service() {
    let trace_of = |scenario: &Scenario| crate::run(scenario).unwrap();
    let etcd = crate::presets::build("consensus-gc-pause").unwrap();
    let offered = buttons(&etcd, &trace_of(&etcd), None);
    assert!(offered.iter().all(|button| button.kind != FaultKind::ClockJump), "a consensus member's clock never jumps");
    assert!(offered.iter().any(|button| button.action == "partition:L1"));
    let none = crate::presets::build("no-lock-version").unwrap();
    assert!(buttons(&none, &trace_of(&none), None).iter().all(|button| matches!(button.target, Actor::Worker(_))));
}

#[test]
fn actions_read_back_as_written() {
    for action in [Action::Add(FaultKind::Partition, Actor::LockNode(2)), Action::Remove(3), Action::RemoveAdded] {
        assert_eq!(Action::parse(&action.text()), Some(action));
    }
    assert_eq!(Action::parse("cut:L1"), None, "the page speaks the links' verbs");
    assert_eq!(Action::parse("pause:Q9"), None);
}

#[test]
fn removing_takes_out_only_what_was_asked() {
    let scenario = crate::presets::classic();
    let trace = crate::run(&scenario).unwrap();
    let added = apply(Action::Add(FaultKind::Crash, Actor::Worker(1)), &scenario, &trace, Some(2)).unwrap();
    assert_eq!(apply(Action::RemoveAdded, &added, &trace, None).unwrap().faults, scenario.faults);
    assert!(apply(Action::Remove(0), &scenario, &trace, None).unwrap().faults.is_empty());
    assert_eq!(apply(Action::Remove(5), &scenario, &trace, None).unwrap_err(), "there is no fault 6");
}
