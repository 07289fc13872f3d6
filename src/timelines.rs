//! Lease timelines: per worker, what the lock service says ("holds the
//! lease") above what the worker believes ("believes it holds the lock").
//! Where belief runs on without a lease is the zombie window, drawn hatched
//! and labelled, because that gap is the whole lesson.

use crate::pane::Pane;
use fencing_sim::layout::Axis;
use fencing_sim::{Actor, Span, SpanKind};
use leptos::prelude::*;

const LABEL_PX: f64 = 150.0;
const WIDTH_PX: f64 = 760.0;
const BAR_PX: f64 = 16.0;
const WORKER_PX: f64 = 52.0;

/// Lease and belief bars for every worker, revealed up to the cursor time.
#[component]
pub fn LeaseTimelines(
    pane: Memo<Pane>,
    /// The compressed time axis shared with the diagram.
    axis: Memo<Axis>,
    /// Cursor time; None before the first event.
    now_us: Signal<Option<u64>>,
    id: &'static str,
) -> impl IntoView {
    let scale = move |position: f64, length: f64| LABEL_PX + (WIDTH_PX - LABEL_PX - 10.0) * position / length.max(1.0);
    let rows = move || {
        pane.with(|pane| {
            axis.with(|axis| {
                let x = |t_us: u64| scale(axis.position(t_us), axis.length);
                pane.trace.workers().into_iter().enumerate().map(|(row, worker)| worker_rows(pane, worker, row, &x, id)).collect_view()
            })
        })
    };
    let height = move || pane.with(|pane| 20.0 + WORKER_PX * pane.trace.scenario.workers as f64);
    let cursor_x = move || axis.with(|axis| now_us.get().map_or(LABEL_PX, |t_us| scale(axis.position(t_us) + 0.5, axis.length)));
    let clip = format!("{id}-timeline-reveal");
    view! {
        <svg
            class="timelines"
            role="img"
            aria-label="Lease timelines: for each worker, when the lock service says it holds the lease, and when it believes it holds the lock"
            viewBox=move || format!("0 0 {WIDTH_PX} {}", height())
            data-testid=format!("{id}-timelines")
        >
            <defs>
                <clipPath id=clip.clone()>
                    <rect x="0" y="0" width=cursor_x height=height></rect>
                </clipPath>
                <pattern id=format!("{id}-zombie-hatch") width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                    <rect width="6" height="6" class="zombie-bg"></rect>
                    <line x1="0" y1="0" x2="0" y2="6" class="zombie-line"></line>
                </pattern>
            </defs>
            <g clip-path=format!("url(#{clip})")>{rows}</g>
            <line class="cursor-line" x1=cursor_x x2=cursor_x y1="0" y2=height></line>
        </svg>
    }
}

fn worker_rows(pane: &Pane, worker: Actor, row: usize, x: &dyn Fn(u64) -> f64, id: &str) -> impl IntoView {
    let top = 10.0 + WORKER_PX * row as f64;
    let spans: Vec<&Span> = pane.trace.spans.iter().filter(|span| span.worker == worker).collect();
    let bars = spans
        .iter()
        .map(|span| {
            let (class, y, label) = match span.kind {
                SpanKind::Lease => ("bar-lease", top, span.token.map(|token| format!("lease, token {token}"))),
                SpanKind::Belief => ("bar-belief", top + BAR_PX + 4.0, Some("believes".to_string())),
                SpanKind::Pause => ("bar-pause", top + BAR_PX + 4.0, Some("‖ paused".to_string())),
                SpanKind::ZombieWindow => ("bar-zombie", top + BAR_PX + 4.0, Some("⚠ zombie window".to_string())),
            };
            let left = x(span.start_us);
            let width = (x(span.end_us) - left).max(2.0);
            let fill = if span.kind == SpanKind::ZombieWindow { format!("url(#{id}-zombie-hatch)") } else { String::new() };
            view! {
                <g class=class>
                    <rect x=left y=y width=width height=BAR_PX rx="3" fill=fill></rect>
                    <text x=left + 4.0 y=y + 12.0>{label.filter(|_| width > 60.0)}</text>
                </g>
            }
        })
        .collect_view();
    view! {
        <g class="timeline-worker" data-worker=worker.to_string()>
            <text class="timeline-label" x="4" y=top + 12.0>{format!("{worker}: lock service")}</text>
            <text class="timeline-label" x="4" y=top + BAR_PX + 16.0>{format!("{worker}: believes")}</text>
            {bars}
        </g>
    }
}
