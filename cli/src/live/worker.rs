//! `fencing-lab live-worker` (hidden): one real worker of `fencing-lab live`,
//! a separate process so that the lab can freeze it with SIGSTOP.
//!
//! It does what the model's worker does, on a real Redis: take the lock
//! (`SET lock <random> NX PX ttl`, jittered exponential backoff, bounded),
//! draw a token (`INCR fence`), work (sleep) before each write, write to a
//! plain store and to a fenced one, release by compare-and-delete, and say
//! each step as one JSON line on stdout. Errors go to stderr with a non-zero
//! exit.

use super::event::{Clock, FreezePoint, LiveEvent, Store, What, Who};
use super::server::{self, Keys, CAD_LUA, FENCED_WRITE_LUA};
use super::{BACKOFF_MS_MAX, BACKOFF_MS_MIN, LIVE_MS_MAX, WRITES_MAX};
use clap::Parser;
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

#[derive(Parser)]
pub struct WorkerArgs {
    #[arg(long, value_enum)]
    name: Who,
    #[arg(long)]
    redis: String,
    /// Every key of this run starts with it.
    #[arg(long)]
    prefix: String,
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=LIVE_MS_MAX))]
    ttl_ms: u64,
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=LIVE_MS_MAX))]
    work_ms: u64,
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=WRITES_MAX as i64))]
    writes: u8,
    /// The lab's start instant (µs since the Unix epoch): every `t_ms` is
    /// measured from it, so both workers' lines sort on one time line.
    #[arg(long)]
    start_unix_us: u64,
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    attempts_max: u32,
    /// Wait there for a line on stdin (the lab's word) before going on.
    #[arg(long, value_enum)]
    freeze_at: Option<FreezePoint>,
}

/// A worker's connection, scripts and way of speaking.
struct Worker<'a> {
    args: &'a WorkerArgs,
    clock: Clock,
    keys: Keys,
    con: redis::Connection,
    cad: redis::Script,
    fenced_write: redis::Script,
}

pub fn main(args: &WorkerArgs) -> Result<(), String> {
    let mut worker = Worker::connect(args)?;
    let value = format!("{:016x}{:016x}", random_u64(0), random_u64(1));
    worker.emit(What::Started { pid: std::process::id(), value: value.clone() });
    let attempts = worker.take_lock(&value)?;
    worker.emit(What::Granted { attempts });
    worker.wait_here(FreezePoint::Granted)?;
    let token: u64 = redis::cmd("INCR").arg(&worker.keys.fence).query(&mut worker.con).map_err(worker.failed("INCR"))?;
    // The work's deadline is set before the line that lets the lab freeze
    // this process: after SIGCONT the sleep ends at its original deadline,
    // long past, as a real sleep's does, and the worker writes at once,
    // unaware of the pause.
    let mut work_until = Instant::now() + Duration::from_millis(args.work_ms);
    worker.emit(What::Acquired { token });
    worker.wait_here(FreezePoint::Acquired)?;
    for nth in 1..=args.writes {
        std::thread::sleep(work_until.saturating_duration_since(Instant::now()));
        worker.emit(What::Worked { token, nth });
        worker.write(token, nth)?;
        work_until = Instant::now() + Duration::from_millis(args.work_ms);
    }
    let deleted: i64 = worker.cad.key(&worker.keys.lock).arg(&value).invoke(&mut worker.con).map_err(worker.failed("release"))?;
    worker.emit(What::Released { token, deleted: deleted == 1 });
    Ok(())
}

