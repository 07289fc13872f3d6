//! The words of the run, in the core's own sentences: a caption for the
//! step on screen (visible to everyone and read aloud at a pace a listener
//! can follow), and the log of every step so far, newest at the bottom.

use crate::race::glyphs;
use crate::race::pane::Pane;
use fencing_sim::{format_us, Event, Kind};
use leptos::prelude::*;

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
    let words = move || {
        shown.with(|event| match event {
            Some((event, text)) => view! {
                <span class="caption-time">{format_us(event.t_us)}</span>
                <span class="caption-icon" aria-hidden="true">{glyphs::icon(event)}</span>
                <span class="caption-text">{text.clone()}</span>
            }
            .into_any(),
            None => view! { <span class="caption-text">"Press Play, or step through the run one event at a time."</span> }.into_any(),
        })
    };
    view! {
        <div class=class data-testid=format!("{id}-caption")>{words}</div>
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
    let lines = Memo::new(move |_| {
        let Some(upto) = upto.get() else { return Vec::new() };
        let detail = detail.get();
        pane.with(|pane| visible.with(|visible| lines(pane, visible, upto, detail)))
    });
    view! {
        <section class="narration" aria-labelledby=format!("{id}-log-title")>
            <h3 id=format!("{id}-log-title")>"What happened, in order"</h3>
            // The scroller stacks from the bottom (CSS), so the newest line
            // stays in view without reading the layout at every step.
            <div class="events-scroll" tabindex="0" role="region" aria-label="Events so far, oldest first">
                // Keyed by run and event: a step adds its line and drops the oldest, the rest stay.
                <ol class="events" data-testid=format!("{id}-events")>
                    <For each=move || lines.get() key=|line| (line.run, line.index) let:line>
                        <li class=format!("event {}", line.class)>
                            <span class="event-time">{line.time}</span>
                            <span class="event-icon" aria-hidden="true">{line.icon}</span>
                            <span class="event-text">{line.text}</span>
                        </li>
                    </For>
                </ol>
            </div>
        </section>
    }
}

/// One line of the log: which run and event it tells (its key), and its words.
#[derive(Clone, PartialEq)]
struct Line {
    run: u64,
    index: u32,
    class: &'static str,
    time: String,
    icon: &'static str,
    text: String,
}

/// The log's lines up to `upto`: the latest `LINES_MAX` shown events.
fn lines(pane: &Pane, visible: &[bool], upto: u32, detail: bool) -> Vec<Line> {
    let mut chosen: Vec<&Event> = pane.trace.events[..=upto as usize]
        .iter()
        .rev()
        .filter(|event| visible[event.index as usize] && (detail || !is_message(event)))
        .take(LINES_MAX)
        .collect();
    chosen.reverse();
    chosen
        .into_iter()
        .map(|event| Line {
            run: pane.id,
            index: event.index,
            class: glyphs::class(event),
            time: format_us(event.t_us),
            icon: glyphs::icon(event),
            text: pane.trace.text(event),
        })
        .collect()
}

fn is_message(event: &Event) -> bool {
    matches!(event.kind, Kind::Send { .. } | Kind::Receive { .. })
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_the_latest_lines_in_order_each_keyed_by_run_and_event() {
        let pane = Pane::run(&fencing_sim::presets::classic());
        let visible = vec![true; pane.trace.events.len()];
        let last = pane.trace.events.len() as u32 - 1;
        let all = lines(&pane, &visible, last, true);
        assert_eq!(all.len(), pane.trace.events.len().min(LINES_MAX));
        assert_eq!(all.last().map(|line| line.index), Some(last), "the newest at the bottom");
        assert!(all.windows(2).all(|pair| pair[0].index < pair[1].index && pair[0].run == pane.id));
        let quiet = lines(&pane, &visible, last, false);
        assert!(quiet.len() < all.len(), "messages are left out unless asked for");
        let owner = Owner::new();
        let html = owner.with(|| {
            let pane = Memo::new(move |_| pane.clone());
            let visible = Memo::new(move |_| visible.clone());
            let upto = Signal::derive(move || Some(last));
            view! { <Narration pane visible upto detail=Signal::derive(|| false) id="race"/> }.to_html()
        });
        assert_eq!(html.matches("<li class=\"event ").count(), quiet.len(), "{html}");
        assert!(html.contains(&format!(r#"<span class="event-text">{}</span></li>"#, quiet[0].text.replace('&', "&amp;"))), "{html}");
    }
}
