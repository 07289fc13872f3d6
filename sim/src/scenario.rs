//! A `Scenario` is everything a run depends on besides nothing: the same
//! scenario (seed included) always produces the same trace. It is what the
//! presets define, what the command line and the page's controls override, and
//! what the URL and the JSON export carry.

use crate::actor::{Actor, WORKERS_MAX};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// The preset this scenario started from; informative only.
    pub preset: String,
    pub seed: u64,
    /// Number of workers racing for the lock (2–5).
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
    /// A request with no reply after this long counts as failed.
    pub request_timeout_ms: u64,
    /// Redis failover: how long the primary takes to pass a change to its
    /// replica.
    pub replication_lag_ms: u64,
    /// How long the service is leaderless after its leader dies: Sentinel's
    /// promotion of the Redis replica, or the consensus election timeout.
    pub failover_ms: u64,
    /// At most `FAULTS_MAX`; JSON with more is refused as soon as it says so.
    #[serde(deserialize_with = "faults_at_most_max")]
    pub faults: Vec<Fault>,
    /// The bound on a run: it stops (and says so) after this many events.
    pub events_max: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LockService {
    /// One Redis: `SET lock v NX PX ttl`, then `INCR fence` for the token.
    SingleRedis,
    /// A Redis primary with an asynchronously replicated replica that a
    /// failover promotes: the lock and the token counter can be lost.
    RedisFailover,
    /// Redlock over five independent masters, quorum three; the lock value is
    /// random, so there is no token to fence with.
    Redlock,
    /// An etcd-like consensus lock: a lease kept alive by the session, a key
    /// per contender, the key's create revision as the token.
    Consensus,
    /// No lock at all: the store's conditional write keeps writers apart.
    None,
}

impl LockService {
    /// How many lock-service nodes the service runs on.
    pub fn nodes(self) -> u8 {
        match self {
            LockService::SingleRedis => 1,
            LockService::RedisFailover => 2,
            LockService::Consensus => CONSENSUS_MEMBERS,
            LockService::Redlock => REDLOCK_NODES,
            LockService::None => 0,
        }
    }

    pub const ALL: [LockService; 5] =
        [LockService::SingleRedis, LockService::RedisFailover, LockService::Redlock, LockService::Consensus, LockService::None];

    /// How the page's picker names it.
    pub fn label(self) -> &'static str {
        match self {
            LockService::SingleRedis => "Single Redis (SET NX PX)",
            LockService::RedisFailover => "Redis primary + replica (failover)",
            LockService::Redlock => "Redlock (5 masters, quorum 3)",
            LockService::Consensus => "Consensus lock (etcd-like, 3 members)",
            LockService::None => "No lock (conditional writes)",
        }
    }

    /// Whether it hands out fencing tokens at all (Redlock's value is random).
    pub fn issues_tokens(self) -> bool {
        matches!(self, LockService::SingleRedis | LockService::RedisFailover | LockService::Consensus)
    }

    /// Whether the token comes from a Redis counter (the two token sources
    /// apply only there).
    pub fn is_redis(self) -> bool {
        matches!(self, LockService::SingleRedis | LockService::RedisFailover)
    }
}

pub const REDLOCK_NODES: u8 = 5;
pub const REDLOCK_QUORUM: u8 = 3;
/// The consensus lock runs on three members; two make a majority.
pub const CONSENSUS_MEMBERS: u8 = 3;
pub const CONSENSUS_QUORUM: u8 = 2;

/// Where a Redis lock's fencing token comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenSource {
    /// `SET NX PX`, then `INCR` in a second round trip: a holder frozen
    /// between the two can draw a newer token than its successor.
    #[default]
    SeparateIncr,
    /// One Lua script sets the lock and counts the token atomically.
    AtomicScript,
}

impl TokenSource {
    pub const ALL: [TokenSource; 2] = [TokenSource::SeparateIncr, TokenSource::AtomicScript];

