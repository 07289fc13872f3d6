//! The outcome counters as they stand at the cursor, and the run's one-line
//! verdict once the cursor reaches the end. Both come from the core.

use crate::pane::Pane;
use fencing_sim::Tally;
use leptos::prelude::*;

#[component]
pub fn Counters(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let tally = move || {
        let upto = upto.get();
        pane.with(|pane| upto.and_then(|index| pane.event(index)).map(|event| event.tally).unwrap_or_default())
    };
    let counter = move |label: &'static str, name: &'static str, bad: bool, pick: fn(&Tally) -> u32| {
        let value = move || pick(&tally());
        view! {
            <div class="counter" class:alarm=move || { bad && value() > 0 }>
                <dt>{label}</dt>
                <dd data-testid=format!("{id}-{name}")>{value}</dd>
            </div>
        }
    };
    view! {
        <dl class="counters">
            {counter("Zombie writes", "zombie-writes", true, |tally| tally.zombie_writes)}
            {counter("Rejected writes", "rejected-writes", false, |tally| tally.rejected_writes)}
            {counter("Stale overwrites", "stale-overwrites", true, |tally| tally.stale_overwrites)}
            {counter("Mutual exclusion violations", "violations", true, |tally| tally.mutual_exclusion_violations)}
        </dl>
    }
}

/// The verdict, revealed only once the run has been played to its end.
#[component]
pub fn Verdict(pane: Memo<Pane>, finished: Signal<bool>, id: &'static str) -> impl IntoView {
    let summary = move || pane.with(|pane| pane.trace.summary.clone());
    view! {
        <Show
            when=move || finished.get()
            fallback=move || view! { <p class="verdict pending" data-testid=format!("{id}-verdict")>"Play the run to see what happens to the data."</p> }
        >
            {move || {
                let summary = summary();
                let bad = summary.stale_overwrites > 0 || summary.zombie_writes > 0;
                view! {
                    <p class=if bad { "verdict bad" } else { "verdict good" } data-testid=format!("{id}-verdict")>
                        <span class="verdict-icon" aria-hidden="true">{if bad { "✗" } else { "✓" }}</span>
                        {summary.verdict.clone()}
                    </p>
                    <p class="run-caption">{format!("Fencing was {} for this run.", summary.fencing.describe())}</p>
                    <ul class="actors" aria-label="How the run ended for each actor">
                        {pane.with(|pane| pane.trace.digests()).into_iter().map(|digest| view! {
                            <li class="actor" data-actor=digest.actor.to_string()>
                                <span class="actor-badge" aria-hidden="true">{digest.actor.to_string()}</span>
                                <span class="actor-role">{match digest.actor {
                                    fencing_sim::Actor::Worker(_) => format!("Worker {}", digest.actor),
                                    _ => digest.role.clone(),
                                }}</span>
                                <span class="actor-headline">{digest.headline}</span>
                            </li>
                        }).collect_view()}
                    </ul>
                }
            }}
        </Show>
    }
}
