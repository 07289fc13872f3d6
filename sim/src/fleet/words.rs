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
        lasting(short.crash_wait_us),
        lasting(long.crash_wait_us),
        per_10k(fenced.stale_rate.per_10k),
    ))
}

/// What happened in an incident of `kind`, after the writer's name.
pub fn incident_words(kind: IncidentKind) -> &'static str {
    match kind {
        IncidentKind::ZombieWrite => "wrote after its lease had expired",
        IncidentKind::StaleOverwrite => "overwrote newer data",
        IncidentKind::Rejected => "was rejected: its token was stale",
    }
}

/// A moment of a fleet's simulated time, the one way the fleet's words
/// write it: "day 1, 00:20:29" (the run starts at day 1, 00:00:00).
pub fn when(t_us: u64) -> String {
    let seconds = t_us / 1_000_000;
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    format!("day {}, {:02}:{:02}:{:02}", days + 1, rest / 3600, rest % 3600 / 60, rest % 60)
}

/// The same moment to the millisecond, for the events of an incident's
/// story: "day 1, 00:20:29.321".
pub fn when_to_ms(t_us: u64) -> String {
    format!("{}.{:03}", when(t_us), t_us / 1000 % 1000)
}

/// A length of a fleet's simulated time, the one way the fleet's words
/// write it: as a story's times below a minute ("120.0 ms", "9.692 s"),
/// then "3 min 13 s", "2 h 05 min", "1 day", "1 day 2 h".
pub fn lasting(us: u64) -> String {
    let seconds = us / 1_000_000;
    match () {
        _ if us < 60_000_000 => format_us(us),
        _ if seconds < 3600 => match seconds % 60 {
            0 => format!("{} min", seconds / 60),
            rest => format!("{} min {rest} s", seconds / 60),
        },
        _ if seconds < 86_400 => match seconds % 3600 / 60 {
            0 => format!("{} h", seconds / 3600),
            minutes => format!("{} h {minutes:02} min", seconds / 3600),
        },
        _ => {
            let (days, hours) = (seconds / 86_400, seconds % 86_400 / 3600);
            let unit = if days == 1 { "day" } else { "days" };
            match hours {
                0 => format!("{days} {unit}"),
                hours => format!("{days} {unit} {hours} h"),
            }
        }
    }
}

/// What the same trade under the bounded shape says: the shortest lease's
/// rate, the first lease with no zombie write (if any), the crash wait it
/// costs, and that the zero rests on a bound production does not promise.
pub fn bounded(rows: &[TradeRow], bound: &crate::pauses::Bound) -> Option<String> {
    let mut plain: Vec<&TradeRow> = rows.iter().filter(|row| !row.fencing && !row.renewal).collect();
    plain.sort_by_key(|row| row.ttl_ms);
    let short = *plain.first()?;
    let cap = format!("{} ({})", bound.words, bound.source);
    let lease = |row: &TradeRow| lasting(row.ttl_ms * 1000);
    let zero = plain.iter().find(|row| row.zombie_rate.per_10k == 0.0);
    let first = match zero {
        Some(zero) if zero.ttl_ms == short.ttl_ms => format!(
            "With every pause capped at {cap}, a {} lease already had no zombie write, and a holder's crash keeps everyone waiting {}.",
            lease(short),
            lasting(short.crash_wait_us)
        ),
        Some(zero) => format!(
            "With every pause capped at {cap}, zombie writes fell from {} per 10,000 jobs at a {} lease to none at {}{}, and a holder's crash then keeps everyone waiting {}.",
            per_10k(short.zombie_rate.per_10k),
            lease(short),
            lease(zero),
            if zero.ttl_ms * 1000 > bound.cap_us { ", a lease longer than the cap" } else { "" },
            lasting(zero.crash_wait_us)
        ),
        None => {
            let longest = *plain.last()?;
            format!(
                "With every pause capped at {cap}, zombie writes fell from {} per 10,000 jobs at a {} lease to {} at {}, still not zero.",
                per_10k(short.zombie_rate.per_10k),
                lease(short),
                per_10k(longest.zombie_rate.per_10k),
                lease(longest)
            )
        }
    };
    let honest = if zero.is_some() {
        "That zero is bought by knowing the longest pause: in production no one knows it, so no lease length can promise it; a fencing token does not need to know."
    } else {
        "Only a lease longer than the cap is sure to reach zero, and only because the cap is known: in production no one knows the longest pause; a fencing token does not need to know."
    };
    Some(format!("{first} {honest}"))
}
