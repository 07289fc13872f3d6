//! A `Scenario` is everything a run depends on besides nothing: the same
//! scenario (seed included) always produces the same trace. It is what the
//! presets define, what the command line and the page's controls override, and
//! what the URL and the JSON export carry.
//!
//! The lock services, stores and their options are in `services.rs`, the
//! faults in `fault.rs`, and the checks of a whole scenario in `validate.rs`.

mod fault;
mod fault_kind;
mod fleet;
mod services;
mod validate;

pub use crate::services::{LockService, TokenSource, CONSENSUS_MEMBERS, CONSENSUS_QUORUM, REDLOCK_NODES, REDLOCK_QUORUM};
pub use fault::{Fault, When};
pub use fault_kind::{Click, FaultKind, FaultSpec, Moment, Targets, FAULT_SPECS};
pub use fleet::{Fleet, FLEET_EVENTS_MAX, FLEET_WORKERS_MAX, SPAN_MS_MAX};
pub use services::*;

use crate::actor::Actor;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// The preset this scenario started from; informative only.
    pub preset: String,
    pub seed: u64,
    /// Number of workers racing for the lock (2–5; a fleet's up to 64).
    pub workers: u8,
    pub lock_service: LockService,
    /// Redis services: how a worker gets its fencing token.
    pub token_source: TokenSource,
    /// Single Redis: whether a restarted node still has its keys and counter.
    pub redis_persistence: RedisPersistence,
    pub store: StoreKind,
    /// Whether workers send their token and the store checks it.
    pub fencing: bool,
    /// Lease length the worker asks for.
    pub ttl_ms: u64,
    /// The token the lock service hands out first (33 in the classic story).
    pub first_token: u64,
    /// Worker `i` starts trying at `i × start_gap_ms` (A at 0).
    pub start_gap_ms: u64,
    /// Time a holder spends working before each write.
    pub work_ms: u64,
    /// Writes a holder makes before it releases (all with the same token).
    pub writes_per_hold: u8,
    /// Watchdog renewal every ttl/3 while the worker holds the lock.
    pub renewal: bool,
    /// Ask the lock service "is it still mine?" right before each write.
    pub check_before_write: bool,
    pub release: Release,
    /// One-way network latency, drawn uniformly for each message.
    pub latency_us_min: u64,
    pub latency_us_max: u64,
    /// Jittered exponential backoff after a failed acquire.
    pub backoff_ms_min: u64,
    pub backoff_ms_max: u64,
    pub acquire_attempts_max: u32,
    /// How many times a job runner retries a lock worker's job whose result
    /// did not land (0 to `JOB_RETRIES_MAX`, the model's default):
    /// a reality check whose real workers run each job once sets 0. Left out
    /// of the JSON at its default, so every run without it keeps its
    /// fingerprint.
    #[serde(skip_serializing_if = "is_job_retries_default")]
    pub job_retries_max: u8,
    /// A request with no reply after this long counts as failed.
    pub request_timeout_ms: u64,
    /// Redis failover: how long the primary takes to pass a change to its
    /// replica.
    pub replication_lag_ms: u64,
    /// How long the service is leaderless after its leader dies or drops
    /// out of reach: the consensus election timeout (etcd's default is 1 s),
    /// or Sentinel's `down-after-milliseconds` plus its failover. Sentinel's
    /// real default `down-after` is 30 s; the model's 2 s is a fast failover
    /// configured so that the stories' failovers happen inside one lease.
    pub failover_ms: u64,
    /// At most `FAULTS_MAX`; JSON with more is refused as soon as it says so.
    #[serde(deserialize_with = "validate::faults_at_most_max")]
    pub faults: Vec<Fault>,
    /// The bound on a run: it stops (and says so) after this many events.
    pub events_max: u32,
    /// Jobs back to back with pauses from a distribution, instead of one
    /// job per worker; absent in every story.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<Fleet>,
}

fn is_job_retries_default(retries: &u8) -> bool {
    *retries == JOB_RETRIES_MAX
}

/// Everything wrong with a scenario, each in plain words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub problems: Vec<String>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the scenario is not valid: {}", self.problems.join("; "))
    }
}

impl std::error::Error for ScenarioError {}

