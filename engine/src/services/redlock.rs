//! Redlock over five independent masters, quorum three; the lock value is
//! random, so there is no token to fence with.

use super::REDLOCK_NODES;
use super::{family_labels, Family, Options, Renewal, Spec, PLAIN_WORDS};

pub const SPEC: Spec = Spec {
    id: "redlock",
    label: "Redlock (5 masters, quorum 3)",
    lane: "redis",
    nodes: REDLOCK_NODES,
    family: Family::Redlock,
    tokens: Err("Redlock's lock value is random, not a token: there is nothing to compare"),
    session: None,
    options: Options { redis: false, renewal: Renewal::Never, naive_del: true, clock_jumps: true, token_source: None },
    words: PLAIN_WORDS,
    wire_label: family_labels,
};
