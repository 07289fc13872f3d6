//! A history judged: its records checked against each other, then replayed
//! as the engine's typed events through the engine's own `Observer`, so its
//! counters, timelines and verdict are computed exactly as a model run's
//! are. The flags a world stamps on a write from its ground truth (zombie,
//! stale overwrite, rightful) are stamped here from the history's grants,
//! by the very rules the world stamps its own with (`engine/src/history.rs`:
//! `is_zombie_write`, `is_stale_overwrite`, `is_rightful_refusal`).

use super::{Entry, History, HistoryError, Line, ReleaseHow};
use crate::actor::{Actor, WORKERS_MAX};
use crate::event::{Disbelief, Event, Fate, Finish, Kind};
use crate::mode::Mode;
use crate::msg::{Msg, Refusal, WriteReq};
use crate::observer::Observer;
use crate::scenario::{LockService, Scenario};
use crate::store::Datum;
use crate::trace::Trace;
use crate::{format_us, Counts, Record};
use std::collections::HashMap;

/// The lock service's lane: a history's grants are one service's.
const SERVICE: Actor = Actor::LockNode(0);

/// A history's trace, with the line of each write's decision so a notice
/// can point back into the file.
#[derive(Clone, Debug)]
pub struct Judged {
    pub trace: Trace,
    /// The first write accepted as a zombie's or over newer data: its line
    /// in the file, and its `WriteAccepted` event's index.
    pub first_damage: Option<(u32, u32)>,
}

impl Judged {
    /// Whether a write damaged the data: a zombie write or a stale overwrite.
    pub fn damaged(&self) -> bool {
        self.first_damage.is_some()
    }
}

/// What happens at one moment of the replay, in time order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// A worker stops believing it holds the lock (`why`), none of its
    /// records after this moment being under that grant.
    BeliefEnds {
        worker: Actor,
        why: Disbelief,
    },
    Record(usize),
    /// A write's decision: the record's index.
    Decision(usize),
    PauseEnds(usize),
}

/// Checks the history's records against each other and replays them: a
/// trace the page and the command line can tell as they tell a run.
pub fn judge(history: &History) -> Result<Judged, HistoryError> {
    check_records(history)?;
    let steps = schedule(history);
    let mut replay = Replay::new(history);
    for (t_us, step) in steps {
        replay.expire_before(t_us);
        replay.step(t_us, step).map_err(HistoryError::one)?;
    }
    Ok(replay.finish())
}

