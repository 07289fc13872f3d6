//! Faults: what strikes, whom, and when.

use super::fault_kind::FaultKind;
use crate::actor::Actor;
use serde::{Deserialize, Serialize};

/// When a scheduled fault strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// At this virtual time.
    AtMs(u64),
    /// Just before the worker sends its n-th write (1 = first), after any
    /// lease check: the classic GC pause.
    BeforeWrite(u8),
    /// Just before the worker sends its n-th message of the run (1 =
    /// first), whatever it is: a pause at any step of its protocol, e.g.
    /// between `SET NX`'s answer and the `INCR` (its second message).
    BeforeSend(u16),
    /// Right after event k of the run (0-based, as the trace numbers them),
    /// before anything else happens: where a click or a search means it.
    AfterEvent(u32),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// Stop-the-world pause: the worker does nothing, timers included.
    Pause { worker: Actor, when: When, pause_ms: u64 },
    /// The worker's n-th write packet is held in the network this long.
    DelayWrite { worker: Actor, write: u8, delay_ms: u64 },
    /// The first message the actor sends at or after `at_ms` is lost.
    /// Every fault with an `at_ms` can instead be pinned right after event
    /// `after_event` of the run (its `at_ms` then only says about when).
    LoseMessage {
        from: Actor,
        at_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_event: Option<u32>,
    },
    /// Nothing reaches or leaves the actor for a while: from anyone, or
    /// with `from` only over the link between the two (a node cut off from
    /// one peer, a worker from one node). Several such faults draw any
    /// split: a leader cut off from both followers is two.
    Partition {
        node: Actor,
        at_ms: u64,
        for_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<Actor>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_event: Option<u32>,
    },
    /// The worker stops for good and never releases.
    Crash {
        worker: Actor,
        at_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_event: Option<u32>,
    },
    /// A lock node's clock runs fast (positive) or slow (negative).
    ClockDrift { node: Actor, ppm: i32 },
    /// A lock node's clock jumps (an NTP step or an operator's fix).
    ClockJump {
        node: Actor,
        at_ms: u64,
        jump_ms: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_event: Option<u32>,
    },
    /// A lock node crashes and comes back `down_ms` later with an empty
    /// memory; a Redis primary with a replica fails over meanwhile.
    NodeCrash {
        node: Actor,
        at_ms: u64,
        down_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_event: Option<u32>,
    },
}

impl Fault {
    pub fn kind(&self) -> FaultKind {
        match self {
            Fault::Pause { .. } => FaultKind::Pause,
            Fault::DelayWrite { .. } => FaultKind::DelayWrite,
            Fault::LoseMessage { .. } => FaultKind::LoseMessage,
            Fault::Partition { .. } => FaultKind::Partition,
            Fault::Crash { .. } => FaultKind::Crash,
            Fault::ClockDrift { .. } => FaultKind::ClockDrift,
            Fault::ClockJump { .. } => FaultKind::ClockJump,
            Fault::NodeCrash { .. } => FaultKind::NodeCrash,
        }
    }

    /// The worker or node the fault strikes.
    pub fn target(&self) -> Actor {
        match self {
            Fault::Pause { worker, .. } | Fault::DelayWrite { worker, .. } | Fault::Crash { worker, .. } => *worker,
            Fault::LoseMessage { from, .. } => *from,
            Fault::Partition { node, .. }
            | Fault::ClockDrift { node, .. }
            | Fault::ClockJump { node, .. }
            | Fault::NodeCrash { node, .. } => *node,
        }
    }

    /// The event it strikes right after, if it is pinned to one.
    pub fn after_event(&self) -> Option<u32> {
        match *self {
            Fault::Pause { when: When::AfterEvent(index), .. } => Some(index),
            Fault::LoseMessage { after_event, .. }
            | Fault::Partition { after_event, .. }
            | Fault::Crash { after_event, .. }
            | Fault::ClockJump { after_event, .. }
            | Fault::NodeCrash { after_event, .. } => after_event,
            Fault::Pause { .. } | Fault::DelayWrite { .. } | Fault::ClockDrift { .. } => None,
        }
    }

