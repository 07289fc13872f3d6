//! Differential test against a real Redis: every command the model's Redis
//! lock nodes receive is replayed on a real `redis-server`, at the model's
//! time scaled down 100× (10 s → 100 ms), and every reply must match the
//! model's. Then the order in which workers got the lock must match too.
//!
//! The test is `#[ignore]`d, so a plain `cargo test` stays offline and says
//! so; `scripts/fidelity.sh` starts a private server, sets
//! `FENCING_LAB_REDIS_URL` and runs it with `--ignored`. Run without that
//! variable, it fails: a missing server is never a pass.
//!
//! The trace carries labels, not values, so commands are rebuilt from labels
//! (`SET lock 566fc220 NX PX 10000`, `INCR fence`, `renew PX 10000 if mine`,
//! ...) with a fresh random value standing in for each of the model's lock
//! values. Each lock node gets its own keys (`…:lock:L3`, `…:fence:L1`), so
//! Redlock's five masters share one server.
//!
//! Timing: the real server expires keys by its own clock, at millisecond
//! resolution, and this process wakes up a little late. A reply that the model
//! gave within ±2 ms (scaled; widened by how late the process actually was) of
//! an expiry may go either way: such a difference is counted, printed, and
//! the real key is put back into the model's state so later replies stay
//! comparable. Every other difference fails the test.

use fencing_sim::{presets, run, Actor, Fault, Kind, LockService, Scenario, Trace};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The real server runs this many times faster than the model: 10 s → 100 ms.
const SCALE: u64 = 100;
/// Scaled distance from an expiry within which either reply is accepted.
const TOLERANCE_US: u64 = 2_000;
/// Sleep until this close to a command's time, then spin: `sleep` overshoots.
const SPIN_US: u64 = 300;

const CAD_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const RENEW_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const CHECK_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return 1 else return 0 end";
/// A node's clock jumping ahead by ARGV[1] ms brings every expiry that much
/// closer (a jump back pushes it away): the key's TTL shrinks or grows by it.
const JUMP_LUA: &str = "local ttl = redis.call('pttl', KEYS[1]) \
    if ttl < 0 then return ttl end \
    local left = ttl - tonumber(ARGV[1]) \
    if left <= 0 then redis.call('del', KEYS[1]) return 0 end \
    redis.call('pexpire', KEYS[1], left) return left";

/// A lock value as the model's labels name it: the worker and the value's
/// eight hex digits.
type ValueId = (u8, String);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Command {
    Set { value: ValueId, ttl_ms: u64 },
    Incr,
    Renew { value: ValueId, ttl_ms: u64 },
    Check { value: ValueId },
    ReleaseCad { value: ValueId },
    Del,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reply {
    /// `SET NX`: OK or nil.
    Set(bool),
    /// `INCR`: the counter.
    Token(u64),
    /// Scripts and `DEL`: 1 or 0; the ownership check: mine or not.
    Yes(bool),
}

/// Something on the model's timeline that the real server must see.
#[derive(Clone, Debug)]
enum Step {
    Command { index: u32, t_us: u64, node: u8, from: u8, command: Command, model: Reply },
    ClockJump { t_us: u64, node: u8, jump_ms: i64 },
    NodeDown { t_us: u64, node: u8 },
}

impl Step {
    fn t_us(&self) -> u64 {
        match *self {
            Step::Command { t_us, .. } | Step::ClockJump { t_us, .. } | Step::NodeDown { t_us, .. } => t_us,
        }
    }
}

fn letter(worker: u8) -> char {
    char::from(b'A' + worker)
}

impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Set { value, ttl_ms } => write!(f, "SET lock {} NX PX {ttl_ms}", value.1),
            Command::Incr => f.write_str("INCR fence"),
            Command::Renew { value, ttl_ms } => write!(f, "renew {} PX {ttl_ms} if mine", value.1),
            Command::Check { value } => write!(f, "GET lock == {}?", value.1),
            Command::ReleaseCad { value } => write!(f, "release {} if mine", value.1),
            Command::Del => f.write_str("DEL lock"),
        }
    }
}

