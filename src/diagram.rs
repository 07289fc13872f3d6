//! The sequence diagram: one lane per actor, messages as labelled arrows,
//! events as glyphs, pauses as frozen stretches, quiet time as breaks. The
//! whole run is drawn once; the cursor only moves a clip, so scrubbing a long
//! trace costs one attribute change.

use crate::glyphs;
use crate::pane::Pane;
use fencing_sim::layout::Axis;
use fencing_sim::{format_us, Actor, Event, Kind, SpanKind};
use leptos::prelude::*;

const ROW_PX: f64 = 26.0;
/// Only rows near the cursor are drawn: blocks of this many rows, the
/// cursor's block and one on each side. A 10,000-event run then scrubs as
/// quickly as a short one.
const BLOCK_ROWS: f64 = 80.0;
const HEAD_PX: f64 = 48.0;
const LEFT_PX: f64 = 78.0;
const LANE_PX: f64 = 150.0;
/// Room right of the last lane for its labels.
const RIGHT_PX: f64 = 150.0;

struct Geometry {
    lanes: Vec<Actor>,
    axis: Axis,
}

impl Geometry {
    fn x(&self, actor: Actor) -> f64 {
        let lane = self.lanes.iter().position(|lane| *lane == actor).unwrap_or(0);
        LEFT_PX + LANE_PX * (lane as f64 + 0.5)
    }

    fn y(&self, t_us: u64) -> f64 {
        HEAD_PX + ROW_PX * (self.axis.position(t_us) + 0.5)
    }

    fn width(&self) -> f64 {
        LEFT_PX + LANE_PX * self.lanes.len() as f64 + RIGHT_PX - LANE_PX / 2.0
    }

    fn height(&self) -> f64 {
        HEAD_PX + ROW_PX * (self.axis.length + 0.5)
    }
}

/// The sequence diagram of one run, revealed up to `upto`.
#[component]
pub fn SequenceDiagram(
    /// The run to draw.
    pane: Memo<Pane>,
    /// Which events are drawn (chatter folded or not).
    visible: Memo<Vec<bool>>,
    /// The compressed time axis of the visible events.
    axis: Memo<Axis>,
    /// The last event revealed; None before the first.
    upto: Signal<Option<u32>>,
    /// Distinguishes this diagram's SVG ids from a neighbour's.
    id: &'static str,
    /// Scale the whole picture to the pane's width instead of scrolling.
    #[prop(optional)]
    fit: bool,
) -> impl IntoView {
    let geometry = move || Geometry { lanes: pane.with(Pane::lanes), axis: axis.get() };
    let drawing = move || pane.with(|pane| draw(pane, &geometry()));
    let reveal_px = move || {
        let t_us = upto.get().and_then(|index| pane.with(|pane| pane.event(index).map(|event| event.t_us)));
        t_us.map_or(HEAD_PX, |t_us| axis.with(|axis| HEAD_PX + ROW_PX * (axis.position(t_us) + 1.0)))
    };
    // The drawn window, in row units; it changes only when the cursor
    // crosses into another block.
    let window = Memo::new(move |_| {
        let row = (reveal_px() - HEAD_PX) / ROW_PX;
        let block = (row / BLOCK_ROWS).floor().max(0.0);
        ((block - 1.0) * BLOCK_ROWS, (block + 2.0) * BLOCK_ROWS)
    });
    let size = Memo::new(move |_| {
        let geometry = geometry();
        (geometry.width(), geometry.height())
    });
    // Keep the cursor in view as it moves.
    let scroller = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let cursor_px = reveal_px();
        let Some(scroller) = scroller.get() else { return };
        let (top, height) = (f64::from(scroller.scroll_top()), f64::from(scroller.client_height()));
        if height > 0.0 && (cursor_px < top + HEAD_PX || cursor_px > top + height - ROW_PX) {
            scroller.set_scroll_top((cursor_px - height * 0.6).max(0.0) as i32);
        }
    });
    let clip_id = format!("{id}-reveal");
    let clip_url = format!("url(#{clip_id})");
    view! {
        <div class="diagram-scroll" node_ref=scroller tabindex="0" role="region" aria-label="Sequence diagram, scrollable">
            // The lane names stay in view while the diagram scrolls under them.
            <svg class="diagram-head" aria-hidden="true" width=move || if fit { "100%".to_string() } else { size.get().0.to_string() }
                viewBox=move || format!("0 0 {} {HEAD_PX}", size.get().0)>
                {move || pane.with(|pane| lane_names(pane, &geometry()))}
            </svg>
            <svg
                class="diagram"
                role="img"
                aria-label="Sequence diagram of the run: one lane per actor, time flowing down"
                width=move || if fit { "100%".to_string() } else { size.get().0.to_string() }
                height=move || (!fit).then(|| size.get().1.to_string())
                viewBox=move || format!("0 0 {} {}", size.get().0, size.get().1)
                data-testid=format!("{id}-diagram")
            >
                <defs>
                    <clipPath id=clip_id>
                        <rect x="0" y="0" width=move || size.get().0 height=reveal_px></rect>
                    </clipPath>
                    <pattern id=format!("{id}-hatch") width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                        <rect width="6" height="6" class="hatch-bg"></rect>
                        <line x1="0" y1="0" x2="0" y2="6" class="hatch-line"></line>
                    </pattern>
                    <marker id=format!("{id}-arrow") viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead"></path>
                    </marker>
                </defs>
                {drawing}
                <g clip-path=clip_url.clone()>
                    {move || pane.with(|pane| visible.with(|visible| draw_revealed(pane, visible, &geometry(), id, window.get())))}
                </g>
                <line class="cursor-line" x1="0" x2=move || size.get().0 y1=reveal_px y2=reveal_px></line>
            </svg>
        </div>
    }
}