    pub fn label(self) -> &'static str {
        match self {
            TokenSource::SeparateIncr => "SET NX, then INCR (two round trips)",
            TokenSource::AtomicScript => "One Lua script: SET NX + INCR",
        }
    }
}

/// What a Redis node keeps across a restart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedisPersistence {
    /// Memory only: a restart forgets the lock and the token counter.
    #[default]
    None,
    /// Append-only file with `appendfsync always`: every write is on disk
    /// before it is acknowledged, so keys and counter survive.
    FsyncAlways,
}

impl RedisPersistence {
    pub const ALL: [RedisPersistence; 2] = [RedisPersistence::None, RedisPersistence::FsyncAlways];

    pub fn label(self) -> &'static str {
        match self {
            RedisPersistence::None => "None (memory only)",
            RedisPersistence::FsyncAlways => "AOF, fsync always",
        }
    }
}

/// The kinds of fault, for the page's fault menu and the explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    Pause,
    DelayWrite,
    LoseMessage,
    Partition,
    Crash,
    ClockDrift,
    ClockJump,
    NodeCrash,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreKind {
    /// A database or object store that can compare a token (or not, when
    /// fencing is off).
    Database,
    /// Optimistic concurrency: a write names the version it read and fails
    /// if the data has moved on. Needs no lock.
    Versioned,
    /// A plain file on NFS: it cannot check anything, so fencing is unavailable.
    NfsFile,
}

impl StoreKind {
    pub const ALL: [StoreKind; 3] = [StoreKind::Database, StoreKind::Versioned, StoreKind::NfsFile];

    pub fn label(self) -> &'static str {
        match self {
            StoreKind::Database => "Database (can check a token)",
            StoreKind::Versioned => "Versioned (write if version unchanged)",
            StoreKind::NfsFile => "Plain file on NFS (cannot check)",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Release {
    /// The Lua script: delete the key only if it still holds my value.
    CompareAndDelete,
    /// A plain `DEL`: deletes whatever lock is there, a successor's included.
    NaiveDel,
}

impl Release {
    pub const ALL: [Release; 2] = [Release::CompareAndDelete, Release::NaiveDel];

    pub fn label(self) -> &'static str {
        match self {
            Release::CompareAndDelete => "Compare-and-delete (Lua script)",
            Release::NaiveDel => "Naive DEL",
        }
    }
}

/// When a scheduled fault strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// At this virtual time.
    AtMs(u64),
    /// Just before the worker sends its n-th write (1 = first), after any
    /// lease check: the classic GC pause.
    BeforeWrite(u8),
    /// Just before the worker sends its n-th message of the run (1 =
    /// first), whatever it is: a pause at any step of its protocol, e.g.
    /// between `SET NX`'s answer and the `INCR` (its second message).
    BeforeSend(u16),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// Stop-the-world pause: the worker does nothing, timers included.
    Pause { worker: Actor, when: When, pause_ms: u64 },
    /// The worker's n-th write packet is held in the network this long.
    DelayWrite { worker: Actor, write: u8, delay_ms: u64 },
    /// The first message the actor sends at or after `at_ms` is lost.
    LoseMessage { from: Actor, at_ms: u64 },
    /// Nothing reaches or leaves the actor for a while.
    Partition { node: Actor, at_ms: u64, for_ms: u64 },
    /// The worker stops for good and never releases.
    Crash { worker: Actor, at_ms: u64 },
    /// A lock node's clock runs fast (positive) or slow (negative).
    ClockDrift { node: Actor, ppm: i32 },
    /// A lock node's clock jumps (an NTP step or an operator's fix).
    ClockJump { node: Actor, at_ms: u64, jump_ms: i64 },
    /// A lock node crashes and comes back `down_ms` later with an empty
    /// memory; a Redis primary with a replica fails over meanwhile.
    NodeCrash { node: Actor, at_ms: u64, down_ms: u64 },
}

