//! "Rarer, not impossible" as a rate: eight workers running 200 ms jobs for
//! a simulated day, their pauses drawn as a CPU-throttled container's, at a
//! 10 s and a 40 s lease, and with fencing at 10 s. The model runs the
//! fleets when the site is built (once per build: a few seconds); the page
//! states what they measured, beside the wait a genuine crash costs.

use fencing_sim::fleet::{self, TradeRow};
use fencing_sim::permalink::fleet::{to_query, LESSON_FLEET, QUADRUPLED_TTLS_MS};
use std::sync::OnceLock;

/// The lesson's fleet is the quiz's (the rate question compares the same
/// runs), as the page's fleet view opens it.
pub const WORKERS: u8 = LESSON_FLEET.workers;
pub const SPAN_MS: u64 = LESSON_FLEET.span_ms;
pub const TTLS_MS: [u64; 2] = QUADRUPLED_TTLS_MS;

/// The three rows: 10 s, 40 s, and fencing at 10 s.
pub fn rows() -> &'static [TradeRow] {
    static ROWS: OnceLock<Vec<TradeRow>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let base = LESSON_FLEET.scenario();
        fleet::trade(&base, &TTLS_MS, false).expect("the lesson's fleet is valid")
    })
}

/// The sentence the figure states, read off the runs.
pub fn summary(rows: &[TradeRow]) -> String {
    fleet::quadrupling(rows).expect("the lesson's trade has 10 s, 40 s and fencing")
}

pub fn figure() -> String {
    let rows = rows();
    let shape = LESSON_FLEET.pauses.facts().expect("a built-in shape");
    format!(
        r#"<figure class="fleet-trade" data-testid="fleet-trade"><figcaption>{WORKERS} workers running 200 ms jobs for a simulated day, pausing as in a {} ({}).</figcaption><p class="sweep-summary fleet-summary">{}</p>{}<p class="hint">Try it yourself: <code>fencing-lab fleet --workers {WORKERS} --span-ms {SPAN_MS} --pauses throttled_container --trade 10000,40000</code>, or <a href="{}">the fleet view</a>.</p></figure>"#,
        shape.name,
        crate::escape(shape.basis),
        summary(rows),
        crate::fleet_chart::trade_table(rows),
        crate::escape(&format!("../?view=fleet&{}", to_query(&LESSON_FLEET))),
    )
}
