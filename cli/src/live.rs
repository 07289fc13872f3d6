//! `fencing-lab live`: a story for real. Two worker processes (this binary's
//! hidden `live-worker`) race for a lock on a real Redis; the lab (this
//! process) freezes A with SIGSTOP at an exact step of its recipe, lets B
//! take the lock when A's lease runs out, and thaws A with SIGCONT. Then it
//! prints what really happened next to what the model predicts for the same
//! timings, and says whether they agree.
//!
//! - `gc-pause`: A is frozen right after it drew token 33, in its work; B
//!   draws 34 and writes; A wakes and writes with 33: the plain store takes
//!   it over B's data, the fenced store refuses it.
//! - `token-inversion`: A is frozen between its `SET NX` (OK) and its
//!   `INCR`; B takes the lock, draws 33 and writes; A wakes, draws 34 and
//!   writes: the fenced store takes A's stale write and refuses B's next.
//!
//! Processes, signals and sockets live here, in the binary: the library
//! stays pure. The modules: `event` (what is said), `server` (Redis),
//! `process` (children, signals, collecting), `stage` (the choreography),
//! `measure` (the real outcomes), `model` (the prediction and the
//! comparison), `output` (the report), `worker` (a worker process),
//! `recording` (the run as a history per store, written or compared with
//! the committed one: `recordings/`).

mod event;
mod measure;
mod model;
mod output;
mod process;
mod recording;
mod server;
mod stage;
pub mod worker;

use clap::{Parser, ValueEnum};
use event::{FreezePoint, Store};

pub const DEFAULT_URL: &str = "redis://127.0.0.1:6379/";
/// Retry bounds of a refused `SET NX`, on the live run's (second) scale; the
/// simulated run gets the same ones.
pub const BACKOFF_MS_MIN: u64 = 10;
pub const BACKOFF_MS_MAX: u64 = 50;
/// The longest lease or pause a live run accepts: the run takes real time.
pub const LIVE_MS_MAX: u64 = 20_000;
/// The most writes a worker makes in one hold.
pub const WRITES_MAX: u8 = 4;
/// Kleppmann's example: the first token is 33.
const FIRST_TOKEN: u64 = 33;

/// Which story to stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Story {
    /// A frozen past its lease after drawing its token: the zombie write.
    GcPause,
    /// A frozen between `SET NX` and `INCR`: B draws 33, A draws 34.
    TokenInversion,
}

impl Story {
    pub fn id(self) -> &'static str {
        match self {
            Story::GcPause => "gc-pause",
            Story::TokenInversion => "token-inversion",
        }
    }

    /// The model's preset for the same story (named alike).
    pub fn preset_id(self) -> &'static str {
        self.id()
    }

    fn freeze_at(self) -> FreezePoint {
        match self {
            Story::GcPause => FreezePoint::Acquired,
            Story::TokenInversion => FreezePoint::Granted,
        }
    }

    pub fn freeze_words(self) -> &'static str {
        match self.freeze_at() {
            FreezePoint::Acquired => "right after its INCR (in its work)",
            FreezePoint::Granted => "between its SET NX (OK) and its INCR",
        }
    }

    /// (ttl_ms, pause_ms, work_ms, writes). Token inversion: B is granted the
    /// lock at 1000–1050 ms and writes 400 ms later, A is thawed at 1200 ms
    /// and writes 400 ms after that, B writes again at 1800–1850 ms: about
    /// 150 ms between any two writes, so the order is not down to luck.
    fn defaults(self) -> (u64, u64, u64, u8) {
        match self {
            Story::GcPause => (1_000, 2_000, 100, 1),
            Story::TokenInversion => (1_000, 1_200, 400, 2),
        }
    }
}

