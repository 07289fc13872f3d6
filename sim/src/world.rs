//! The world runs a scenario: it pops the next due item, hands it to the
//! actor it concerns, and carries out what the actor returns — sending
//! messages with latency, setting timers, logging notes. Faults live here,
//! outside the actors, as they do in reality: a paused process does not know
//! it is paused.

use crate::actor::Actor;
use crate::event::{Event, Kind};
use crate::lock::{Note, RedisNode};
use crate::msg::Msg;
use crate::observer::{Highlight, Observer};
use crate::queue::Queue;
use crate::rng::{SimRng, Stream};
use crate::scenario::{Fault, Scenario, When};
use crate::store::{Store, Verdict};
use crate::trace::{Summary, Trace};
use crate::worker::{Action, Timer, Worker};

/// Longest random stagger of a worker's threads when it resumes from a pause:
/// which of its pending actions runs first is a real race.
const RESUME_JITTER_US: u64 = 100;

enum Due {
    Deliver { msg: u32, from: Actor, to: Actor, body: Msg },
    Timer { worker: u8, timer: Timer },
    /// Actions held back by a pause, carried out on resume.
    Perform { worker: u8, actions: Vec<Action> },
    Pause { worker: u8, pause_ms: u64 },
    Resume { worker: u8 },
    Crash { worker: u8 },
    ExpiryCheck,
}

struct Slot {
    worker: Worker,
    rng: SimRng,
    paused_until_us: Option<u64>,
    deferred: Vec<Due>,
    crashed: bool,
}

