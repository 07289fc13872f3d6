//! Playback over one or two traces: a cursor that moves over "stops" (the
//! visible events, in time order), never a re-simulation. Going back in time
//! is moving the cursor.

use fencing_sim::Trace;
use leptos::prelude::*;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Playback speeds, slowest first; 1× shows 2.5 events a second.
pub const SPEEDS: [f64; 7] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];
const SPEED_1X: usize = 2;
/// 4×: the quiz's reveal plays at this speed.
pub const SPEED_FAST: usize = 4;
const EVENT_MS_AT_1X: f64 = 400.0;

/// One step of playback: an event of one pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    pub t_us: u64,
    pub pane: usize,
    pub event: u32,
}

/// The events of each pane the learner sees, merged in time order.
pub fn stops(traces: &[(&Trace, &[bool])]) -> Vec<Stop> {
    let mut stops: Vec<Stop> = traces
        .iter()
        .enumerate()
        .flat_map(|(pane, (trace, visible))| {
            trace.events.iter().zip(visible.iter()).filter(|(_, shown)| **shown).map(move |(event, _)| Stop {
                t_us: event.t_us,
                pane,
                event: event.index,
            })
        })
        .collect();
    stops.sort_by_key(|stop| (stop.t_us, stop.pane, stop.event));
    stops
}

/// The last event of `pane` at or before the cursor, if any.
pub fn last_shown(stops: &[Stop], cursor: usize, pane: usize) -> Option<u32> {
    let end = (cursor + 1).min(stops.len());
    stops[..end].iter().rev().find(|stop| stop.pane == pane).map(|stop| stop.event)
}

/// Playback state shared by the controls, the pictures and the URL.
#[derive(Clone, Copy)]
pub struct Player {
    /// Index into the stops.
    pub cursor: RwSignal<usize>,
    pub playing: RwSignal<bool>,
    pub speed: RwSignal<usize>,
    pub stops: Memo<Vec<Stop>>,
}

impl Player {
    pub fn new(stops: Memo<Vec<Stop>>, cursor: usize) -> Player {
        let player = Player { cursor: RwSignal::new(cursor), playing: RwSignal::new(false), speed: RwSignal::new(SPEED_1X), stops };
        player.keep_in_range();
        player.drive();
        player
    }

    pub fn last(&self) -> usize {
        self.stops.with(|stops| stops.len().saturating_sub(1))
    }

    pub fn step(&self, forward: bool) {
        self.playing.set(false);
        self.move_by(forward);
    }

    fn move_by(&self, forward: bool) {
        let last = self.last();
        self.cursor.update(|cursor| *cursor = if forward { (*cursor + 1).min(last) } else { cursor.saturating_sub(1) });
    }

    pub fn toggle(&self) {
        if !self.playing.get_untracked() && self.cursor.get_untracked() >= self.last() {
            self.cursor.set(0);
        }
        self.playing.update(|playing| *playing = !*playing);
    }

    pub fn restart(&self) {
        self.playing.set(false);
        self.cursor.set(0);
    }

    pub fn to_end(&self) {
        self.playing.set(false);
        self.cursor.set(self.last());
    }

    /// The time of the cursor's stop.
    pub fn now_us(&self) -> u64 {
        let cursor = self.cursor.get();
        self.stops.with(|stops| stops.get(cursor).map_or(0, |stop| stop.t_us))
    }

    /// A new trace may be shorter: keep the cursor on a real stop.
    fn keep_in_range(&self) {
        let player = *self;
        Effect::new(move |_| {
            let last = player.last();
            if player.cursor.get_untracked() > last {
                player.cursor.set(last);
            }
        });
    }

    /// While playing, advance one stop per tick; the tick follows the speed.
    /// The timer is cleared when the view goes away, or it would tick on
    /// signals that no longer exist.
    fn drive(&self) {
        let player = *self;
        let timer: Arc<Mutex<Option<IntervalHandle>>> = Arc::default();
        let stop = {
            let timer = Arc::clone(&timer);
            move || {
                if let Some(handle) = timer.lock().ok().and_then(|mut slot| slot.take()) {
                    handle.clear();
                }
            }
        };
        on_cleanup(stop.clone());
        Effect::new(move |_| {
            stop();
            if !player.playing.get() {
                return;
            }
            let speed = SPEEDS[player.speed.get().min(SPEEDS.len() - 1)];
            let period = Duration::from_millis((EVENT_MS_AT_1X / speed).max(16.0) as u64);
            let handle = set_interval_with_handle(move || player.tick(), period).ok();
            if let Ok(mut slot) = timer.lock() {
                *slot = handle;
            }
        });
    }

    fn tick(&self) {
        let Some(cursor) = self.cursor.try_get_untracked() else { return };
        if cursor >= self.last() {
            self.playing.set(false);
        } else {
            self.move_by(true);
        }
    }
}
