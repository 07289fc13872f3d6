//! `fencing-lab live`: the classic scenario for real. Two worker processes
//! (this binary's hidden `live-worker`) race for a lock on a real Redis; the
//! parent freezes A with `kill -STOP` right after it takes the lock, lets B
//! take the lock when A's lease runs out, and thaws A with `kill -CONT`. Then
//! it prints what really happened, next to what the model predicts for the
//! same parameters, and says whether they agree.
//!
//! Processes, signals and sockets live here, in the binary: the library stays
//! pure.

use clap::Parser;
use fencing_sim::{presets, sweep::Param, Fault, Kind, Scenario, Summary, Trace, When};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const DEFAULT_URL: &str = "redis://127.0.0.1:6379/";
const START_REDIS: &str = r#"redis-server --port 6379 --save "" --appendonly no"#;
/// A works long enough for the parent to freeze it mid-work; B a little.
const WORK_MS_A: u64 = 200;
const WORK_MS_B: u64 = 100;
/// Retry bounds of a refused `SET NX`, on the live run's (second) scale; the
/// simulated run gets the same ones.
pub const BACKOFF_MS_MIN: u64 = 10;
pub const BACKOFF_MS_MAX: u64 = 50;
/// Kleppmann's example: A gets 33, B gets 34.
const FIRST_TOKEN: u64 = 33;
/// The longest lease or pause a live run accepts: the run takes real time.
const LIVE_MS_MAX: u64 = 20_000;
/// How long a worker may take to connect and take a free lock.
const SETUP_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Parser)]
pub struct LiveArgs {
    /// The Redis to run on. Its keys for this run start with
    /// `fencing-lab:live:<pid>:` and are deleted afterwards.
    #[arg(long, default_value = DEFAULT_URL)]
    redis: String,
    /// The lock's lease (`SET … PX ttl`).
    #[arg(long, default_value_t = 1000)]
    ttl_ms: u64,
    /// How long A stays frozen (SIGSTOP … SIGCONT) right after taking the lock.
    #[arg(long, default_value_t = 2000)]
    pause_ms: u64,
    /// Print one JSON object: the real timeline and summaries, and the simulated ones.
    #[arg(long)]
    json: bool,
}

/// The run's keys, all under one prefix.
pub struct Keys {
    pub lock: String,
    pub fence: String,
    pub data: String,
    pub data_fenced: String,
    pub highest: String,
}

impl Keys {
    pub fn new(prefix: &str) -> Keys {
        Keys {
            lock: format!("{prefix}lock"),
            fence: format!("{prefix}fence"),
            data: format!("{prefix}data"),
            data_fenced: format!("{prefix}data_fenced"),
            highest: format!("{prefix}highest"),
        }
    }

    fn all(&self) -> [&str; 5] {
        [&self.lock, &self.fence, &self.data, &self.data_fenced, &self.highest]
    }
}

/// Milliseconds since a start instant that the parent hands to its workers
/// (the wall clock: the one clock that several processes share).
#[derive(Clone, Copy)]
pub struct Clock {
    pub start_unix_us: u64,
}

impl Clock {
    fn starting_now() -> Clock {
        Clock { start_unix_us: unix_us() }
    }

    /// With microseconds: two lines a millisecond apart still sort right.
    pub fn now_ms(&self) -> f64 {
        unix_us().saturating_sub(self.start_unix_us) as f64 / 1000.0
    }
}

fn unix_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| u64::try_from(since.as_micros()).unwrap_or(u64::MAX))
}

/// One line a worker prints (or the parent notes: worker "lab").
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LiveEvent {
    pub t_ms: f64,
    pub worker: String,
    /// started, busy, acquired, gave_up, wrote, released; the lab's stopped, resumed.
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<u64>,
    /// Which store a write went to: plain or fenced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<bool>,
    /// The fenced store's highest token after the write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub highest: Option<u64>,
    /// What the store held before the write ("B:34").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
    /// The compare-and-delete release's reply: 1 deleted, 0 not ours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// When `SET NX` said OK (the grant; "acquired" follows the `INCR`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_t_ms: Option<f64>,
    /// The lock value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// How long A was really frozen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_ms: Option<f64>,
}

impl LiveEvent {
    pub fn new(t_ms: f64, worker: &str, event: &str) -> LiveEvent {
        LiveEvent {
            t_ms,
            worker: worker.to_string(),
            event: event.to_string(),
            token: None,
            store: None,
            accepted: None,
            highest: None,
            replaced: None,
            result: None,
            attempts: None,
            granted_t_ms: None,
            value: None,
            pid: None,
            paused_ms: None,
        }
    }
}

