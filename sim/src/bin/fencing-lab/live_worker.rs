//! `fencing-lab live-worker` (hidden): one real worker of `fencing-lab live`,
//! a separate process so that the parent can freeze it with `kill -STOP`.
//!
//! It does what the model's worker does, on a real Redis: take the lock
//! (`SET lock <random> NX PX ttl`, jittered exponential backoff, bounded),
//! take a token (`INCR fence`), work (sleep), write to a plain store and to a
//! fenced one, release by compare-and-delete, and say each step as one JSON
//! line on stdout. Errors go to stderr with a non-zero exit.

use crate::live::{Clock, Keys, LiveEvent, BACKOFF_MS_MAX, BACKOFF_MS_MIN};
use clap::Parser;
use std::io::Write;
use std::time::Duration;

/// Release only a lock that is still ours: a plain `DEL` would delete a
/// successor's lock (design.md: "What real lock services did").
pub const CAD_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/// The fenced store: KEYS[1] keeps the highest token accepted, KEYS[2] the
/// data. A write is accepted iff its token is at least the highest (equal
/// is accepted, so one holder may write several times), as the model's
/// store does. Returns {1 or 0, the highest token now, the data before}.
pub const FENCED_WRITE_LUA: &str = "local highest = tonumber(redis.call('get', KEYS[1]) or '0') \
    local token = tonumber(ARGV[1]) \
    local previous = redis.call('get', KEYS[2]) \
    if token < highest then return {0, highest, previous} end \
    redis.call('set', KEYS[1], ARGV[1]) \
    redis.call('set', KEYS[2], ARGV[2]) \
    return {1, token, previous}";

/// How long one Redis command may take before the worker gives up on it.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Parser)]
pub struct WorkerArgs {
    #[arg(long, value_parser = ["A", "B"])]
    name: String,
    #[arg(long)]
    redis: String,
    /// Every key of this run starts with it.
    #[arg(long)]
    prefix: String,
    #[arg(long)]
    ttl_ms: u64,
    #[arg(long)]
    work_ms: u64,
    /// The parent's start instant (µs since the Unix epoch): every `t_ms` is
    /// measured from it, so both workers' lines sort on one time line.
    #[arg(long)]
    start_unix_us: u64,
    #[arg(long)]
    attempts_max: u32,
}

