//! The sentence a search that found nothing ends with, written from its
//! bounds and what it counted: every number in it is one the search used.

use super::bounds::Bounds;
use super::placements::{count_by_kind, Placement};
use crate::property::Property;
use crate::scenario::FaultKind;

pub fn claim(property: Property, bounds: &Bounds, singles: &[Placement], pairs: usize, tried: usize) -> String {
    let counts = count_by_kind(singles);
    let count = |kind: FaultKind| counts.iter().find(|(counted, _)| *counted == kind).map_or(0, |(_, count)| *count);
    let mut searched = Vec::new();
    let mut say = |kind: FaultKind, text: String| {
        if bounds.kinds.contains(&kind) {
            searched.push(format!("{text} ({})", count(kind)));
        }
    };
    let steps = bounds.steps_max;
    say(
        FaultKind::Pause,
        format!("a pause of each worker before each of its first {steps} messages, {} ms long", list(&bounds.pause_lengths_ms)),
    );
    say(FaultKind::LoseMessage, "each of those messages lost, and each lock node's next message after each step below".to_string());
    say(FaultKind::Crash, "each worker crashed right after each of those messages".to_string());
    say(FaultKind::DelayWrite, format!("each write held {} ms", list(&bounds.hold_lengths_ms)));
    let moments = bounds.node_moments_max;
    say(
        FaultKind::NodeCrash,
        format!(
            "each lock node crashed for {} ms right after each of the service's first {moments} grants, counts and renewals",
            list(&bounds.node_down_ms)
        ),
    );
    say(FaultKind::Partition, format!("each lock node cut off from everyone for {} ms there", list(&bounds.partition_ms)));
    say(FaultKind::ClockJump, format!("its clock jumped {} ms there", signed(&bounds.clock_jumps_ms)));
    say(FaultKind::ClockDrift, format!("its clock running {} ppm from the start", signed(&bounds.drift_ppm)));
    let pairs = if bounds.faults_max >= 2 {
        format!("; and {pairs} pairs of these, each second fault placed on the run its first produced, after the first struck")
    } else {
        String::new()
    };
    format!(
        "No schedule broke {} in {tried} tried: {} singles — {}{pairs}. \
         A bounded search, not a proof: longer schedules, other lengths and later steps were not tried.",
        property.name(),
        singles.len(),
        searched.join(", "),
    )
}

fn list(values: &[u64]) -> String {
    values.iter().map(u64::to_string).collect::<Vec<_>>().join(" / ")
}

fn signed<T: std::fmt::Display + Copy + Into<i64>>(values: &[T]) -> String {
    values.iter().map(|value| format!("{:+}", (*value).into())).collect::<Vec<_>>().join(" / ")
}