/// The lock-service steps of a trace, in order: each command a node
/// received, with the reply the node sent back.
fn steps(trace: &Trace) -> Vec<Step> {
    let events = &trace.events;
    let mut latest_value: HashMap<u8, ValueId> = HashMap::new();
    let mut value_of_msg: HashMap<u32, Option<ValueId>> = HashMap::new();
    let mut steps = Vec::new();
    for (position, event) in events.iter().enumerate() {
        match (&event.kind, event.actor) {
            (Kind::Send { msg, to: Actor::LockNode(_), label }, Actor::Worker(worker)) => {
                if let Some(hex) = label.strip_prefix("SET lock ").and_then(|rest| rest.split(' ').next()) {
                    latest_value.insert(worker, (worker, hex.to_string()));
                }
                value_of_msg.insert(*msg, latest_value.get(&worker).cloned());
            }
            (Kind::Receive { msg, from: Actor::Worker(from), label }, Actor::LockNode(node)) => {
                let value = value_of_msg.get(msg).cloned().flatten();
                let command = command(label, value);
                let reply = events[position + 1..].iter().find_map(|later| match &later.kind {
                    Kind::Send { to, label, .. } if later.actor == event.actor && *to == Actor::Worker(*from) => Some(label),
                    _ => None,
                });
                let reply = reply.unwrap_or_else(|| panic!("L{} never answered {label:?} (event {})", node + 1, event.index));
                let model = model_reply(&command, reply);
                steps.push(Step::Command { index: event.index, t_us: event.t_us, node, from: *from, command, model });
            }
            (Kind::ClockJumped { jump_ms }, Actor::LockNode(node)) => {
                steps.push(Step::ClockJump { t_us: event.t_us, node, jump_ms: *jump_ms })
            }
            (Kind::NodeDown, Actor::LockNode(node)) => steps.push(Step::NodeDown { t_us: event.t_us, node }),
            _ => {}
        }
    }
    steps
}

/// A command rebuilt from its label; `value` is the sender's latest lock value.
fn command(label: &str, value: Option<ValueId>) -> Command {
    let words: Vec<&str> = label.split_whitespace().collect();
    let value = || value.clone().unwrap_or_else(|| panic!("{label:?} sent before any SET"));
    let ttl = |text: &str| text.parse::<u64>().unwrap_or_else(|_| panic!("no TTL in {label:?}"));
    match words.as_slice() {
        ["SET", "lock", hex, "NX", "PX", ttl_ms] => Command::Set { value: (value().0, hex.to_string()), ttl_ms: ttl(ttl_ms) },
        ["INCR", "fence"] => Command::Incr,
        ["renew", "PX", ttl_ms, "if", "mine"] => Command::Renew { value: value(), ttl_ms: ttl(ttl_ms) },
        ["GET", "lock", "(still", "mine?)"] => Command::Check { value: value() },
        ["release", "if", "mine"] => Command::ReleaseCad { value: value() },
        ["DEL", "lock"] => Command::Del,
        _ => panic!("unknown lock command label {label:?}: teach tests/redis_differential.rs about it"),
    }
}

fn model_reply(command: &Command, label: &str) -> Reply {
    let reply = match (command, label) {
        (Command::Set { .. }, "OK") => Some(Reply::Set(true)),
        (Command::Set { .. }, "nil (taken)") => Some(Reply::Set(false)),
        (Command::Incr, _) => label.strip_prefix("token ").and_then(|n| n.parse().ok()).map(Reply::Token),
        (Command::Renew { .. }, "renewed") | (Command::Check { .. }, "yes, yours") => Some(Reply::Yes(true)),
        (Command::Renew { .. } | Command::ReleaseCad { .. } | Command::Del, "0 (not mine)") | (Command::Check { .. }, "no, not yours") => {
            Some(Reply::Yes(false))
        }
        (Command::ReleaseCad { .. } | Command::Del, "1 (deleted)") => Some(Reply::Yes(true)),
        _ => None,
    };
    reply.unwrap_or_else(|| panic!("unknown reply {label:?} to {command}"))
}

/// The test's own reading of one model node, from the model's replies: what
/// the node must answer next, and when its lease runs out. Checking it
/// against the model's replies is a second, independent look at the model.
#[derive(Clone, Debug, Default)]
struct Shadow {
    lease: Option<ShadowLease>,
    counter: u64,
    /// The latest planned expiry (model µs), and how late this process was
    /// when it set the real key's expiry.
    expiry: Option<(u64, Late)>,
}

/// How far behind schedule (scaled µs) this process was just before it sent
/// a command and just after the reply: the server ran it somewhere between.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Late {
    before_us: i64,
    after_us: i64,
}

