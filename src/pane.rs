//! One run as the page holds it: the trace, which events are retry chatter,
//! and an id that changes with every run, so that lists keyed by event index
//! can never keep a row from another run's story.

use fencing_sim::cursor::AtCursor;
use fencing_sim::{presets, run, Actor, Event, Kind, Scenario, Trace};
use std::cell::Cell;

thread_local! {
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

#[derive(Clone, Debug)]
pub struct Pane {
    /// Distinct for every run the page makes: part of every list key.
    pub id: u64,
    pub trace: Trace,
    pub chatter: Vec<bool>,
    /// For each send, the event that answers it: its receive or its loss
    /// (paired by the message id the trace carries).
    pub arrivals: Vec<Option<u32>>,
    /// The verdict and the store at every cursor, worked out once by the
    /// core (a scrub asks at every frame; a replay per ask would not fit one).
    pub at: AtCursor,
}

/// Two runs of one scenario are the same run (one seed and one scenario
/// make one trace, byte for byte): comparing the scenarios is enough, and
/// the page carries no comparison of whole traces.
impl PartialEq for Pane {
    fn eq(&self, other: &Pane) -> bool {
        self.trace.scenario == other.trace.scenario
    }
}

impl Pane {
    /// Runs the scenario; an invalid one (which the controls never let
    /// through) falls back to the classic story rather than a blank page.
    pub fn run(scenario: &Scenario) -> Pane {
        let trace = run(scenario).or_else(|_| run(&presets::classic())).expect("the classic preset is valid");
        let chatter = trace.chatter();
        let arrivals = arrivals(&trace);
        let at = AtCursor::of(&trace);
        let id = RUNS.with(|runs| {
            runs.set(runs.get() + 1);
            runs.get()
        });
        Pane { id, trace, chatter, arrivals, at }
    }

    /// Which events are shown: all of them with `detail`, else no chatter.
    pub fn visible(&self, detail: bool) -> Vec<bool> {
        self.chatter.iter().map(|chatter| detail || !chatter).collect()
    }

    /// Lanes, left to right: workers, lock nodes, the store.
    pub fn lanes(&self) -> Vec<Actor> {
        let scenario = &self.trace.scenario;
        let nodes = scenario.lock_service.nodes();
        scenario.worker_actors().chain((0..nodes).map(Actor::LockNode)).chain([Actor::Store]).collect()
    }

    pub fn event(&self, index: u32) -> Option<&Event> {
        self.trace.events.get(index as usize)
    }
}

/// Pairs every send with the receive or loss of the same message. The
/// model numbers a run's messages from 0 as it sends them, and logs every
/// send, so an id is below the number of events: a plain table indexed by
/// id does what a map would (and the first load carries no map code).
fn arrivals(trace: &Trace) -> Vec<Option<u32>> {
    let mut sent_at: Vec<Option<usize>> = vec![None; trace.events.len()];
    let mut arrivals = vec![None; trace.events.len()];
    for event in &trace.events {
        match event.kind {
            Kind::Send { msg, .. } => {
                if let Some(slot) = sent_at.get_mut(msg as usize) {
                    *slot = Some(event.index as usize);
                }
            }
            Kind::Receive { msg, .. } | Kind::Lost { msg, .. } => {
                if let Some(send) = sent_at.get_mut(msg as usize).and_then(Option::take) {
                    arrivals[send] = Some(event.index);
                }
            }
            _ => {}
        }
    }
    arrivals
}