/// What can be checked of each record alone and against its neighbours in
/// the file: time order, repeats, lengths, pauses, and each write's grant.
fn check_records(history: &History) -> Result<(), HistoryError> {
    let mut problems = Vec::new();
    let mut seen: HashMap<Entry, u32> = HashMap::new();
    let mut writes: HashMap<(Actor, Option<u64>, u64), (u32, bool)> = HashMap::new();
    let mut previous: Option<&Line> = None;
    let mut state = Seen::default();
    for record in &history.records {
        let Line { line, entry } = *record;
        if let Some(before) = previous.filter(|before| before.entry.at_us() > entry.at_us()) {
            problems.push(format!(
                "line {line} happens at {}, before line {}'s {}: records must be in time order (were lines reordered?)",
                format_us(entry.at_us()),
                before.line,
                format_us(before.entry.at_us())
            ));
        }
        previous = Some(record);
        if let Some(first) = seen.insert(entry, line) {
            problems.push(format!("line {line} repeats line {first} exactly (a duplicated line?)"));
        }
        if let Some(problem) = alone(history, &mut state, record) {
            problems.push(problem);
        }
        if let Entry::Write { writer, token, sent_at_us, accepted, .. } = entry {
            if let Some((first, decided)) = writes.insert((writer, token, sent_at_us), (line, accepted)) {
                if decided != accepted {
                    problems.push(format!(
                        "lines {first} and {line} are the same write ({writer}'s, sent at {}) but one says accepted and the other refused",
                        format_us(sent_at_us)
                    ));
                }
            }
        }
        if problems.len() >= super::PROBLEMS_MAX {
            break;
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(HistoryError { problems })
    }
}

/// What the records so far say of each worker: its latest grant (line,
/// token) and its latest pause (line, from, to). Records are in time order,
/// so the latest so far is the one in force.
#[derive(Default)]
struct Seen {
    grant: HashMap<Actor, (u32, Option<u64>)>,
    pause: HashMap<Actor, (u32, u64, u64)>,
}

/// The problem with one record, read with the records before it.
fn alone(history: &History, seen: &mut Seen, record: &Line) -> Option<String> {
    let Line { line, entry } = *record;
    let problem = match entry {
        Entry::Grant { lease_start_us, lease_end_us, .. } if lease_end_us <= lease_start_us => Some(format!(
            "line {line}: the lease ends ({}) before it starts ({})",
            format_us(lease_end_us),
            format_us(lease_start_us)
        )),
        Entry::Renewal { at_us, lease_end_us, .. } if lease_end_us <= at_us => {
            Some(format!("line {line}: the renewal at {} ends the lease at {}, not after it", format_us(at_us), format_us(lease_end_us)))
        }
        Entry::Pause { from_us, to_us, .. } if to_us <= from_us => {
            Some(format!("line {line}: the pause ends ({}) before it starts ({})", format_us(to_us), format_us(from_us)))
        }
        Entry::Write { decided_at_us, sent_at_us, .. } if decided_at_us < sent_at_us => Some(format!(
            "line {line}: the store decided at {}, before the write was sent at {}",
            format_us(decided_at_us),
            format_us(sent_at_us)
        )),
        Entry::Write { writer, accepted: false, .. } if !history.fencing => Some(format!(
            "line {line}: the store refused {writer}'s write, but the header says its fencing is off, and a store that checks nothing refuses nothing"
        )),
        Entry::Write { writer, token, sent_at_us, .. } => match seen.grant.get(&writer) {
            None => Some(format!("line {line}: {writer} writes at {}, but no grant before it gave {writer} the lock", format_us(sent_at_us))),
            Some((grant_line, granted)) if token.is_some() && token != *granted => Some(format!(
                "line {line}: {writer} writes with token {}, but its grant (line {grant_line}) gave it {}",
                token.unwrap_or(0),
                granted.map_or("no token".to_string(), |token| format!("token {token}"))
            )),
            _ => paused(seen, line, writer, sent_at_us, "sends a write"),
        },
        Entry::Release { worker, at_us, .. } => match seen.grant.get(&worker) {
            None => Some(format!("line {line}: {worker} releases at {}, but no grant before it gave {worker} the lock", format_us(at_us))),
            Some(_) => paused(seen, line, worker, at_us, "releases the lock"),
        },
        Entry::Pause { worker, from_us, .. } => paused(seen, line, worker, from_us, "starts another pause"),
        _ => None,
    };
    match entry {
        Entry::Grant { holder, token, .. } => _ = seen.grant.insert(holder, (line, token)),
        Entry::Pause { worker, from_us, to_us } => _ = seen.pause.insert(worker, (line, from_us, to_us)),
        _ => {}
    }
    problem
}

/// A frozen worker does nothing: the problem if `worker` acts at `at_us`
/// inside its latest pause.
fn paused(seen: &Seen, line: u32, worker: Actor, at_us: u64, acts: &str) -> Option<String> {
    let (pause_line, from_us, to_us) = *seen.pause.get(&worker)?;
    (from_us < at_us && at_us < to_us).then(|| {
        format!(
            "line {line}: {worker} {acts} at {}, inside its pause of line {pause_line} ({} to {}): a frozen process does nothing",
            format_us(at_us),
            format_us(from_us),
            format_us(to_us)
        )
    })
}

/// Every step of the replay with its time, sorted: at one moment, beliefs
/// end first, then the records in file order, each write's decision after
/// its send.
fn schedule(history: &History) -> Vec<(u64, Step)> {
    let mut steps: Vec<(u64, u8, u32, Step)> = Vec::with_capacity(history.records.len() * 2);
    for (index, record) in history.records.iter().enumerate() {
        steps.push((record.entry.at_us(), 1, record.line, Step::Record(index)));
        match record.entry {
            Entry::Write { decided_at_us, .. } => steps.push((decided_at_us, 1, record.line, Step::Decision(index))),
            Entry::Pause { to_us, .. } => steps.push((to_us, 1, record.line, Step::PauseEnds(index))),
            Entry::Grant { holder, .. } => {
                if let Some((t_us, why)) = belief_end(history, index, holder) {
                    steps.push((t_us, 0, record.line, Step::BeliefEnds { worker: holder, why }));
                }
            }
            _ => {}
        }
    }
    // Stable: one moment's steps keep their order of rank and line.
    steps.sort_by_key(|(t_us, rank, line, _)| (*t_us, *rank, *line));
    steps.into_iter().map(|(t_us, _, _, step)| (t_us, step)).collect()
}

/// When the holder of the grant at `grant` stops believing it holds the
/// lock, if before its next grant: a history records no belief, so it is
/// read from what the worker did. It believes through its lease (as
/// renewed), and past it for as long as it still acts under the grant; a
/// release ends the belief itself (`Kind::Released`), so none is returned.
fn belief_end(history: &History, grant: usize, holder: Actor) -> Option<(u64, Disbelief)> {
    let Entry::Grant { lease_end_us, .. } = history.records[grant].entry else { return None };
    let mut end = (lease_end_us, Disbelief::ValidityOver);
    for record in &history.records[grant + 1..] {
        match record.entry {
            Entry::Grant { holder: next, .. } if next == holder => return None,
            Entry::Release { worker, .. } if worker == holder => return None,
            Entry::Renewal { holder: renewed, lease_end_us, .. } if renewed == holder && lease_end_us >= end.0 => {
                end = (lease_end_us, Disbelief::ValidityOver);
            }
            Entry::Write { writer, decided_at_us, accepted, .. } if writer == holder && decided_at_us >= end.0 => {
                end = (decided_at_us, if accepted { Disbelief::ValidityOver } else { Disbelief::StoreRefused });
            }
            _ => {}
        }
    }
    Some(end)
}

/// The replay's state: the grant history (the world's ground truth), the
/// store, each lease, and the record being written.
struct Replay<'a> {
    history: &'a History,
    observer: Observer,
    events: Vec<Event>,
    /// Every grant's holder in order; a grant's epoch is its position + 1.
    grants: Vec<Actor>,
    epoch_of: [u32; WORKERS_MAX as usize],
    /// Each worker's open lease: when it ends.
    lease_end_us: [Option<u64>; WORKERS_MAX as usize],
    /// The store's data, the epoch it was written under, its highest token.
    current: Option<(Datum, u32)>,
    highest_token: Option<u64>,
    /// Each write's epoch and its `Send`'s index, by record index.
    sends: HashMap<usize, (u32, u32)>,
    /// Writes so far under each worker's current grant (`WriteReq::nth`).
    nth: [u8; WORKERS_MAX as usize],
    /// Whether the worker's latest decided write was refused: its job did
    /// not land.
    refused_last: [bool; WORKERS_MAX as usize],
    first_damage: Option<(u32, u32)>,
    seen_us: u64,
}

