//! The lock services by name, as scenarios, links and the page pick them,
//! and the node counts and token sources their descriptions use. Each
//! name's description is in `spec`: this file only names them.

use super::{Family, Spec};
use crate::msg::Msg;
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
        super::spec(self)
    }

    pub fn family(self) -> Family {
        self.spec().family
    }

    /// How long after its leader (or primary) dies or is cut off the
    /// service has a new one, in ms: a consensus service's own timers
    /// (`SessionRules::leader_loss`); for Redis failover the scenario's
    /// `failover_ms` (Sentinel's `down-after` plus its failover).
    pub fn leader_loss_ms(self, failover_ms: u64) -> u64 {
        self.spec().session.map_or(failover_ms, |rules| rules.leader_loss.ms(failover_ms))
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
        self.family().client().redis_counter
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

    /// A fencing token as every sentence about a run names it: ZooKeeper's
    /// `czxid` in hex, as its diagram labels do and as ZooKeeper prints a
    /// zxid (`zkCli.sh stat`: `cZxid = 0x100000002`; the epoch in the high
    /// 32 bits, the counter in the low), every other service's in decimal.
    pub fn token_words(self, token: u64) -> String {
        if self.spec().session.is_some_and(|rules| rules.czxid_token) {
            format!("{token:#x}")
        } else {
            token.to_string()
        }
    }

    /// A refusal as the sentences say it, its tokens by `token_words`.
    pub fn refusal_words(self, refusal: crate::msg::Refusal) -> String {
        match refusal {
            crate::msg::Refusal::StaleToken { token, highest } => {
                format!("token {} < {} already accepted", self.token_words(token), self.token_words(highest))
            }
            other => other.to_string(),
        }
    }

    /// A message's label in the words of this service's own protocol
    /// (ZooKeeper's znodes and pings), else the family's (`Msg::label`).
    pub fn label_of(self, msg: &Msg) -> String {
        (self.spec().wire_label)(msg).unwrap_or_else(|| msg.label())
    }

    /// Whether it is a replicated service with a leader and a majority.
    pub fn is_consensus(self) -> bool {
        self.family().client().consensus
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
