//! The replay on the real server: the scripts that stand for the model's
//! compare-and-act commands, one scenario's state, and the clock.

use super::shadow::{Late, Shadow};
use super::steps::{value_of, Step};
use super::support::{letter, random_u64};
use super::{SCALE, SPIN_US, TOLERANCE_US};
use fencing_sim::msg::Msg;
use fencing_sim::{LockService, Scenario};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const CAD_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const RENEW_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const CHECK_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return 1 else return 0 end";
/// The grant and its token in one step: the token, or nil if the lock is taken.
const ACQUIRE_LUA: &str =
    "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('incr', KEYS[2]) else return false end";
/// A node's clock jumping ahead by ARGV[1] ms brings every expiry that much
/// closer (a jump back pushes it away): the key's TTL shrinks or grows by it.
const JUMP_LUA: &str = "local ttl = redis.call('pttl', KEYS[1]) \
    if ttl < 0 then return ttl end \
    local left = ttl - tonumber(ARGV[1]) \
    if left <= 0 then redis.call('del', KEYS[1]) return 0 end \
    redis.call('pexpire', KEYS[1], left) return left";

pub struct Scripts {
    cad: redis::Script,
    renew: redis::Script,
    check: redis::Script,
    acquire: redis::Script,
    pub jump: redis::Script,
}

impl Scripts {
    pub fn load(con: &mut redis::Connection) -> Scripts {
        let scripts = Scripts {
            cad: redis::Script::new(CAD_LUA),
            renew: redis::Script::new(RENEW_LUA),
            check: redis::Script::new(CHECK_LUA),
            acquire: redis::Script::new(ACQUIRE_LUA),
            jump: redis::Script::new(JUMP_LUA),
        };
        // Loaded before the clock starts, so no run pays for a NOSCRIPT.
        for script in [&scripts.cad, &scripts.renew, &scripts.check, &scripts.acquire, &scripts.jump] {
            script.load(con).expect("SCRIPT LOAD");
        }
        scripts
    }
}

/// One preset's replay on the real server.
pub struct Replay<'a> {
    pub con: &'a mut redis::Connection,
    pub scripts: &'a Scripts,
    pub what: String,
    pub prefix: String,
    /// The real value standing in for each model lock value, and whose.
    pub real_values: HashMap<u64, String>,
    pub workers_of_values: HashMap<String, u8>,
    pub shadows: Vec<Shadow>,
    pub redlock: bool,
    pub majority: Option<String>,
    pub real_grants: Vec<u8>,
    pub identical: u32,
    pub near_expiry_identical: u32,
    pub tolerated: Vec<String>,
    pub failures: Vec<String>,
    pub skipped: u32,
    pub late_us_max: i64,
}

