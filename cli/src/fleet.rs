//! `fencing-lab fleet`: N workers running jobs for a span of simulated time,
//! pausing as a distribution says; prints the counters, the rates per
//! 10,000 jobs with 95 % intervals, and the incidents (or, with `--trade`,
//! the rates and the crash wait at each lease length). The same figures as
//! JSON with `--json`, and the same as the page's for the same link: the
//! options are read into the page's link (`--link` takes one as it is).

use crate::cost::{self, Progress};
use crate::output::{say, Failure};
use clap::Parser;
use fencing_sim::fleet::{self, FleetReport, Rate, Stepper, TradeRow, TRADE_LEASES_MS};
use fencing_sim::permalink::fleet::{self as link, FleetLink};
use fencing_sim::Scenario;
use std::io::{self, Write};
use std::process::ExitCode;

/// A switch typed on the command line; clap refuses any other word with
/// status 2 and the two it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

#[derive(Parser)]
pub struct FleetArgs {
    /// A fleet's link from the page (what follows `?view=fleet&`); the options below change it.
    #[arg(long)]
    link: Option<String>,
    /// 2 to 64 (16 by default).
    #[arg(long)]
    workers: Option<u8>,
    /// Simulated time the jobs keep starting for (a day by default).
    #[arg(long)]
    span_ms: Option<u64>,
    /// jvm_full_gc, vm_migration, throttled_container (the default), or custom (with the four figures below).
    #[arg(long)]
    pauses: Option<String>,
    #[arg(long)]
    median_ms: Option<u64>,
    #[arg(long)]
    p99_ms: Option<u64>,
    /// The tail's exponent in thousandths (1500: 1.5).
    #[arg(long)]
    tail_exponent_milli: Option<u32>,
    #[arg(long)]
    per_hour: Option<u32>,
    /// The lease (10000 by default).
    #[arg(long)]
    ttl_ms: Option<u64>,
    /// Each job's work between grant and write (200 by default).
    #[arg(long)]
    work_ms: Option<u64>,
    /// on or off.
    #[arg(long)]
    fencing: Option<String>,
    /// on or off: renewal every ttl/3 while a worker holds the lock.
    #[arg(long)]
    renewal: Option<String>,
    #[arg(long)]
    seed: Option<u64>,
    /// Lease lengths to compare, in ms ("10000,40000"), or "page" for the page's.
    #[arg(long)]
    trade: Option<String>,
    /// With --trade: each lease length with renewal at ttl/3 too.
    #[arg(long)]
    trade_renewal: bool,
    /// With --trade, on: every pause capped at its shape's cited bound (4
    /// minutes for jvm_full_gc and throttled_container, 300 ms for
    /// vm_migration), as the page's "Under the same shape with every pause
    /// capped" trade; `--trade page` then runs the page's leases doubled
    /// past the cap. off (the default): the shape as it is.
    #[arg(long, value_enum)]
    bounded: Option<OnOff>,
    #[arg(long)]
    json: bool,
}

impl FleetArgs {
    /// The options as the page's link: the link given, then each option as
    /// its key, read by the page's own reader (which bounds them). Each
    /// value is form-encoded, so a value is only ever a value: `--pauses
    /// 'jvm_full_gc&workers=64'` is one unknown shape, never two settings.
    fn fleet_link(&self) -> Result<FleetLink, String> {
        let mut options = form_urlencoded::Serializer::new(String::new());
        let mut add = |key: &str, value: Option<String>| {
            if let Some(value) = value {
                options.append_pair(key, &value);
            }
        };
        add("workers", self.workers.map(|workers| workers.to_string()));
        add("span_ms", self.span_ms.map(|span_ms| span_ms.to_string()));
        add("pauses", self.pauses.clone());
        add("median_ms", self.median_ms.map(|ms| ms.to_string()));
        add("p99_ms", self.p99_ms.map(|ms| ms.to_string()));
        add("tail_milli", self.tail_exponent_milli.map(|milli| milli.to_string()));
        add("per_hour", self.per_hour.map(|per_hour| per_hour.to_string()));
        add("ttl_ms", self.ttl_ms.map(|ttl_ms| ttl_ms.to_string()));
        add("work_ms", self.work_ms.map(|work_ms| work_ms.to_string()));
        add("fencing", self.fencing.clone());
        add("renewal", self.renewal.clone());
        add("seed", self.seed.map(|seed| seed.to_string()));
        let options = options.finish();
        let given = self.link.as_deref().map(|query| query.trim_start_matches('?'));
        let query = [given.unwrap_or(""), options.as_str()].iter().filter(|part| !part.is_empty()).copied().collect::<Vec<_>>().join("&");
        let (fleet_link, notices) = link::parse(&query);
        // On the command line an option it cannot use is an error, not a notice.
        if !notices.is_empty() {
            return Err(notices.join("; "));
        }
        // The page's link keeps a custom shape's figures while another shape
        // is chosen (its form switches back and forth); options are typed
        // on purpose, so a figure that would go unused is refused.
        let figures = [
            ("--median-ms", self.median_ms.is_some()),
            ("--p99-ms", self.p99_ms.is_some()),
            ("--tail-exponent-milli", self.tail_exponent_milli.is_some()),
            ("--per-hour", self.per_hour.is_some()),
        ];
        if let Some((option, _)) = figures.iter().find(|(_, given)| *given).filter(|_| fleet_link.pauses.facts().is_some()) {
            return Err(format!(
                "{option} is a figure of custom pauses, and these are {}: give --pauses custom too",
                fleet_link.pauses_id()
            ));
        }
        if self.trade_renewal && self.trade.is_none() {
            return Err("--trade-renewal adds renewal to a trade's rows: give --trade too".to_string());
        }
        if self.bounded.is_some() && self.trade.is_none() {
            return Err("--bounded caps the pauses of a trade's runs: give --trade too".to_string());
        }
        Ok(fleet_link)
    }

