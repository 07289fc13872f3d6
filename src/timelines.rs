//! Lease timelines: per worker, what the lock service says ("holds the
//! lease") above what the worker believes. Where belief runs on without a
//! lease is the zombie window, hatched and labelled, because that gap is the
//! whole lesson. Unlike the sequence diagram, whose quiet stretches are
//! shortened, time here is drawn to scale from 0 to the run's end, with its
//! seconds on an axis: a 10 s lease against a 15 s pause is two thirds of
//! the width. Positions are percentages, so the picture fits any width while
//! its text stays 12 px.

use crate::escape;
use crate::pane::Pane;
use fencing_sim::worksheet::duration;
use fencing_sim::{format_us, Actor, Span, SpanKind};
use leptos::prelude::*;
use std::fmt::Write;

const ROW_PX: i32 = 22;
const BAR_PX: i32 = 14;
/// A worker's block: the lease row, the belief row, a row for its words.
const WORKER_PX: i32 = ROW_PX * 2 + 20;
/// The time axis under the workers: a rule, its ticks and their seconds.
const AXIS_PX: i32 = 26;
/// At most this many intervals between ticks, so that their labels stand
/// apart on a phone.
const TICKS_MAX: u64 = 4;
/// The narrowest bar that still shows its token inside it (basis points).
const ROOM_FOR_TOKEN: i32 = 800;

/// Lease and belief bars for every worker, revealed up to the cursor time.
/// The names, the bars and the axis are markup written once per run; only
/// the cursor's position follows the playback. (Small memos rather than a
/// view per worker: the race's first load is measured in bytes.)
#[component]
pub fn LeaseTimelines(
    pane: Memo<Pane>,
    /// Cursor time; None before the first event.
    now_us: Signal<Option<u64>>,
    id: &'static str,
) -> impl IntoView {
    let names = Memo::new(move |_| pane.with(names));
    let height = Memo::new(move |_| pane.with(|pane| (WORKER_PX * pane.trace.workers().len() as i32 + AXIS_PX).to_string()));
    let bars = Memo::new(move |_| pane.with(|pane| draw(pane, &Scale::new(pane), id)));
    let axis = Memo::new(move |_| pane.with(|pane| axis(&Scale::new(pane), WORKER_PX * pane.trace.workers().len() as i32)));
    let cursor = Memo::new(move |_| {
        let t_us = now_us.get();
        pane.with(|pane| percent(t_us.map_or(0, |t_us| Scale::new(pane).basis_points(t_us))))
    });
    let clip = format!("{id}-timeline-reveal");
    view! {
        <div class="timelines" data-testid=format!("{id}-timelines")>
            <div class="timeline-names" aria-hidden="true" inner_html=names></div>
            <svg class="timeline-bars" width="100%" height=height role="img"
                aria-label="Lease timelines, to scale: for each worker, when the lock service says it holds the lease, and when it believes it holds the lock">
                <defs>
                    <clipPath id=clip.clone()><rect x="0" y="0" width=cursor height="100%"></rect></clipPath>
                </defs>
                <g clip-path=format!("url(#{clip})") inner_html=bars></g>
                <g class="timeline-axis" inner_html=axis></g>
                <line class="timeline-cursor" x1=cursor x2=cursor y1="0" y2="100%"></line>
            </svg>
        </div>
    }
}

