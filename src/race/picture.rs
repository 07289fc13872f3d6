//! The run's one picture: the main view of the race and of each
//! side-by-side pane. One lane per actor, top to bottom (the lock
//! server(s), the workers, the store), time running left to right to scale,
//! as in Kleppmann's fencing figure. A worker's lane carries its lease (the
//! lock server's view), what it believes, its pause and its zombie window as
//! bars; the events the story turns on are glyphs with a caption in plain
//! words under them (`fencing_sim::caption`), and the messages that carry
//! the story (a grant with its token, a write) are arrows between lanes.
//!
//! It fits its box at every width: positions are computed for the width
//! the page measures, the captions are at the body text's size and find a
//! row of their lane where they overlap nothing (the lane grows taller,
//! never wider), glyphs closer than a glyph in one lane are nudged apart, and a quiet
//! stretch that would squeeze everything else is drawn short and marked.
//! The protocol (`SET … NX PX`) is in each glyph's tooltip (the event's own
//! sentence) and in the details below the picture.
//!
//! `lay_out` is pure (no web types): tested natively, and the browser tests
//! measure the drawn labels with real fonts.

use crate::escape;
use crate::race::glyphs;
pub use crate::race::layout::Rect;
use crate::race::pane::Pane;
use fencing_sim::caption::caption;
use fencing_sim::msg::Msg;
use fencing_sim::worksheet::duration;
use fencing_sim::{Actor, Event, Kind, SpanKind};
use leptos::prelude::*;
use std::fmt::Write;

/// The width assumed before the page has measured the picture (its
/// prerendered first frame, a test): the SVG scales to the real width
/// until then.
pub const WIDTH_UNMEASURED_PX: i32 = 720;
/// The body text's size, assumed until the page has measured it.
pub const FONT_UNMEASURED_PX: i32 = 16;
/// Room left and right of the time axis: a glyph at 0 s or at the end
/// stays whole.
const PAD_PX: i32 = 12;
/// From this width on, the lanes' names stand in a column left of the time
/// axis, level with their lanes (narrower, each name is over its lane).
const NAMES_BESIDE_PX: i32 = 520;
/// Room between a caption and the picture's edge.
const EDGE_PX: i32 = 4;
/// A glyph's radius.
const MARK_R: i32 = 9;
/// Two glyphs in one lane are never drawn closer than this (`nudged`).
const MOMENT_GAP_PX: i32 = 2 * MARK_R + 1;
/// A quiet stretch longer than this share of the run (in percent) is drawn
/// short and marked, so that the rest of the run keeps its room.
const QUIET_PERCENT: u64 = 80;
/// A compressed stretch's width, in percent of the axis.
const QUIET_WIDTH_PERCENT: i32 = 12;
/// A lane's bars: lease above belief, the band's height.
const BAND_PX: i32 = 20;
/// Space between lanes.
const LANE_GAP_PX: i32 = 6;
/// Rows of captions a lane may take before a caption is put where it fits
/// least badly (the tests would then fail): the busiest preset's busiest
/// lane on a phone takes fewer (`labels_fit_and_stand_apart_at_every_width`).
const ROWS_MAX: usize = 24;
/// Horizontal room between two captions in one row.
const CAPTION_GAP_PX: i32 = 10;

/// Where a time lands on the axis: piecewise linear through the run's
/// moments, to scale between them except where compressed.
#[derive(Clone, Debug, PartialEq)]
struct TimeAxis {
    /// (time, x) at every moment, in order of time.
    knots: Vec<(u64, i32)>,
    /// Compressed quiet stretches: from and to (times), drawn short.
    quiet: Vec<(u64, u64)>,
}

impl TimeAxis {
    fn new(moments: &[u64], left_px: i32, right_px: i32) -> TimeAxis {
        let room_px = (right_px - left_px).max(1);
        let gaps_us: Vec<u64> = moments.windows(2).map(|pair| pair[1] - pair[0]).collect();
        let total_us: u64 = gaps_us.iter().sum();
        let quiet: Vec<bool> = gaps_us.iter().map(|gap_us| *gap_us * 100 > total_us * QUIET_PERCENT).collect();
        let quiet_px = room_px * QUIET_WIDTH_PERCENT / 100;
        // A quiet gap is drawn at its fixed width, every other to scale in
        // the room the quiet ones leave.
        let quiet_count = quiet.iter().filter(|quiet| **quiet).count() as i32;
        let free_px = u128::from((room_px - quiet_px * quiet_count).max(0).unsigned_abs());
        let free_us: u64 = gaps_us.iter().zip(&quiet).filter(|(_, quiet)| !**quiet).map(|(gap_us, _)| gap_us).sum();
        let widths_px: Vec<i32> = gaps_us
            .iter()
            .zip(&quiet)
            .map(|(gap_us, quiet)| match (quiet, free_us) {
                (true, _) => quiet_px,
                (false, 0) => 0,
                (false, _) => i32::try_from(u128::from(*gap_us) * free_px / u128::from(free_us)).unwrap_or(i32::MAX),
            })
            .collect();
        let mut knots = Vec::with_capacity(moments.len());
        let mut x = left_px;
        for (index, t_us) in moments.iter().enumerate() {
            knots.push((*t_us, x.min(right_px)));
            if let Some(width_px) = widths_px.get(index) {
                x += width_px;
            }
        }
        let quiet = (0..gaps_us.len()).filter(|gap| quiet[*gap]).map(|gap| (moments[gap], moments[gap + 1])).collect();
        TimeAxis { knots, quiet }
    }

