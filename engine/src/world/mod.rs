//! The world runs a scenario: it pops the next due item, hands it to the
//! actor it concerns, and carries out what the actor returns — sending
//! messages with latency, setting timers, logging notes. Faults live here,
//! outside the actors, as they do in reality: a paused process does not know
//! it is paused, and a lock node does not know its clock is wrong.
//!
//! A run records in one of two modes: `Full` keeps every event with its
//! sentence and the timelines, for the page and the command line; `Summary`
//! keeps only the counters, for sweeps, quiz keys and the explorer. Both take
//! exactly the same steps, so their summaries are equal (a test says so).

mod crash;
mod family;
mod fleet;
mod invariant;
mod log;
mod net;
mod nodes;
mod store;
mod workers;

use crate::actor::Actor;
use crate::event::Loss;
use crate::history::History;
use crate::lock::{Outcome, Snapshot};
use crate::msg::Msg;
use crate::observer::Observer;
use crate::queue::Queue;
use crate::record::{Counts, Record};
use crate::rng::{SimRng, Stream};
use crate::scenario::{Fault, Scenario, When};
use crate::store::Store;
use crate::worker::{Actions, Timer, Worker};
use std::collections::VecDeque;

pub use net::ACTOR_SLOTS;

use crate::mode::Mode;

enum Due {
    /// `lost` says why the message will never be read, if it won't.
    Deliver {
        msg: u32,
        from: Actor,
        to: Actor,
        req: u32,
        body: Msg,
        lost: Option<Loss>,
    },
    Timer {
        worker: u8,
        timer: Timer,
    },
    /// Actions held back by a pause, carried out on resume.
    Perform {
        worker: u8,
        actions: Actions,
    },
    /// The worker reads what its connections buffered while it was frozen.
    Drain {
        worker: u8,
    },
    Pause {
        worker: u8,
        pause_us: u64,
    },
    /// A fleet worker's next pause from its distribution.
    FleetPause {
        worker: u8,
    },
    Resume {
        worker: u8,
    },
    Crash {
        worker: u8,
    },
    ExpiryCheck {
        node: u8,
    },
    /// The Redis primary's state reaching its replica; `epoch` is the
    /// primary's life it came from (a crash ends a life).
    Replicate {
        snapshot: Snapshot,
        epoch: u32,
    },
    NodeCrash {
        node: u8,
        down_ms: u64,
    },
    NodeRestart {
        node: u8,
    },
    /// Sentinel promotes a replica, or the consensus members elect a leader.
    Promote,
    /// A partition begins or ends: the replicated services look again at
    /// what they reach (`family/`).
    Reach,
    ClockJump {
        node: u8,
        jump_ms: i64,
    },
}

struct Slot {
    worker: Worker,
    rng: SimRng,
    paused_until_us: Option<u64>,
    deferred: Vec<Due>,
    /// Messages that reached the worker while it was frozen (or behind
    /// those), read in arrival order when it runs again.
    inbox: VecDeque<Due>,
    /// Messages sent so far, for pauses due "before message n".
    sends_done: u32,
    crashed: bool,
    /// A fleet worker's pause draws, and whether its next job is armed.
    pauses: Option<SimRng>,
    next_job_armed: bool,
}

// A valid scenario's faults fit the `faults_fired` bit set.
const _: () = assert!(crate::scenario::FAULTS_MAX <= u32::BITS as usize);

/// No worker buffers more messages than this; more means a bug.
const INBOX_MAX: usize = 10_000;

/// A lock node as the world sees it from outside; its state machine is its
/// family's (`family::Cluster::machine`).
struct NodeSlot {
    down: bool,
    /// When its one pending expiry check is due.
    check_at_us: Option<u64>,
}

