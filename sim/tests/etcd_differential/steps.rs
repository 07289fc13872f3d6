//! The model's trace, read as etcd steps.

use fencing_sim::msg::Msg;
use fencing_sim::{Actor, Kind, Trace};

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

/// The consensus leader's steps of a trace, in order: each request a
/// worker's message carried (typed: `Msg`), with the reply that names its
/// request id.
pub fn steps(trace: &Trace) -> Vec<Step> {
    let events = &trace.events;
    let mut steps = Vec::new();
    for (position, event) in events.iter().enumerate() {
        match (&event.kind, event.actor) {
            (Kind::Receive { from: Actor::Worker(from), req, body, .. }, Actor::LockNode(0)) => {
                let command = command(body);
                let reply = events[position + 1..].iter().find_map(|later| match later.kind {
                    Kind::Send { to, req: answers, body, .. } | Kind::Lost { to, req: answers, body, .. }
                        if later.actor == event.actor
                            && to == Actor::Worker(*from)
                            && answers == *req
                            && !matches!(body, Msg::LockReady { .. }) =>
                    {
                        Some(body)
                    }
                    _ => None,
                });
                let reply = reply.unwrap_or_else(|| panic!("L1 never answered {command} (request {req}, event {})", event.index));
                let model = model_reply(&command, &reply);
                steps.push(Step::Command { index: event.index, t_us: event.t_us, from: *from, command, model });
            }
            (Kind::Send { to: Actor::Worker(to), body: Msg::LockReady { revision }, .. }, Actor::LockNode(0)) => {
                steps.push(Step::Ready { index: event.index, t_us: event.t_us, to: *to, revision: *revision });
            }
            (Kind::Expired { holder: Actor::Worker(holder), .. }, Actor::LockNode(0)) => {
                steps.push(Step::Expired { index: event.index, t_us: event.t_us, holder: *holder });
            }
            (Kind::Receive { from: Actor::Worker(_), .. } | Kind::Expired { .. }, Actor::LockNode(node)) if node != 0 => {
                panic!("event {}: in these stories the leader L1 answers every worker, not L{}", event.index, node + 1)
            }
            _ => {}
        }
    }
    steps
}

/// A worker's request to the consensus lock. Keep-alive, check and release
/// name the worker's lease (the `value` a Redis lock would compare).
pub fn command(body: &Msg) -> Command {
    match *body {
        Msg::LeaseGrant { ttl_ms } => Command::Grant { ttl_ms },
        Msg::PutLock { lease } => Command::Put { lease },
        Msg::Renew { value, .. } => Command::KeepAlive { lease: value },
        Msg::Check { value } => Command::Check { lease: value },
        Msg::ReleaseCad { value } => Command::Release { lease: value },
        other => panic!("{other:?} is no consensus command: teach tests/etcd_differential/steps.rs about it"),
    }
}

pub fn model_reply(command: &Command, body: &Msg) -> Reply {
    match (command, *body) {
        (Command::Grant { .. }, Msg::LeaseGrantReply { lease, ttl_ms }) => Reply::Lease { lease, ttl_ms },
        (Command::Put { .. }, Msg::PutReply { revision, owner }) => Reply::Key { revision, owner },
        (Command::KeepAlive { .. }, Msg::RenewReply { ok }) => Reply::Yes(ok),
        (Command::Check { .. }, Msg::CheckReply { mine }) => Reply::Yes(mine),
        (Command::Release { .. }, Msg::ReleaseReply { deleted }) => Reply::Yes(deleted),
        (command, body) => panic!("{body:?} does not answer {command}"),
    }
}
