//! The race: Worker A against Worker B for one lock, in the classic GC-pause
//! scenario, with fencing on or off.

use fencing_sim::{presets, Actor, Event, Kind, Scenario, Trace};
use leptos::prelude::*;

use crate::panic_box;

/// The race widget: a fencing switch, a Run button, the actors, the
/// counters, the store's final value and the events in order.
#[component]
pub fn RaceWidget() -> impl IntoView {
    let (fencing, set_fencing) = signal(false);
    let (outcome, set_outcome) = signal(None::<Result<Trace, String>>);
    let (show_messages, set_show_messages) = signal(false);

    let run = move |_| {
        let scenario = Scenario { fencing: fencing.get_untracked(), ..presets::classic() };
        panic_box::set_context(format!("preset {}, seed {}, fencing {}", scenario.preset, scenario.seed, scenario.fencing));
        set_outcome.set(Some(fencing_sim::run(&scenario).map_err(|error| error.to_string())));
    };
    let trace = Memo::new(move |_| outcome.with(|outcome| outcome.as_ref().and_then(|result| result.as_ref().ok()).cloned()));
    let announcement = move || {
        trace.with(|trace| match trace {
            Some(trace) => format!(
                "Run finished with fencing {}. {}. Zombie writes: {}. Rejected writes: {}.",
                on_off(trace.scenario.fencing),
                trace.summary.verdict,
                trace.summary.zombie_writes,
                trace.summary.rejected_writes
            ),
            None => String::new(),
        })
    };

    view! {
        <section id="race" class="race card" aria-labelledby="race-title">
            <h2 id="race-title">"The race: a GC pause outlives the lease"</h2>
            <p class="story">{presets::find("gc-pause").map(|preset| preset.story)}</p>
            <div class="controls" role="group" aria-label="Run controls">
                <label class="switch">
                    <input
                        type="checkbox"
                        role="switch"
                        data-testid="fencing"
                        prop:checked=fencing
                        on:change=move |ev| set_fencing.set(event_target_checked(&ev))
                    />
                    <span class="switch-track" aria-hidden="true"></span>
                    <span>"Fencing"</span>
                    <span class="switch-state" aria-hidden="true">{move || on_off(fencing.get())}</span>
                </label>
                <button type="button" class="primary" data-testid="run" on:click=run>
                    "Run"
                </button>
            </div>
            <p class="sr-only" aria-live="polite" data-testid="announcer">{announcement}</p>
            {move || match outcome.get() {
                None => view! {
                    <p class="placeholder">"Choose fencing on or off, then press Run to race A against B."</p>
                }.into_any(),
                Some(Err(message)) => view! { <p class="notice" role="alert">{message}</p> }.into_any(),
                Some(Ok(_)) => view! { <Results trace=trace show_messages set_show_messages/> }.into_any(),
            }}
        </section>
    }
}

