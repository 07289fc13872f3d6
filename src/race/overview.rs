//! The whole run in one picture: the story's events (those that change it,
//! and the writes) as a table with one narrow column per lane, a glyph in
//! the lane the event happens in, and its words beside it, revealed up to
//! the cursor. Time is compressed as in the diagram (quiet stretches become
//! one "⋯ later" row), and being a table its text wraps instead of running
//! into a neighbour: it fits a phone, a side-by-side pane and a projector,
//! and a screen reader reads it row by row. The detailed diagram stays
//! beside it for the arrows.

use crate::escape;
use crate::race::glyphs;
use crate::race::layout::BREAK_US;
use crate::race::pane::Pane;
use fencing_sim::msg::Msg;
use fencing_sim::{format_us, Actor, Event, Kind};
use leptos::prelude::*;
use std::fmt::Write;

/// A row's height and the caption's and header's, in hundredths of a rem (style/main.css).
const ROW_CENTIREM: usize = 135;
const HEAD_CENTIREM: usize = 160;

/// Whether an event is part of the story: one that changes it, or a
/// write's message (its arrow carries the token); never retry chatter.
pub fn in_story(pane: &Pane, event: &Event) -> bool {
    let write = matches!(
        event.kind,
        Kind::Send { body: Msg::Write(_), .. } | Kind::Receive { body: Msg::Write(_), .. } | Kind::Lost { body: Msg::Write(_), .. }
    );
    !pane.chatter[event.index as usize] && (write || glyphs::is_key(event))
}

/// A row of the overview: a story event, less a write's arrival (the
/// store's verdict on it is the next row). A grant is told by its holder's
/// row (which has the token), a release by the lock's; an event with no
/// words of its own is left out.
fn in_overview(pane: &Pane, event: &Event) -> bool {
    let said =
        matches!(event.kind, Kind::Send { .. } | Kind::Lost { .. }) || glyphs::short(event, pane.trace.scenario.lock_service).is_some();
    in_story(pane, event) && said && !matches!(event.kind, Kind::Receive { .. } | Kind::Granted { .. } | Kind::Released)
}

/// The rows, with a gap row before each quiet stretch: the events shown
/// up to `upto` (all of them with `u32::MAX`).
fn rows(pane: &Pane, upto: u32) -> Vec<(Option<u64>, &Event)> {
    let mut previous_us: Option<u64> = None;
    let mut rows = Vec::new();
    for event in pane.trace.events.iter().take_while(|event| event.index <= upto).filter(|event| in_overview(pane, event)) {
        let gap_us = previous_us.map(|previous| event.t_us - previous).filter(|gap| *gap >= BREAK_US);
        rows.push((gap_us, event));
        previous_us = Some(event.t_us);
    }
    rows
}

/// The whole run's overview in lines of text: its rows and its gap rows.
pub fn lines(pane: &Pane) -> usize {
    let rows = rows(pane, u32::MAX);
    rows.len() + rows.iter().filter(|(gap, _)| gap.is_some()).count()
}

/// The whole run's overview height, kept from the first step on, as CSS
/// ("21.85rem", from whole numbers).
pub fn height_css(pane: &Pane) -> String {
    let centirem = HEAD_CENTIREM + ROW_CENTIREM * lines(pane);
    format!("{}.{:02}rem", centirem / 100, centirem % 100)
}

