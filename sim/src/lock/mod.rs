//! Lock-service nodes. Each handles one command at a time (so each command is
//! atomic) and says what it replied, what the trace should note, and when the
//! world should next check its leases for expiry.

mod clock;
mod etcd;
mod redis;

pub use clock::NodeClock;
pub use etcd::EtcdNode;
pub use redis::{RedisNode, Snapshot};

use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;
use crate::scenario::RedisPersistence;

/// A note for the trace from the lock service's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    pub kind: Kind,
    pub token: Option<u64>,
}

/// What handling one command (or one expiry check) produced. The world
/// passes one in and reuses it, so a command allocates nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Messages to send, each with the request it answers: the reply, and
    /// for a consensus lock possibly a "your turn" to the next waiter.
    pub sends: Vec<(Actor, u32, Msg)>,
    pub notes: Vec<Note>,
    /// Real time at which the world should check for expired leases.
    pub check_at_us: Option<u64>,
}

/// What a node's crash left of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crash {
    /// It comes back with everything it had.
    pub persists: bool,
    /// A Redis with RDB snapshots comes back as of this moment.
    pub restores_from_us: Option<u64>,
    /// The holder whose lease it does not come back with.
    pub lost: Option<Actor>,
}

pub enum LockNode {
    Redis(RedisNode),
    Etcd(EtcdNode),
}

/// What every lock node does: handle one command, and expire what is due.
pub trait Machine {
    /// Handles request `req` from `from`, adding to `out`.
    fn handle(&mut self, now_us: u64, from: Actor, req: u32, msg: &Msg, out: &mut Outcome);
    fn expire(&mut self, now_us: u64, out: &mut Outcome);
}

/// One command to a node, with a fresh outcome: for tests.
#[cfg(test)]
pub fn handled(node: &mut impl Machine, now_us: u64, from: Actor, req: u32, msg: &Msg) -> Outcome {
    let mut outcome = Outcome::default();
    node.handle(now_us, from, req, msg, &mut outcome);
    outcome
}

/// One expiry check, with a fresh outcome: for tests.
#[cfg(test)]
pub fn expired(node: &mut impl Machine, now_us: u64) -> Outcome {
    let mut outcome = Outcome::default();
    node.expire(now_us, &mut outcome);
    outcome
}

impl Outcome {
    pub fn clear(&mut self) {
        self.sends.clear();
        self.notes.clear();
        self.check_at_us = None;
    }
}

impl LockNode {
    /// Handles request `req` from `from`, adding to `out`.
    pub fn handle(&mut self, now_us: u64, from: Actor, req: u32, msg: &Msg, out: &mut Outcome) {
        match self {
            LockNode::Redis(node) => node.handle(now_us, from, req, msg, out),
            LockNode::Etcd(node) => node.handle(now_us, from, req, msg, out),
        }
    }

    pub fn expire(&mut self, now_us: u64, out: &mut Outcome) {
        match self {
            LockNode::Redis(node) => node.expire(now_us, out),
            LockNode::Etcd(node) => node.expire(now_us, out),
        }
    }

    pub fn clock_mut(&mut self) -> &mut NodeClock {
        match self {
            LockNode::Redis(node) => &mut node.clock,
            LockNode::Etcd(node) => &mut node.clock,
        }
    }

    /// A Redis node's disk catches up with any snapshot or fsync that fell
    /// since its last change; a consensus member's log is always on disk.
    pub fn sync_disk(&mut self, now_us: u64, period_us: u64) {
        match self {
            LockNode::Redis(node) => node.sync_disk(now_us, period_us),
            LockNode::Etcd(_) => {}
        }
    }

    /// The node crashes: what it comes back with. A consensus member's log
    /// is on disk; a Redis keeps everything with an append-only file
    /// (written before each reply: a process crash loses none of it), its
    /// last snapshot with RDB, and nothing without.
    pub fn crash(&mut self, now_us: u64, persistence: RedisPersistence) -> Crash {
        let LockNode::Redis(redis) = self else {
            return Crash { persists: true, restores_from_us: None, lost: None };
        };
        let held = redis.lease();
        let persists = persistence.keeps_every_write();
        let mut restores_from_us = None;
        if !persists {
            match persistence.period_us() {
                Some(period_us) => {
                    redis.sync_disk(now_us, period_us);
                    restores_from_us = Some(redis.restore_disk());
                }
                None => redis.wipe(),
            }
        }
        let kept = redis.lease().map(|lease| lease.holder);
        // The lease is lost unless the node comes back with it.
        let lost = held.filter(|lease| !persists && kept != Some(lease.holder)).map(|lease| lease.holder);
        Crash { persists, restores_from_us, lost }
    }

    pub fn etcd(&mut self) -> Option<&mut EtcdNode> {
        match self {
            LockNode::Redis(_) => None,
            LockNode::Etcd(node) => Some(node),
        }
    }

    pub fn redis(&mut self) -> Option<&mut RedisNode> {
        match self {
            LockNode::Redis(node) => Some(node),
            LockNode::Etcd(_) => None,
        }
    }
}
