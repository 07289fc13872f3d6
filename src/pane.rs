//! One run as the page holds it: the trace, which events are retry chatter,
//! and helpers that look things up for drawing. Nothing here decides.

use fencing_sim::layout::Axis;
use fencing_sim::{presets, run, Actor, Event, Kind, Scenario, Trace};

#[derive(Clone, Debug, PartialEq)]
pub struct Pane {
    pub trace: Trace,
    pub chatter: Vec<bool>,
}

impl Pane {
    /// Runs the scenario; an invalid one (which the controls never let
    /// through) falls back to the classic story rather than a blank page.
    pub fn run(scenario: &Scenario) -> Pane {
        let trace = run(scenario).or_else(|_| run(&presets::classic())).expect("the classic preset is valid");
        let chatter = trace.chatter();
        Pane { trace, chatter }
    }

    /// Which events are shown: all of them with `detail`, else no chatter.
    pub fn visible(&self, detail: bool) -> Vec<bool> {
        self.chatter.iter().map(|chatter| detail || !chatter).collect()
    }

    pub fn axis(&self, visible: &[bool]) -> Axis {
        self.trace.axis(visible)
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

    /// The event that answers a message's send: its receive or its loss.
    pub fn arrival(&self, send: &Event) -> Option<&Event> {
        let Kind::Send { msg, .. } = send.kind else { return None };
        self.trace.events[send.index as usize..]
            .iter()
            .find(|event| matches!(event.kind, Kind::Receive { msg: m, .. } | Kind::Lost { msg: m, .. } if m == msg))
    }
}
