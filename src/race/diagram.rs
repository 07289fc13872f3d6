//! The sequence diagram: one lane per actor, messages as labelled arrows,
//! events as glyphs with a few words, pauses as frozen stretches, quiet time
//! as breaks. `layout` decides where everything goes; this writes it down as
//! SVG markup. The cursor only moves a clip, and only the rows near it are
//! written, so scrubbing a 10,000-event run costs an attribute change and,
//! now and then, a window of rows.

use crate::escape;
use crate::race::glyphs;
use crate::race::layout::{Anchor, Geometry, Label, PaneGeometry, BARS_PX, MARKER_R, ROW_PX};
use crate::race::pane::Pane;
use fencing_sim::{Actor, Fate, SpanKind};
use leptos::prelude::*;
use std::fmt::Write;

/// Height of the lane names above the diagram.
const HEAD_PX: i32 = 44;
/// Rows are written in blocks of this many pixels: the cursor's block and
/// the one above it (what the learner sees on scrolling back, and what the
/// downloaded SVG holds). Below the cursor the clip hides everything: only a
/// margin for the glyphs that rise above their row is written past its
/// block. (A scrub writes every row of the window anew, and the browser lays
/// out each SVG text: the fewer, the sooner the frame.)
const BLOCK_PX: i32 = 900;
const BELOW_PX: i32 = 2 * ROW_PX;

/// The sequence diagram of pane `index` of `geometry`, revealed up to `upto`.
#[component]
pub fn SequenceDiagram(
    /// The run to draw.
    pane: Memo<Pane>,
    /// Where everything goes (shared with a neighbour side by side).
    geometry: Memo<Geometry>,
    /// Which pane of the geometry this is.
    #[prop(optional)]
    index: usize,
    /// The last event revealed; None before the first.
    upto: Signal<Option<u32>>,
    /// Distinguishes this diagram's SVG ids from a neighbour's.
    id: &'static str,
    /// Side by side: the scroll position both diagrams share.
    #[prop(optional)]
    shared_scroll: Option<RwSignal<i32>>,
    /// Side by side: the neighbour's last event revealed. The shared
    /// scroll follows the lower of the two cursors, the latest step (the
    /// panes share one geometry, so lower is later): both diagrams then
    /// scroll to the same place, the step just taken in view.
    #[prop(optional, into)]
    neighbour_upto: Option<Signal<Option<u32>>>,
    /// Where this diagram writes the width it is shown in, for the layout
    /// to narrow its lanes to (side by side, one of the two measures).
    #[prop(optional)]
    room_px: Option<RwSignal<i32>>,
) -> impl IntoView {
    let reveal_px = Memo::new(move |_| geometry.with(|geometry| geometry.reveal_y(index, upto.get())));
    let window = Memo::new(move |_| {
        let block = reveal_px.get() / BLOCK_PX;
        ((block - 1) * BLOCK_PX, (block + 1) * BLOCK_PX + BELOW_PX)
    });
    // Two memos of the type `reveal_px` has: their attributes share its code.
    let width_px = Memo::new(move |_| geometry.with(Geometry::width));
    let height_px = Memo::new(move |_| geometry.with(|geometry| geometry.height));
    let head = move || pane.with(|pane| geometry.with(|geometry| lane_names(pane, &geometry.panes[index])));
    let body = move || pane.with(|pane| geometry.with(|geometry| draw(pane, geometry, index, id, window.get())));
    let lanes = move || geometry.with(|geometry| lane_lines(&geometry.panes[index], geometry.height, id));
    let scroller = NodeRef::<leptos::html::Div>::new();
    let follow_px = Memo::new(move |_| {
        let neighbour = neighbour_upto.map(|upto| geometry.with(|geometry| geometry.reveal_y(1 - index.min(1), upto.get())));
        neighbour.map_or(reveal_px.get(), |neighbour| neighbour.max(reveal_px.get()))
    });
    follow(scroller, pane, geometry, index, upto, follow_px);
    if let Some(room_px) = room_px {
        measure(scroller, room_px);
    }
    if let Some(shared) = shared_scroll {
        Effect::new(move |_| {
            let top = shared.get();
            if let Some(element) = scroller.get() {
                if element.scroll_top() != top {
                    element.set_scroll_top(top);
                }
            }
        });
    }
    let on_scroll = move |_| {
        if let (Some(shared), Some(element)) = (shared_scroll, scroller.get_untracked()) {
            shared.set(element.scroll_top());
        }
    };
    let clip_id = format!("{id}-reveal");
    view! {
        <div class="diagram-scroll" node_ref=scroller on:scroll=on_scroll tabindex="0" role="region" aria-label=region_name(id) data-testid=format!("{id}-diagram-scroll")>
            // The lane names stay in view while the diagram scrolls under them.
            <svg class="diagram-head" aria-hidden="true" width=width_px height=HEAD_PX inner_html=head></svg>
            <svg
                class="diagram"
                role="img"
                aria-label="Sequence diagram of the run: one lane per actor, time flowing down"
                width=width_px
                height=height_px
                data-testid=format!("{id}-diagram")
            >
                <defs>
                    <clipPath id=clip_id.clone()>
                        <rect x="0" y="0" width=width_px height=reveal_px></rect>
                    </clipPath>
                </defs>
                <g inner_html=lanes></g>
                <g clip-path=format!("url(#{clip_id})") inner_html=body></g>
                <line class="cursor-line" x1="0" x2=width_px y1=reveal_px y2=reveal_px></line>
            </svg>
        </div>
    }
}

