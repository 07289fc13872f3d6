//! The model's four Redis persistence modes against a real redis-server
//! restarted on its own data directory (`scripts/fidelity-persistence.sh`
//! builds this and runs it with `--ignored`). For each mode, and for a
//! crash ≈300 ms and 2 s after A's `INCR`: a private server is started with
//! that mode's configuration in a fresh directory; the counter is set at
//! 32; A takes the lock (`SET NX PX`) and draws 33; the server is killed
//! with SIGKILL (a crash: no shutdown save, no last fsync), restarted on
//! the same directory, and what it has is read: the counter, and whether
//! A's lock key is still there. A then releases, as the model's A does
//! after its work, and B takes the lock and draws its token. The model runs
//! the same story (a single Redis, `redis_persistence` set, L1 crashing
//! the same delay after A's `INCR`), and both must agree on what survived.
//!
//! Each real server is configured so that the comparison is about what a
//! mode keeps, not about when its timer fires:
//! - `none`: `save ""` and `appendonly no`, as the model's mode says:
//!   nothing reaches the disk, and the restarted server has no keys.
//! - `rdb`: `save ""` (no snapshot of Redis's own timing) and one `SAVE`
//!   right after `SET fence 32`: the model counts the initial state as a
//!   snapshot at time 0 and takes the next at 60 s, after this story, so
//!   that `SAVE` leaves on disk exactly the model's last snapshot. The
//!   restart loads `dump.rdb` (with `appendonly no` Redis reads it at start).
//! - `aof_everysec`: `appendonly yes` and `appendfsync everysec`, as the
//!   mode says (and `save ""`: the AOF alone is what the restart reads).
//! - `fsync_always`: `appendonly yes` and `appendfsync always`.
//!
//! `aof_everysec`, its phase, and a process crash. Redis `write(2)`s the
//! commands of a round to the append-only file before it sends their
//! replies (the AOF buffer is flushed in `beforeSleep`, before the pending
//! replies go out); `everysec` leaves only the `fsync` to a background
//! thread, and starts one when a round's write comes in a later second of
//! the clock than the last fsync (`server.unixtime > aof_last_fsync`,
//! whole seconds): at most one a second, at the wall clock's phase, not
//! the run's. So the real story is put in the model's phase: it starts
//! 20–120 ms into a second of the wall clock (the model's starts on a
//! whole second); `SET fence` takes that second's fsync (or the server's
//! start already did), and once no fsync is pending (`INFO persistence`),
//! A's `SET NX` and `INCR` are written with no fsync to follow before the
//! next second: the 300 ms kill, still inside that second, comes before
//! any fsync of A's `INCR` (the timeline says if a slow machine pushed the
//! kill into the next second); the 2 s kill comes after the next second's
//! fsync. Both must keep A's `INCR`, as the model's node crash (a process
//! crash) does: the short one shows it is the kernel, not the fsync, that
//! keeps it (see below). Waiting for
//! no pending fsync also keeps Redis from postponing A's write (while a
//! background fsync runs, `everysec` holds the buffer for up to 2 s and
//! the replies go out meanwhile): `aof_buffer_length` read after A's
//! `INCR` tells; if it is not 0 the outcome hangs on a race, and the case
//! is printed as not compared.
//!
//! What the kill does to what was written but not fsync'd: nothing. A
//! SIGKILL takes the process, not the kernel: what `write(2)` handed over
//! stays in the page cache, and the restarted server reads it back,
//! fsync'd or not. Debian's `redis.conf` says so: with this policy "Redis
//! can lose just one second of writes in a dramatic event like a server
//! power outage, or a single write if something wrong with the Redis
//! process itself happens, but the operating system is still running
//! correctly." Losing the un-fsync'd second takes the operating system
//! going down (a power cut, a kernel panic), which nothing here can do to
//! a server on loopback: this check is about a process crash, and compares
//! the model's node crash with it.

#[allow(dead_code)] // shared by the real-server tests; each uses part of it
#[path = "support/mod.rs"]
mod support;

