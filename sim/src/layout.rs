//! Where things go on the page's pictures, computed here so the page only
//! draws. Time is compressed: every moment something visible happens gets a
//! row, and a quiet stretch (a 15 s pause) becomes a marked break, so a 10 s
//! lease and 0.2 ms messages fit in one picture.

use crate::event::{Event, Kind};
use crate::trace::Trace;
use serde::Serialize;

/// Gaps at least this long are drawn as a break rather than a plain step.
pub const BREAK_US: u64 = 100_000;
/// Height of one row and of a break, in row units.
pub const ROW: f64 = 1.0;
pub const BREAK: f64 = 1.6;

/// A compressed time axis: positions (in row units) of the visible moments.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Axis {
    /// (time, position), strictly increasing in both.
    pub knots: Vec<(u64, f64)>,
    pub breaks: Vec<Break>,
    pub length: f64,
}

/// A quiet stretch drawn as a break.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Break {
    /// Where the break is drawn: between `from` and `to` (row units).
    pub from: f64,
    pub to: f64,
    pub skipped_us: u64,
}

impl Axis {
    /// An axis whose rows are the distinct times of `times` (any order).
    pub fn new(times: impl IntoIterator<Item = u64>) -> Axis {
        let mut times: Vec<u64> = times.into_iter().collect();
        times.sort_unstable();
        times.dedup();
        let mut axis = Axis::default();
        let mut position = 0.0;
        for (index, t_us) in times.iter().enumerate() {
            if index > 0 {
                let gap_us = t_us - times[index - 1];
                if gap_us >= BREAK_US {
                    axis.breaks.push(Break { from: position, to: position + BREAK, skipped_us: gap_us });
                    position += BREAK;
                } else {
                    position += ROW;
                }
            }
            axis.knots.push((*t_us, position));
        }
        axis.length = position + ROW;
        axis
    }

    /// The position of any time: exact at a knot, interpolated between knots,
    /// clamped outside them.
    pub fn position(&self, t_us: u64) -> f64 {
        let after = self.knots.partition_point(|(knot_us, _)| *knot_us <= t_us);
        match (after.checked_sub(1).map(|index| self.knots[index]), self.knots.get(after)) {
            (Some((t0, p0)), Some(&(t1, p1))) => p0 + (p1 - p0) * (t_us - t0) as f64 / (t1 - t0) as f64,
            (Some((_, p0)), None) => p0,
            (None, Some(&(_, p1))) => p1,
            (None, None) => 0.0,
        }
    }
}

impl Trace {
    /// For each event: whether it is retry chatter (a refused acquire
    /// attempt and its messages, a backoff), which the page folds away.
    pub fn chatter(&self) -> Vec<bool> {
        let mut refused_msgs: Vec<u32> = Vec::new();
        for (index, event) in self.events.iter().enumerate() {
            if !matches!(event.kind, Kind::Denied { .. }) {
                continue;
            }
            // The refused request is the receive just before the denial on
            // that node; the refusal is the send just after it.
            let before = self.events[..index].iter().rev().find(|e| e.actor == event.actor && matches!(e.kind, Kind::Receive { .. }));
            let after = self.events[index..].iter().find(|e| e.actor == event.actor && matches!(e.kind, Kind::Send { .. }));
            refused_msgs.extend(before.into_iter().chain(after).filter_map(message_id));
        }
        self.events
            .iter()
            .map(|event| {
                matches!(event.kind, Kind::Denied { .. } | Kind::AcquireFailed { .. } | Kind::Backoff { .. })
                    || message_id(event).is_some_and(|msg| refused_msgs.contains(&msg))
            })
            .collect()
    }

    /// The compressed axis over the events for which `visible` is true.
    pub fn axis(&self, visible: &[bool]) -> Axis {
        Axis::new(self.events.iter().zip(visible).filter(|(_, shown)| **shown).map(|(event, _)| event.t_us))
    }
}

/// The message an event sends, receives or loses.
pub fn message_id(event: &Event) -> Option<u32> {
    match event.kind {
        Kind::Send { msg, .. } | Kind::Receive { msg, .. } | Kind::Lost { msg, .. } => Some(msg),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_stretches_become_breaks() {
        let axis = Axis::new([0, 200, 200, 400, 15_000_400]);
        assert_eq!(axis.knots, vec![(0, 0.0), (200, 1.0), (400, 2.0), (15_000_400, 3.6)]);
        assert_eq!(axis.breaks, vec![Break { from: 2.0, to: 3.6, skipped_us: 15_000_000 }]);
        assert_eq!(axis.position(300), 1.5);
        assert_eq!(axis.position(99_000_000), 3.6);
    }

    #[test]
    fn the_classic_story_fits_in_a_few_dozen_rows() {
        let trace = crate::run(&crate::presets::classic()).unwrap();
        let chatter = trace.chatter();
        assert!(chatter.iter().any(|c| *c), "B's refused attempts are chatter");
        let visible: Vec<bool> = chatter.iter().map(|c| !c).collect();
        let axis = trace.axis(&visible);
        assert!(axis.length < 60.0, "{}", axis.length);
        assert!(axis.breaks.iter().any(|b| b.skipped_us > 4_000_000), "the pause is a break");
    }
}
