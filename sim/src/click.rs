//! The page's fault buttons, decided here: which buttons a moment of a run
//! offers, the fault each one places, and the rule that a click never
//! changes the past. A fault added at event k is pinned right after k, and
//! the run is checked against the one it came from: events 0..=k must come
//! out the same (a write's fate, settled later, aside). The page renders
//! `buttons` and hands a pressed button's action back to `apply`.

use crate::actor::Actor;
use crate::event::{Event, Kind};
use crate::msg::Msg;
use crate::presets::is_preset_fault;
use crate::scenario::{FaultKind, Moment, Scenario, FAULT_SPECS};
use crate::trace::Trace;

/// One button of the fault panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Button {
    pub kind: FaultKind,
    pub target: Actor,
    /// What pressing it asks `apply` for (`Action::text`).
    pub action: String,
    /// Its words, glyph first: "‖ Pause A".
    pub words: String,
    /// Why it is disabled at this moment, if it is.
    pub refused: Option<String>,
}

/// What a button asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Add(FaultKind, Actor),
    /// The scenario's fault at this position goes.
    Remove(usize),
    /// Every fault the learner added goes; the preset's stay.
    RemoveAdded,
}

impl Action {
    /// As a button's `data-action` spells it: "pause:A", "partition:L1",
    /// "remove:2", "remove-added" (a kind by its link verb).
    pub fn text(&self) -> String {
        match self {
            Action::Add(kind, target) => format!("{}:{target}", kind.spec().link),
            Action::Remove(position) => format!("remove:{position}"),
            Action::RemoveAdded => "remove-added".to_string(),
        }
    }

    pub fn parse(text: &str) -> Option<Action> {
        let (verb, rest) = text.split_once(':').unwrap_or((text, ""));
        match verb {
            "remove" => rest.parse().ok().map(Action::Remove),
            "remove-added" => Some(Action::RemoveAdded),
            _ => Some(Action::Add(FaultKind::from_link(verb)?, rest.parse().ok()?)),
        }
    }
}

/// The write `worker` sends first after event `upto`, by its number within
/// its hold (as `Fault::DelayWrite` names it), read off the trace's sends.
/// None if it sends no more, if an earlier write of the run has that number
/// (the fault would strike that one, and change the past), or if it is a
/// conditional write redone past the hold's count, which no fault can name.
pub fn next_write(scenario: &Scenario, trace: &Trace, worker: Actor, upto: Option<u32>) -> Option<u8> {
    let after = upto.map_or(0, |index| index as usize + 1);
    let mut earlier = Vec::new();
    for event in trace.events.iter().filter(|event| event.actor == worker) {
        if let Kind::Send { body: Msg::Write(request), .. } = event.kind {
            if (event.index as usize) < after {
                earlier.push(request.nth);
            } else {
                let named = request.nth <= scenario.writes_per_hold && !earlier.contains(&request.nth);
                return named.then_some(request.nth);
            }
        }
    }
    None
}

/// The moment a click at `upto` places a fault on `target`.
fn moment(scenario: &Scenario, trace: &Trace, target: Actor, upto: Option<u32>) -> Moment {
    let at_ms = at_event(trace, upto).map_or(0, |event| event.t_us / 1000);
    Moment { target, at_ms, pause_ms: scenario.pause_ms_default(), next_write: next_write(scenario, trace, target, upto) }
}

fn at_event(trace: &Trace, upto: Option<u32>) -> Option<&Event> {
    upto.and_then(|index| trace.events.get(index as usize))
}

/// The buttons the scenario allows at this moment: each worker's, then each
/// lock node's, kinds in `FaultKind::ALL` order.
pub fn buttons(scenario: &Scenario, trace: &Trace, upto: Option<u32>) -> Vec<Button> {
    let nodes = (0..scenario.lock_service.nodes()).map(Actor::LockNode);
    let mut buttons = Vec::new();
    for target in scenario.worker_actors().chain(nodes) {
        for spec in FAULT_SPECS.iter().filter(|spec| scenario.allows(spec.kind)) {
            let Some(click) = spec.click.filter(|click| click.on.may_strike(target)) else { continue };
            let at = moment(scenario, trace, target, upto);
            let action = Action::Add(spec.kind, target).text();
            let words = format!("{} {}", spec.glyph, (click.words)(target));
            buttons.push(Button { kind: spec.kind, target, action, words, refused: (click.refused)(&at) });
        }
    }
    buttons
}

/// The scenario a pressed button makes, or why there is none.
pub fn apply(action: Action, scenario: &Scenario, trace: &Trace, upto: Option<u32>) -> Result<Scenario, String> {
    let keeping = |keep: &dyn Fn(usize, &crate::Fault) -> bool| {
        let faults = scenario.faults.iter().enumerate().filter(|(position, fault)| keep(*position, fault)).map(|(_, fault)| fault.clone());
        Scenario { faults: faults.collect(), ..scenario.clone() }
    };
    match action {
        Action::Add(kind, target) => add(kind, target, scenario, trace, upto),
        Action::Remove(position) if position < scenario.faults.len() => Ok(keeping(&|at, _| at != position)),
        Action::Remove(position) => Err(format!("there is no fault {}", position + 1)),
        Action::RemoveAdded => Ok(keeping(&|_, fault| is_preset_fault(scenario, fault))),
    }
}

fn add(kind: FaultKind, target: Actor, scenario: &Scenario, trace: &Trace, upto: Option<u32>) -> Result<Scenario, String> {
    let refuse = |why: String| Err(format!("That fault cannot be added: {why}."));
    let Some(click) = kind.spec().click.filter(|click| click.on.may_strike(target) && scenario.allows(kind)) else {
        return refuse(format!("{} is not offered on {target} here", kind.label()));
    };
    let at = moment(scenario, trace, target, upto);
    if let Some(why) = (click.refused)(&at) {
        return refuse(why);
    }
    let Some(fault) = (click.fault)(&at) else { return refuse(format!("nothing for {} to strike", kind.label())) };
    // Pinned right after the event on screen: it strikes there exactly,
    // never before (its `at_ms` only says about when).
    let fault = at_event(trace, upto).map_or(fault.clone(), |event| fault.pinned(event.index, at.at_ms));
    let mut changed = scenario.clone();
    changed.faults.push(fault);
    if let Err(error) = changed.validate() {
        return refuse(error.problems.join("; "));
    }
    let rerun = crate::run(&changed).map_err(|error| error.problems.join("; "))?;
    if !keeps_the_past(trace, &rerun, upto) {
        return refuse("it would change what already happened".to_string());
    }
    Ok(changed)
}

/// Whether `after` tells events 0..=upto as `before` did. A write's fate is
/// settled when the store answers, which may be later: it is left out.
pub fn keeps_the_past(before: &Trace, after: &Trace, upto: Option<u32>) -> bool {
    let Some(upto) = upto else { return true };
    let count = upto as usize + 1;
    past(before, count) == past(after, count)
}

/// The first `count` events, fates left out.
fn past(trace: &Trace, count: usize) -> Vec<Event> {
    let mut events: Vec<Event> = trace.events.iter().take(count).cloned().collect();
    for event in &mut events {
        if let Kind::Send { fate, settled_at, .. } = &mut event.kind {
            *fate = None;
            *settled_at = None;
        }
    }
    events
}

#[cfg(test)]
mod tests;
