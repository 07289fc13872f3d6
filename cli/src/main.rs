//! `fencing-lab`: the model on the command line, with the same numbers the
//! page shows.

use clap::{Parser, Subcommand, ValueEnum};
use cost::Progress;
use fencing_sim::explore::{Explorer, Outcome};
use fencing_sim::property::Property;
use fencing_sim::scenario::{Fault, FLEET_EVENTS_MAX, TIME_MS_MAX, TTL_MS_MAX};
use fencing_sim::sweep::{Param, Row, SWEEP_RUNS_MAX};
use fencing_sim::{presets, run, Scenario, Trace};
use output::{say, Failure};
use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;

/// The largest scenario file read: a scenario is a few hundred bytes.
const SCENARIO_BYTES_MAX: u64 = 1024 * 1024;

// Not `src/bin/live.rs`: Cargo would take that for a binary of its own.
mod cost;
mod fleet;
mod history;
mod live;
mod output;

#[derive(Parser)]
#[command(name = "fencing-lab", about = "Replay Fencing Lab's scenarios: leases, locks and fencing tokens")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the presets with their one-line stories.
    Presets,
    /// Run a scenario and print its timeline (or its JSON trace).
    Run(RunArgs),
    /// Run a scenario over a range of one parameter and many seeds, and
    /// count how often each outcome happens.
    Sweep(SweepArgs),
    /// Search the scenario's design for fault schedules that break a
    /// property; print the shrunk counterexample (a scenario to replay with
    /// `run --scenario`) or what was searched. Exits 0 when none is found,
    /// 1 when one is.
    Explore(ExploreArgs),
    /// Run a fleet: workers running jobs back to back for a span of
    /// simulated time, pausing as a distribution says; print the counters,
    /// the rates per 10,000 jobs and the incidents (`--trade` compares
    /// lease lengths).
    Fleet(fleet::FleetArgs),
    /// Stage a story for real, on a Redis, and compare it with the model.
    ///
    /// Two worker processes race for a lock on a real Redis; A is frozen with
    /// SIGSTOP past its lease while B takes the lock and writes; then A wakes
    /// and writes too, to a plain store and to a fenced one. `--story
    /// gc-pause` (the default) freezes A after it drew its token;
    /// `--story token-inversion` between its SET NX and its INCR, so A draws
    /// a newer token than B. Prints the real timeline and outcomes next to
    /// the model's prediction for the same timings. Exits 0 when they agree,
    /// 3 when they do not, 2 when the run cannot be staged (no Redis, say).
    Live(live::LiveArgs),
    /// Print a link (its query: `?preset=gc-pause&fencing=on`, a question's
    /// or a set's) as it would be made now, with the fingerprint of the run
    /// it shows (`fp=`). Exits 0 when the link already carries that
    /// fingerprint, 1 (saying what differs, on stderr) when it does not:
    /// how a documented link is checked, and refreshed once its text is
    /// reviewed.
    Link {
        /// The link or its query; the part after '?' is read.
        link: String,
    },
    /// Judge a real incident's history (docs/histories.md): print its
    /// timeline and verdict, as `run` does, and the line of its first
    /// damaging write. Exits 0 when no write was damaged, 1 when one was (a
    /// zombie write or a stale overwrite), 2 when the file cannot be judged.
    Check(history::CheckArgs),
    /// Write a history (JSON Lines, docs/histories.md) from `redis-cli
    /// MONITOR` output or an `etcdctl watch -w json` log, and a store's
    /// log of its decisions, for `check`.
    Convert(history::ConvertArgs),
    /// One worker of `live` (started by it, not by hand).
    #[command(hide = true)]
    LiveWorker(live::worker::WorkerArgs),
}

