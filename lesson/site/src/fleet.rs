//! "Rarer, not impossible" as a rate: eight workers running 200 ms jobs for
//! a simulated day, their pauses drawn as a CPU-throttled container's, at a
//! 10 s and a 40 s lease, and with fencing at 10 s. The model runs the
//! fleets when the site is built (once per build: a few seconds); the page
//! states what they measured, beside the wait a genuine crash costs.

use fencing_sim::fleet::{self, TradeRow};
use fencing_sim::format_us;
use fencing_sim::pauses::PauseShape;
use std::sync::OnceLock;

pub const WORKERS: u8 = 8;
pub const SPAN_MS: u64 = 86_400_000;
pub const TTLS_MS: [u64; 2] = [10_000, 40_000];

/// The three rows: 10 s, 40 s, and fencing at 10 s.
pub fn rows() -> &'static [TradeRow] {
    static ROWS: OnceLock<Vec<TradeRow>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let base = fleet::base(WORKERS, SPAN_MS, PauseShape::ThrottledContainer);
        fleet::trade(&base, &TTLS_MS, false).expect("the lesson's fleet is valid")
    })
}

/// 334950 as "334,950".
fn thousands(count: u32) -> String {
    let digits = count.to_string();
    let mut out = String::new();
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn per_10k(value: f64) -> String {
    format!("{value:.2}")
}

/// The sentence the figure states, read off the runs.
pub fn summary(rows: &[TradeRow]) -> String {
    let (short, long, fenced) = (&rows[0], &rows[1], &rows[2]);
    format!(
        "Quadrupling the lease cut zombie writes from {} to {} per 10,000 jobs, and raised the wait after a holder's crash from {} to {}. With fencing, {} stale overwrites per 10,000 jobs at the short lease.",
        per_10k(short.zombie_rate.per_10k),
        per_10k(long.zombie_rate.per_10k),
        format_us(short.crash_wait_us),
        format_us(long.crash_wait_us),
        per_10k(fenced.stale_rate.per_10k),
    )
}

pub fn figure() -> String {
    let rows = rows();
    let shape = PauseShape::ThrottledContainer.facts().expect("a built-in shape");
    let mut body = String::new();
    for row in rows {
        let (label, rate) = if row.fencing { ("fencing on", &row.stale_rate) } else { ("fencing off", &row.zombie_rate) };
        let what = if row.fencing { "stale overwrites" } else { "zombie writes" };
        body += &format!(
            r#"<tr><th scope="row">{} s, {label}</th><td data-label="Per 10,000 jobs">{} {what} ({}–{})</td><td data-label="Jobs">{}</td><td data-label="Wait after a crash">{}</td></tr>"#,
            row.ttl_ms / 1000,
            per_10k(rate.per_10k),
            per_10k(rate.low),
            per_10k(rate.high),
            thousands(row.jobs),
            format_us(row.crash_wait_us),
        );
    }
    format!(
        r#"<figure class="fleet-trade" data-testid="fleet-trade"><figcaption>{WORKERS} workers running 200 ms jobs for a simulated day, pausing as in a {} ({}).</figcaption><p class="sweep-summary fleet-summary">{}</p><table class="lesson-table"><caption>Per 10,000 jobs, with the 95 % interval; the wait is from a holder's crash to the next grant</caption><thead><tr><th scope="col">Lease</th><th scope="col">Per 10,000 jobs</th><th scope="col">Jobs</th><th scope="col">Wait after a crash</th></tr></thead><tbody>{body}</tbody></table><p class="hint">Try it yourself: <code>fencing-lab fleet --workers {WORKERS} --span-ms {SPAN_MS} --pauses throttled_container --trade 10000,40000</code></p></figure>"#,
        shape.name,
        crate::escape(shape.basis),
        summary(rows),
    )
}
