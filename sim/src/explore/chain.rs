//! The cause chain of a counterexample, read off its run: the events that
//! matter, in order, up to the one that broke the property — "A froze before
//! its INCR (its SET already granted); A's lease expired; B took the lock with
//! token 33; A woke; A went on as the holder (token 34), though its lease had
//! run out; the store took A's write (token 34) over B's newer data".

use crate::actor::Actor;
use crate::event::{Event, Kind, Tally};
use crate::ledger::{Ledger, WorkTally};
use crate::msg::Msg;
use crate::observer::SpanKind;
use crate::property::Property;
use crate::trace::Trace;

/// Phrases in a chain at most; a longer story is cut with "…".
const PHRASES_MAX: usize = 14;

pub fn chain(trace: &Trace, property: Property) -> String {
    let end = breaking_event(trace, property).unwrap_or(trace.events.len().saturating_sub(1));
    let mut phrases: Vec<String> =
        trace.events[..=end.min(trace.events.len().saturating_sub(1))].iter().filter_map(|event| phrase(trace, event)).collect();
    if phrases.len() > PHRASES_MAX {
        phrases.drain(..phrases.len() - PHRASES_MAX);
        phrases.insert(0, "…".to_string());
    }
    phrases.join("; ")
}

/// The first event at which the property's counter went up (none for
/// `lock_eventually_free`, which breaks only at the run's end). The work
/// ledger's counters are not kept per event: its events are replayed.
fn breaking_event(trace: &Trace, property: Property) -> Option<usize> {
    let counter: fn(&Tally) -> u32 = match property {
        Property::NoStaleOverwrite => |tally| tally.stale_overwrites,
        Property::MutualExclusion => |tally| tally.mutual_exclusion_violations,
        Property::NoRightfulWriteRejected => |tally| tally.rightful_writes_rejected,
        Property::LockEventuallyFree => return None,
        Property::NoLostUpdate => return first_in_ledger(trace, |work| work.lost_updates),
        Property::WorkDoneOnce => return first_in_ledger(trace, |work| work.work_redone),
    };
    trace.events.iter().position(|event| counter(&event.tally) > 0)
}

fn first_in_ledger(trace: &Trace, counter: fn(&WorkTally) -> u32) -> Option<usize> {
    let mut ledger = Ledger::default();
    trace.events.iter().position(|event| {
        ledger.observe(event.actor, &event.kind);
        counter(&ledger.tally()) > 0
    })
}

fn phrase(trace: &Trace, event: &Event) -> Option<String> {
    let actor = event.actor;
    let token = event.token.map_or_else(String::new, |token| format!(" (token {token})"));
    let text = match event.kind {
        Kind::PauseBegan { until_us } => froze(trace, actor, event.index, until_us),
        Kind::PauseEnded => format!("{actor} woke"),
        Kind::Crashed => format!("{actor} crashed"),
        Kind::Expired { holder, .. } => format!("{holder}'s lease expired"),
        Kind::LeaseLost { holder } => format!("{holder}'s lease was lost"),
        Kind::Deleted { holder, by, .. } if holder != by => format!("{by}'s DEL deleted {holder}'s lock"),
        Kind::NodeDown { .. } => format!("{actor} crashed"),
        Kind::Promoted { .. } => format!("{actor} was promoted"),
        Kind::Elected { .. } => format!("{actor} was elected leader"),
        Kind::SteppedDown => format!("{actor} stepped down"),
        Kind::Demoted { .. } => format!("{actor} was demoted to a replica"),
        Kind::ClockJumped { jump_ms } => format!("{actor}'s clock jumped {jump_ms:+} ms"),
        // A worker that finishes acquiring after its lease ran out (it froze
        // between the SET and the INCR) only believes it holds the lock.
        Kind::Acquired { .. } if !leased(trace, actor, event.t_us) => {
            format!("{actor} went on as the holder{token}, though its lease had run out")
        }
        Kind::Acquired { .. } => format!("{actor} took the lock{token}"),
        Kind::WriteAccepted { writer, stale_overwrite: true, replaced, .. } => {
            let victim = replaced.map_or_else(|| "newer data".to_string(), |old| format!("{}'s newer data", old.writer));
            format!("the store took {writer}'s write{token} over {victim}")
        }
        Kind::WriteAccepted { writer, zombie: true, .. } => format!("the store took {writer}'s late write{token}"),
        Kind::ReadVersion { version } => format!("{actor} read the data at version {version}"),
        Kind::Retry => format!("{actor} started the job over"),
        Kind::WriteAccepted { writer, .. } if matches!(trace.scenario.lock_service, crate::LockService::None) => {
            format!("the store took {writer}'s write")
        }
        Kind::WriteRejected { writer, rightful: true, .. } => format!("the store refused {writer}, the rightful holder{token}"),
        Kind::WriteRejected { writer, .. } => format!("the store refused {writer}'s stale write{token}"),
        _ => return None,
    };
    Some(text)
}

/// Whether the lock service's lease was `worker`'s at `t_us`.
fn leased(trace: &Trace, worker: Actor, t_us: u64) -> bool {
    trace.spans.iter().any(|span| span.worker == worker && span.kind == SpanKind::Lease && (span.start_us..=span.end_us).contains(&t_us))
}

/// "A froze before its INCR (its SET already granted)": what the worker
/// was about to send when it woke, and what it last heard.
fn froze(trace: &Trace, worker: Actor, index: u32, until_us: u64) -> String {
    let next = trace.events.iter().skip(index as usize).find_map(|event| match event.kind {
        Kind::Send { body, .. } if event.actor == worker && event.t_us >= until_us => Some(body),
        _ => None,
    });
    let heard = trace.events[..index as usize].iter().rev().find_map(|event| match event.kind {
        Kind::Receive { body, .. } if event.actor == worker => Some(body),
        _ => None,
    });
    let before = next.map_or_else(String::new, |body| format!(" before its {}", step_name(&body)));
    let after = match heard {
        Some(Msg::SetReply { ok: true }) => " (its SET already granted)",
        Some(Msg::CheckReply { mine: true }) => " (its lease check said yes)",
        _ => "",
    };
    format!("{worker} froze{before}{after}")
}

fn step_name(body: &Msg) -> &'static str {
    match body {
        Msg::SetNx { .. } => "SET",
        Msg::Incr => "INCR",
        Msg::AcquireScript { .. } => "acquire script",
        Msg::Renew { .. } => "renewal",
        Msg::Check { .. } => "lease check",
        Msg::ReleaseCad { .. } | Msg::Del => "release",
        Msg::LeaseGrant { .. } => "lease request",
        Msg::PutLock { .. } => "lock key",
        Msg::Read => "read",
        Msg::Write(_) => "write",
        _ => "next message",
    }
}