#[derive(Parser)]
struct SweepArgs {
    #[command(flatten)]
    scenario: RunArgs,
    /// The parameter to vary: ttl-ms, pause-ms or work-ms.
    #[arg(long, value_parser = parse_param)]
    param: Param,
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=TIME_MS_MAX))]
    from: u64,
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=TIME_MS_MAX))]
    to: u64,
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=TIME_MS_MAX))]
    step: u64,
    /// Seeds per value, from the scenario's seed up (20 by default).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=SWEEP_RUNS_MAX as i64))]
    seeds: Option<u32>,
    /// Sweep the lease over the default fleet with pauses from this shape
    /// (jvm_full_gc, vm_migration, throttled_container): one fleet run per
    /// lease, rates per 10,000 jobs with 95 % intervals (as `fleet --trade`).
    /// Takes only --seed and --json besides the range: the fleet is the
    /// default one.
    #[arg(long)]
    pauses: Option<String>,
}

/// Seeds per value when `--seeds` is not given.
const SEEDS_DEFAULT: u32 = 20;

fn parse_param(name: &str) -> Result<Param, String> {
    Param::parse(name).ok_or_else(|| format!("unknown parameter {name:?}: choose ttl-ms, pause-ms or work-ms"))
}

#[derive(Parser)]
struct ExploreArgs {
    #[command(flatten)]
    scenario: RunArgs,
    /// no_stale_overwrite, mutual_exclusion, no_rightful_write_rejected or lock_eventually_free.
    #[arg(long, value_parser = parse_property)]
    property: Property,
    /// Schedules of one fault, or of one and two.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
    faults_max: u8,
}

fn parse_property(name: &str) -> Result<Property, String> {
    Property::parse(name).ok_or_else(|| {
        let known: Vec<&str> = Property::ALL.iter().map(|property| property.name()).collect();
        format!("unknown property {name:?}; known: {}", known.join(", "))
    })
}

#[derive(Clone, Copy, ValueEnum)]
enum Switch {
    On,
    Off,
}

#[derive(Parser)]
struct RunArgs {
    /// Preset to start from (see `fencing-lab presets`): the scenario file's
    /// own "preset" if it names one, else gc-pause.
    #[arg(long)]
    preset: Option<String>,
    /// A scenario as JSON (at most 1 MiB); fields it does not give keep the preset's values.
    #[arg(long, value_name = "FILE.json")]
    scenario: Option<std::path::PathBuf>,
    #[arg(long)]
    fencing: Option<Switch>,
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=TTL_MS_MAX))]
    ttl_ms: Option<u64>,
    /// Length of every pause fault in the scenario.
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=TIME_MS_MAX))]
    pause_ms: Option<u64>,
    #[arg(long)]
    seed: Option<u64>,
    /// Print the whole trace as one JSON object.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Results go through one checked, buffered writer (never `println!`,
    // which panics on a closed pipe or a full disk).
    let mut out = BufWriter::new(io::stdout().lock());
    let result = dispatch(cli.command, &mut out).and_then(|code| {
        out.flush()?;
        Ok(code)
    });
    output::finish(result)
}