    /// The x of a time (clamped to the run).
    fn x(&self, t_us: u64) -> i32 {
        let Some(first) = self.knots.first() else { return 0 };
        if t_us <= first.0 {
            return first.1;
        }
        for pair in self.knots.windows(2) {
            let ((t0, x0), (t1, x1)) = (pair[0], pair[1]);
            if t_us <= t1 {
                let span_us = (t1 - t0).max(1);
                return x0 + ((i64::from(x1 - x0) * (t_us - t0) as i64) / span_us as i64) as i32;
            }
        }
        self.knots.last().map_or(0, |last| last.1)
    }
}

/// A caption or a name, where it is drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub text: String,
    /// Its box (estimated; the browser measures the real one).
    pub rect: Rect,
    pub class: &'static str,
    /// Shown once the cursor reaches this event (None: always).
    reveal: Reveal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reveal {
    Always,
    /// From this event on.
    Event(u32),
    /// From this time on (a span's end).
    Time(u64),
}

impl Reveal {
    fn shown(self, upto: Option<u32>, now_us: Option<u64>) -> bool {
        match self {
            Reveal::Always => true,
            Reveal::Event(index) => upto.is_some_and(|upto| index <= upto),
            Reveal::Time(t_us) => now_us.is_some_and(|now_us| t_us <= now_us),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Mark {
    index: u32,
    x: i32,
    y: i32,
    glyph: &'static str,
    class: &'static str,
    /// The event's own sentence: the protocol's words, for a tooltip.
    title: String,
}

#[derive(Clone, Debug, PartialEq)]
struct Arrow {
    /// Drawn from the send on; reaches its end at the arrival.
    from_index: u32,
    to_index: u32,
    from: (i32, i32),
    to: (i32, i32),
    class: &'static str,
}

#[derive(Clone, Debug, PartialEq)]
struct Bar {
    start_us: u64,
    end_us: u64,
    y: i32,
    h: i32,
    class: &'static str,
}

/// The whole picture of one run at one width: written once per run and
/// size, revealed at every cursor by `svg`.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub width_px: i32,
    pub height_px: i32,
    pub font_px: i32,
    axis: TimeAxis,
    lanes: Vec<(Actor, i32)>,
    pub labels: Vec<Label>,
    /// Where the time axis starts (right of the names' column, if any).
    axis_left_px: i32,
    marks: Vec<Mark>,
    arrows: Vec<Arrow>,
    bars: Vec<Bar>,
    /// The axis's ticks: x and words.
    ticks: Vec<(i32, String)>,
    axis_y: i32,
    /// Each marked event's x (its slot).
    slot_x: Vec<(u32, i32)>,
}

/// The lanes top to bottom: the lock servers, the workers, the store (the
/// grants flow down to the workers, their writes on down to the store).
fn lane_order(pane: &Pane) -> Vec<Actor> {
    let lanes = pane.lanes();
    let nodes = lanes.iter().filter(|actor| matches!(actor, Actor::LockNode(_)));
    let workers = lanes.iter().filter(|actor| matches!(actor, Actor::Worker(_)));
    nodes.chain(workers).chain(lanes.iter().filter(|actor| **actor == Actor::Store)).copied().collect()
}

/// Whether the picture marks an event: the story's events (never retry
/// chatter) that have a caption, and the grants its arrows start from. (A
/// write's arrow ends at the store's answer; its arrival is not marked.)
fn marked(pane: &Pane, event: &Event) -> bool {
    if !crate::race::overview::in_story(pane, event) {
        return false;
    }
    matches!(event.kind, Kind::Granted { .. } | Kind::Voted { .. }) || caption(event, pane.trace.scenario.lock_service).is_some()
}

/// An estimate of a caption's width at `font_px`, generous so that the
/// real one is never wider: per-letter widths (hundredths of an em) a
/// little above DejaVu Sans's, the widest common sans font (Chromium on
/// Linux: the estimates ran 2–8 % over its measured widths), a tenth more
/// in bold. The browser test measures the real widths.
pub fn text_width_px(text: &str, font_px: i32, bold: bool) -> i32 {
    let units: i32 = text
        .chars()
        .map(|letter| match letter {
            'i' | 'l' | 'j' | '\'' | ',' | '.' | ':' | '(' | ')' | '|' => 30,
            't' | 'f' | 'r' => 42,
            ' ' => 32,
            'm' | 'w' | 'M' | 'W' => 98,
            'A'..='Z' => 72,
            _ => 64,
        })
        .sum();
    let units = if bold { units * 11 / 10 } else { units };
    units * font_px / 100 + 4
}

/// Each marked event's x: its time's, moved right just enough that its
/// glyph stands clear of the one before it in its lane, and that a write's
/// answer or a grant's taking is never left of where its arrow starts;
/// then, where that pushed a lane past the picture's end, moved back left
/// (a burst at the run's last instant). Linear: two passes over the events,
/// the arrows' starts found once through a table by message and holder.
fn nudged(events: &[&Event], axis: &TimeAxis, right_px: i32) -> Vec<(u32, i32)> {
    use std::collections::HashMap;
    // For each event, the position (in `events`) its arrow comes from.
    let mut sends: HashMap<u32, usize> = HashMap::new();
    let mut grants: HashMap<Actor, usize> = HashMap::new();
    let causes: Vec<Option<usize>> = events
        .iter()
        .enumerate()
        .map(|(at, event)| match event.kind {
            Kind::Send { msg, body: Msg::Write(_), .. } => {
                sends.insert(msg, at);
                None
            }
            Kind::Granted { holder, .. } | Kind::Voted { holder } => {
                grants.insert(holder, at);
                None
            }
            Kind::WriteAccepted { msg, .. } | Kind::WriteRejected { msg, .. } => sends.get(&msg).copied(),
            Kind::Acquired { .. } => grants.get(&event.actor).copied(),
            _ => None,
        })
        .collect();
    let mut xs: Vec<i32> = Vec::with_capacity(events.len());
    let mut lane_last: HashMap<Actor, i32> = HashMap::new();
    for (at, event) in events.iter().enumerate() {
        let mut x = axis.x(event.t_us);
        if let Some(before) = lane_last.get(&event.actor) {
            x = x.max(before + MOMENT_GAP_PX);
        }
        if let Some(from) = causes[at] {
            x = x.max(xs[from]);
        }
        lane_last.insert(event.actor, x);
        xs.push(x);
    }
    // Back from the right edge: the last glyphs of a lane move left together,
    // and an arrow's start stays left of its end.
    let mut lane_next: HashMap<Actor, i32> = HashMap::new();
    let mut before_end: Vec<i32> = vec![right_px; events.len()];
    for at in (0..events.len()).rev() {
        let actor = events[at].actor;
        let limit = lane_next.get(&actor).map_or(right_px, |next| next - MOMENT_GAP_PX).min(right_px).min(before_end[at]);
        xs[at] = xs[at].min(limit);
        lane_next.insert(actor, xs[at]);
        if let Some(from) = causes[at] {
            before_end[from] = before_end[from].min(xs[at]);
        }
    }
    events.iter().zip(xs).map(|(event, x)| (event.index, x)).collect()
}

/// A caption as long as the picture has room for: wider than the picture (a
/// ZooKeeper czxid on a phone), it drops its token, which the glyph's
/// tooltip, the verdict and the details still give.
fn fitted(text: String, room_px: i32, font_px: i32, bold: bool) -> String {
    if text_width_px(&text, font_px, bold) <= room_px {
        return text;
    }
    let cut = text.find(" (").or_else(|| text.find(", token ")).unwrap_or(text.len());
    text[..cut].to_string()
}

/// A row of text: the font and a little room above and below.
fn line_px(font_px: i32) -> i32 {
    font_px * 6 / 5 + 1
}

/// Whether labels of this class are drawn bold (style/main.css says so too).
fn bold(class: &str) -> bool {
    matches!(class, "lane-name" | "zombie" | "rejected" | "rightful")
}

/// Lays out the picture of `pane` for a box `width_px` wide whose text is
/// `font_px`.
pub fn lay_out(pane: &Pane, width_px: i32, font_px: i32) -> Picture {
    let service = pane.trace.scenario.lock_service;
    let width_px = width_px.max(160);
    let font_px = font_px.clamp(10, 48);
    let line_px = line_px(font_px);
    let events: Vec<&Event> = pane.trace.events.iter().filter(|event| marked(pane, event)).collect();
    let end_us = pane.trace.events.last().map_or(0, |event| event.t_us);
    // The axis is to scale through every moment (a stretch that would
    // squeeze the rest is compressed); glyphs that would touch in one lane
    // are nudged apart afterwards (`nudged`), so the bars stay to scale.
    let mut moments: Vec<u64> = std::iter::once(0).chain(events.iter().map(|event| event.t_us)).chain([end_us]).collect();
    moments.sort_unstable();
    moments.dedup();
    let order = lane_order(pane);
    let lane_names: Vec<String> = order.iter().map(|actor| pane.lane_name(*actor)).collect();
    let names_beside = width_px >= NAMES_BESIDE_PX;
    let names_px = if names_beside { lane_names.iter().map(|name| text_width_px(name, font_px, true)).max().unwrap_or(0) + 8 } else { 0 };
    let axis = TimeAxis::new(&moments, names_px + PAD_PX, width_px - PAD_PX);
    let slot_x = nudged(&events, &axis, width_px - PAD_PX);
    let x_by_index: std::collections::HashMap<u32, i32> = slot_x.iter().copied().collect();
    let x_of = |event: &Event| x_by_index.get(&event.index).copied().unwrap_or_else(|| axis.x(event.t_us));

    let mut lanes = Vec::with_capacity(order.len());
    let mut labels = Vec::new();
    let mut marks = Vec::new();
    let mut bars = Vec::new();
    let mut top = 4;
    for actor in &order {
        let actor = *actor;
        let name = pane.lane_name(actor);
        // Over the lane, or level with it in the names' column.
        let band_top = if names_beside { top } else { top + line_px + 2 };
        let name_y = if names_beside { band_top + (BAND_PX - line_px) / 2 } else { top };
        labels.push(Label {
            rect: Rect { x: EDGE_PX, y: name_y, w: text_width_px(&name, font_px, true), h: line_px },
            text: name,
            class: "lane-name",
            reveal: Reveal::Always,
        });
        let centre = band_top + BAND_PX / 2;
        lanes.push((actor, centre));
        // Bars: the lease above, the belief (paused, zombie) below.
        for span in pane.trace.spans.iter().filter(|span| span.worker == actor) {
            let (y, h, class) = match span.kind {
                SpanKind::Lease => (band_top, 7, "bar-lease"),
                SpanKind::Belief => (band_top + 10, 10, "bar-belief"),
                SpanKind::Pause => (band_top + 10, 10, "bar-pause"),
                SpanKind::ZombieWindow => (band_top + 8, 14, "bar-zombie"),
            };
            bars.push(Bar { start_us: span.start_us, end_us: span.end_us, y, h, class });
        }
        // Captions, each in the first row of the lane where it fits.
        let mut rows: Vec<Vec<Rect>> = Vec::new();
        let rows_top = band_top + BAND_PX + 2;
        let mut place = |text: String, x: i32, class: &'static str, reveal: Reveal, rows: &mut Vec<Vec<Rect>>| {
            let text = fitted(text, width_px - 2 * EDGE_PX, font_px, bold(class));
            let w = text_width_px(&text, font_px, bold(class));
            // Start at the glyph, or end there, or centre under it; inside the picture.
            let starts = [x - 6, x + 6 - w, x - w / 2].map(|left| left.clamp(EDGE_PX, (width_px - EDGE_PX - w).max(EDGE_PX)));
            let mut chosen = None;
            'rows: for row in 0..ROWS_MAX {
                for left in starts {
                    let rect = Rect { x: left, y: rows_top + line_px * row as i32, w, h: line_px };
                    let padded = Rect { x: rect.x - CAPTION_GAP_PX / 2, w: rect.w + CAPTION_GAP_PX, ..rect };
                    if rows.get(row).is_none_or(|taken| taken.iter().all(|other| !other.intersects(&padded))) {
                        chosen = Some((row, rect));
                        break 'rows;
                    }
                }
            }
            let (row, rect) =
                chosen.unwrap_or((ROWS_MAX - 1, Rect { x: starts[0], y: rows_top + line_px * (ROWS_MAX as i32 - 1), w, h: line_px }));
            while rows.len() <= row {
                rows.push(Vec::new());
            }
            rows[row].push(rect);
            labels.push(Label { text, rect, class, reveal });
        };
        for event in events.iter().filter(|event| event.actor == actor) {
            let x = x_of(event);
            if !matches!(event.kind, Kind::Receive { .. }) {
                marks.push(Mark {
                    index: event.index,
                    x,
                    y: centre,
                    glyph: glyphs::icon(event),
                    class: glyphs::class(event),
                    title: pane.trace.text(event),
                });
            }
            if let Some(words) = caption(event, service) {
                place(words, x, glyphs::class(event), Reveal::Event(event.index), &mut rows);
            }
        }
        // The zombie window says its name and length, once it is over.
        for span in pane.trace.spans.iter().filter(|span| span.worker == actor && span.kind == SpanKind::ZombieWindow) {
            let words = format!("⚠ zombie window, {}", duration((span.end_us - span.start_us) / 1_000));
            place(words, axis.x(span.end_us), "zombie", Reveal::Time(span.end_us), &mut rows);
        }
        top = rows_top + line_px * rows.len() as i32 + LANE_GAP_PX;
    }
    let axis_y = top + 2;
    let ticks = ticks(&axis, end_us, font_px, width_px);
    let height_px = axis_y + 8 + line_px + 4;
    let arrows = arrows(pane, &events, &x_of, &lanes);
    Picture {
        width_px,
        height_px,
        font_px,
        axis,
        lanes,
        labels,
        axis_left_px: names_px + PAD_PX,
        marks,
        arrows,
        bars,
        ticks,
        axis_y,
        slot_x,
    }
}

