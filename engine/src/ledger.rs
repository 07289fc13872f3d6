//! What happened to the work itself, by ground truth, whatever lock (if
//! any) guarded it: an update lost because a write was computed from data
//! another accepted write had already replaced, and a job's work done again
//! after its first result was refused. These two can fail without a lock,
//! where every lock-defined property holds by construction.

use crate::actor::{Actor, WORKERS_MAX};
use crate::event::Kind;
use crate::msg::Msg;
use serde::Serialize;

/// The ledger's two counters, as the summary and the properties name them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WorkTally {
    /// Accepted writes computed from a state a newer accepted write had
    /// already replaced: that newer write's update is lost.
    pub lost_updates: u32,
    /// Writes of work done again after the job's first result was refused
    /// (a card charged twice, an email sent twice).
    pub work_redone: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct Ledger {
    tally: WorkTally,
    accepted_total: u32,
    /// How many accepted writes the store held when each worker took the
    /// data it computes from: when it acquired the lock, read a version, or
    /// saw its own previous write land.
    based_on: [u32; WORKERS_MAX as usize],
    /// The worker has done the job's work (sent its result) since it last
    /// started the job.
    worked: [bool; WORKERS_MAX as usize],
    /// The worker started over a job whose work it had done.
    redoing: [bool; WORKERS_MAX as usize],
}

impl Default for Ledger {
    fn default() -> Ledger {
        const WORKERS: usize = WORKERS_MAX as usize;
        Ledger {
            tally: WorkTally::default(),
            accepted_total: 0,
            based_on: [0; WORKERS],
            worked: [false; WORKERS],
            redoing: [false; WORKERS],
        }
    }
}

impl Ledger {
    pub fn tally(&self) -> WorkTally {
        self.tally
    }

    /// Only the events that move the ledger: acquisitions, reads, retries,
    /// writes sent and accepted.
    #[inline]
    pub fn observe(&mut self, actor: Actor, kind: &Kind) {
        match *kind {
            Kind::Acquired { .. } | Kind::ReadVersion { .. } => self.based(actor),
            Kind::Retry => self.retried(actor),
            Kind::Send { body: Msg::Write(_), .. } => self.wrote(actor),
            Kind::WriteAccepted { writer, .. } => self.accepted(writer),
            _ => {}
        }
    }

    fn based(&mut self, worker: Actor) {
        if let Some(index) = worker.worker_index() {
            self.based_on[usize::from(index)] = self.accepted_total;
        }
    }

    /// Starting over redoes the work only if it was done (a retry after a
    /// lost read redoes nothing).
    fn retried(&mut self, worker: Actor) {
        if let Some(index) = worker.worker_index().map(usize::from) {
            self.redoing[index] |= std::mem::take(&mut self.worked[index]);
        }
    }

    /// A write leaves after its work: work the worker had done before it
    /// started over is done twice.
    fn wrote(&mut self, worker: Actor) {
        let Some(index) = worker.worker_index().map(usize::from) else { return };
        self.worked[index] = true;
        if std::mem::take(&mut self.redoing[index]) {
            self.tally.work_redone += 1;
        }
    }

    fn accepted(&mut self, writer: Actor) {
        let Some(index) = writer.worker_index() else { return };
        let slot = &mut self.based_on[usize::from(index)];
        crate::invariant!(*slot <= self.accepted_total, "{writer:?} based its work on {} writes of {}", *slot, self.accepted_total);
        if *slot < self.accepted_total {
            self.tally.lost_updates += 1;
        }
        self.accepted_total += 1;
        // Each lost update is an accepted write.
        crate::invariant!(
            self.tally.lost_updates <= self.accepted_total,
            "{} lost updates of {} writes",
            self.tally.lost_updates,
            self.accepted_total
        );
        // The writer's next piece of work builds on what it just wrote.
        *slot = self.accepted_total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Datum;

    fn accepted(writer: Actor) -> Kind {
        Kind::WriteAccepted { msg: 0, writer, zombie: false, stale_overwrite: false, replaced: None::<Datum>, highest_token: None }
    }

    #[test]
    fn a_write_from_replaced_data_loses_the_update_it_replaces() {
        let (a, b) = (Actor::Worker(0), Actor::Worker(1));
        let mut ledger = Ledger::default();
        ledger.observe(a, &Kind::Acquired { valid_until_us: 0 });
        ledger.observe(b, &Kind::Acquired { valid_until_us: 0 });
        ledger.observe(b, &accepted(b));
        assert_eq!(ledger.tally().lost_updates, 0);
        ledger.observe(b, &accepted(b));
        assert_eq!(ledger.tally().lost_updates, 0, "a worker's own earlier write is what it builds on");
        ledger.observe(a, &accepted(a));
        assert_eq!(ledger.tally().lost_updates, 1);
    }

    #[test]
    fn work_sent_again_after_a_retry_is_work_done_twice() {
        let a = Actor::Worker(0);
        let write = Kind::Send {
            msg: 0,
            to: Actor::Store,
            req: 0,
            body: Msg::Write(crate::msg::WriteReq { token: None, epoch: 0, nth: 1, version: Some(0) }),
            held_us: 0,
            fate: None,
            settled_at: None,
        };
        let mut ledger = Ledger::default();
        ledger.observe(a, &Kind::Retry);
        ledger.observe(a, &write);
        assert_eq!(ledger.tally().work_redone, 0, "a retry before any work redoes nothing");
        ledger.observe(a, &Kind::Retry);
        ledger.observe(a, &write);
        ledger.observe(a, &write);
        assert_eq!(ledger.tally().work_redone, 1, "one retry redoes the work once");
    }
}