impl<'a> Replay<'a> {
    fn new(history: &'a History) -> Replay<'a> {
        Replay {
            history,
            observer: Observer::new(Mode::Full),
            events: Vec::with_capacity(history.records.len() * 3),
            grants: Vec::new(),
            epoch_of: [0; WORKERS_MAX as usize],
            lease_end_us: [None; WORKERS_MAX as usize],
            current: None,
            highest_token: None,
            sends: HashMap::new(),
            nth: [0; WORKERS_MAX as usize],
            refused_last: [false; WORKERS_MAX as usize],
            first_damage: None,
            seen_us: 0,
        }
    }

    /// Logs one event, after the observer has seen it: as the world does.
    fn log(&mut self, t_us: u64, actor: Actor, kind: Kind, token: Option<u64>) -> u32 {
        self.observer.observe(t_us, actor, &kind, token);
        self.seen_us = t_us;
        let index = self.events.len() as u32;
        self.events.push(Event { index, t_us, actor, kind, token, tally: self.observer.tally() });
        index
    }

    /// Leases that ran out before `t_us` end at their end. A Redis key is
    /// gone once the time is past its deadline, not at it (`keyIsExpired`
    /// in Redis's src/db.c: `now > when`).
    fn expire_before(&mut self, t_us: u64) {
        // At most one expiry per worker: the loop ends.
        while let Some((index, end_us)) = self
            .lease_end_us
            .iter()
            .enumerate()
            .filter_map(|(index, end)| end.filter(|end_us| *end_us < t_us).map(|end_us| (index, end_us)))
            .min_by_key(|(_, end_us)| *end_us)
        {
            self.lease_end_us[index] = None;
            let holder = Actor::Worker(index as u8);
            self.log(end_us.max(self.seen_us), SERVICE, Kind::Expired { holder, revision: None }, None);
        }
    }

    fn slot(worker: Actor) -> usize {
        usize::from(worker.worker_index().unwrap_or(0))
    }

    fn step(&mut self, t_us: u64, step: Step) -> Result<(), String> {
        let index = match step {
            Step::BeliefEnds { worker, why } => {
                self.log(t_us, worker, Kind::LostLock { why }, None);
                return Ok(());
            }
            Step::PauseEnds(index) => {
                self.log(t_us, self.history.records[index].entry.worker(), Kind::PauseEnded, None);
                return Ok(());
            }
            Step::Decision(index) => return self.decide(t_us, index),
            Step::Record(index) => index,
        };
        let Line { line, entry } = self.history.records[index];
        match entry {
            Entry::Grant { holder, token, lease_end_us, .. } => {
                // A worker whose last write was refused and who takes the
                // lock again is taken to retry its job, as the model's job
                // runner does (`worker::JOB_RETRIES_MAX`): its next write
                // redoes the work (the ledger's `work_redone`).
                if std::mem::take(&mut self.refused_last[Self::slot(holder)]) {
                    self.log(t_us, holder, Kind::Retry, None);
                }
                self.grants.push(holder);
                self.epoch_of[Self::slot(holder)] = self.grants.len() as u32;
                self.lease_end_us[Self::slot(holder)] = Some(lease_end_us);
                self.nth[Self::slot(holder)] = 0;
                self.log(t_us, SERVICE, Kind::Granted { holder, expires_at_us: lease_end_us }, token);
                self.log(t_us, holder, Kind::Acquired { valid_until_us: lease_end_us }, token);
            }
            Entry::Renewal { holder, lease_end_us, .. } => {
                if self.lease_end_us[Self::slot(holder)].is_none() {
                    return Err(format!("line {line}: {holder}'s lease is renewed at {}, but it holds none then", format_us(t_us)));
                }
                self.lease_end_us[Self::slot(holder)] = Some(lease_end_us);
                self.log(t_us, SERVICE, Kind::Renewed { holder, expires_at_us: lease_end_us }, None);
            }
            Entry::Expiry { holder, .. } => {
                if self.lease_end_us[Self::slot(holder)].take().is_none() {
                    return Err(format!("line {line}: {holder}'s lease expires at {}, but it holds none then", format_us(t_us)));
                }
                self.log(t_us, SERVICE, Kind::Expired { holder, revision: None }, None);
            }
            Entry::Release { worker, how, .. } => {
                self.log(t_us, worker, Kind::Released, None);
                let deleted = match how {
                    ReleaseHow::IfMine => self.lease_end_us[Self::slot(worker)].is_some().then_some(worker),
                    ReleaseHow::PlainDel => {
                        (0..WORKERS_MAX).map(Actor::Worker).find(|holder| self.lease_end_us[Self::slot(*holder)].is_some())
                    }
                };
                match deleted {
                    Some(holder) => {
                        self.lease_end_us[Self::slot(holder)] = None;
                        self.log(t_us, SERVICE, Kind::Deleted { holder, by: worker, revision: None }, None);
                    }
                    None => {
                        self.log(t_us, worker, Kind::Finished { how: Finish::NothingToRelease }, None);
                    }
                }
            }
            Entry::Pause { worker, to_us, .. } => {
                self.log(t_us, worker, Kind::PauseBegan { until_us: to_us }, None);
            }
            Entry::Write { writer, token, .. } => {
                let epoch = self.epoch_of[Self::slot(writer)];
                let nth = &mut self.nth[Self::slot(writer)];
                *nth = nth.saturating_add(1);
                let body = Msg::Write(WriteReq { token, epoch, nth: *nth, version: None });
                let msg = index as u32;
                let kind = Kind::Send { msg, to: Actor::Store, req: msg, body, held_us: 0, fate: None, settled_at: None };
                let send = self.log(t_us, writer, kind, token);
                self.sends.insert(index, (epoch, send));
            }
        }
        Ok(())
    }

    /// The store's decision on a write, as the history gives it, stamped as
    /// the world stamps its own.
    fn decide(&mut self, t_us: u64, index: usize) -> Result<(), String> {
        let Line { line, entry } = self.history.records[index];
        let Entry::Write { writer, token, accepted, .. } = entry else { unreachable!("only writes are decided") };
        let (epoch, send) = self.sends[&index];
        let msg = index as u32;
        let Kind::Send { body, .. } = self.events[send as usize].kind else { unreachable!("a write's send is a send") };
        self.log(t_us, Actor::Store, Kind::Receive { msg, from: writer, req: msg, body }, token);
        let below = match (token, self.highest_token) {
            (Some(token), Some(highest)) if token < highest => Some((token, highest)),
            _ => None,
        };
        let (kind, fate) = if accepted {
            if let (true, Some((token, highest))) = (self.history.fencing, below) {
                return Err(format!(
                    "line {line}: the store accepted {writer}'s token {token} after accepting {highest}, but the header says it fences: a fencing store refuses a lower token (say \"fencing\": \"off\" if it did not check)"
                ));
            }
            let zombie = fencing_engine::is_zombie_write(&self.grants, writer, epoch);
            let (replaced, replaced_epoch) = self.current.map_or((None, 0), |(datum, epoch)| (Some(datum), epoch));
            let stale_overwrite = fencing_engine::is_stale_overwrite(epoch, replaced_epoch);
            self.current = Some((Datum { writer, token }, epoch));
            self.highest_token = token.max(self.highest_token);
            let fate = if stale_overwrite {
                Fate::StaleOverwrite
            } else if zombie {
                Fate::Zombie
            } else {
                Fate::Accepted
            };
            (Kind::WriteAccepted { msg, writer, zombie, stale_overwrite, replaced, highest_token: self.highest_token }, fate)
        } else {
            let Some((token, highest)) = below else {
                let why = match token {
                    None => "it carried no token to refuse".to_string(),
                    Some(token) => format!("token {token} is not below the highest it had accepted ({:?})", self.highest_token),
                };
                return Err(format!(
                    "line {line}: the store refused {writer}'s write, but a fencing store refuses only a lower token, and {why}"
                ));
            };
            let rightful = fencing_engine::is_rightful_refusal(&self.grants, writer, epoch);
            let refusal = Refusal::StaleToken { token, highest };
            let fate = if rightful { Fate::RightfulRejected } else { Fate::Rejected };
            (Kind::WriteRejected { msg, writer, refusal, rightful, highest_token: self.highest_token }, fate)
        };
        self.refused_last[Self::slot(writer)] = !accepted;
        let decided = self.log(t_us, Actor::Store, kind, token);
        if matches!(fate, Fate::Zombie | Fate::StaleOverwrite) && self.first_damage.is_none() {
            self.first_damage = Some((line, decided));
        }
        if let Kind::Send { fate: slot, settled_at, .. } = &mut self.events[send as usize].kind {
            *slot = Some(fate);
            *settled_at = Some(decided);
        }
        Ok(())
    }

    fn finish(self) -> Judged {
        let end_us = self.seen_us;
        let holder = (0..WORKERS_MAX).map(Actor::Worker).find(|worker| self.lease_end_us[Self::slot(*worker)].is_some());
        let counts = Counts::of(&self.observer, holder, end_us, false);
        let highlights = self.observer.highlights;
        let spans = self.observer.finish(end_us);
        let record = Record { scenario: scenario_of(self.history), events: self.events, counts, spans, highlights };
        Judged { trace: Trace::from(record), first_damage: self.first_damage }
    }
}

/// The scenario a history's trace carries: a stand-in that names its
/// workers and its store's fencing, so the trace is told as a single
/// Redis's run is. Its timings and faults are not the history's: the
/// history has no scenario, only what happened.
fn scenario_of(history: &History) -> Scenario {
    let workers = history.records.iter().filter_map(|record| record.entry.worker().worker_index()).max().map_or(1, |index| index + 1);
    let first_token = history.records.iter().find_map(|record| match record.entry {
        Entry::Grant { token, .. } => token,
        _ => None,
    });
    Scenario {
        preset: "history".to_string(),
        workers,
        lock_service: LockService::SingleRedis,
        fencing: history.fencing,
        first_token: first_token.unwrap_or(1),
        faults: Vec::new(),
        ..Scenario::default()
    }
}
