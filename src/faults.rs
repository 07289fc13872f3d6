//! Faults: the scenario's faults one per line, each removable (the preset's
//! own marked as such), and buttons that add a fault at the cursor's moment.
//! Everything before that moment stays as it was (same seed, same draws), so
//! the learner's timing decides who gets hurt. Which faults the scenario
//! allows, and how long a pause lasts, come from the core.

use crate::pane::Pane;
use fencing_sim::msg::Msg;
use fencing_sim::presets::is_preset_fault;
use fencing_sim::{Actor, Fault, FaultKind, Kind, Scenario, Trace, When};
use leptos::prelude::*;

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

#[component]
pub fn FaultPanel(scenario: RwSignal<Scenario>, pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let now_us =
        move || upto.get_untracked().and_then(|index| pane.with_untracked(|pane| pane.event(index).map(|event| event.t_us))).unwrap_or(0);
    let add = move |fault: Fault| {
        let mut candidate = scenario.get_untracked();
        candidate.faults.push(fault);
        match candidate.validate() {
            Ok(()) => {
                problem.set(None);
                scenario.set(candidate);
            }
            Err(error) => problem.set(Some(format!("That fault cannot be added: {}.", error.problems.join("; ")))),
        }
    };
    // Round up: the fault strikes after what is on screen, never before.
    let at_ms = move || now_us().div_ceil(1000);
    let allowed = Memo::new(move |_| scenario.with(Scenario::allowed_faults));
    let may = move |kind: FaultKind| allowed.with(|kinds| kinds.contains(&kind));
    let workers = move || scenario.with(|s| s.worker_actors().collect::<Vec<_>>());
    let nodes = move || scenario.with(|s| (0..s.lock_service.nodes()).map(Actor::LockNode).collect::<Vec<_>>());
    let worker_buttons = move |worker: Actor| {
        let next_write = move || pane.with(|pane| next_write(&pane.trace, worker, upto.get()));
        let pause =
            move || Fault::Pause { worker, when: When::AtMs(at_ms()), pause_ms: scenario.with_untracked(Scenario::pause_ms_default) };
        let delay = move || {
            next_write().map(|write| Fault::DelayWrite { worker, write, delay_ms: scenario.with_untracked(Scenario::pause_ms_default) })
        };
        view! {
            <Show when=move || may(FaultKind::Pause)>
                <button type="button" data-testid=format!("{id}-pause-{worker}") on:click=move |_| add(pause())>{format!("‖ Pause {worker}")}</button>
            </Show>
            <Show when=move || may(FaultKind::Crash)>
                <button type="button" on:click=move |_| add(Fault::Crash { worker, at_ms: at_ms() })>{format!("✱ Crash {worker}")}</button>
            </Show>
            <Show when=move || may(FaultKind::DelayWrite)>
                <button type="button" data-testid=format!("{id}-delay-{worker}") disabled=move || next_write().is_none()
                    title=move || if next_write().is_none() { format!("{worker} sends no more writes after this moment") } else { String::new() }
                    on:click=move |_| if let Some(fault) = delay() { add(fault) }>
                    {format!("→ Delay {worker}'s next write")}
                </button>
            </Show>
            <Show when=move || may(FaultKind::LoseMessage)>
                <button type="button" on:click=move |_| add(Fault::LoseMessage { from: worker, at_ms: at_ms() })>{format!("✗ Lose {worker}'s next message")}</button>
            </Show>
        }
    };
    let node_buttons = move |node: Actor| {
        view! {
            <Show when=move || may(FaultKind::Partition)>
                <button type="button" on:click=move |_| add(Fault::Partition { node, at_ms: at_ms(), for_ms: PARTITION_MS })>{format!("✂ Cut off {node}")}</button>
            </Show>
            <Show when=move || may(FaultKind::NodeCrash)>
                <button type="button" on:click=move |_| add(Fault::NodeCrash { node, at_ms: at_ms(), down_ms: NODE_DOWN_MS })>{format!("✱ Crash {node}")}</button>
            </Show>
            <Show when=move || may(FaultKind::ClockJump)>
                <button type="button" on:click=move |_| add(Fault::ClockJump { node, at_ms: at_ms(), jump_ms: JUMP_MS })>{format!("» Jump {node}'s clock")}</button>
            </Show>
        }
    };
    view! {
        <section class="fault-panel" aria-labelledby=format!("{id}-faults-title")>
            <h3 id=format!("{id}-faults-title")>"Faults"</h3>
            <FaultList scenario id/>
            <p class="hint">"Add one at the cursor's moment; the run before it stays the same."</p>
            <div class="fault-row">{move || workers().into_iter().map(worker_buttons).collect_view()}</div>
            <div class="fault-row">{move || nodes().into_iter().map(node_buttons).collect_view()}</div>
            {move || problem.get().map(|message| view! { <p class="notice" role="alert">{message}</p> })}
        </section>
    }
}

/// The scenario's faults, one per line, each with its own remove button.
#[component]
fn FaultList(scenario: RwSignal<Scenario>, id: &'static str) -> impl IntoView {
    let faults =
        move || scenario.with(|s| s.faults.iter().map(|fault| (fault.clone(), is_preset_fault(s, fault))).enumerate().collect::<Vec<_>>());
    let remove = move |position: usize| {
        scenario.update(|s| {
            if position < s.faults.len() {
                s.faults.remove(position);
            }
        })
    };
    let added = move || scenario.with(|s| s.faults.iter().filter(|fault| !is_preset_fault(s, fault)).count());
    view! {
        <ul class="fault-list" data-testid=format!("{id}-faults")>
            {move || {
                let faults = faults();
                if faults.is_empty() {
                    return view! { <li class="no-faults">"No faults: nothing goes wrong unless you add one."</li> }.into_any();
                }
                faults.into_iter().map(|(position, (fault, from_preset))| view! {
                    <li class="fault">
                        <span class="fault-text">{fault.describe()}</span>
                        {from_preset.then(|| view! { <span class="tag preset-tag">"the preset's"</span> })}
                        <button type="button" class="remove" aria-label=format!("Remove: {}", fault.describe())
                            on:click=move |_| remove(position)>"✕"</button>
                    </li>
                }).collect_view().into_any()
            }}
        </ul>
        <Show when=move || { added() > 0 }>
            <button type="button" class="quiet" data-testid=format!("{id}-remove-added")
                on:click=move |_| scenario.update(|s| {
                    let kept: Vec<Fault> = s.faults.iter().filter(|fault| is_preset_fault(s, fault)).cloned().collect();
                    s.faults = kept;
                })>
                {move || format!("Remove the {} you added", if added() == 1 { "fault" } else { "faults" })}
            </button>
        </Show>
    }
}
