//! What a run says at every cursor, worked out once per run: the verdict and
//! the store change at a handful of events, so each is kept as a list of
//! (first event, value) steps and a cursor finds its own by binary search.
//! `Trace::verdict_at` and `Trace::store_at` replay the events up to the
//! cursor (linear in it); the page scrubs a 10,000-event run and must answer
//! within a frame, so it asks this instead. Both always say the same (tested
//! at every event of every preset).

use crate::event::Kind;
use crate::mode::Mode;
use crate::observer::Observer;
use crate::trace::{Fencing, StoreState, Trace};
use crate::verdict::{verdict, Verdict};

/// The verdict, the store and the writes that reached it, for any event of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtCursor {
    /// Never empty; the first step starts at event 0.
    verdicts: Vec<(u32, Verdict)>,
    /// Never empty; the first step starts at event 0.
    stores: Vec<(u32, StoreState)>,
    /// The events where a write reached the store (accepted or refused), in order.
    writes: Vec<u32>,
}

impl AtCursor {
    /// One pass over the trace (its events are in time order).
    pub fn of(trace: &Trace) -> AtCursor {
        let fencing_on = Fencing::of(&trace.scenario) == Fencing::On;
        let count = trace.events.len();
        let mut observer = Observer::new(Mode::Summary);
        let mut store = StoreState::default();
        let mut verdicts: Vec<(u32, Verdict)> = Vec::new();
        let mut stores = vec![(0, StoreState::default())];
        let mut writes = Vec::new();
        let mut said = None;
        for (position, event) in trace.events.iter().enumerate() {
            let index = position as u32;
            observer.observe(event.t_us, event.actor, &event.kind, event.token);
            let finished = position + 1 >= count;
            // The verdict is a function of these four: a new step only when one changes.
            let key = (observer.tally(), observer.highlights, finished, observer.believers());
            if said.as_ref() != Some(&key) {
                verdicts.push((index, crate::trace::verdict_seen(&observer, finished, &trace.scenario)));
                said = Some(key);
            }
            if store.step(&event.kind, event.token) {
                writes.push(index);
                if stores.last().is_some_and(|(_, last)| *last != store) {
                    stores.push((index, store.clone()));
                }
            }
        }
        if verdicts.is_empty() {
            // No events: what `verdict_at` says of an empty run (over, nothing seen).
            verdicts.push((0, verdict(&observer.tally(), &observer.highlights, true, fencing_on, trace.scenario.lock_service)));
        }
        AtCursor { verdicts, stores, writes }
    }

    /// The verdict at event `index` (clamped to the trace): `Trace::verdict_at(index)`.
    pub fn verdict(&self, index: u32) -> &Verdict {
        &self.verdicts[step_at(&self.verdicts, index)].1
    }

    /// The store at event `index` (clamped to the trace): `Trace::store_at(index)`.
    pub fn store(&self, index: u32) -> &StoreState {
        &self.stores[step_at(&self.stores, index)].1
    }

    /// The events up to `index` where a write reached the store, oldest first.
    pub fn writes_to(&self, index: u32) -> &[u32] {
        &self.writes[..self.writes.partition_point(|write| *write <= index)]
    }
}

/// The step in force at `index`: the last whose first event is at or before it.
fn step_at<T>(steps: &[(u32, T)], index: u32) -> usize {
    steps.partition_point(|(first, _)| *first <= index).saturating_sub(1)
}

impl StoreState {
    /// The store after one more event; true if the event was a write that
    /// reached it (accepted or refused).
    pub(crate) fn step(&mut self, kind: &Kind, token: Option<u64>) -> bool {
        match *kind {
            Kind::WriteAccepted { writer, stale_overwrite, replaced, highest_token, .. } => {
                let written = crate::store::Datum { writer, token };
                self.holds = Some(written);
                self.highest_token = highest_token;
                if stale_overwrite && self.before_after.is_none() {
                    self.before_after = Some((replaced, written));
                }
                true
            }
            Kind::WriteRejected { highest_token, .. } => {
                self.highest_token = highest_token;
                true
            }
            _ => false,
        }
    }
}
