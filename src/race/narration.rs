//! The words of the run, in the core's own sentences: a caption for the
//! step on screen (visible to everyone and read aloud at a pace a listener
//! can follow), and the log of every step so far, newest at the bottom.

use crate::escape;
use crate::race::glyphs;
use crate::race::pane::Pane;
use fencing_sim::{format_us, Event, Kind};
use leptos::prelude::*;
use std::fmt::Write;

/// The log shows at most this many of the latest lines: a 10,000-event run
/// stays quick to scrub, and older lines are in the JSON export.
const LINES_MAX: usize = 60;
/// At speeds above this (an index into the speeds), only the events that
/// change the story are read aloud.
const SPEAK_EVERY_EVENT_UP_TO: usize = 2;

/// The step on screen, as a caption under the playback bar.
#[component]
pub fn Caption(pane: Memo<Pane>, upto: Signal<Option<u32>>, speed: Signal<usize>, id: &'static str) -> impl IntoView {
    // The event and its sentence, rendered from the trace's typed record.
    let shown = Memo::new(move |_| {
        upto.get().and_then(|index| pane.with(|pane| pane.event(index).map(|event| (event.clone(), pane.trace.text(event)))))
    });
    // What a screen reader hears: every step when slow, the key ones when fast.
    let spoken = Memo::new(move |previous: Option<&String>| match shown.get() {
        Some((event, text)) if speed.get() <= SPEAK_EVERY_EVENT_UP_TO || glyphs::is_key(&event) => line(&event, &text),
        Some(_) => previous.cloned().unwrap_or_default(),
        None => String::new(),
    });
    let class = move || format!("caption {}", shown.with(|shown| shown.as_ref().map_or("plain", |(event, _)| glyphs::class(event))));
    let html = move || {
        shown.with(|event| match event {
            Some((event, text)) => format!(
                r#"<span class="caption-time">{}</span><span class="caption-icon" aria-hidden="true">{}</span><span class="caption-text">{}</span>"#,
                format_us(event.t_us),
                glyphs::icon(event),
                escape(text)
            ),
            None => r#"<span class="caption-text">Press Play, or step through the run one event at a time.</span>"#.to_string(),
        })
    };
    view! {
        <div class=class data-testid=format!("{id}-caption") inner_html=html></div>
        <p class="sr-only" aria-live="polite" data-testid=format!("{id}-announcer")>{move || spoken.get()}</p>
    }
}

fn line(event: &Event, text: &str) -> String {
    format!("{}: {text}", format_us(event.t_us))
}

/// Every step so far, oldest first.
#[component]
pub fn Narration(
    pane: Memo<Pane>,
    visible: Memo<Vec<bool>>,
    upto: Signal<Option<u32>>,
    /// List every message too (the diagram's arrows already show them).
    detail: Signal<bool>,
    id: &'static str,
) -> impl IntoView {
    let html = Memo::new(move |_| {
        let Some(upto) = upto.get() else { return String::new() };
        let detail = detail.get();
        pane.with(|pane| visible.with(|visible| lines(pane, visible, upto, detail)))
    });
    view! {
        <section class="narration" aria-labelledby=format!("{id}-log-title")>
            <h3 id=format!("{id}-log-title")>"What happened, in order"</h3>
            // The scroller stacks from the bottom (CSS), so the newest line
            // stays in view without reading the layout at every step.
            <div class="events-scroll" tabindex="0" role="region" aria-label="Events so far, oldest first">
                <ol class="events" data-testid=format!("{id}-events") inner_html=html></ol>
            </div>
        </section>
    }
}

/// The log's lines up to `upto`: the latest `LINES_MAX` shown events.
fn lines(pane: &Pane, visible: &[bool], upto: u32, detail: bool) -> String {
    let mut chosen: Vec<&Event> = pane.trace.events[..=upto as usize]
        .iter()
        .rev()
        .filter(|event| visible[event.index as usize] && (detail || !is_message(event)))
        .take(LINES_MAX)
        .collect();
    chosen.reverse();
    let mut html = String::new();
    for event in chosen {
        let _ = write!(
            html,
            r#"<li class="event {}"><span class="event-time">{}</span><span class="event-icon" aria-hidden="true">{}</span><span class="event-text">{}</span></li>"#,
            glyphs::class(event),
            format_us(event.t_us),
            glyphs::icon(event),
            escape(&pane.trace.text(event))
        );
    }
    html
}

fn is_message(event: &Event) -> bool {
    matches!(event.kind, Kind::Send { .. } | Kind::Receive { .. })
}
