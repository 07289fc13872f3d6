//! "Rarer, not impossible" as a rate: eight workers running 200 ms jobs for
//! a simulated day, their pauses drawn as a CPU-throttled container's, at a
//! 10 s and a 40 s lease, and with fencing at 10 s. The model runs the
//! fleets when the site is built (once per build: a few seconds); the page
//! states what they measured, beside the wait a genuine crash costs.

use fencing_sim::fleet::{self, TradeRow};
use fencing_sim::pauses::PauseShape;
use fencing_sim::permalink::fleet::{to_query, FleetLink, DEFAULT_FLEET};
use std::sync::OnceLock;

pub const WORKERS: u8 = 8;
pub const SPAN_MS: u64 = 86_400_000;
pub const TTLS_MS: [u64; 2] = [10_000, 40_000];

/// The lesson's fleet, as the page's fleet view opens it: the default
/// fleet (a day of throttled containers) with eight workers.
fn lesson_fleet() -> FleetLink {
    FleetLink { workers: WORKERS, span_ms: SPAN_MS, pauses: PauseShape::ThrottledContainer, ..DEFAULT_FLEET }
}

/// The three rows: 10 s, 40 s, and fencing at 10 s.
pub fn rows() -> &'static [TradeRow] {
    static ROWS: OnceLock<Vec<TradeRow>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let base = lesson_fleet().scenario();
        fleet::trade(&base, &TTLS_MS, false).expect("the lesson's fleet is valid")
    })
}

/// The sentence the figure states, read off the runs.
pub fn summary(rows: &[TradeRow]) -> String {
    fleet::quadrupling(rows).expect("the lesson's trade has 10 s, 40 s and fencing")
}

pub fn figure() -> String {
    let rows = rows();
    let shape = PauseShape::ThrottledContainer.facts().expect("a built-in shape");
    format!(
        r#"<figure class="fleet-trade" data-testid="fleet-trade"><figcaption>{WORKERS} workers running 200 ms jobs for a simulated day, pausing as in a {} ({}).</figcaption><p class="sweep-summary fleet-summary">{}</p>{}<p class="hint">Try it yourself: <code>fencing-lab fleet --workers {WORKERS} --span-ms {SPAN_MS} --pauses throttled_container --trade 10000,40000</code>, or <a href="{}">the fleet view</a>.</p></figure>"#,
        shape.name,
        crate::escape(shape.basis),
        summary(rows),
        crate::fleet_chart::trade_table(rows),
        crate::escape(&format!("../?view=fleet&{}", to_query(&lesson_fleet()))),
    )
}