pub struct World<'a> {
    /// Borrowed by a run that ends in one call; owned by a fleet that runs
    /// in slices across the page's frames (`fleet::Stepper`).
    scenario: std::borrow::Cow<'a, Scenario>,
    mode: Mode,
    now_us: u64,
    queue: Queue<Due>,
    slots: Vec<Slot>,
    nodes: Vec<NodeSlot>,
    /// The lock service as a whole: its family's own state (`family/`).
    cluster: family::Cluster,
    /// A family's hook holds the cluster's state: the copy above is stale
    /// until it hands it back (`family/mod.rs`).
    lent: bool,
    store: Store,
    net_rng: SimRng,
    next_msg: u32,
    /// Per direction of each connection, when its last message arrives:
    /// messages between two actors arrive in the order they were sent.
    arrival_us: [[u64; ACTOR_SLOTS]; ACTOR_SLOTS],
    /// Bit `i`: fault `i` has struck. A bit set, not a list: a run of the
    /// explorer's thousands should not allocate for it.
    faults_fired: u32,
    /// When each fault began to strike (µs): its `at_ms`, or for a fault
    /// pinned to an event, the moment that event happened; `u64::MAX` until
    /// then.
    fault_start_us: [u64; crate::scenario::FAULTS_MAX],
    /// Faults pinned to events as (event index, fault index), earliest
    /// first, and the next of them to strike.
    pinned: Vec<(u32, u8)>,
    pinned_next: usize,
    /// Which message faults the scenario has at all: most runs have none,
    /// and then no message needs the fault list scanned.
    faults_present: FaultsPresent,
    log: log::Log,
    observer: Observer,
    /// Ground truth: every grant, and whose lease is open.
    history: History,
    /// Steps left before the bound: most pops log an event; expiry checks
    /// and stale timers may not, but each is caused by an earlier event, so
    /// four pops per event is ample.
    pops_left: u64,
    /// Reused buffers for an actor's actions and a node's outcome: a step
    /// allocates nothing.
    scratch: Actions,
    outcome: Outcome,
}

