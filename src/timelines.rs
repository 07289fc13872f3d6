//! Lease timelines: per worker, what the lock service says ("holds the
//! lease") above what the worker believes. Where belief runs on without a
//! lease is the zombie window, hatched and labelled, because that gap is the
//! whole lesson. Time runs left to right on the diagram's compressed axis;
//! positions are percentages, so the picture fits any width while its text
//! stays 12 px.

use crate::escape;
use crate::layout::Geometry;
use crate::pane::Pane;
use fencing_sim::{format_us, Actor, Span, SpanKind};
use leptos::prelude::*;
use std::fmt::Write;

const ROW_PX: i32 = 22;
const BAR_PX: i32 = 14;
/// A worker's block: the lease row, the belief row, a row for its words.
const WORKER_PX: i32 = ROW_PX * 2 + 20;

/// Lease and belief bars for every worker, revealed up to the cursor time.
/// The names and the bars are markup written once per run; only the
/// cursor's position follows the playback. (Four small memos rather than
/// a view per worker: the race's first load is measured in bytes.)
#[component]
pub fn LeaseTimelines(
    pane: Memo<Pane>,
    /// The diagram's geometry: its compressed time axis.
    geometry: Memo<Geometry>,
    /// Cursor time; None before the first event.
    now_us: Signal<Option<u64>>,
    id: &'static str,
) -> impl IntoView {
    let names = Memo::new(move |_| pane.with(names));
    let height = Memo::new(move |_| pane.with(|pane| (WORKER_PX * pane.trace.workers().len() as i32).to_string()));
    let bars = Memo::new(move |_| pane.with(|pane| geometry.with(|geometry| draw(pane, &Scale::new(pane, geometry), id))));
    let cursor = Memo::new(move |_| {
        let t_us = now_us.get();
        pane.with(|pane| geometry.with(|geometry| percent(t_us.map_or(0, |t_us| Scale::new(pane, geometry).basis_points(t_us)))))
    });
    let clip = format!("{id}-timeline-reveal");
    view! {
        <div class="timelines" data-testid=format!("{id}-timelines")>
            <div class="timeline-names" aria-hidden="true" inner_html=names></div>
            <svg class="timeline-bars" width="100%" height=height role="img"
                aria-label="Lease timelines: for each worker, when the lock service says it holds the lease, and when it believes it holds the lock">
                <defs>
                    <clipPath id=clip.clone()><rect x="0" y="0" width=cursor height="100%"></rect></clipPath>
                </defs>
                <g clip-path=format!("url(#{clip})") inner_html=bars></g>
                <line class="timeline-cursor" x1=cursor x2=cursor y1="0" y2="100%"></line>
            </svg>
        </div>
    }
}

/// The rows' names, two per worker and a gap under each.
fn names(pane: &Pane) -> String {
    let mut html = String::new();
    for worker in pane.trace.workers() {
        let _ = write!(
            html,
            r#"<span class="timeline-name">{worker}: lease</span><span class="timeline-name">{worker}: believes</span><span class="timeline-gap"></span>"#
        );
    }
    html
}

/// Time to a percentage of the width, on the diagram's compressed axis.
struct Scale<'a> {
    first_y: i32,
    span_y: i32,
    geometry: &'a Geometry,
}

impl Scale<'_> {
    fn new<'a>(pane: &Pane, geometry: &'a Geometry) -> Scale<'a> {
        let first = pane.trace.events.first().map_or(0, |event| event.t_us);
        let last = pane.trace.summary.end_us;
        let (first_y, last_y) = (geometry.y_at(first), geometry.y_at(last));
        Scale { first_y, span_y: (last_y - first_y).max(1), geometry }
    }

    /// Hundredths of a percent, 0 to 10,000 (whole numbers: no float formatting in the page).
    fn basis_points(&self, t_us: u64) -> i32 {
        let offset = i64::from((self.geometry.y_at(t_us) - self.first_y).clamp(0, self.span_y));
        (offset * 10_000 / i64::from(self.span_y)) as i32
    }
}

/// "12.34%" from basis points.
fn percent(basis_points: i32) -> String {
    format!("{}.{:02}%", basis_points / 100, basis_points % 100)
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
    // A number only where the bar has room for it at the narrowest width.
    if let Some(text) = inner.filter(|_| width >= 800) {
        let _ = write!(svg, r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#, percent((left + right) / 2), top + 15, escape(&text));
    }
    svg.push_str("</g>");
}

/// Words under a bar, kept inside the picture: anchored at the bar's start
/// in the left half, at its end in the right half.
fn words(svg: &mut String, scale: &Scale, span: &Span, baseline: i32, text: &str) {
    let (left, right) = (scale.basis_points(span.start_us), scale.basis_points(span.end_us));
    let (x, anchor) = if left < 5_000 { (left, "start") } else { (right, "end") };
    let _ = write!(svg, r#"<text class="zombie-words" x="{}" y="{baseline}" text-anchor="{anchor}">{}</text>"#, percent(x), escape(text));
}
