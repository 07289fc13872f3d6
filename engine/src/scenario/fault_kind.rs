//! Each kind of fault described once: what it is called (on the page, in
//! the verdict table, in a link), its glyph, what it may strike, which lock
//! services it applies to, and what a click at a moment of the run places.
//! Validation, links, the verdict table, the explorer and the page's fault
//! buttons all read this table; none of them lists the kinds again.

use super::fault::{Fault, When};
use crate::actor::Actor;
use crate::services::Spec;
use serde::Serialize;

/// The kinds of fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    Pause,
    DelayWrite,
    LoseMessage,
    Partition,
    Crash,
    ClockDrift,
    ClockJump,
    NodeCrash,
}

/// Which actors a fault may strike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Targets {
    pub workers: bool,
    pub nodes: bool,
    pub store: bool,
}

const WORKERS: Targets = Targets { workers: true, nodes: false, store: false };
const NODES: Targets = Targets { workers: false, nodes: true, store: false };
const ANYONE: Targets = Targets { workers: true, nodes: true, store: true };

impl Targets {
    pub fn may_strike(self, actor: Actor) -> bool {
        match actor {
            Actor::Worker(_) => self.workers,
            Actor::LockNode(_) => self.nodes,
            Actor::Store => self.store,
        }
    }
}

/// Where a click places a fault: right after the event on screen.
#[derive(Clone, Copy, Debug)]
pub struct Moment {
    pub target: Actor,
    /// About when (the event's time, in whole ms): the fault is pinned to
    /// the event itself, so this only says it for people and links.
    pub at_ms: u64,
    /// How long a clicked pause or held write lasts (`pause_ms_default`).
    pub pause_ms: u64,
    /// The number of the target's first write after the moment, if it
    /// sends one whose number no earlier write had (`click::next_write`).
    pub next_write: Option<u8>,
}

/// What a click on a kind's button does.
#[derive(Clone, Copy, Debug)]
pub struct Click {
    /// The actors it has a button for (a subset of what the kind strikes).
    pub on: Targets,
    /// The button's words for a target (the glyph goes before them).
    pub words: fn(Actor) -> String,
    /// The fault placed, unpinned; None when there is nothing to strike
    /// (no write left to hold).
    pub fault: fn(&Moment) -> Option<Fault>,
    /// Why its button is disabled at a moment, if it is.
    pub refused: fn(&Moment) -> Option<String>,
}

/// Everything the crate and the page know of a kind of fault.
#[derive(Clone, Copy, Debug)]
pub struct FaultSpec {
    pub kind: FaultKind,
    /// In a sentence: "a stop-the-world pause".
    pub label: &'static str,
    /// In the verdict table's "broken by" column.
    pub short: &'static str,
    /// The verb a link spells it with (`fault=pause:…`).
    pub link: &'static str,
    /// What a link of this kind looks like, for notices.
    pub shape: &'static str,
    /// The shape it is drawn with, beside its colour.
    pub glyph: &'static str,
    pub strikes: Targets,
    /// Whether it applies to a lock service.
    pub applies: fn(&Spec) -> bool,
    /// Why not, where it does not.
    pub why_not: &'static str,
    /// None: not placed by a click (drift is there from the start).
    pub click: Option<Click>,
}

/// How long a clicked partition or node crash lasts, and how far a clicked clock jumps.
const PARTITION_MS: u64 = 15_000;
const NODE_DOWN_MS: u64 = 15_000;
const JUMP_MS: i64 = 10_000;

const NO_LOCK_NODE: &str = "there is no lock node to strike";

fn always(_: &Spec) -> bool {
    true
}

fn has_nodes(service: &Spec) -> bool {
    service.nodes > 0
}

fn jumping_clocks(service: &Spec) -> bool {
    service.nodes > 0 && service.options.clock_jumps
}

fn never_refused(_: &Moment) -> Option<String> {
    None
}

const PAUSE: FaultSpec = FaultSpec {
    kind: FaultKind::Pause,
    label: "a stop-the-world pause",
    short: "pause",
    link: "pause",
    shape: "pause:A:write1:15000 (before A's first write, 15 s), pause:A:send2:12000 (before A's second message) or pause:A:at5000:15000 (at 5 s)",
    glyph: "‖",
    strikes: WORKERS,
    applies: always,
    why_not: NO_LOCK_NODE,
    click: Some(Click {
        on: WORKERS,
        words: |worker| format!("Pause {worker}"),
        fault: |at| Some(Fault::Pause { worker: at.target, when: When::AtMs(at.at_ms), pause_ms: at.pause_ms }),
        refused: never_refused,
    }),
};

const DELAY_WRITE: FaultSpec = FaultSpec {
    kind: FaultKind::DelayWrite,
    label: "a held write packet",
    short: "held write",
    link: "delay",
    shape: "delay:A:1:15000 (A's first write held 15 s)",
    glyph: "→",
    click: Some(Click {
        on: WORKERS,
        words: |worker| format!("Delay {worker}'s next write"),
        fault: |at| at.next_write.map(|write| Fault::DelayWrite { worker: at.target, write, delay_ms: at.pause_ms }),
        refused: |at| at.next_write.is_none().then(|| format!("{} has no write left to hold after this moment", at.target)),
    }),
    ..PAUSE
};

