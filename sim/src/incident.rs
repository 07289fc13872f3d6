//! A fleet run's incidents: each write a lock failed to keep apart (a
//! zombie's write that landed, one that overwrote newer data) or fencing
//! refused, with when it happened and the pause its writer woke from. The
//! observer keeps them as it counts, in counters-only mode too, so a run of
//! hours needs no trace; the window around any of them can be replayed.

use crate::actor::{Actor, WORKERS_MAX};
use crate::event::Kind;
use serde::Serialize;

/// The most incidents a run keeps; the count goes on past it.
pub const INCIDENTS_KEPT_MAX: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IncidentKind {
    /// A zombie's write landed, on nobody's newer data.
    ZombieWrite,
    /// A zombie's write landed on data written under a newer grant.
    StaleOverwrite,
    /// The store refused a stale token.
    Rejected,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Incident {
    pub t_us: u64,
    pub kind: IncidentKind,
    pub writer: Actor,
    pub token: Option<u64>,
    /// The writer's last pause before it: when it began and how long it was.
    pub paused_at_us: Option<u64>,
    pub pause_us: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct Incidents {
    pub kept: Vec<Incident>,
    pub total: u32,
    /// Jobs started (each worker's first included).
    pub jobs: u32,
    pub pauses: u32,
    pub longest_pause_us: u64,
    last_pause: [Option<(u64, u64)>; WORKERS_MAX as usize],
}

impl Default for Incidents {
    fn default() -> Incidents {
        Incidents { kept: Vec::new(), total: 0, jobs: 0, pauses: 0, longest_pause_us: 0, last_pause: [None; WORKERS_MAX as usize] }
    }
}

impl Incidents {
    pub fn observe(&mut self, t_us: u64, actor: Actor, kind: &Kind, token: Option<u64>) {
        let incident = match *kind {
            Kind::Start => return self.jobs += 1,
            Kind::PauseBegan { until_us } => return self.paused(actor, t_us, until_us),
            Kind::WriteAccepted { writer, stale_overwrite: true, .. } => (IncidentKind::StaleOverwrite, writer),
            Kind::WriteAccepted { writer, zombie: true, .. } => (IncidentKind::ZombieWrite, writer),
            Kind::WriteRejected { writer, .. } => (IncidentKind::Rejected, writer),
            _ => return,
        };
        let (kind, writer) = incident;
        self.total += 1;
        if self.kept.len() < INCIDENTS_KEPT_MAX {
            let pause = writer.worker_index().and_then(|index| self.last_pause[usize::from(index)]);
            let (paused_at_us, pause_us) = (pause.map(|(at, _)| at), pause.map(|(_, length)| length));
            self.kept.push(Incident { t_us, kind, writer, token, paused_at_us, pause_us });
        }
    }

    fn paused(&mut self, worker: Actor, t_us: u64, until_us: u64) {
        let length_us = until_us.saturating_sub(t_us);
        self.pauses += 1;
        self.longest_pause_us = self.longest_pause_us.max(length_us);
        if let Some(index) = worker.worker_index() {
            self.last_pause[usize::from(index)] = Some((t_us, length_us));
        }
    }
}

/// The most rows an incident's story lists.
pub const STORY_ROWS_MAX: usize = 200;

/// An incident told from the window around it: the workers it involves (the
/// writer, and whoever's newer data or higher token it ran into), the
/// events that tell it, and how many other jobs started while the writer
/// was paused (the fleet went on; the story leaves them out).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Story {
    pub writer: Actor,
    pub other: Option<Actor>,
    /// Event indices of the window's trace, in order; at most `STORY_ROWS_MAX`.
    pub rows: Vec<u32>,
    pub jobs_during_pause: u32,
}

impl Incident {
    /// This incident's story in `window`, the trace `fleet::window` replays
    /// around it.
    pub fn story(&self, window: &crate::Trace) -> Story {
        let other = window.events.iter().find_map(|event| self.other_in(event, window));
        // The other worker's part begins with the grant the incident ran
        // into: its jobs before that are the fleet going on.
        let grant = window
            .events
            .iter()
            .rfind(|event| Some(event.actor) == other && matches!(event.kind, Kind::Acquired { .. }) && event.t_us <= self.t_us);
        let (other_from_us, other_token) = grant.map_or((0, None), |grant| (grant.t_us, grant.token));
        let involved = |event: &crate::Event, actor: Actor| {
            let others = match event.kind {
                // The other's token is counted just before its grant.
                Kind::TokenIssued { .. } => event.token == other_token,
                _ => event.t_us >= other_from_us,
            };
            actor == self.writer || (Some(actor) == other && others)
        };
        let chatter = window.chatter();
        let rows = window
            .events
            .iter()
            .filter(|event| !chatter[event.index as usize] && concerns(event, &involved))
            .map(|event| event.index)
            .take(STORY_ROWS_MAX)
            .collect();
        let paused = self.paused_at_us.zip(self.pause_us).map(|(at_us, length_us)| at_us..at_us + length_us);
        let jobs_during_pause = window
            .events
            .iter()
            .filter(|event| matches!(event.kind, Kind::Start) && event.actor != self.writer)
            .filter(|event| paused.as_ref().is_some_and(|paused| paused.contains(&event.t_us)))
            .count();
        Story { writer: self.writer, other, rows, jobs_during_pause: u32::try_from(jobs_during_pause).unwrap_or(u32::MAX) }
    }

    /// The other worker, if `event` is this incident's write and names it:
    /// the writer of the data a zombie replaced, or the holder of the token
    /// fencing compared against.
    fn other_in(&self, event: &crate::Event, window: &crate::Trace) -> Option<Actor> {
        if event.t_us != self.t_us {
            return None;
        }
        match event.kind {
            Kind::WriteAccepted { writer, replaced: Some(datum), .. } if writer == self.writer => Some(datum.writer),
            Kind::WriteRejected { writer, highest_token: Some(highest), .. } if writer == self.writer => {
                window.events.iter().find(|grant| matches!(grant.kind, Kind::TokenIssued { .. }) && grant.token == Some(highest)).and_then(
                    |grant| match grant.kind {
                        Kind::TokenIssued { to } => Some(to),
                        _ => None,
                    },
                )
            }
            _ => None,
        }
        .filter(|other| *other != self.writer)
    }
}

/// Whether `event` is part of the story of the workers `involved` says.
fn concerns(event: &crate::Event, involved: &impl Fn(&crate::Event, Actor) -> bool) -> bool {
    match event.kind {
        Kind::Expired { holder, .. } | Kind::Deleted { holder, .. } => involved(event, holder),
        Kind::TokenIssued { to } => involved(event, to),
        Kind::WriteAccepted { writer, .. } | Kind::WriteRejected { writer, .. } => involved(event, writer),
        _ => event.actor.worker_index().is_some() && involved(event, event.actor),
    }
}