/// Runs the scenario; `Ok(true)` when the real run and the model agree.
pub fn command(args: &LiveArgs) -> Result<bool, String> {
    if !(1..=LIVE_MS_MAX).contains(&args.ttl_ms) {
        return Err(format!("--ttl-ms must be 1–{LIVE_MS_MAX} for a live run, not {}", args.ttl_ms));
    }
    // A is frozen during its work; a shorter freeze would end before the
    // work does, and the model (one work_ms for all) could not follow.
    if !(WORK_MS_A..=LIVE_MS_MAX).contains(&args.pause_ms) {
        return Err(format!(
            "--pause-ms must be {WORK_MS_A}–{LIVE_MS_MAX} (A is frozen during its {WORK_MS_A} ms of work), not {}",
            args.pause_ms
        ));
    }
    install_panic_hook();
    let mut con = connect(&args.redis)?;
    let version = redis_version(&mut con);
    let prefix = format!("fencing-lab:live:{}:", std::process::id());
    let keys = Keys::new(&prefix);
    reset(&mut con, &keys)?;
    let staged = stage(args, &prefix);
    let finals = read_finals(&mut con, &keys);
    // The run's keys go whatever happened; a failure to delete them is only
    // worth a warning (the prefix is unique to this run).
    if let Err(error) = redis::cmd("DEL").arg(&keys.all()[..]).exec(&mut con) {
        eprintln!("fencing-lab live: could not delete the run's keys {prefix}*: {error}");
    }
    let staged = staged?;
    let (plain_final, fenced_final) = finals?;
    let real = RealRun {
        plain: store_outcome(&staged.events, "plain", plain_final),
        fenced: store_outcome(&staged.events, "fenced", fenced_final),
        events: staged.events,
    };
    let simulated = simulate(args, &real.events, staged.attempts_max)?;
    let disagreements = disagreements(&real, &simulated);
    let notes = if disagreements.is_empty() { Vec::new() } else { timing_notes(args, &real.events) };
    let context = Context { args, version: &version, prefix: &prefix, attempts_max: staged.attempts_max };
    if args.json {
        print_json(&context, &real, &simulated, &disagreements, &notes);
    } else {
        print_human(&context, &real, &simulated, &disagreements, &notes);
    }
    Ok(disagreements.is_empty())
}

fn connect(url: &str) -> Result<redis::Connection, String> {
    let how_to = format!("start one with:  {START_REDIS}\n  (or point --redis at another: redis://HOST:PORT/)");
    let client = redis::Client::open(url).map_err(|error| format!("bad Redis URL {url:?}: {error}"))?;
    let unreachable = |error: redis::RedisError| format!("cannot connect to Redis at {url}: {error}\n  {how_to}");
    let mut con = client.get_connection_with_timeout(Duration::from_secs(2)).map_err(unreachable)?;
    con.set_read_timeout(Some(Duration::from_secs(5))).map_err(unreachable)?;
    con.set_write_timeout(Some(Duration::from_secs(5))).map_err(unreachable)?;
    redis::cmd("PING").query::<String>(&mut con).map_err(unreachable)?;
    Ok(con)
}

fn redis_version(con: &mut redis::Connection) -> String {
    let info: String = redis::cmd("INFO").arg("server").query(con).unwrap_or_default();
    info.lines().find_map(|line| line.strip_prefix("redis_version:")).unwrap_or("?").trim().to_string()
}

/// Fresh keys, and a counter whose first `INCR` gives 33.
fn reset(con: &mut redis::Connection, keys: &Keys) -> Result<(), String> {
    let failed = |error: redis::RedisError| format!("cannot reset the run's keys: {error}");
    redis::cmd("DEL").arg(&keys.all()[..]).exec(con).map_err(failed)?;
    redis::cmd("SET").arg(&keys.fence).arg(FIRST_TOKEN - 1).exec(con).map_err(failed)
}

/// What each store holds at the end.
fn read_finals(con: &mut redis::Connection, keys: &Keys) -> Result<(Option<String>, Option<String>), String> {
    redis::cmd("MGET").arg(&keys.data).arg(&keys.data_fenced).query(con).map_err(|error| format!("cannot read the stores back: {error}"))
}

// ---------------------------------------------------------------------------
// The choreography: two processes, one frozen.

struct Staged {
    events: Vec<LiveEvent>,
    attempts_max: u32,
}

