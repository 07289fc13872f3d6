//! What a command will cost, worked out before any of it is done, so that
//! no input can make the command line run for hours or run out of memory.
//!
//! Two measures, one per kind of run:
//! - a story's run keeps every event (its trace): it costs its event bound
//!   at most, so a command of story runs (`run`, `sweep`, `explore`) costs
//!   runs × `events_max`, and keeps one trace at a time, of at most
//!   `scenario::EVENTS_MAX` events and its last line;
//! - a fleet's run keeps only counters: it costs simulated time × workers,
//!   and its events are bounded too, the command's event budget shared
//!   among its runs (a run that reaches its share says it was cut short).
//!
//! A command over a limit is refused with the limit, its own figure and
//! what to reduce; work long enough to wait for reports its progress on
//! stderr. The figures for the limits are in docs/hostile-input.md.

use crate::output::say;
use fencing_sim::scenario::FLEET_EVENTS_MAX;

/// The most events one command of story runs may simulate: about four and
/// a half minutes at the rate of the busiest valid run (5 workers on a 3 ms
/// lease renewed every millisecond: 200,000 events in 0.18 s, 1.1 million
/// a second, in a sweep). Every preset's full search keeps within it (the
/// largest, consensus-leader-crash's, is 27,161 runs of up to 10,000).
pub const STORY_EVENTS_MAX: u64 = 300_000_000;
/// The most simulated worker-time one fleet command may run, in
/// worker-milliseconds: four weeks of a 64-worker fleet (a week of it took
/// 42 s on this machine).
pub const FLEET_WORKER_MS_MAX: u64 = 4 * 64 * 7 * 24 * 3_600_000;
/// The most events one fleet command may simulate, shared among its runs:
/// about two minutes at the 4 million a second a counters-only run
/// makes. A fleet's own bound (`FLEET_EVENTS_MAX`, the page's) is four
/// times this; a 64-worker week of the default fleet takes a third of it.
pub const FLEET_COMMAND_EVENTS_MAX: u64 = 500_000_000;
/// Work beyond this many events (story runs) is long enough to report.
pub const PROGRESS_EVENTS_MIN: u64 = 10_000_000;
/// Fleet work beyond this many worker-ms (a 16-worker day) is reported.
pub const PROGRESS_WORKER_MS_MIN: u64 = 16 * 24 * 3_600_000;

/// Checks a command of `runs` story runs, each stopping at `events_max`
/// events; `reduce` says what to make smaller. The command's worst case in
/// events, when it is allowed.
pub fn stories(what: &str, runs: u64, events_max: u32, reduce: &str) -> Result<u64, String> {
    let events = runs.saturating_mul(u64::from(events_max));
    if events > STORY_EVENTS_MAX {
        return Err(format!(
            "{what} would simulate up to {events} events ({runs} runs of up to {events_max}); a command simulates at most {STORY_EVENTS_MAX}: {reduce}"
        ));
    }
    Ok(events)
}

/// Checks a command of `runs` fleet runs of `workers` for `span_ms`. The
/// event bound each run gets: its share of the command's budget.
pub fn fleets(what: &str, runs: u64, workers: u8, span_ms: u64) -> Result<u32, String> {
    let worker_ms = runs.saturating_mul(u64::from(workers)).saturating_mul(span_ms);
    if worker_ms > FLEET_WORKER_MS_MAX {
        return Err(format!(
            "{what} would simulate {worker_ms} worker-ms ({runs} runs × {workers} workers × {span_ms} ms); a command simulates at most {FLEET_WORKER_MS_MAX}: take fewer workers, a shorter --span-ms or fewer lease lengths"
        ));
    }
    // At least one run: `runs` is never 0 here, but the share must not divide by it.
    let share = FLEET_COMMAND_EVENTS_MAX / runs.max(1);
    Ok(u32::try_from(share).unwrap_or(FLEET_EVENTS_MAX))
}

/// Progress on stderr for long work: a line at each tenth done, counted
/// (not timed), so the same command always says the same.
pub struct Progress {
    what: String,
    total: u64,
    /// Tenths already reported.
    said: u64,
    on: bool,
}

impl Progress {
    pub fn new(what: &str, total: u64, on: bool) -> Progress {
        if on {
            say(&format!("fencing-lab: {what}: 0 of {total}"));
        }
        Progress { what: what.to_string(), total: total.max(1), said: 0, on }
    }

    /// `done` of the total are done.
    pub fn at(&mut self, done: u64) {
        let tenths = done.min(self.total) * 10 / self.total;
        if self.on && tenths > self.said {
            self.said = tenths;
            say(&format!("fencing-lab: {}: {done} of {}", self.what, self.total));
        }
    }
}