/// What is always drawn: the lanes.
fn draw(_pane: &Pane, geometry: &Geometry) -> impl IntoView {
    let height = geometry.height();
    geometry
        .lanes
        .iter()
        .map(|lane| {
            let x = geometry.x(*lane);
            view! { <line class="lane-line" data-lane=lane.to_string() x1=x x2=x y1=HEAD_PX - 10.0 y2=height></line> }
        })
        .collect_view()
}

/// The lanes' names, drawn in the header that stays in view.
fn lane_names(pane: &Pane, geometry: &Geometry) -> impl IntoView {
    geometry
        .lanes
        .iter()
        .map(|lane| {
            let x = geometry.x(*lane);
            view! {
                <text class="lane-name" x=x y="20" text-anchor="middle">{lane.to_string()}</text>
                <text class="lane-role" x=x y="36" text-anchor="middle">{lane_title(pane, *lane)}</text>
            }
        })
        .collect_view()
}

fn lane_title(pane: &Pane, lane: Actor) -> &'static str {
    match lane {
        Actor::Worker(_) => "worker",
        Actor::Store => "store",
        Actor::LockNode(_) => match pane.trace.scenario.lock_service {
            fencing_sim::LockService::Consensus => "etcd",
            fencing_sim::LockService::RedisFailover => "redis (failover)",
            _ => "redis",
        },
    }
}

/// What the cursor reveals (breaks, times, spans, arrows and markers) within
/// the window of rows `(from, to)`.
fn draw_revealed(pane: &Pane, visible: &[bool], geometry: &Geometry, id: &str, window: (f64, f64)) -> impl IntoView {
    let near = |t_us: u64| {
        let row = geometry.axis.position(t_us);
        row >= window.0 && row <= window.1
    };
    let spans_window =
        |start_us: u64, end_us: u64| geometry.axis.position(start_us) <= window.1 && geometry.axis.position(end_us) >= window.0;
    let width = geometry.width();
    let breaks = geometry
        .axis
        .breaks
        .iter()
        .filter(|gap| gap.to >= window.0 && gap.from <= window.1)
        .map(|gap| {
            let top = HEAD_PX + ROW_PX * (gap.from + 0.5) + 3.0;
            let height = ROW_PX * (gap.to - gap.from) - 6.0;
            view! {
                <g class="break">
                    <rect x="0" y=top width=width height=height></rect>
                    <text x=LEFT_PX - 6.0 y=top + height / 2.0 + 4.0 text-anchor="end">{format!("⋯ {} later", format_us(gap.skipped_us))}</text>
                </g>
            }
        })
        .collect_view();
    let times = geometry
        .axis
        .knots
        .iter()
        .filter(|(_, row)| *row >= window.0 && *row <= window.1)
        .map(|(t_us, _)| view! { <text class="time" x=LEFT_PX - 8.0 y=geometry.y(*t_us) + 4.0 text-anchor="end">{format_us(*t_us)}</text> })
        .collect_view();
    view! {
        {breaks}
        {times}
        {draw_spans(pane, geometry, id, &spans_window)}
        {draw_arrows(pane, visible, geometry, id, &spans_window)}
        {draw_markers(pane, visible, geometry, &near)}
    }
}

