//! What the run says at the cursor: the verdict banner, the outcome
//! counters, a reason for every red counter that is not damage, and (at the
//! end) how the run ended for each actor. All of it is read off the trace.

use crate::facts::{self, Tone};
use crate::pane::Pane;
use fencing_sim::{Actor, Tally};
use leptos::prelude::*;

/// The banner: the verdict at the cursor, in the core's words and tone.
#[component]
pub fn Verdict(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let verdict = Memo::new(move |_| pane.with(|pane| facts::verdict_at(&pane.trace, upto.get())));
    let class = move || {
        let tone = match verdict.with(|verdict| verdict.tone) {
            Tone::Safe => "good",
            Tone::Damaged => "bad",
            Tone::LostLiveness | Tone::Unchecked => "warn",
            Tone::Pending => "pending",
        };
        format!("verdict {tone}")
    };
    let icon = move || match verdict.with(|verdict| verdict.tone) {
        Tone::Safe => "✓",
        Tone::Damaged => "✗",
        Tone::LostLiveness | Tone::Unchecked => "!",
        Tone::Pending => "…",
    };
    view! {
        <p class=class data-testid=format!("{id}-verdict")>
            <span class="verdict-icon" aria-hidden="true">{icon}</span>
            <span>{move || verdict.with(|verdict| verdict.text.clone())}</span>
        </p>
    }
}

/// The counters as they stand at the cursor; a red one that is not damage
/// gets its one-line reason from the core.
#[component]
pub fn Counters(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let tally =
        Memo::new(move |_| pane.with(|pane| upto.get().and_then(|index| pane.event(index)).map(|event| event.tally).unwrap_or_default()));
    let counter = move |label: &'static str, name: &'static str, pick: fn(&Tally) -> u32| {
        let value = move || tally.with(pick);
        view! {
            <div class="counter" class:alarm=move || { value() > 0 }>
                <dt>{label}</dt>
                <dd data-testid=format!("{id}-{name}")>{value}</dd>
            </div>
        }
    };
    let notes = move || {
        let any_red = tally.with(|tally| tally.mutual_exclusion_violations > 0 || tally.zombie_writes > 0);
        if any_red {
            pane.with(|pane| facts::notes(&pane.trace))
        } else {
            Vec::new()
        }
    };
    view! {
        <dl class="counters">
            {counter("Zombie writes", "zombie-writes", |tally| tally.zombie_writes)}
            {counter("Stale overwrites", "stale-overwrites", |tally| tally.stale_overwrites)}
            {counter("Mutual exclusion violations", "violations", |tally| tally.mutual_exclusion_violations)}
            <div class="counter">
                <dt>"Rejected writes"</dt>
                <dd data-testid=format!("{id}-rejected-writes")>{move || tally.with(|tally| tally.rejected_writes)}</dd>
            </div>
        </dl>
        <ul class="counter-notes" data-testid=format!("{id}-notes")>
            {move || notes().into_iter().map(|note| view! { <li>{note}</li> }).collect_view()}
        </ul>
    }
}

/// How the run ended for each actor, once the cursor reaches the end.
#[component]
pub fn Actors(pane: Memo<Pane>, finished: Signal<bool>) -> impl IntoView {
    let digests = move || if finished.get() { pane.with(|pane| pane.trace.digests()) } else { Vec::new() };
    view! {
        <Show when=move || finished.get()>
            <p class="run-caption">{move || pane.with(|pane| format!("Fencing was {} for this run.", pane.trace.summary.fencing.describe()))}</p>
        </Show>
        <ul class="actors" aria-label="How the run ended for each actor">
            {move || digests().into_iter().map(|digest| {
                let name = match digest.actor {
                    Actor::Worker(_) => format!("Worker {}", digest.actor),
                    _ => digest.role.clone(),
                };
                view! {
                    <li class="actor" data-actor=digest.actor.to_string()>
                        <span class="actor-badge" aria-hidden="true">{digest.actor.to_string()}</span>
                        <span class="actor-role">{name}</span>
                        <span class="actor-headline">{digest.headline}</span>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}