/// The rows' names, two per worker and a gap under each, then the axis's.
fn names(pane: &Pane) -> String {
    let mut html = String::new();
    for worker in pane.trace.workers() {
        let _ = write!(
            html,
            r#"<span class="timeline-name">{worker}: lease</span><span class="timeline-name">{worker}: believes</span><span class="timeline-gap"></span>"#
        );
    }
    html.push_str(r#"<span class="timeline-name">time</span>"#);
    html
}

/// Time to a percentage of the width, to scale: 0 at the left, the run's
/// last event at the right (a lease that would run on past it is cut there,
/// as the diagram's is).
struct Scale {
    end_us: u64,
}

impl Scale {
    fn new(pane: &Pane) -> Scale {
        Scale { end_us: pane.trace.events.last().map_or(0, |event| event.t_us).max(1) }
    }

    /// Hundredths of a percent, 0 to 10,000 (whole numbers: no float formatting in the page).
    fn basis_points(&self, t_us: u64) -> i32 {
        (u128::from(t_us.min(self.end_us)) * 10_000 / u128::from(self.end_us)) as i32
    }

    /// The tick interval: 1, 2 or 5 times a power of ten milliseconds, the
    /// smallest that leaves at most `TICKS_MAX` intervals.
    fn tick_ms(&self) -> u64 {
        let end_ms = self.end_us / 1_000;
        let steps = (0..10).flat_map(|power| [1, 2, 5].map(|digit| digit * 10u64.pow(power)));
        steps.into_iter().find(|step_ms| end_ms / step_ms <= TICKS_MAX).unwrap_or(10u64.pow(10))
    }
}

/// "12.34%" from basis points.
fn percent(basis_points: i32) -> String {
    format!("{}.{:02}%", basis_points / 100, basis_points % 100)
}

/// The axis: a rule and a tick with its time at every interval.
fn axis(scale: &Scale, top: i32) -> String {
    let step_ms = scale.tick_ms();
    let mut svg = format!(r#"<line x1="0" x2="100%" y1="{top}" y2="{top}"/>"#);
    for tick_ms in (0..=scale.end_us / 1_000).step_by(step_ms as usize).take(TICKS_MAX as usize + 1) {
        let x = scale.basis_points(tick_ms * 1_000);
        // Labels stay inside the picture at both ends.
        let anchor = match x {
            0 => "start",
            _ if x > 9_000 => "end",
            _ => "middle",
        };
        let _ = write!(
            svg,
            r#"<line x1="{at}" x2="{at}" y1="{top}" y2="{}"/><text x="{at}" y="{}" text-anchor="{anchor}">{}</text>"#,
            top + 5,
            top + 18,
            tick_words(tick_ms, step_ms),
            at = percent(x)
        );
    }
    svg
}

/// "0 s", "5 s", "10 s" on an axis of seconds; "0 ms", "200 ms" on a shorter one.
fn tick_words(tick_ms: u64, step_ms: u64) -> String {
    match tick_ms {
        0 if step_ms >= 1_000 => "0 s".to_string(),
        _ => duration(tick_ms),
    }
}

fn draw(pane: &Pane, scale: &Scale, id: &str) -> String {
    let mut svg = format!(
        r#"<defs><pattern id="{id}-zombie-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" class="zombie-bg"/><line x1="0" y1="0" x2="0" y2="6" class="zombie-line"/></pattern></defs>"#
    );
    for (row, worker) in pane.trace.workers().into_iter().enumerate() {
        let top = WORKER_PX * row as i32;
        let spans = |kind: SpanKind| pane.trace.spans.iter().filter(move |span| span.worker == worker && span.kind == kind);
        for span in spans(SpanKind::Lease) {
            bar(&mut svg, scale, span, "bar-lease", top, "", span.token.map(|token| token.to_string()));
        }
        let below = top + ROW_PX;
        for span in spans(SpanKind::Belief) {
            bar(&mut svg, scale, span, "bar-belief", below, "", None);
        }
        for span in spans(SpanKind::Pause) {
            bar(&mut svg, scale, span, "bar-pause", below, "", None);
        }
        for span in spans(SpanKind::ZombieWindow) {
            let fill = format!(r#" fill="url(#{id}-zombie-hatch)""#);
            bar(&mut svg, scale, span, "bar-zombie", below, &fill, None);
            words(&mut svg, scale, span, below + BAR_PX + 16, &zombie_words(worker, span));
        }
    }
    svg
}

fn zombie_words(worker: Actor, span: &Span) -> String {
    format!("⚠ {worker}'s zombie window, {}", format_us(span.end_us - span.start_us))
}

fn bar(svg: &mut String, scale: &Scale, span: &Span, class: &str, top: i32, fill: &str, inner: Option<String>) {
    let (left, right) = (scale.basis_points(span.start_us), scale.basis_points(span.end_us));
    let width = (right - left).max(40);
    let _ = write!(
        svg,
        r#"<g class="{class}"><rect x="{}" y="{}" width="{}" height="{BAR_PX}"{fill}/>"#,
        percent(left),
        top + 4,
        percent(width)
    );
    match inner {
        // Inside the bar where it has room at the narrowest width; beside it where not
        // (B's brief hold is a sliver to scale, and its token is the story).
        Some(text) if width >= ROOM_FOR_TOKEN => {
            let _ =
                write!(svg, r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#, percent((left + right) / 2), top + 15, escape(&text));
        }
        Some(text) => {
            let (x, anchor) = if right < 9_000 { (right + 60, "start") } else { (left - 60, "end") };
            let _ =
                write!(svg, r#"<text class="beside" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#, percent(x), top + 15, escape(&text));
        }
        None => {}
    }
    svg.push_str("</g>");
}

/// Words under a bar, kept inside the picture: they run right from its
/// start where the bar ends in the left half, left from its end where it
/// ends in the right half.
fn words(svg: &mut String, scale: &Scale, span: &Span, baseline: i32, text: &str) {
    let (left, right) = (scale.basis_points(span.start_us), scale.basis_points(span.end_us));
    let (x, anchor) = if right < 5_000 { (left, "start") } else { (right, "end") };
    let _ = write!(svg, r#"<text class="zombie-words" x="{}" y="{baseline}" text-anchor="{anchor}">{}</text>"#, percent(x), escape(text));
}
