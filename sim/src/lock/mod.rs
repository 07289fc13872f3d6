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

/// A note for the trace from the lock service's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub kind: Kind,
    pub token: Option<u64>,
    pub text: String,
}

/// What handling one command (or one expiry check) produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Messages to send: the reply, and for a consensus lock possibly a
    /// "your turn" to the next waiter.
    pub sends: Vec<(Actor, Msg)>,
    pub notes: Vec<Note>,
    /// Real time at which the world should check for expired leases.
    pub check_at_us: Option<u64>,
}

pub enum LockNode {
    Redis(RedisNode),
    Etcd(EtcdNode),
}

impl LockNode {
    pub fn handle(&mut self, now_us: u64, from: Actor, msg: &Msg) -> Outcome {
        match self {
            LockNode::Redis(node) => node.handle(now_us, from, msg),
            LockNode::Etcd(node) => node.handle(now_us, from, msg),
        }
    }

    pub fn expire(&mut self, now_us: u64) -> Outcome {
        match self {
            LockNode::Redis(node) => node.expire(now_us),
            LockNode::Etcd(node) => node.expire(now_us),
        }
    }

    /// Forgets everything, as a Redis without persistence does on restart.
    pub fn wipe(&mut self) {
        match self {
            LockNode::Redis(node) => node.wipe(),
            LockNode::Etcd(node) => node.wipe(),
        }
    }

    pub fn redis(&mut self) -> Option<&mut RedisNode> {
        match self {
            LockNode::Redis(node) => Some(node),
            LockNode::Etcd(_) => None,
        }
    }
}
