//! The world runs a scenario: it pops the next due item, hands it to the
//! actor it concerns, and carries out what the actor returns — sending
//! messages with latency, setting timers, logging notes. Faults live here,
//! outside the actors, as they do in reality: a paused process does not know
//! it is paused, and a lock node does not know its clock is wrong.

mod net;
mod nodes;
mod store;
mod workers;

use crate::actor::Actor;
use crate::event::{Event, Kind};
use crate::lock::{EtcdNode, LockNode, RedisNode};
use crate::msg::Msg;
use crate::observer::Observer;
use crate::queue::Queue;
use crate::rng::{SimRng, Stream};
use crate::scenario::{Fault, LockService, Scenario, When};
use crate::store::Store;
use crate::trace::{Summary, Trace};
use crate::worker::{Action, Timer, Worker};

enum Due {
    /// `lost` says why the message will never be read, if it won't.
    Deliver {
        msg: u32,
        from: Actor,
        to: Actor,
        body: Msg,
        lost: Option<String>,
    },
    Timer {
        worker: u8,
        timer: Timer,
    },
    /// Actions held back by a pause, carried out on resume.
    Perform {
        worker: u8,
        actions: Vec<Action>,
    },
    Pause {
        worker: u8,
        pause_ms: u64,
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
        snapshot: crate::lock::Snapshot,
        epoch: u32,
    },
    NodeCrash {
        node: u8,
        down_ms: u64,
    },
    NodeRestart {
        node: u8,
    },
    Promote,
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
    crashed: bool,
}

struct NodeSlot {
    node: LockNode,
    down: bool,
}

pub struct World<'a> {
    scenario: &'a Scenario,
    now_us: u64,
    queue: Queue<Due>,
    slots: Vec<Slot>,
    nodes: Vec<NodeSlot>,
    /// Redis failover: which node is the primary, and how many times it died.
    primary: u8,
    primary_epoch: u32,
    /// Redlock: the value and holder that hold a majority, if any.
    majority: Option<(u64, Actor)>,
    store: Store,
    net_rng: SimRng,
    next_msg: u32,
    fault_fired: Vec<bool>,
    events: Vec<Event>,
    observer: Observer,
    truncated: bool,
}

