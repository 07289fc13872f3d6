//! An incident told from the window around it: the workers it involves
//! and the events that tell it, read off the trace `fleet::window`
//! replays (the incidents themselves know nothing of traces).

use crate::event::Kind;
use crate::incident::Incident;
use crate::Actor;
use serde::Serialize;

/// The most rows an incident's story lists.
pub const STORY_ROWS_MAX: usize = 200;

/// An incident told from the window around it: the workers it involves (the
/// writer, and whoever's newer data or higher token it ran into), the
/// events that tell it, and how many other jobs started while the writer
/// was paused (the fleet went on; the story leaves them out).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Story {
    pub writer: Actor,
    pub other: Option<Actor>,
    /// Event indices of the window's trace, in order; at most `STORY_ROWS_MAX`.
    pub rows: Vec<u32>,
    pub jobs_during_pause: u32,
}

impl Story {
    /// `incident`'s story in `window`, the trace `fleet::window` replays
    /// around it.
    pub fn of(incident: &Incident, window: &crate::Trace) -> Story {
        let other = window.events.iter().find_map(|event| other_in(incident, event, window));
        // The other worker's part begins with the grant the incident ran
        // into: its jobs before that are the fleet going on.
        let grant = window
            .events
            .iter()
            .rfind(|event| Some(event.actor) == other && matches!(event.kind, Kind::Acquired { .. }) && event.t_us <= incident.t_us);
        let (other_from_us, other_token) = grant.map_or((0, None), |grant| (grant.t_us, grant.token));
        let involved = |event: &crate::Event, actor: Actor| {
            let others = match event.kind {
                // The other's token is counted just before its grant.
                Kind::TokenIssued { .. } => event.token == other_token,
                _ => event.t_us >= other_from_us,
            };
            actor == incident.writer || (Some(actor) == other && others)
        };
        let chatter = window.chatter();
        let rows = window
            .events
            .iter()
            .filter(|event| !chatter[event.index as usize] && concerns(event, &involved))
            .map(|event| event.index)
            .take(STORY_ROWS_MAX)
            .collect();
        let paused = incident.paused_at_us.zip(incident.pause_us).map(|(at_us, length_us)| at_us..at_us + length_us);
        let jobs_during_pause = window
            .events
            .iter()
            .filter(|event| matches!(event.kind, Kind::Start) && event.actor != incident.writer)
            .filter(|event| paused.as_ref().is_some_and(|paused| paused.contains(&event.t_us)))
            .count();
        Story { writer: incident.writer, other, rows, jobs_during_pause: u32::try_from(jobs_during_pause).unwrap_or(u32::MAX) }
    }
}

/// The other worker, if `event` is this incident's write and names it:
/// the writer of the data a zombie replaced, or the holder of the token
/// fencing compared against.
fn other_in(incident: &Incident, event: &crate::Event, window: &crate::Trace) -> Option<Actor> {
    if event.t_us != incident.t_us {
        return None;
    }
    match event.kind {
        Kind::WriteAccepted { writer, replaced: Some(datum), .. } if writer == incident.writer => Some(datum.writer),
        Kind::WriteRejected { writer, highest_token: Some(highest), .. } if writer == incident.writer => {
            window.events.iter().find(|grant| matches!(grant.kind, Kind::TokenIssued { .. }) && grant.token == Some(highest)).and_then(
                |grant| match grant.kind {
                    Kind::TokenIssued { to } => Some(to),
                    _ => None,
                },
            )
        }
        _ => None,
    }
    .filter(|other| *other != incident.writer)
}

/// Whether `event` is part of the story of the workers `involved` says.
fn concerns(event: &crate::Event, involved: &impl Fn(&crate::Event, Actor) -> bool) -> bool {
    match event.kind {
        Kind::Expired { holder, .. } | Kind::Deleted { holder, .. } => involved(event, holder),
        Kind::TokenIssued { to } => involved(event, to),
        Kind::WriteAccepted { writer, .. } | Kind::WriteRejected { writer, .. } => involved(event, writer),
        _ => event.actor.worker_index().is_some() && involved(event, event.actor),
    }
}

impl Story {
    /// Each row's time and sentence in the fleet's words: the time as
    /// `when_to_ms`, and in the story's sentence every moment ("until
    /// 1229.321 s by its own clock") as `when_to_ms` and every length as
    /// `lasting`, so the fleet reads one way throughout.
    pub fn lines(&self, window: &crate::Trace) -> Vec<(u32, String, String)> {
        self.rows
            .iter()
            .filter_map(|&index| window.events.get(index as usize))
            .map(|event| (event.index, super::when_to_ms(event.t_us), fleet_times(&window.text(event))))
            .collect()
    }
}

/// The story's times rewritten: a figure written by `format_us` after
/// "until " or "at " is a moment, any other a length.
pub fn fleet_times(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < bytes.len() {
        let starts_figure = bytes[at].is_ascii_digit() && (at == 0 || !(bytes[at - 1].is_ascii_digit() || bytes[at - 1] == b'.'));
        if let Some((us, length)) = starts_figure.then(|| figure_at(&text[at..])).flatten() {
            let moment = out.ends_with("until ") || out.ends_with("at ");
            out.push_str(&if moment { super::when_to_ms(us) } else { super::lasting(us) });
            at += length;
        } else {
            let next = text[at..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[at..at + next]);
            at += next;
        }
    }
    out
}

/// A `format_us` figure at the start of `text` ("1229.321 s", "0.6 ms"):
/// its value in µs and its length in bytes.
fn figure_at(text: &str) -> Option<(u64, usize)> {
    let whole_end = text.find(|c: char| !c.is_ascii_digit())?;
    let rest = text[whole_end..].strip_prefix('.')?;
    let fraction_len = rest.find(|c: char| !c.is_ascii_digit())?;
    let (whole, fraction) = (text[..whole_end].parse::<u64>().ok()?, rest[..fraction_len].parse::<u64>().ok()?);
    let after = &rest[fraction_len..];
    let used = whole_end + 1 + fraction_len;
    match fraction_len {
        3 if after.starts_with(" s") && !after[2..].starts_with(|c: char| c.is_alphanumeric()) => {
            Some((whole.checked_mul(1_000_000)?.checked_add(fraction * 1000)?, used + 2))
        }
        1 if after.starts_with(" ms") => Some((whole.checked_mul(1000)?.checked_add(fraction * 100)?, used + 3)),
        _ => None,
    }
}
