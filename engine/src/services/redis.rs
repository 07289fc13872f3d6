//! One Redis (`SET lock v NX PX ttl`, then `INCR fence` or one script), and a
//! primary with an asynchronous replica that Sentinel promotes.

use super::{family_labels, Family, Spec, PLAIN_WORDS, REDIS_OPTIONS};

pub const SINGLE: Spec = Spec {
    id: "single_redis",
    label: "Single Redis (SET NX PX)",
    lane: "redis",
    nodes: 1,
    family: Family::SingleRedis,
    tokens: Ok(()),
    session: None,
    options: REDIS_OPTIONS,
    words: PLAIN_WORDS,
    wire_label: family_labels,
};

pub const FAILOVER: Spec = Spec {
    id: "redis_failover",
    label: "Redis primary + replica (failover)",
    lane: "redis (failover)",
    nodes: 2,
    family: Family::RedisFailover,
    ..SINGLE
};
