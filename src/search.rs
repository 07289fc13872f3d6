//! "Can this go wrong?" as the page runs it: the core's explorer stepped in
//! slices of a few milliseconds, one per task, so the page keeps drawing and
//! answering the keyboard while it searches. Cancel stops it before the
//! next slice. The search's numbers (schedules, outcome, claim) are the
//! core's; the page only decides when to give it the next slice.
//!
//! Slices follow each other as messages on a `MessageChannel`: a task of its
//! own each (the browser draws and handles input between them), without the
//! 4 ms that nested `setTimeout`s wait, which would leave a third of the
//! time unused.

use fencing_sim::explore::{Explorer, Outcome};
use fencing_sim::property::Property;
use fencing_sim::Scenario;
use leptos::prelude::*;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::JsCast;

/// Wall-clock time one slice may take: short enough that a frame (16.7 ms
/// at 60 Hz) still has room to draw and answer input.
const SLICE_MS: f64 = 8.0;
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
                let slicer = Slicer { search: self, generation, explorer, on_end: Rc::new(on_end) };
                next_task(move || slicer.slice());
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

/// The search under way, handed from one slice to the next.
struct Slicer {
    search: Search,
    generation: u32,
    explorer: Explorer,
    on_end: Rc<dyn Fn(&Outcome)>,
}

impl Slicer {
    /// Runs schedules for about `SLICE_MS`, then yields to the browser.
    fn slice(mut self) {
        if self.search.generation.try_get_value() != Some(self.generation) {
            return; // cancelled, superseded, or the view is gone
        }
        let started_ms = now_ms();
        let outcome = loop {
            if let Some(outcome) = self.explorer.step(RUNS_PER_STEP) {
                break Some(outcome.clone());
            }
            if now_ms() - started_ms >= SLICE_MS {
                break None;
            }
        };
        self.search.tried.set(self.explorer.tried());
        match outcome {
            Some(outcome) => {
                measure_end();
                self.search.phase.set(Phase::Done(outcome.clone()));
                (self.on_end)(&outcome);
            }
            None => next_task(move || self.slice()),
        }
    }
}

thread_local! {
    /// The channel the slices arrive on, and the slices waiting (at most
    /// one per search under way: each slice posts only its successor).
    static TASKS: Option<web_sys::MessageChannel> = tasks_channel();
    static WAITING: RefCell<VecDeque<Box<dyn FnOnce()>>> = const { RefCell::new(VecDeque::new()) };
}

fn tasks_channel() -> Option<web_sys::MessageChannel> {
    let channel = web_sys::MessageChannel::new().ok()?;
    let run_next = Closure::<dyn FnMut()>::new(|| {
        if let Some(task) = WAITING.with(|waiting| waiting.borrow_mut().pop_front()) {
            task();
        }
    });
    channel.port1().set_onmessage(Some(run_next.as_ref().unchecked_ref()));
    // The handler lives as long as the page.
    run_next.forget();
    Some(channel)
}

/// Runs `task` in a task of its own, as soon as the browser has drawn and
/// handled input (after a timeout if there is no message channel).
fn next_task(task: impl FnOnce() + 'static) {
    let Some(port) = TASKS.with(|channel| channel.as_ref().map(web_sys::MessageChannel::port2)) else {
        return set_timeout(task, Duration::ZERO);
    };
    WAITING.with(|waiting| waiting.borrow_mut().push_back(Box::new(task)));
    if port.post_message(&wasm_bindgen::JsValue::NULL).is_err() {
        if let Some(task) = WAITING.with(|waiting| waiting.borrow_mut().pop_back()) {
            set_timeout(task, Duration::ZERO);
        }
    }
}

fn performance() -> Option<web_sys::Performance> {
    web_sys::window().and_then(|window| window.performance())
}

fn now_ms() -> f64 {
    performance().map_or(0.0, |performance| performance.now())
}

fn mark_start() {
    if let Some(performance) = performance() {
        performance.clear_marks_with_mark_name(MARK_START);
        performance.clear_measures_with_measure_name(MEASURE);
        let _ = performance.mark(MARK_START);
    }
}

/// The search's wall-clock time, slices and the gaps between them, for the bench.
fn measure_end() {
    if let Some(performance) = performance() {
        let _ = performance.measure_with_start_mark(MEASURE, MARK_START);
    }
}
