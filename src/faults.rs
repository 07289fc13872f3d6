//! Faults: the scenario's faults one per line, each removable (the preset's
//! own marked as such), and buttons that add a fault at the cursor's moment.
//! Everything before that moment stays as it was (same seed, same draws), so
//! the learner's timing decides who gets hurt. Which faults the scenario
//! allows, and how long a pause lasts, come from the core.
//!
//! The panel is markup written from the scenario and the cursor, with one
//! click handler that reads each button's `data-action`: one reactive piece
//! instead of one per button.

use crate::escape;
use crate::pane::Pane;
use fencing_sim::msg::Msg;
use fencing_sim::presets::is_preset_fault;
use fencing_sim::{Actor, Fault, FaultKind, Kind, Scenario, Trace, When};
use leptos::prelude::*;
use std::fmt::Write;
use wasm_bindgen::JsCast;

/// How long a clicked partition or node crash lasts, and how far a clicked clock jumps.
const PARTITION_MS: u64 = 15_000;
const NODE_DOWN_MS: u64 = 15_000;
const JUMP_MS: i64 = 10_000;

/// The write `worker` sends first after event `index`, by its number within
/// its hold (as `Fault::DelayWrite` names it), read off the trace's typed
/// sends. None if it sends no more, or if an earlier write of the run has
/// that number: the fault would strike that one, and change the past.
pub fn next_write(trace: &Trace, worker: Actor, index: Option<u32>) -> Option<u8> {
    let after = index.map_or(0, |index| index as usize + 1);
    let mut earlier = Vec::new();
    for event in trace.events.iter().filter(|event| event.actor == worker) {
        if let Kind::Send { body: Msg::Write(request), .. } = event.kind {
            if (event.index as usize) < after {
                earlier.push(request.nth);
            } else {
                return (!earlier.contains(&request.nth)).then_some(request.nth);
            }
        }
    }
    None
}

/// What a button does, as its `data-action` says it: "pause:A", "remove:2".
pub fn act(action: &str, scenario: &Scenario, trace: &Trace, upto: Option<u32>) -> Option<Scenario> {
    let (verb, target) = action.split_once(':').unwrap_or((action, ""));
    // The fault is pinned right after the event on screen: it strikes there
    // exactly, never before (its `at_ms` only says about when).
    let at = upto.and_then(|index| trace.events.get(index as usize));
    let at_ms = at.map_or(0, |event| event.t_us / 1000);
    let pause_ms = scenario.pause_ms_default();
    let mut changed = scenario.clone();
    let actor = target.parse::<Actor>().ok();
    let fault = match (verb, actor) {
        ("pause", Some(worker)) => Some(Fault::Pause { worker, when: When::AtMs(at_ms), pause_ms }),
        ("crash", Some(worker)) => Some(Fault::Crash { worker, at_ms, after_event: None }),
        ("delay", Some(worker)) => next_write(trace, worker, upto).map(|write| Fault::DelayWrite { worker, write, delay_ms: pause_ms }),
        ("lose", Some(from)) => Some(Fault::LoseMessage { from, at_ms, after_event: None }),
        ("cut", Some(node)) => Some(Fault::Partition { node, at_ms, for_ms: PARTITION_MS, from: None, after_event: None }),
        ("down", Some(node)) => Some(Fault::NodeCrash { node, at_ms, down_ms: NODE_DOWN_MS, after_event: None }),
        ("jump", Some(node)) => Some(Fault::ClockJump { node, at_ms, jump_ms: JUMP_MS, after_event: None }),
        _ => None,
    };
    match (verb, fault) {
        (_, Some(fault)) => changed.faults.push(at.map_or(fault.clone(), |event| fault.pinned(event.index, at_ms))),
        ("remove", None) => {
            let position = target.parse::<usize>().ok().filter(|position| *position < changed.faults.len())?;
            changed.faults.remove(position);
        }
        ("remove-added", None) => changed.faults.retain(|fault| is_preset_fault(scenario, fault)),
        _ => return None,
    }
    Some(changed)
}

