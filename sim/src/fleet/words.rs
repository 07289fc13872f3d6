//! What a fleet's figures say, in the words the lesson, the page and the
//! command line share: one sentence per claim, read off the runs.

use super::{Quadrupled, TradeRow};
use crate::format_us;
use crate::incident::IncidentKind;

/// 334950 as "334,950".
pub fn thousands(count: u32) -> String {
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

/// A rate per 10,000 jobs as the figures print it.
pub fn per_10k(value: f64) -> String {
    format!("{value:.2}")
}

/// The brief's sentence about quadrupling the lease, if the trade has the
/// shortest lease, four times it (both without fencing or renewal) and
/// fencing at the shortest.
pub fn quadrupling(rows: &[TradeRow]) -> Option<String> {
    let Quadrupled { short, long, fenced } = Quadrupled::of(rows)?;
    Some(format!(
        "Quadrupling the lease cut zombie writes from {} to {} per 10,000 jobs under this pause shape, and raised the wait after a holder's crash from {} to {}. With fencing, {} stale overwrites per 10,000 jobs at the short lease.",
        per_10k(short.zombie_rate.per_10k),
        per_10k(long.zombie_rate.per_10k),
        format_us(short.crash_wait_us),
        format_us(long.crash_wait_us),
        per_10k(fenced.stale_rate.per_10k),
    ))
}

impl IncidentKind {
    /// What happened, after the writer's name.
    pub fn words(self) -> &'static str {
        match self {
            IncidentKind::ZombieWrite => "wrote after its lease had expired",
            IncidentKind::StaleOverwrite => "overwrote newer data",
            IncidentKind::Rejected => "was rejected: its token was stale",
        }
    }
}