use fencing_sim::{format_us, presets, run, Actor, Event, Fault, Kind, RedisPersistence, Scenario, Trace};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SCRIPT: &str = "scripts/fidelity-persistence.sh";
/// Only a bound on a hung server (a command's read timeout, a start's, a
/// death's): nothing here claims how fast a step is. Each takes
/// milliseconds even with both cores busy; 10 s fails a hung server
/// quickly and no loaded machine.
const TIMEOUT: Duration = Duration::from_secs(10);
const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);
const L1: Actor = Actor::LockNode(0);
/// How long after A's `INCR` the node crashes: inside the second after it,
/// far from the model's first whole-second fsync (the model's A draws its
/// token under a millisecond into the run, so that fsync is ≈700 ms
/// after the crash); and after a whole second has passed, of the run's
/// clock and of Redis's alike, whatever the phase.
const CRASH_DELAYS_MS: [u64; 2] = [300, 2_000];
/// How late the real kill may come after its moment: a loaded machine's
/// sleep overshoots by tens of milliseconds. 400 ms still keeps the short
/// case inside the model's first second (300 + 400 < 1000); a later kill
/// is not the story the model is told, and fails the check.
const KILL_LATE_MS_MAX: f64 = 400.0;
/// How far into a second of the wall clock the `aof_everysec` story starts
/// (SET fence; 100 ms allowed for a late wake-up): leaves A's INCR and the
/// 300 ms kill, with its `KILL_LATE_MS_MAX`, inside that second.
const STORY_INTO_SECOND_MS: u64 = 20;
/// In the model: the node is down 1 s; A works 4 s, so that its release
/// reaches the restarted node, after the 2 s crash's return at 3 s; B
/// starts at 4.5 s, after it, as B asks the real server after A's release.
const DOWN_MS: u64 = 1_000;
const WORK_MS: u64 = 4_000;
const START_GAP_MS: u64 = 4_500;
/// The modes as stated, for the offline check: an RDB snapshot every 60 s
/// (the `save 60 10000` rule), the initial state counting as the one at 0.
const RDB_SNAPSHOT_EVERY_US: u64 = 60_000_000;
/// Deletes the lock only if it is still the caller's: the model's
/// `compare_and_delete` release.
const CAD_LUA: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
// A private server per case: the keys need no prefix of the run.
const LOCK: &str = "lock";
const FENCE: &str = "fence";

#[derive(Clone, Copy, Debug)]
struct Case {
    persistence: RedisPersistence,
    delay_ms: u64,
}

fn cases() -> Vec<Case> {
    RedisPersistence::ALL.iter().flat_map(|&persistence| CRASH_DELAYS_MS.map(|delay_ms| Case { persistence, delay_ms })).collect()
}

/// The mode as a scenario spells it (`redis_persistence`).
fn mode_name(persistence: RedisPersistence) -> &'static str {
    match persistence {
        RedisPersistence::None => "none",
        RedisPersistence::Rdb => "rdb",
        RedisPersistence::AofEverysec => "aof_everysec",
        RedisPersistence::FsyncAlways => "fsync_always",
    }
}

/// The real server's configuration for a mode, beside its port, address
/// and directory (see the module's comment for how each matches the
/// model; `rdb`'s one snapshot is the story's `SAVE`).
fn mode_config(persistence: RedisPersistence) -> &'static [&'static str] {
    match persistence {
        RedisPersistence::None | RedisPersistence::Rdb => &["--save", "", "--appendonly", "no"],
        RedisPersistence::AofEverysec => &["--save", "", "--appendonly", "yes", "--appendfsync", "everysec"],
        RedisPersistence::FsyncAlways => &["--save", "", "--appendonly", "yes", "--appendfsync", "always"],
    }
}

/// The facts both sides must share, after the restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Facts {
    /// What the restarted node's counter stands at (0 without the key:
    /// `INCR` counts from 0 then).
    counter_after_restart: u64,
    /// A's lock key is still there.
    lock_survived: bool,
    /// B's token, its `INCR` the first after the restart.
    b_token: u64,
}

