//! A fleet run's figures: how many jobs, pauses and incidents, the rates
//! per 10,000 jobs with 95 % intervals, the counters as they climbed over
//! the span, and the trade a lease length buys — zombie writes against the
//! time a genuine holder's crash keeps everyone waiting — as the brief
//! states it. Every figure is the model's: runs in counters-only mode, and
//! the crash wait read off a run of the holder-crash story.

use crate::incident::{Incident, IncidentKind};
use crate::pauses::{Bound, PauseShape};
use crate::scenario::{Fleet, Scenario, ScenarioError, FLEET_EVENTS_MAX};
use crate::{presets, Kind};
use serde::Serialize;

/// The timeline's points: the counters at the end of each equal slice.
pub const TIMELINE_POINTS: usize = 48;
/// The window the page replays around an incident: this much before the
/// writer's pause began and after its write.
pub const WINDOW_MARGIN_US: u64 = 2_000_000;
/// The most lease lengths one trade compares.
pub const TRADE_LEASES_MAX: usize = 16;

/// A rate per 10,000 jobs with its 95 % (Wilson) interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rate {
    pub per_10k: f64,
    pub low: f64,
    pub high: f64,
}

impl Rate {
    /// `count` of `jobs`, per 10,000 (square roots and the four operations
    /// only: the same bits natively and in wasm).
    pub fn of(count: u32, jobs: u32) -> Rate {
        if jobs == 0 {
            return Rate { per_10k: 0.0, low: 0.0, high: 0.0 };
        }
        let (k, n, z) = (f64::from(count), f64::from(jobs), 1.96);
        let p = k / n;
        let denominator = 1.0 + z * z / n;
        let centre = (p + z * z / (2.0 * n)) / denominator;
        let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
        Rate { per_10k: p * 1e4, low: (centre - half).max(0.0) * 1e4, high: (centre + half).min(1.0) * 1e4 }
    }
}

/// The counters at one moment of the span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Point {
    pub t_us: u64,
    pub zombie_writes: u32,
    pub stale_overwrites: u32,
    pub rejected_writes: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct FleetReport {
    pub jobs: u32,
    pub pauses: u32,
    pub longest_pause_us: u64,
    pub zombie_writes: u32,
    pub stale_overwrites: u32,
    pub rejected_writes: u32,
    pub accepted_writes: u32,
    pub zombie_rate: Rate,
    pub stale_rate: Rate,
    pub rejected_rate: Rate,
    /// Built from the incidents kept: complete unless more happened than
    /// `incident::INCIDENTS_KEPT_MAX`.
    pub timeline: Vec<Point>,
    pub timeline_complete: bool,
    pub incidents: Vec<Incident>,
    pub incidents_total: u32,
    /// Where the simulated clock stopped: past the span for a run that
    /// ended (its last jobs run to their end), short of it when truncated.
    pub end_us: u64,
    /// The run stopped at its event bound before its span was over: every
    /// figure is for the time up to `end_us`.
    pub truncated: bool,
}

/// A fleet's starting point: `workers` on the classic design's single
/// Redis, 200 ms jobs back to back with a 100 ms rest, for `span_ms`, pausing
/// as `pauses` says; no fixed faults. The token comes from the acquire
/// script: with the separate `INCR`, a pause between the grant and the
/// number inverts tokens, and fencing itself lets a stale write through
/// (the explorer's finding, which a day of throttled containers reproduces).
pub fn base(workers: u8, span_ms: u64, pauses: PauseShape) -> Scenario {
    Scenario {
        preset: String::new(),
        workers,
        token_source: crate::TokenSource::AtomicScript,
        work_ms: 200,
        start_gap_ms: 10,
        acquire_attempts_max: crate::scenario::ACQUIRE_ATTEMPTS_MAX,
        faults: Vec::new(),
        events_max: FLEET_EVENTS_MAX,
        fleet: Some(Fleet { span_ms, think_ms: 100, pauses }),
        ..presets::classic()
    }
}

