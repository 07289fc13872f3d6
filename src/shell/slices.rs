//! Long work in slices of a few milliseconds, one per task, so the page
//! keeps drawing and answering the keyboard: the explorer's search, a
//! fleet's run, an incident's window, the lease trade. The work's numbers
//! are the core's; this only decides when the next slice runs.
//!
//! Slices follow each other as messages on a `MessageChannel`: a task of its
//! own each (the browser draws and handles input between them), without the
//! 4 ms that nested `setTimeout`s wait, which would leave a third of the
//! time unused.

use leptos::prelude::*;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::time::Duration;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::JsCast;

/// Wall-clock time one slice may take: short enough that a frame (16.7 ms
/// at 60 Hz) still has room to draw and answer input.
const SLICE_MS: f64 = 8.0;
/// A fleet's steps between two looks at the clock (each step takes under
/// a µs).
pub const STEPS_PER_LOOK: u64 = 2_000;

/// Runs `slice` once per task until it says it is done, or until `alive`
/// says to stop (checked before each). `slice` is handed a function that
/// says whether its time is up, and loops on its own work until then.
pub fn run_in_slices(alive: impl Fn() -> bool + 'static, slice: impl FnMut(&dyn Fn() -> bool) -> bool + 'static) {
    next_task(move || run_slice(alive, slice));
}

fn run_slice<A: Fn() -> bool + 'static, S: FnMut(&dyn Fn() -> bool) -> bool + 'static>(alive: A, mut slice: S) {
    if !alive() {
        return;
    }
    let started_ms = now_ms();
    if !slice(&|| now_ms() - started_ms >= SLICE_MS) {
        next_task(move || run_slice(alive, slice));
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

pub use crate::shell::browser::{now_ms, performance};

/// One piece of sliced work a view runs at a time (a fleet, a window, a
/// trade): whether it runs, how far it is, and a generation that a new
/// start or a cancel moves on, so a slice of older work finds itself stale.
#[derive(Clone, Copy)]
pub struct Task {
    pub running: RwSignal<bool>,
    pub progress_milli: RwSignal<u32>,
    generation: StoredValue<u32>,
}

impl Default for Task {
    fn default() -> Task {
        Task::new()
    }
}

impl Task {
    pub fn new() -> Task {
        Task { running: RwSignal::new(false), progress_milli: RwSignal::new(0), generation: StoredValue::new(0) }
    }

    /// Starts `work` in place of whatever this task was running. `work`
    /// runs until its time is up and says how far it is (thousandths), or
    /// `None` once it is done. `measure`: the performance measure the
    /// bench reads, from the start to the end.
    pub fn start(self, measure: Option<&'static str>, mut work: impl FnMut(&dyn Fn() -> bool) -> Option<u32> + 'static) {
        let generation = self.next_generation();
        self.running.set(true);
        self.progress_milli.set(0);
        let start_mark = measure.map(|name| mark(&format!("{name}-start")));
        let alive = move || self.generation.try_get_value() == Some(generation);
        run_in_slices(alive, move |time_up| match work(time_up) {
            Some(milli) => {
                self.progress_milli.set(milli);
                false
            }
            None => {
                self.running.set(false);
                self.progress_milli.set(1000);
                if let (Some(name), Some(start)) = (measure, &start_mark) {
                    if let Some(performance) = performance() {
                        let _ = performance.measure_with_start_mark(name, start);
                    }
                }
                true
            }
        });
    }

    /// Stops at once: no slice of the work runs after this.
    pub fn cancel(self) {
        self.next_generation();
        self.running.set(false);
    }

    fn next_generation(self) -> u32 {
        self.generation.update_value(|generation| *generation = generation.wrapping_add(1));
        self.generation.get_value()
    }
}

/// A fresh performance mark named `name`; returns the name.
fn mark(name: &str) -> String {
    if let Some(performance) = performance() {
        performance.clear_marks_with_mark_name(name);
        let _ = performance.mark(name);
    }
    name.to_string()
}

/// A task's progress bar with its Cancel button, shown while it runs.
#[component]
pub fn Progress(task: Task, label: &'static str, cancel: Callback<()>, testid: &'static str) -> impl IntoView {
    let text = move || format!("{:.1} %", f64::from(task.progress_milli.get()) / 10.0);
    view! {
        <div class="explore-progress" hidden=move || !task.running.get()>
            <div class="meter" role="progressbar" aria-label=label aria-valuemin="0" aria-valuemax="1000"
                aria-valuenow=move || task.progress_milli.get().to_string() aria-valuetext=text data-testid=testid>
                <svg viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true"><rect height="10" width=move || task.progress_milli.get().to_string()/></svg>
            </div>
            <span class="meter-text" aria-hidden="true">{text}</span>
            <button type="button" on:click=move |_| cancel.run(())>"Cancel"</button>
        </div>
    }
}