fn dispatch(command: Command, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    match command {
        Command::Presets => {
            for preset in presets::PRESETS {
                writeln!(out, "{:<16} {}\n{:<16} {}", preset.id, preset.name, "", preset.story)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Run(args) => run_command(&args, out).map(|()| ExitCode::SUCCESS),
        Command::Sweep(args) => sweep_command(&args, out).map(|()| ExitCode::SUCCESS),
        Command::Explore(args) => explore_command(&args, out),
        Command::Fleet(args) => fleet::command(&args, out),
        Command::Live(args) => live::command(&args, out).map(|agree| if agree { ExitCode::SUCCESS } else { ExitCode::from(3) }),
        Command::LiveWorker(args) => Ok(live::worker::main(&args).map(|()| ExitCode::SUCCESS)?),
        Command::Link { link } => link_command(&link, out),
        Command::Check(args) => history::check(&args, out),
        Command::Convert(args) => history::convert(&args, out),
    }
}

/// Checks a link as the page reads it (`relink::check`): every notice the
/// page would show goes to stderr, with status 1; the link as made now goes
/// to stdout only when re-stamping it is all it needs.
fn link_command(link: &str, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    let mut check = fencing_sim::relink::check(link);
    if let Some((fleet_link, carried)) = check.fleet.take() {
        // The page checks a fleet's fingerprint once the fleet has run: so
        // does this, within a fleet command's bounds.
        let report = fleet::run_link(&fleet_link)?;
        let ran = fencing_sim::relink::fleet_checked(&fleet_link, carried.as_deref(), &report);
        // What the page said on reading the link first, then on running it.
        let fresh = ran.fresh.filter(|_| check.notices.is_empty());
        check = fencing_sim::relink::Check { notices: [check.notices, ran.notices].concat(), fresh, fleet: None };
    }
    let notices = check.notices;
    if let Some(fresh) = check.fresh {
        writeln!(out, "?{}", fresh.trim_start_matches('?'))?;
    }
    for notice in &notices {
        say(&format!("fencing-lab: {notice}"));
    }
    Ok(if notices.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run_command(args: &RunArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let scenario = build_scenario(args)?;
    // One run keeps one trace: at most `events_max` events and its last line.
    cost::stories("this run", 1, scenario.events_max, "lower events_max")?;
    let trace = run(&scenario).map_err(|error| error.to_string())?;
    if args.json {
        writeln!(out, "{}", trace.to_json())?;
    } else {
        print_timeline(out, &trace)?;
    }
    Ok(())
}

fn explore_command(args: &ExploreArgs, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    if args.scenario.pause_ms.is_some() {
        return Err("the explorer sets the scenario's faults aside and places its own pauses: --pause-ms would be ignored"
            .to_string()
            .into());
    }
    let scenario = build_scenario(&args.scenario)?;
    let outcome = explore_bounded(&scenario, args.property, args.faults_max)?;
    if args.scenario.json {
        writeln!(out, "{}", serde_json::to_string(&outcome).expect("an outcome serialises"))?;
    } else {
        match &outcome {
            Outcome::Counterexample(found) => {
                writeln!(out, "{} is broken after {} schedules. Shrunk counterexample:", args.property.name(), found.schedules_tried)?;
                for fault in &found.scenario.faults {
                    writeln!(out, "  {}", fault.describe())?;
                }
                writeln!(out, "Cause: {}.", found.chain)?;
                writeln!(out, "Replay it with `fencing-lab run --scenario FILE.json`, FILE.json holding:")?;
                writeln!(out, "{}", serde_json::to_string(&found.scenario).expect("a scenario serialises"))?;
            }
            Outcome::None { claim, .. } => writeln!(out, "{claim}")?,
        }
    }
    Ok(if matches!(outcome, Outcome::Counterexample(_)) { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The explorer's search, its cost checked before it starts: first the
/// single faults (counting the pairs takes a run per single), then the
/// whole search; long searches report their progress.
fn explore_bounded(scenario: &Scenario, property: Property, faults_max: u8) -> Result<Outcome, String> {
    let smaller = "a scenario with fewer workers or a lower events_max";
    let singles = Explorer::new(scenario, property, 1).map_err(|error| error.to_string())?.total() as u64;
    cost::stories("this search's single faults", singles + 1, scenario.events_max, &format!("explore {smaller}"))?;
    let reduce = format!("explore one fault at a time (--faults-max 1), or {smaller}");
    let mut explorer = Explorer::new(scenario, property, faults_max).map_err(|error| error.to_string())?;
    if faults_max > 1 {
        // Counting the pairs takes a run per single: refused up front when
        // that alone is more than a tenth of a command's work.
        let counting = singles.saturating_mul(u64::from(scenario.events_max));
        if counting > cost::STORY_EVENTS_MAX / 10 {
            return Err(format!(
                "counting this search's pairs of faults would simulate up to {counting} events ({singles} runs of up to {}), over a tenth of a command's {}: {reduce}",
                scenario.events_max,
                cost::STORY_EVENTS_MAX
            ));
        }
    }
    let total = explorer.total() as u64;
    let events = cost::stories("this search", total + singles + 2, scenario.events_max, &reduce)?;
    let mut progress = Progress::new("schedules", total, events > cost::PROGRESS_EVENTS_MIN);
    // Slices of a hundred schedules; the search's own bound ends the loop.
    loop {
        if let Some(outcome) = explorer.step(100) {
            return Ok(outcome.clone());
        }
        progress.at(explorer.tried() as u64);
    }
}

fn sweep_command(args: &SweepArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if args.from > args.to {
        return Err(format!("a sweep needs --from ≤ --to, not {} > {}", args.from, args.to).into());
    }
    let seeds = args.seeds.unwrap_or(SEEDS_DEFAULT);
    // Counted before anything is collected: the bound holds whatever the range.
    let count = (args.to - args.from) / args.step + 1;
    let runs = count.saturating_mul(u64::from(seeds));
    if runs > SWEEP_RUNS_MAX {
        return Err(format!(
            "a sweep makes at most {SWEEP_RUNS_MAX} runs; {count} values × {seeds} seeds would be {runs}: take a larger --step or fewer --seeds"
        )
        .into());
    }
    let values: Vec<u64> = (0..count).map(|nth| args.from + nth * args.step).collect();
    if let Some(pauses) = &args.pauses {
        unused_with_pauses(args)?;
        return fleet::sweep(out, pauses, args.scenario.seed, &values, args.scenario.json);
    }
    let swept_too = match args.param {
        Param::TtlMs => args.scenario.ttl_ms.map(|_| "--ttl-ms"),
        Param::PauseMs => args.scenario.pause_ms.map(|_| "--pause-ms"),
        Param::WorkMs => None,
    };
    if let Some(option) = swept_too {
        return Err(format!("{option} is the swept parameter here: each value of the range replaces it").into());
    }
    let base = build_scenario(&args.scenario)?;
    if args.param == Param::PauseMs {
        has_a_pause(&base, "--param pause-ms")?;
    }
    let reduce = "take a larger --step, fewer --seeds, or a scenario with a lower events_max";
    let events = cost::stories("this sweep", runs, base.events_max, reduce)?;
    let mut progress = Progress::new("runs", runs, events > cost::PROGRESS_EVENTS_MIN);
    let mut rows = Vec::with_capacity(values.len());
    for (nth, value) in values.iter().enumerate() {
        rows.push(sweep_value(&base, args.param, *value, seeds, |seeds_done| progress.at(nth as u64 * u64::from(seeds) + seeds_done))?);
    }
    if args.scenario.json {
        writeln!(out, "{}", serde_json::to_string(&rows).expect("rows serialise"))?;
        return Ok(());
    }
    let name = match args.param {
        Param::TtlMs => "ttl-ms",
        Param::PauseMs => "pause-ms",
        Param::WorkMs => "work-ms",
    };
    writeln!(
        out,
        "{:>10} {:>6} {:>14} {:>17} {:>16} {:>12}",
        name, "runs", "zombie_writes", "stale_overwrites", "rejected_writes", "violations"
    )?;
    for row in rows {
        writeln!(
            out,
            "{:>10} {:>6} {:>14} {:>17} {:>16} {:>12}",
            row.value,
            row.runs,
            row.runs_with_zombie_writes,
            row.runs_with_stale_overwrites,
            row.runs_with_rejected_writes,
            row.runs_with_mutual_exclusion_violations
        )?;
    }
    Ok(())
}

/// One value of a sweep, its seeds run in tenths so that a long one can
/// report its progress (`done` gets the seeds run so far); the same row as
/// running them at once, the counts being sums over seeds.
fn sweep_value(base: &Scenario, param: Param, value: u64, seeds: u32, mut done: impl FnMut(u64)) -> Result<Row, String> {
    let chunk = seeds.div_ceil(10).max(1);
    let mut total = Row {
        value,
        runs: 0,
        runs_with_zombie_writes: 0,
        runs_with_stale_overwrites: 0,
        runs_with_rejected_writes: 0,
        runs_with_mutual_exclusion_violations: 0,
    };
    // At most ten chunks of seeds: `first` climbs by `chunk` to `seeds`.
    for first in (0..seeds).step_by(chunk as usize) {
        let part = Scenario { seed: base.seed.wrapping_add(u64::from(first)), ..base.clone() };
        let rows = fencing_sim::sweep::sweep(&part, param, &[value], chunk.min(seeds - first)).map_err(|error| error.to_string())?;
        for row in rows {
            total.runs += row.runs;
            total.runs_with_zombie_writes += row.runs_with_zombie_writes;
            total.runs_with_stale_overwrites += row.runs_with_stale_overwrites;
            total.runs_with_rejected_writes += row.runs_with_rejected_writes;
            total.runs_with_mutual_exclusion_violations += row.runs_with_mutual_exclusion_violations;
        }
        done(u64::from(total.runs));
    }
    Ok(total)
}

/// A sweep over a pause distribution runs the default fleet at each lease:
/// every option of a story's scenario would be ignored, so it is refused.
fn unused_with_pauses(args: &SweepArgs) -> Result<(), String> {
    if args.param != Param::TtlMs {
        return Err("a sweep over a pause distribution varies the lease: --param ttl-ms".to_string());
    }
    let given = &args.scenario;
    let unused = [
        ("--preset", given.preset.is_some()),
        ("--scenario", given.scenario.is_some()),
        ("--fencing", given.fencing.is_some()),
        ("--ttl-ms", given.ttl_ms.is_some()),
        ("--pause-ms", given.pause_ms.is_some()),
        ("--seeds", args.seeds.is_some()),
    ];
    match unused.iter().filter(|(_, given)| *given).map(|(option, _)| *option).collect::<Vec<_>>() {
        options if options.is_empty() => Ok(()),
        options => Err(format!(
            "a sweep over a pause distribution (--pauses) runs the default fleet once per lease and takes only --seed and --json: {} would be ignored (for a fleet of your own, `fencing-lab fleet --trade`)",
            options.join(", ")
        )),
    }
}

/// Refuses a pause length for a scenario with no pause to change, in the
/// words the link reader uses for the same.
fn has_a_pause(scenario: &Scenario, option: &str) -> Result<(), String> {
    if scenario.faults.iter().any(|fault| matches!(fault, Fault::Pause { .. })) {
        return Ok(());
    }
    let preset = if scenario.preset.is_empty() { "the scenario" } else { &scenario.preset };
    Err(format!("{option} changes the length of the scenario's pauses, and {preset} has no pause to change: add a pause fault (a scenario file's \"faults\"), or choose a preset with one"))
}

fn build_scenario(args: &RunArgs) -> Result<Scenario, String> {
    let given = args.scenario.as_deref().map(read_scenario_fields).transpose()?;
    let id = preset_id(args.preset.as_deref(), given.as_ref())?;
    let preset = presets::find(&id).ok_or_else(|| {
        let known: Vec<_> = presets::PRESETS.iter().map(|preset| preset.id).collect();
        format!("unknown preset {id:?}; known presets: {}", known.join(", "))
    })?;
    let mut scenario = match given {
        Some(given) => overlay((preset.build)(), given)?,
        None => (preset.build)(),
    };
    if let Some(fleet) = scenario.fleet {
        // A story's command keeps every event of its run, and a fleet's run
        // may have FLEET_EVENTS_MAX of them: the fleet command counts instead.
        return Err(format!(
            "this scenario is a fleet (its \"fleet\" object: {} workers for {} ms, up to {} events): `run`, `sweep` and `explore` keep every event of a run, a fleet's could reach {FLEET_EVENTS_MAX}. Run it with `fencing-lab fleet` (counters only), e.g. `fencing-lab fleet --workers {} --span-ms {} --pauses {}`",
            scenario.workers,
            fleet.span_ms,
            scenario.events_max,
            scenario.workers.clamp(2, fencing_sim::scenario::FLEET_WORKERS_MAX),
            fleet.span_ms,
            fleet.pauses.facts().map_or("custom", |facts| facts.id),
        ));
    }
    if let Some(fencing) = args.fencing {
        scenario.fencing = matches!(fencing, Switch::On);
    }
    if let Some(ttl_ms) = args.ttl_ms {
        scenario.ttl_ms = ttl_ms;
    }
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    if let Some(pause_ms) = args.pause_ms {
        has_a_pause(&scenario, "--pause-ms")?;
        scenario = Param::PauseMs.apply(&scenario, pause_ms);
    }
    Ok(scenario)
}

/// The preset a run starts from: `--preset`, or the preset the file's own
/// "preset" names (it chooses the base values, never only labels them), or
/// gc-pause. The two disagreeing is refused: neither could be the truth.
fn preset_id(flag: Option<&str>, given: Option<&Fields>) -> Result<String, String> {
    // A name that is no preset's ("my-run") is only the file's label.
    let named = given.and_then(|given| given.get("preset")).and_then(serde_json::Value::as_str).filter(|id| presets::find(id).is_some());
    match (flag, named) {
        (Some(flag), Some(named)) if flag != named => {
            Err(format!("--preset {flag} contradicts the scenario file's \"preset\": \"{named}\"; give one of them"))
        }
        (Some(flag), _) => Ok(flag.to_string()),
        (None, Some(named)) => Ok(named.to_string()),
        (None, None) => Ok("gc-pause".to_string()),
    }
}

type Fields = serde_json::Map<String, serde_json::Value>;

/// The file's fields. The file is first read as a whole scenario, so a
/// malformed or oversized one is refused early and with the parser's own
/// message.
fn read_scenario_fields(path: &std::path::Path) -> Result<Fields, String> {
    let text = read_bounded(path)?;
    let invalid = |error: serde_json::Error| format!("{} is not a valid scenario: {error}", path.display());
    serde_json::from_str::<Scenario>(&text).map_err(invalid)?;
    serde_json::from_str(&text).map_err(invalid)
}

/// The preset with the file's fields laid over it.
fn overlay(base: Scenario, given: Fields) -> Result<Scenario, String> {
    let mut merged = serde_json::to_value(base).expect("a scenario serialises");
    if let Some(fields) = merged.as_object_mut() {
        fields.extend(given);
    }
    serde_json::from_value(merged).map_err(|error| format!("not a valid scenario: {error}"))
}

/// The file's text, refused before it is read whole if it is over
/// `SCENARIO_BYTES_MAX` (a scenario is a few hundred bytes).
fn read_bounded(path: &std::path::Path) -> Result<String, String> {
    let cannot = |error: std::io::Error| format!("cannot read {}: {error}", path.display());
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(SCENARIO_BYTES_MAX + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > SCENARIO_BYTES_MAX {
        return Err(format!("{} is over {SCENARIO_BYTES_MAX} bytes: not a scenario", path.display()));
    }
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

pub(crate) fn print_timeline(out: &mut dyn Write, trace: &Trace) -> io::Result<()> {
    for event in &trace.events {
        writeln!(out, "{:>12}  {:<6} {}", fencing_sim::format_us(event.t_us), event.actor.to_string(), trace.text(event))?;
    }
    let summary = &trace.summary;
    writeln!(out)?;
    writeln!(out, "{}", summary.verdict)?;
    writeln!(out, "zombie_writes                  {}", summary.zombie_writes)?;
    writeln!(out, "stale_overwrites               {}", summary.stale_overwrites)?;
    writeln!(out, "rejected_writes                {}", summary.rejected_writes)?;
    writeln!(out, "accepted_writes                {}", summary.accepted_writes)?;
    writeln!(out, "mutual_exclusion_violations    {}", summary.mutual_exclusion_violations)?;
    writeln!(out, "lock_lost_by_successor_release {}", summary.lock_lost_by_successor_release)?;
    writeln!(out, "fencing                        {}", summary.fencing.describe())?;
    match summary.final_store {
        Some(datum) => writeln!(
            out,
            "final_store                    {} (token {})",
            datum.writer,
            datum.token.map_or("none".into(), |token| token.to_string())
        ),
        None => writeln!(out, "final_store                    empty"),
    }
}
