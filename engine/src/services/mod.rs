//! Each lock service described once: its name on the page and in links, its
//! nodes, the family of protocol it speaks (what the world and the workers
//! drive), whether it issues tokens, and the words its story is told in.
//! The world (`world/family/`) and the workers (`Family::client`, in
//! `family.rs`) go by the family, never by the service; a
//! service of an existing family is a file here and one registration line in
//! `spec` (ZooKeeper, Consul and Redisson are: `zookeeper.rs`, `consul.rs`,
//! `redisson.rs`).

mod consul;
mod etcd;
mod family;
mod id;
mod none;
mod redis;
mod redisson;
pub use redisson::WATCHDOG_TIMEOUT_MS;
// For the worker: a blocked Consul client asks again after this (worker/acquire.rs).
pub use consul::LOCK_WAIT_MS;
mod redlock;
mod zookeeper;

use crate::msg::Msg;
pub use family::{Check, Client, Family};
pub use id::{LockService, TokenSource, CONSENSUS_MEMBERS, CONSENSUS_QUORUM, REDLOCK_NODES, REDLOCK_QUORUM};

/// A consensus service's session rules: how it bounds and times sessions,
/// and what a new leader does with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionRules {
    /// The shortest and longest session the service grants; it grants the
    /// nearest bound instead of a request outside them.
    pub ttl_ms_min: u64,
    pub ttl_ms_max: u64,
    /// Sessions are expired at ticks of this length.
    pub tick_us: u64,
    /// ZooKeeper files a session under the tick strictly after its expiry
    /// (`ExpiryQueue.roundToNextInterval`); etcd revokes at the first tick
    /// at or after it.
    pub tick_strictly_after: bool,
    /// A new leader gives every session this much on top of a full TTL:
    /// etcd adds its election timeout (`failover_ms`), ZooKeeper nothing.
    pub election_extends: bool,
    /// Whether a delete moves the token counter too: etcd's revision counts
    /// every change; ZooKeeper's sequence number only the creates.
    pub deletes_count: bool,
    /// Whether a TTL outside the bounds is raised or cut to them (etcd,
    /// ZooKeeper); otherwise the service refuses it and so does a scenario.
    pub clamps: bool,
    /// Consul's lock-delay: after a holder's session is invalidated, nobody
    /// may take the lock for this long (0: none).
    pub lock_delay_ms: u64,
    /// The server invalidates a session this many TTLs after its last
    /// renewal (or its creation, or a new leader's start): 1 for etcd and
    /// ZooKeeper, Consul's `SessionTTLMultiplier` (2) for Consul.
    pub ttl_multiplier: u64,
    /// The client renews its session every TTL / this: etcd's client and
    /// ZooKeeper's ping every third, Consul's `renewSession` every half.
    pub renewals_per_ttl: u64,
    /// 0: a contender's key waits in line and the service tells it its turn
    /// (etcd, ZooKeeper). Otherwise the service keeps no line (Consul): a
    /// refused acquire is just `false`; the client blocks on the key while
    /// another session holds it, and when the key is free but the acquire
    /// is still refused (a lock-delay), retries after this long.
    pub refused_retry_ms: u64,
    /// ZooKeeper: the lock's parent is a container znode (Curator creates it
    /// with `creatingParentContainersIfNeeded`), which the server deletes
    /// once it is empty at a container check, every this long
    /// (`znode.container.checkIntervalMs`); 0: a persistent parent.
    pub container_check_ms: u64,
    /// ZooKeeper: the token is the znode's `czxid` (the zxid of the create,
    /// epoch in its high 32 bits), not its sequence number.
    pub czxid_token: bool,
    /// How long the members take to notice that their leader died or was
    /// cut off, and so when a new one is elected and a cut-off leader
    /// steps down: each service by its own timers.
    pub leader_loss: LeaderLoss,
}

/// When a consensus service has noticed the loss of its leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaderLoss {
    /// The scenario's `failover_ms`, taken as the election timeout (etcd's
    /// `--election-timeout`, 1 s by default; the model's default is 2 s).
    ElectionTimeout,
    /// Fixed by the service's default timers: after `ms`, which `how`
    /// says how the service reaches ("syncLimit × tickTime = 5 × 2 s").
    Timers { ms: u64, how: &'static str },
}