fn scenario(persistence: RedisPersistence, faults: Vec<Fault>) -> Scenario {
    Scenario { redis_persistence: persistence, work_ms: WORK_MS, start_gap_ms: START_GAP_MS, faults, ..presets::classic() }
}

/// When the node issued `to`'s first token, and which.
fn token_issued(trace: &Trace, to: Actor) -> Option<(u64, u64)> {
    trace.events.iter().find(|event| event.kind == Kind::TokenIssued { to }).map(|event| (event.t_us, event.token.unwrap_or(0)))
}

fn node_event(trace: &Trace, up: bool) -> &Event {
    trace
        .events
        .iter()
        .find(|event| {
            event.actor == L1 && if up { matches!(event.kind, Kind::NodeUp { .. }) } else { matches!(event.kind, Kind::NodeDown { .. }) }
        })
        .unwrap_or_else(|| panic!("L1 {}", if up { "comes back" } else { "crashes" }))
}

/// The model's run of a case: L1 crashes `delay_ms` after A's `INCR`, read
/// off the same scenario without the crash (the same run up to it), and
/// rounded up to the millisecond a fault is timed in.
fn model_run(case: Case) -> (Scenario, Trace) {
    let calm = run(&scenario(case.persistence, Vec::new())).expect("the scenario runs");
    let (incr_us, _) = token_issued(&calm, A).expect("A draws a token");
    let crash = Fault::NodeCrash { node: L1, at_ms: incr_us.div_ceil(1000) + case.delay_ms, down_ms: DOWN_MS, after_event: None };
    let scenario = scenario(case.persistence, vec![crash]);
    let trace = run(&scenario).expect("the scenario runs");
    (scenario, trace)
}

fn model_facts(trace: &Trace) -> Facts {
    let down = node_event(trace, false);
    let up = node_event(trace, true);
    // The model's word for a lock that did not come back: LeaseLost, logged
    // with the crash.
    let lock_lost =
        trace.events.iter().any(|event| event.index > down.index && event.t_us == down.t_us && event.kind == Kind::LeaseLost { holder: A });
    let next_token = trace
        .events
        .iter()
        .find(|event| event.index > up.index && matches!(event.kind, Kind::TokenIssued { .. }))
        .expect("a token is drawn after the restart");
    assert_eq!(next_token.kind, Kind::TokenIssued { to: B }, "the first INCR after the restart is B's");
    let b_token = next_token.token.expect("a token");
    Facts { counter_after_restart: b_token - 1, lock_survived: !lock_lost, b_token }
}

/// The model's side, as lines for the report, up to B's grant.
fn model_timeline(trace: &Trace) -> Vec<String> {
    support::model_lines(trace, |kind| {
        matches!(
            kind,
            Kind::Granted { .. }
                | Kind::Acquired { .. }
                | Kind::TokenIssued { .. }
                | Kind::NodeDown { .. }
                | Kind::NodeUp { .. }
                | Kind::LeaseLost { .. }
                | Kind::Deleted { .. }
        )
    })
}

/// What the real run did, in order, for the report.
struct Timeline {
    start: Instant,
    lines: Vec<(f64, &'static str, String)>,
}

impl Timeline {
    fn ms_since(&self, at: Instant) -> f64 {
        at.duration_since(self.start).as_secs_f64() * 1000.0
    }

    fn note(&mut self, who: &'static str, text: String) -> Instant {
        let at = Instant::now();
        self.lines.push((self.ms_since(at), who, text));
        at
    }
}

/// Where the script put things for this run.
struct Env {
    redis_server: String,
    host: String,
    /// The script's temporary directory (removed on exit): a data
    /// directory per case, and `pids`, every server started, so that the
    /// script can stop any this test could not.
    dir: PathBuf,
}

impl Env {
    fn from_script() -> Env {
        let var = |name| support::required_env(name, SCRIPT);
        Env {
            redis_server: var("FENCING_LAB_REDIS_SERVER"),
            host: var("FENCING_LAB_REDIS_HOST"),
            dir: PathBuf::from(var("FENCING_LAB_PERSISTENCE_DIR")),
        }
    }
}

/// One private redis-server on its own data directory, killed on drop.
struct Server<'a> {
    env: &'a Env,
    dir: PathBuf,
    config: &'static [&'static str],
    port: u16,
    child: Option<Child>,
}

