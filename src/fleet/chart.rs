//! A fleet's figures as markup: the counters, the cumulative chart, the
//! incidents' labels and story, and the lease trade's two charts. Every number
//! is the core's (`fleet::FleetReport`, `fleet::TradeRow`, `Incident::story`);
//! this decides only where it goes. Each series has a colour, a dash and a
//! marker shape, so no reading depends on colour alone.

use crate::escape;
use fencing_sim::fleet::{lasting, per_10k, thousands, FleetReport, Rate, Story, TradeRow};
use fencing_sim::incident::{Incident, IncidentKind};
use fencing_sim::{Actor, Trace};
use std::fmt::Write;

/// The chart's drawing box, in SVG units (it scales to its container).
const WIDTH: i32 = 420;
const HEIGHT: i32 = 220;
const LEFT: i32 = 56;
const RIGHT: i32 = 16;
const TOP: i32 = 14;
const BOTTOM: i32 = 40;

/// One of the three counters: its class (colour and dash), its marker, its name.
struct Series {
    class: &'static str,
    glyph: &'static str,
    name: &'static str,
}

const ZOMBIE: Series = Series { class: "zombie", glyph: "●", name: "Zombie writes" };
const STALE: Series = Series { class: "stale", glyph: "▲", name: "Stale overwrites" };
const REJECTED: Series = Series { class: "rejected", glyph: "■", name: "Rejected writes" };

/// Simulated time as the fleet's words write it: "day 1, 02:14:07".
pub fn clock(t_us: u64) -> String {
    fencing_sim::fleet::when(t_us)
}

fn rate_words(rate: &Rate) -> String {
    format!("{} per 10,000 jobs (95 %: {}–{})", per_10k(rate.per_10k), per_10k(rate.low), per_10k(rate.high))
}