/// Everything shown after a run.
#[component]
fn Results(
    /// The run to show.
    trace: Memo<Option<Trace>>,
    show_messages: ReadSignal<bool>,
    set_show_messages: WriteSignal<bool>,
) -> impl IntoView {
    let summary = move || trace.with(|trace| trace.as_ref().map(|trace| trace.summary.clone()));
    let verdict_class = move || {
        summary().map_or("verdict", |summary| if summary.stale_overwrites > 0 { "verdict bad" } else { "verdict good" })
    };
    let count = move |pick: fn(&fencing_sim::Summary) -> u32| move || summary().map_or(0, |summary| pick(&summary));
    let digests = move || trace.with(|trace| trace.as_ref().map(|trace| trace.digests()).unwrap_or_default());
    let events = move || {
        let show = show_messages.get();
        trace.with(|trace| {
            trace.as_ref().map_or_else(Vec::new, |trace| {
                trace.events.iter().filter(|event| show || !is_detail(event)).cloned().collect::<Vec<_>>()
            })
        })
    };

    view! {
        <p class=verdict_class data-testid="verdict">
            <span class="verdict-icon" aria-hidden="true">
                {move || summary().map_or("", |summary| if summary.stale_overwrites > 0 { "✗" } else { "✓" })}
            </span>
            {move || summary().map(|summary| summary.verdict)}
        </p>
        <p class="run-caption">
            {move || summary().map(|summary| format!("Fencing was {} for this run.", summary.fencing.describe()))}
        </p>
        <ul class="actors" aria-label="Actors">
            <For each=digests key=|digest| digest.actor let:digest>
                <li class="actor" data-actor=digest.actor.to_string()>
                    <span class="actor-badge" aria-hidden="true">{digest.actor.to_string()}</span>
                    <span class="actor-role">{actor_title(&digest)}</span>
                    <span class="actor-headline">{digest.headline.clone()}</span>
                </li>
            </For>
        </ul>
        <dl class="counters">
            <Counter label="Zombie writes" testid="zombie-writes" value=count(|s| s.zombie_writes) bad=true/>
            <Counter label="Rejected writes" testid="rejected-writes" value=count(|s| s.rejected_writes) bad=false/>
            <Counter label="Stale overwrites" testid="stale-overwrites" value=count(|s| s.stale_overwrites) bad=true/>
            <Counter label="Accepted writes" testid="accepted-writes" value=count(|s| s.accepted_writes) bad=false/>
        </dl>
        <p class="store-final" data-testid="store-final">
            "The store ends with: "
            <strong>
                {move || summary().map(|summary| match summary.final_store {
                    Some(datum) => format!(
                        "{}'s data{}",
                        datum.writer,
                        datum.token.map_or(String::new(), |token| format!(" (token {token})"))
                    ),
                    None => "nothing".to_string(),
                })}
            </strong>
        </p>
        <div class="events-head">
            <h3 id="events-title">"What happened, in order"</h3>
            <label class="inline-check">
                <input
                    type="checkbox"
                    prop:checked=show_messages
                    on:change=move |ev| set_show_messages.set(event_target_checked(&ev))
                />
                "Show every message and retry"
            </label>
        </div>
        <ol class="events" aria-labelledby="events-title" data-testid="events">
            <For each=events key=|event| event.index let:event>
                <li class=event_class(&event)>
                    <span class="event-time">{fencing_sim::format_us(event.t_us)}</span>
                    <span class="event-icon" aria-hidden="true">{event_icon(&event)}</span>
                    <span class="event-text">{event.text.clone()}</span>
                </li>
            </For>
        </ol>
    }
}

/// One outcome counter.
#[component]
fn Counter<F>(
    /// What is counted, as people read it.
    label: &'static str,
    /// The hook tests use to find it.
    testid: &'static str,
    /// The count.
    value: F,
    /// Whether a non-zero count is damage (drawn in the warning style).
    bad: bool,
) -> impl IntoView
where
    F: Fn() -> u32 + Copy + Send + Sync + 'static,
{
    view! {
        <div class="counter" class:alarm=move || { bad && value() > 0 }>
            <dt>{label}</dt>
            <dd data-testid=testid>{value}</dd>
        </div>
    }
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

fn actor_title(digest: &fencing_sim::ActorDigest) -> String {
    match digest.actor {
        Actor::Worker(_) => format!("Worker {}", digest.actor),
        _ => digest.role.clone(),
    }
}

/// Messages and retry chatter: hidden unless the learner asks for them.
fn is_detail(event: &Event) -> bool {
    matches!(
        event.kind,
        Kind::Send { .. } | Kind::Receive { .. } | Kind::AcquireFailed { .. } | Kind::Backoff { .. } | Kind::Denied { .. }
    )
}

/// Each kind of event gets a shape as well as a colour. The glyphs are ones
/// every common system font has (no emoji: they vanish without an emoji font).
fn event_icon(event: &Event) -> &'static str {
    match event.kind {
        Kind::WriteAccepted { stale_overwrite: true, .. } => "☠",
        Kind::WriteAccepted { zombie: true, .. } => "⚠",
        Kind::WriteAccepted { .. } => "✓",
        Kind::WriteRejected { .. } => "✗",
        Kind::PauseBegan { .. } => "‖",
        Kind::PauseEnded => "▶",
        Kind::Granted { .. } | Kind::Acquired => "◆",
        Kind::Expired { .. } | Kind::Deleted { .. } | Kind::LostLock | Kind::LeaseLost { .. } => "◇",
        Kind::Crashed | Kind::NodeDown => "✱",
        Kind::Send { .. } => "→",
        Kind::Receive { .. } => "←",
        _ => "•",
    }
}

fn event_class(event: &Event) -> &'static str {
    match event.kind {
        Kind::WriteAccepted { stale_overwrite: true, .. } | Kind::WriteAccepted { zombie: true, .. } => "event zombie",
        Kind::WriteAccepted { .. } => "event accepted",
        Kind::WriteRejected { .. } => "event rejected",
        Kind::PauseBegan { .. } | Kind::PauseEnded => "event pause",
        Kind::Expired { .. } | Kind::Deleted { .. } | Kind::LostLock => "event expired",
        Kind::Send { .. } | Kind::Receive { .. } => "event message",
        _ => "event",
    }
}