/// The panel's markup: the faults, then the buttons the scenario allows.
pub fn markup(scenario: &Scenario, trace: &Trace, upto: Option<u32>, id: &str) -> String {
    let mut html = format!(r#"<ul class="fault-list" data-testid="{id}-faults">"#);
    if scenario.faults.is_empty() {
        html.push_str(r#"<li class="no-faults">No faults: nothing goes wrong unless you add one.</li>"#);
    }
    for (position, fault) in scenario.faults.iter().enumerate() {
        let said = escape(&fault.describe());
        let tag = if is_preset_fault(scenario, fault) { r#"<span class="tag preset-tag">the preset's</span>"# } else { "" };
        let _ = write!(
            html,
            r#"<li class="fault"><span class="fault-text">{said}</span>{tag}<button type="button" class="remove" data-action="remove:{position}" aria-label="Remove: {said}">✕</button></li>"#
        );
    }
    html.push_str("</ul>");
    let added = scenario.faults.iter().filter(|fault| !is_preset_fault(scenario, fault)).count();
    if added > 0 {
        let what = if added == 1 { "fault" } else { "faults" };
        let _ = write!(
            html,
            r#"<button type="button" class="quiet" data-action="remove-added" data-testid="{id}-remove-added">Remove the {what} you added</button>"#
        );
    }
    html.push_str(r#"<p class="hint">Add one at the cursor's moment; the run before it stays the same.</p><div class="fault-row">"#);
    let allowed = scenario.allowed_faults();
    let may = |kind| allowed.contains(&kind);
    for worker in scenario.worker_actors() {
        let mut button = |kind, verb: &str, words: String, disabled: Option<String>| {
            if may(kind) {
                let off = disabled.map_or(String::new(), |why| format!(r#" disabled title="{}""#, escape(&why)));
                let _ = write!(
                    html,
                    r#"<button type="button" data-action="{verb}:{worker}" data-testid="{id}-{verb}-{worker}"{off}>{}</button>"#,
                    escape(&words)
                );
            }
        };
        button(FaultKind::Pause, "pause", format!("‖ Pause {worker}"), None);
        button(FaultKind::Crash, "crash", format!("✱ Crash {worker}"), None);
        let no_write = next_write(trace, worker, upto).is_none().then(|| format!("{worker} sends no more writes after this moment"));
        button(FaultKind::DelayWrite, "delay", format!("→ Delay {worker}'s next write"), no_write);
        button(FaultKind::LoseMessage, "lose", format!("✗ Lose {worker}'s next message"), None);
    }
    html.push_str(r#"</div><div class="fault-row">"#);
    for node in (0..scenario.lock_service.nodes()).map(Actor::LockNode) {
        for (kind, verb, words) in [
            (FaultKind::Partition, "cut", format!("✂ Cut off {node}")),
            (FaultKind::NodeCrash, "down", format!("✱ Crash {node}")),
            (FaultKind::ClockJump, "jump", format!("» Jump {node}'s clock")),
        ] {
            if may(kind) {
                let _ =
                    write!(html, r#"<button type="button" data-action="{verb}:{node}" data-testid="{id}-{verb}-{node}">{words}</button>"#);
            }
        }
    }
    html.push_str("</div>");
    html
}

#[component]
pub fn FaultPanel(scenario: RwSignal<Scenario>, pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let html = Memo::new(move |_| scenario.with(|scenario| pane.with(|pane| markup(scenario, &pane.trace, upto.get(), id))));
    let click = move |ev: leptos::ev::MouseEvent| {
        let target = ev.target().and_then(|target| target.dyn_into::<web_sys::Element>().ok());
        let Some(action) =
            target.and_then(|target| target.closest("[data-action]").ok().flatten()).and_then(|button| button.get_attribute("data-action"))
        else {
            return;
        };
        let changed =
            scenario.with_untracked(|scenario| pane.with_untracked(|pane| act(&action, scenario, &pane.trace, upto.get_untracked())));
        match changed.map(|changed| changed.validate().map(|()| changed)) {
            Some(Ok(changed)) => {
                problem.set(None);
                scenario.set(changed);
            }
            Some(Err(error)) => problem.set(Some(format!("That fault cannot be added: {}.", error.problems.join("; ")))),
            None => {}
        }
    };
    view! {
        <section class="fault-panel" aria-labelledby=format!("{id}-faults-title")>
            <h3 id=format!("{id}-faults-title")>"Faults"</h3>
            <div on:click=click inner_html=html></div>
            <p class="notice" role="alert" hidden=move || problem.with(Option::is_none)>{move || problem.get()}</p>
        </section>
    }
}
