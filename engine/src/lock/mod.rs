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

/// What every lock node does: handle one command, and expire what is due.
pub trait Machine {
    /// Handles request `req` from `from`, adding to `out`.
    fn handle(&mut self, now_us: u64, from: Actor, req: u32, msg: &Msg, out: &mut Outcome);
    fn expire(&mut self, now_us: u64, out: &mut Outcome);
    /// The node's own clock, which a fault can jump or make drift.
    fn clock_mut(&mut self) -> &mut NodeClock;
    /// The node's state is about to change: its disk first catches up with
    /// any snapshot or fsync that fell since its last change, for a node
    /// that writes one every `period_us`.
    fn sync_disk(&mut self, now_us: u64, period_us: u64);
    /// The node crashes: what it comes back with.
    fn crash(&mut self, now_us: u64, persistence: RedisPersistence) -> Crash;
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