#[derive(Parser)]
pub struct LiveArgs {
    /// Which story to stage.
    #[arg(long, value_enum, default_value_t = Story::GcPause)]
    story: Story,
    /// The Redis to run on. Its keys for this run start with
    /// `fencing-lab:live:<pid>:` and are deleted afterwards.
    #[arg(long, default_value = DEFAULT_URL)]
    redis: String,
    /// The lock's lease (`SET … PX ttl`); default 1000.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=LIVE_MS_MAX))]
    ttl_ms: Option<u64>,
    /// How long A stays frozen (SIGSTOP … SIGCONT); default 2000 (gc-pause)
    /// or 1200 (token-inversion).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=LIVE_MS_MAX))]
    pause_ms: Option<u64>,
    /// Print one JSON object: the real timeline and summaries, and the simulated ones.
    #[arg(long)]
    json: bool,
    /// Write the run as a history per store into DIR
    /// (`<story>.redis.jsonl` for the store the story is about,
    /// `<story>.<store>.redis.jsonl` for the other): `scripts/record.sh`.
    #[arg(long, value_name = "DIR", conflicts_with = "compare")]
    record: Option<std::path::PathBuf>,
    /// Compare the run with the histories recorded in DIR (`recordings`):
    /// holders, tokens, writes and their decisions, the last writer and the
    /// verdict's counters must agree (else exit 3); the timing differences
    /// are printed.
    #[arg(long, value_name = "DIR")]
    compare: Option<std::path::PathBuf>,
}

/// A run's settled parameters.
pub struct Plan {
    pub story: Story,
    pub redis: String,
    pub ttl_ms: u64,
    pub pause_ms: u64,
    pub work_ms: u64,
    pub writes: u8,
    pub freeze_at: FreezePoint,
    pub attempts_max: u32,
}

impl Plan {
    fn of(args: &LiveArgs) -> Plan {
        let (ttl_ms, pause_ms, work_ms, writes) = args.story.defaults();
        let (ttl_ms, pause_ms) = (args.ttl_ms.unwrap_or(ttl_ms), args.pause_ms.unwrap_or(pause_ms));
        // Enough attempts, at ≥ 25 ms each once the backoff is capped, for B
        // to outwait A's whole lease and pause; the model's bound is 1000.
        let attempts_max = u32::try_from(((ttl_ms + pause_ms) / 25 + 40).min(1000)).expect("at most 1000");
        Plan {
            story: args.story,
            redis: args.redis.clone(),
            ttl_ms,
            pause_ms,
            work_ms,
            writes,
            freeze_at: args.story.freeze_at(),
            attempts_max,
        }
    }
}

/// Runs the story; `Ok(true)` when the real run and the model agree.
pub fn command(args: &LiveArgs, out: &mut dyn std::io::Write) -> Result<bool, crate::output::Failure> {
    let plan = Plan::of(args);
    process::install_panic_hook();
    let mut con = server::connect(&plan.redis)?;
    let version = server::version(&mut con);
    let prefix = format!("fencing-lab:live:{}:", std::process::id());
    let keys = server::Keys::new(&prefix);
    server::reset(&mut con, &keys, FIRST_TOKEN)?;
    let staged = stage::stage(&plan, &prefix);
    let finals = server::read_finals(&mut con, &keys);
    // The run's keys go whatever happened.
    server::delete(&mut con, &keys, &prefix);
    let events = staged?;
    let (plain_final, fenced_final) = finals?;
    let final_of = |store| match store {
        Store::Plain => plain_final.as_deref(),
        Store::Fenced => fenced_final.as_deref(),
    };
    let outcomes = Store::BOTH.map(|store| (store, measure::store_outcome(&events, store, final_of(store))));
    let simulated = model::simulate(&plan, &events)?;
    let disagreements = model::disagreements(&events, &outcomes, &simulated);
    let notes = if disagreements.is_empty() { Vec::new() } else { model::timing_notes(&plan, &events) };
    let report = output::Report {
        plan: &plan,
        version: &version,
        prefix: &prefix,
        events: &events,
        outcomes: &outcomes,
        simulated: &simulated,
        disagreements: &disagreements,
        notes: &notes,
    };
    if args.json {
        output::print_json(out, &report)?;
    } else {
        output::print_human(out, &report)?;
    }
    let mut agree = disagreements.is_empty();
    if args.record.is_some() || args.compare.is_some() {
        let recordings = recording::histories(&plan, &version, &events, &simulated.scenario)?;
        let (said, differ) = match (&args.record, &args.compare) {
            (Some(dir), _) => (recording::record(dir, &recordings)?, Vec::new()),
            (None, Some(dir)) => recording::compare(dir, &recordings),
            (None, None) => (Vec::new(), Vec::new()),
        };
        // Beside the report; on stderr when stdout is one JSON object.
        let lines = said.iter().cloned().chain(differ.iter().map(|line| format!("DISAGREE: {line}")));
        for line in lines {
            if args.json {
                crate::output::say(&line);
            } else {
                writeln!(out, "{line}")?;
            }
        }
        agree &= differ.is_empty();
    }
    Ok(agree)
}
