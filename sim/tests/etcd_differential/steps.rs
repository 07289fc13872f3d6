//! The model's trace, read as etcd steps.

use fencing_sim::{Actor, Kind, Trace};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Grant { ttl_ms: u64 },
    Put { lease: u64 },
    KeepAlive { lease: u64 },
    Check { lease: u64 },
    Release { lease: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The lease's id and the TTL actually granted.
    Lease { lease: u64, ttl_ms: u64 },
    /// The key's create revision (0: refused) and whether it is first.
    Key { revision: u64, owner: bool },
    /// Keep-alive accepted, still mine, key deleted.
    Yes(bool),
}

#[derive(Clone, Debug)]
pub enum Step {
    Command {
        index: u32,
        t_us: u64,
        from: u8,
        command: Command,
        model: Reply,
    },
    /// The model's tick revoked the holder's lease and deleted its key.
    Expired {
        index: u32,
        t_us: u64,
        holder: u8,
    },
    /// Every older key is gone: the model tells `to` that it holds the lock.
    Ready {
        index: u32,
        t_us: u64,
        to: u8,
        revision: u64,
    },
}

impl Step {
    pub fn t_us(&self) -> u64 {
        match *self {
            Step::Command { t_us, .. } | Step::Expired { t_us, .. } | Step::Ready { t_us, .. } => t_us,
        }
    }
}

impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Command::Grant { ttl_ms } => write!(f, "lease grant TTL {ttl_ms} ms"),
            Command::Put { lease } => write!(f, "put key (lease {lease:x})"),
            Command::KeepAlive { lease } => write!(f, "keep-alive {lease:x}"),
            Command::Check { lease } => write!(f, "is {lease:x}'s key first?"),
            Command::Release { lease } => write!(f, "delete key + revoke {lease:x}"),
        }
    }
}

pub fn hex(text: &str, label: &str) -> u64 {
    u64::from_str_radix(text, 16).unwrap_or_else(|_| panic!("no lease id in {label:?}"))
}

pub fn number(text: &str, label: &str) -> u64 {
    text.parse().unwrap_or_else(|_| panic!("no number in {label:?}"))
}

/// The consensus node's steps of a trace, in order.
pub fn steps(trace: &Trace) -> Vec<Step> {
    let events = &trace.events;
    // The latest lease the node granted each worker: what its keep-alive,
    // check and release name (their labels do not).
    let mut lease_of: HashMap<u8, u64> = HashMap::new();
    let mut steps = Vec::new();
    for (position, event) in events.iter().enumerate() {
        match (&event.kind, event.actor) {
            (Kind::Receive { from: Actor::Worker(from), label, .. }, Actor::LockNode(0)) => {
                let reply = events[position + 1..].iter().find_map(|later| match &later.kind {
                    Kind::Send { to, label, .. } | Kind::Lost { to, label, .. }
                        if later.actor == event.actor && *to == Actor::Worker(*from) =>
                    {
                        Some(label.as_str())
                    }
                    _ => None,
                });
                let reply = reply.unwrap_or_else(|| panic!("L1 never answered {label:?} (event {})", event.index));
                let lease = || *lease_of.get(from).unwrap_or_else(|| panic!("{label:?} sent before any lease"));
                let words: Vec<&str> = label.split_whitespace().collect();
                let command = match words.as_slice() {
                    ["grant", "lease", "TTL", ttl_ms, "ms"] => Command::Grant { ttl_ms: number(ttl_ms, label) },
                    ["put", "lock", "key", "(lease", id] => Command::Put { lease: hex(id.trim_end_matches(')'), label) },
                    ["renew", "PX", _, "if", "mine"] => Command::KeepAlive { lease: lease() },
                    ["GET", "lock", "(still", "mine?)"] => Command::Check { lease: lease() },
                    ["release", "if", "mine"] => Command::Release { lease: lease() },
                    _ => panic!("unknown consensus command label {label:?}: teach tests/etcd_differential.rs about it"),
                };
                let model = model_reply(&command, reply);
                if let Reply::Lease { lease, .. } = model {
                    lease_of.insert(*from, lease);
                }
                steps.push(Step::Command { index: event.index, t_us: event.t_us, from: *from, command, model });
            }
            (Kind::Send { to: Actor::Worker(to), label, .. }, Actor::LockNode(0)) if label.starts_with("your key ") => {
                let revision = label.split_whitespace().nth(2).map(|n| number(n, label)).unwrap_or(0);
                steps.push(Step::Ready { index: event.index, t_us: event.t_us, to: *to, revision });
            }
            (Kind::Expired { holder: Actor::Worker(holder) }, Actor::LockNode(0)) => {
                steps.push(Step::Expired { index: event.index, t_us: event.t_us, holder: *holder });
            }
            (Kind::Receive { .. } | Kind::Expired { .. }, Actor::LockNode(node)) if node != 0 => {
                panic!("event {}: the consensus lock runs on one node, not L{}", event.index, node + 1)
            }
            _ => {}
        }
    }
    steps
}

pub fn model_reply(command: &Command, label: &str) -> Reply {
    let words: Vec<&str> = label.split_whitespace().collect();
    let reply = match (command, words.as_slice()) {
        (Command::Grant { .. }, ["lease", id, ttl_ms, "ms)"]) => {
            Some(Reply::Lease { lease: hex(id, label), ttl_ms: number(ttl_ms.trim_start_matches('('), label) })
        }
        (Command::Put { .. }, ["revision", revision, "you", "hold", "it"]) => {
            Some(Reply::Key { revision: number(revision.trim_end_matches(','), label), owner: true })
        }
        (Command::Put { .. }, ["revision", revision, "wait", "your", "turn"]) => {
            Some(Reply::Key { revision: number(revision.trim_end_matches(','), label), owner: false })
        }
        (Command::KeepAlive { .. }, ["renewed"])
        | (Command::Check { .. }, ["yes,", "yours"])
        | (Command::Release { .. }, ["1", "(deleted)"]) => Some(Reply::Yes(true)),
        (Command::KeepAlive { .. } | Command::Release { .. }, ["0", "(not", "mine)"])
        | (Command::Check { .. }, ["no,", "not", "yours"]) => Some(Reply::Yes(false)),
        _ => None,
    };
    reply.unwrap_or_else(|| panic!("unknown reply {label:?} to {command}"))
}
