//! The observer sees everything the actors cannot: who holds a lease, who
//! believes what, and when. It counts the outcomes exactly as the page and
//! the JSON summary name them, and it checks the invariants that must hold
//! whatever the scenario. It only reads: which grant a write acts under,
//! and so whether it is a zombie's, is the world's record
//! (`crate::history`), carried on the events it sees.

use crate::actor::{Actor, WORKERS_MAX};
use crate::event::{Kind, Tally};
use crate::incident::Incidents;
use crate::ledger::Ledger;
use crate::mode::Mode;
use crate::msg::Refusal;
use crate::store::Datum;
use serde::Serialize;

/// A stretch of time on one worker's timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    pub worker: Actor,
    pub kind: SpanKind,
    pub start_us: u64,
    pub end_us: u64,
    pub token: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    /// The lock service's view: the lease is this worker's.
    Lease,
    /// The worker's own view: it believes it holds the lock.
    Belief,
    /// Frozen by a stop-the-world pause.
    Pause,
    /// The worker believes it holds the lock but the lock service says it
    /// does not: every write in here is a zombie write waiting to happen.
    ZombieWindow,
}

const SPAN_KINDS: usize = 3;

/// An open span: when it started and under which token.
type OpenSpan = Option<(u64, Option<u64>)>;

/// The moments a verdict names: the first of each kind of trouble. One
/// logic for the run's end (the summary) and for any cursor (the page
/// replays the events up to it through a fresh observer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Highlights {
    /// The first write that overwrote newer data, and what it overwrote.
    pub stale_overwrite: Option<(Datum, Option<Datum>)>,
    /// The first refusal of a stale writer.
    pub rejected: Option<(Actor, Option<u64>, Refusal)>,
    /// The first refusal of the worker that held the lock last.
    pub rightful_rejected: Option<(Actor, Option<u64>, Refusal)>,
    /// The first write accepted from a worker that no longer held the lock.
    pub zombie: Option<Datum>,
    /// The first naive release of a successor's lock: (by, holder).
    pub successor_release: Option<(Actor, Actor)>,
    /// The first time a worker took the lock while another still believed
    /// it held it: (newcomer, believer).
    pub overlap: Option<(Actor, Actor)>,
    /// The first worker whose job's work was done again after its result
    /// did not land (a retried job: `worker::JOB_RETRIES_MAX`).
    pub redone: Option<Actor>,
}

pub struct Observer {
    mode: Mode,
    tally: Tally,
    open: [[OpenSpan; SPAN_KINDS]; WORKERS_MAX as usize],
    spans: Vec<Span>,
    pub highlights: Highlights,
    /// The store's data as of the last accepted write observed.
    pub final_store: Option<Datum>,
    /// Lost updates and redone work, which need no lock to be defined.
    pub ledger: Ledger,
    /// A fleet's incidents, kept only when asked for.
    pub incidents: Option<Incidents>,
    /// A window run keeps only the spans that overlap it.
    window: Option<(u64, u64)>,
    /// When the latest event happened: the record only moves on.
    seen_us: u64,
}

impl Observer {
    /// A summary run keeps no timelines, only what the counters need.
    pub fn new(mode: Mode) -> Observer {
        Observer {
            mode,
            tally: Tally::default(),
            open: [[None; SPAN_KINDS]; WORKERS_MAX as usize],
            spans: Vec::new(),
            highlights: Highlights::default(),
            final_store: None,
            ledger: Ledger::default(),
            incidents: None,
            window: None,
            seen_us: 0,
        }
    }

    /// The same observer, keeping only the spans that overlap `from_us..=to_us`.
    pub fn windowed(self, from_us: u64, to_us: u64) -> Observer {
        Observer { window: Some((from_us, to_us)), ..self }
    }

