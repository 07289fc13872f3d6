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