/// The arrows: each grant to the holder's taking of the lock, each write
/// from its sender to its arrival (or where it was lost).
fn arrows(pane: &Pane, events: &[&Event], x_of: &dyn Fn(&Event) -> i32, lanes: &[(Actor, i32)]) -> Vec<Arrow> {
    let lane_y = |actor: Actor| lanes.iter().find(|(lane, _)| *lane == actor).map(|(_, y)| *y);
    let mut arrows = Vec::new();
    for event in events {
        let (to_index, class) = match event.kind {
            Kind::Send { msg, body: Msg::Write(_), fate, .. } => {
                // To the store's answer to this write, else where it arrived or was lost.
                let answer = events.iter().find(|later| {
                    matches!(later.kind, Kind::WriteAccepted { msg: answered, .. } | Kind::WriteRejected { msg: answered, .. } if answered == msg)
                });
                let arrival = pane.arrivals.get(event.index as usize).copied().flatten();
                let Some(arrival) = answer.map(|answer| answer.index).or(arrival) else { continue };
                let class = match fate {
                    Some(fencing_sim::Fate::Zombie | fencing_sim::Fate::StaleOverwrite) => "arrow-zombie",
                    Some(fencing_sim::Fate::Rejected | fencing_sim::Fate::RightfulRejected) => "arrow-refused",
                    Some(fencing_sim::Fate::Lost) => "arrow-lost",
                    _ => "arrow-write",
                };
                (arrival, class)
            }
            Kind::Granted { holder, .. } | Kind::Voted { holder } => {
                // To the holder's next taking of the lock, if it comes before its next grant.
                let next = events
                    .iter()
                    .find(|later| later.index > event.index && later.actor == holder && matches!(later.kind, Kind::Acquired { .. }));
                let Some(next) = next else { continue };
                (next.index, "arrow-grant")
            }
            _ => continue,
        };
        let Some(to) = pane.event(to_index) else { continue };
        // A write ends on the store's lane, whoever logged its loss.
        let to_lane = if matches!(event.kind, Kind::Send { .. }) { Actor::Store } else { to.actor };
        let (Some(from_y), Some(to_y)) = (lane_y(event.actor), lane_y(to_lane)) else { continue };
        // The line stops at the glyphs' rims.
        let toward = if to_y > from_y { MARK_R } else { -MARK_R };
        arrows.push(Arrow {
            from_index: event.index,
            to_index,
            from: (x_of(event), from_y + toward),
            to: (x_of(to), to_y - toward),
            class,
        });
    }
    arrows
}

