//! TEMPORARY adapter over the core's trace, until the core carries these
//! facts itself (the lead's API: `Kind::Send { body, fate }`,
//! `Trace::store_at`, `Trace::verdict_at`, `Scenario::allowed_faults`,
//! `Scenario::pause_ms_default`, `presets::is_preset_fault`). Every other
//! module reads them only through here, so the swap is this one file.

use fencing_sim::presets;
use fencing_sim::store::Datum;
use fencing_sim::{Event, Fault, Kind, LockService, Scenario, Trace};

/// What became of a message, as the diagram colours its arrow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Accepted,
    Zombie,
    StaleOverwrite,
    Rejected,
    RightfulRejected,
    Lost,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Safe,
    Damaged,
    LostLiveness,
    Unchecked,
    Pending,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub tone: Tone,
    pub text: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreState {
    pub holds: Option<Datum>,
    pub highest_token: Option<u64>,
    pub before_after: Option<(Option<Datum>, Datum)>,
}

/// The kinds of fault the fault buttons may offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    Pause,
    Crash,
    DelayWrite,
    Partition,
    ClockJump,
}

/// The text on a message's arrow.
pub fn arrow_label(event: &Event) -> Option<&str> {
    match &event.kind {
        Kind::Send { label, .. } | Kind::Receive { label, .. } | Kind::Lost { label, .. } => Some(label),
        _ => None,
    }
}

/// The event that answers a message's send: its receive or its loss.
pub fn arrival(trace: &Trace, send: &Event) -> Option<u32> {
    let Kind::Send { msg, .. } = send.kind else { return None };
    trace.events[send.index as usize..]
        .iter()
        .find(|event| matches!(event.kind, Kind::Receive { msg: m, .. } | Kind::Lost { msg: m, .. } if m == msg))
        .map(|event| event.index)
}

/// What became of a send (its write's verdict, or its loss).
pub fn fate(trace: &Trace, send: &Event) -> Option<Fate> {
    let arrived = trace.events.get(arrival(trace, send)? as usize)?;
    if matches!(arrived.kind, Kind::Lost { .. }) {
        return Some(Fate::Lost);
    }
    let Kind::Send { to: fencing_sim::Actor::Store, .. } = send.kind else { return None };
    match trace.events.get(arrived.index as usize + 1).map(|event| &event.kind) {
        Some(Kind::WriteAccepted { stale_overwrite: true, .. }) => Some(Fate::StaleOverwrite),
        Some(Kind::WriteAccepted { zombie: true, .. }) => Some(Fate::Zombie),
        Some(Kind::WriteAccepted { .. }) => Some(Fate::Accepted),
        Some(Kind::WriteRejected { .. }) => Some(Fate::Rejected),
        _ => None,
    }
}

/// The store as it stands after event `index`.
pub fn store_at(trace: &Trace, index: Option<u32>) -> StoreState {
    let Some(index) = index else { return StoreState::default() };
    let mut state = StoreState::default();
    for event in trace.events.iter().take(index as usize + 1) {
        if let Kind::WriteAccepted { writer, stale_overwrite, .. } = event.kind {
            let datum = Datum { writer, token: event.token, epoch: 0 };
            if stale_overwrite {
                state.before_after = Some((state.holds, datum));
            }
            state.holds = Some(datum);
            state.highest_token = state.highest_token.max(event.token);
        }
    }
    state
}

/// The banner at a cursor position: the run's verdict at its end, and what
/// the counters say so far before it.
pub fn verdict_at(trace: &Trace, index: Option<u32>) -> Verdict {
    let last = trace.events.len().saturating_sub(1) as u32;
    let tally = index.and_then(|index| trace.events.get(index as usize)).map(|event| event.tally).unwrap_or_default();
    if index == Some(last) {
        let summary = &trace.summary;
        let tone = if summary.stale_overwrites > 0 || summary.zombie_writes > 0 { Tone::Damaged } else { Tone::Safe };
        return Verdict { tone, text: summary.verdict.clone() };
    }
    if tally.stale_overwrites > 0 {
        return Verdict { tone: Tone::Damaged, text: "So far: a stale write has overwritten newer data".to_string() };
    }
    if tally.zombie_writes > 0 {
        return Verdict { tone: Tone::Damaged, text: "So far: a worker wrote after losing the lock".to_string() };
    }
    Verdict { tone: Tone::Pending, text: "So far: no write has been damaged".to_string() }
}

/// One line for each red counter that is not damage.
pub fn notes(trace: &Trace) -> Vec<String> {
    let summary = &trace.summary;
    let mut notes = Vec::new();
    if summary.mutual_exclusion_violations > 0 && summary.stale_overwrites == 0 && summary.zombie_writes == 0 {
        notes.push("Two workers believed they held the lock at once; the store's token check kept the data safe all the same.".to_string());
    }
    notes
}

pub fn allowed_faults(scenario: &Scenario) -> Vec<FaultKind> {
    let mut kinds = vec![FaultKind::Pause, FaultKind::Crash, FaultKind::DelayWrite];
    if scenario.lock_service != LockService::None {
        kinds.push(FaultKind::Partition);
    }
    if !matches!(scenario.lock_service, LockService::Consensus | LockService::None) {
        kinds.push(FaultKind::ClockJump);
    }
    kinds
}

pub fn pause_ms_default(scenario: &Scenario) -> u64 {
    scenario
        .faults
        .iter()
        .find_map(|fault| if let Fault::Pause { pause_ms, .. } = fault { Some(*pause_ms) } else { None })
        .unwrap_or(15_000)
}

pub fn is_preset_fault(scenario: &Scenario, fault: &Fault) -> bool {
    presets::find(&scenario.preset).is_some_and(|preset| (preset.build)().faults.contains(fault))
}

/// The write `worker` sends first after event `index`, as the fault names
/// it (its number within its hold), if it sends one and no earlier write of
/// the run has that number (the fault would strike the earlier one: the past).
pub fn next_write(trace: &Trace, worker: fencing_sim::Actor, index: Option<u32>) -> Option<u8> {
    let after = index.map_or(0, |index| index as usize + 1).min(trace.events.len());
    // Before the merge the number is counted from the worker's last grant;
    // after it, it is read off the send's typed body (`WriteReq::nth`).
    let mut numbers = Vec::new();
    let mut in_hold = 0u8;
    for event in &trace.events {
        if event.actor != worker {
            continue;
        }
        match &event.kind {
            Kind::Acquired => in_hold = 0,
            Kind::Send { to: fencing_sim::Actor::Store, label, .. } if label.starts_with("write") => {
                in_hold = in_hold.saturating_add(1);
                numbers.push((event.index as usize, in_hold));
            }
            _ => {}
        }
    }
    let (_, next) = *numbers.iter().find(|(at, _)| *at >= after)?;
    let past = numbers.iter().any(|(at, number)| *at < after && *number == next);
    (!past).then_some(next)
}