impl Worker<'_> {
    fn connect(args: &WorkerArgs) -> Result<Worker<'_>, String> {
        let mut con = server::connect(&args.redis).map_err(|error| format!("worker {}: {error}", args.name))?;
        let (cad, fenced_write) = (redis::Script::new(CAD_LUA), redis::Script::new(FENCED_WRITE_LUA));
        // Loaded before the lock is taken, so no step in the critical
        // section pays for a NOSCRIPT round trip.
        for script in [&cad, &fenced_write] {
            script.load(&mut con).map_err(|error| format!("worker {}: SCRIPT LOAD: {error}", args.name))?;
        }
        let clock = Clock { start_unix_us: args.start_unix_us };
        Ok(Worker { args, clock, keys: Keys::new(&args.prefix), con, cad, fenced_write })
    }

    fn failed(&self, what: &'static str) -> impl Fn(redis::RedisError) -> String {
        let name = self.args.name;
        move |error| format!("worker {name}: {what}: {error}")
    }

    /// `SET lock value NX PX ttl` until OK (with backoff, bounded): the
    /// attempt that got it.
    fn take_lock(&mut self, value: &str) -> Result<u32, String> {
        for attempt in 1..=self.args.attempts_max {
            let reply: Option<String> = redis::cmd("SET")
                .arg(&self.keys.lock)
                .arg(value)
                .arg("NX")
                .arg("PX")
                .arg(self.args.ttl_ms)
                .query(&mut self.con)
                .map_err(self.failed("SET NX PX"))?;
            if reply.is_some() {
                return Ok(attempt);
            }
            if attempt == 1 {
                self.emit(What::Busy);
            }
            let salt = u64::from(attempt) + 2;
            let delay_us =
                fencing_sim::backoff::backoff_us(attempt, BACKOFF_MS_MIN, BACKOFF_MS_MAX, |half_us| random_u64(salt) % (half_us + 1));
            if attempt < self.args.attempts_max {
                std::thread::sleep(Duration::from_micros(delay_us));
            }
        }
        let attempts = self.args.attempts_max;
        self.emit(What::GaveUp { attempts });
        Err(format!("worker {}: no lock after {attempts} attempts", self.args.name))
    }

    /// At the freeze point the lab asked for, waits for its word on stdin:
    /// the lab stops this process meanwhile and sends the word before it
    /// thaws it.
    fn wait_here(&self, point: FreezePoint) -> Result<(), String> {
        if self.args.freeze_at != Some(point) {
            return Ok(());
        }
        let mut word = String::new();
        let read = std::io::stdin().lock().read_line(&mut word).map_err(|error| format!("worker {}: stdin: {error}", self.args.name))?;
        if read == 0 {
            return Err(format!("worker {}: the lab went away before it said go on", self.args.name));
        }
        Ok(())
    }

    /// The `nth` write, to the plain store and then to the fenced one.
    fn write(&mut self, token: u64, nth: u8) -> Result<(), String> {
        let datum = format!("{}:{token}", self.args.name);
        // The plain store: a SET that checks nothing (GET returns what it replaced).
        let replaced: Option<String> =
            redis::cmd("SET").arg(&self.keys.data).arg(&datum).arg("GET").query(&mut self.con).map_err(self.failed("SET data"))?;
        self.emit(What::Wrote { store: Store::Plain, token, nth, accepted: true, highest: None, replaced });
        let (accepted, highest, replaced): (i64, u64, Option<String>) = self
            .fenced_write
            .key(&self.keys.highest)
            .key(&self.keys.data_fenced)
            .arg(token)
            .arg(&datum)
            .invoke(&mut self.con)
            .map_err(self.failed("fenced write"))?;
        let accepted = accepted == 1;
        // A refused write replaced nothing.
        let replaced = replaced.filter(|_| accepted);
        self.emit(What::Wrote { store: Store::Fenced, token, nth, accepted, highest: Some(highest), replaced });
        Ok(())
    }

    /// One JSON line, flushed at once: the lab acts on some lines the moment
    /// they arrive.
    fn emit(&self, what: What) {
        let event = LiveEvent::new(self.clock.now_ms(), self.args.name, what);
        let line = serde_json::to_string(&event).expect("an event serialises");
        let mut stdout = std::io::stdout().lock();
        // A lab that went away closed the pipe: nobody is left to tell.
        if writeln!(stdout, "{line}").and_then(|()| stdout.flush()).is_err() {
            std::process::exit(2);
        }
    }
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