    /// The same observer, keeping a fleet's incidents if `keep`.
    pub fn keeping_incidents(mut self, keep: bool) -> Observer {
        self.incidents = keep.then(Incidents::default);
        self
    }

    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// Updates counters, timelines and highlights for one event, before its
    /// tally is recorded. Most events are messages sent or read, which
    /// change none of them: those return here, without a call.
    #[inline]
    pub fn observe(&mut self, t_us: u64, actor: Actor, kind: &Kind, token: Option<u64>) {
        crate::invariant!(t_us >= self.seen_us, "the observer saw time go back: {} -> {t_us} µs", self.seen_us);
        self.seen_us = t_us;
        let redone_before = self.ledger.tally().work_redone;
        self.ledger.observe(actor, kind);
        if self.ledger.tally().work_redone > redone_before {
            self.highlights.redone.get_or_insert(actor);
        }
        if let Some(incidents) = self.incidents.as_mut() {
            incidents.observe(t_us, actor, kind, token);
        }
        if !matches!(kind, Kind::Send { .. } | Kind::Receive { .. }) {
            self.observe_change(t_us, actor, kind, token);
        }
    }

    fn observe_change(&mut self, t_us: u64, actor: Actor, kind: &Kind, token: Option<u64>) {
        match *kind {
            Kind::Granted { holder, .. } => self.open_span(t_us, holder, SpanKind::Lease, None),
            Kind::Expired { holder, .. } | Kind::LeaseLost { holder } | Kind::Demoted { dropped: Some(holder) } => {
                self.close_span(t_us, holder, SpanKind::Lease)
            }
            Kind::Deleted { holder, by, .. } => {
                self.close_span(t_us, holder, SpanKind::Lease);
                if holder != by {
                    self.tally.lock_lost_by_successor_release += 1;
                    self.highlights.successor_release.get_or_insert((by, holder));
                }
            }
            Kind::Acquired { .. } => self.acquired(t_us, actor, token),
            Kind::LostLock { .. } | Kind::Released => self.close_span(t_us, actor, SpanKind::Belief),
            Kind::Crashed => {
                self.close_span(t_us, actor, SpanKind::Belief);
                self.close_span(t_us, actor, SpanKind::Pause);
            }
            Kind::PauseBegan { .. } => self.open_span(t_us, actor, SpanKind::Pause, None),
            Kind::PauseEnded => self.close_span(t_us, actor, SpanKind::Pause),
            Kind::WriteAccepted { writer, zombie, stale_overwrite, replaced, .. } => {
                self.tally.accepted_writes += 1;
                self.tally.zombie_writes += u32::from(zombie);
                self.tally.stale_overwrites += u32::from(stale_overwrite);
                // Zombie writes and stale overwrites are accepted writes.
                let tally = self.tally;
                crate::invariant!(
                    tally.zombie_writes <= tally.accepted_writes,
                    "{} zombie writes of {} accepted",
                    tally.zombie_writes,
                    tally.accepted_writes
                );
                crate::invariant!(
                    tally.stale_overwrites <= tally.accepted_writes,
                    "{} stale overwrites of {} accepted",
                    tally.stale_overwrites,
                    tally.accepted_writes
                );
                let written = Datum { writer, token };
                self.final_store = Some(written);
                if zombie {
                    self.highlights.zombie.get_or_insert(written);
                }
                if stale_overwrite {
                    self.highlights.stale_overwrite.get_or_insert((written, replaced));
                }
            }
            Kind::WriteRejected { writer, refusal, rightful, .. } => {
                self.tally.rejected_writes += 1;
                self.tally.rightful_writes_rejected += u32::from(rightful);
                let tally = self.tally;
                crate::invariant!(
                    tally.rightful_writes_rejected <= tally.rejected_writes,
                    "{} rightful refusals of {}",
                    tally.rightful_writes_rejected,
                    tally.rejected_writes
                );
                let slot = if rightful { &mut self.highlights.rightful_rejected } else { &mut self.highlights.rejected };
                slot.get_or_insert((writer, token, refusal));
            }
            _ => {}
        }
    }

    fn acquired(&mut self, t_us: u64, actor: Actor, token: Option<u64>) {
        // Every other worker that still believes it holds the lock overlaps.
        for believer in (0..WORKERS_MAX).map(Actor::Worker) {
            if believer != actor && self.is_open(believer, SpanKind::Belief) {
                self.tally.mutual_exclusion_violations += 1;
                self.highlights.overlap.get_or_insert((actor, believer));
            }
        }
        self.open_span(t_us, actor, SpanKind::Belief, token);
        // The lease span learns the token once the holder has one.
        self.set_open_token(actor, SpanKind::Lease, token);
    }