/// Ticks at a round interval, never inside a compressed stretch, each
/// label clear of the last; a compressed stretch is marked with its length.
fn ticks(axis: &TimeAxis, end_us: u64, font_px: i32, width_px: i32) -> Vec<(i32, String)> {
    let end_ms = end_us / 1_000;
    let steps = (0..10).flat_map(|power| [1u64, 2, 5].map(|digit| digit * 10u64.pow(power)));
    let step_ms = steps.into_iter().find(|step_ms| end_ms / step_ms <= 5).unwrap_or(10u64.pow(10)).max(1);
    let mut ticks: Vec<(i32, String)> = Vec::new();
    let mut right_px = i32::MIN;
    let mut quiet_marks = axis
        .quiet
        .iter()
        .map(|(from, to)| (axis.x(*from) + (axis.x(*to) - axis.x(*from)) / 2, format!("≈ {} later", duration((to - from) / 1_000))));
    let quiet: Vec<(i32, String)> = quiet_marks.by_ref().collect();
    for tick_ms in (0..=end_ms).step_by(step_ms as usize).take(12) {
        let t_us = tick_ms * 1_000;
        if axis.quiet.iter().any(|(from, to)| *from < t_us && t_us < *to) {
            continue;
        }
        let words = if tick_ms == 0 { "0 s".to_string() } else { duration(tick_ms) };
        let x = axis.x(t_us);
        let w = text_width_px(&words, font_px, false);
        let left = (x - w / 2).clamp(0, width_px - w);
        let clear_of_quiet = quiet.iter().all(|(qx, qwords)| {
            let qw = text_width_px(qwords, font_px, false);
            left + w + CAPTION_GAP_PX <= qx - qw / 2 || qx + qw / 2 + CAPTION_GAP_PX <= left
        });
        if left >= right_px + CAPTION_GAP_PX && clear_of_quiet {
            ticks.push((x, words));
            right_px = left + w;
        }
    }
    ticks.extend(quiet);
    ticks
}

