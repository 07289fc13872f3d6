//! `fencing-lab fleet`: N workers running jobs for a span of simulated time,
//! pausing as a distribution says; prints the counters, the rates per
//! 10,000 jobs with 95 % intervals, and the incidents (or, with `--trade`,
//! the rates and the crash wait at each lease length). The same figures as
//! JSON with `--json`.

use clap::Parser;
use fencing_sim::fleet::{self, FleetReport, Rate, TradeRow};
use fencing_sim::pauses::{PauseLaw, PauseShape, SHAPES};
use fencing_sim::scenario::{FLEET_WORKERS_MAX, SPAN_MS_MAX, TTL_MS_MAX};
use fencing_sim::{format_us, Scenario};

#[derive(Parser)]
pub struct FleetArgs {
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u8).range(2..=i64::from(FLEET_WORKERS_MAX)))]
    workers: u8,
    /// Simulated time the jobs keep starting for.
    #[arg(long, default_value_t = 3_600_000, value_parser = clap::value_parser!(u64).range(1_000..=SPAN_MS_MAX))]
    span_ms: u64,
    /// jvm_full_gc, vm_migration, throttled_container, or custom (with the four figures below).
    #[arg(long, default_value = "jvm_full_gc")]
    pauses: String,
    #[arg(long)]
    median_ms: Option<u64>,
    #[arg(long)]
    p99_ms: Option<u64>,
    /// The tail's exponent in thousandths (1500: 1.5).
    #[arg(long)]
    tail_exponent_milli: Option<u32>,
    #[arg(long)]
    per_hour: Option<u32>,
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=TTL_MS_MAX))]
    ttl_ms: u64,
    /// on or off.
    #[arg(long, default_value = "off")]
    fencing: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Lease lengths to compare, in ms: "10000,40000".
    #[arg(long)]
    trade: Option<String>,
    #[arg(long)]
    json: bool,
}

fn shape(args: &FleetArgs) -> Result<PauseShape, String> {
    match args.pauses.as_str() {
        "custom" => {
            let need = |value: Option<u64>, name: &str| value.ok_or(format!("--pauses custom needs --{name}"));
            let law = PauseLaw {
                median_us: need(args.median_ms, "median-ms")? * 1000,
                p99_us: need(args.p99_ms, "p99-ms")? * 1000,
                tail_exponent_milli: args.tail_exponent_milli.ok_or("--pauses custom needs --tail-exponent-milli")?,
                per_hour: args.per_hour.ok_or("--pauses custom needs --per-hour")?,
            };
            Ok(PauseShape::Custom(law))
        }
        name => PauseShape::built_in(name).ok_or_else(|| {
            let ids: Vec<&str> = SHAPES.iter().map(|facts| facts.id).collect();
            format!("unknown pauses {name:?}: choose {} or custom", ids.join(", "))
        }),
    }
}

fn scenario(args: &FleetArgs) -> Result<Scenario, String> {
    let fencing = match args.fencing.as_str() {
        "on" => true,
        "off" => false,
        other => return Err(format!("--fencing is on or off, not {other:?}")),
    };
    let base = fleet::base(args.workers, args.span_ms, shape(args)?);
    Ok(Scenario { ttl_ms: args.ttl_ms, fencing, seed: args.seed, ..base })
}

pub fn command(args: &FleetArgs) -> Result<(), String> {
    let scenario = scenario(args)?;
    if let Some(list) = &args.trade {
        let ttls: Result<Vec<u64>, _> = list.split(',').map(|ttl| ttl.trim().parse::<u64>()).collect();
        let ttls = ttls.map_err(|_| format!("--trade is a list of lease lengths in ms, not {list:?}"))?;
        let rows = fleet::trade(&scenario, &ttls).map_err(|error| error.to_string())?;
        return print_trade(&rows, args.json);
    }
    let report = fleet::run(&scenario).map_err(|error| error.to_string())?;
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("a report serialises"));
        return Ok(());
    }
    print_report(&scenario, &report);
    Ok(())
}

fn rate(rate: &Rate) -> String {
    format!("{:.2} per 10,000 jobs (95 %: {:.2}–{:.2})", rate.per_10k, rate.low, rate.high)
}

fn print_report(scenario: &Scenario, report: &FleetReport) {
    let facts = scenario.fleet.and_then(|fleet| fleet.pauses.facts());
    let name = facts.map_or("custom", |facts| facts.name);
    println!(
        "{} workers, {} of jobs, pauses: {name}, lease {} ms, fencing {}",
        scenario.workers,
        format_us(report.end_us),
        scenario.ttl_ms,
        if scenario.fencing { "on" } else { "off" }
    );
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
    println!("{:>10} {:>8} {:>7}  {:<44} {:>14}", "ttl-ms", "fencing", "jobs", "zombie writes", "crash wait");
    for row in rows {
        let fencing = if row.fencing { "on" } else { "off" };
        let zombies = if row.fencing { format!("stale overwrites {}", rate(&row.stale_rate)) } else { rate(&row.zombie_rate) };
        println!("{:>10} {:>8} {:>7}  {:<44} {:>14}", row.ttl_ms, fencing, row.jobs, zombies, format_us(row.crash_wait_us));
    }
    Ok(())
}