impl Fault {
    pub fn kind(&self) -> FaultKind {
        match self {
            Fault::Pause { .. } => FaultKind::Pause,
            Fault::DelayWrite { .. } => FaultKind::DelayWrite,
            Fault::LoseMessage { .. } => FaultKind::LoseMessage,
            Fault::Partition { .. } => FaultKind::Partition,
            Fault::Crash { .. } => FaultKind::Crash,
            Fault::ClockDrift { .. } => FaultKind::ClockDrift,
            Fault::ClockJump { .. } => FaultKind::ClockJump,
            Fault::NodeCrash { .. } => FaultKind::NodeCrash,
        }
    }

    /// The worker or node the fault strikes.
    pub fn target(&self) -> Actor {
        match self {
            Fault::Pause { worker, .. } | Fault::DelayWrite { worker, .. } | Fault::Crash { worker, .. } => *worker,
            Fault::LoseMessage { from, .. } => *from,
            Fault::Partition { node, .. }
            | Fault::ClockDrift { node, .. }
            | Fault::ClockJump { node, .. }
            | Fault::NodeCrash { node, .. } => *node,
        }
    }

    /// When it strikes (0 for faults tied to a write or present from the start).
    pub fn at_ms(&self) -> u64 {
        match *self {
            Fault::Pause { when: When::AtMs(at_ms), .. }
            | Fault::LoseMessage { at_ms, .. }
            | Fault::Partition { at_ms, .. }
            | Fault::Crash { at_ms, .. }
            | Fault::ClockJump { at_ms, .. }
            | Fault::NodeCrash { at_ms, .. } => at_ms,
            Fault::Pause { .. } | Fault::DelayWrite { .. } | Fault::ClockDrift { .. } => 0,
        }
    }

    /// The fault in a few words, for people.
    pub fn describe(&self) -> String {
        match self {
            Fault::Pause { worker, when: When::AtMs(at_ms), pause_ms } => format!("{worker} pauses {pause_ms} ms at {at_ms} ms"),
            Fault::Pause { worker, when: When::BeforeWrite(n), pause_ms } => format!("{worker} pauses {pause_ms} ms before write {n}"),
            Fault::Pause { worker, when: When::BeforeSend(n), pause_ms } => format!("{worker} pauses {pause_ms} ms before its message {n}"),
            Fault::DelayWrite { worker, write, delay_ms } => format!("{worker}'s write {write} is held {delay_ms} ms"),
            Fault::LoseMessage { from, at_ms } => format!("{from}'s next message after {at_ms} ms is lost"),
            Fault::Partition { node, at_ms, for_ms } => format!("{node} is cut off from {at_ms} ms for {for_ms} ms"),
            Fault::Crash { worker, at_ms } => format!("{worker} crashes at {at_ms} ms"),
            Fault::ClockDrift { node, ppm } => format!("{node}'s clock drifts {ppm:+} ppm"),
            Fault::ClockJump { node, at_ms, jump_ms } => format!("{node}'s clock jumps {jump_ms:+} ms at {at_ms} ms"),
            Fault::NodeCrash { node, at_ms, down_ms } => format!("{node} crashes at {at_ms} ms for {down_ms} ms"),
        }
    }

    /// How long it lasts, where that applies.
    fn length_ms(&self) -> u64 {
        match *self {
            Fault::Pause { pause_ms, .. } => pause_ms,
            Fault::DelayWrite { delay_ms, .. } => delay_ms,
            Fault::Partition { for_ms, .. } => for_ms,
            Fault::NodeCrash { down_ms, .. } => down_ms,
            Fault::ClockJump { jump_ms, .. } => jump_ms.unsigned_abs(),
            Fault::LoseMessage { .. } | Fault::Crash { .. } | Fault::ClockDrift { .. } => 0,
        }
    }
}