    /// The fingerprint `--link` carried, when it is to be checked: a link
    /// changed by options is another fleet, and a trade shows no one fleet,
    /// so a fingerprint there would be ignored: refused instead.
    fn carried_fingerprint(&self, fleet_link: &FleetLink) -> Result<Option<String>, String> {
        let Some(given) = self.link.as_deref() else { return Ok(None) };
        let reading = fencing_sim::relink::read(&format!("view=fleet&{}", given.trim_start_matches('?')));
        let Some((as_given, Some(carried))) = reading.fleet else { return Ok(None) };
        if as_given != *fleet_link || self.trade.is_some() {
            return Err(format!(
                "--link carries the fingerprint of its own fleet (fp={}), which {} would leave unchecked: drop fp= from the link, or the options",
                fencing_sim::permalink::shown(&carried),
                if self.trade.is_some() { "--trade" } else { "the options that change it" }
            ));
        }
        Ok(Some(carried))
    }
}

pub fn command(args: &FleetArgs, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    let fleet_link = args.fleet_link()?;
    let carried = args.carried_fingerprint(&fleet_link)?;
    if let Some(list) = &args.trade {
        if args.bounded == Some(OnOff::On) {
            return bounded_trade(out, &fleet_link, list, args.trade_renewal, args.json);
        }
        let ttls = match list.as_str() {
            "page" => TRADE_LEASES_MS.to_vec(),
            _ => leases(list)?,
        };
        let sides = fleet::sides(&ttls, args.trade_renewal).map_err(|error| error.to_string())?;
        let rows = trade(&fleet_link.scenario(), sides)?;
        print_trade(out, &rows, args.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let report = run_link(&fleet_link)?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&report).expect("a report serialises"))?;
    } else {
        print_report(out, &fleet_link, &report)?;
    }
    // As the page says once the fleet has run: the link is not its author's fleet.
    match fencing_sim::relink::fleet_notice(carried.as_deref(), &report) {
        Some(notice) => {
            say(&format!("fencing-lab: {notice}"));
            Ok(ExitCode::from(1))
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The fleet a link shows, its cost checked first (the page's figures, as
/// long as the run keeps within the command's bound on events).
pub fn run_link(fleet_link: &FleetLink) -> Result<FleetReport, String> {
    let scenario = fleet_link.scenario();
    let events_max = cost::fleets("this fleet", 1, fleet_link.workers, fleet_link.span_ms)?;
    run(&Scenario { events_max: events_max.min(scenario.events_max), ..scenario }, true)
}

/// One fleet run, in slices so that a long one reports its progress.
fn run(scenario: &Scenario, report_progress: bool) -> Result<FleetReport, String> {
    let fleet = scenario.fleet.ok_or("a fleet's scenario has a fleet")?;
    let worker_ms = u64::from(scenario.workers).saturating_mul(fleet.span_ms);
    let mut stepper = Stepper::new(scenario).map_err(|error| error.to_string())?;
    let mut progress =
        Progress::new("thousandths of the simulated span", 1000, report_progress && worker_ms > cost::PROGRESS_WORKER_MS_MIN);
    // Slices of a million steps: the run's own bound ends the loop.
    while !stepper.advance(1_000_000) {
        progress.at(u64::from(stepper.progress_milli()));
    }
    Ok(stepper.report())
}

/// The trade under the shape with every pause capped at its cited bound,
/// as the page shows it (`fleet::bounded_sides`): `page` runs the page's
/// leases doubled past the cap, with no fenced row, so its rows are the
/// page's; a list runs those leases (with the fenced row at the shortest,
/// as any trade). Then the model's sentence about the zero it reaches.
fn bounded_trade(out: &mut dyn Write, fleet_link: &FleetLink, list: &str, renewal: bool, json: bool) -> Result<ExitCode, Failure> {
    let base = fleet_link.scenario();
    let Some((capped, bound, page_sides)) = fleet::bounded_sides(&base) else {
        return Err(Failure::Refused(format!(
            "--bounded on caps each pause at its shape's cited bound, and {} pauses state none: choose --pauses jvm_full_gc, vm_migration or throttled_container",
            fleet_link.pauses_id()
        )));
    };
    let sides = match (list, renewal) {
        ("page", false) => Ok(page_sides),
        ("page", true) => fleet::sides(&page_sides.iter().map(|side| side.ttl_ms).collect::<Vec<_>>(), true),
        _ => fleet::sides(&leases(list)?, renewal),
    };
    let sides = sides.map_err(|error| error.to_string())?;
    let rows = trade(&capped, sides)?;
    if json {
        return print_trade(out, &rows, true).map(|()| ExitCode::SUCCESS);
    }
    writeln!(out, "every pause capped at {} ({})", bound.words, bound.source)?;
    print_trade(out, &rows, false)?;
    if let Some(sentence) = fleet::bounded(&rows, bound) {
        writeln!(out, "{sentence}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A trade, its cost checked first; each run's event bound its share.
fn trade(base: &Scenario, sides: Vec<fleet::Side>) -> Result<Vec<TradeRow>, String> {
    let fleet = base.fleet.ok_or("a fleet's scenario has a fleet")?;
    let events_max = cost::fleets("this trade", sides.len() as u64, base.workers, fleet.span_ms)?;
    let base = Scenario { events_max: events_max.min(base.events_max), ..base.clone() };
    let long = (sides.len() as u64).saturating_mul(u64::from(base.workers)).saturating_mul(fleet.span_ms) > cost::PROGRESS_WORKER_MS_MIN;
    let mut progress = Progress::new("fleet runs", sides.len() as u64, long);
    let mut rows = Vec::with_capacity(sides.len());
    for (done, side) in sides.into_iter().enumerate() {
        let report = run(&side.scenario(&base), false)?;
        rows.push(side.row(&base, &report).map_err(|error| error.to_string())?);
        progress.at(done as u64 + 1);
    }
    Ok(rows)
}

/// "10000,40000" as lease lengths.
pub fn leases(list: &str) -> Result<Vec<u64>, String> {
    let ttls: Result<Vec<u64>, _> = list.split(',').map(|ttl| ttl.trim().parse::<u64>()).collect();
    ttls.map_err(|_| format!("--trade is a list of lease lengths in ms, not {list:?}"))
}

/// A sweep of the lease over a fleet (`sweep --param ttl-ms --pauses …`):
/// one fleet run per lease length, as `--trade` prints them.
pub fn sweep(out: &mut dyn Write, pauses: &str, seed: Option<u64>, ttls_ms: &[u64], json: bool) -> Result<(), Failure> {
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("pauses", pauses);
    if let Some(seed) = seed {
        query.append_pair("seed", &seed.to_string());
    }
    let (fleet_link, notices) = link::parse(&query.finish());
    if !notices.is_empty() {
        return Err(Failure::Refused(notices.join("; ")));
    }
    let sides = fleet::sides(ttls_ms, false).map_err(|error| error.to_string())?;
    let rows = trade(&fleet_link.scenario(), sides)?;
    print_trade(out, &rows, json)
}

fn rate(rate: &Rate) -> String {
    format!("{:.2} per 10,000 jobs (95 %: {:.2}–{:.2})", rate.per_10k, rate.low, rate.high)
}

fn print_report(out: &mut dyn Write, fleet_link: &FleetLink, report: &FleetReport) -> io::Result<()> {
    let name = fleet_link.pauses.facts().map_or("custom", |facts| facts.name);
    let fencing = if fleet_link.fencing { "on" } else { "off" };
    let (workers, ttl_ms) = (fleet_link.workers, fleet_link.ttl_ms);
    // Every figure below is for the time that ran, and says so first.
    if let Some(cut_short) = fleet::cut_short(report, fleet_link.span_ms) {
        writeln!(out, "{cut_short}")?;
    }
    // Lengths and moments read as the page's fleet writes them: "1 day",
    // "3 min 13 s" (`fleet::lasting`), "day 1, 00:20:29" (`fleet::when`).
    writeln!(out, "{workers} workers, {} of jobs, pauses: {name}, lease {ttl_ms} ms, fencing {fencing}", fleet::lasting(report.end_us))?;
    writeln!(out, "on the page: ?view=fleet&{}", link::to_query(fleet_link))?;
    writeln!(out, "jobs              {}", report.jobs)?;
    writeln!(out, "pauses            {} (longest {})", report.pauses, fleet::lasting(report.longest_pause_us))?;
    writeln!(out, "zombie writes     {}: {}", report.zombie_writes, rate(&report.zombie_rate))?;
    writeln!(out, "stale overwrites  {}: {}", report.stale_overwrites, rate(&report.stale_rate))?;
    writeln!(out, "rejected writes   {}: {}", report.rejected_writes, rate(&report.rejected_rate))?;
    let total = report.incidents_total;
    for (nth, incident) in report.incidents.iter().enumerate().take(20) {
        let pause = incident.pause_us.map_or(String::new(), |pause_us| format!(", after a {} pause", fleet::lasting(pause_us)));
        let (kind, writer, at) = (incident.kind, incident.writer, fleet::when_to_ms(incident.t_us));
        writeln!(out, "incident {} of {total}: {kind:?} by {writer} at {at}{pause}", nth + 1)?;
    }
    Ok(())
}

fn print_trade(out: &mut dyn Write, rows: &[TradeRow], json: bool) -> Result<(), Failure> {
    if json {
        writeln!(out, "{}", serde_json::to_string(rows).expect("rows serialise"))?;
        return Ok(());
    }
    writeln!(out, "{:>10} {:>8} {:>8} {:>7}  {:<44} {:>14}", "ttl-ms", "fencing", "renewal", "jobs", "zombie writes", "crash wait")?;
    let on_off = |on: bool| if on { "on" } else { "off" };
    for row in rows {
        let zombies = if row.fencing { format!("stale overwrites {}", rate(&row.stale_rate)) } else { rate(&row.zombie_rate) };
        let (fencing, renewal, wait) = (on_off(row.fencing), on_off(row.renewal), fleet::lasting(row.crash_wait_us));
        writeln!(out, "{:>10} {:>8} {:>8} {:>7}  {:<44} {:>14}", row.ttl_ms, fencing, renewal, row.jobs, zombies, wait)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fleet stopped at its event bound says so before any figure, and
    /// its figures are for the time that ran.
    #[test]
    fn a_fleet_cut_short_says_so() {
        let (fleet_link, notices) = link::parse("workers=8&span_ms=600000");
        assert!(notices.is_empty(), "{notices:?}");
        let report = run(&Scenario { events_max: 20_000, ..fleet_link.scenario() }, false).unwrap();
        assert!(report.truncated);
        let mut text = Vec::new();
        print_report(&mut text, &fleet_link, &report).unwrap();
        let text = String::from_utf8(text).unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.starts_with("CUT SHORT: the run reached its bound on events after "), "{text}");
        // The fleet's lengths read one way, as the page writes them.
        assert!(first.contains("of its 10 min span"), "{first}");
        assert!(!first.contains("600.000 s"), "{first}");
        assert!(text.lines().nth(1).unwrap().contains(&format!("{} of jobs", fleet::lasting(report.end_us))), "{text}");
    }

    /// A day's fleet cut short names its span as the page does ("1 day"),
    /// not "86400.000 s", and its moments as "day 1, 00:20:29.321".
    #[test]
    fn a_days_fleet_reads_its_times_as_the_page_does() {
        let (fleet_link, notices) = link::parse("workers=8&span_ms=86400000");
        assert!(notices.is_empty(), "{notices:?}");
        let report = run(&Scenario { events_max: 200_000, ..fleet_link.scenario() }, false).unwrap();
        let mut text = Vec::new();
        print_report(&mut text, &fleet_link, &report).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.lines()
                .next()
                .unwrap()
                .ends_with(&format!("of its 1 day span; every figure below is for those {}", fleet::lasting(report.end_us))),
            "{text}"
        );
        assert!(!text.contains("86400"), "{text}");
        for line in text.lines().filter(|line| line.starts_with("incident ")) {
            assert!(line.contains(" at day 1, "), "{line}");
        }
    }
}