impl<'a> World<'a> {
    pub fn new(scenario: &'a Scenario, mode: Mode) -> World<'a> {
        World::of(std::borrow::Cow::Borrowed(scenario), mode)
    }

    fn of(scenario: std::borrow::Cow<'a, Scenario>, mode: Mode) -> World<'a> {
        assert!(scenario.faults.len() <= crate::scenario::FAULTS_MAX, "an unvalidated scenario");
        let slots = (0..scenario.workers)
            .map(|index| Slot {
                worker: Worker::new(),
                rng: SimRng::new(scenario.seed, Stream::Worker(index)),
                paused_until_us: None,
                deferred: Vec::new(),
                inbox: VecDeque::new(),
                sends_done: 0,
                crashed: false,
                pauses: scenario.fleet.map(|_| SimRng::new(scenario.seed, Stream::Pauses(index))),
                next_job_armed: false,
            })
            .collect();
        let cluster = family::Cluster::of(&scenario);
        let nodes = (0..scenario.lock_service.nodes()).map(|_| NodeSlot { down: false, check_at_us: None }).collect();
        let mut world = World {
            mode,
            now_us: 0,
            queue: Queue::new(),
            slots,
            nodes,
            cluster,
            lent: false,
            store: Store::new(scenario.store, scenario.fencing),
            net_rng: SimRng::new(scenario.seed, Stream::Network),
            next_msg: 0,
            arrival_us: [[0; ACTOR_SLOTS]; ACTOR_SLOTS],
            faults_fired: 0,
            fault_start_us: [u64::MAX; crate::scenario::FAULTS_MAX],
            pinned: Vec::new(),
            pinned_next: 0,
            faults_present: FaultsPresent::of(&scenario.faults),
            log: log::Log::new(mode, scenario.events_max),
            observer: Observer::new(mode).keeping_incidents(scenario.fleet.is_some()),
            history: History::default(),
            pops_left: u64::from(scenario.events_max) * 4,
            scratch: Vec::with_capacity(8),
            outcome: Outcome::default(),
            // Last: every field above reads it first.
            scenario,
        };
        world.schedule_start();
        world
    }

    /// A full run that keeps only the events and spans from `from_us` to
    /// `to_us`: the window around a fleet's incident, told as a story.
    pub fn windowed(mut self, from_us: u64, to_us: u64) -> World<'a> {
        self.log = self.log.windowed(from_us, to_us);
        self.observer = self.observer.windowed(from_us, to_us);
        self
    }

    fn fault_fired(&self, index: usize) -> bool {
        self.faults_fired & (1 << index) != 0
    }

    fn fire_fault(&mut self, index: usize) {
        self.faults_fired |= 1 << index;
    }

    fn schedule_start(&mut self) {
        for index in 0..self.scenario.workers {
            let at_us = u64::from(index) * self.scenario.start_gap_ms * 1000;
            self.queue.push(at_us, Due::Timer { worker: index, timer: Timer::Start });
        }
        self.schedule_fleet_pauses();
        for index in 0..self.scenario.faults.len() {
            match self.scenario.faults[index].after_event() {
                Some(event) => {
                    let at = self.pinned.partition_point(|(earlier, _)| *earlier <= event);
                    self.pinned.insert(at, (event, index as u8));
                }
                None => self.arm_fault(index, self.scenario.faults[index].at_ms() * 1000, false),
            }
        }
    }

    /// Fault `index` strikes from `at_us` on: its due item is queued for
    /// then, or (`now`: a fault pinned to an event that just happened)
    /// carried out at once, before anything else the world had due.
    fn arm_fault(&mut self, index: usize, at_us: u64, now: bool) {
        self.fault_start_us[index] = at_us;
        let fault = &self.scenario.faults[index];
        let worker = fault.target().worker_index().unwrap_or(0);
        let node = match fault.target() {
            Actor::LockNode(index) => index,
            _ => 0,
        };
        let due = match *fault {
            Fault::Pause { when: When::AtMs(_) | When::AfterEvent(_), pause_ms, .. } => Due::Pause { worker, pause_us: pause_ms * 1000 },
            Fault::Crash { .. } => Due::Crash { worker },
            Fault::NodeCrash { down_ms, .. } => Due::NodeCrash { node, down_ms },
            Fault::ClockJump { jump_ms, .. } => Due::ClockJump { node, jump_ms },
            Fault::ClockDrift { ppm, .. } => return self.cluster.machine(node).clock_mut().ppm = ppm,
            // The replicated services react when a partition begins and
            // ends; messages test it as they pass.
            Fault::Partition { for_ms, .. } if self.cluster.watches_reach() => {
                self.queue.push(at_us + for_ms * 1000, Due::Reach);
                Due::Reach
            }
            // These strike when a message or a write passes by.
            Fault::Pause { when: When::BeforeWrite(_) | When::BeforeSend(_), .. }
            | Fault::DelayWrite { .. }
            | Fault::LoseMessage { .. }
            | Fault::Partition { .. } => return,
        };
        if now {
            self.dispatch(due);
        } else {
            self.queue.push(at_us, due);
        }
    }

    /// Faults pinned to events strike as soon as their event has happened.
    fn strike_pinned(&mut self) {
        while let Some(&(event, index)) = self.pinned.get(self.pinned_next) {
            if event >= self.log.count() {
                break;
            }
            self.pinned_next += 1;
            self.arm_fault(usize::from(index), self.now_us, true);
        }
    }

    /// Runs to quiescence or to the event bound, whichever comes first.
    pub fn run(mut self) -> Record {
        let truncated = self.step_to_end();
        self.into_record(truncated)
    }

    /// The record of a run that has ended (`truncated`: by its bound).
    pub fn into_record(self, truncated: bool) -> Record {
        let end_us = self.now_us;
        let counts = Counts::of(&self.observer, self.history.lease_holder(), end_us, truncated);
        let highlights = self.observer.highlights;
        let events = self.log.finish(end_us, &self.observer);
        let spans = self.observer.finish(end_us);
        Record { scenario: self.scenario.into_owned(), events, counts, spans, highlights }
    }

    /// The counters as they stand.
    pub fn counts(&self, truncated: bool) -> Counts {
        Counts::of(&self.observer, self.history.lease_holder(), self.now_us, truncated)
    }

    /// Runs the same steps and keeps only the counters.
    pub fn run_counts(mut self) -> Counts {
        let truncated = self.step_to_end();
        self.counts(truncated)
    }

    /// Steps until the queue drains or the bound stops the run; returns
    /// whether the bound did.
    fn step_to_end(&mut self) -> bool {
        self.step_some(u64::MAX).expect("a slice without a limit ends the run")
    }

    /// Takes at most `slice` steps: `None` while work remains, or, once the
    /// run has ended, whether the bound ended it. Slices compose: any way
    /// of cutting a run into them takes the same steps as one call.
    pub(crate) fn step_some(&mut self, slice: u64) -> Option<bool> {
        for _ in 0..slice.min(self.pops_left) {
            // At its bound the run goes on only through steps that log
            // nothing (stale timers): the first event it cannot log ends it.
            if self.log.truncated() {
                return Some(true);
            }
            let Some((at_us, due)) = self.queue.pop() else { return Some(self.log.truncated()) };
            self.pops_left -= 1;
            assert!(at_us >= self.now_us, "time never runs backwards");
            self.now_us = at_us;
            let before = self.cluster.progress();
            self.dispatch(due);
            self.check_family(before);
            if self.pinned_next < self.pinned.len() {
                self.strike_pinned();
            }
        }
        if self.pops_left > 0 {
            return None;
        }
        // Running out of pops with work still queued is a truncated run too.
        if !self.log.truncated() && !self.queue.is_empty() {
            self.log.truncate();
        }
        Some(self.log.truncated())
    }

    fn dispatch(&mut self, due: Due) {
        if let Some(worker) = due_worker(&due) {
            if self.hold_for_worker(worker, &due) {
                let slot = &mut self.slots[usize::from(worker)];
                match due {
                    _ if slot.crashed => self.drop_for_crash(due),
                    Due::Deliver { .. } => {
                        assert!(slot.inbox.len() < INBOX_MAX, "a worker's inbox overflowed");
                        slot.inbox.push_back(due);
                    }
                    _ => slot.deferred.push(due),
                }
                return;
            }
        }
        match due {
            Due::Deliver { msg, from, to, req, body, lost } => self.deliver(msg, from, to, req, body, lost),
            Due::Timer { worker, timer } => {
                if timer == Timer::NextJob {
                    self.next_job_started(worker);
                }
                let ctx = crate::worker::Ctx { now_us: self.now_us, scenario: &self.scenario };
                let slot = &mut self.slots[usize::from(worker)];
                let mut out = std::mem::take(&mut self.scratch);
                slot.worker.on_timer(timer, ctx, &mut slot.rng, &mut out);
                self.perform(worker, out);
            }
            Due::Perform { worker, actions } => self.perform(worker, actions),
            Due::Drain { worker } => self.drain(worker),
            Due::Pause { worker, pause_us } => self.begin_pause(worker, pause_us),
            Due::FleetPause { worker } => self.fleet_pause(worker),
            Due::Resume { worker } => self.resume(worker),
            Due::Crash { worker } => self.crash(worker),
            Due::ExpiryCheck { node } => self.expiry_check(node),
            Due::Replicate { snapshot, epoch } => self.replicate(snapshot, epoch),
            Due::NodeCrash { node, down_ms } => self.node_crash(node, down_ms),
            Due::NodeRestart { node } => self.node_restart(node),
            Due::Promote => self.promote(),
            Due::Reach => self.reach_changed(),
            Due::ClockJump { node, jump_ms } => self.clock_jump(node, jump_ms),
        }
    }

    /// Whether a due item for this worker must wait (a pause) or be dropped
    /// (a crash) rather than run now.
    fn hold_for_worker(&self, worker: u8, due: &Due) -> bool {
        let slot = &self.slots[usize::from(worker)];
        let fault_control =
            matches!(due, Due::Resume { .. } | Due::Pause { .. } | Due::FleetPause { .. } | Due::Crash { .. } | Due::Drain { .. });
        // A message must not overtake those still buffered on its worker.
        let behind_buffered = matches!(due, Due::Deliver { .. }) && !slot.inbox.is_empty();
        slot.crashed || behind_buffered || (slot.paused_until_us.is_some() && !fault_control)
    }

    fn deliver(&mut self, msg: u32, from: Actor, to: Actor, req: u32, body: Msg, lost: Option<Loss>) {
        let to = self.forwarded(from, to);
        if let Some(loss) = lost.or_else(|| self.unreachable(from, to, &body)) {
            return self.log_lost(msg, to, req, body, loss);
        }
        self.log(to, crate::event::Kind::Receive { msg, from, req, body }, None);
        match to {
            Actor::Worker(index) => {
                let ctx = crate::worker::Ctx { now_us: self.now_us, scenario: &self.scenario };
                let slot = &mut self.slots[usize::from(index)];
                let mut out = std::mem::take(&mut self.scratch);
                slot.worker.on_message(req, body, ctx, &mut slot.rng, &mut out);
                self.perform(index, out);
            }
            Actor::LockNode(node) => {
                crate::invariant!(!self.nodes[usize::from(node)].down, "L{} handled a command while down", node + 1);
                self.before_change(node);
                let mut outcome = std::mem::take(&mut self.outcome);
                self.cluster.machine(node).handle(self.now_us, from, req, &body, &mut outcome);
                self.node_outcome(node, outcome);
            }
            Actor::Store => self.store_request(msg, from, req, body),
        }
    }
}

#[derive(Clone, Copy, Default)]
struct FaultsPresent {
    delay_write: bool,
    lose_message: bool,
    partition: bool,
}

impl FaultsPresent {
    fn of(faults: &[Fault]) -> FaultsPresent {
        let any = |wanted: fn(&Fault) -> bool| faults.iter().any(wanted);
        FaultsPresent {
            delay_write: any(|fault| matches!(fault, Fault::DelayWrite { .. })),
            lose_message: any(|fault| matches!(fault, Fault::LoseMessage { .. })),
            partition: any(|fault| matches!(fault, Fault::Partition { .. })),
        }
    }
}

fn due_worker(due: &Due) -> Option<u8> {
    match due {
        Due::Deliver { to, .. } => to.worker_index(),
        Due::Timer { worker, .. }
        | Due::Perform { worker, .. }
        | Due::Drain { worker }
        | Due::Pause { worker, .. }
        | Due::FleetPause { worker }
        | Due::Resume { worker }
        | Due::Crash { worker } => Some(*worker),
        _ => None,
    }
}