impl<'a> World<'a> {
    pub fn new(scenario: &'a Scenario) -> World<'a> {
        let slots = (0..scenario.workers)
            .map(|index| Slot {
                worker: Worker::new(Actor::Worker(index)),
                rng: SimRng::new(scenario.seed, Stream::Worker(index)),
                paused_until_us: None,
                deferred: Vec::new(),
                crashed: false,
            })
            .collect();
        let nodes = (0..scenario.lock_service.nodes())
            .map(|index| {
                let actor = Actor::LockNode(index);
                let node = match scenario.lock_service {
                    LockService::Consensus => LockNode::Etcd(EtcdNode::new(actor, scenario.first_token)),
                    _ => LockNode::Redis(RedisNode::new(actor, scenario.first_token)),
                };
                NodeSlot { node, down: false }
            })
            .collect();
        let mut world = World {
            scenario,
            now_us: 0,
            queue: Queue::new(),
            slots,
            nodes,
            primary: 0,
            primary_epoch: 0,
            majority: None,
            store: Store::new(scenario.store, scenario.fencing),
            net_rng: SimRng::new(scenario.seed, Stream::Network),
            next_msg: 0,
            fault_fired: vec![false; scenario.faults.len()],
            events: Vec::new(),
            observer: Observer::default(),
            truncated: false,
        };
        world.schedule_start();
        world
    }

    fn schedule_start(&mut self) {
        for index in 0..self.scenario.workers {
            let at_us = u64::from(index) * self.scenario.start_gap_ms * 1000;
            self.queue.push(at_us, Due::Timer { worker: index, timer: Timer::Start });
        }
        for fault in &self.scenario.faults {
            let at_us = fault.at_ms() * 1000;
            let worker = fault.target().worker_index().unwrap_or(0);
            let node = match fault.target() {
                Actor::LockNode(index) => index,
                _ => 0,
            };
            match *fault {
                Fault::Pause { when: When::AtMs(_), pause_ms, .. } => self.queue.push(at_us, Due::Pause { worker, pause_ms }),
                Fault::Crash { .. } => self.queue.push(at_us, Due::Crash { worker }),
                Fault::NodeCrash { down_ms, .. } => self.queue.push(at_us, Due::NodeCrash { node, down_ms }),
                Fault::ClockJump { jump_ms, .. } => self.queue.push(at_us, Due::ClockJump { node, jump_ms }),
                Fault::ClockDrift { ppm, .. } => {
                    if let Some(redis) = self.nodes[usize::from(node)].node.redis() {
                        redis.clock.ppm = ppm;
                    }
                }
                // These strike when a message or a write passes by.
                Fault::Pause { when: When::BeforeWrite(_), .. }
                | Fault::DelayWrite { .. }
                | Fault::LoseMessage { .. }
                | Fault::Partition { .. } => {}
            }
        }
    }

    /// Runs to quiescence or to the event bound, whichever comes first.
    pub fn run(mut self) -> Trace {
        // Most pops log an event; expiry checks and stale timers may not, but
        // each is caused by an earlier event, so four pops per event is ample.
        let pops_max = u64::from(self.scenario.events_max) * 4;
        for _ in 0..pops_max {
            if self.events.len() >= self.scenario.events_max as usize {
                self.truncated = true;
                break;
            }
            let Some((at_us, due)) = self.queue.pop() else { break };
            assert!(at_us >= self.now_us, "time never runs backwards");
            self.now_us = at_us;
            self.dispatch(due);
        }
        self.finish()
    }

    fn dispatch(&mut self, due: Due) {
        if let Some(worker) = due_worker(&due) {
            if self.hold_for_worker(worker, &due) {
                let slot = &mut self.slots[usize::from(worker)];
                if !slot.crashed {
                    slot.deferred.push(due);
                } else {
                    self.drop_for_crash(due);
                }
                return;
            }
        }
        match due {
            Due::Deliver { msg, from, to, body, lost } => self.deliver(msg, from, to, body, lost),
            Due::Timer { worker, timer } => {
                let ctx = crate::worker::Ctx { now_us: self.now_us, scenario: self.scenario };
                let slot = &mut self.slots[usize::from(worker)];
                let actions = slot.worker.on_timer(timer, ctx, &mut slot.rng);
                self.perform(worker, actions);
            }
            Due::Perform { worker, actions } => self.perform(worker, actions),
            Due::Pause { worker, pause_ms } => self.begin_pause(worker, pause_ms),
            Due::Resume { worker } => self.resume(worker),
            Due::Crash { worker } => self.crash(worker),
            Due::ExpiryCheck { node } => self.expiry_check(node),
            Due::Replicate { snapshot, epoch } => self.replicate(snapshot, epoch),
            Due::NodeCrash { node, down_ms } => self.node_crash(node, down_ms),
            Due::NodeRestart { node } => self.node_restart(node),
            Due::Promote => self.promote(),
            Due::ClockJump { node, jump_ms } => self.clock_jump(node, jump_ms),
        }
    }

    /// Whether a due item for this worker must wait (a pause) or be dropped
    /// (a crash) rather than run now.
    fn hold_for_worker(&self, worker: u8, due: &Due) -> bool {
        let slot = &self.slots[usize::from(worker)];
        let fault_control = matches!(due, Due::Resume { .. } | Due::Pause { .. } | Due::Crash { .. });
        slot.crashed || (slot.paused_until_us.is_some() && !fault_control)
    }

    fn deliver(&mut self, msg: u32, from: Actor, to: Actor, body: Msg, lost: Option<String>) {
        let label = body.label();
        if let Some(why) = lost.or_else(|| self.unreachable_reason(from, to)) {
            let text = format!("{label} from {from} never reached {to}: {why}");
            return self.log(to, Kind::Lost { msg, to, label }, None, text);
        }
        let text = format!("{to} received {label} from {from}");
        self.log(to, Kind::Receive { msg, from, label }, None, text);
        match to {
            Actor::Worker(index) => {
                let ctx = crate::worker::Ctx { now_us: self.now_us, scenario: self.scenario };
                let slot = &mut self.slots[usize::from(index)];
                let actions = slot.worker.on_message(from, body, ctx, &mut slot.rng);
                self.perform(index, actions);
            }
            Actor::LockNode(node) => {
                let outcome = self.nodes[usize::from(node)].node.handle(self.now_us, from, &body);
                self.node_outcome(node, outcome);
            }
            Actor::Store => self.store_request(from, body),
        }
    }

    /// Logs an event, unless the run is at its bound: then it is marked
    /// truncated and stops at the next step, with exactly `events_max` events
    /// before its closing line.
    fn log(&mut self, actor: Actor, kind: Kind, token: Option<u64>, text: String) {
        if self.events.len() >= self.scenario.events_max as usize {
            self.truncated = true;
            return;
        }
        self.record(actor, kind, token, text);
    }

    fn record(&mut self, actor: Actor, kind: Kind, token: Option<u64>, text: String) {
        self.observer.observe(self.now_us, actor, &kind, token);
        let index = self.events.len() as u32;
        let tally = self.observer.tally();
        self.events.push(Event { index, t_us: self.now_us, actor, kind, token, text, tally });
    }

    fn finish(mut self) -> Trace {
        if self.truncated {
            let text = format!("The run stopped after {} events, its bound", self.scenario.events_max);
            self.record(Actor::Store, Kind::Truncated, None, text);
        }
        let end_us = self.now_us;
        let summary = Summary::new(self.scenario, &self.observer, self.store.current(), end_us, self.truncated);
        let spans = self.observer.finish(end_us);
        Trace { scenario: self.scenario.clone(), events: self.events, summary, spans }
    }
}

fn due_worker(due: &Due) -> Option<u8> {
    match due {
        Due::Deliver { to, .. } => to.worker_index(),
        Due::Timer { worker, .. }
        | Due::Perform { worker, .. }
        | Due::Pause { worker, .. }
        | Due::Resume { worker }
        | Due::Crash { worker } => Some(*worker),
        _ => None,
    }
}
