//! Sweeps: run one scenario over a range of one parameter and many seeds,
//! and count how often each outcome happens. This is how "a longer lease
//! only makes it rarer" becomes a number.

use crate::scenario::{Fault, Scenario, ScenarioError};
use serde::Serialize;

/// The parameters a sweep can vary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Param {
    TtlMs,
    /// The length of every pause fault in the scenario.
    PauseMs,
    WorkMs,
}

impl Param {
    pub fn parse(name: &str) -> Option<Param> {
        match name {
            "ttl-ms" | "ttl_ms" => Some(Param::TtlMs),
            "pause-ms" | "pause_ms" => Some(Param::PauseMs),
            "work-ms" | "work_ms" => Some(Param::WorkMs),
            _ => None,
        }
    }

    /// The scenario with this parameter set to `value`.
    pub fn apply(self, scenario: &Scenario, value: u64) -> Scenario {
        let mut scenario = scenario.clone();
        match self {
            Param::TtlMs => scenario.ttl_ms = value,
            Param::WorkMs => scenario.work_ms = value,
            Param::PauseMs => {
                for fault in &mut scenario.faults {
                    if let Fault::Pause { pause_ms, .. } = fault {
                        *pause_ms = value;
                    }
                }
            }
        }
        scenario
    }
}

/// One value of the swept parameter, over `runs` seeds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    pub value: u64,
    pub runs: u32,
    /// Runs with at least one zombie write / stale overwrite / rejection.
    pub runs_with_zombie_writes: u32,
    pub runs_with_stale_overwrites: u32,
    pub runs_with_rejected_writes: u32,
    pub runs_with_mutual_exclusion_violations: u32,
}

/// The most runs one sweep may make, so a page or a typo cannot hang.
pub const SWEEP_RUNS_MAX: u64 = 100_000;

/// Runs `base` at every value in `values`, each with seeds
/// `base.seed .. base.seed + seeds`.
pub fn sweep(base: &Scenario, param: Param, values: &[u64], seeds: u32) -> Result<Vec<Row>, ScenarioError> {
    let total = values.len() as u64 * u64::from(seeds);
    if total > SWEEP_RUNS_MAX || seeds == 0 {
        return Err(ScenarioError { problems: vec![format!("a sweep makes 1–{SWEEP_RUNS_MAX} runs, not {total}")] });
    }
    values.iter().map(|value| row(base, param, *value, seeds)).collect()
}

fn row(base: &Scenario, param: Param, value: u64, seeds: u32) -> Result<Row, ScenarioError> {
    let mut row = Row {
        value,
        runs: seeds,
        runs_with_zombie_writes: 0,
        runs_with_stale_overwrites: 0,
        runs_with_rejected_writes: 0,
        runs_with_mutual_exclusion_violations: 0,
    };
    for offset in 0..u64::from(seeds) {
        let scenario = Scenario { seed: base.seed.wrapping_add(offset), ..param.apply(base, value) };
        let summary = crate::run(&scenario)?.summary;
        row.runs_with_zombie_writes += u32::from(summary.zombie_writes > 0);
        row.runs_with_stale_overwrites += u32::from(summary.stale_overwrites > 0);
        row.runs_with_rejected_writes += u32::from(summary.rejected_writes > 0);
        row.runs_with_mutual_exclusion_violations += u32::from(summary.mutual_exclusion_violations > 0);
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_longer_pause_beats_the_quadrupled_lease() {
        let base = crate::presets::build("lease-x4").unwrap();
        let rows = sweep(&base, Param::PauseMs, &[15_000, 45_000], 5).unwrap();
        assert_eq!(rows[0].runs_with_stale_overwrites, 0);
        assert_eq!(rows[1].runs_with_stale_overwrites, 5);
    }

    #[test]
    fn sweeps_are_bounded() {
        let base = crate::presets::classic();
        assert!(sweep(&base, Param::TtlMs, &[1; 1000], 1000).is_err());
        assert!(sweep(&base, Param::TtlMs, &[1], 0).is_err());
    }
}
