//! The explorer's answer in a learner's words (issue 42, item 6): one
//! sentence that connects to the run just seen ("Fencing saved this run.
//! But with the token drawn by a second command, one stop-the-world pause
//! can still …"), then the cause chain's steps (`chain`), then what was
//! searched as a short list, and the caveat on its own. The page renders
//! these; it writes none of them.

use super::bounds::Bounds;
use super::placements::{count_by_kind, Placement};
use crate::property::Property;
use crate::scenario::{Fault, FaultKind, Scenario};
use crate::trace::Counts;
use crate::TokenSource;

/// What a bounded search does not claim, said after its list.
pub const CAVEAT: &str = "A bounded search, not a proof: longer schedules, other lengths and later steps were not tried.";

/// What the run the learner just watched showed, in one sentence: the
/// design with its own faults, as the race played it.
fn seen(design: &Scenario, counts: &Counts) -> &'static str {
    let tally = &counts.tally;
    match () {
        _ if design.faults.is_empty() => "This design's run without faults goes well.",
        _ if tally.stale_overwrites > 0 => "This run already lost data: a stale write overwrote newer data.",
        _ if design.fencing && tally.rejected_writes > 0 => "Fencing saved this run: the store refused the stale write.",
        _ if tally.zombie_writes > 0 => "In this run a late write landed, though it overwrote nothing newer.",
        _ => "This run kept its data safe.",
    }
}

/// The design in the words the lead uses after "But".
fn design_words(design: &Scenario) -> &'static str {
    if design.lock_service.is_redis() && design.token_source_used() == TokenSource::SeparateIncr {
        "with the token drawn by a second command (an INCR after the SET)"
    } else {
        "in this design"
    }
}

/// "one stop-the-world pause", "a lost message and a worker crash",
/// "two stop-the-world pauses".
fn faults_words(faults: &[Fault]) -> String {
    let label = |fault: &Fault| fault.kind().label();
    let bare = |label: &'static str| label.strip_prefix("a ").or_else(|| label.strip_prefix("an ")).unwrap_or(label);
    match faults {
        [one] => format!("one {}", bare(label(one))),
        [first, second] if first.kind() == second.kind() => {
            let noun = bare(label(first));
            let plural = if noun.ends_with("sh") { "es" } else { "s" };
            format!("two {noun}{plural}")
        }
        [first, second] => format!("{} and {}", label(first), label(second)),
        more => format!("{} faults", more.len()),
    }
}

/// The lead of a counterexample: the run seen, then what can still happen.
pub fn found_lead(design: &Scenario, seen_counts: &Counts, property: Property, faults: &[Fault]) -> String {
    format!(
        "{} But {}, {} can still break the rule: {}.",
        seen(design, seen_counts),
        design_words(design),
        faults_words(faults),
        property.broken()
    )
}

/// The lead of a search that found nothing.
pub fn none_lead(design: &Scenario, seen_counts: &Counts, property: Property, tried: usize, faults_max: u8) -> String {
    let faults = if faults_max >= 2 { "up to two faults" } else { "one fault" };
    format!(
        "{} And none of the {tried} schedules of {faults} the search tried broke the rule that {}.",
        seen(design, seen_counts),
        property.describe()
    )
}

/// "9,999, 10,001 and 40,000 ms".
fn list_ms<T: Copy + Into<i64>>(values: &[T], signed: bool) -> String {
    let words: Vec<String> = values
        .iter()
        .map(|value| {
            let value: i64 = (*value).into();
            let digits = crate::fleet::thousands(u32::try_from(value.unsigned_abs()).unwrap_or(u32::MAX));
            match (signed, value < 0) {
                (true, true) => format!("−{digits}"),
                (true, false) => format!("+{digits}"),
                _ => digits,
            }
        })
        .collect();
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What was searched, one short item per kind of fault (with how many
/// single schedules of it, when `singles` is known), then the pairs.
pub fn searched(bounds: &Bounds, singles: Option<&[Placement]>, pairs: Option<usize>) -> Vec<String> {
    let counts = singles.map(count_by_kind);
    let count = |kind: FaultKind| {
        counts.as_ref().map_or(String::new(), |counts| {
            let n = counts.iter().find(|(counted, _)| *counted == kind).map_or(0, |(_, count)| *count);
            format!(" ({n} schedules)")
        })
    };
    let steps = bounds.steps_max;
    let moments = bounds.node_moments_max;
    let unsigned = |values: &[u64]| list_ms(&values.iter().map(|&v| i64::try_from(v).unwrap_or(i64::MAX)).collect::<Vec<_>>(), false);
    let mut items = Vec::new();
    let mut say = |kind: FaultKind, text: String| {
        if bounds.kinds.contains(&kind) {
            items.push(format!("{text}{}", count(kind)));
        }
    };
    say(FaultKind::Pause, format!("Pauses of {} ms, before each of a worker's first {steps} messages", unsigned(&bounds.pause_lengths_ms)));
    say(
        FaultKind::LoseMessage,
        format!("Each of those messages lost, and a lock node's next message after each of its first {moments} steps"),
    );
    say(FaultKind::Crash, "A worker crashed right after each of those messages".to_string());
    say(FaultKind::DelayWrite, format!("A write held back {} ms", unsigned(&bounds.hold_lengths_ms)));
    say(
        FaultKind::NodeCrash,
        format!(
            "A lock node down for {} ms after each of the service's first {moments} grants, counts and renewals",
            unsigned(&bounds.node_down_ms)
        ),
    );
    say(FaultKind::Partition, format!("A lock node cut off for {} ms at those moments", unsigned(&bounds.partition_ms)));
    say(FaultKind::ClockJump, format!("A lock node's clock jumping {} ms there", list_ms(&bounds.clock_jumps_ms, true)));
    say(FaultKind::ClockDrift, format!("A lock node's clock running {} ppm from the start", list_ms(&bounds.drift_ppm, true)));
    if bounds.faults_max >= 2 {
        let pairs = pairs.map_or(String::new(), |pairs| format!(" ({pairs} schedules)"));
        items.push(format!("Pairs of these, each second fault placed on the run the first produced{pairs}"));
    }
    items
}