impl FleetReport {
    /// Equal fingerprints mean byte-identical reports, natively and in wasm
    /// (the pause draws included).
    pub fn fingerprint(&self) -> u64 {
        crate::trace::fnv1a(serde_json::to_string(self).expect("a report serialises").as_bytes())
    }
}

/// Runs a fleet scenario in counters-only mode.
pub fn run(scenario: &Scenario) -> Result<FleetReport, ScenarioError> {
    let mut stepper = Stepper::new(scenario)?;
    stepper.advance(u64::MAX);
    Ok(stepper.report())
}

/// The report of a run's counters and incidents; `ended` false for a run
/// still under way, whose timeline stops at its clock.
fn report(counts: crate::trace::Counts, incidents: &crate::incident::Incidents, span_us: u64, ended: bool) -> FleetReport {
    let tally = counts.tally;
    let jobs = incidents.jobs;
    // A run cut short at its event bound has no figures past its clock:
    // its timeline ends there, not padded with flat counters to the span.
    let timeline_end_us = if counts.truncated { counts.end_us } else { span_us.max(counts.end_us) };
    let mut timeline = timeline(&incidents.kept, timeline_end_us);
    if !ended {
        timeline.retain(|point| point.t_us <= counts.end_us);
    }
    FleetReport {
        jobs,
        pauses: incidents.pauses,
        longest_pause_us: incidents.longest_pause_us,
        zombie_writes: tally.zombie_writes,
        stale_overwrites: tally.stale_overwrites,
        rejected_writes: tally.rejected_writes,
        accepted_writes: tally.accepted_writes,
        zombie_rate: Rate::of(tally.zombie_writes, jobs),
        stale_rate: Rate::of(tally.stale_overwrites, jobs),
        rejected_rate: Rate::of(tally.rejected_writes, jobs),
        timeline,
        timeline_complete: incidents.total as usize == incidents.kept.len(),
        incidents: incidents.kept.clone(),
        incidents_total: incidents.total,
        end_us: counts.end_us,
        truncated: counts.truncated,
    }
}

/// What a run cut short at its event bound says before any of its figures
/// (None for a run that ran its span): the command line's first line, and
/// the page's note above the counters. Both lengths read as every length
/// of the fleet's does (`lasting`: "37 min 30 s of its 1 day span").
pub fn cut_short(report: &FleetReport, span_ms: u64) -> Option<String> {
    let ran = lasting(report.end_us);
    let span = lasting(span_ms.saturating_mul(1000));
    report.truncated.then(|| {
        format!("CUT SHORT: the run reached its bound on events after {ran} of its {span} span; every figure below is for those {ran}")
    })
}

/// Cumulative counters at the end of each of `TIMELINE_POINTS` slices.
fn timeline(incidents: &[Incident], end_us: u64) -> Vec<Point> {
    let mut points = Vec::with_capacity(TIMELINE_POINTS);
    let mut next = incidents.iter().peekable();
    let mut counts = Point::default();
    for slice in 1..=TIMELINE_POINTS as u64 {
        // At most a week in µs times 48: far inside a u64.
        let t_us = end_us * slice / TIMELINE_POINTS as u64;
        while let Some(incident) = next.next_if(|incident| incident.t_us <= t_us) {
            match incident.kind {
                // A stale overwrite is a zombie write too, as the counters say.
                IncidentKind::StaleOverwrite => {
                    counts.stale_overwrites += 1;
                    counts.zombie_writes += 1;
                }
                IncidentKind::ZombieWrite => counts.zombie_writes += 1,
                IncidentKind::Rejected => counts.rejected_writes += 1,
            }
        }
        points.push(Point { t_us, ..counts });
    }
    points
}

/// The run around one incident as a full trace: from `margin_us` before
/// its writer's last pause began (or before the incident) to `margin_us`
/// after it. The same run as the fleet's, so the same incident is in it;
/// only the events in the window are kept.
pub fn window(scenario: &Scenario, incident: &Incident, margin_us: u64) -> Result<crate::Trace, ScenarioError> {
    let mut stepper = WindowStepper::new(scenario, incident, margin_us)?;
    stepper.advance(u64::MAX);
    Ok(stepper.into_trace().expect("a slice without a limit ends the run"))
}