    /// Closes every open span at the end of the run.
    pub fn finish(mut self, end_us: u64) -> Vec<Span> {
        for worker in (0..WORKERS_MAX).map(Actor::Worker) {
            for kind in [SpanKind::Lease, SpanKind::Belief, SpanKind::Pause] {
                self.close_span(end_us, worker, kind);
            }
        }
        let windows = zombie_windows(&self.spans);
        self.spans.extend(windows);
        self.spans.sort_by_key(|span| (span.worker, span.start_us, span.kind as u8));
        self.spans
    }

    fn slot(&mut self, worker: Actor, kind: SpanKind) -> Option<&mut OpenSpan> {
        let index = usize::from(worker.worker_index()?);
        Some(&mut self.open[index][kind as usize])
    }

    /// The workers who believe at this point that they hold the lock, in
    /// order, each with whether a lock node still holds its lease.
    pub fn believers(&self) -> Vec<(Actor, bool)> {
        (0..WORKERS_MAX)
            .map(Actor::Worker)
            .filter(|worker| self.is_open(*worker, SpanKind::Belief))
            .map(|worker| (worker, self.is_open(worker, SpanKind::Lease)))
            .collect()
    }

    fn is_open(&self, worker: Actor, kind: SpanKind) -> bool {
        worker.worker_index().is_some_and(|index| self.open[usize::from(index)][kind as usize].is_some())
    }

    fn open_span(&mut self, t_us: u64, worker: Actor, kind: SpanKind, token: Option<u64>) {
        self.close_span(t_us, worker, kind);
        if let Some(slot) = self.slot(worker, kind) {
            *slot = Some((t_us, token));
        }
    }

    fn set_open_token(&mut self, worker: Actor, kind: SpanKind, token: Option<u64>) {
        if let Some(Some((_, open_token))) = self.slot(worker, kind) {
            *open_token = token;
        }
    }

    fn close_span(&mut self, t_us: u64, worker: Actor, kind: SpanKind) {
        let (mode, window) = (self.mode, self.window);
        let Some(slot) = self.slot(worker, kind) else { return };
        if let Some((start_us, token)) = slot.take() {
            assert!(start_us <= t_us, "a span cannot end before it starts");
            let overlaps = window.is_none_or(|(from_us, to_us)| t_us >= from_us && start_us <= to_us);
            if mode == Mode::Full && overlaps {
                self.spans.push(Span { worker, kind, start_us, end_us: t_us, token });
            }
        }
    }
}

/// Belief minus lease, per worker.
fn zombie_windows(spans: &[Span]) -> Vec<Span> {
    let mut windows = Vec::new();
    for belief in spans.iter().filter(|span| span.kind == SpanKind::Belief) {
        let mut leases: Vec<&Span> = spans.iter().filter(|span| span.kind == SpanKind::Lease && span.worker == belief.worker).collect();
        leases.sort_by_key(|lease| lease.start_us);
        let mut from_us = belief.start_us;
        for lease in leases {
            if lease.end_us <= from_us || lease.start_us >= belief.end_us {
                continue;
            }
            if lease.start_us > from_us {
                windows.push(Span { kind: SpanKind::ZombieWindow, start_us: from_us, end_us: lease.start_us, ..*belief });
            }
            from_us = from_us.max(lease.end_us);
        }
        if from_us < belief.end_us {
            windows.push(Span { kind: SpanKind::ZombieWindow, start_us: from_us, end_us: belief.end_us, ..*belief });
        }
    }
    windows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zombie_window_is_belief_without_a_lease() {
        let span = |kind, start_us, end_us| Span { worker: Actor::Worker(0), kind, start_us, end_us, token: Some(33) };
        let spans = [span(SpanKind::Lease, 0, 10), span(SpanKind::Belief, 1, 15), span(SpanKind::Lease, 12, 13)];
        let windows = zombie_windows(&spans);
        assert_eq!(windows, vec![span(SpanKind::ZombieWindow, 10, 12), span(SpanKind::ZombieWindow, 13, 15)]);
    }
}
