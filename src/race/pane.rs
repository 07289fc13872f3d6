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
    /// Whether the model ran it here from its scenario (else it is a
    /// history's, whose scenario only describes it).
    pub modelled: bool,
}

/// Two runs of one scenario are the same run (one seed and one scenario
/// make one trace, byte for byte): comparing the scenarios is enough, and
/// the page carries no comparison of whole traces. Two histories are the
/// same only if they are one pane: theirs is no scenario the model ran.
impl PartialEq for Pane {
    fn eq(&self, other: &Pane) -> bool {
        if self.modelled && other.modelled {
            self.trace.scenario == other.trace.scenario
        } else {
            self.id == other.id
        }
    }
}

impl Pane {
    /// Runs the scenario; an invalid one (which the controls never let
    /// through) falls back to the classic story rather than a blank page.
    pub fn run(scenario: &Scenario) -> Pane {
        let trace = run(scenario).or_else(|_| run(&presets::classic())).expect("the classic preset is valid");
        Pane { modelled: true, ..Pane::of(trace) }
    }

    /// A pane of a trace the model did not run here: a history's, judged.
    pub fn of(trace: Trace) -> Pane {
        let chatter = trace.chatter();
        let arrivals = arrivals(&trace);
        let at = AtCursor::of(&trace);
        let id = RUNS.with(|runs| {
            runs.set(runs.get() + 1);
            runs.get()
        });
        Pane { id, trace, chatter, arrivals, at, modelled: false }
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

    /// A lane's name. A history's lock lane is the service whatever it
    /// ran on: its trace's scenario is a stand-in (a single Redis), and the
    /// file's own header names the server.
    pub fn lane_name(&self, actor: Actor) -> String {
        match actor {
            Actor::LockNode(_) if !self.modelled => "Lock service".to_string(),
            _ => fencing_sim::caption::lane_name(actor, self.trace.scenario.lock_service),
        }
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

/// Natively (`cargo test -p fencing-lab-web --lib`): a pane is the core's
/// run plus bookkeeping, and needs no browser.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_send_is_paired_with_the_receive_or_loss_of_its_own_message() {
        for preset in presets::PRESETS {
            let pane = Pane::run(&(preset.build)());
            assert_eq!(pane.arrivals.len(), pane.trace.events.len());
            let mut paired = 0;
            for (send, arrival) in pane.arrivals.iter().enumerate() {
                let Some(arrival) = arrival else { continue };
                let Kind::Send { msg, .. } = pane.trace.events[send].kind else { panic!("{}: event {send} is no send", preset.id) };
                let answer = &pane.trace.events[*arrival as usize].kind;
                assert!(
                    matches!(answer, Kind::Receive { msg: got, .. } | Kind::Lost { msg: got, .. } if *got == msg),
                    "{}: send {send} (message {msg}) paired with {answer:?}",
                    preset.id
                );
                assert!(*arrival as usize > send, "{}: an arrival comes after its send", preset.id);
                paired += 1;
            }
            assert!(paired > 0, "{}: every story sends messages", preset.id);
        }
    }

    #[test]
    fn the_classic_run_has_four_lanes_and_hides_only_chatter() {
        let pane = Pane::run(&presets::classic());
        assert_eq!(pane.lanes(), vec![Actor::Worker(0), Actor::Worker(1), Actor::LockNode(0), Actor::Store]);
        assert!(pane.visible(true).iter().all(|shown| *shown), "the detailed diagram shows everything");
        let plain = pane.visible(false);
        assert!(plain.iter().zip(&pane.chatter).all(|(shown, chatter)| *shown != *chatter));
        assert_eq!(pane.event(0).map(|event| event.index), Some(0));
        assert!(pane.event(pane.trace.events.len() as u32).is_none(), "past the end is nothing, not a panic");
    }

    /// Every run gets its own id (lists are keyed by it), yet two runs of one
    /// scenario compare equal; a scenario the core refuses shows the classic
    /// story rather than a blank page.
    #[test]
    fn runs_have_distinct_ids_and_a_refused_scenario_falls_back_to_the_classic_story() {
        let (first, second) = (Pane::run(&presets::classic()), Pane::run(&presets::classic()));
        assert_ne!(first.id, second.id);
        assert_eq!(first, second);
        assert_ne!(first, Pane::run(&Scenario { fencing: true, ..presets::classic() }));
        let refused = Scenario { workers: 0, ..presets::classic() };
        assert!(run(&refused).is_err(), "the core refuses no workers");
        assert_eq!(Pane::run(&refused).trace.scenario, presets::classic());
    }
}