/// One lease length's side of the trade.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TradeRow {
    pub ttl_ms: u64,
    pub fencing: bool,
    pub renewal: bool,
    pub jobs: u32,
    pub zombie_rate: Rate,
    pub stale_rate: Rate,
    /// How long the holder-crash story keeps B waiting after A crashes
    /// holding the lock, at this lease: the price of a longer lease.
    pub crash_wait_us: u64,
}

/// The rows of a trade that say what quadrupling the lease did: the shortest
/// lease and four times it (neither fix), and fencing at the shortest.
pub struct Quadrupled<'a> {
    pub short: &'a TradeRow,
    pub long: &'a TradeRow,
    pub fenced: &'a TradeRow,
}

impl Quadrupled<'_> {
    pub fn of(rows: &[TradeRow]) -> Option<Quadrupled<'_>> {
        let plain = |ttl_ms: u64| rows.iter().find(|row| row.ttl_ms == ttl_ms && !row.fencing && !row.renewal);
        let shortest = rows.iter().map(|row| row.ttl_ms).min()?;
        let (short, long) = (plain(shortest)?, plain(shortest.checked_mul(4)?)?);
        let fenced = rows.iter().find(|row| row.fencing && row.ttl_ms == shortest)?;
        Some(Quadrupled { short, long, fenced })
    }
}

/// The lease lengths the page's trade compares: doublings from the story's
/// 10 s, so that "four times the lease" is two steps along.
pub const TRADE_LEASES_MS: [u64; 5] = [10_000, 20_000, 40_000, 80_000, 160_000];

/// One run of a trade: a lease length, with fencing or renewal or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    pub ttl_ms: u64,
    pub fencing: bool,
    pub renewal: bool,
}

impl Side {
    pub fn scenario(self, base: &Scenario) -> Scenario {
        Scenario { ttl_ms: self.ttl_ms, fencing: self.fencing, renewal: self.renewal, ..base.clone() }
    }

    /// This side's row, from its fleet's report.
    pub fn row(self, base: &Scenario, report: &FleetReport) -> Result<TradeRow, ScenarioError> {
        Ok(TradeRow {
            ttl_ms: self.ttl_ms,
            fencing: self.fencing,
            renewal: self.renewal,
            jobs: report.jobs,
            zombie_rate: report.zombie_rate,
            stale_rate: report.stale_rate,
            crash_wait_us: crash_wait_us(&self.scenario(base), self.ttl_ms)?,
        })
    }
}

/// The runs a trade takes: each lease length with neither fix, then (with
/// `renewal`) each with renewal at ttl/3, then fencing at the shortest.
pub fn sides(ttls_ms: &[u64], renewal: bool) -> Result<Vec<Side>, ScenarioError> {
    if ttls_ms.is_empty() || ttls_ms.len() > TRADE_LEASES_MAX {
        return Err(ScenarioError { problems: vec![format!("a trade compares 1 to {TRADE_LEASES_MAX} lease lengths")] });
    }
    let shortest = ttls_ms.iter().copied().min().unwrap_or(ttls_ms[0]);
    let plain = ttls_ms.iter().map(|&ttl_ms| Side { ttl_ms, fencing: false, renewal: false });
    let renewed = ttls_ms.iter().filter(|_| renewal).map(|&ttl_ms| Side { ttl_ms, fencing: false, renewal: true });
    Ok(plain.chain(renewed).chain([Side { ttl_ms: shortest, fencing: true, renewal: false }]).collect())
}

/// The fleet at each lease length, fencing off, and with fencing at the
/// shortest: the brief's two axes, every figure from a run.
pub fn trade(base: &Scenario, ttls_ms: &[u64], renewal: bool) -> Result<Vec<TradeRow>, ScenarioError> {
    sides(ttls_ms, renewal)?.into_iter().map(|side| side.row(base, &run(&side.scenario(base))?)).collect()
}