impl FaultKind {
    pub const ALL: [FaultKind; 8] = [
        FaultKind::Pause,
        FaultKind::DelayWrite,
        FaultKind::LoseMessage,
        FaultKind::Partition,
        FaultKind::Crash,
        FaultKind::ClockDrift,
        FaultKind::ClockJump,
        FaultKind::NodeCrash,
    ];

    pub fn label(self) -> &'static str {
        match self {
            FaultKind::Pause => "a stop-the-world pause",
            FaultKind::DelayWrite => "a held write packet",
            FaultKind::LoseMessage => "a lost message",
            FaultKind::Partition => "a partition",
            FaultKind::Crash => "a worker crash",
            FaultKind::ClockDrift => "clock drift",
            FaultKind::ClockJump => "a clock jump",
            FaultKind::NodeCrash => "a lock-node crash",
        }
    }

    fn why_not(self) -> &'static str {
        match self {
            FaultKind::ClockJump => "the consensus lock times leases with a monotonic clock, which never jumps",
            _ => "there is no lock node to strike",
        }
    }
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
pub const DRIFT_PPM_MAX: i32 = 500_000;

/// Reads a JSON list of faults, refusing it at its `FAULTS_MAX + 1`-th
/// element: a pasted list of a million faults is turned away in microseconds
/// instead of being read whole (seconds, and memory) only for `validate` to
/// refuse it.
fn faults_at_most_max<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Fault>, D::Error> {
    struct Faults;
    impl<'de> serde::de::Visitor<'de> for Faults {
        type Value = Vec<Fault>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a list of at most {FAULTS_MAX} faults")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Fault>, A::Error> {
            let mut faults = Vec::new();
            while let Some(fault) = seq.next_element()? {
                if faults.len() == FAULTS_MAX {
                    let problem = format!("at most {FAULTS_MAX} faults, not more");
                    return Err(serde::de::Error::custom(problem));
                }
                faults.push(fault);
            }
            Ok(faults)
        }
    }
    deserializer.deserialize_seq(Faults)
}

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
            request_timeout_ms: 1_000,
            replication_lag_ms: 5,
            failover_ms: 2_000,
            faults: vec![Fault::Pause { worker: Actor::Worker(0), when: When::BeforeWrite(1), pause_ms: 15_000 }],
            events_max: 10_000,
        }
    }
}