const LOSE_MESSAGE: FaultSpec = FaultSpec {
    kind: FaultKind::LoseMessage,
    label: "a lost message",
    short: "lost message",
    link: "lose",
    shape: "lose:A:1000 (A's first message from 1 s on is lost)",
    glyph: "✗",
    strikes: ANYONE,
    click: Some(Click {
        on: WORKERS,
        words: |from| format!("Lose {from}'s next message"),
        fault: |at| Some(Fault::LoseMessage { from: at.target, at_ms: at.at_ms, after_event: None }),
        refused: never_refused,
    }),
    ..PAUSE
};

const PARTITION: FaultSpec = FaultSpec {
    kind: FaultKind::Partition,
    label: "a partition",
    short: "partition",
    link: "partition",
    shape: "partition:L4:0:500 (L4 cut off from 0 for 500 ms) or partition:L1:1000:30000:L2 (only from L2)",
    glyph: "✂",
    strikes: ANYONE,
    click: Some(Click {
        on: NODES,
        words: |node| format!("Cut off {node}"),
        fault: |at| Some(Fault::Partition { node: at.target, at_ms: at.at_ms, for_ms: PARTITION_MS, from: None, after_event: None }),
        refused: never_refused,
    }),
    ..PAUSE
};

const CRASH: FaultSpec = FaultSpec {
    kind: FaultKind::Crash,
    label: "a worker crash",
    short: "worker crash",
    link: "crash",
    shape: "crash:A:1000 (A crashes at 1 s)",
    glyph: "✱",
    click: Some(Click {
        on: WORKERS,
        words: |worker| format!("Crash {worker}"),
        fault: |at| Some(Fault::Crash { worker: at.target, at_ms: at.at_ms, after_event: None }),
        refused: never_refused,
    }),
    ..PAUSE
};

const CLOCK_DRIFT: FaultSpec = FaultSpec {
    kind: FaultKind::ClockDrift,
    label: "clock drift",
    short: "clock drift",
    link: "drift",
    shape: "drift:L1:-2000 (L1's clock 2000 ppm slow)",
    glyph: "≈",
    strikes: NODES,
    applies: has_nodes,
    click: None,
    ..PAUSE
};

const CLOCK_JUMP: FaultSpec = FaultSpec {
    kind: FaultKind::ClockJump,
    label: "a clock jump",
    short: "clock jump",
    link: "jump",
    shape: "jump:L3:2000:10000 (L3's clock jumps 10 s ahead at 2 s)",
    glyph: "»",
    strikes: NODES,
    applies: jumping_clocks,
    why_not: "the consensus lock times leases with a monotonic clock, which never jumps",
    click: Some(Click {
        on: NODES,
        words: |node| format!("Jump {node}'s clock"),
        fault: |at| Some(Fault::ClockJump { node: at.target, at_ms: at.at_ms, jump_ms: JUMP_MS, after_event: None }),
        refused: never_refused,
    }),
};

const NODE_CRASH: FaultSpec = FaultSpec {
    kind: FaultKind::NodeCrash,
    label: "a lock-node crash",
    short: "lock-node crash",
    link: "nodecrash",
    shape: "nodecrash:L1:2:60000 (L1 down from 2 ms for 60 s); any fault with a time can end in @7 (right after event 7)",
    glyph: "✱",
    strikes: NODES,
    applies: has_nodes,
    click: Some(Click {
        on: NODES,
        words: |node| format!("Crash {node}"),
        fault: |at| Some(Fault::NodeCrash { node: at.target, at_ms: at.at_ms, down_ms: NODE_DOWN_MS, after_event: None }),
        refused: never_refused,
    }),
    ..PAUSE
};

/// Every kind, in the order menus, tables and the explorer list them.
pub const FAULT_SPECS: [&FaultSpec; 8] = [&PAUSE, &DELAY_WRITE, &LOSE_MESSAGE, &PARTITION, &CRASH, &CLOCK_DRIFT, &CLOCK_JUMP, &NODE_CRASH];

impl FaultKind {
    pub const ALL: [FaultKind; 8] = [
        FaultKind::Pause,
        FaultKind::DelayWrite,
        FaultKind::LoseMessage,
        FaultKind::Partition,
        FaultKind::Crash,
        FaultKind::ClockDrift,
        FaultKind::ClockJump,
        FaultKind::NodeCrash,
    ];

    pub const fn spec(self) -> &'static FaultSpec {
        FAULT_SPECS[self as usize]
    }

    pub fn label(self) -> &'static str {
        self.spec().label
    }

    pub(super) fn why_not(self) -> &'static str {
        self.spec().why_not
    }

    /// The kind a link's verb names.
    pub fn from_link(verb: &str) -> Option<FaultKind> {
        FAULT_SPECS.iter().find(|spec| spec.link == verb).map(|spec| spec.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_order_of_the_kinds() {
        for kind in FaultKind::ALL {
            assert_eq!(kind.spec().kind, kind);
        }
    }

    #[test]
    fn a_kind_clicks_only_on_what_it_strikes() {
        for spec in FAULT_SPECS {
            let Some(click) = spec.click else { continue };
            for actor in [Actor::Worker(0), Actor::LockNode(0), Actor::Store] {
                assert!(!click.on.may_strike(actor) || spec.strikes.may_strike(actor), "{:?} clicks on {actor}", spec.kind);
            }
        }
    }

    #[test]
    fn links_name_each_kind_once() {
        for spec in FAULT_SPECS {
            assert_eq!(FaultKind::from_link(spec.link), Some(spec.kind));
        }
    }
}