/// Starts A, freezes it as soon as it holds the lock, starts B, thaws A after
/// `pause_ms`, and collects every line. Whatever goes wrong, `Children`'s
/// drop thaws and kills what is left.
fn stage(args: &LiveArgs, prefix: &str) -> Result<Staged, String> {
    let clock = Clock::starting_now();
    // Enough attempts, at ≥ 25 ms each once the backoff is capped, for B to
    // outwait A's whole lease and pause; the model's bound is at most 1000.
    let attempts_max = u32::try_from(((args.ttl_ms + args.pause_ms) / 25 + 40).min(1000)).expect("at most 1000");
    let exe = std::env::current_exe().map_err(|error| format!("cannot find this program to start the workers: {error}"))?;
    let worker = |name: &str, work_ms: u64| {
        let mut command = Command::new(&exe);
        command
            .args(["live-worker", "--name", name, "--redis", &args.redis, "--prefix", prefix])
            .args(["--ttl-ms", &args.ttl_ms.to_string(), "--work-ms", &work_ms.to_string()])
            .args(["--start-unix-us", &clock.start_unix_us.to_string(), "--attempts-max", &attempts_max.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a Ctrl-C meant for the parent does not
            // reach a frozen worker as a pending signal, and if the parent
            // dies anyway, the group is orphaned with a stopped member, so
            // the kernel sends it SIGHUP and SIGCONT: nothing stays frozen.
            .process_group(0);
        command
    };
    let (sender, receiver) = mpsc::channel();
    let mut collector = Collector::new(receiver);
    let mut children = Children::default();

    let a_pid = children.spawn("A", worker("A", WORK_MS_A), &sender)?;
    let acquired = collector.wait_for("A", "acquired", Instant::now() + SETUP_TIMEOUT)?;
    // Frozen a moment too early, between its "acquired" line and its sleep,
    // A would start its whole work only after SIGCONT (seen on this 2-core
    // machine: the reader thread's wake-up can preempt A right after its
    // write). Once A is asleep, the sleep is all that is left to freeze.
    wait_for_state(a_pid, 'S', "fall asleep for its work")?;
    // Times are taken as `kill` starts: the signal lands while it runs, and
    // the lab's line then sorts before anything A does after it.
    let stopped_at = Instant::now();
    let stop_t_ms = clock.now_ms();
    signal(a_pid, "STOP")?;
    wait_for_state(a_pid, 'T', "stop after kill -STOP")?;
    collector.drain();
    let into_work_ms = stop_t_ms - acquired.t_ms;
    if collector.find("A", "wrote").is_some() || into_work_ms >= WORK_MS_A as f64 {
        return Err(format!(
            "A was frozen only {into_work_ms:.1} ms after taking the lock, after its {WORK_MS_A} ms of work: \
             this machine is too busy to stage the scenario; try again"
        ));
    }
    collector.events.push(LiveEvent { pid: Some(a_pid), ..LiveEvent::new(stop_t_ms, "lab", "stopped") });
    eprintln!(
        "live: A holds the lock with token {}; frozen {into_work_ms:.1} ms later with kill -STOP {a_pid}",
        acquired.token.unwrap_or(0)
    );

    children.spawn("B", worker("B", WORK_MS_B), &sender)?;
    drop(sender);
    eprintln!("live: started B; A stays frozen for {} ms", args.pause_ms);
    // A stays frozen for exactly the pause, as the model's pause fault does,
    // whether or not B is done by then (with a pause shorter than the lease,
    // B can only get the lock once A is back).
    collector.pump_until(stopped_at + Duration::from_millis(args.pause_ms));
    let resume_t_ms = clock.now_ms();
    signal(a_pid, "CONT")?;
    collector.events.push(LiveEvent {
        pid: Some(a_pid),
        paused_ms: Some(((resume_t_ms - stop_t_ms) * 1000.0).round() / 1000.0),
        ..LiveEvent::new(resume_t_ms, "lab", "resumed")
    });
    eprintln!(
        "live: resumed A with kill -CONT {a_pid} after {:.1} ms{}",
        resume_t_ms - stop_t_ms,
        if collector.find("B", "released").is_some() { "; B was done by then" } else { "; B was not done yet" }
    );

    let deadline = Instant::now() + SETUP_TIMEOUT + Duration::from_millis(u64::from(attempts_max) * BACKOFF_MS_MAX);
    for name in ["A", "B"] {
        collector.wait_for(name, "released", deadline)?;
    }
    let statuses = children.wait_all(deadline)?;
    for (name, status) in statuses {
        if !status.success() {
            return Err(format!("worker {name} exited with {status}: {}", collector.stderr_of(name, deadline)));
        }
    }
    let mut events = collector.events;
    events.sort_by(|one, other| one.t_ms.total_cmp(&other.t_ms));
    Ok(Staged { events, attempts_max })
}

/// `kill -SIG pid`, with the system's `kill` (no libc in this crate).
fn signal(pid: u32, signal: &str) -> Result<(), String> {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .stdout(Stdio::null())
        .status()
        .map_err(|error| format!("cannot run kill -{signal} {pid}: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("kill -{signal} {pid} failed ({status})"))
    }
}

/// Waits (bounded) until the kernel reports the process in `state`: 'S'
/// (asleep: a single-threaded worker with nothing else to wait for is in its
/// work's sleep) or 'T' (stopped). Without a /proc to ask, it goes on trust.
fn wait_for_state(pid: u32, state: char, what: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return Ok(()) };
        // "pid (comm) S …": the state follows the last ')'.
        let now = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
        if now == Some(state) {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!("worker {pid} did not {what} within 1 s (state {now:?})"));
        }
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// The workers' pids, for the panic hook: the release profile aborts on a
/// panic, so no destructor would thaw a frozen worker.
static CHILD_PIDS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn child_pids() -> std::sync::MutexGuard<'static, Vec<u32>> {
    CHILD_PIDS.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        for pid in child_pids().drain(..) {
            signal(pid, "CONT").ok();
            signal(pid, "KILL").ok();
        }
        previous(info);
    }));
}

