//! Faults by click: each button adds a fault at the cursor's moment and
//! re-runs the scenario. Everything before that moment stays as it was (same
//! seed, same draws), so the learner's timing decides who gets hurt.

use fencing_sim::{Actor, Fault, LockService, Scenario, When};
use leptos::prelude::*;

/// How long a clicked partition lasts and how far a clicked clock jumps.
const PARTITION_MS: u64 = 15_000;
const JUMP_MS: i64 = 10_000;

#[component]
pub fn FaultButtons(scenario: RwSignal<Scenario>, pause_ms: RwSignal<u64>, now_us: Signal<u64>, id: &'static str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let add = move |make: Box<dyn Fn(u64) -> Fault>| {
        // Round up: the fault strikes after what is on screen, never before.
        let at_ms = now_us.get_untracked().div_ceil(1000);
        let mut candidate = scenario.get_untracked();
        candidate.faults.push(make(at_ms));
        match candidate.validate() {
            Ok(()) => {
                problem.set(None);
                scenario.set(candidate);
            }
            Err(error) => problem.set(Some(format!("That fault cannot be added: {}.", error.problems.join("; ")))),
        }
    };
    let workers = move || scenario.with(|s| s.worker_actors().collect::<Vec<_>>());
    let nodes = move || scenario.with(|s| (0..s.lock_service.nodes()).map(Actor::LockNode).collect::<Vec<_>>());
    let clocks = move || scenario.with(|s| s.lock_service != LockService::Consensus);
    view! {
        <section class="fault-buttons" aria-labelledby=format!("{id}-faults-title")>
            <h3 id=format!("{id}-faults-title")>"Inject a fault now"</h3>
            <p class="hint">"Each fault strikes at the cursor's moment; the run before it stays the same."</p>
            <div class="fault-row">
                {move || workers().into_iter().map(|worker| view! {
                    <button type="button" data-testid=format!("{id}-pause-{worker}")
                        on:click=move |_| add(Box::new(move |at_ms| Fault::Pause { worker, when: When::AtMs(at_ms), pause_ms: pause_ms.get_untracked() }))>
                        {format!("‖ GC pause {worker}")}
                    </button>
                    <button type="button" on:click=move |_| add(Box::new(move |at_ms| Fault::Crash { worker, at_ms }))>
                        {format!("✱ Crash {worker}")}
                    </button>
                    <button type="button" on:click=move |_| add(Box::new(move |_| Fault::DelayWrite { worker, write: 1, delay_ms: pause_ms.get_untracked() }))>
                        {format!("→ Delay {worker}'s write")}
                    </button>
                }).collect_view()}
            </div>
            <div class="fault-row">
                {move || nodes().into_iter().map(|node| view! {
                    <button type="button" on:click=move |_| add(Box::new(move |at_ms| Fault::Partition { node, at_ms, for_ms: PARTITION_MS }))>
                        {format!("✂ Partition {node}")}
                    </button>
                    <Show when=clocks>
                        <button type="button" on:click=move |_| add(Box::new(move |at_ms| Fault::ClockJump { node, at_ms, jump_ms: JUMP_MS }))>
                            {format!("» Jump {node}'s clock")}
                        </button>
                    </Show>
                }).collect_view()}
                <button type="button" class="quiet" on:click=move |_| scenario.update(|s| s.faults.clear())>"Remove all faults"</button>
            </div>
            {move || problem.get().map(|message| view! { <p class="notice" role="alert">{message}</p> })}
            <p class="fault-list">{move || scenario.with(|s| describe_faults(&s.faults))}</p>
        </section>
    }
}

fn describe_faults(faults: &[Fault]) -> String {
    if faults.is_empty() {
        return "No faults: nothing goes wrong unless you make it.".to_string();
    }
    let parts: Vec<String> = faults.iter().map(Fault::describe).collect();
    format!("Faults: {}.", parts.join("; "))
}
