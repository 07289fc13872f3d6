//! "A longer lease only needs a longer pause", as a number: for a 10 s and a
//! 40 s lease, the share of runs (over several seeds) in which A's stale write
//! overwrites B's data, as the pause grows. The model runs the sweep when the
//! site is built; this draws it as a static figure with its table.

use fencing_sim::sweep::{sweep, Param, Row};
use fencing_sim::{presets, Scenario};

pub const TTLS_MS: [u64; 2] = [10_000, 40_000];
const PAUSE_MS_MAX: u64 = 60_000;
const PAUSE_MS_STEP: u64 = 5_000;
pub const SEEDS: u32 = 8;

const WIDTH: u64 = 640;
const HEIGHT: u64 = 260;
const LEFT: u64 = 56;
const RIGHT: u64 = 16;
const BOTTOM: u64 = 40;
const TOP: u64 = 16;

/// One row per pause length, for each lease.
pub fn series() -> Vec<Vec<Row>> {
    let pauses: Vec<u64> = (0..=PAUSE_MS_MAX).step_by(PAUSE_MS_STEP as usize).collect();
    TTLS_MS
        .iter()
        .map(|&ttl_ms| {
            let base = Scenario { ttl_ms, ..presets::classic() };
            sweep(&base, Param::PauseMs, &pauses, SEEDS).expect("the sweep is within its bound")
        })
        .collect()
}

/// The shortest pause at which every run corrupted the store, if any.
pub fn always_from(rows: &[Row]) -> Option<u64> {
    rows.iter().find(|row| row.runs > 0 && row.runs_with_stale_overwrites == row.runs).map(|row| row.value)
}

/// The sentence the figure states, read off the sweep.
pub fn summary(series: &[Vec<Row>]) -> String {
    let from = |rows: &[Row]| always_from(rows).map_or("no pause up to 60 s".to_string(), |ms| format!("a pause of {} s", ms / 1000));
    format!(
        "With a {} s lease, every run corrupts the store from {} on; with a {} s lease, from {} on.",
        TTLS_MS[0] / 1000,
        from(&series[0]),
        TTLS_MS[1] / 1000,
        from(&series[1])
    )
}

fn x(pause_ms: u64) -> u64 {
    LEFT + (WIDTH - LEFT - RIGHT) * pause_ms / PAUSE_MS_MAX
}

/// Height on the chart of `part` out of `whole` runs (whole numbers: no float formatting).
fn y(part: u32, whole: u32) -> u64 {
    let plot = HEIGHT - TOP - BOTTOM;
    TOP + plot - plot * u64::from(part) / u64::from(whole.max(1))
}

pub fn figure() -> String {
    let series = series();
    let summary = summary(&series);
    let mut svg = format!(
        r#"<svg class="sweep-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="Chart. {summary} The numbers are in the table below.">"#
    );
    let (bottom, right) = (HEIGHT - BOTTOM, WIDTH - RIGHT);
    svg += &format!(
        r#"<line class="axis" x1="{LEFT}" x2="{right}" y1="{bottom}" y2="{bottom}"/><line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}"/>"#
    );
    for (label, part) in [("100%", 2), ("50%", 1), ("0%", 0)] {
        svg += &format!(r#"<text class="tick" x="{}" y="{}" text-anchor="end">{label}</text>"#, LEFT - 8, y(part, 2) + 4);
    }
    for pause_ms in (0..=PAUSE_MS_MAX).step_by(10_000) {
        svg += &format!(r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{} s</text>"#, x(pause_ms), bottom + 18, pause_ms / 1000);
    }
    for ttl_ms in TTLS_MS {
        svg += &format!(r#"<line class="lease-mark" x1="{0}" x2="{0}" y1="{TOP}" y2="{bottom}"/>"#, x(ttl_ms));
    }
    for (index, rows) in series.iter().enumerate() {
        let points: Vec<String> =
            rows.iter().map(|row| format!("{},{}", x(row.value), y(row.runs_with_stale_overwrites, row.runs))).collect();
        let (class, mark) = if index == 0 { ("short", "circle") } else { ("long", "rect") };
        svg += &format!(r#"<g class="sweep-line {class}"><polyline points="{}"/>"#, points.join(" "));
        for row in rows {
            let (cx, cy) = (x(row.value), y(row.runs_with_stale_overwrites, row.runs));
            svg += &match mark {
                "circle" => format!(r#"<circle cx="{cx}" cy="{cy}" r="4"/>"#),
                _ => format!(r#"<rect x="{}" y="{}" width="8" height="8"/>"#, cx - 4, cy - 4),
            };
        }
        svg += "</g>";
    }
    svg += &format!(r#"<text class="tick" x="{}" y="{}" text-anchor="middle">pause length</text></svg>"#, (LEFT + WIDTH) / 2, HEIGHT - 4);
    let rows: Vec<String> = series[0]
        .iter()
        .zip(&series[1])
        .map(|(short, long)| {
            format!(
                r#"<tr><th scope="row">{} s</th><td>{} of {}</td><td>{} of {}</td></tr>"#,
                short.value / 1000,
                short.runs_with_stale_overwrites,
                short.runs,
                long.runs_with_stale_overwrites,
                long.runs
            )
        })
        .collect();
    format!(
        r#"<figure class="sweep" data-testid="sweep"><figcaption>The GC-pause story without fencing, {SEEDS} seeds per point: the share of runs in which A's stale write overwrites B's data, as the pause grows, for a {} s and a {} s lease.</figcaption>{svg}<p class="sweep-summary">{summary}</p><p class="legend"><span class="key-short">● {} s lease (solid)</span> <span class="key-long">■ {} s lease (dashed)</span> <span>Vertical lines: the two lease lengths.</span></p><details><summary>The numbers</summary><table class="sweep-table"><caption>Runs with a stale overwrite, by pause length</caption><thead><tr><th scope="col">Pause</th><th scope="col">{} s lease</th><th scope="col">{} s lease</th></tr></thead><tbody>{}</tbody></table></details><p class="hint">Try it yourself: <code>fencing-lab sweep --preset lease-x4 --param pause-ms --from 0 --to 60000 --step 5000</code></p></figure>"#,
        TTLS_MS[0] / 1000,
        TTLS_MS[1] / 1000,
        TTLS_MS[0] / 1000,
        TTLS_MS[1] / 1000,
        TTLS_MS[0] / 1000,
        TTLS_MS[1] / 1000,
        rows.join("")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_longer_lease_only_needs_a_longer_pause() {
        let series = series();
        assert_eq!(series[0].len(), 13);
        assert_eq!(
            summary(&series),
            "With a 10 s lease, every run corrupts the store from a pause of 15 s on; with a 40 s lease, from a pause of 45 s on."
        );
        let figure = figure();
        assert_eq!(figure.matches("<tr><th scope=\"row\">").count(), 13);
    }
}