impl Late {
    /// The most the real time between two commands can differ from their
    /// scaled model time.
    fn skew_us(self, earlier: Late) -> u64 {
        self.after_us.abs_diff(earlier.before_us).max(self.before_us.abs_diff(earlier.after_us))
    }
}

impl std::fmt::Display for Late {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}–{} µs late", self.before_us, self.after_us)
    }
}

#[derive(Clone, Debug)]
struct ShadowLease {
    value: ValueId,
    expires_us: u64,
}

impl Shadow {
    fn new(first_token: u64) -> Shadow {
        Shadow { counter: first_token - 1, ..Shadow::default() }
    }

    fn expire(&mut self, t_us: u64) {
        if self.lease.as_ref().is_some_and(|lease| lease.expires_us <= t_us) {
            self.lease = None;
        }
    }

    fn mine(&self, value: &ValueId) -> bool {
        self.lease.as_ref().is_some_and(|lease| lease.value == *value)
    }

    fn predict(&self, command: &Command) -> Reply {
        match command {
            Command::Set { .. } => Reply::Set(self.lease.is_none()),
            Command::Incr => Reply::Token(self.counter + 1),
            Command::Renew { value, .. } | Command::Check { value } | Command::ReleaseCad { value } => Reply::Yes(self.mine(value)),
            Command::Del => Reply::Yes(self.lease.is_some()),
        }
    }

    fn apply(&mut self, t_us: u64, late: Late, command: &Command, reply: Reply) {
        match (command, reply) {
            (Command::Set { value, ttl_ms }, Reply::Set(true)) => {
                let expires_us = t_us + ttl_ms * 1000;
                self.lease = Some(ShadowLease { value: value.clone(), expires_us });
                self.expiry = Some((expires_us, late));
            }
            (Command::Incr, Reply::Token(token)) => self.counter = token,
            (Command::Renew { ttl_ms, .. }, Reply::Yes(true)) => {
                let expires_us = t_us + ttl_ms * 1000;
                if let Some(lease) = &mut self.lease {
                    lease.expires_us = expires_us;
                }
                self.expiry = Some((expires_us, late));
            }
            (Command::ReleaseCad { .. } | Command::Del, Reply::Yes(true)) => {
                self.lease = None;
                self.expiry = None;
            }
            _ => {}
        }
    }

    /// The node's clock jumps: its expiries come `jump_ms` sooner.
    fn jump(&mut self, t_us: u64, jump_ms: i64) {
        let shift = |expires_us: u64| expires_us.saturating_add_signed(-jump_ms * 1000).max(t_us);
        if let Some(lease) = &mut self.lease {
            lease.expires_us = shift(lease.expires_us);
        }
        if let Some((expires_us, _)) = &mut self.expiry {
            *expires_us = shift(*expires_us);
        }
        self.expire(t_us);
    }

    /// Whether, at model time `t_us` with this process `late` behind, the
    /// reply could depend on which side of an expiry the real server is.
    fn near_expiry(&self, t_us: u64, late: Late) -> bool {
        self.expiry.is_some_and(|(expires_us, late_at_set)| t_us.abs_diff(expires_us) / SCALE <= TOLERANCE_US + late.skew_us(late_at_set))
    }
}

struct Scripts {
    cad: redis::Script,
    renew: redis::Script,
    check: redis::Script,
    jump: redis::Script,
}

impl Scripts {
    fn load(con: &mut redis::Connection) -> Scripts {
        let scripts = Scripts {
            cad: redis::Script::new(CAD_LUA),
            renew: redis::Script::new(RENEW_LUA),
            check: redis::Script::new(CHECK_LUA),
            jump: redis::Script::new(JUMP_LUA),
        };
        // Loaded before the clock starts, so no run pays for a NOSCRIPT.
        for script in [&scripts.cad, &scripts.renew, &scripts.check, &scripts.jump] {
            script.load(con).expect("SCRIPT LOAD");
        }
        scripts
    }
}

/// One preset's replay on the real server.
struct Replay<'a> {
    con: &'a mut redis::Connection,
    scripts: &'a Scripts,
    what: String,
    prefix: String,
    first_token: u64,
    /// The real value standing in for each model value.
    real_values: HashMap<ValueId, String>,
    workers_of_values: HashMap<String, u8>,
    shadows: Vec<Shadow>,
    redlock: bool,
    majority: Option<String>,
    real_grants: Vec<u8>,
    identical: u32,
    near_expiry_identical: u32,
    tolerated: Vec<String>,
    failures: Vec<String>,
    skipped: u32,
    late_us_max: i64,
}

