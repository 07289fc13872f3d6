//! `fencing-lab fleet`: N workers running jobs for a span of simulated time,
//! pausing as a distribution says; prints the counters, the rates per
//! 10,000 jobs with 95 % intervals, and the incidents (or, with `--trade`,
//! the rates and the crash wait at each lease length). The same figures as
//! JSON with `--json`, and the same as the page's for the same link: the
//! options are read into the page's link (`--link` takes one as it is).

use clap::Parser;
use fencing_sim::fleet::{self, FleetReport, Rate, TradeRow, TRADE_LEASES_MS};
use fencing_sim::format_us;
use fencing_sim::permalink::fleet::{self as link, FleetLink};

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
    #[arg(long)]
    json: bool,
}

impl FleetArgs {
    /// The options as the page's link: the link given, then each option as
    /// its key, read by the page's own reader (which bounds them).
    fn fleet_link(&self) -> Result<FleetLink, String> {
        let mut pairs: Vec<String> = self.link.iter().map(|query| query.trim_start_matches('?').to_string()).collect();
        let mut add = |key: &str, value: Option<String>| pairs.extend(value.map(|value| format!("{key}={value}")));
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
        let (fleet_link, notices) = link::parse(&pairs.join("&"));
        // On the command line an option it cannot use is an error, not a notice.
        match notices.is_empty() {
            true => Ok(fleet_link),
            false => Err(notices.join("; ")),
        }
    }
}

pub fn command(args: &FleetArgs) -> Result<(), String> {
    let fleet_link = args.fleet_link()?;
    let scenario = fleet_link.scenario();
    if let Some(list) = &args.trade {
        let ttls = match list.as_str() {
            "page" => TRADE_LEASES_MS.to_vec(),
            _ => leases(list)?,
        };
        let rows = fleet::trade(&scenario, &ttls, args.trade_renewal).map_err(|error| error.to_string())?;
        return print_trade(&rows, args.json);
    }
    let report = fleet::run(&scenario).map_err(|error| error.to_string())?;
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("a report serialises"));
        return Ok(());
    }
    print_report(&fleet_link, &report);
    Ok(())
}

/// "10000,40000" as lease lengths.
pub fn leases(list: &str) -> Result<Vec<u64>, String> {
    let ttls: Result<Vec<u64>, _> = list.split(',').map(|ttl| ttl.trim().parse::<u64>()).collect();
    ttls.map_err(|_| format!("--trade is a list of lease lengths in ms, not {list:?}"))
}

/// A sweep of the lease over a fleet (`sweep --param ttl-ms --pauses …`):
/// one fleet run per lease length, as `--trade` prints them.
pub fn sweep(pauses: &str, seed: Option<u64>, ttls_ms: &[u64], json: bool) -> Result<(), String> {
    let seed = seed.map_or(String::new(), |seed| format!("&seed={seed}"));
    let (fleet_link, notices) = link::parse(&format!("pauses={pauses}{seed}"));
    if !notices.is_empty() {
        return Err(notices.join("; "));
    }
    let rows = fleet::trade(&fleet_link.scenario(), ttls_ms, false).map_err(|error| error.to_string())?;
    print_trade(&rows, json)
}

fn rate(rate: &Rate) -> String {
    format!("{:.2} per 10,000 jobs (95 %: {:.2}–{:.2})", rate.per_10k, rate.low, rate.high)
}

fn print_report(fleet_link: &FleetLink, report: &FleetReport) {
    let name = fleet_link.pauses.facts().map_or("custom", |facts| facts.name);
    println!(
        "{} workers, {} of jobs, pauses: {name}, lease {} ms, fencing {}",
        fleet_link.workers,
        format_us(report.end_us),
        fleet_link.ttl_ms,
        if fleet_link.fencing { "on" } else { "off" }
    );
    println!("on the page: ?view=fleet&{}", link::to_query(fleet_link));
    println!("jobs              {}", report.jobs);
    println!("pauses            {} (longest {})", report.pauses, format_us(report.longest_pause_us));
    println!("zombie writes     {}: {}", report.zombie_writes, rate(&report.zombie_rate));
    println!("stale overwrites  {}: {}", report.stale_overwrites, rate(&report.stale_rate));
    println!("rejected writes   {}: {}", report.rejected_writes, rate(&report.rejected_rate));
    let total = report.incidents_total;
    for (nth, incident) in report.incidents.iter().enumerate().take(20) {
        let pause = incident.pause_us.map_or(String::new(), |pause_us| format!(", after a {} pause", format_us(pause_us)));
        println!("incident {} of {total}: {:?} by {} at {}{pause}", nth + 1, incident.kind, incident.writer, format_us(incident.t_us));
    }
}

fn print_trade(rows: &[TradeRow], json: bool) -> Result<(), String> {
    if json {
        println!("{}", serde_json::to_string(rows).expect("rows serialise"));
        return Ok(());
    }
    println!("{:>10} {:>8} {:>8} {:>7}  {:<44} {:>14}", "ttl-ms", "fencing", "renewal", "jobs", "zombie writes", "crash wait");
    let on_off = |on: bool| if on { "on" } else { "off" };
    for row in rows {
        let zombies = if row.fencing { format!("stale overwrites {}", rate(&row.stale_rate)) } else { rate(&row.zombie_rate) };
        let (fencing, renewal, wait) = (on_off(row.fencing), on_off(row.renewal), format_us(row.crash_wait_us));
        println!("{:>10} {:>8} {:>8} {:>7}  {:<44} {:>14}", row.ttl_ms, fencing, renewal, row.jobs, zombies, wait);
    }
    Ok(())
}