impl Replay<'_> {
    pub fn new<'a>(con: &'a mut redis::Connection, scripts: &'a Scripts, what: &str, scenario: &Scenario) -> Replay<'a> {
        let nodes = scenario.lock_service.nodes();
        let mut replay = Replay {
            con,
            scripts,
            what: what.to_string(),
            prefix: format!("fencing-lab:{what}:{:08x}", random_u64() as u32),
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
            replay.reset_node(node, scenario.first_token - 1);
        }
        replay
    }

    pub fn lock_key(&self, node: u8) -> String {
        format!("{}:lock:L{}", self.prefix, node + 1)
    }

    fn fence_key(&self, node: u8) -> String {
        format!("{}:fence:L{}", self.prefix, node + 1)
    }

    /// The real value for a model value, made up the first time `worker` uses it.
    fn real_value(&mut self, value: u64, worker: u8) -> String {
        if let Some(real) = self.real_values.get(&value) {
            return real.clone();
        }
        let real = format!("{}-{:016x}", letter(worker), random_u64());
        self.real_values.insert(value, real.clone());
        self.workers_of_values.insert(real.clone(), worker);
        real
    }

    /// A node as new: no lock, the counter at `counter`.
    pub fn reset_node(&mut self, node: u8, counter: u64) {
        let (lock, fence) = (self.lock_key(node), self.fence_key(node));
        redis::cmd("DEL").arg(&lock).exec(self.con).expect("DEL");
        redis::cmd("SET").arg(&fence).arg(counter).exec(self.con).expect("SET fence");
        self.shadows[usize::from(node)] = Shadow { counter, ..Shadow::default() };
    }

    /// Runs the request on the real server; its reply, as the model's type.
    fn execute(&mut self, node: u8, from: u8, request: &Msg) -> Msg {
        let (lock, fence) = (self.lock_key(node), self.fence_key(node));
        let real = value_of(request).map(|value| self.real_value(value, from)).unwrap_or_default();
        let scripts = self.scripts;
        let result = match *request {
            Msg::SetNx { ttl_ms, .. } => redis::cmd("SET")
                .arg(&lock)
                .arg(real)
                .arg("NX")
                .arg("PX")
                .arg(scaled_ms(ttl_ms))
                .query(self.con)
                .map(|ok: Option<String>| Msg::SetReply { ok: ok.is_some() }),
            Msg::AcquireScript { ttl_ms, .. } => scripts
                .acquire
                .key(&lock)
                .key(&fence)
                .arg(real)
                .arg(scaled_ms(ttl_ms))
                .invoke(self.con)
                .map(|token: Option<u64>| Msg::AcquireScriptReply { token }),
            Msg::Incr => redis::cmd("INCR").arg(&fence).query(self.con).map(|value| Msg::IncrReply { value }),
            Msg::Renew { ttl_ms, .. } => {
                scripts.renew.key(&lock).arg(real).arg(scaled_ms(ttl_ms)).invoke(self.con).map(|n: i64| Msg::RenewReply { ok: n == 1 })
            }
            Msg::Check { .. } => scripts.check.key(&lock).arg(real).invoke(self.con).map(|n: i64| Msg::CheckReply { mine: n == 1 }),
            Msg::ReleaseCad { .. } => scripts.cad.key(&lock).arg(real).invoke(self.con).map(|n: i64| Msg::ReleaseReply { deleted: n == 1 }),
            Msg::Del => redis::cmd("DEL").arg(&lock).query(self.con).map(|n: i64| Msg::ReleaseReply { deleted: n == 1 }),
            other => panic!("{other:?} is no Redis lock command"),
        };
        result.unwrap_or_else(|error| panic!("{}: {} failed on the real server: {error}", self.what, request.label()))
    }

    /// Puts the real lock key and counter into the model's state after a
    /// tolerated difference (an atomic acquire that the real server granted
    /// also counted).
    fn resync(&mut self, node: u8, t_us: u64, start: Instant) {
        let before_us = late_now(start, t_us);
        let (lock, fence) = (self.lock_key(node), self.fence_key(node));
        redis::cmd("SET").arg(&fence).arg(self.shadows[usize::from(node)].counter).exec(self.con).expect("SET fence");
        match self.shadows[usize::from(node)].lease {
            Some(lease) => {
                let real = self.real_values.get(&lease.value).cloned().expect("a held value was sent before");
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
    pub fn recount_majority(&mut self) {
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

    /// One command: the model's reply checked against Redis semantics, then
    /// against the real server's.
    pub fn command(&mut self, step: &Step, start: Instant, before_us: i64) {
        let Step::Command { index, t_us, node, from, request, model } = *step else { unreachable!() };
        let shadow = &mut self.shadows[usize::from(node)];
        shadow.expire(t_us);
        let said_request = format!("{} sent {} to L{}", letter(from), request.label(), node + 1);
        assert_eq!(
            shadow.predict(&request),
            model,
            "{}: event {index}, {said_request}: the model's reply is not what its Redis semantics give",
            self.what
        );
        let real = self.execute(node, from, &request);
        let late = Late { before_us, after_us: late_now(start, t_us) };
        self.late_us_max = self.late_us_max.max(late.after_us);
        let near_expiry = self.shadows[usize::from(node)].near_expiry(t_us, late);
        self.shadows[usize::from(node)].apply(t_us, late, &request, &model);
        let granted = matches!(real, Msg::SetReply { ok: true } | Msg::AcquireScriptReply { token: Some(_) });
        if granted && !self.redlock {
            self.real_grants.push(from);
        }
        let said = format!(
            "{} at {} ({} scaled, {late}): {said_request}: model {}, real {}",
            self.what,
            fencing_sim::format_us(t_us),
            fencing_sim::format_us(t_us / SCALE),
            model.label(),
            real.label()
        );
        if real == model {
            self.identical += 1;
            if near_expiry {
                self.near_expiry_identical += 1;
                println!("  near an expiry, identical: {said}");
            }
        } else if near_expiry && request != Msg::Incr {
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

    /// Deletes the scenario's keys.
    pub fn clean_up(&mut self) {
        let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{}:*", self.prefix)).query(self.con).expect("KEYS");
        if !keys.is_empty() {
            redis::cmd("DEL").arg(&keys).exec(self.con).expect("DEL");
        }
    }
}

fn scaled_ms(ms: u64) -> u64 {
    ms.div_ceil(SCALE).max(1)
}

/// How far behind the scaled model time `t_us` the process is now (µs).
fn late_now(start: Instant, t_us: u64) -> i64 {
    let elapsed_us = i64::try_from(start.elapsed().as_micros()).unwrap_or(i64::MAX);
    elapsed_us - i64::try_from(t_us / SCALE).unwrap_or(i64::MAX)
}

/// Sleeps, then spins, until `target_us` after `start`; returns how late it
/// is by then (µs, never negative).
pub fn wait_until(start: Instant, target_us: u64) -> i64 {
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
pub enum Failover {
    NotApplicable,
    /// The replica provably never got a snapshot before the primary died, so
    /// it is promoted with a new node's state: fresh keys reproduce it.
    FreshReplica,
    /// The replica holds some snapshot: skip everything after the crash.
    SkipAfterCrash,
}

pub fn failover_plan(scenario: &Scenario, steps: &[Step]) -> Failover {
    if scenario.lock_service != LockService::RedisFailover {
        return Failover::NotApplicable;
    }
    let crash_us = steps.iter().find_map(|step| match *step {
        Step::NodeDown { t_us, node: 0, .. } => Some(t_us),
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