impl Replay<'_> {
    fn lock_key(&self, node: u8) -> String {
        format!("{}:lock:L{}", self.prefix, node + 1)
    }

    fn fence_key(&self, node: u8) -> String {
        format!("{}:fence:L{}", self.prefix, node + 1)
    }

    fn real_value(&mut self, value: &ValueId) -> String {
        if let Some(real) = self.real_values.get(value) {
            return real.clone();
        }
        let real = format!("{}-{:016x}", letter(value.0), random_u64());
        self.real_values.insert(value.clone(), real.clone());
        self.workers_of_values.insert(real.clone(), value.0);
        real
    }

    /// A node as new: no lock, the counter one below the first token.
    fn reset_node(&mut self, node: u8, counter: u64) {
        let (lock, fence) = (self.lock_key(node), self.fence_key(node));
        redis::cmd("DEL").arg(&lock).exec(self.con).expect("DEL");
        redis::cmd("SET").arg(&fence).arg(counter).exec(self.con).expect("SET fence");
        self.shadows[usize::from(node)] = Shadow { counter, ..Shadow::default() };
    }

    fn execute(&mut self, node: u8, command: &Command) -> Reply {
        let (lock, fence) = (self.lock_key(node), self.fence_key(node));
        let result = match command {
            Command::Set { value, ttl_ms } => {
                let real = self.real_value(value);
                let set = redis::cmd("SET").arg(&lock).arg(real).arg("NX").arg("PX").arg(scaled_ms(*ttl_ms)).query(self.con);
                set.map(|ok: Option<String>| Reply::Set(ok.is_some()))
            }
            Command::Incr => redis::cmd("INCR").arg(&fence).query(self.con).map(Reply::Token),
            Command::Renew { value, ttl_ms } => {
                let real = self.real_value(value);
                let renewed = self.scripts.renew.key(&lock).arg(real).arg(scaled_ms(*ttl_ms)).invoke(self.con);
                renewed.map(|n: i64| Reply::Yes(n == 1))
            }
            Command::Check { value } => {
                let real = self.real_value(value);
                self.scripts.check.key(&lock).arg(real).invoke(self.con).map(|n: i64| Reply::Yes(n == 1))
            }
            Command::ReleaseCad { value } => {
                let real = self.real_value(value);
                self.scripts.cad.key(&lock).arg(real).invoke(self.con).map(|n: i64| Reply::Yes(n == 1))
            }
            Command::Del => redis::cmd("DEL").arg(&lock).query(self.con).map(|n: i64| Reply::Yes(n == 1)),
        };
        result.unwrap_or_else(|error| panic!("{}: {command} failed on the real server: {error}", self.what))
    }

    /// Puts the real key into the model's state after a tolerated difference.
    fn resync(&mut self, node: u8, t_us: u64, start: Instant) {
        let before_us = late_now(start, t_us);
        let lock = self.lock_key(node);
        let shadow = self.shadows[usize::from(node)].clone();
        match shadow.lease {
            Some(lease) => {
                let real = self.real_value(&lease.value);
                let left_ms = (lease.expires_us - t_us).div_ceil(SCALE * 1000).max(1);
                redis::cmd("SET").arg(&lock).arg(real).arg("PX").arg(left_ms).exec(self.con).expect("SET PX");
            }
            None => redis::cmd("DEL").arg(&lock).exec(self.con).expect("DEL"),
        }
        let late = Late { before_us, after_us: late_now(start, t_us) };
        if let Some((_, late_at_set)) = &mut self.shadows[usize::from(node)].expiry {
            *late_at_set = late;
        }
    }

    /// Redlock: who holds a majority of the five masters' keys now.
    fn recount_majority(&mut self) {
        let keys: Vec<String> = (0..5).map(|node| self.lock_key(node)).collect();
        let values: Vec<Option<String>> = redis::cmd("MGET").arg(&keys).query(self.con).expect("MGET");
        let mut counts: Vec<(String, usize)> = Vec::new();
        for value in values.into_iter().flatten() {
            match counts.iter_mut().find(|(seen, _)| *seen == value) {
                Some(entry) => entry.1 += 1,
                None => counts.push((value, 1)),
            }
        }
        let now = counts.into_iter().find(|(_, count)| *count >= 3).map(|(value, _)| value);
        if now != self.majority {
            if let Some(value) = &now {
                self.real_grants.push(self.workers_of_values[value]);
            }
            self.majority = now;
        }
    }

    fn command(&mut self, step: &Step, start: Instant, before_us: i64) {
        let Step::Command { index, t_us, node, from, command, model } = step else { unreachable!() };
        let (t_us, node, model) = (*t_us, *node, *model);
        let shadow = &mut self.shadows[usize::from(node)];
        shadow.expire(t_us);
        let predicted = shadow.predict(command);
        assert_eq!(
            predicted,
            model,
            "{}: event {index}, {command} from {} at L{}: the model's reply is not what its Redis semantics give",
            self.what,
            letter(*from),
            node + 1
        );
        let real = self.execute(node, command);
        let late = Late { before_us, after_us: late_now(start, t_us) };
        self.late_us_max = self.late_us_max.max(late.after_us);
        let near_expiry = self.shadows[usize::from(node)].near_expiry(t_us, late);
        self.shadows[usize::from(node)].apply(t_us, late, command, model);
        if let (Command::Set { .. }, Reply::Set(true), false) = (command, real, self.redlock) {
            self.real_grants.push(*from);
        }
        let said = format!(
            "{} at {} ({} scaled, {late}): {} sent {command} to L{}: model {model:?}, real {real:?}",
            self.what,
            fencing_sim::format_us(t_us),
            fencing_sim::format_us(t_us / SCALE),
            letter(*from),
            node + 1
        );
        if real == model {
            self.identical += 1;
            if near_expiry {
                self.near_expiry_identical += 1;
                println!("  near an expiry, identical: {said}");
            }
        } else if near_expiry && *command != Command::Incr {
            println!("  TOLERATED (within ±{} ms of an expiry): {said}", TOLERANCE_US / 1000);
            self.tolerated.push(said);
            self.resync(node, t_us, start);
        } else {
            self.failures.push(said);
        }
        if self.redlock {
            self.recount_majority();
        }
    }
}