/// The overview's markup, revealed up to `upto` (nothing before the first
/// event); the row of the cursor's event, or the last story row before it,
/// is marked as the current one.
pub fn markup(pane: &Pane, upto: Option<u32>, id: &str) -> String {
    let lanes = pane.lanes();
    let mut html = format!(
        r#"<table class="overview" data-testid="{id}-overview"><caption class="sr-only">The whole run so far, one row per step of the story</caption><thead><tr><th scope="col">Time</th>"#
    );
    for lane in &lanes {
        let _ = write!(html, r#"<th scope="col" class="overview-lane">{lane}</th>"#);
    }
    html.push_str(r#"<th scope="col">What happens</th></tr></thead><tbody>"#);
    let rows = upto.map_or_else(Vec::new, |upto| rows(pane, upto));
    for (position, (gap_us, event)) in rows.iter().enumerate() {
        if let Some(gap_us) = gap_us {
            let _ = write!(html, r#"<tr class="overview-gap"><td colspan="{}">⋯ {} later</td></tr>"#, lanes.len() + 2, format_us(*gap_us));
        }
        html.push_str(&row(pane, event, &lanes, position + 1 == rows.len()));
    }
    // The rows still to come, empty but for their lanes: the picture's
    // layout is there from the first frame, and the run fills it in (no
    // blank band). At the run's end (a printed handout) there are none.
    let shown = rows.len() + rows.iter().filter(|(gap, _)| gap.is_some()).count();
    for _ in shown..lines(pane) {
        html.push_str(r#"<tr class="overview-future" aria-hidden="true"><td></td>"#);
        html.push_str(&r#"<td class="overview-mark"></td>"#.repeat(lanes.len()));
        html.push_str("<td></td></tr>");
    }
    html.push_str("</tbody></table>");
    html
}

/// One event's row: its time, its glyph in its lane, its words.
fn row(pane: &Pane, event: &Event, lanes: &[Actor], current: bool) -> String {
    let class = glyphs::class(event);
    let marked = if current { r#" aria-current="step" class="current""# } else { "" };
    let mut html = format!(r#"<tr{marked}><td class="overview-time">{}</td>"#, format_us(event.t_us));
    for lane in lanes {
        let glyph = if *lane == event.actor { glyphs::icon(event) } else { "" };
        let lane_class = if *lane == event.actor { format!("overview-mark {class}") } else { "overview-mark".to_string() };
        let _ = write!(html, r#"<td class="{lane_class}" aria-hidden="true">{glyph}</td>"#);
    }
    let _ = write!(html, r#"<td class="overview-words {class}">{}</td></tr>"#, escape(&words(pane, event)));
    html
}

/// What the row says: who, then the diagram's few words (a message says
/// where it goes).
fn words(pane: &Pane, event: &Event) -> String {
    let service = pane.trace.scenario.lock_service;
    let token = event.token.map_or(String::new(), |token| format!(" with token {}", service.token_words(token)));
    match &event.kind {
        Kind::Send { to, .. } => format!("{} sends its write{token} to the {to}", event.actor),
        Kind::Lost { .. } => format!("a write{token} is lost"),
        _ => format!("{}: {}", event.actor, glyphs::short(event, service).unwrap_or_default()),
    }
}

/// The overview as the race and each side-by-side pane show it. Its height
/// is the whole run's from the first step: rows fill in as playback runs,
/// and nothing below moves (set through the CSSOM, which a strict
/// `style-src` allows).
#[component]
pub fn Overview(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let boxed = NodeRef::<leptos::html::Div>::new();
    let relaid = crate::shell::browser::layout_changes();
    Effect::new(move |_| {
        upto.track();
        relaid.track();
        // After the rows are written and laid out.
        request_animation_frame(move || keep_current_in_view(boxed));
    });
    view! {
        <div class="overview-box" node_ref=boxed style:min-height=move || pane.with(height_css)
            inner_html=move || pane.with(|pane| markup(pane, upto.get(), id))></div>
    }
}

/// Where the picture is shorter than the run (projector mode gives it the
/// height the screen leaves), it scrolls inside its box: the current row
/// stays in view. Elsewhere the box is the whole run's height and nothing
/// scrolls, so the page never moves under the reader.
fn keep_current_in_view(boxed: NodeRef<leptos::html::Div>) {
    let Some(element) = boxed.try_get_untracked().flatten() else { return };
    let Ok(Some(current)) = element.query_selector("tr.current") else { return };
    let parent = element.parent_element();
    // The box scrolls in the race, its pane's cell side by side.
    let Some(scroller) =
        [Some(element.into()), parent].into_iter().flatten().find(|at: &web_sys::Element| at.scroll_height() > at.client_height() + 1)
    else {
        return;
    };
    let (row, view) = (current.get_bounding_client_rect(), scroller.get_bounding_client_rect());
    if row.top() < view.top() || row.bottom() > view.bottom() {
        let offset_px = row.top() - view.top() - view.height() * 0.6;
        scroller.set_scroll_top(scroller.scroll_top() + offset_px.round() as i32);
    }
}
