//! No lock at all: the store's conditional write keeps writers apart.

use super::{family_labels, Family, Options, Renewal, Spec, PLAIN_WORDS};

pub const SPEC: Spec = Spec {
    id: "none",
    label: "No lock (conditional writes)",
    lane: "",
    nodes: 0,
    family: Family::None,
    tokens: Err("with no lock there is no token: there is nothing to compare"),
    session: None,
    options: Options { redis: false, renewal: Renewal::Never, naive_del: false, clock_jumps: false, token_source: None },
    words: PLAIN_WORDS,
    wire_label: family_labels,
};