/// The worker processes. Dropping it thaws and kills any still running, so no
/// early return leaves a stopped process behind.
#[derive(Default)]
struct Children {
    running: Vec<(&'static str, Child)>,
}

impl Children {
    /// Starts a worker and a thread per pipe that forwards what it says.
    fn spawn(&mut self, name: &'static str, mut command: Command, sender: &Sender<Message>) -> Result<u32, String> {
        let mut child = command.spawn().map_err(|error| format!("cannot start worker {name}: {error}"))?;
        let pid = child.id();
        child_pids().push(pid);
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        self.running.push((name, child));
        let lines = sender.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines.send(Message::Line(name, line)).is_err() {
                    return;
                }
            }
            lines.send(Message::Closed(name)).ok();
        });
        let errors = sender.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            BufReader::new(stderr).take(64 * 1024).read_to_string(&mut text).ok();
            errors.send(Message::Stderr(name, text)).ok();
        });
        Ok(pid)
    }

    /// Waits (bounded) for every worker to exit.
    fn wait_all(&mut self, deadline: Instant) -> Result<Vec<(&'static str, ExitStatus)>, String> {
        let mut statuses = Vec::new();
        while !self.running.is_empty() {
            let mut index = 0;
            while index < self.running.len() {
                let (name, child) = &mut self.running[index];
                match child.try_wait() {
                    Ok(Some(status)) => {
                        let (name, pid) = (*name, child.id());
                        child_pids().retain(|known| *known != pid);
                        statuses.push((name, status));
                        self.running.remove(index);
                    }
                    Ok(None) => index += 1,
                    Err(error) => return Err(format!("cannot wait for worker {name}: {error}")),
                }
            }
            if !self.running.is_empty() {
                if Instant::now() >= deadline {
                    let names: Vec<_> = self.running.iter().map(|(name, _)| *name).collect();
                    return Err(format!("worker {} did not exit in time; killed", names.join(" and ")));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Ok(statuses)
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        for (_, child) in &mut self.running {
            if let Ok(None) = child.try_wait() {
                signal(child.id(), "CONT").ok();
                child.kill().ok();
                child.wait().ok();
            }
            let pid = child.id();
            child_pids().retain(|known| *known != pid);
        }
    }
}

enum Message {
    Line(&'static str, String),
    Closed(&'static str),
    Stderr(&'static str, String),
}

/// Everything the workers said, as it arrives.
struct Collector {
    receiver: Receiver<Message>,
    events: Vec<LiveEvent>,
    closed: HashSet<&'static str>,
    stderr: HashMap<&'static str, String>,
    /// Lines that were not events: a worker bug, shown with the error.
    garbage: Vec<String>,
}

impl Collector {
    fn new(receiver: Receiver<Message>) -> Collector {
        Collector { receiver, events: Vec::new(), closed: HashSet::new(), stderr: HashMap::new(), garbage: Vec::new() }
    }

    fn take(&mut self, message: Message) {
        match message {
            Message::Line(name, line) => match serde_json::from_str::<LiveEvent>(&line) {
                Ok(event) => self.events.push(event),
                Err(_) => self.garbage.push(format!("{name}: {line}")),
            },
            Message::Closed(name) => {
                self.closed.insert(name);
            }
            Message::Stderr(name, text) => {
                self.stderr.insert(name, text);
            }
        }
    }

    /// Takes one message, waiting until `deadline` at most; false if none came.
    fn pump(&mut self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.receiver.recv_timeout(left) {
            Ok(message) => {
                self.take(message);
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(left);
                false
            }
        }
    }

    /// Keeps collecting until `deadline`.
    fn pump_until(&mut self, deadline: Instant) {
        while Instant::now() < deadline {
            self.pump(deadline);
        }
    }

    fn drain(&mut self) {
        while let Ok(message) = self.receiver.try_recv() {
            self.take(message);
        }
    }

    fn find(&self, worker: &str, event: &str) -> Option<&LiveEvent> {
        self.events.iter().find(|said| said.worker == worker && said.event == event)
    }

    /// Collects until `worker` says `event`; an error if it ends or the
    /// deadline passes first.
    fn wait_for(&mut self, worker: &'static str, event: &str, deadline: Instant) -> Result<LiveEvent, String> {
        loop {
            if let Some(said) = self.find(worker, event) {
                return Ok(said.clone());
            }
            if self.closed.contains(worker) {
                let grace = Instant::now() + Duration::from_secs(2);
                return Err(format!("worker {worker} ended before it {event} the lock: {}", self.stderr_of(worker, grace)));
            }
            if Instant::now() >= deadline {
                return Err(format!("worker {worker} had not {event} the lock in time"));
            }
            self.pump(deadline);
        }
    }

    /// What the worker wrote to stderr (waiting for it until `deadline`).
    fn stderr_of(&mut self, worker: &'static str, deadline: Instant) -> String {
        while !self.stderr.contains_key(worker) && Instant::now() < deadline {
            self.pump(deadline);
        }
        let mut text = self.stderr.get(worker).map_or("", |text| text.trim()).to_string();
        if text.is_empty() {
            text = "(it said nothing on stderr)".to_string();
        }
        if !self.garbage.is_empty() {
            text.push_str(&format!("; unexpected output: {}", self.garbage.join(" | ")));
        }
        text
    }
}

// ---------------------------------------------------------------------------
// What happened, measured as the model measures it.

/// A store's last accepted write, as `run --json`'s `final_store` has it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct FinalStore {
    writer: String,
    token: Option<u64>,
}

impl FinalStore {
    /// "A:33" → A, token 33.
    fn parse(datum: &str) -> FinalStore {
        match datum.split_once(':') {
            Some((writer, token)) => FinalStore { writer: writer.to_string(), token: token.parse().ok() },
            None => FinalStore { writer: datum.to_string(), token: None },
        }
    }

    fn describe(store: Option<&FinalStore>) -> String {
        match store {
            Some(FinalStore { writer, token: Some(token) }) => format!("{writer} (token {token})"),
            Some(FinalStore { writer, token: None }) => format!("{writer} (no token)"),
            None => "empty".to_string(),
        }
    }
}

/// One store's outcome, with `run --json`'s summary field names.
#[derive(Serialize)]
struct StoreOutcome {
    zombie_writes: u32,
    stale_overwrites: u32,
    rejected_writes: u32,
    accepted_writes: u32,
    final_store: Option<FinalStore>,
}

struct RealRun {
    events: Vec<LiveEvent>,
    plain: StoreOutcome,
    fenced: StoreOutcome,
}

/// Counts one store's writes. A zombie write is an accepted write made after
/// the lock was granted to another worker (a later grant: a higher token);
/// a stale overwrite, an accepted write that replaced data of a newer token.
fn store_outcome(events: &[LiveEvent], store: &str, final_value: Option<String>) -> StoreOutcome {
    let grants: Vec<(&str, u64, f64)> = events
        .iter()
        .filter(|said| said.event == "acquired")
        .filter_map(|said| Some((said.worker.as_str(), said.token?, said.granted_t_ms.unwrap_or(said.t_ms))))
        .collect();
    let mut outcome = StoreOutcome { zombie_writes: 0, stale_overwrites: 0, rejected_writes: 0, accepted_writes: 0, final_store: None };
    for write in events.iter().filter(|said| said.event == "wrote" && said.store.as_deref() == Some(store)) {
        let token = write.token.unwrap_or(0);
        if write.accepted != Some(true) {
            outcome.rejected_writes += 1;
            continue;
        }
        outcome.accepted_writes += 1;
        let superseded =
            grants.iter().any(|(worker, granted, granted_t_ms)| *worker != write.worker && *granted > token && *granted_t_ms < write.t_ms);
        outcome.zombie_writes += u32::from(superseded);
        let replaced_token = write.replaced.as_deref().map(FinalStore::parse).and_then(|replaced| replaced.token);
        outcome.stale_overwrites += u32::from(replaced_token.is_some_and(|replaced| replaced > token));
    }
    outcome.final_store = final_value.as_deref().map(FinalStore::parse);
    outcome
}

// ---------------------------------------------------------------------------
// What the model predicts for the same parameters.

struct Simulated {
    /// The scenario run (fencing off; the fenced run differs only there).
    scenario: Scenario,
    plain: Trace,
    fenced: Trace,
}

/// The classic preset with this run's lease and pause, and with the rest of
/// its timing (scaled to a 10 s lease) set to what the live run did:
/// - B starts when it really did, relative to A (the preset's 5 s gap would
///   start it after A's pause is over);
/// - A's pause begins when the lab really froze it, rather than "before its
///   first write": A's work timer then runs out inside the pause and fires
///   on resume, as a real sleep's deadline does after SIGCONT;
/// - work_ms is B's: the model has one work_ms for all, and A's (longer)
///   work ends inside the pause either way (`--pause-ms` ≥ A's work);
/// - retries use the live workers' backoff and bound.
fn simulate(args: &LiveArgs, events: &[LiveEvent], attempts_max: u32) -> Result<Simulated, String> {
    let when = |worker: &str, event: &str| events.iter().find(|said| said.worker == worker && said.event == event).map(|said| said.t_ms);
    let (Some(a_started), Some(b_started), Some(a_stopped)) = (when("A", "started"), when("B", "started"), when("lab", "stopped")) else {
        return Err("the timeline lacks a worker's start or A's stop".to_string());
    };
    let after_a_ms = |t_ms: f64| (t_ms - a_started).round().max(1.0) as u64;
    let base = Scenario {
        fencing: false,
        ttl_ms: args.ttl_ms,
        start_gap_ms: after_a_ms(b_started),
        work_ms: WORK_MS_B,
        backoff_ms_min: BACKOFF_MS_MIN,
        backoff_ms_max: BACKOFF_MS_MAX,
        acquire_attempts_max: attempts_max,
        ..presets::classic()
    };
    let mut scenario = Param::PauseMs.apply(&base, args.pause_ms);
    for fault in &mut scenario.faults {
        if let Fault::Pause { when, .. } = fault {
            *when = When::AtMs(after_a_ms(a_stopped));
        }
    }
    let plain = fencing_sim::run(&scenario).map_err(|error| format!("the model refused the scenario: {error}"))?;
    let fenced = fencing_sim::run(&Scenario { fencing: true, ..scenario.clone() })
        .map_err(|error| format!("the model refused the scenario: {error}"))?;
    Ok(Simulated { scenario, plain, fenced })
}

fn simulated_final(summary: &Summary) -> Option<FinalStore> {
    summary.final_store.map(|datum| FinalStore { writer: datum.writer.to_string(), token: datum.token })
}

/// Where real and simulated differ on what the exit code is about.
fn disagreements(real: &RealRun, simulated: &Simulated) -> Vec<String> {
    let mut found = Vec::new();
    for (store, real, model) in [("plain", &real.plain, &simulated.plain.summary), ("fenced", &real.fenced, &simulated.fenced.summary)] {
        let mut differ = |what: &str, real: String, model: String| {
            if real != model {
                found.push(format!("{store} store: {what} real {real}, simulated {model}"));
            }
        };
        differ("zombie_writes", real.zombie_writes.to_string(), model.zombie_writes.to_string());
        differ("rejected_writes", real.rejected_writes.to_string(), model.rejected_writes.to_string());
        differ("final_store", FinalStore::describe(real.final_store.as_ref()), FinalStore::describe(simulated_final(model).as_ref()));
    }
    found
}

/// Why a real run may have strayed from the scenario the model ran: the
/// lab's own timing (on a busy machine a thread wakes up late).
fn timing_notes(args: &LiveArgs, events: &[LiveEvent]) -> Vec<String> {
    let mut notes = Vec::new();
    let paused_ms = events.iter().find(|said| said.event == "resumed").and_then(|said| said.paused_ms);
    if let Some(paused_ms) = paused_ms.filter(|paused_ms| (paused_ms - args.pause_ms as f64).abs() > 10.0) {
        notes.push(format!(
            "A was really frozen {paused_ms:.1} ms, not {} ms (the machine was busy): the model ran the {} ms asked for",
            args.pause_ms, args.pause_ms
        ));
    }
    let write_of = |worker: &str| events.iter().find(|said| said.worker == worker && said.event == "wrote").map(|said| said.t_ms);
    if let (Some(a), Some(b)) = (write_of("A"), write_of("B")) {
        notes.push(format!(
            "A's and B's first writes were {:.1} ms apart: the nearer they are, the more the order is down to scheduling",
            (a - b).abs()
        ));
    }
    notes
}

/// The writes a store saw, in order: "B:34 A:33✗" (✗ rejected).
fn real_writes(events: &[LiveEvent], store: &str) -> String {
    let writes = events.iter().filter(|said| said.event == "wrote" && said.store.as_deref() == Some(store));
    let words: Vec<String> = writes
        .map(|said| format!("{}:{}{}", said.worker, said.token.unwrap_or(0), if said.accepted == Some(true) { "" } else { "✗" }))
        .collect();
    words.join(" ")
}

fn simulated_writes(trace: &Trace) -> String {
    let words: Vec<String> = trace
        .events
        .iter()
        .filter_map(|event| {
            let (writer, mark) = match event.kind {
                Kind::WriteAccepted { writer, .. } => (writer, ""),
                Kind::WriteRejected { writer, .. } => (writer, "✗"),
                _ => return None,
            };
            Some(format!("{writer}:{}{mark}", event.token.map_or("-".to_string(), |token| token.to_string())))
        })
        .collect();
    words.join(" ")
}

// ---------------------------------------------------------------------------
// Output.

struct Context<'a> {
    args: &'a LiveArgs,
    version: &'a str,
    prefix: &'a str,
    attempts_max: u32,
}

fn describe(event: &LiveEvent, ttl_ms: u64) -> String {
    let who = event.worker.as_str();
    let token = event.token.map_or("?".to_string(), |token| token.to_string());
    match (event.event.as_str(), event.store.as_deref()) {
        ("started", _) => format!(
            "{who} (pid {}) connected; asks for the lock: SET lock {} NX PX {ttl_ms}",
            event.pid.unwrap_or(0),
            event.value.as_deref().map_or("?", |value| &value[..value.len().min(8)])
        ),
        ("busy", _) => format!(
            "{who} did not get the lock (nil): it is taken; {who} retries every {}–{BACKOFF_MS_MAX} ms (jittered)",
            BACKOFF_MS_MIN / 2
        ),
        ("gave_up", _) => format!("{who} gives up after {} attempts", event.attempts.unwrap_or(0)),
        ("acquired", _) => format!(
            "{who} holds the lock with token {token} (SET OK on attempt {} at {}, then INCR fence)",
            event.attempts.unwrap_or(0),
            fencing_sim::format_us(us(event.granted_t_ms.unwrap_or(event.t_ms)))
        ),
        ("worked", _) => {
            let work_ms = if who == "A" { WORK_MS_A } else { WORK_MS_B };
            format!("{who}'s {work_ms} ms of work is over (its sleep returned); it writes with token {token}")
        }
        ("wrote", Some("plain")) => {
            let replacing = event.replaced.as_deref().map_or(" (it was empty)".to_string(), |old| format!(" over {old}"));
            format!("plain store accepted {who}'s write {who}:{token}{replacing}")
        }
        ("wrote", Some(store)) if event.accepted == Some(true) => {
            format!("{store} store accepted {who}'s write (token {token})")
        }
        ("wrote", Some(store)) => format!(
            "{store} store rejected {who}'s write: token {token} < {} already accepted",
            event.highest.map_or("?".to_string(), |highest| highest.to_string())
        ),
        ("released", _) if event.result == Some(1) => format!("{who} released the lock (compare-and-delete: 1)"),
        ("released", _) => format!("{who}'s compare-and-delete returned 0: the lock was not its own any more, nothing deleted"),
        ("stopped", _) => format!("lab froze A with kill -STOP {} (SIGSTOP): no thread of it runs", event.pid.unwrap_or(0)),
        ("resumed", _) => format!(
            "lab thawed A with kill -CONT {} after {:.1} ms: A carries on, unaware that any time passed",
            event.pid.unwrap_or(0),
            event.paused_ms.unwrap_or(0.0)
        ),
        (other, _) => format!("{who}: {other}"),
    }
}

fn us(t_ms: f64) -> u64 {
    (t_ms * 1000.0).round().max(0.0) as u64
}

fn print_human(context: &Context, real: &RealRun, simulated: &Simulated, disagreements: &[String], notes: &[String]) {
    let args = context.args;
    println!(
        "Live run on Redis {} at {} (keys {}*): lease {} ms, A frozen {} ms, work A {WORK_MS_A} ms / B {WORK_MS_B} ms",
        context.version, args.redis, context.prefix, args.ttl_ms, args.pause_ms
    );
    println!();
    for event in &real.events {
        println!("{:>12}  {:<6} {}", fencing_sim::format_us(us(event.t_ms)), event.worker, describe(event, args.ttl_ms));
    }
    println!();
    let row = |label: &str, cells: [String; 4]| {
        println!("{label:<18} {:<14} {:<16} {:<14} {}", cells[0], cells[1], cells[2], cells[3]);
    };
    let (plain, fenced) = (&simulated.plain.summary, &simulated.fenced.summary);
    let (plain_header, fenced_header) = ("plain store (no check)", "fenced store (rejects token < highest)");
    println!("{:<18} {plain_header:<31} {fenced_header}", "");
    row("", ["real".into(), "simulated".into(), "real".into(), "simulated".into()]);
    let counts = [
        ("zombie_writes", [real.plain.zombie_writes, plain.zombie_writes, real.fenced.zombie_writes, fenced.zombie_writes]),
        ("stale_overwrites", [real.plain.stale_overwrites, plain.stale_overwrites, real.fenced.stale_overwrites, fenced.stale_overwrites]),
        ("rejected_writes", [real.plain.rejected_writes, plain.rejected_writes, real.fenced.rejected_writes, fenced.rejected_writes]),
        ("accepted_writes", [real.plain.accepted_writes, plain.accepted_writes, real.fenced.accepted_writes, fenced.accepted_writes]),
    ];
    for (label, values) in counts {
        row(label, values.map(|value| value.to_string()));
    }
    row(
        "final_store",
        [
            FinalStore::describe(real.plain.final_store.as_ref()),
            FinalStore::describe(simulated_final(plain).as_ref()),
            FinalStore::describe(real.fenced.final_store.as_ref()),
            FinalStore::describe(simulated_final(fenced).as_ref()),
        ],
    );
    row(
        "writes in order",
        [
            real_writes(&real.events, "plain"),
            simulated_writes(&simulated.plain),
            real_writes(&real.events, "fenced"),
            simulated_writes(&simulated.fenced),
        ],
    );
    println!();
    let scenario = &simulated.scenario;
    let paused_at_ms = scenario.faults.iter().find_map(|fault| match fault {
        Fault::Pause { when: When::AtMs(at_ms), .. } => Some(*at_ms),
        _ => None,
    });
    println!(
        "simulated: preset {} (seed {}), fencing off and on, ttl_ms {}, A paused {} ms from {} ms, B starting at {} ms \
         (both as they really did, after A's start), work_ms {} (B's), backoff {}–{} ms, at most {} attempts",
        scenario.preset,
        scenario.seed,
        scenario.ttl_ms,
        args.pause_ms,
        paused_at_ms.unwrap_or(0),
        scenario.start_gap_ms,
        scenario.work_ms,
        scenario.backoff_ms_min,
        scenario.backoff_ms_max,
        scenario.acquire_attempts_max
    );
    if disagreements.is_empty() {
        println!(
            "agree: real and simulated runs agree on zombie_writes, rejected_writes and final_store (writer and token) for both stores"
        );
    } else {
        println!("DISAGREE: the real run and the model differ:");
        for difference in disagreements {
            println!("  {difference}");
        }
        for note in notes {
            println!("  note: {note}");
        }
    }
}

fn print_json(context: &Context, real: &RealRun, simulated: &Simulated, disagreements: &[String], notes: &[String]) {
    let args = context.args;
    let timeline: Vec<serde_json::Value> = real
        .events
        .iter()
        .map(|event| {
            let mut value = serde_json::to_value(event).expect("an event serialises");
            value["text"] = describe(event, args.ttl_ms).into();
            value
        })
        .collect();
    let report = serde_json::json!({
        "redis": { "url": args.redis, "version": context.version, "prefix": context.prefix },
        "parameters": {
            "ttl_ms": args.ttl_ms,
            "pause_ms": args.pause_ms,
            "work_ms": { "A": WORK_MS_A, "B": WORK_MS_B },
            "backoff_ms_min": BACKOFF_MS_MIN,
            "backoff_ms_max": BACKOFF_MS_MAX,
            "acquire_attempts_max": context.attempts_max,
        },
        "real": { "timeline": timeline, "plain": real.plain, "fenced": real.fenced },
        "simulated": {
            "scenario": simulated.scenario,
            "plain": simulated.plain.summary,
            "fenced": simulated.fenced.summary,
        },
        "agree": disagreements.is_empty(),
        "disagreements": disagreements,
        "notes": notes,
    });
    println!("{report}");
}