pub fn main(args: &WorkerArgs) -> Result<(), String> {
    let clock = Clock { start_unix_us: args.start_unix_us };
    let keys = Keys::new(&args.prefix);
    let name = args.name.as_str();
    let redis_error = |what: &'static str| move |error: redis::RedisError| format!("worker {name}: {what}: {error}");
    let client = redis::Client::open(args.redis.as_str()).map_err(redis_error("bad Redis URL"))?;
    let mut con = client.get_connection_with_timeout(COMMAND_TIMEOUT).map_err(redis_error("cannot connect"))?;
    con.set_read_timeout(Some(COMMAND_TIMEOUT)).map_err(redis_error("read timeout"))?;
    con.set_write_timeout(Some(COMMAND_TIMEOUT)).map_err(redis_error("write timeout"))?;
    let cad = redis::Script::new(CAD_LUA);
    let fenced_write = redis::Script::new(FENCED_WRITE_LUA);
    // Loaded before the lock is taken, so no step in the critical section
    // pays for a NOSCRIPT round trip.
    cad.load(&mut con).map_err(redis_error("SCRIPT LOAD"))?;
    fenced_write.load(&mut con).map_err(redis_error("SCRIPT LOAD"))?;

    let value = format!("{:016x}{:016x}", random_u64(0), random_u64(1));
    emit(&LiveEvent { pid: Some(std::process::id()), value: Some(value.clone()), ..LiveEvent::new(clock.now_ms(), name, "started") });

    let mut attempt: u32 = 0;
    let granted_t_ms = loop {
        attempt += 1;
        let reply: Option<String> = redis::cmd("SET")
            .arg(&keys.lock)
            .arg(&value)
            .arg("NX")
            .arg("PX")
            .arg(args.ttl_ms)
            .query(&mut con)
            .map_err(redis_error("SET NX PX"))?;
        if reply.is_some() {
            break clock.now_ms();
        }
        if attempt == 1 {
            emit(&LiveEvent::new(clock.now_ms(), name, "busy"));
        }
        if attempt >= args.attempts_max {
            emit(&LiveEvent { attempts: Some(attempt), ..LiveEvent::new(clock.now_ms(), name, "gave_up") });
            return Err(format!("worker {name}: no lock after {attempt} attempts"));
        }
        std::thread::sleep(Duration::from_micros(backoff_us(attempt)));
    };
    let token: u64 = redis::cmd("INCR").arg(&keys.fence).query(&mut con).map_err(redis_error("INCR"))?;
    emit(&LiveEvent {
        token: Some(token),
        attempts: Some(attempt),
        granted_t_ms: Some(granted_t_ms),
        ..LiveEvent::new(clock.now_ms(), name, "acquired")
    });

    // The parent freezes A during this sleep (it waits until the kernel
    // reports A asleep). After SIGCONT the kernel restarts the sleep against
    // its original deadline, long past: A goes straight on to write, unaware
    // that any time passed.
    std::thread::sleep(Duration::from_millis(args.work_ms));
    emit(&LiveEvent { token: Some(token), ..LiveEvent::new(clock.now_ms(), name, "worked") });

    let datum = format!("{name}:{token}");
    // The plain store: a SET that checks nothing (GET returns what it replaced).
    let replaced: Option<String> =
        redis::cmd("SET").arg(&keys.data).arg(&datum).arg("GET").query(&mut con).map_err(redis_error("SET data"))?;
    emit(&LiveEvent {
        token: Some(token),
        store: Some("plain".to_string()),
        accepted: Some(true),
        replaced,
        ..LiveEvent::new(clock.now_ms(), name, "wrote")
    });
    let (accepted, highest, replaced): (i64, u64, Option<String>) = fenced_write
        .key(&keys.highest)
        .key(&keys.data_fenced)
        .arg(token)
        .arg(&datum)
        .invoke(&mut con)
        .map_err(redis_error("fenced write"))?;
    emit(&LiveEvent {
        token: Some(token),
        store: Some("fenced".to_string()),
        accepted: Some(accepted == 1),
        highest: Some(highest),
        // A rejected write replaced nothing.
        replaced: replaced.filter(|_| accepted == 1),
        ..LiveEvent::new(clock.now_ms(), name, "wrote")
    });

    let released: i64 = cad.key(&keys.lock).arg(&value).invoke(&mut con).map_err(redis_error("release"))?;
    emit(&LiveEvent { token: Some(token), result: Some(released), ..LiveEvent::new(clock.now_ms(), name, "released") });
    Ok(())
}

/// One JSON line, flushed at once: the parent acts on "acquired" the moment
/// it arrives.
fn emit(event: &LiveEvent) {
    let line = serde_json::to_string(event).expect("an event serialises");
    let mut stdout = std::io::stdout().lock();
    // A parent that went away closed the pipe: nobody is left to tell.
    if writeln!(stdout, "{line}").and_then(|()| stdout.flush()).is_err() {
        std::process::exit(2);
    }
}

/// The model's backoff (sim/src/worker.rs), on the live run's scale:
/// exponential with "equal jitter", half the cap for sure, the other half at
/// random. The simulated run uses the same bounds.
fn backoff_us(attempt: u32) -> u64 {
    let doublings = attempt.saturating_sub(1).min(20);
    let cap_us = (BACKOFF_MS_MIN << doublings).min(BACKOFF_MS_MAX) * 1000;
    cap_us / 2 + random_u64(u64::from(attempt) + 2) % (cap_us / 2 + 1)
}

/// A value no other process uses: std's randomly keyed hasher over the time,
/// the pid and a salt. (The binary may use entropy; the model never does.)
fn random_u64(salt: u64) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let now_ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos());
    hasher.write_u128(now_ns);
    hasher.write_u32(std::process::id());
    hasher.write_u64(salt);
    hasher.finish()
}
