//! Playback over one or two traces: a cursor that moves over "stops" (the
//! visible events, in time order), never a re-simulation. Going back in time
//! is moving the cursor. Events that change the story hold the screen
//! longer than the messages between them, so the classic run reaches its
//! zombie write in a few seconds at 1× and each step can still be read.

use crate::race::glyphs;
use fencing_sim::Trace;
use leptos::prelude::*;
use leptos_use_interval_fn::{use_interval_fn_with_options, UseIntervalFnOptions};

/// Playback speeds in quarters of 1×, slowest first.
pub const SPEEDS_QUARTERS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];
pub const SPEED_1X: usize = 2;
/// At 1×: how long an event that changes the story stays on screen, and a
/// message or other step between them.
const KEY_STEP_MS: u32 = 420;
const MINOR_STEP_MS: u32 = 90;
/// No timer fires faster than a frame.
const STEP_MS_MIN: u32 = 16;

/// One step of playback: an event of one pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    pub t_us: u64,
    pub pane: usize,
    pub event: u32,
    /// Whether the event changes the story (it holds the screen longer).
    pub key: bool,
}

/// The events of each pane the learner sees, merged in time order (a
/// trace is already in time order, so this merges; it never sorts).
pub fn stops(traces: &[(&Trace, &[bool])]) -> Vec<Stop> {
    let lists: Vec<Vec<Stop>> = traces
        .iter()
        .enumerate()
        .map(|(pane, (trace, visible))| {
            trace
                .events
                .iter()
                .zip(visible.iter())
                .filter(|(_, shown)| **shown)
                .map(|(event, _)| Stop { t_us: event.t_us, pane, event: event.index, key: glyphs::is_key(event) })
                .collect()
        })
        .collect();
    let total = lists.iter().map(Vec::len).sum();
    let mut next = vec![0; lists.len()];
    let mut stops = Vec::with_capacity(total);
    for _ in 0..total {
        // The earliest head; the left pane first at equal times.
        let pane =
            (0..lists.len()).filter(|pane| next[*pane] < lists[*pane].len()).min_by_key(|pane| (lists[*pane][next[*pane]].t_us, *pane));
        let Some(pane) = pane else { break };
        stops.push(lists[pane][next[pane]]);
        next[pane] += 1;
    }
    stops
}

/// The last event of `pane` at or before the cursor, if any.
pub fn last_shown(stops: &[Stop], cursor: usize, pane: usize) -> Option<u32> {
    let end = (cursor + 1).min(stops.len());
    stops[..end].iter().rev().find(|stop| stop.pane == pane).map(|stop| stop.event)
}

/// How long a stop stays on screen at a speed (an index into `SPEEDS_QUARTERS`).
pub fn step_ms(key: bool, speed: usize) -> u32 {
    let at_1x = if key { KEY_STEP_MS } else { MINOR_STEP_MS };
    let quarters = SPEEDS_QUARTERS[speed.min(SPEEDS_QUARTERS.len() - 1)];
    (at_1x * 4 / quarters).max(STEP_MS_MIN)
}

/// The stop index showing event `index` of pane 0 (for a cursor from a
/// link); without one, the opening stop.
pub fn stop_of(stops: &[Stop], index: Option<u32>) -> usize {
    index.map_or_else(|| opening_stop(stops), |index| stops.iter().rposition(|stop| stop.pane == 0 && stop.event <= index).unwrap_or(0))
}

/// Where a run opens: its first stop; side by side, the first stop at which
/// every pane shows its opening event, when they all open at the same
/// moment (so both panes start alike, not one ahead of the other).
pub fn opening_stop(stops: &[Stop]) -> usize {
    let Some(first) = stops.first() else { return 0 };
    let panes = stops.iter().map(|stop| stop.pane).max().unwrap_or(0) + 1;
    let opening: Vec<&Stop> = stops.iter().take_while(|stop| stop.t_us == first.t_us).collect();
    (0..panes)
        .map(|pane| opening.iter().position(|stop| stop.pane == pane))
        .collect::<Option<Vec<usize>>>()
        .and_then(|at| at.into_iter().max())
        .unwrap_or(0)
}

/// Playback state shared by the controls, the pictures and the URL.
#[derive(Clone, Copy)]
pub struct Player {
    /// Index into the stops.
    pub cursor: RwSignal<usize>,
    pub playing: RwSignal<bool>,
    /// The scrubber is being dragged: the position is not settled yet.
    pub scrubbing: RwSignal<bool>,
    pub speed: RwSignal<usize>,
    pub stops: Memo<Vec<Stop>>,
}

impl Player {
    pub fn new(stops: Memo<Vec<Stop>>, cursor: usize) -> Player {
        let player = Player {
            cursor: RwSignal::new(cursor),
            playing: RwSignal::new(false),
            scrubbing: RwSignal::new(false),
            speed: RwSignal::new(SPEED_1X),
            stops,
        };
        player.keep_in_range();
        player.drive();
        player
    }

    pub fn last(&self) -> usize {
        self.stops.with(|stops| stops.len().saturating_sub(1))
    }

    pub fn step(&self, forward: bool) {
        self.playing.set(false);
        self.scrubbing.set(false);
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
        self.scrubbing.set(false);
        self.cursor.set(0);
    }

    pub fn to_end(&self) {
        self.playing.set(false);
        self.scrubbing.set(false);
        self.cursor.set(self.last());
    }

    /// Whether the cursor rests (not playing, not being dragged): when a
    /// link should carry it. (Writing the URL at every frame of a drag would
    /// cost more than drawing it.)
    pub fn settled(&self) -> bool {
        !self.playing.get() && !self.scrubbing.get()
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

    /// While playing, advance one stop per tick; each tick waits as long as
    /// the stop on screen deserves at the chosen speed.
    fn drive(&self) {
        if !crate::shell::browser::IN_BROWSER {
            return; // drawn once at build time: nothing plays
        }
        let player = *self;
        let delay_ms = Memo::new(move |_| {
            let key = player.stops.with(|stops| stops.get(player.cursor.get()).is_some_and(|stop| stop.key));
            u64::from(step_ms(key, player.speed.get()))
        });
        let timer = use_interval_fn_with_options(move || player.tick(), delay_ms, UseIntervalFnOptions::default().immediate(false));
        let (pause, resume) = (timer.pause, timer.resume);
        Effect::new(move |_| if player.playing.get() { resume() } else { pause() });
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