    /// The same fault pinned right after event `index` (struck at about
    /// `at_ms`); faults tied to a write or present from the start stay as
    /// they are.
    pub fn pinned(&self, index: u32, at_ms: u64) -> Fault {
        let pin = Some(index);
        match self.clone() {
            Fault::Pause { worker, pause_ms, .. } => Fault::Pause { worker, when: When::AfterEvent(index), pause_ms },
            Fault::LoseMessage { from, .. } => Fault::LoseMessage { from, at_ms, after_event: pin },
            Fault::Partition { node, for_ms, from, .. } => Fault::Partition { node, at_ms, for_ms, from, after_event: pin },
            Fault::Crash { worker, .. } => Fault::Crash { worker, at_ms, after_event: pin },
            Fault::ClockJump { node, jump_ms, .. } => Fault::ClockJump { node, at_ms, jump_ms, after_event: pin },
            Fault::NodeCrash { node, down_ms, .. } => Fault::NodeCrash { node, at_ms, down_ms, after_event: pin },
            other => other,
        }
    }

    /// When it strikes (0 for faults tied to a write or present from the start).
    pub fn at_ms(&self) -> u64 {
        match *self {
            Fault::Pause { when: When::AtMs(at_ms), .. }
            | Fault::LoseMessage { at_ms, .. }
            | Fault::Partition { at_ms, .. }
            | Fault::Crash { at_ms, .. }
            | Fault::ClockJump { at_ms, .. }
            | Fault::NodeCrash { at_ms, .. } => at_ms,
            Fault::Pause { .. } | Fault::DelayWrite { .. } | Fault::ClockDrift { .. } => 0,
        }
    }

    /// The fault in a few words, for people.
    pub fn describe(&self) -> String {
        match self.after_event() {
            Some(index) => format!("{}, right after event {index}", self.describe_unpinned()),
            None => self.describe_unpinned(),
        }
    }

    fn describe_unpinned(&self) -> String {
        match self {
            Fault::Pause { worker, when: When::AtMs(at_ms), pause_ms } => format!("{worker} pauses {pause_ms} ms at {at_ms} ms"),
            Fault::Pause { worker, when: When::BeforeWrite(n), pause_ms } => format!("{worker} pauses {pause_ms} ms before write {n}"),
            Fault::Pause { worker, when: When::BeforeSend(n), pause_ms } => format!("{worker} pauses {pause_ms} ms before its message {n}"),
            Fault::Pause { worker, when: When::AfterEvent(_), pause_ms } => format!("{worker} pauses {pause_ms} ms"),
            Fault::DelayWrite { worker, write, delay_ms } => format!("{worker}'s write {write} is held {delay_ms} ms"),
            Fault::LoseMessage { from, at_ms, .. } => format!("{from}'s next message after {at_ms} ms is lost"),
            Fault::Partition { node, at_ms, for_ms, from: None, .. } => format!("{node} is cut off from {at_ms} ms for {for_ms} ms"),
            Fault::Partition { node, at_ms, for_ms, from: Some(from), .. } => {
                format!("{node} is cut off from {from} from {at_ms} ms for {for_ms} ms")
            }
            Fault::Crash { worker, at_ms, .. } => format!("{worker} crashes at {at_ms} ms"),
            Fault::ClockDrift { node, ppm } => format!("{node}'s clock drifts {ppm:+} ppm"),
            Fault::ClockJump { node, at_ms, jump_ms, .. } => format!("{node}'s clock jumps {jump_ms:+} ms at {at_ms} ms"),
            Fault::NodeCrash { node, at_ms, down_ms, .. } => format!("{node} crashes at {at_ms} ms for {down_ms} ms"),
        }
    }

    /// How long it lasts, where that applies.
    pub(super) fn length_ms(&self) -> u64 {
        match *self {
            Fault::Pause { pause_ms, .. } => pause_ms,
            Fault::DelayWrite { delay_ms, .. } => delay_ms,
            Fault::Partition { for_ms, .. } => for_ms,
            Fault::NodeCrash { down_ms, .. } => down_ms,
            Fault::ClockJump { jump_ms, .. } => jump_ms.unsigned_abs(),
            Fault::LoseMessage { .. } | Fault::Crash { .. } | Fault::ClockDrift { .. } => 0,
        }
    }
}