/// The counters, each with its rate per 10,000 jobs and interval.
pub fn counters(report: &FleetReport) -> String {
    let mut html = String::from(r#"<dl class="fleet-counters" data-testid="fleet-counters">"#);
    for (series, count, rate) in [
        (&ZOMBIE, report.zombie_writes, &report.zombie_rate),
        (&STALE, report.stale_overwrites, &report.stale_rate),
        (&REJECTED, report.rejected_writes, &report.rejected_rate),
    ] {
        let _ = write!(
            html,
            r#"<div class="fleet-counter {class}" data-testid="fleet-{class}"><dt><span class="series-glyph" aria-hidden="true">{glyph}</span> {name}</dt><dd><span class="count">{count}</span> <span class="rate">{rate}</span></dd></div>"#,
            class = series.class,
            glyph = series.glyph,
            name = series.name,
            count = thousands(count),
            rate = rate_words(rate),
        );
    }
    let _ = write!(
        html,
        r#"<div class="fleet-counter"><dt>Jobs</dt><dd><span class="count" data-testid="fleet-jobs">{}</span></dd></div><div class="fleet-counter"><dt>Pauses</dt><dd><span class="count" data-testid="fleet-pauses">{}</span> <span class="rate">the longest {}</span></dd></div></dl>"#,
        thousands(report.jobs),
        thousands(report.pauses),
        lasting(report.longest_pause_us),
    );
    html
}

/// A step line through `points` (x, y in SVG units), ending in its marker.
fn step_line(points: &[(i32, i32)], series: &Series) -> String {
    let Some(&(end_x, end_y)) = points.last() else { return String::new() };
    // From zero at the start; each slice's count is reached by its end.
    let mut path = format!("M{LEFT},{}", TOP + HEIGHT - TOP - BOTTOM);
    for &(x, y) in points {
        let _ = write!(path, " H{x} V{y}");
    }
    format!(r#"<path class="line {}" d="{path}"/>{}"#, series.class, marker(series, end_x, end_y))
}

/// The series' marker shape at (x, y).
fn marker(series: &Series, x: i32, y: i32) -> String {
    match series.glyph {
        "▲" => format!(r#"<path class="mark {}" d="M{x},{} l6,10 h-12 z"/>"#, series.class, y - 6),
        "■" => format!(r#"<rect class="mark {}" x="{}" y="{}" width="10" height="10"/>"#, series.class, x - 5, y - 5),
        "◆" => format!(r#"<path class="mark {}" d="M{x},{} l7,7 l-7,7 l-7,-7 z"/>"#, series.class, y - 7),
        _ => format!(r#"<circle class="mark {}" cx="{x}" cy="{y}" r="5"/>"#, series.class),
    }
}

/// A round axis top at or above `highest`: 1, 2, 5 × a power of ten.
fn nice_top(highest: f64) -> f64 {
    let mut step = 1.0;
    for _ in 0..40 {
        for multiple in [1.0, 2.0, 5.0] {
            if step * multiple >= highest {
                return step * multiple;
            }
        }
        step *= 10.0;
    }
    step
}

/// The counters climbing over the span, to scale on both axes.
pub fn timeline(report: &FleetReport, span_us: u64) -> String {
    let end_us = span_us.max(report.end_us).max(1);
    let highest = report.timeline.last().map_or(0, |point| point.zombie_writes.max(point.rejected_writes));
    let top = nice_top(f64::from(highest.max(1)));
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let x_of = |t_us: u64| LEFT + (t_us.min(end_us) as f64 / end_us as f64 * f64::from(plot_w)).round() as i32;
    let y_of = |count: u32| TOP + plot_h - (f64::from(count) / top * f64::from(plot_h)).round() as i32;
    let mut svg = format!(
        r#"<svg class="fleet-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="fleet-chart-title" data-testid="fleet-chart"><title id="fleet-chart-title">{}</title>"#,
        escape(&chart_title(report, end_us)),
    );
    let _ = write!(svg, r#"<path class="axis" d="M{LEFT},{TOP} V{} H{}"/>"#, TOP + plot_h, LEFT + plot_w);
    for count in [0.0, top / 2.0, top] {
        let y = TOP + plot_h - (count / top * f64::from(plot_h)).round() as i32;
        let _ = write!(svg, r#"<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>"#, LEFT - 6, y + 4, count);
    }
    for slice in 0..=2u64 {
        let t_us = end_us * slice / 2;
        let anchor = ["start", "middle", "end"][slice as usize];
        let _ = write!(svg, r#"<text class="tick" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#, x_of(t_us), HEIGHT - 22, clock(t_us));
    }
    let _ = write!(svg, r#"<text class="tick" x="{}" y="{}" text-anchor="middle">simulated time</text>"#, LEFT + plot_w / 2, HEIGHT - 4);
    let series: [(&Series, Count); 3] =
        [(&REJECTED, |point| point.rejected_writes), (&ZOMBIE, |point| point.zombie_writes), (&STALE, |point| point.stale_overwrites)];
    for (series, count) in series {
        let points: Vec<(i32, i32)> = report.timeline.iter().map(|point| (x_of(point.t_us), y_of(count(point)))).collect();
        svg.push_str(&step_line(&points, series));
    }
    svg.push_str("</svg>");
    svg + &legend()
}

/// Reads one counter off a timeline point.
type Count = fn(&fencing_sim::fleet::Point) -> u32;

fn chart_title(report: &FleetReport, end_us: u64) -> String {
    format!(
        "Counters over {} of simulated time: {} zombie writes, {} stale overwrites, {} rejected writes",
        lasting(end_us),
        report.zombie_writes,
        report.stale_overwrites,
        report.rejected_writes
    )
}

fn legend() -> String {
    let mut html = String::from(r#"<ul class="fleet-legend" aria-hidden="true">"#);
    for series in [&ZOMBIE, &STALE, &REJECTED] {
        let _ = write!(html, r#"<li class="{}"><span class="series-glyph">{}</span> {}</li>"#, series.class, series.glyph, series.name);
    }
    html + "</ul>"
}

/// One incident as the picker lists it.
pub fn incident_label(incident: &Incident, nth: usize, total: u32) -> String {
    let pause = match (incident.pause_us, incident.paused_at_us) {
        (Some(pause_us), Some(at_us)) => format!(" paused {} at {} and", lasting(pause_us), clock(at_us)),
        _ => String::new(),
    };
    format!(
        "Incident {} of {total}: {}{pause} {} at {}",
        nth + 1,
        incident.writer,
        fencing_sim::fleet::incident_words(incident.kind),
        clock(incident.t_us)
    )
}

/// The window's story: the events that tell it, the incident's write marked.
pub fn story(trace: &Trace, story: &Story, incident: &Incident) -> String {
    let mut html = String::new();
    let who = match story.other {
        Some(other) => format!("{} and {}", story.writer, other),
        None => story.writer.to_string(),
    };
    let _ = write!(
        html,
        r#"<p class="hint">What {who} did around it, from a replay of the same run ({} other jobs started while {} was paused; they are left out).</p><ol class="fleet-story" tabindex="0" aria-label="What happened around the incident" data-testid="fleet-story">"#,
        story.jobs_during_pause, story.writer,
    );
    for (index, time, text) in story.lines(trace) {
        let Some(event) = trace.events.get(index as usize) else { continue };
        let is_write = event.t_us == incident.t_us && is_write_by(event, story.writer);
        let class = if is_write { incident_class(incident.kind) } else { "" };
        let _ = write!(html, r#"<li class="{class}"><time>{}</time> <span>{}</span></li>"#, escape(&time), escape(&text));
    }
    html + "</ol>"
}

fn is_write_by(event: &fencing_sim::Event, writer: Actor) -> bool {
    matches!(event.kind, fencing_sim::Kind::WriteAccepted { writer: by, .. } | fencing_sim::Kind::WriteRejected { writer: by, .. } if by == writer)
}

fn incident_class(kind: IncidentKind) -> &'static str {
    match kind {
        IncidentKind::Rejected => "row-rejected",
        _ => "row-zombie",
    }
}

/// The trade's two charts: zombie writes per 10,000 jobs against the lease
/// (each lease's 95 % interval as a bar), and the wait after a holder's
/// crash against the lease; fencing as its own point on both.
pub fn trade(rows: &[TradeRow]) -> String {
    trade_with(rows, "fleet-trade")
}

/// The trade's charts with their ids (and test ids) starting `id`, so two
/// trades can share a page.
pub fn trade_with(rows: &[TradeRow], id: &str) -> String {
    let plain: Vec<&TradeRow> = rows.iter().filter(|row| !row.fencing && !row.renewal).collect();
    let renewed: Vec<&TradeRow> = rows.iter().filter(|row| row.renewal).collect();
    let fenced = rows.iter().find(|row| row.fencing);
    let ttls: Vec<u64> = rows.iter().map(|row| row.ttl_ms).collect();
    let (low_ms, high_ms) = (ttls.iter().copied().min().unwrap_or(1), ttls.iter().copied().max().unwrap_or(1));
    let axis = LeaseAxis { low_ms, high_ms };
    let rate_top = nice_top(rows.iter().map(|row| row.zombie_rate.high).fold(0.01, f64::max));
    let wait_top = nice_top(rows.iter().map(|row| row.crash_wait_us as f64 / 1e6).fold(1.0, f64::max));
    let zombies = chart(
        &format!("{id}-zombies"),
        "Zombie writes per 10,000 jobs",
        &axis,
        rate_top,
        &[
            (&ZOMBIE, &plain, |row| (row.zombie_rate.per_10k, Some(row.zombie_rate))),
            (&RENEWED, &renewed, |row| (row.zombie_rate.per_10k, Some(row.zombie_rate))),
        ],
        fenced.map(|row| (row.ttl_ms, row.stale_rate.per_10k)),
    );
    let waits = chart(
        &format!("{id}-waits"),
        "Wait after a holder's crash, seconds",
        &axis,
        wait_top,
        &[(&WAIT, &plain, |row| (row.crash_wait_us as f64 / 1e6, None))],
        fenced.map(|row| (row.ttl_ms, row.crash_wait_us as f64 / 1e6)),
    );
    format!(r#"<div class="fleet-trade-charts">{zombies}{waits}</div>{}"#, trade_legend(!renewed.is_empty(), fenced.is_some()))
}

const RENEWED: Series = Series { class: "renewed", glyph: "◆", name: "With renewal at ttl/3" };
const WAIT: Series = Series { class: "wait", glyph: "●", name: "Without fencing" };
const FENCED: Series = Series { class: "fenced", glyph: "■", name: "Fencing at the shortest lease" };

/// The renewal series sits this far right of the plain one, so their
/// interval bars do not hide each other.
const RENEWED_OFFSET: i32 = 8;

/// Lease lengths on a logarithmic axis (the trade doubles them).
struct LeaseAxis {
    low_ms: u64,
    high_ms: u64,
}

impl LeaseAxis {
    fn x(&self, ttl_ms: u64) -> i32 {
        let plot_w = f64::from(WIDTH - LEFT - RIGHT - 24);
        let span = (self.high_ms as f64 / self.low_ms as f64).ln();
        let at = if span > 0.0 { (ttl_ms as f64 / self.low_ms as f64).ln() / span } else { 0.5 };
        LEFT + 12 + (at * plot_w).round() as i32
    }
}

type Reading = fn(&TradeRow) -> (f64, Option<Rate>);

/// One of the trade's charts: each series a line with markers (and its
/// interval bars), the fenced point apart.
fn chart(
    id: &str,
    title: &str,
    axis: &LeaseAxis,
    top: f64,
    series: &[(&Series, &[&TradeRow], Reading)],
    fenced: Option<(u64, f64)>,
) -> String {
    let plot_h = HEIGHT - TOP - BOTTOM;
    let y_of = |value: f64| TOP + plot_h - (value.min(top) / top * f64::from(plot_h)).round() as i32;
    let mut svg = format!(
        r#"<figure class="fleet-trade-chart"><figcaption id="{id}-title">{title}</figcaption><svg class="fleet-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{id}-title" data-testid="{id}">"#
    );
    let _ = write!(svg, r#"<path class="axis" d="M{LEFT},{TOP} V{} H{}"/>"#, TOP + plot_h, WIDTH - RIGHT);
    for value in [0.0, top / 2.0, top] {
        let _ = write!(svg, r#"<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>"#, LEFT - 6, y_of(value) + 4, value);
    }
    let mut leases: Vec<u64> = series.iter().flat_map(|(_, rows, _)| rows.iter().map(|row| row.ttl_ms)).collect();
    leases.dedup();
    for ttl_ms in leases {
        let _ =
            write!(svg, r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{} s</text>"#, axis.x(ttl_ms), HEIGHT - 22, ttl_ms / 1000);
    }
    let _ = write!(svg, r#"<text class="tick" x="{}" y="{}" text-anchor="middle">lease</text>"#, (LEFT + WIDTH) / 2, HEIGHT - 4);
    for (kind, rows, read) in series {
        let shift = if kind.class == RENEWED.class { RENEWED_OFFSET } else { 0 };
        let points: Vec<(i32, i32)> = rows.iter().map(|row| (axis.x(row.ttl_ms) + shift, y_of(read(row).0))).collect();
        for row in rows.iter() {
            if let (_, Some(rate)) = read(row) {
                let x = axis.x(row.ttl_ms) + shift;
                let _ = write!(svg, r#"<path class="interval {}" d="M{x},{} V{}"/>"#, kind.class, y_of(rate.low), y_of(rate.high));
            }
        }
        let path: Vec<String> = points.iter().map(|(x, y)| format!("{x},{y}")).collect();
        let _ = write!(svg, r#"<polyline class="line {}" points="{}"/>"#, kind.class, path.join(" "));
        for &(x, y) in &points {
            svg.push_str(&marker(kind, x, y));
        }
    }
    if let Some((ttl_ms, value)) = fenced {
        svg.push_str(&marker(&FENCED, axis.x(ttl_ms), y_of(value)));
    }
    svg + "</svg></figure>"
}

fn trade_legend(renewal: bool, fencing: bool) -> String {
    let mut html = String::from(r#"<ul class="fleet-legend" aria-hidden="true">"#);
    let shown = [(&ZOMBIE, true), (&RENEWED, renewal), (&FENCED, fencing)];
    for (series, show) in shown {
        if show {
            let name = if series.class == "zombie" { "Without fencing (bars: 95 % interval)" } else { series.name };
            let _ = write!(html, r#"<li class="{}"><span class="series-glyph">{}</span> {name}</li>"#, series.class, series.glyph);
        }
    }
    html + "</ul>"
}

/// The trade as a table (what the charts draw, for a screen reader and for print).
pub fn trade_table(rows: &[TradeRow]) -> String {
    let mut html = String::from(
        r#"<table class="lesson-table fleet-trade-table" data-testid="fleet-trade-table"><caption>Each lease, per 10,000 jobs with the 95 % interval; the wait is from a holder's crash to the next grant</caption><thead><tr><th scope="col">Lease</th><th scope="col">Per 10,000 jobs</th><th scope="col">Jobs</th><th scope="col">Wait after a crash</th></tr></thead><tbody>"#,
    );
    for row in rows {
        let (fix, rate, what) = match (row.fencing, row.renewal) {
            (true, _) => ("fencing on", &row.stale_rate, "stale overwrites"),
            (false, true) => ("renewal at ttl/3", &row.zombie_rate, "zombie writes"),
            _ => ("no fix", &row.zombie_rate, "zombie writes"),
        };
        let _ = write!(
            html,
            r#"<tr><th scope="row">{} s, {fix}</th><td data-label="Per 10,000 jobs">{} {what} ({}–{})</td><td data-label="Jobs">{}</td><td data-label="Wait after a crash">{}</td></tr>"#,
            row.ttl_ms / 1000,
            per_10k(rate.per_10k),
            per_10k(rate.low),
            per_10k(rate.high),
            thousands(row.jobs),
            lasting(row.crash_wait_us),
        );
    }
    html + "</tbody></table>"
}

/// Natively (`cargo test -p fencing-lab-web --lib`): the chart is a string
/// of the core's figures, so it is checked here without a browser.
#[cfg(test)]
mod tests {
    use super::*;
    use fencing_sim::fleet::{base, run, shipped};
    use fencing_sim::pauses::{PauseLaw, PauseShape};
    use fencing_sim::Scenario;

    /// Frequent, long pauses (median 2 s, p99 30 s, ten a minute), so five
    /// simulated minutes of eight workers have incidents; fixed seed.
    fn stormy_report() -> FleetReport {
        let stormy = PauseShape::Custom(PauseLaw {
            median_us: 2_000_000,
            p99_us: 30_000_000,
            tail_exponent_milli: 1_000,
            per_hour: 600,
            cap_us: None,
        });
        run(&Scenario { seed: 1, ..base(8, 300_000, stormy) }).expect("a valid fleet")
    }

    #[test]
    fn axis_tops_are_one_two_or_five_times_a_power_of_ten() {
        for (highest, top) in [(0.3, 1.0), (1.0, 1.0), (1.5, 2.0), (3.0, 5.0), (7.0, 10.0), (11.0, 20.0), (500.0, 500.0), (501.0, 1000.0)] {
            assert_eq!(nice_top(highest), top, "{highest}");
        }
        assert!(nice_top(f64::MAX).is_finite(), "bounded: forty decades at most");
    }

    #[test]
    fn clock_counts_days_from_one() {
        assert_eq!(clock(0), "day 1, 00:00:00");
        assert_eq!(clock(90_061_000_000), "day 2, 01:01:01");
    }

    #[test]
    fn the_counters_and_timeline_carry_the_reports_figures() {
        let report = stormy_report();
        assert!(report.zombie_writes > 0 && !report.incidents.is_empty(), "a stormy fleet has incidents");
        let html = counters(&report);
        for class in ["zombie", "stale", "rejected"] {
            assert_eq!(html.matches(&format!(r#"data-testid="fleet-{class}""#)).count(), 1, "{html}");
        }
        assert!(html.contains(&format!(r#"data-testid="fleet-jobs">{}<"#, thousands(report.jobs))), "{html}");
        let svg = timeline(&report, 300_000_000);
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"), "{svg}");
        assert_eq!(svg.matches(r#"<path class="line "#).count(), 3, "one step line per counter");
        assert!(svg.contains(&format!("{} zombie writes", report.zombie_writes)), "the title says the count: {svg}");
        // The axis runs to the span's end, or to the run's if a pause took it past the span.
        let end = format!(">{}<", clock(report.end_us.max(300_000_000)));
        assert!(svg.contains(">day 1, 00:00:00<") && svg.contains(&end), "the axis runs from 0 to {end}: {svg}");
    }

    #[test]
    fn an_incidents_label_names_it_and_its_moment() {
        let report = stormy_report();
        assert!(!report.incidents.is_empty(), "the stormy fleet has incidents");
        let label = incident_label(&report.incidents[0], 0, report.incidents_total);
        assert!(label.contains(&clock(report.incidents[0].t_us)), "{label}");
    }

    #[test]
    fn the_trade_draws_both_charts_and_a_table_row_per_lease() {
        let rows = shipped::TRADE;
        let fenced = rows.iter().filter(|row| row.fencing).count();
        assert!(fenced >= 1 && rows.len() > fenced, "the shipped trade has leases and a fenced point");
        let html = trade(rows);
        for id in ["fleet-trade-zombies", "fleet-trade-waits"] {
            assert_eq!(html.matches(&format!(r#"data-testid="{id}""#)).count(), 1, "{id}");
        }
        assert_eq!(html.matches(r#"class="mark fenced""#).count(), 2, "fencing is its own point on both charts");
        let with_interval = rows.iter().filter(|row| !row.fencing).count();
        assert_eq!(html.matches(r#"<path class="interval "#).count(), with_interval, "a 95 % bar per unfenced lease");
        assert!(trade_with(rows, "side-a").contains(r#"data-testid="side-a-zombies""#), "a second trade's ids are its own");
        let table = trade_table(rows);
        assert_eq!(table.matches("<tr><th scope=\"row\">").count(), rows.len());
        assert_eq!(table.matches(", fencing on</th>").count(), fenced);
        assert!(table.contains("<th scope=\"row\">10 s, no fix</th>"), "{table}");
    }
}