impl<'a> Server<'a> {
    /// Starts it on a free port (as `scripts/lib/redis.sh` picks one: a
    /// random port of 6390–8389 that nothing answers on, another if the
    /// server cannot have it after all).
    fn start(env: &'a Env, name: &str, config: &'static [&'static str]) -> Server<'a> {
        let dir = env.dir.join(name);
        std::fs::create_dir_all(&dir).unwrap_or_else(|error| panic!("create {}: {error}", dir.display()));
        let mut server = Server { env, dir, config, port: 0, child: None };
        for _ in 0..20 {
            let candidate = 6390 + (support::random_u64() % 2000) as u16;
            let taken = std::net::TcpStream::connect_timeout(&server.addr(candidate), Duration::from_secs(1)).is_ok();
            if !taken && server.spawn(candidate) {
                return server;
            }
        }
        panic!("no port would do for redis-server in {}: {}", server.dir.display(), server.log_tail());
    }

    fn addr(&self, port: u16) -> std::net::SocketAddr {
        let ip: std::net::IpAddr = self.env.host.parse().expect("FENCING_LAB_REDIS_HOST is an address");
        (ip, port).into()
    }

    fn url(&self) -> String {
        format!("redis://{}:{}/", self.env.host, self.port)
    }

    /// Spawns the server on `port` and waits (bounded) until it answers as
    /// itself; false if it exits first (the port was taken after all).
    fn spawn(&mut self, port: u16) -> bool {
        let log = self.dir.join("redis.log");
        let child = Command::new(&self.env.redis_server)
            .args(["--port", &port.to_string(), "--bind", &self.env.host, "--daemonize", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .arg("--logfile")
            .arg(&log)
            .args(self.config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("start {}: {error}", self.env.redis_server));
        let pid = child.id();
        let pids = self.env.dir.join("pids");
        let line = format!("{pid}\n");
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&pids)
            .and_then(|mut file| std::io::Write::write_all(&mut file, line.as_bytes()))
            .unwrap_or_else(|error| panic!("note pid in {}: {error}", pids.display()));
        self.child = Some(child);
        self.port = port;
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if self.child.as_mut().is_some_and(|child| child.try_wait().ok().flatten().is_some()) {
                self.child = None;
                return false;
            }
            // Answering, and as this process (not another server that
            // holds the port): `LOADING` until the restart has read its disk.
            if let Ok(mut con) = redis::Client::open(self.url()).and_then(|client| client.get_connection_with_timeout(TIMEOUT)) {
                con.set_read_timeout(Some(TIMEOUT)).expect("read timeout");
                if redis::cmd("PING").query::<String>(&mut con).is_ok() {
                    if info(&mut con, "server", "process_id") == Some(pid.to_string()) {
                        return true;
                    }
                    // Another server's port: ours cannot have it.
                    self.kill();
                    return false;
                }
            }
            assert!(Instant::now() < deadline, "redis-server (pid {pid}) never answered on port {port}: {}", self.log_tail());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn connect(&self) -> redis::Connection {
        let client = redis::Client::open(self.url()).expect("a Redis URL");
        let con = client.get_connection_with_timeout(TIMEOUT).unwrap_or_else(|error| panic!("connect to {}: {error}", self.url()));
        con.set_read_timeout(Some(TIMEOUT)).expect("read timeout");
        con.set_write_timeout(Some(TIMEOUT)).expect("write timeout");
        con
    }

    /// SIGKILL, then a bounded wait until the process is gone. Returns its pid.
    fn kill(&mut self) -> u32 {
        let mut child = self.child.take().expect("the server runs");
        let pid = child.id();
        let raw = i32::try_from(pid).expect("a pid");
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), nix::sys::signal::Signal::SIGKILL).expect("SIGKILL the server");
        let deadline = Instant::now() + TIMEOUT;
        while child.try_wait().expect("wait for the server").is_none() {
            assert!(Instant::now() < deadline, "redis-server (pid {pid}) still runs after SIGKILL");
            std::thread::sleep(Duration::from_millis(2));
        }
        pid
    }

    /// The same configuration on the same directory, on the same port.
    fn restart(&mut self) -> u32 {
        assert!(self.spawn(self.port), "redis-server did not come back on port {}: {}", self.port, self.log_tail());
        self.child.as_ref().expect("the server runs").id()
    }

    /// The restart's own word on what it loaded, from its log.
    fn loaded(&self) -> String {
        let log = std::fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default();
        let last_start = log.rfind("Server initialized").unwrap_or(0);
        log[last_start..]
            .lines()
            .rev()
            .filter_map(|line| line.split_once("* ").map(|(_, text)| text.trim().to_string()))
            .find(|text| text.starts_with("DB loaded from"))
            .unwrap_or_else(|| "nothing on disk to load".to_string())
    }

    /// What the crash left on disk: each file and its size.
    fn on_disk(&self) -> String {
        let mut files = Vec::new();
        let mut folders = vec![self.dir.clone()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.file_name().is_some_and(|name| name != "redis.log") {
                    let size = entry.metadata().map_or(0, |meta| meta.len());
                    files.push(format!("{} {size} B", path.strip_prefix(&self.dir).unwrap_or(&path).display()));
                }
            }
        }
        files.sort();
        if files.is_empty() {
            "nothing".to_string()
        } else {
            files.join(", ")
        }
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }
}

impl Drop for Server<'_> {
    /// A test server: its data is thrown away, so SIGKILL does.
    fn drop(&mut self) {
        if self.child.is_some() {
            self.kill();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One `field:value` line of `INFO section`.
fn info(con: &mut redis::Connection, section: &str, field: &str) -> Option<String> {
    let text: String = redis::cmd("INFO").arg(section).query(con).expect("INFO");
    text.lines().find_map(|line| line.strip_prefix(&format!("{field}:")).map(|value| value.trim().to_string()))
}

fn since_epoch() -> Duration {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("the clock is after 1970")
}

/// The second of the wall clock, as Redis counts its `everysec` fsyncs.
fn unix_second() -> u64 {
    since_epoch().as_secs()
}

fn ms_into_second() -> u64 {
    u64::from(since_epoch().subsec_millis())
}

/// A real case's result.
struct Real {
    facts: Facts,
    /// Why the facts cannot be compared, if they cannot.
    not_compared: Option<String>,
    timeline: Timeline,
    kill_after_incr_ms: f64,
}

fn real_case(env: &Env, case: Case, scenario: &Scenario) -> Real {
    let name = format!("{}-{}ms", mode_name(case.persistence), case.delay_ms);
    let config = mode_config(case.persistence);
    let mut server = Server::start(env, &name, config);
    let mut real = Timeline { start: Instant::now(), lines: Vec::new() };
    let mut not_compared = None;
    let shown: Vec<String> = config.iter().map(|word| if word.is_empty() { "\"\"".to_string() } else { word.to_string() }).collect();
    real.note("lab", format!("redis-server on {} (pid {}), {}", server.url(), server.child.as_ref().map_or(0, Child::id), shown.join(" ")));

    // 1. The counter at first_token − 1, on disk as the mode puts it there
    // (under everysec, in the model's phase: see the module's comment).
    let mut lab = server.connect();
    let before = scenario.first_token - 1;
    let everysec = case.persistence == RedisPersistence::AofEverysec;
    if everysec {
        let into_ms = ms_into_second();
        if !(STORY_INTO_SECOND_MS..STORY_INTO_SECOND_MS + 100).contains(&into_ms) {
            std::thread::sleep(Duration::from_millis((1000 + STORY_INTO_SECOND_MS - into_ms) % 1000));
        }
    }
    redis::cmd("SET").arg(FENCE).arg(before).exec(&mut lab).expect("SET fence");
    let second = unix_second();
    let phase = if everysec { format!(" ({} ms into a second of the wall clock)", ms_into_second()) } else { String::new() };
    real.note("lab", format!("SET fence {before}: OK{phase}"));
    if everysec {
        let deadline = Instant::now() + TIMEOUT;
        while info(&mut lab, "persistence", "aof_pending_bio_fsync").as_deref() != Some("0") {
            assert!(Instant::now() < deadline, "the AOF's background fsync never finished");
            std::thread::sleep(Duration::from_millis(1));
        }
        real.note(
            "lab",
            "INFO persistence: aof_pending_bio_fsync 0 (none running: this second's turn is taken, the next fsync comes in the next second)".to_string(),
        );
    }
    if case.persistence == RedisPersistence::Rdb {
        redis::cmd("SAVE").exec(&mut lab).expect("SAVE");
        real.note("lab", "SAVE: dump.rdb written, the model's snapshot at time 0 (the counter, no lock)".to_string());
    }

    // 2. A takes the lock and its token.
    let mut a = server.connect();
    let a_value = format!("A-{:016x}", support::random_u64());
    let ok: Option<String> =
        redis::cmd("SET").arg(LOCK).arg(&a_value).arg("NX").arg("PX").arg(scenario.ttl_ms).query(&mut a).expect("SET NX");
    assert!(ok.is_some(), "A's SET NX on a fresh server");
    real.note("A", format!("SET lock NX PX {}: OK", scenario.ttl_ms));
    let a_token: u64 = redis::cmd("INCR").arg(FENCE).query(&mut a).expect("INCR");
    let incr_at = real.note("A", format!("INCR fence: {a_token}"));
    let incr_second = unix_second();
    assert_eq!(a_token, scenario.first_token, "A's INCR on the counter at {before}");
    if matches!(case.persistence, RedisPersistence::AofEverysec | RedisPersistence::FsyncAlways) {
        let buffered = info(&mut lab, "persistence", "aof_buffer_length").unwrap_or_default();
        let written = if buffered == "0" { "A's commands are written to the file" } else { "a write still in Redis's memory" };
        let fsynced = match (everysec, incr_second == second) {
            (false, _) => "and fsync'd before their replies",
            (true, true) => "not fsync'd: they came in the second whose fsync is done",
            (true, false) => "maybe fsync'd: they came in the second after SET fence's",
        };
        real.note("lab", format!("INFO persistence: aof_buffer_length {buffered}: {written}, {fsynced}"));
        if buffered != "0" {
            not_compared = Some(format!(
                "Redis postponed the AOF write (aof_buffer_length {buffered}: a background fsync was running), so whether A's INCR reached the file before the kill is a race"
            ));
        }
    }
    drop((lab, a));

    // 3. The crash, `delay_ms` after A's INCR was answered.
    let kill_at = incr_at + Duration::from_millis(case.delay_ms);
    std::thread::sleep(kill_at.saturating_duration_since(Instant::now()));
    let pid = server.kill();
    let when = match (everysec, unix_second() - incr_second) {
        (false, _) => String::new(),
        (true, 0) => format!(", {} ms into A's INCR's second: the INCR was not fsync'd", ms_into_second()),
        (true, 1) => ", in the second after A's INCR's: its fsync may have run".to_string(),
        (true, _) => ", two seconds of the clock after A's INCR's: the next second's fsync had its turn".to_string(),
    };
    let killed_at = real.note("lab", format!("redis-server killed (SIGKILL, pid {pid}){when}"));
    let kill_after_incr_ms = killed_at.duration_since(incr_at).as_secs_f64() * 1000.0;
    assert!(
        kill_after_incr_ms < case.delay_ms as f64 + KILL_LATE_MS_MAX,
        "the kill came {kill_after_incr_ms:.0} ms after A's INCR, not about {} ms: the machine is too slow for this story",
        case.delay_ms
    );
    real.note("lab", format!("on disk: {}", server.on_disk()));

    // 4. The restart on the same directory, and what it has.
    let pid = server.restart();
    real.note("lab", format!("restarted on the same directory (pid {pid}): {}", server.loaded()));
    let mut a = server.connect();
    let held: Option<String> = redis::cmd("GET").arg(LOCK).query(&mut a).expect("GET lock");
    let pttl_ms: i64 = redis::cmd("PTTL").arg(LOCK).query(&mut a).expect("PTTL lock");
    let fence: Option<u64> = redis::cmd("GET").arg(FENCE).query(&mut a).expect("GET fence");
    let lock_survived = held.as_deref() == Some(a_value.as_str());
    real.note(
        "lab",
        format!(
            "GET lock: {}; GET fence: {}",
            if lock_survived { format!("A's value ({pttl_ms} ms left)") } else { held.clone().unwrap_or_else(|| "nil".to_string()) },
            fence.map_or("nil (INCR counts from 0)".to_string(), |value| value.to_string())
        ),
    );

    // 5. A's release after its work, then B.
    let deleted: i64 = redis::Script::new(CAD_LUA).key(LOCK).arg(&a_value).invoke(&mut a).expect("release script");
    real.note("A", format!("release (compare-and-delete): {deleted} key deleted"));
    let mut b = server.connect();
    let b_value = format!("B-{:016x}", support::random_u64());
    let ok: Option<String> =
        redis::cmd("SET").arg(LOCK).arg(&b_value).arg("NX").arg("PX").arg(scenario.ttl_ms).query(&mut b).expect("SET NX");
    real.note("B", format!("SET lock NX PX {}: {}", scenario.ttl_ms, if ok.is_some() { "OK" } else { "nil" }));
    assert!(ok.is_some(), "B's SET NX after A's release");
    let b_token: u64 = redis::cmd("INCR").arg(FENCE).query(&mut b).expect("INCR");
    real.note("B", format!("INCR fence: {b_token}"));

    Real {
        facts: Facts { counter_after_restart: fence.unwrap_or(0), lock_survived, b_token },
        not_compared,
        timeline: real,
        kill_after_incr_ms,
    }
}

#[test]
#[ignore = "starts real redis-servers: scripts/fidelity-persistence.sh builds this and runs it with --ignored"]
fn a_real_restarted_redis_keeps_what_the_model_says_each_persistence_mode_keeps() {
    let env = Env::from_script();
    let mut rows = Vec::new();
    for case in cases() {
        let (scenario, model) = model_run(case);
        let model_facts = model_facts(&model);
        let real = real_case(&env, case, &scenario);
        let mode = mode_name(case.persistence);
        println!("\n== {mode}, the crash {} ms after A's INCR ==", case.delay_ms);
        println!("real redis-server, times from the start of the case:");
        for (t_ms, who, text) in &real.timeline.lines {
            println!("{:>12}  {who:<6} {text}", format_us((t_ms * 1000.0).round() as u64));
        }
        let crash = scenario.faults.first().map(Fault::describe).unwrap_or_default();
        println!("model, a single Redis, redis_persistence {mode}, {crash} (seed {}):", scenario.seed);
        for line in model_timeline(&model) {
            println!("{line}");
        }
        rows.push((case, real.kill_after_incr_ms, real.facts, model_facts, real.not_compared));
    }

    println!("\n{:<13} {:>17}  {:>21}  {:>17}  {:>11}", "", "crash after INCR", "counter after restart", "lock key survived", "B's token");
    println!(
        "{:<13} {:>17}  {:>10} {:>10}  {:>8} {:>8}  {:>5} {:>5}",
        "mode", "planned (real)", "real", "model", "real", "model", "real", "model"
    );
    let mut differ = Vec::new();
    for (case, kill_ms, real, model, not_compared) in &rows {
        let verdict = match not_compared {
            Some(why) => format!("not compared: {why}"),
            None if real == model => "agree".to_string(),
            None => {
                differ.push(format!(
                    "{}, crash {} ms after A's INCR (real kill at {kill_ms:.0} ms): real {real:?}, model {model:?}",
                    mode_name(case.persistence),
                    case.delay_ms
                ));
                "DIFFER".to_string()
            }
        };
        println!(
            "{:<13} {:>7} ms ({:>4.0})  {:>10} {:>10}  {:>8} {:>8}  {:>5} {:>5}  {verdict}",
            mode_name(case.persistence),
            case.delay_ms,
            kill_ms,
            real.counter_after_restart,
            model.counter_after_restart,
            real.lock_survived,
            model.lock_survived,
            real.b_token,
            model.b_token
        );
    }
    assert!(differ.is_empty(), "the real restarted Redis and the model differ:\n{}", differ.join("\n"));
    println!("agree: each restarted server kept what the model says its mode keeps");
}

/// What a mode keeps, as stated (not as the model computes it): the
/// counter at `first_token − 1` with no lock from time 0, A's lock and
/// `INCR` (→ `first_token`) at `incr_us`, the crash at `down_us`. None:
/// nothing (the counter starts again from 0). RDB: the last snapshot, every
/// 60 s from 0. AOF everysec and fsync always: everything, since Redis
/// writes each command to the file before it replies and a process crash
/// leaves the kernel with it (only a power loss would lose everysec's last
/// second, which neither side simulates).
fn stated(persistence: RedisPersistence, first_token: u64, incr_us: u64, down_us: u64) -> Facts {
    let (before, after) = ((first_token - 1, false), (first_token, true));
    let as_of = |last_us: u64| if last_us > incr_us { after } else { before };
    let (counter_after_restart, lock_survived) = match persistence {
        RedisPersistence::None => (0, false),
        RedisPersistence::Rdb => as_of(down_us / RDB_SNAPSHOT_EVERY_US * RDB_SNAPSHOT_EVERY_US),
        RedisPersistence::AofEverysec | RedisPersistence::FsyncAlways => after,
    };
    Facts { counter_after_restart, lock_survived, b_token: counter_after_restart + 1 }
}

/// The offline half: the model's predictions for the cases the real check
/// runs, against each mode's semantics as stated, so that a change in the
/// model that breaks them fails in a plain `cargo test`.
#[test]
fn the_models_restart_keeps_what_each_persistence_mode_wrote_to_disk() {
    for case in cases() {
        let (scenario, trace) = model_run(case);
        let what = format!("{}, crash {} ms after A's INCR", mode_name(case.persistence), case.delay_ms);
        let (incr_us, a_token) = token_issued(&trace, A).expect("A draws a token");
        let down_us = node_event(&trace, false).t_us;
        // The story the real check tells: A's token, then the crash the
        // case's delay later (to the millisecond the fault is timed in),
        // while A holds the lock.
        assert_eq!(a_token, scenario.first_token, "{what}: A's token");
        let gap_us = down_us - incr_us;
        assert!((case.delay_ms * 1000..(case.delay_ms + 1) * 1000).contains(&gap_us), "{what}: the crash {gap_us} µs after A's INCR");
        let released = trace
            .events
            .iter()
            .any(|event| event.t_us < down_us && matches!(event.kind, Kind::Deleted { holder: A, .. } | Kind::Expired { holder: A, .. }));
        let granted = trace.events.iter().any(|event| event.t_us < incr_us && matches!(event.kind, Kind::Granted { holder: A, .. }));
        assert!(granted && !released, "{what}: A holds the lock at the crash");
        assert_eq!(model_facts(&trace), stated(case.persistence, scenario.first_token, incr_us, down_us), "{what}");
    }
    // The cases do tell the modes apart: everysec keeps A's INCR even from a
    // crash before its first fsync, RDB loses it even after seconds.
    let token = |persistence, delay_ms| model_facts(&model_run(Case { persistence, delay_ms }).1).b_token;
    assert_eq!(token(RedisPersistence::AofEverysec, CRASH_DELAYS_MS[0]), 34);
    assert_eq!(token(RedisPersistence::Rdb, CRASH_DELAYS_MS[1]), 33);
}