impl LeaderLoss {
    /// The time from the leader's crash or cut to the new leader, in ms.
    pub fn ms(self, failover_ms: u64) -> u64 {
        match self {
            LeaderLoss::ElectionTimeout => failover_ms,
            LeaderLoss::Timers { ms, .. } => ms,
        }
    }

    /// The same time in words, for a sentence: "10 s (syncLimit × tickTime
    /// = 5 × 2 s)"; "2 s (the election timeout)".
    pub fn words(self, failover_ms: u64) -> String {
        let length = crate::format_us(self.ms(failover_ms).saturating_mul(1000));
        match self {
            LeaderLoss::ElectionTimeout => format!("{length} (the election timeout)"),
            LeaderLoss::Timers { how, .. } => format!("{length} ({how})"),
        }
    }
}

/// The words a story about this service uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Words {
    /// What a contender creates: "key", "znode".
    pub key: &'static str,
    /// What keeps it alive: "lease", "session".
    pub lease: &'static str,
    /// What its token is called: "revision", "sequence number".
    pub number: &'static str,
    /// What a delete moves, said before the number it moved to.
    pub counter: &'static str,
    /// What revokes an expired session: "the 500 ms tick".
    pub revoker: &'static str,
    /// What the revocation does to the lock: "deleted its key".
    pub dropped: &'static str,
}

/// Whether a worker renews its lease, per service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renewal {
    /// The scenario's `renewal` switch chooses (a Redis watchdog).
    Optional,
    /// Always, from the session's start: the session's keep-alive is what
    /// holds the lock.
    Always,
    /// Always, from the grant on: a client library's watchdog (Redisson's).
    Watchdog,
    /// No renewal in this model (Redlock, no lock).
    Never,
}

/// Which of the scenario's options and faults apply to a service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The token source and Redis persistence (a Redis counter).
    pub redis: bool,
    pub renewal: Renewal,
    /// A plain `DEL` release (a consensus service deletes its own key).
    pub naive_del: bool,
    /// Whether a node's clock can jump: a consensus member times sessions
    /// with a monotonic clock, which drifts but never jumps.
    pub clock_jumps: bool,
    /// A Redis lock whose client fixes how the token is drawn (Redisson's
    /// one script); None: the scenario's token source chooses.
    pub token_source: Option<TokenSource>,
}

/// Everything the rest of the crate and the page know of a service.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// Its name in links and scenario files.
    pub id: &'static str,
    /// How the page's picker names it.
    pub label: &'static str,
    /// The diagram's title over its nodes' lanes.
    pub lane: &'static str,
    pub nodes: u8,
    pub family: Family,
    /// Whether it hands out fencing tokens at all: `Ok` if it does, else
    /// what it has instead, as the run's "fencing unavailable" says.
    pub tokens: Result<(), &'static str>,
    /// Consensus services only.
    pub session: Option<SessionRules>,
    pub options: Options,
    pub words: Words,
    /// The service's own label for a message it speaks, where its wire
    /// protocol names it differently from the family's (`Msg::label`).
    pub wire_label: fn(&Msg) -> Option<String>,
}

/// The registry: one line per service.
pub const fn spec(service: LockService) -> &'static Spec {
    match service {
        LockService::SingleRedis => &redis::SINGLE,
        LockService::RedisFailover => &redis::FAILOVER,
        LockService::Redlock => &redlock::SPEC,
        LockService::Consensus => &etcd::SPEC,
        LockService::ZooKeeper => &zookeeper::SPEC,
        LockService::Consul => &consul::SPEC,
        LockService::Redisson => &redisson::SPEC,
        LockService::None => &none::SPEC,
    }
}

/// A Redis lock's options.
const REDIS_OPTIONS: Options = Options { redis: true, renewal: Renewal::Optional, naive_del: true, clock_jumps: true, token_source: None };
/// A consensus service's options.
const SESSION_OPTIONS: Options =
    Options { redis: false, renewal: Renewal::Always, naive_del: false, clock_jumps: false, token_source: None };

/// The words of a service with no keys of its own.
const PLAIN_WORDS: Words =
    Words { key: "key", lease: "lease", number: "token", counter: "token", revoker: "the expiry", dropped: "deleted its key" };

/// A service that speaks its family's messages as `Msg::label` names them.
fn family_labels(_: &Msg) -> Option<String> {
    None
}
