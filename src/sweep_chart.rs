//! "A longer lease only needs a longer pause", as a number: for a 10 s and a
//! 40 s lease, how many runs (over several seeds) end with a stale overwrite
//! as the pause grows. The core runs the sweep; this draws it, with a table
//! for screen readers and anyone who prefers numbers.

use fencing_sim::sweep::{sweep, Param, Row};
use fencing_sim::{presets, Scenario};
use leptos::prelude::*;

const TTLS_MS: [u64; 2] = [10_000, 40_000];
const PAUSE_MS_MAX: u64 = 60_000;
const PAUSE_MS_STEP: u64 = 5_000;
const SEEDS: u32 = 8;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 16.0;

struct Series {
    rows: Vec<Row>,
}

/// The shortest pause at which every run corrupted the store, if any.
fn always_from(series: &Series) -> Option<u64> {
    series.rows.iter().find(|row| row.runs > 0 && row.runs_with_stale_overwrites == row.runs).map(|row| row.value)
}

fn run_sweep() -> Vec<Series> {
    let pauses: Vec<u64> = (0..=PAUSE_MS_MAX).step_by(PAUSE_MS_STEP as usize).collect();
    TTLS_MS
        .iter()
        .map(|&ttl_ms| {
            let base = Scenario { ttl_ms, ..presets::classic() };
            Series { rows: sweep(&base, Param::PauseMs, &pauses, SEEDS).unwrap_or_default() }
        })
        .collect()
}

fn x(pause_ms: u64) -> f64 {
    LEFT + (WIDTH - LEFT - 16.0) * pause_ms as f64 / PAUSE_MS_MAX as f64
}

fn y(share: f64) -> f64 {
    TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - share)
}

fn share(row: &Row) -> f64 {
    f64::from(row.runs_with_stale_overwrites) / f64::from(row.runs.max(1))
}

#[component]
pub fn LeaseSweep() -> impl IntoView {
    let all = run_sweep();
    let from =
        |index: usize| always_from(&all[index]).map_or("no pause up to 60 s".to_string(), |ms| format!("a pause of {} s", ms / 1000));
    let summary = format!(
        "With a {} s lease, every run corrupts the store from {} on; with a {} s lease, from {} on.",
        TTLS_MS[0] / 1000,
        from(0),
        TTLS_MS[1] / 1000,
        from(1)
    );
    let lines = all
        .iter()
        .enumerate()
        .map(|(index, series)| {
            let points: Vec<String> = series.rows.iter().map(|row| format!("{:.1},{:.1}", x(row.value), y(share(row)))).collect();
            let class = if index == 0 { "sweep-line short" } else { "sweep-line long" };
            let marks = series
                .rows
                .iter()
                .map(|row| {
                    let (cx, cy) = (x(row.value), y(share(row)));
                    if index == 0 {
                        view! { <circle cx=cx cy=cy r="4"></circle> }.into_any()
                    } else {
                        view! { <rect x=cx - 4.0 y=cy - 4.0 width="8" height="8"></rect> }.into_any()
                    }
                })
                .collect_view();
            view! { <g class=class><polyline points=points.join(" ")></polyline>{marks}</g> }
        })
        .collect_view();
    let ticks = (0..=PAUSE_MS_MAX)
        .step_by(10_000)
        .map(|pause_ms| {
            view! {
                <text class="tick" x=x(pause_ms) y=HEIGHT - BOTTOM + 18.0 text-anchor="middle">{format!("{} s", pause_ms / 1000)}</text>
            }
        })
        .collect_view();
    let lease_marks = TTLS_MS
        .iter()
        .map(|ttl_ms| {
            view! {
                <line class="lease-mark" x1=x(*ttl_ms) x2=x(*ttl_ms) y1=TOP y2=HEIGHT - BOTTOM></line>
            }
        })
        .collect_view();
    let table_rows = all[0]
        .rows
        .iter()
        .zip(&all[1].rows)
        .map(|(short, long)| {
            view! {
                <tr>
                    <th scope="row">{format!("{} s", short.value / 1000)}</th>
                    <td>{format!("{} of {}", short.runs_with_stale_overwrites, short.runs)}</td>
                    <td>{format!("{} of {}", long.runs_with_stale_overwrites, long.runs)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section id="sweep" class="sweep card" aria-labelledby="sweep-title">
            <h2 id="sweep-title">"A longer lease only needs a longer pause"</h2>
            <p>{format!(
                "The GC-pause story without fencing, {SEEDS} seeds per point: the share of runs in which A's stale write overwrites B's data, as the pause grows, for a {} s and a {} s lease.",
                TTLS_MS[0] / 1000, TTLS_MS[1] / 1000
            )}</p>
            <svg class="sweep-chart" viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img"
                aria-label=format!("Chart. {summary} The numbers are in the table below.") data-testid="sweep-chart">
                <line class="axis" x1=LEFT x2=WIDTH - 16.0 y1=HEIGHT - BOTTOM y2=HEIGHT - BOTTOM></line>
                <line class="axis" x1=LEFT x2=LEFT y1=TOP y2=HEIGHT - BOTTOM></line>
                <text class="tick" x=LEFT - 8.0 y=y(1.0) + 4.0 text-anchor="end">"100%"</text>
                <text class="tick" x=LEFT - 8.0 y=y(0.5) + 4.0 text-anchor="end">"50%"</text>
                <text class="tick" x=LEFT - 8.0 y=y(0.0) + 4.0 text-anchor="end">"0%"</text>
                {ticks}
                {lease_marks}
                {lines}
                <text class="tick" x=(LEFT + WIDTH) / 2.0 y=HEIGHT - 4.0 text-anchor="middle">"pause length"</text>
            </svg>
            <p class="sweep-summary">{summary}</p>
            <p class="legend">
                <span class="key-short">"● 10 s lease (solid)"</span>
                <span class="key-long">"■ 40 s lease (dashed)"</span>
                <span>"Vertical lines: the two lease lengths."</span>
            </p>
            <details>
                <summary>"The numbers"</summary>
                <table class="sweep-table">
                    <caption>"Runs with a stale overwrite, by pause length"</caption>
                    <thead><tr><th scope="col">"Pause"</th><th scope="col">"10 s lease"</th><th scope="col">"40 s lease"</th></tr></thead>
                    <tbody>{table_rows}</tbody>
                </table>
            </details>
            <p class="hint">"Try it yourself: "<code>"fencing-lab sweep --preset lease-x4 --param pause-ms --from 0 --to 60000 --step 5000"</code></p>
        </section>
    }
}
