//! The narration: every revealed event in plain words (the core's own
//! explanation), newest at the bottom, and a live region that reads the
//! latest one aloud at a pace a listener can follow.

use crate::glyphs;
use crate::pane::Pane;
use fencing_sim::{format_us, Event, Kind};
use leptos::prelude::*;

/// The log shows at most this many of the latest lines: a 10,000-event run
/// stays quick to scrub, and older lines are in the JSON export.
const LINES_MAX: usize = 150;

/// At speeds above this, only the events that change the story are spoken.
const SPEAK_EVERY_EVENT_UP_TO: usize = 2;

#[component]
pub fn Narration(
    pane: Memo<Pane>,
    visible: Memo<Vec<bool>>,
    upto: Signal<Option<u32>>,
    /// Playback speed index; fast playback speaks only key events.
    speed: Signal<usize>,
    /// List every message too (the diagram's arrows already show them).
    detail: Signal<bool>,
    id: &'static str,
) -> impl IntoView {
    let shown = move || {
        let Some(upto) = upto.get() else { return Vec::new() };
        pane.with(|pane| {
            visible.with(|visible| {
                let mut lines: Vec<Event> = pane.trace.events[..=upto as usize]
                    .iter()
                    .rev()
                    .filter(|event| visible[event.index as usize] && (detail.get() || !is_message(event)))
                    .take(LINES_MAX)
                    .cloned()
                    .collect();
                lines.reverse();
                lines
            })
        })
    };
    let spoken = Memo::new(move |previous: Option<&String>| {
        let latest = upto.get().and_then(|index| pane.with(|pane| pane.event(index).cloned()));
        match latest {
            Some(event) if speed.get() <= SPEAK_EVERY_EVENT_UP_TO || key_event(&event) => {
                format!("{}: {}", format_us(event.t_us), event.text)
            }
            Some(_) => previous.cloned().unwrap_or_default(),
            None => String::new(),
        }
    });
    // Keep the newest line in view as the cursor moves.
    let list = NodeRef::<leptos::html::Ol>::new();
    Effect::new(move |_| {
        upto.track();
        if let Some(list) = list.get() {
            list.set_scroll_top(list.scroll_height());
        }
    });
    view! {
        <section class="narration" aria-labelledby=format!("{id}-log-title")>
            <h3 id=format!("{id}-log-title")>"What happened, in order"</h3>
            <p class="sr-only" aria-live="polite" data-testid=format!("{id}-announcer")>{move || spoken.get()}</p>
            <ol class="events" node_ref=list tabindex="0" aria-label="Events so far, oldest first" data-testid=format!("{id}-events")>
                <For each=shown key=|event| event.index let:event>
                    <li class=format!("event {}", glyphs::class(&event))>
                        <span class="event-time">{format_us(event.t_us)}</span>
                        <span class="event-icon" aria-hidden="true">{glyphs::icon(&event)}</span>
                        <span class="event-text">{event.text.clone()}</span>
                    </li>
                </For>
            </ol>
        </section>
    }
}

fn is_message(event: &Event) -> bool {
    matches!(event.kind, Kind::Send { .. } | Kind::Receive { .. })
}

/// Events that change the story: grants, expiries, pauses, writes, crashes.
fn key_event(event: &Event) -> bool {
    !matches!(
        event.kind,
        Kind::Send { .. }
            | Kind::Receive { .. }
            | Kind::Backoff { .. }
            | Kind::AcquireFailed { .. }
            | Kind::Denied { .. }
            | Kind::TokenIssued { .. }
            | Kind::Renewed { .. }
    )
}