fn draw_spans(pane: &Pane, geometry: &Geometry, id: &str, in_window: &dyn Fn(u64, u64) -> bool) -> impl IntoView {
    pane.trace
        .spans
        .iter()
        .filter(|span| in_window(span.start_us, span.end_us))
        .map(|span| {
            let x = geometry.x(span.worker);
            let top = geometry.y(span.start_us);
            let height = (geometry.y(span.end_us) - top).max(2.0);
            let (class, left, width, fill) = match span.kind {
                SpanKind::Pause => ("span-pause", x - 9.0, 18.0, format!("url(#{id}-hatch)")),
                SpanKind::Lease => ("span-lease", x - 16.0, 5.0, String::new()),
                SpanKind::ZombieWindow => ("span-zombie", x + 11.0, 6.0, String::new()),
                SpanKind::Belief => ("span-belief", x + 4.0, 5.0, String::new()),
            };
            view! { <rect class=class x=left y=top width=width height=height fill=fill></rect> }
        })
        .collect_view()
}

fn draw_arrows(pane: &Pane, visible: &[bool], geometry: &Geometry, id: &str, in_window: &dyn Fn(u64, u64) -> bool) -> impl IntoView {
    let marker = format!("url(#{id}-arrow)");
    pane.trace
        .events
        .iter()
        .filter(|event| visible[event.index as usize] && matches!(event.kind, Kind::Send { .. }))
        .filter_map(|send| {
            let Kind::Send { to, body, .. } = &send.kind else { return None };
            let label = body.label();
            let arrival = pane.arrival(send)?;
            if !in_window(send.t_us, arrival.t_us) {
                return None;
            }
            let lost = matches!(arrival.kind, Kind::Lost { .. });
            let (x1, y1) = (geometry.x(send.actor), geometry.y(send.t_us));
            let (x2, y2) = (geometry.x(*to), geometry.y(arrival.t_us));
            let class = if lost { "arrow lost" } else { arrow_class(pane, send, arrival) };
            let (label_x, label_y) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0 - 3.0);
            Some(view! {
                <g class=class>
                    <line x1=x1 y1=y1 x2=x2 y2=y2 marker-end=marker.clone()></line>
                    <text x=label_x y=label_y text-anchor="middle">{label}{if lost { " ✗ lost" } else { "" }}</text>
                </g>
            })
        })
        .collect_view()
}

/// Write arrows take the colour of what the store did with them.
fn arrow_class(pane: &Pane, send: &Event, arrival: &Event) -> &'static str {
    let Kind::Send { to: Actor::Store, .. } = send.kind else { return "arrow" };
    let verdict = pane.trace.events.get(arrival.index as usize + 1);
    match verdict.map(|event| &event.kind) {
        Some(Kind::WriteAccepted { stale_overwrite: true, .. } | Kind::WriteAccepted { zombie: true, .. }) => "arrow write-zombie",
        Some(Kind::WriteRejected { .. }) => "arrow write-rejected",
        Some(Kind::WriteAccepted { .. }) => "arrow write-accepted",
        _ => "arrow",
    }
}

fn draw_markers(pane: &Pane, visible: &[bool], geometry: &Geometry, near: &dyn Fn(u64) -> bool) -> impl IntoView {
    pane.trace
        .events
        .iter()
        .filter(|event| visible[event.index as usize] && near(event.t_us))
        .filter_map(|event| {
            let words = glyphs::short(event)?;
            let (x, y) = (geometry.x(event.actor), geometry.y(event.t_us));
            let class = format!("marker {}", glyphs::class(event));
            Some(view! {
                <g class=class data-kind=kind_name(event)>
                    <circle cx=x cy=y r="8"></circle>
                    <text class="glyph" x=x y=y + 4.0 text-anchor="middle">{glyphs::icon(event)}</text>
                    <text class="words" x=x + 21.0 y=y + 4.0>{words}</text>
                </g>
            })
        })
        .collect_view()
}

fn kind_name(event: &Event) -> &'static str {
    match event.kind {
        Kind::WriteAccepted { stale_overwrite: true, .. } => "stale-overwrite",
        Kind::WriteAccepted { zombie: true, .. } => "zombie-write",
        Kind::WriteAccepted { .. } => "accepted-write",
        Kind::WriteRejected { .. } => "rejected-write",
        _ => "event",
    }
}