/// The same trade under `base`'s pause shape capped at its cited bound
/// (`pauses::Bound`): the bounded fleet, its bound, and its runs, the page's
/// lease lengths and then doublings until one is longer than the cap (so
/// the trade has a lease no pause outlasts). No fencing run: the point is
/// what the lease alone does when the longest pause is known. None for a
/// custom shape, which has no cited bound.
pub fn bounded_sides(base: &Scenario) -> Option<(Scenario, &'static Bound, Vec<Side>)> {
    let fleet = base.fleet?;
    let (pauses, bound) = fleet.pauses.bounded()?;
    let bounded = Scenario { fleet: Some(Fleet { pauses, ..fleet }), ..base.clone() };
    let mut leases_ms = TRADE_LEASES_MS.to_vec();
    while let Some(&last_ms) = leases_ms.last() {
        if last_ms.saturating_mul(1000) > bound.cap_us || leases_ms.len() >= TRADE_LEASES_MAX {
            break;
        }
        leases_ms.push(last_ms * 2);
    }
    let sides = leases_ms.into_iter().map(|ttl_ms| Side { ttl_ms, fencing: false, renewal: false }).collect();
    Some((bounded, bound, sides))
}

/// The bounded trade's rows, every run at once (the command line, tests,
/// the shipped rows).
pub fn bounded_trade(base: &Scenario) -> Result<Option<(Vec<TradeRow>, &'static Bound)>, ScenarioError> {
    let Some((bounded, bound, sides)) = bounded_sides(base) else { return Ok(None) };
    let rows = sides.into_iter().map(|side| side.row(&bounded, &run(&side.scenario(&bounded))?)).collect::<Result<_, _>>()?;
    Ok(Some((rows, bound)))
}

/// The holder-crash story at this lease (on the fleet's lock service, with
/// its renewal): from A's crash to B's grant, for the worst crash — right
/// after A learns it holds the lock, before any renewal, so the whole lease
/// must run out (a crash later in the lease, as the preset's 1 s in, waits
/// less; one right after a renewal waits the same as this).
pub fn crash_wait_us(base: &Scenario, ttl_ms: u64) -> Result<u64, ScenarioError> {
    let story = presets::build("holder-crash").expect("the holder-crash preset");
    // B keeps asking as long as the lease lasts (a fleet's workers do too).
    let attempts = crate::scenario::ACQUIRE_ATTEMPTS_MAX;
    let (lock_service, renewal) = (base.lock_service, base.renewal);
    let scenario = Scenario { ttl_ms, lock_service, renewal, acquire_attempts_max: attempts, faults: Vec::new(), ..story };
    // The same run without the crash, up to A's lock: where the crash goes
    // (runs are deterministic, so the crashed run is this one until then).
    let probe = crate::run(&scenario)?;
    let holder = crate::Actor::Worker(0);
    let acquired = probe
        .events
        .iter()
        .find(|event| event.actor == holder && matches!(event.kind, Kind::Acquired { .. }))
        .ok_or_else(|| ScenarioError { problems: vec!["the holder-crash story never gave A the lock".to_string()] })?;
    let crash = crate::Fault::Crash { worker: holder, at_ms: acquired.t_us / 1_000, after_event: Some(acquired.index) };
    let trace = crate::run(&Scenario { faults: vec![crash], ..scenario })?;
    let at = |wanted: fn(&crate::Event) -> bool| trace.events.iter().find(|event| wanted(event)).map(|event| event.t_us);
    let crashed = at(|event| matches!(event.kind, Kind::Crashed));
    let granted = at(|event| event.actor == crate::Actor::Worker(1) && matches!(event.kind, Kind::Acquired { .. }));
    match (crashed, granted) {
        (Some(crashed), Some(granted)) if granted >= crashed => Ok(granted - crashed),
        _ => Err(ScenarioError { problems: vec!["the holder-crash story did not grant B the lock after A's crash".to_string()] }),
    }
}

pub mod shipped;
mod stepper;
pub mod story;
mod words;
pub use stepper::{Stepper, WindowStepper};
pub use story::{Story, STORY_ROWS_MAX};
pub use words::{bounded, incident_words, lasting, per_10k, quadrupling, thousands, when, when_to_ms};

#[cfg(test)]
mod tests;
