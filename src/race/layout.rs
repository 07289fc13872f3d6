//! Where everything goes in the sequence diagram, computed once per run (or
//! pair of runs) so that drawing is only writing it down.
//!
//! - One row per visible event; the rows of two runs are shared by time, so
//!   side by side lines up row for row (identical events sit on the same row).
//! - Quiet stretches (a 15 s pause) become a marked break.
//! - Every label is placed where it overlaps no other label, no marker and no
//!   arrow, inside the picture. Text widths are estimated generously; when no
//!   place fits, its row gets more room and the layout runs again (bounded).
//!   The browser tests measure the result with real fonts.

use crate::race::glyphs;
use crate::race::pane::Pane;
use fencing_sim::{format_us, Actor, Event, Fate, Kind};

/// Horizontal distance between two lanes, where there is room for it.
pub const LANE_GAP_PX: i32 = 150;
/// The narrowest distance between lanes (a phone): a lane's bars, its
/// marker and a neighbour's bars still stand apart; labels find room by
/// taking more rows.
pub const LANE_GAP_MIN_PX: i32 = 64;
/// The room assumed before the page has measured it: the usual lanes.
pub const ROOM_UNMEASURED_PX: i32 = i32::MAX / 2;
/// The time column, left of the first lane.
pub const LEFT_PX: i32 = 84;
pub const ROW_PX: i32 = 30;
pub const BREAK_PX: i32 = 36;
/// Space above the first row.
pub const TOP_PX: i32 = 14;
/// Every text in the diagram is at least this size (CSS sets the same).
pub const FONT_PX: i32 = 12;
const LABEL_H: i32 = 16;
pub const MARKER_R: i32 = 9;
/// The bars (lease, belief, zombie window) run this far left of a lane.
pub const BARS_PX: i32 = 27;
/// Gaps at least this long are drawn as a break.
pub const BREAK_US: u64 = 100_000;
/// Relayouts with more room before giving up on a label (it is then drawn
/// where it fits least badly, and the browser test would say so).
const PASSES_MAX: usize = 6;
/// How much wider the lanes get at each try, where labels found no room.
const WIDEN_STEP_PX: i32 = 16;
/// Obstacles are filed by this many pixels of height, to keep checks local.
const BUCKET_PX: i32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Rect {
    pub fn intersects(&self, other: &Rect) -> bool {
        self.x < other.x + other.w && other.x < self.x + self.w && self.y < other.y + other.h && other.y < self.y + self.h
    }

    /// Whether the segment from (x1, y1) to (x2, y2) passes through the rectangle.
    fn crossed_by(&self, (x1, y1, x2, y2): (i32, i32, i32, i32)) -> bool {
        // Liang–Barsky clipping, in floating point over a few pixels.
        let (dx, dy) = (f64::from(x2 - x1), f64::from(y2 - y1));
        let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
        let edges = [
            (-dx, f64::from(x1 - self.x)),
            (dx, f64::from(self.x + self.w - x1)),
            (-dy, f64::from(y1 - self.y)),
            (dy, f64::from(self.y + self.h - y1)),
        ];
        for (p, q) in edges {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub x: i32,
    /// The text's baseline.
    pub y: i32,
    pub anchor: Anchor,
    pub text: String,
    pub bold: bool,
    pub rect: Rect,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    pub send: u32,
    pub arrival: u32,
    pub line: (i32, i32, i32, i32),
    pub fate: Option<Fate>,
    pub label: Label,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub event: u32,
    pub x: i32,
    pub y: i32,
    pub words: Option<Label>,
}

/// A quiet stretch, drawn as a band with its length ("⋯ 4.127 s", then "later").
#[derive(Clone, Debug, PartialEq)]
pub struct Break {
    pub y: i32,
    pub label: Label,
    pub then: Label,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PaneGeometry {
    pub lanes: Vec<(Actor, i32)>,
    pub width: i32,
    /// The row of each event (by index), if it is drawn.
    pub row_of: Vec<Option<u32>>,
    pub arrows: Vec<Arrow>,
    pub markers: Vec<Marker>,
}

impl PaneGeometry {
    pub fn lane_x(&self, actor: Actor) -> i32 {
        self.lanes.iter().find(|(lane, _)| *lane == actor).map_or(LEFT_PX, |(_, x)| *x)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Geometry {
    /// Centre line of each row.
    pub row_y: Vec<i32>,
    pub breaks: Vec<Break>,
    /// The time of each group of rows, at its first row.
    pub times: Vec<Label>,
    pub panes: Vec<PaneGeometry>,
    pub height: i32,
    /// (time, y): where each moment sits, for spans between events.
    knots: Vec<(u64, i32)>,
}

impl Geometry {
    /// The height of any moment: exact at an event, interpolated between.
    pub fn y_at(&self, t_us: u64) -> i32 {
        let after = self.knots.partition_point(|(knot_us, _)| *knot_us <= t_us);
        match (after.checked_sub(1).map(|index| self.knots[index]), self.knots.get(after)) {
            (Some((t0, y0)), Some(&(t1, y1))) => y0 + ((i64::from(y1 - y0) * (t_us - t0) as i64) / (t1 - t0).max(1) as i64) as i32,
            (Some((_, y0)), None) => y0,
            (None, Some(&(_, y1))) => y1,
            (None, None) => TOP_PX,
        }
    }

    /// The bottom of the row of `event` in pane `pane`: what the cursor reveals.
    pub fn reveal_y(&self, pane: usize, event: Option<u32>) -> i32 {
        let row = event.and_then(|event| self.panes.get(pane)?.row_of.get(event as usize).copied().flatten());
        row.map_or(0, |row| self.row_y[row as usize] + ROW_PX / 2)
    }

    /// The widest pane, for lining panes up.
    pub fn width(&self) -> i32 {
        self.panes.iter().map(|pane| pane.width).max().unwrap_or(LEFT_PX)
    }
}

/// The lane distance that fits `room_px` (the width the diagram is shown
/// in) across the widest pane's lanes, between the narrowest and the usual.
pub fn lane_gap_for(room_px: i32, lanes: usize) -> i32 {
    ((room_px - LEFT_PX) / (lanes.max(1) as i32)).clamp(LANE_GAP_MIN_PX, LANE_GAP_PX)
}

/// Lays out one or more runs over shared rows, their lanes narrowed to fit
/// `room_px` where they can be: where a run's labels find no room between
/// narrow lanes (eight Redlock lanes' fan of requests), the lanes widen in
/// steps until every label fits, up to the usual distance.
pub fn layout(panes: &[(&Pane, &[bool])], room_px: i32) -> Geometry {
    let mut rows = Rows::new(panes);
    let narrowest = lane_gap_for(room_px, rows.lanes.iter().map(Vec::len).max().unwrap_or(1));
    let mut geometry = Geometry::default();
    for lane_gap_px in (narrowest..LANE_GAP_PX).step_by(WIDEN_STEP_PX as usize).chain([LANE_GAP_PX]) {
        rows.lane_gap_px = lane_gap_px;
        let fitted;
        (geometry, fitted) = place_all(&rows, panes);
        if fitted {
            break;
        }
    }
    geometry
}

/// Rows and labels at the rows' lane distance, giving crowded rows more
/// room until every label fits (bounded); whether they all did.
fn place_all(rows: &Rows, panes: &[(&Pane, &[bool])]) -> (Geometry, bool) {
    let mut extra = vec![0; rows.count];
    let mut pass = 1;
    loop {
        let last = pass >= PASSES_MAX;
        let mut geometry = rows.place(&extra);
        let mut crowded = Vec::new();
        for (index, (pane, visible)) in panes.iter().enumerate() {
            crowded.extend(place_labels(&mut geometry, index, pane, visible, last));
        }
        if crowded.is_empty() || last {
            return (geometry, crowded.is_empty());
        }
        for row in crowded {
            extra[row as usize] += LABEL_H + 4;
        }
        pass += 1;
    }
}

/// The rows: which visible event of which pane sits on which row.
struct Rows {
    count: usize,
    /// Per pane, per event index: its row.
    row_of: Vec<Vec<Option<u32>>>,
    /// Per row: the time of its group, whether it opens a group, and
    /// whether a break comes before it.
    rows: Vec<(u64, bool, Option<u64>)>,
    lanes: Vec<Vec<Actor>>,
    lane_gap_px: i32,
}

impl Rows {
    fn new(panes: &[(&Pane, &[bool])]) -> Rows {
        let shown: Vec<Vec<&Event>> = panes
            .iter()
            .map(|(pane, visible)| pane.trace.events.iter().filter(|event| visible.get(event.index as usize) == Some(&true)).collect())
            .collect();
        let mut row_of: Vec<Vec<Option<u32>>> = panes.iter().map(|(pane, _)| vec![None; pane.trace.events.len()]).collect();
        let mut rows = Vec::new();
        let mut next = vec![0usize; panes.len()];
        let mut previous_us: Option<u64> = None;
        // Each round takes the earliest time left in any pane: one group.
        while let Some(t_us) = shown.iter().zip(&next).filter_map(|(events, at)| events.get(*at).map(|event| event.t_us)).min() {
            let base = rows.len();
            let mut group_rows = 0;
            for (pane, events) in shown.iter().enumerate() {
                let mut offset = 0;
                while let Some(event) = events.get(next[pane]).filter(|event| event.t_us == t_us) {
                    row_of[pane][event.index as usize] = Some((base + offset) as u32);
                    offset += 1;
                    next[pane] += 1;
                }
                group_rows = group_rows.max(offset);
            }
            let gap = previous_us.map(|previous| t_us - previous).filter(|gap| *gap >= BREAK_US);
            for offset in 0..group_rows {
                rows.push((t_us, offset == 0, if offset == 0 { gap } else { None }));
            }
            previous_us = Some(t_us);
        }
        let lanes = panes.iter().map(|(pane, _)| pane.lanes()).collect();
        Rows { count: rows.len(), row_of, rows, lanes, lane_gap_px: LANE_GAP_PX }
    }

    /// Row positions, breaks, times and lanes, with `extra` room above rows.
    fn place(&self, extra: &[i32]) -> Geometry {
        let mut geometry = Geometry::default();
        let mut y = TOP_PX;
        for (row, (t_us, opens, gap)) in self.rows.iter().enumerate() {
            if let Some(gap_us) = gap {
                // In the time column, on two lines, so that no worker's
                // lease or pause runs under the words at any lane distance.
                let label = label_at(LEFT_PX - 6, y + 14, Anchor::End, format!("⋯ {}", format_us(*gap_us)), false);
                let then = label_at(LEFT_PX - 6, y + 30, Anchor::End, "later".to_string(), false);
                geometry.breaks.push(Break { y, label, then });
                y += BREAK_PX;
            }
            y += extra[row];
            let centre = y + ROW_PX / 2;
            geometry.row_y.push(centre);
            if *opens {
                geometry.knots.push((*t_us, centre));
                geometry.times.push(label_at(LEFT_PX - 10, centre + 4, Anchor::End, format_us(*t_us), false));
            }
            y += ROW_PX;
        }
        geometry.height = y + TOP_PX;
        geometry.panes = self
            .lanes
            .iter()
            .zip(&self.row_of)
            .map(|(lanes, row_of)| {
                let lanes: Vec<(Actor, i32)> = lanes
                    .iter()
                    .enumerate()
                    .map(|(index, actor)| (*actor, LEFT_PX + self.lane_gap_px * index as i32 + self.lane_gap_px / 2))
                    .collect();
                let width = LEFT_PX + self.lane_gap_px * lanes.len() as i32;
                PaneGeometry { lanes, width, row_of: row_of.clone(), arrows: Vec::new(), markers: Vec::new() }
            })
            .collect();
        geometry
    }
}

/// A label's box from its anchor point, with a generous width for its text.
fn label_at(x: i32, baseline: i32, anchor: Anchor, text: String, bold: bool) -> Label {
    let w = text_width(&text, bold);
    let left = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2,
        Anchor::End => x - w,
    };
    let rect = Rect { x: left - 2, y: baseline - FONT_PX - 1, w: w + 4, h: LABEL_H };
    Label { x, y: baseline, anchor, text, bold, rect }
}

/// An upper bound on the text's width at 12 px in common system fonts.
pub fn text_width(text: &str, bold: bool) -> i32 {
    let per_char_tenths = if bold { 80 } else { 73 };
    let chars = text.chars().count() as i32;
    (chars * per_char_tenths + 9) / 10
}

/// A straight line: (x1, y1, x2, y2).
type Line = (i32, i32, i32, i32);

/// What a label must not touch: boxes, and lines (its own arrow's included).
#[derive(Default)]
struct Obstacles {
    boxes: Vec<Vec<Rect>>,
    lines: Vec<Vec<Line>>,
}

impl Obstacles {
    fn buckets(y: i32, h: i32) -> std::ops::RangeInclusive<usize> {
        (y.max(0) / BUCKET_PX) as usize..=((y + h).max(0) / BUCKET_PX) as usize
    }

    fn grow(&mut self, bucket: usize) {
        if self.boxes.len() <= bucket {
            self.boxes.resize(bucket + 1, Vec::new());
            self.lines.resize(bucket + 1, Vec::new());
        }
    }

    fn add_box(&mut self, rect: Rect) {
        for bucket in Obstacles::buckets(rect.y, rect.h) {
            self.grow(bucket);
            self.boxes[bucket].push(rect);
        }
    }

    fn add_line(&mut self, line: Line) {
        let (top, bottom) = (line.1.min(line.3), line.1.max(line.3));
        for bucket in Obstacles::buckets(top, bottom - top) {
            self.grow(bucket);
            self.lines[bucket].push(line);
        }
    }

    fn free(&self, rect: &Rect) -> bool {
        Obstacles::buckets(rect.y, rect.h).all(|bucket| {
            let boxes = self.boxes.get(bucket).map_or(&[][..], Vec::as_slice);
            let lines = self.lines.get(bucket).map_or(&[][..], Vec::as_slice);
            !boxes.iter().any(|other| other.intersects(rect)) && !lines.iter().any(|line| rect.crossed_by(*line))
        })
    }
}

/// Places pane `index`'s markers, arrows and labels on `geometry`; returns
/// the rows that need more room.
fn place_labels(geometry: &mut Geometry, index: usize, pane: &Pane, visible: &[bool], last_pass: bool) -> Vec<u32> {
    let mut obstacles = Obstacles::default();
    for label in
        geometry.times.iter().map(|time| &time.rect).chain(geometry.breaks.iter().flat_map(|gap| [&gap.label.rect, &gap.then.rect]))
    {
        obstacles.add_box(*label);
    }
    let row_y = geometry.row_y.clone();
    let target = &mut geometry.panes[index];
    let y_of = |event: u32| target.row_of[event as usize].map(|row| row_y[row as usize]);
    let shown = |event: &&Event| visible.get(event.index as usize) == Some(&true);
    // Arrows first: their lines are obstacles for every label.
    let mut arrows = Vec::new();
    for send in pane.trace.events.iter().filter(shown).filter(|event| matches!(event.kind, Kind::Send { .. })) {
        let Some(arrival) = pane.arrivals[send.index as usize] else { continue };
        let (Some(y1), Some(y2)) = (y_of(send.index), y_of(arrival)) else { continue };
        let Kind::Send { to, .. } = send.kind else { continue };
        let line = (target.lane_x(send.actor), y1, target.lane_x(to), y2);
        obstacles.add_line(line);
        arrows.push((send, arrival, line));
    }
    let mut markers = Vec::new();
    let service = pane.trace.scenario.lock_service;
    for event in pane.trace.events.iter().filter(shown) {
        if glyphs::short(event, service).is_some() {
            let (x, y) = (target.lane_x(event.actor), y_of(event.index).unwrap_or(TOP_PX));
            obstacles.add_box(Rect { x: x - MARKER_R, y: y - MARKER_R, w: 2 * MARKER_R, h: 2 * MARKER_R });
            markers.push((event, x, y));
        }
    }
    let last_lane = target.lanes.last().map(|(actor, _)| *actor);
    let mut crowded = Vec::new();
    let lanes_px = target.width;
    let mut right_edge = target.width;
    for (event, x, y) in markers {
        let words = glyphs::short(event, service).unwrap_or_default();
        let bold = matches!(glyphs::class(event), "zombie" | "rejected");
        let right = label_at(x + MARKER_R + 5, y + 4, Anchor::Start, words.clone(), bold);
        // Left of the lane, clear of the lease, belief and zombie bars drawn there.
        let left = label_at(x - BARS_PX - 4, y + 4, Anchor::End, words.clone(), bold);
        // The last lane's words go left, or above the marker (its row then gets the room).
        let above = label_at(x + MARKER_R, y - MARKER_R - 4, Anchor::End, words, bold);
        let candidates = if Some(event.actor) == last_lane { vec![left, above, right] } else { vec![right, left] };
        let placed = choose(&candidates, &mut obstacles, last_pass, lanes_px);
        if placed.is_none() {
            note_crowded(&mut crowded, target.row_of[event.index as usize]);
        }
        let words = placed.unwrap_or_else(|| fallback(&candidates, lanes_px).clone());
        right_edge = right_edge.max(words.rect.x + words.rect.w + 4);
        target.markers.push(Marker { event: event.index, x, y, words: Some(words) });
    }
    for (send, arrival, line) in arrows {
        let lost = matches!(pane.trace.events[arrival as usize].kind, Kind::Lost { .. });
        let Kind::Send { body, fate, .. } = send.kind else { continue };
        let mut text = pane.trace.scenario.lock_service.label_of(&body);
        if lost {
            text.push_str(" ✗ lost");
        }
        let bold = matches!(fate, Some(Fate::Zombie | Fate::StaleOverwrite | Fate::Rejected | Fate::RightfulRejected));
        let candidates = arrow_candidates(line, &text, bold);
        let placed = choose(&candidates, &mut obstacles, last_pass, lanes_px);
        if placed.is_none() {
            note_crowded(&mut crowded, target.row_of[arrival as usize]);
        }
        let label = placed.unwrap_or_else(|| fallback(&candidates, lanes_px).clone());
        right_edge = right_edge.max(label.rect.x + label.rect.w + 4);
        target.arrows.push(Arrow { send: send.index, arrival, line, fate, label });
    }
    target.width = right_edge;
    crowded
}

/// Notes a row whose label found no room, keeping the list sorted and
/// without repeats as it grows (rows mostly arrive in order, so this is an
/// append; and the first load carries no sort for it).
fn note_crowded(crowded: &mut Vec<u32>, row: Option<u32>) {
    let Some(row) = row else { return };
    if let Err(at) = crowded.binary_search(&row) {
        crowded.insert(at, row);
    }
}

/// Places of an arrow's label, best first: just above its middle, just
/// below it, then near either end, then further out. "Just above" means clear
/// of the line over the label's whole width, however steep the arrow.
fn arrow_candidates(line: Line, text: &str, bold: bool) -> Vec<Label> {
    let (x1, _, x2, _) = line;
    let mx = (x1 + x2) / 2;
    let rightward = x2 >= x1;
    let (start_x, end_x) = if rightward { (x1 + 14, x2 - 14) } else { (x1 - 14, x2 + 14) };
    let (start_anchor, end_anchor) = if rightward { (Anchor::Start, Anchor::End) } else { (Anchor::End, Anchor::Start) };
    let width = text_width(text, bold);
    let beside = |x: i32, anchor: Anchor, above: bool, extra: i32| {
        let left = match anchor {
            Anchor::Start => x,
            Anchor::Middle => x - width / 2,
            Anchor::End => x - width,
        };
        let (top, bottom) = line_span(line, left - 2, left + width + 2);
        let baseline = if above { top - 6 - extra } else { bottom + FONT_PX + 4 + extra };
        label_at(x, baseline, anchor, text.to_string(), bold)
    };
    vec![
        beside(mx, Anchor::Middle, true, 0),
        beside(mx, Anchor::Middle, false, 0),
        beside(start_x, start_anchor, true, 0),
        beside(end_x, end_anchor, false, 0),
        beside(mx, Anchor::Middle, true, 18),
        beside(mx, Anchor::Middle, false, 18),
    ]
}

/// The highest and lowest point of the line over the x-range `[left, right]`
/// (where the line has no points there, its nearer end).
fn line_span((x1, y1, x2, y2): Line, left: i32, right: i32) -> (i32, i32) {
    let at = |x: i32| {
        let x = x.clamp(x1.min(x2), x1.max(x2));
        if x2 == x1 {
            y1
        } else {
            y1 + (y2 - y1) * (x - x1) / (x2 - x1)
        }
    };
    let (a, b) = (at(left), at(right));
    if x1 == x2 {
        (y1.min(y2), y1.max(y2))
    } else {
        (a.min(b), a.max(b))
    }
}

/// The first candidate that fits, recorded as an obstacle; on the last
/// pass a label that fits nowhere is still drawn (at its first place).
fn choose(candidates: &[Label], obstacles: &mut Obstacles, last_pass: bool, right_px: i32) -> Option<Label> {
    let right_px = bound(candidates, right_px);
    let fits = candidates.iter().find(|label| inside(label, right_px) && obstacles.free(&label.rect));
    let chosen = fits.or(last_pass.then(|| fallback(candidates, right_px)))?.clone();
    obstacles.add_box(chosen.rect);
    fits.map(|_| chosen)
}

/// Within the picture: right of the time column, below its top, left of
/// the last lane's edge (a label past it would widen the picture beyond
/// the screen on a phone).
fn inside(label: &Label, right_px: i32) -> bool {
    label.rect.x >= LEFT_PX - 4 && label.rect.y >= 0 && label.rect.x + label.rect.w <= right_px
}

/// The right edge a label keeps to: the last lane's, unless no place of
/// it is that narrow (a long command on a phone), which widens the picture.
fn bound(candidates: &[Label], right_px: i32) -> i32 {
    if candidates.iter().any(|label| inside(label, right_px)) {
        right_px
    } else {
        i32::MAX
    }
}

/// Where a label that fits nowhere is drawn: the first place inside the
/// picture, else the first place.
fn fallback(candidates: &[Label], right_px: i32) -> &Label {
    let right_px = bound(candidates, right_px);
    candidates.iter().find(|label| inside(label, right_px)).unwrap_or(&candidates[0])
}

/// Natively (`cargo test -p fencing-lab-web --lib`): the geometry is pure,
/// so every preset's layout is checked here without a browser. Ported from
/// the wasm-bindgen tests (`tests/web.rs`); Playwright still measures the
/// drawn picture with real fonts.
#[cfg(test)]
mod tests {
    use super::*;
    use fencing_sim::compare::Difference;
    use fencing_sim::presets::{self, PRESETS};

    /// The rooms the diagram is laid out for: a laptop's and wider, one
    /// pane side by side on a laptop, a phone.
    const ROOMS_PX: [i32; 3] = [ROOM_UNMEASURED_PX, 590, 350];

    /// No two label boxes of one pane overlap, and none leaves the picture.
    fn assert_labels_apart(geometry: &Geometry, what: &str) {
        for (index, pane) in geometry.panes.iter().enumerate() {
            let mut boxes: Vec<Rect> = geometry.times.iter().map(|label| label.rect).collect();
            boxes.extend(geometry.breaks.iter().flat_map(|gap| [gap.label.rect, gap.then.rect]));
            boxes.extend(pane.markers.iter().filter_map(|marker| marker.words.as_ref().map(|words| words.rect)));
            boxes.extend(pane.arrows.iter().map(|arrow| arrow.label.rect));
            for (position, rect) in boxes.iter().enumerate() {
                assert!(
                    rect.x >= 0 && rect.y >= 0 && rect.x + rect.w <= pane.width && rect.y + rect.h <= geometry.height,
                    "{what}, pane {index}: {rect:?} leaves the picture"
                );
                for other in &boxes[position + 1..] {
                    assert!(!rect.intersects(other), "{what}, pane {index}: {rect:?} overlaps {other:?}");
                }
            }
        }
    }

    #[test]
    fn every_presets_diagram_places_its_labels_apart_alone_and_side_by_side() {
        for preset in PRESETS {
            let scenario = (preset.build)();
            let pane = Pane::run(&scenario);
            for room_px in ROOMS_PX {
                for detail in [false, true] {
                    let visible = pane.visible(detail);
                    let geometry = layout(&[(&pane, visible.as_slice())], room_px);
                    assert_labels_apart(&geometry, &format!("{} (detail {detail}, in {room_px} px)", preset.id));
                }
                let (left, right) = Difference::Fencing.split(&scenario);
                let (left, right) = (Pane::run(&left), Pane::run(&right));
                let (lv, rv) = (left.visible(false), right.visible(false));
                let geometry = layout(&[(&left, lv.as_slice()), (&right, rv.as_slice())], room_px);
                assert_labels_apart(&geometry, &format!("{} side by side in {room_px} px", preset.id));
                // Rows are shared: an event both runs have at the same moment sits at the same height.
                let first = |pane: usize| geometry.panes[pane].row_of.iter().flatten().next().copied();
                assert_eq!(first(0), first(1), "{}: both runs start on the same row", preset.id);
            }
        }
    }

    #[test]
    fn lanes_narrow_to_the_room_they_have_down_to_a_floor() {
        let pane = Pane::run(&presets::classic());
        let visible = pane.visible(false);
        // A phone's 350 px holds the classic run's four lanes, A to the store.
        let phone = layout(&[(&pane, visible.as_slice())], 350);
        let lanes = &phone.panes[0].lanes;
        assert_eq!(lanes.len(), 4);
        assert!(lanes.iter().all(|(_, x)| *x + LANE_GAP_MIN_PX / 2 <= 350), "{lanes:?}");
        assert_eq!(lane_gap_for(1_000, 4), LANE_GAP_PX, "a laptop keeps the usual distance");
        assert_eq!(lane_gap_for(350, 4), (350 - LEFT_PX) / 4);
        assert_eq!(lane_gap_for(200, 8), LANE_GAP_MIN_PX, "never below the floor");
        assert_eq!(lane_gap_for(1_000, 0), LANE_GAP_PX, "no lanes is not a division by zero");
    }

    /// Time runs down the page: rows in order of their events' times, the
    /// 15 s pause drawn as a break that names its length, and `y_at`
    /// never going back up.
    #[test]
    fn later_events_sit_lower_and_the_long_pause_is_a_break() {
        let pane = Pane::run(&presets::classic());
        let visible = pane.visible(false);
        let geometry = layout(&[(&pane, visible.as_slice())], ROOM_UNMEASURED_PX);
        assert!(geometry.row_y.windows(2).all(|pair| pair[0] < pair[1]), "{:?}", geometry.row_y);
        let shown: Vec<(u64, i32)> = pane
            .trace
            .events
            .iter()
            .filter_map(|event| geometry.panes[0].row_of[event.index as usize].map(|row| (event.t_us, geometry.row_y[row as usize])))
            .collect();
        assert!(shown.windows(2).all(|pair| pair[0].1 <= pair[1].1), "an event never sits above an earlier one");
        assert!(!geometry.breaks.is_empty(), "the GC pause is a quiet stretch");
        assert!(
            geometry.breaks.iter().all(|gap| gap.label.text.ends_with(" s") || gap.label.text.ends_with("ms")),
            "{:?}",
            geometry.breaks
        );
        let end_us = pane.trace.events.last().map_or(0, |event| event.t_us);
        let ys: Vec<i32> = (0..=100).map(|step| geometry.y_at(end_us / 100 * step)).collect();
        assert!(ys.windows(2).all(|pair| pair[0] <= pair[1]), "{ys:?}");
        assert!(geometry.reveal_y(0, Some(0)) > 0 && geometry.reveal_y(0, None) == 0);
        assert!(geometry.reveal_y(7, Some(0)) == 0, "a pane that is not there reveals nothing");
    }

    #[test]
    fn text_widths_grow_with_the_text_and_bold_is_wider() {
        assert_eq!(text_width("", false), 0);
        assert!(text_width("granted to A", false) < text_width("granted to A, token 34", false));
        assert!(text_width("token 34", false) < text_width("token 34", true));
        // Characters, not bytes: "☠" is one glyph wide.
        assert_eq!(text_width("☠", false), text_width("x", false));
    }

    #[test]
    fn a_segment_crosses_a_box_only_where_it_passes_through() {
        let rect = Rect { x: 10, y: 10, w: 20, h: 10 };
        assert!(rect.crossed_by((0, 15, 40, 15)), "straight through");
        assert!(rect.crossed_by((15, 12, 16, 13)), "inside");
        assert!(!rect.crossed_by((0, 0, 40, 0)), "above");
        assert!(!rect.crossed_by((0, 30, 9, 0)), "beside, on a slant");
        assert!(rect.intersects(&Rect { x: 29, y: 19, w: 5, h: 5 }));
        assert!(!rect.intersects(&Rect { x: 30, y: 10, w: 5, h: 5 }), "touching edges do not overlap");
    }
}