impl Scenario {
    /// Checks every field; lists all problems at once rather than the first.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let mut problems = Vec::new();
        // The sentence is built only for a problem: a valid scenario (every
        // run of a sweep) allocates nothing here.
        let mut check = |ok: bool, problem: &dyn Fn() -> String| {
            if !ok {
                problems.push(problem())
            }
        };
        check((2..=WORKERS_MAX).contains(&self.workers), &|| format!("workers must be 2–{WORKERS_MAX}, not {}", self.workers));
        check((1..=TTL_MS_MAX).contains(&self.ttl_ms), &|| format!("ttl_ms must be 1–{TTL_MS_MAX}, not {}", self.ttl_ms));
        check(self.first_token >= 1 && self.first_token <= 1 << 50, &|| format!("first_token must be 1–2^50, not {}", self.first_token));
        check(self.start_gap_ms <= TIME_MS_MAX, &|| format!("start_gap_ms must be at most {TIME_MS_MAX}"));
        check(self.work_ms <= TIME_MS_MAX, &|| format!("work_ms must be at most {TIME_MS_MAX}"));
        check((1..=WRITES_PER_HOLD_MAX).contains(&self.writes_per_hold), &|| {
            format!("writes_per_hold must be 1–{WRITES_PER_HOLD_MAX}, not {}", self.writes_per_hold)
        });
        check(self.latency_us_min <= self.latency_us_max && self.latency_us_max <= LATENCY_US_MAX, &|| {
            format!(
                "latency must satisfy latency_us_min ≤ latency_us_max ≤ {LATENCY_US_MAX} (got {}–{})",
                self.latency_us_min, self.latency_us_max
            )
        });
        check(self.backoff_ms_min >= 1 && self.backoff_ms_min <= self.backoff_ms_max && self.backoff_ms_max <= TIME_MS_MAX, &|| {
            format!("backoff must satisfy 1 ≤ backoff_ms_min ≤ backoff_ms_max ≤ {TIME_MS_MAX}")
        });
        check((1..=ACQUIRE_ATTEMPTS_MAX).contains(&self.acquire_attempts_max), &|| {
            format!("acquire_attempts_max must be 1–{ACQUIRE_ATTEMPTS_MAX}")
        });
        check((1..=EVENTS_MAX).contains(&self.events_max), &|| format!("events_max must be 1–{EVENTS_MAX}"));
        check((1..=TIME_MS_MAX).contains(&self.request_timeout_ms), &|| format!("request_timeout_ms must be 1–{TIME_MS_MAX}"));
        check(self.replication_lag_ms <= TIME_MS_MAX, &|| format!("replication_lag_ms must be at most {TIME_MS_MAX}"));
        check(self.failover_ms <= TIME_MS_MAX, &|| format!("failover_ms must be at most {TIME_MS_MAX}"));
        check((self.lock_service == LockService::None) == (self.store == StoreKind::Versioned), &|| {
            "without a lock, only a versioned store (conditional writes) keeps writers apart; and a versioned store needs no lock: choose both or neither".to_string()
        });
        check(!(self.release == Release::NaiveDel && matches!(self.lock_service, LockService::Consensus | LockService::None)), &|| {
            "a naive DEL applies to Redis locks only: a consensus lock deletes the worker's own key".to_string()
        });
        check(!(self.renewal && self.lock_service == LockService::Redlock), &|| {
            "Redlock has no renewal in this model: turn renewal off".to_string()
        });
        check(self.faults.len() <= FAULTS_MAX, &|| format!("at most {FAULTS_MAX} faults, not {}", self.faults.len()));
        for (index, fault) in self.faults.iter().enumerate().take(FAULTS_MAX) {
            if let Err(problem) = self.validate_fault(fault) {
                problems.push(format!("fault {}: {problem}", index + 1));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ScenarioError { problems })
        }
    }

    fn validate_fault(&self, fault: &Fault) -> Result<(), String> {
        let target = fault.target();
        let nodes = self.lock_service.nodes();
        let worker_fault = matches!(fault, Fault::Pause { .. } | Fault::DelayWrite { .. } | Fault::Crash { .. });
        let node_fault = matches!(fault, Fault::ClockDrift { .. } | Fault::ClockJump { .. } | Fault::NodeCrash { .. });
        match target {
            Actor::Worker(index) if index < self.workers && !node_fault => {}
            Actor::LockNode(index) if index < nodes && !worker_fault => {}
            Actor::Store if matches!(fault, Fault::Partition { .. } | Fault::LoseMessage { .. }) => {}
            Actor::Worker(index) if index >= self.workers => {
                return Err(format!("there is no {target} in a scenario with {} workers", self.workers))
            }
            Actor::LockNode(index) if index >= nodes => return Err(format!("there is no {target}: this lock service has {nodes} node(s)")),
            _ => return Err(format!("this fault cannot strike {target}")),
        }
        if let Fault::Pause { when: When::BeforeWrite(n), .. } | Fault::DelayWrite { write: n, .. } = fault {
            if !(1..=self.writes_per_hold).contains(n) {
                return Err(format!("write {n} does not exist: each holder makes {} write(s)", self.writes_per_hold));
            }
        }
        if let Fault::Pause { when: When::BeforeSend(0), .. } = fault {
            return Err("messages count from 1".to_string());
        }
        if let Fault::ClockDrift { ppm, .. } = fault {
            if ppm.unsigned_abs() > DRIFT_PPM_MAX.unsigned_abs() {
                return Err(format!("clock drift must be within ±{DRIFT_PPM_MAX} ppm"));
            }
        }
        if !self.allows(fault.kind()) {
            return Err(format!("{} does not apply to this lock service: {}", fault.kind().label(), fault.kind().why_not()));
        }
        if fault.at_ms() > TIME_MS_MAX || fault.length_ms() > TIME_MS_MAX {
            return Err(format!("times and lengths must be at most {TIME_MS_MAX} ms"));
        }
        Ok(())
    }

    /// The kinds of fault this scenario can take. Workers can always be
    /// paused, crashed, cut off or lose a packet; lock nodes can crash, and
    /// their clocks drift or jump — except that a consensus member times
    /// leases with a monotonic clock, which runs fast or slow but never jumps.
    pub fn allowed_faults(&self) -> Vec<FaultKind> {
        FaultKind::ALL.into_iter().filter(|kind| self.allows(*kind)).collect()
    }

    fn allows(&self, kind: FaultKind) -> bool {
        match kind {
            FaultKind::Pause | FaultKind::DelayWrite | FaultKind::LoseMessage | FaultKind::Partition | FaultKind::Crash => true,
            FaultKind::NodeCrash | FaultKind::ClockDrift => self.lock_service.nodes() > 0,
            FaultKind::ClockJump => self.lock_service.nodes() > 0 && self.lock_service != LockService::Consensus,
        }
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
mod tests {
    use super::*;

    #[test]
    fn the_default_is_valid() {
        assert_eq!(Scenario::default().validate(), Ok(()));
    }

    #[test]
    fn every_problem_is_listed() {
        let scenario =
            Scenario { workers: 50, ttl_ms: 0, faults: vec![Fault::Crash { worker: Actor::Worker(4), at_ms: 10 }], ..Scenario::default() };
        let problems = scenario.validate().unwrap_err().problems;
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("workers must be 2–5, not 50"));
        assert!(problems[1].contains("ttl_ms must be 1–"));
        let scenario = Scenario { faults: vec![Fault::Crash { worker: Actor::Worker(4), at_ms: 10 }], ..Scenario::default() };
        let problems = scenario.validate().unwrap_err().problems;
        assert_eq!(problems, vec!["fault 1: there is no E in a scenario with 2 workers".to_string()]);
    }

    #[test]
    fn a_write_that_does_not_exist_is_refused() {
        let pause = Fault::Pause { worker: Actor::Worker(0), when: When::BeforeWrite(3), pause_ms: 1 };
        let scenario = Scenario { faults: vec![pause], ..Scenario::default() };
        assert!(scenario.validate().unwrap_err().problems[0].contains("write 3 does not exist"));
    }

    #[test]
    fn json_round_trips_and_unknown_fields_are_refused() {
        let scenario = Scenario::default();
        let json = serde_json::to_string(&scenario).unwrap();
        assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), scenario);
        let error = serde_json::from_str::<Scenario>(r#"{"ttl_msec": 5}"#).unwrap_err().to_string();
        assert!(error.contains("unknown field `ttl_msec`"), "{error}");
        let partial: Scenario = serde_json::from_str(r#"{"ttl_ms": 5}"#).unwrap();
        assert_eq!(partial.ttl_ms, 5);
    }

    #[test]
    fn json_with_too_many_faults_is_refused_at_the_first_extra_one() {
        let crash = r#"{"fault": "crash", "worker": "B", "at_ms": 1}"#;
        let faults = |count: usize| format!(r#"{{"faults": [{}]}}"#, vec![crash; count].join(","));
        assert_eq!(serde_json::from_str::<Scenario>(&faults(FAULTS_MAX)).unwrap().faults.len(), FAULTS_MAX);
        let error = serde_json::from_str::<Scenario>(&faults(FAULTS_MAX + 1)).unwrap_err().to_string();
        assert!(error.starts_with("at most 32 faults, not more at line 1"), "{error}");
    }
}