pub struct World<'a> {
    scenario: &'a Scenario,
    now_us: u64,
    queue: Queue<Due>,
    slots: Vec<Slot>,
    node: RedisNode,
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
        let lock = Actor::LockNode(0);
        let slots = (0..scenario.workers)
            .map(|index| Slot {
                worker: Worker::new(Actor::Worker(index), lock),
                rng: SimRng::new(scenario.seed, Stream::Worker(index)),
                paused_until_us: None,
                deferred: Vec::new(),
                crashed: false,
            })
            .collect();
        let mut world = World {
            scenario,
            now_us: 0,
            queue: Queue::new(),
            slots,
            node: RedisNode::new(lock, scenario.first_token),
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
            let Some(worker) = fault.target().worker_index() else { continue };
            match *fault {
                Fault::Pause { when: When::AtMs(at_ms), pause_ms, .. } => {
                    self.queue.push(at_ms * 1000, Due::Pause { worker, pause_ms })
                }
                Fault::Crash { at_ms, .. } => self.queue.push(at_ms * 1000, Due::Crash { worker }),
                Fault::Pause { when: When::BeforeWrite(_), .. } | Fault::DelayWrite { .. } => {}
            }
        }
    }

    /// Runs to quiescence or to the event bound, whichever comes first.
    pub fn run(mut self) -> Trace {
        // Each pop logs at least one event or is one of a bounded number of
        // silent checks, so this bound is never the one that bites.
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
            let slot = &mut self.slots[usize::from(worker)];
            if slot.crashed {
                return self.drop_for_crash(due);
            }
            let resuming = matches!(due, Due::Resume { .. } | Due::Pause { .. } | Due::Crash { .. });
            if slot.paused_until_us.is_some() && !resuming {
                slot.deferred.push(due);
                return;
            }
        }
        match due {
            Due::Deliver { msg, from, to, body } => self.deliver(msg, from, to, body),
            Due::Timer { worker, timer } => {
                let slot = &mut self.slots[usize::from(worker)];
                let actions = slot.worker.on_timer(timer, self.scenario, &mut slot.rng);
                self.perform(worker, actions);
            }
            Due::Perform { worker, actions } => self.perform(worker, actions),
            Due::Pause { worker, pause_ms } => self.begin_pause(worker, pause_ms),
            Due::Resume { worker } => self.resume(worker),
            Due::Crash { worker } => self.crash(worker),
            Due::ExpiryCheck => {
                if let Some(note) = self.node.expire(self.now_us) {
                    self.note(Actor::LockNode(0), note);
                }
            }
        }
    }

    fn deliver(&mut self, msg: u32, from: Actor, to: Actor, body: Msg) {
        let label = body.label();
        let text = format!("{to} received {label} from {from}");
        self.log(to, Kind::Receive { msg, from, label }, None, text);
        match to {
            Actor::Worker(index) => {
                let slot = &mut self.slots[usize::from(index)];
                let actions = slot.worker.on_message(body, self.scenario, &mut slot.rng);
                self.perform(index, actions);
            }
            Actor::LockNode(_) => {
                let outcome = self.node.handle(self.now_us, from, &body);
                for note in outcome.notes {
                    self.note(to, note);
                }
                if let Some(at_us) = outcome.expiry_check_at_us {
                    self.queue.push(at_us, Due::ExpiryCheck);
                }
                self.send(to, from, outcome.reply);
            }
            Actor::Store => self.write(from, body),
        }
    }

    fn write(&mut self, writer: Actor, body: Msg) {
        let Msg::Write(request) = body else { unreachable!("the store only receives writes, not {body:?}") };
        let reply = match self.store.write(writer, &request) {
            Verdict::Accepted { replaced } => {
                let zombie = self.observer.is_zombie(writer, request.epoch);
                let stale_overwrite = Observer::is_stale_overwrite(request.epoch, replaced);
                let text = match replaced {
                    Some(old) if stale_overwrite => {
                        self.observer.highlight = Some(Highlight::StaleOverwrite {
                            writer,
                            token: request.token,
                            victim: old.writer,
                            victim_token: old.token,
                        });
                        format!("Store accepted {writer}'s stale write{}: it overwrote {}'s newer data", token_words(request.token), old.writer)
                    }
                    _ if zombie => format!(
                        "Store accepted {writer}'s write{}, though {writer} no longer holds the lock",
                        token_words(request.token)
                    ),
                    _ => format!("Store accepted {writer}'s write{}", token_words(request.token)),
                };
                self.log(Actor::Store, Kind::WriteAccepted { writer, zombie, stale_overwrite }, request.token, text);
                Msg::WriteReply { accepted: true, reason: String::new() }
            }
            Verdict::Rejected { reason } => {
                self.observer.highlight = Some(Highlight::Rejected { writer, token: request.token });
                self.observer.rejected_reason = Some(reason.clone());
                let text = format!("Store rejected {writer}'s write: {reason}");
                self.log(Actor::Store, Kind::WriteRejected { writer }, request.token, text);
                Msg::WriteReply { accepted: false, reason }
            }
        };
        self.send(Actor::Store, writer, reply);
    }

    /// Carries out a worker's actions in order. A pause fault due "before
    /// write n" strikes when the worker is about to send that write: the
    /// write and everything after it wait for the resume.
    fn perform(&mut self, worker: u8, actions: Vec<Action>) {
        let actor = Actor::Worker(worker);
        let mut actions = actions.into_iter();
        while let Some(action) = actions.next() {
            match action {
                Action::Send(to, Msg::Write(mut request)) => {
                    if let Some(pause_ms) = self.pause_before_write(actor, request.nth) {
                        let mut held = vec![Action::Send(to, Msg::Write(request))];
                        held.extend(actions);
                        self.begin_pause(worker, pause_ms);
                        self.slots[usize::from(worker)].deferred.push(Due::Perform { worker, actions: held });
                        return;
                    }
                    request.epoch = self.observer.epoch_of(actor);
                    self.send(actor, to, Msg::Write(request));
                }
                Action::Send(to, body) => self.send(actor, to, body),
                Action::After { delay_us, timer } => self.queue.push(self.now_us + delay_us, Due::Timer { worker, timer }),
                Action::Note { kind, token, text } => self.log(actor, kind, token, text),
            }
        }
    }

    /// The length of an unfired "pause before write n" fault, firing it.
    fn pause_before_write(&mut self, actor: Actor, nth: u8) -> Option<u64> {
        let index = self.scenario.faults.iter().enumerate().position(|(index, fault)| {
            !self.fault_fired[index]
                && matches!(*fault, Fault::Pause { worker, when: When::BeforeWrite(n), .. } if worker == actor && n == nth)
        })?;
        self.fault_fired[index] = true;
        match self.scenario.faults[index] {
            Fault::Pause { pause_ms, .. } => Some(pause_ms),
            _ => unreachable!(),
        }
    }

    fn write_delay_us(&mut self, actor: Actor, body: &Msg) -> u64 {
        let Msg::Write(request) = body else { return 0 };
        let found = self.scenario.faults.iter().enumerate().find_map(|(index, fault)| match *fault {
            Fault::DelayWrite { worker, write, delay_ms } if worker == actor && write == request.nth && !self.fault_fired[index] => {
                Some((index, delay_ms))
            }
            _ => None,
        });
        let Some((index, delay_ms)) = found else { return 0 };
        self.fault_fired[index] = true;
        delay_ms * 1000
    }

    fn send(&mut self, from: Actor, to: Actor, body: Msg) {
        let msg = self.next_msg;
        self.next_msg += 1;
        let mut latency_us = self.net_rng.between(self.scenario.latency_us_min, self.scenario.latency_us_max);
        let delay_us = self.write_delay_us(from, &body);
        latency_us += delay_us;
        let label = body.label();
        let text = if delay_us > 0 {
            format!("{from} sent {label} to {to}; the network holds the packet for {}", crate::format_us(delay_us))
        } else {
            format!("{from} sent {label} to {to}")
        };
        self.log(from, Kind::Send { msg, to, label }, None, text);
        self.queue.push(self.now_us + latency_us, Due::Deliver { msg, from, to, body });
    }

    fn begin_pause(&mut self, worker: u8, pause_ms: u64) {
        let until_us = self.now_us + pause_ms * 1000;
        let slot = &mut self.slots[usize::from(worker)];
        let until_us = slot.paused_until_us.map_or(until_us, |earlier| earlier.max(until_us));
        let already_paused = slot.paused_until_us.replace(until_us).is_some();
        if !already_paused {
            let actor = Actor::Worker(worker);
            let text = format!("{actor} froze in a stop-the-world pause of {pause_ms} ms: no thread of it runs, timers included");
            self.log(actor, Kind::PauseBegan { until_us }, None, text);
        }
        self.queue.push(until_us, Due::Resume { worker });
    }

    fn resume(&mut self, worker: u8) {
        let slot = &mut self.slots[usize::from(worker)];
        match slot.paused_until_us {
            Some(until_us) if until_us <= self.now_us => slot.paused_until_us = None,
            // An earlier resume of a pause that was since extended.
            _ => return,
        }
        let deferred = std::mem::take(&mut slot.deferred);
        for due in deferred {
            let jitter_us = slot.rng.between(0, RESUME_JITTER_US);
            self.queue.push(self.now_us + jitter_us, due);
        }
        let actor = Actor::Worker(worker);
        self.log(actor, Kind::PauseEnded, None, format!("{actor} resumed, unaware that any time passed"));
    }

    fn crash(&mut self, worker: u8) {
        let slot = &mut self.slots[usize::from(worker)];
        slot.crashed = true;
        slot.paused_until_us = None;
        slot.deferred.clear();
        let actor = Actor::Worker(worker);
        let text = format!("{actor} crashed without releasing: only the lease's expiry can free the lock");
        self.log(actor, Kind::Crashed, None, text);
    }

    fn drop_for_crash(&mut self, due: Due) {
        if let Due::Deliver { msg, from: _, to, body } = due {
            let label = body.label();
            let text = format!("{label} reached {to}, which has crashed: nobody reads it");
            self.log(to, Kind::Lost { msg, to, label }, None, text);
        }
    }

    fn note(&mut self, actor: Actor, note: Note) {
        self.log(actor, note.kind, note.token, note.text);
    }

    fn log(&mut self, actor: Actor, kind: Kind, token: Option<u64>, text: String) {
        self.observer.observe(self.now_us, actor, &kind, token);
        let index = self.events.len() as u32;
        let tally = self.observer.tally();
        self.events.push(Event { index, t_us: self.now_us, actor, kind, token, text, tally });
    }

    fn finish(mut self) -> Trace {
        if self.truncated {
            let text = format!("The run stopped after {} events, its bound", self.scenario.events_max);
            self.log(Actor::Store, Kind::Truncated, None, text);
        }
        let end_us = self.now_us;
        let tally = self.observer.tally();
        let highlight = self.observer.highlight;
        let rejected_reason = self.observer.rejected_reason.clone();
        let summary = Summary::new(self.scenario, tally, self.store.current(), highlight, rejected_reason, end_us, self.truncated);
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
        Due::ExpiryCheck => None,
    }
}

fn token_words(token: Option<u64>) -> String {
    token.map_or_else(String::new, |token| format!(" (token {token})"))
}