impl Picture {
    /// The cursor's x.
    pub fn x_at(&self, t_us: u64) -> i32 {
        self.axis.x(t_us)
    }

    /// The boxes of every tick label, as drawn (for tests).
    pub fn tick_rects(&self) -> Vec<Rect> {
        let line_px = line_px(self.font_px);
        self.ticks
            .iter()
            .map(|(x, words)| {
                let w = text_width_px(words, self.font_px, false);
                Rect { x: (x - w / 2).clamp(0, self.width_px - w), y: self.axis_y + 8, w, h: line_px }
            })
            .collect()
    }

    /// The picture's SVG body revealed up to event `upto` at time `now_us`
    /// (nothing of the run before the first event: the lanes and the axis
    /// only).
    pub fn svg(&self, upto: Option<u32>, now_us: Option<u64>, id: &str) -> String {
        let mut svg = String::with_capacity(8_192);
        let _ = write!(
            svg,
            r#"<defs><pattern id="{id}-pic-zombie" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" class="zombie-bg"/><line x1="0" y1="0" x2="0" y2="6" class="zombie-line"/></pattern><pattern id="{id}-pic-pause" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="6" height="6" class="pause-bg"/><line x1="0" y1="0" x2="0" y2="6" class="pause-line"/></pattern><marker id="{id}-pic-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="context-stroke"/></marker></defs>"#
        );
        let (left, right) = (self.axis_left_px, self.width_px - PAD_PX);
        // Lane rules first (under everything).
        for (_, y) in &self.lanes {
            let _ = write!(svg, r#"<line class="lane-rule" x1="{left}" x2="{right}" y1="{y}" y2="{y}"/>"#);
        }
        // Compressed stretches: a break across every lane.
        for (from, to) in &self.axis.quiet {
            let x = (self.axis.x(*from) + self.axis.x(*to)) / 2;
            let _ = write!(svg, r#"<path class="quiet-break" d="M{} 0 l6 6 l-6 6 l6 6 V{}"/>"#, x - 3, self.axis_y);
        }
        // The cursor stands at the slot of the last event shown at its
        // instant (events at one instant stand side by side).
        let now_x = now_us.map(|t_us| {
            let at_slot = self.slot_x.iter().rfind(|(index, _)| upto.is_some_and(|upto| *index <= upto));
            let at_instant = at_slot.filter(|(_, x)| *x >= self.axis.x(t_us)).map(|(_, x)| *x);
            at_instant.unwrap_or_else(|| self.axis.x(t_us))
        });
        for bar in &self.bars {
            let Some(now_us) = now_us else { break };
            if bar.start_us > now_us {
                continue;
            }
            let x0 = self.axis.x(bar.start_us);
            let x1 = self.axis.x(bar.end_us.min(now_us)).max(x0 + 2);
            let fill = match bar.class {
                "bar-zombie" => format!(r#" fill="url(#{id}-pic-zombie)""#),
                "bar-pause" => format!(r#" fill="url(#{id}-pic-pause)""#),
                _ => String::new(),
            };
            let _ = write!(svg, r#"<rect class="{}" x="{x0}" y="{}" width="{}" height="{}"{fill}/>"#, bar.class, bar.y, x1 - x0, bar.h);
        }
        for arrow in &self.arrows {
            if upto.is_none_or(|upto| arrow.from_index > upto) {
                continue;
            }
            // In flight: drawn as far as the cursor has gone.
            let arrived = upto.is_some_and(|upto| arrow.to_index <= upto);
            let (x2, y2) = if arrived {
                arrow.to
            } else {
                let span = (arrow.to.0 - arrow.from.0).max(1);
                let done = (now_x.unwrap_or(arrow.from.0) - arrow.from.0).clamp(0, span);
                (arrow.from.0 + done, arrow.from.1 + (arrow.to.1 - arrow.from.1) * done / span)
            };
            let head = if arrived { format!(r#" marker-end="url(#{id}-pic-head)""#) } else { String::new() };
            let _ = write!(svg, r#"<line class="{}" x1="{}" y1="{}" x2="{x2}" y2="{y2}"{head}/>"#, arrow.class, arrow.from.0, arrow.from.1);
        }
        // The current mark: the last one shown (the cursor may rest on an
        // event the picture does not mark, such as a release).
        let current_index = self.marks.iter().map(|mark| mark.index).filter(|index| upto.is_some_and(|upto| *index <= upto)).max();
        for mark in &self.marks {
            if upto.is_none_or(|upto| mark.index > upto) {
                continue;
            }
            let current = if current_index == Some(mark.index) { " current" } else { "" };
            let _ = write!(
                svg,
                r#"<g class="pic-mark {}{current}" data-index="{}"><title>{}</title><circle cx="{}" cy="{}" r="{MARK_R}"/><text x="{}" y="{}" text-anchor="middle">{}</text></g>"#,
                mark.class,
                mark.index,
                escape(&mark.title),
                mark.x,
                mark.y,
                mark.x,
                mark.y + 4,
                mark.glyph
            );
        }
        let baseline = |rect: &Rect| rect.y + rect.h - (rect.h - self.font_px) / 2 - 3;
        for label in &self.labels {
            if !label.reveal.shown(upto, now_us) {
                continue;
            }
            let _ = write!(
                svg,
                r#"<text class="pic-label {}" x="{}" y="{}">{}</text>"#,
                label.class,
                label.rect.x + 2,
                baseline(&label.rect),
                escape(&label.text)
            );
        }
        let _ = write!(svg, r#"<line class="pic-axis" x1="{left}" x2="{right}" y1="{y}" y2="{y}"/>"#, y = self.axis_y);
        for ((x, words), rect) in self.ticks.iter().zip(self.tick_rects()) {
            let _ = write!(
                svg,
                r#"<line class="pic-axis" x1="{x}" x2="{x}" y1="{}" y2="{}"/><text class="pic-tick" x="{}" y="{}">{}</text>"#,
                self.axis_y,
                self.axis_y + 5,
                rect.x + 2,
                baseline(&rect),
                escape(words)
            );
        }
        if let Some(x) = now_x {
            let _ = write!(svg, r#"<line class="pic-cursor" x1="{x}" x2="{x}" y1="0" y2="{}"/>"#, self.axis_y);
        }
        svg
    }
}

/// The picture of one run, revealed up to `upto`, laid out for the width and
/// text size its box has (measured on mount, on resize and when the layout
/// changes, as projector mode does).
#[component]
pub fn OnePicture(
    pane: Memo<Pane>,
    /// The last event revealed; None before the first.
    upto: Signal<Option<u32>>,
    /// Distinguishes this picture's SVG ids from a neighbour's.
    id: &'static str,
    /// Which run this is, for a screen reader ("the left-hand run").
    #[prop(optional)]
    name: &'static str,
) -> impl IntoView {
    let size = RwSignal::new((WIDTH_UNMEASURED_PX, FONT_UNMEASURED_PX));
    let picture = Memo::new(move |_| {
        let (width_px, font_px) = size.get();
        pane.with(|pane| lay_out(pane, width_px, font_px))
    });
    let now_us = Signal::derive(move || upto.get().and_then(|index| pane.with(|pane| pane.event(index).map(|event| event.t_us))));
    let body = move || picture.with(|picture| picture.svg(upto.get(), now_us.get(), id));
    let view_box = move || picture.with(|picture| format!("0 0 {} {}", picture.width_px, picture.height_px));
    let width = move || picture.with(|picture| picture.width_px.to_string());
    let height = move || picture.with(|picture| picture.height_px.to_string());
    let host = NodeRef::<leptos::html::Div>::new();
    measure(host, size);
    let label = format!(
        "The run{name}, drawn to scale: a lane for each lock server, each worker and the store; bars for leases, pauses and zombie windows; arrows for grants and writes. Every step is listed in the details below."
    );
    view! {
        <div class="picture" node_ref=host data-testid=format!("{id}-picture")>
            <svg class="picture-svg" width=width height=height viewBox=view_box role="img" aria-label=label inner_html=body></svg>
            <p class="legend picture-key" inner_html=legend(id)></p>
        </div>
    }
}

/// The picture's key: each bar and each arrow, colour and shape, its terms
/// defined on hover and focus.
fn legend(id: &str) -> String {
    let term = |words: &str, term: &str| crate::shell::term::markup(words, term, &format!("{id}-key"));
    format!(
        r#"<span class="key lease">{}: the lock server says the worker holds the lock</span><span class="key belief">the worker believes it holds the lock</span><span class="key pause">‖ frozen (paused)</span><span class="key zombie">⚠ {}: believes it holds the lock, but does not</span><span class="key-arrow grant">◆ the {} grants the lock, with a {}</span><span class="key-arrow zombie">☠ a {} the store took</span>"#,
        term("lease", "lease"),
        term("zombie window", "zombie window"),
        term("lock server", "lock server"),
        term("fencing token", "fencing token"),
        term("zombie write", "zombie write"),
    )
}

/// Gives the layout the width and the text size the picture has.
fn measure(host: NodeRef<leptos::html::Div>, size: RwSignal<(i32, i32)>) {
    crate::shell::browser::after_layout(host, move |element| {
        // A hidden picture (a folded pane) has no width to give.
        let width_px = element.client_width();
        let font_px = crate::shell::browser::font_px(element).unwrap_or(FONT_UNMEASURED_PX);
        if width_px > 0 && size.try_get_untracked() != Some((width_px, font_px)) {
            size.set((width_px, font_px));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_sim::{presets, Scenario};

    fn classic(fencing: bool) -> Pane {
        Pane::run(&Scenario { fencing, ..presets::classic() })
    }

    /// Every label inside the picture and clear of every other one, at
    /// every width the issue names and for every preset.
    #[test]
    fn labels_fit_and_stand_apart_at_every_width() {
        for preset in presets::PRESETS {
            for fencing in [false, true] {
                let pane = Pane::run(&Scenario { fencing, ..presets::build(preset.id).expect("a preset") });
                for width_px in [300, 330, 360, 390, 768, 900, 1024, 1280, 1920] {
                    // Larger text on the wide screens it is used on; projector mode's
                    // (20.5 px on screen over its zoom: 10 to 14 px) from a pane's width.
                    let fonts: &[i32] = match width_px {
                        900.. => &[10, 14, 16, 22],
                        600.. => &[10, 14, 16],
                        _ => &[16],
                    };
                    for &font_px in fonts {
                        let picture = lay_out(&pane, width_px, font_px);
                        let mut boxes: Vec<(&str, Rect)> = picture.labels.iter().map(|label| (label.text.as_str(), label.rect)).collect();
                        boxes.extend(picture.tick_rects().into_iter().map(|rect| ("tick", rect)));
                        for (text, rect) in &boxes {
                            assert!(
                                rect.x >= 0 && rect.x + rect.w <= width_px,
                                "{} at {width_px} px: {text:?} leaves the picture: {rect:?}",
                                preset.id
                            );
                            assert!(rect.y + rect.h <= picture.height_px, "{}: {text:?} below the picture", preset.id);
                        }
                        for (a, (text_a, rect_a)) in boxes.iter().enumerate() {
                            for (text_b, rect_b) in &boxes[a + 1..] {
                                assert!(
                                    !rect_a.intersects(rect_b),
                                    "{} fencing {fencing} at {width_px} px, {font_px} px: {text_a:?} overlaps {text_b:?}",
                                    preset.id
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// The classic run to scale: the lease (10 s) takes two thirds of the
    /// 15 s pause's width, and the zombie window is named with its length.
    #[test]
    fn the_classic_run_is_drawn_to_scale() {
        for (width_px, least_percent) in [(1000, 62), (390, 56), (330, 54)] {
            let picture = lay_out(&classic(false), width_px, 16);
            let (x0, x10, x15) = (picture.x_at(0), picture.x_at(10_000_000), picture.x_at(15_000_000));
            let ratio_percent = (x10 - x0) * 100 / (x15 - x0);
            assert!((least_percent..=72).contains(&ratio_percent), "at {width_px} px, 10 s is {ratio_percent}% of 15 s");
        }
        let picture = lay_out(&classic(false), 1000, 16);
        assert!(picture.labels.iter().any(|label| label.text == "⚠ zombie window, 5 s"), "{:?}", picture.labels);
        assert!(picture.axis.quiet.is_empty(), "the classic run has no stretch to compress");
    }

    /// Before the first event the lanes and the axis are drawn, nothing of the run.
    #[test]
    fn the_lanes_are_there_from_the_first_frame() {
        let picture = lay_out(&classic(false), 390, 16);
        let svg = picture.svg(None, None, "t");
        for name in ["Worker A", "Worker B", "Lock server (Redis)", "Store"] {
            assert!(picture.labels.iter().any(|label| label.text == name), "{name} missing");
        }
        assert!(!svg.contains("pic-mark"), "no event before the first");
        assert!(svg.contains("lane-rule"));
        let whole = picture.svg(Some(u32::MAX), Some(u64::MAX), "t");
        assert!(
            whole.contains("arrow-zombie") && whole.contains("takes A&#39;s old write (33)") || whole.contains("takes A's old write (33)"),
            "{whole}"
        );
    }

    /// A run whose quiet stretch dwarfs the rest keeps room for the rest.
    #[test]
    fn a_long_quiet_stretch_is_compressed_and_marked() {
        let axis = TimeAxis::new(&[0, 1_000, 2_000, 100_000_000, 100_001_000], 0, 1000);
        assert_eq!(axis.quiet, vec![(2_000, 100_000_000)]);
        assert!(axis.x(2_000) >= 400, "the busy start keeps its room: {}", axis.x(2_000));
        let scale = TimeAxis::new(&[0, 1, 2, 15_000_000], 0, 300);
        assert_eq!(scale.x(15_000_000), 300);
    }

    /// Glyphs at one instant in one lane stand a glyph apart (nudged), and
    /// none leaves the axis, at a phone's width.
    #[test]
    fn glyphs_in_one_lane_stand_apart() {
        for fencing in [false, true] {
            let picture = lay_out(&classic(fencing), 330, 16);
            for (_, y) in &picture.lanes {
                let mut xs: Vec<i32> = picture.marks.iter().filter(|mark| mark.y == *y).map(|mark| mark.x).collect();
                xs.sort_unstable();
                for pair in xs.windows(2) {
                    assert!(pair[1] - pair[0] >= MOMENT_GAP_PX, "fencing {fencing}: glyphs at {pair:?} touch");
                }
                assert!(xs.iter().all(|x| (picture.axis_left_px..=330 - PAD_PX).contains(x)), "{xs:?}");
            }
        }
    }
}
