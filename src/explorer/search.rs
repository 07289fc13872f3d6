//! "Can this go wrong?" as the page runs it: the core's explorer stepped in
//! slices of a few milliseconds, one per task, so the page keeps drawing and
//! answering the keyboard while it searches. Cancel stops it before the
//! next slice. The search's numbers (schedules, outcome, claim) are the
//! core's; the page only decides when to give it the next slice.
//!
//! Slices follow each other as messages on a `MessageChannel`: a task of its
//! own each (the browser draws and handles input between them), without the
//! 4 ms that nested `setTimeout`s wait (`slices`).

use fencing_sim::explore::{Explorer, Outcome};
use fencing_sim::property::Property;
use fencing_sim::Scenario;
use leptos::prelude::*;

/// Schedules run between two looks at the clock (each takes tens of µs).
const RUNS_PER_STEP: usize = 4;
/// The performance marks scripts/bench.sh reads (start, and the measure).
pub const MARK_START: &str = "fencing-lab-explore-start";
pub const MEASURE: &str = "fencing-lab-explore";

/// Where a search stands. One is held per search, so the size of its
/// largest variant (the counterexample's scenario) costs nothing worth a box.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Phase {
    Idle,
    Running,
    /// Stopped by the learner after `tried` of `total`.
    Cancelled {
        tried: usize,
        total: usize,
    },
    /// The core could not search this scenario (its message).
    Failed(String),
    Done(Outcome),
}

/// A search's state for the page: what it shows, and a generation number
/// that a cancel or a new search moves on, so a slice already scheduled for
/// an older search finds itself stale and stops.
#[derive(Clone, Copy)]
pub struct Search {
    pub phase: RwSignal<Phase>,
    /// Schedules run so far (shrinking runs included, as the core counts).
    pub tried: RwSignal<usize>,
    /// Schedules the whole search holds.
    pub total: RwSignal<usize>,
    generation: StoredValue<u32>,
}

impl Default for Search {
    fn default() -> Search {
        Search::new()
    }
}

impl Search {
    pub fn new() -> Search {
        Search { phase: RwSignal::new(Phase::Idle), tried: RwSignal::new(0), total: RwSignal::new(0), generation: StoredValue::new(0) }
    }

    pub fn running(self) -> bool {
        self.phase.with(|phase| *phase == Phase::Running)
    }

    /// Starts searching `design` (its own faults set aside by the core);
    /// `on_end` hears the outcome, in the same task that ends the search.
    pub fn start(self, design: &Scenario, property: Property, faults_max: u8, on_end: impl Fn(&Outcome) + 'static) {
        let generation = self.next_generation();
        mark_start();
        match Explorer::new(design, property, faults_max) {
            Ok(explorer) => {
                self.total.set(explorer.total());
                self.tried.set(0);
                self.phase.set(Phase::Running);
                search_in_slices(self, generation, explorer, on_end);
            }
            Err(error) => self.phase.set(Phase::Failed(error.to_string())),
        }
    }

    /// Stops the search at once: no slice runs after this.
    pub fn cancel(self) {
        if self.running() {
            self.next_generation();
            let (tried, total) = (self.tried.get_untracked(), self.total.get_untracked());
            self.phase.set(Phase::Cancelled { tried: tried.min(total), total });
        }
    }

    /// Forgets the last result (the learner changed the question).
    pub fn reset(self) {
        self.next_generation();
        self.phase.set(Phase::Idle);
    }

    fn next_generation(self) -> u32 {
        self.generation.update_value(|generation| *generation = generation.wrapping_add(1));
        self.generation.get_value()
    }
}

/// Steps the explorer a few schedules at a time until the slice's time is
/// up; the search's state changes once per slice.
fn search_in_slices(search: Search, generation: u32, mut explorer: Explorer, on_end: impl Fn(&Outcome) + 'static) {
    let alive = move || search.generation.try_get_value() == Some(generation);
    crate::shell::slices::run_in_slices(alive, move |time_up| {
        let outcome = loop {
            if let Some(outcome) = explorer.step(RUNS_PER_STEP) {
                break Some(outcome.clone());
            }
            if time_up() {
                break None;
            }
        };
        search.tried.set(explorer.tried());
        let Some(outcome) = outcome else { return false };
        measure_end();
        search.phase.set(Phase::Done(outcome.clone()));
        on_end(&outcome);
        true
    });
}

fn mark_start() {
    if let Some(performance) = crate::shell::slices::performance() {
        performance.clear_marks_with_mark_name(MARK_START);
        performance.clear_measures_with_measure_name(MEASURE);
        let _ = performance.mark(MARK_START);
    }
}

/// The search's wall-clock time, slices and the gaps between them, for the bench.
fn measure_end() {
    if let Some(performance) = crate::shell::slices::performance() {
        let _ = performance.measure_with_start_mark(MEASURE, MARK_START);
    }
}
