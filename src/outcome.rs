//! What the run says at the cursor: the verdict banner, the outcome
//! counters, a reason for every red counter that is not damage, and (at the
//! end) how the run ended for each actor. All of it is read off the trace.

use crate::pane::Pane;
use fencing_sim::{Actor, Tally, Tone, Verdict};
use leptos::prelude::*;

/// The verdict at the cursor, as the core says it (None: before the first event).
pub fn verdict_at(pane: &Pane, upto: Option<u32>) -> Option<Verdict> {
    upto.map(|index| pane.trace.verdict_at(index))
}

/// The banner: the verdict at the cursor, in the core's words and tone.
#[component]
pub fn Verdict(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let verdict = Memo::new(move |_| pane.with(|pane| verdict_at(pane, upto.get())));
    let tone = move || verdict.with(|verdict| verdict.as_ref().map_or(Tone::Pending, |verdict| verdict.tone));
    let (class, icon) = (
        move || {
            let tone = match tone() {
                Tone::Safe | Tone::Protected => "good",
                Tone::Damaged => "bad",
                Tone::Exposed | Tone::LostLiveness => "warn",
                Tone::Pending => "pending",
            };
            format!("verdict {tone}")
        },
        move || match tone() {
            Tone::Safe | Tone::Protected => "✓",
            Tone::Damaged => "✗",
            Tone::Exposed | Tone::LostLiveness => "!",
            Tone::Pending => "…",
        },
    );
    let text = move || {
        verdict.with(|verdict| {
            verdict.as_ref().map_or_else(|| "Nothing has happened yet: press Play.".to_string(), |verdict| verdict.text.clone())
        })
    };
    view! {
        <p class=class data-testid=format!("{id}-verdict")>
            <span class="verdict-icon" aria-hidden="true">{icon}</span>
            <span>{text}</span>
        </p>
    }
}

/// The counters as they stand at the cursor; a red one the verdict does not
/// explain gets its one-line reason (the core's notes).
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
    // The liveness counter only where the run can have one, to keep the rest in view.
    let rightful = move || pane.with(|pane| pane.trace.summary.rightful_writes_rejected > 0);
    let notes = move || pane.with(|pane| verdict_at(pane, upto.get()).map(|verdict| verdict.notes).unwrap_or_default());
    view! {
        <dl class="counters">
            {counter("Zombie writes", "zombie-writes", |tally| tally.zombie_writes)}
            {counter("Stale overwrites", "stale-overwrites", |tally| tally.stale_overwrites)}
            {counter("Mutual exclusion violations", "violations", |tally| tally.mutual_exclusion_violations)}
            <div class="counter">
                <dt>"Rejected writes"</dt>
                <dd data-testid=format!("{id}-rejected-writes")>{move || tally.with(|tally| tally.rejected_writes)}</dd>
            </div>
            <Show when=rightful>
                {counter("Rightful writes refused", "rightful-rejected", |tally| tally.rightful_writes_rejected)}
            </Show>
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