/// The scrolling diagram's name for a screen reader; side by side's two
/// diagrams say which run each one draws (landmarks must differ).
fn region_name(id: &str) -> &'static str {
    match id {
        "left" => "Sequence diagram of the left-hand run, scrollable",
        "right" => "Sequence diagram of the right-hand run, scrollable",
        _ => "Sequence diagram, scrollable",
    }
}

/// Tells the layout the width the diagram has: once laid out, and again
/// after the window or the layout changes size (projector mode).
fn measure(scroller: NodeRef<leptos::html::Div>, room_px: RwSignal<i32>) {
    crate::shell::browser::after_layout(scroller, move |element| {
        // A hidden diagram (projector mode's whole-run view) has no width to give.
        let width_px = element.client_width();
        if width_px > 0 && room_px.try_get_untracked() != Some(width_px) {
            room_px.set(width_px);
        }
    });
}

/// Keeps the cursor's event in view as it moves: down to its row, and
/// across to its lane (a phone shows fewer lanes than there are).
fn follow(
    scroller: NodeRef<leptos::html::Div>,
    pane: Memo<Pane>,
    geometry: Memo<Geometry>,
    index: usize,
    upto: Signal<Option<u32>>,
    reveal_px: Memo<i32>,
) {
    let relaid = crate::shell::browser::layout_changes();
    Effect::new(move |_| {
        relaid.track();
        let cursor_px = reveal_px.get() + HEAD_PX;
        let event = upto.get();
        // After layout: a view opened at a link's cursor has no size before it.
        request_animation_frame(move || scroll_to(scroller, pane, geometry, index, event, cursor_px));
    });
}

fn scroll_to(
    scroller: NodeRef<leptos::html::Div>,
    pane: Memo<Pane>,
    geometry: Memo<Geometry>,
    index: usize,
    upto: Option<u32>,
    cursor_px: i32,
) {
    let Some(element) = scroller.try_get_untracked().flatten() else { return };
    let (top, height) = (element.scroll_top(), element.client_height());
    if height > 0 && (cursor_px < top + HEAD_PX + ROW_PX || cursor_px > top + height - ROW_PX / 2) {
        element.set_scroll_top((cursor_px - height * 3 / 5).max(0));
    }
    let extent =
        |event| pane.try_with_untracked(|pane| geometry.try_with_untracked(|geometry| extent(pane, &geometry.panes[index], event)));
    let Some((from_x, to_x)) = upto.and_then(|event| extent(event).flatten().flatten()) else { return };
    let (left, width) = (element.scroll_left(), element.client_width());
    if width > 0 && (from_x < left || to_x > left + width) {
        // The end where the event happens matters most: keep it in view.
        let target = if to_x - from_x > width { to_x - width + 16 } else { from_x - 16 };
        element.set_scroll_left(target.max(0));
    }
}

/// The horizontal stretch an event occupies: its arrow, or its marker and words.
fn extent(pane: &Pane, geometry: &PaneGeometry, event: u32) -> Option<(i32, i32)> {
    if let Some(arrow) = geometry.arrows.iter().find(|arrow| arrow.arrival == event || arrow.send == event) {
        let (x1, _, x2, _) = arrow.line;
        return Some((x1.min(x2) - 20, x1.max(x2) + 20));
    }
    if let Some(marker) = geometry.markers.iter().find(|marker| marker.event == event) {
        let words = marker.words.as_ref().map_or((marker.x, marker.x), |words| (words.rect.x, words.rect.x + words.rect.w));
        return Some((words.0.min(marker.x - BARS_PX) - 8, words.1.max(marker.x + MARKER_R) + 8));
    }
    let x = geometry.lane_x(pane.event(event)?.actor);
    Some((x - 40, x + 40))
}

/// The lanes' names, in the header that stays in view.
fn lane_names(pane: &Pane, geometry: &PaneGeometry) -> String {
    let mut svg = String::new();
    for (lane, x) in &geometry.lanes {
        let _ = write!(
            svg,
            r#"<text class="lane-name" x="{x}" y="19" text-anchor="middle">{lane}</text><text class="lane-role" x="{x}" y="36" text-anchor="middle">{}</text>"#,
            lane_title(pane, *lane)
        );
    }
    svg
}