/// Bounds that keep every run small enough to draw and fast to compute.
pub const TTL_MS_MAX: u64 = 3_600_000;
pub const TIME_MS_MAX: u64 = 3_600_000;
pub const LATENCY_US_MAX: u64 = 10_000_000;
pub const FAULTS_MAX: usize = 32;
pub const EVENTS_MAX: u32 = 200_000;
pub const WRITES_PER_HOLD_MAX: u8 = 10;
pub const ACQUIRE_ATTEMPTS_MAX: u32 = 1_000;
/// How many times, at most and by default, a lock worker's job is retried
/// after its result did not land (its fenced write refused, or its lock
/// lost before the work was done), as a job runner retries a failed task
/// (`Scenario::job_retries_max` sets fewer). An assumption of the
/// model: Celery's default `Task.max_retries` is 3
/// (<https://docs.celeryq.dev/en/stable/userguide/tasks.html#Task.max_retries>:
/// "The maximum number of attempted retries before giving up ... default
/// is 3"); the retry starts at once, and waits only for the lock.
pub const JOB_RETRIES_MAX: u8 = 3;
/// Far below `u64::MAX`: a run adds at most one token per event.
pub const FIRST_TOKEN_MAX: u64 = 1 << 50;
pub const DRIFT_PPM_MAX: i32 = 500_000;

/// Kleppmann's example, the page's first run and every preset's base: TTL
/// 10 s, A frozen 15 s just before its write, tokens 33 and 34, B retrying
/// with backoff until the lease runs out.
impl Default for Scenario {
    fn default() -> Scenario {
        Scenario {
            preset: "gc-pause".to_string(),
            seed: 1,
            workers: 2,
            lock_service: LockService::SingleRedis,
            token_source: TokenSource::SeparateIncr,
            redis_persistence: RedisPersistence::None,
            store: StoreKind::Database,
            fencing: false,
            ttl_ms: 10_000,
            first_token: 33,
            start_gap_ms: 5_000,
            work_ms: 0,
            writes_per_hold: 1,
            renewal: false,
            check_before_write: false,
            release: Release::CompareAndDelete,
            // One way across a datacenter: 0.1–0.25 ms (design.md's figures).
            latency_us_min: 100,
            latency_us_max: 250,
            backoff_ms_min: 100,
            backoff_ms_max: 1_000,
            acquire_attempts_max: 100,
            job_retries_max: JOB_RETRIES_MAX,
            request_timeout_ms: 1_000,
            replication_lag_ms: 5,
            failover_ms: 2_000,
            faults: vec![Fault::Pause { worker: Actor::Worker(0), when: When::BeforeWrite(1), pause_ms: 15_000 }],
            events_max: 10_000,
            fleet: None,
        }
    }
}

impl Scenario {
    /// How the token is drawn: as the service's client fixes it, else as
    /// the scenario says.
    pub fn token_source_used(&self) -> TokenSource {
        self.lock_service.spec().options.token_source.unwrap_or(self.token_source)
    }

    /// The kinds of fault this scenario can take. Workers can always be
    /// paused, crashed, cut off or lose a packet; lock nodes can crash, and
    /// their clocks drift or jump — except that a consensus member times
    /// leases with a monotonic clock, which runs fast or slow but never jumps.
    pub fn allowed_faults(&self) -> Vec<FaultKind> {
        FaultKind::ALL.into_iter().filter(|kind| self.allows(*kind)).collect()
    }

    pub fn allows(&self, kind: FaultKind) -> bool {
        (kind.spec().applies)(self.lock_service.spec())
    }

    /// The pause a learner adds by click: the scenario's own pause length if
    /// it has one, else half again the lease (longer than the lease, so the
    /// story happens).
    pub fn pause_ms_default(&self) -> u64 {
        let own = self.faults.iter().find_map(|fault| match fault {
            Fault::Pause { pause_ms, .. } => Some(*pause_ms),
            _ => None,
        });
        own.unwrap_or_else(|| (self.ttl_ms.saturating_mul(3) / 2).min(TIME_MS_MAX))
    }

    /// The worker actors of this scenario, A first.
    pub fn worker_actors(&self) -> impl Iterator<Item = Actor> {
        (0..self.workers).map(Actor::Worker)
    }
}

#[cfg(test)]
mod tests;