fn scaled_ms(ms: u64) -> u64 {
    ms.div_ceil(SCALE).max(1)
}

/// A value no other run uses (the test, not the model, may use entropy).
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    hasher.finish()
}

/// How far behind the scaled model time `t_us` the process is now (µs).
fn late_now(start: Instant, t_us: u64) -> i64 {
    let elapsed_us = i64::try_from(start.elapsed().as_micros()).unwrap_or(i64::MAX);
    elapsed_us - i64::try_from(t_us / SCALE).unwrap_or(i64::MAX)
}

/// Sleeps, then spins, until `target_us` after `start`; returns how late it
/// is by then (µs, never negative).
fn wait_until(start: Instant, target_us: u64) -> i64 {
    let target = Duration::from_micros(target_us);
    loop {
        let now = start.elapsed();
        if now >= target {
            return i64::try_from((now - target).as_micros()).unwrap_or(i64::MAX);
        }
        let left = target - now;
        if left > Duration::from_micros(SPIN_US) {
            std::thread::sleep(left - Duration::from_micros(SPIN_US));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Whether the model's Redis failover can be followed on one server, and how.
enum Failover {
    NotApplicable,
    /// The replica provably never got a snapshot before the primary died, so
    /// it is promoted with a new node's state: fresh keys reproduce it.
    FreshReplica,
    /// The replica holds some snapshot: skip everything after the crash.
    SkipAfterCrash,
}

fn failover_plan(scenario: &Scenario, steps: &[Step]) -> Failover {
    if scenario.lock_service != LockService::RedisFailover {
        return Failover::NotApplicable;
    }
    let crash_us = steps.iter().find_map(|step| match *step {
        Step::NodeDown { t_us, node: 0 } => Some(t_us),
        _ => None,
    });
    let Some(crash_us) = crash_us else { return Failover::NotApplicable };
    // Every change on the primary reaches the replica `replication_lag_ms`
    // later, unless the primary died first.
    let lag_us = scenario.replication_lag_ms * 1000;
    let replicated = steps.iter().any(|step| match *step {
        Step::Command { t_us, node: 0, .. } => t_us + lag_us <= crash_us,
        _ => false,
    });
    if replicated {
        Failover::SkipAfterCrash
    } else {
        Failover::FreshReplica
    }
}

/// Replays one scenario's lock commands; returns the failures.
fn replay(con: &mut redis::Connection, scripts: &Scripts, what: &str, scenario: &Scenario, trace: &Trace) -> Vec<String> {
    let steps = steps(trace);
    let plan = failover_plan(scenario, &steps);
    let nodes = scenario.lock_service.nodes();
    let mut replay = Replay {
        con,
        scripts,
        what: what.to_string(),
        prefix: format!("fencing-lab:{what}:{:08x}", random_u64() as u32),
        first_token: scenario.first_token,
        real_values: HashMap::new(),
        workers_of_values: HashMap::new(),
        shadows: vec![Shadow::new(scenario.first_token); usize::from(nodes)],
        redlock: scenario.lock_service == LockService::Redlock,
        majority: None,
        real_grants: Vec::new(),
        identical: 0,
        near_expiry_identical: 0,
        tolerated: Vec::new(),
        failures: Vec::new(),
        skipped: 0,
        late_us_max: 0,
    };
    for node in 0..nodes {
        replay.reset_node(node, replay.first_token - 1);
    }
    let mut crashed_at_us: Option<u64> = None;
    let start = Instant::now();
    for step in &steps {
        if crashed_at_us.is_some() && matches!(plan, Failover::SkipAfterCrash) {
            replay.skipped += 1;
            continue;
        }
        let late_us = wait_until(start, step.t_us() / SCALE);
        replay.late_us_max = replay.late_us_max.max(late_us);
        match *step {
            Step::Command { .. } => replay.command(step, start, late_us),
            Step::ClockJump { t_us, node, jump_ms } => {
                let jump_scaled_ms = jump_ms / SCALE as i64;
                let lock = replay.lock_key(node);
                let _: i64 = scripts.jump.key(&lock).arg(jump_scaled_ms).invoke(replay.con).expect("jump script");
                replay.shadows[usize::from(node)].jump(t_us, jump_ms);
                println!("  note: L{}'s clock jump of {jump_ms} ms is emulated by moving its key's expiry {jump_scaled_ms} ms", node + 1);
                if replay.redlock {
                    replay.recount_majority();
                }
            }
            Step::NodeDown { t_us, node } => match (&plan, node) {
                (Failover::NotApplicable, _) | (_, 1..) => {
                    // A Redis without persistence restarts empty: counter 0.
                    replay.reset_node(node, 0);
                    println!("  note: L{} crashed: its keys are wiped, as the model wipes its memory", node + 1);
                }
                (Failover::FreshReplica, 0) => {
                    crashed_at_us = Some(t_us);
                    println!(
                        "  note: L1 crashed at {}: one real server cannot lose data the way the model's crash does; \
                         the model's replica never received a snapshot (every L1 command came less than the \
                         {} ms replication lag before the crash), so the promoted L2 is replayed on fresh keys",
                        fencing_sim::format_us(t_us),
                        scenario.replication_lag_ms
                    );
                }
                (Failover::SkipAfterCrash, 0) => {
                    crashed_at_us = Some(t_us);
                    println!(
                        "  note: L1 crashed at {}: one real server cannot lose data the way the model's crash does, \
                         so the commands after it are skipped",
                        fencing_sim::format_us(t_us)
                    );
                }
            },
        }
    }
    let elapsed = start.elapsed();
    let model_grants: Vec<u8> = trace
        .events
        .iter()
        .filter(|event| !matches!(plan, Failover::SkipAfterCrash) || crashed_at_us.is_none_or(|crash_us| event.t_us < crash_us))
        .filter_map(|event| match event.kind {
            Kind::Granted { holder: Actor::Worker(worker), .. } => Some(worker),
            _ => None,
        })
        .collect();
    let names = |grants: &[u8]| grants.iter().map(|worker| letter(*worker).to_string()).collect::<Vec<_>>().join(" ");
    println!(
        "{what}: {} commands: {} identical ({} of them near an expiry), {} timing-tolerated, {} skipped; \
         grants real [{}] model [{}]; {:.1} ms scaled run, at most {} µs behind schedule",
        replay.identical as usize + replay.tolerated.len() + replay.failures.len(),
        replay.identical,
        replay.near_expiry_identical,
        replay.tolerated.len(),
        replay.skipped,
        names(&replay.real_grants),
        names(&model_grants),
        elapsed.as_secs_f64() * 1000.0,
        replay.late_us_max,
    );
    if replay.real_grants != model_grants {
        let said = format!(
            "{what}: the lock went to [{}] on the real server, to [{}] in the model",
            names(&replay.real_grants),
            names(&model_grants)
        );
        if replay.tolerated.is_empty() {
            replay.failures.push(said);
        } else {
            println!("  TOLERATED (follows a timing-tolerated reply): {said}");
        }
    }
    let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{}:*", replay.prefix)).query(replay.con).expect("KEYS");
    if !keys.is_empty() {
        redis::cmd("DEL").arg(&keys).exec(replay.con).expect("DEL");
    }
    replay.failures
}

/// The presets whose lock service is Redis, fencing off and on.
fn redis_scenarios() -> Vec<(String, Scenario)> {
    let redis =
        |scenario: &Scenario| matches!(scenario.lock_service, LockService::SingleRedis | LockService::RedisFailover | LockService::Redlock);
    let scenarios: Vec<(String, Scenario)> =
        fencing_sim::golden::pinned_runs().into_iter().filter(|(_, scenario)| redis(scenario)).collect();
    for (name, scenario) in &scenarios {
        // A node clock that runs at another rate cannot be had on one server.
        assert!(
            !scenario.faults.iter().any(|fault| matches!(fault, Fault::ClockDrift { .. })),
            "{name}: clock drift cannot be replayed on a real server"
        );
    }
    scenarios
}

#[test]
#[ignore = "needs a real redis-server: scripts/fidelity.sh starts one and runs this with --ignored"]
fn a_real_redis_answers_every_lock_command_as_the_model_does() {
    let url = std::env::var("FENCING_LAB_REDIS_URL")
        .expect("FENCING_LAB_REDIS_URL is not set: run scripts/fidelity.sh, which starts a private redis-server and sets it");
    let client = redis::Client::open(url.as_str()).unwrap_or_else(|error| panic!("bad FENCING_LAB_REDIS_URL {url:?}: {error}"));
    let mut con = client.get_connection_with_timeout(Duration::from_secs(5)).expect("connect to the real Redis");
    con.set_read_timeout(Some(Duration::from_secs(5))).expect("read timeout");
    let version: String = redis::cmd("INFO").arg("server").query(&mut con).expect("INFO");
    let version = version.lines().find(|line| line.starts_with("redis_version:")).unwrap_or("redis_version:?").trim();
    println!("redis_differential: {version}, time scaled 1/{SCALE}, tolerance ±{} ms around an expiry", TOLERANCE_US / 1000);
    let scripts = Scripts::load(&mut con);
    let scenarios = redis_scenarios();
    assert!(scenarios.len() >= 9 * 2, "expected every Redis preset, got {}", scenarios.len());
    let mut failures = Vec::new();
    let mut commands = 0;
    for (what, scenario) in &scenarios {
        let trace = run(scenario).unwrap_or_else(|error| panic!("{what}: {error}"));
        assert!(!trace.summary.truncated, "{what} hit its event bound");
        commands += steps(&trace).iter().filter(|step| matches!(step, Step::Command { .. })).count();
        failures.extend(replay(&mut con, &scripts, what, scenario, &trace));
    }
    println!("redis_differential: {} scenarios, {commands} lock commands replayed", scenarios.len());
    assert!(failures.is_empty(), "the real Redis disagreed with the model:\n{}", failures.join("\n"));
}

/// The offline half: the steps read from a trace are what the story says.
#[test]
fn the_classic_trace_reads_as_redis_commands() {
    let trace = run(&presets::classic()).unwrap();
    let classic = steps(&trace);
    let Step::Command { command: Command::Set { value, ttl_ms: 10_000 }, model: Reply::Set(true), from: 0, .. } = &classic[0] else {
        panic!("A's SET first: {:?}", classic[0]);
    };
    assert_eq!(value.0, 0);
    assert!(matches!(classic[1], Step::Command { command: Command::Incr, model: Reply::Token(33), .. }));
    let tokens: Vec<u64> = classic
        .iter()
        .filter_map(|step| match step {
            Step::Command { model: Reply::Token(token), .. } => Some(*token),
            _ => None,
        })
        .collect();
    assert_eq!(tokens, vec![33, 34]);
    for preset in redis_scenarios() {
        let trace = run(&preset.1).unwrap();
        assert!(steps(&trace).iter().any(|step| matches!(step, Step::Command { .. })), "{}", preset.0);
    }
}