fn lane_title(pane: &Pane, lane: Actor) -> &'static str {
    match lane {
        Actor::Worker(_) => "worker",
        Actor::Store => "store",
        Actor::LockNode(_) if !pane.modelled => "lock service",
        Actor::LockNode(_) => pane.trace.scenario.lock_service.spec().lane,
    }
}

/// What is always drawn: the lanes, and the patterns and arrowheads.
fn lane_lines(geometry: &PaneGeometry, height: i32, id: &str) -> String {
    let mut svg = format!(
        r#"<defs><pattern id="{id}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" class="hatch-bg"/><line x1="0" y1="0" x2="0" y2="6" class="hatch-line"/></pattern>"#
    );
    for kind in ["plain", "bad", "good", "accent"] {
        let _ = write!(
            svg,
            r#"<marker id="{id}-head-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="head-{kind}"/></marker>"#
        );
    }
    svg.push_str("</defs>");
    for (lane, x) in &geometry.lanes {
        let _ = write!(svg, r#"<line class="lane-line" data-lane="{lane}" x1="{x}" x2="{x}" y1="0" y2="{height}"/>"#);
    }
    svg
}

/// Everything the cursor reveals, within the window of heights `(top, bottom)`.
fn draw(pane: &Pane, geometry: &Geometry, index: usize, id: &str, (top, bottom): (i32, i32)) -> String {
    let near = |y: i32| y >= top && y <= bottom;
    let target = &geometry.panes[index];
    let width = geometry.width();
    let mut svg = String::new();
    for gap in geometry.breaks.iter().filter(|gap| near(gap.y)) {
        let _ =
            write!(svg, r#"<rect class="break" x="0" y="{}" width="{width}" height="{}"/>"#, gap.y + 3, crate::race::layout::BREAK_PX - 6);
    }
    for time in geometry.times.iter().filter(|time| near(time.y)) {
        text(&mut svg, "time", time);
    }
    for span in &pane.trace.spans {
        let (y1, y2) = (geometry.y_at(span.start_us), geometry.y_at(span.end_us));
        if y2 < top || y1 > bottom {
            continue;
        }
        let x = target.lane_x(span.worker);
        let (class, left, w, fill) = match span.kind {
            SpanKind::Pause => ("span-pause", x - 6, 12, format!(r#" fill="url(#{id}-hatch)""#)),
            SpanKind::Lease => ("span-lease", x - BARS_PX, 5, String::new()),
            SpanKind::Belief => ("span-belief", x - 20, 5, String::new()),
            SpanKind::ZombieWindow => ("span-zombie", x - 13, 5, String::new()),
        };
        let _ = write!(svg, r#"<rect class="{class}" x="{left}" y="{y1}" width="{w}" height="{}"{fill}/>"#, (y2 - y1).max(2));
    }
    for arrow in target.arrows.iter().filter(|arrow| arrow.line.1 <= bottom && arrow.line.3 >= top) {
        let (class, head) = match arrow.fate {
            Some(Fate::Zombie | Fate::StaleOverwrite) => ("arrow write-zombie", "bad"),
            Some(Fate::Rejected | Fate::RightfulRejected) => ("arrow write-rejected", "good"),
            Some(Fate::Accepted) => ("arrow write-accepted", "accent"),
            Some(Fate::Lost) => ("arrow lost", "plain"),
            None => ("arrow", "plain"),
        };
        let (x1, y1, x2, y2) = arrow.line;
        let _ = write!(svg, r#"<g class="{class}"><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" marker-end="url(#{id}-head-{head})"/>"#);
        text(&mut svg, "label", &arrow.label);
        svg.push_str("</g>");
    }
    for marker in target.markers.iter().filter(|marker| near(marker.y)) {
        let Some(event) = pane.event(marker.event) else { continue };
        let (x, y) = (marker.x, marker.y);
        let _ = write!(
            svg,
            r#"<g class="marker {}" data-kind="{}"><circle cx="{x}" cy="{y}" r="{MARKER_R}"/><text class="glyph" x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            glyphs::class(event),
            glyphs::kind_name(event),
            y + 4,
            glyphs::icon(event)
        );
        if let Some(words) = &marker.words {
            text(&mut svg, "words", words);
        }
        svg.push_str("</g>");
    }
    // Last, so the bars that run through a break never cover its words.
    for gap in geometry.breaks.iter().filter(|gap| near(gap.y)) {
        text(&mut svg, "break-text", &gap.label);
        text(&mut svg, "break-text", &gap.then);
    }
    svg
}

fn text(svg: &mut String, class: &str, label: &Label) {
    let anchor = match label.anchor {
        Anchor::Start => "start",
        Anchor::Middle => "middle",
        Anchor::End => "end",
    };
    let _ = write!(svg, r#"<text class="{class}" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#, label.x, label.y, escape(&label.text));
}
