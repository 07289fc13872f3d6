//! What a scenario's lock service, token, persistence, store and release
//! are, and how the page names them.

use crate::services::{Family, Spec};
use serde::{Deserialize, Serialize};

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
    /// ZooKeeper: a session, an ephemeral sequential znode per contender,
    /// its sequence number as the token.
    #[serde(rename = "zookeeper")]
    ZooKeeper,
    /// Consul: a session with a TTL and a lock-delay, the key's `LockIndex`
    /// as the token.
    Consul,
    /// Redisson's fenced lock on one Redis: a watchdog renewing the lease
    /// every third of it, the token counted in the lock's own script.
    Redisson,
    /// No lock at all: the store's conditional write keeps writers apart.
    None,
}

/// What the page, links and the world know of a service, from its
/// description in `crate::services`.
impl LockService {
    pub const ALL: [LockService; 8] = [
        LockService::SingleRedis,
        LockService::RedisFailover,
        LockService::Redlock,
        LockService::Consensus,
        LockService::ZooKeeper,
        LockService::Consul,
        LockService::Redisson,
        LockService::None,
    ];

    pub fn spec(self) -> &'static Spec {
        crate::services::spec(self)
    }

    pub fn family(self) -> Family {
        self.spec().family
    }

    /// How many lock-service nodes the service runs on.
    pub fn nodes(self) -> u8 {
        self.spec().nodes
    }

    /// How the page's picker names it.
    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// Whether it hands out fencing tokens at all (Redlock's value is random).
    pub fn issues_tokens(self) -> bool {
        self.spec().tokens.is_ok()
    }

    /// Whether the token comes from a Redis counter.
    pub fn is_redis(self) -> bool {
        matches!(self.family(), Family::SingleRedis | Family::RedisFailover)
    }

    /// The nearest TTL a scenario with this service may ask for: Consul
    /// refuses TTLs outside its bounds; the others take any (and grant one
    /// within theirs).
    pub fn nearest_ttl_ms(self, ttl_ms: u64) -> u64 {
        match self.spec().session {
            Some(rules) if !rules.clamps => ttl_ms.clamp(rules.ttl_ms_min, rules.ttl_ms_max),
            _ => ttl_ms,
        }
    }

    /// Whether the scenario's token source chooses how the token is drawn
    /// (a Redis counter whose client does not fix it).
    pub fn token_source_applies(self) -> bool {
        self.is_redis() && self.spec().options.token_source.is_none()
    }

    /// Whether it is a replicated service with a leader and a majority.
    pub fn is_consensus(self) -> bool {
        self.family() == Family::Consensus
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

/// What a Redis node keeps across a restart, as `redis.conf` sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedisPersistence {
    /// Memory only (`save ""`, `appendonly no`): a restart forgets the lock
    /// and the token counter, which starts again from 0.
    #[default]
    None,
    /// RDB snapshots (a default Redis): a restart loads the last snapshot,
    /// so the lock and the counter roll back to it and tokens repeat.
    Rdb,
    /// Append-only file with `appendfsync everysec` (the AOF default): Redis
    /// writes each command to the file before it replies and fsyncs once a
    /// second. A node crash here is a process crash (the machine stays up,
    /// its kernel keeps what was written), so it loses nothing acknowledged,
    /// as a real Redis killed with SIGKILL shows; only a power loss would
    /// lose up to a second, which the model does not simulate.
    AofEverysec,
    /// Append-only file with `appendfsync always`: every write is on disk
    /// before it is acknowledged, so keys and counter survive.
    FsyncAlways,
}

/// How often the model's RDB snapshot is taken: the `save 60 10000` line of
/// the default `redis.conf` (a quieter instance snapshots only every 5 min
/// or hour, which loses more).
pub const RDB_PERIOD_MS: u64 = 60_000;

impl RedisPersistence {
    pub const ALL: [RedisPersistence; 4] =
        [RedisPersistence::None, RedisPersistence::Rdb, RedisPersistence::AofEverysec, RedisPersistence::FsyncAlways];

    pub fn label(self) -> &'static str {
        match self {
            RedisPersistence::None => "None (memory only)",
            RedisPersistence::Rdb => "RDB snapshot every 60 s",
            RedisPersistence::AofEverysec => "AOF, fsync every second (a process crash loses nothing)",
            RedisPersistence::FsyncAlways => "AOF, fsync always",
        }
    }

    /// Whether a restarted node has every write it acknowledged.
    pub fn keeps_every_write(self) -> bool {
        matches!(self, RedisPersistence::AofEverysec | RedisPersistence::FsyncAlways)
    }

    /// How often what the node has reaches its disk, for the mode that
    /// loses what came after (None: nothing does, or every write does).
    pub fn period_us(self) -> Option<u64> {
        match self {
            RedisPersistence::Rdb => Some(RDB_PERIOD_MS * 1000),
            RedisPersistence::None | RedisPersistence::AofEverysec | RedisPersistence::FsyncAlways => None,
        }
    }
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
