//! "Can this go wrong?": the explorer takes a design (a scenario without its
//! faults) and a property, places faults systematically — every single
//! placement, then every pair — and runs each schedule. The first schedule
//! that breaks the property is shrunk (fewest faults, then least fault,
//! then earliest step: a single is the least of all singles; a pair is
//! shrunk by swapping in smaller faults of the same kinds, a small schedule
//! rather than provably the smallest) and returned as an
//! ordinary scenario with a cause chain read off its run. When nothing
//! breaks it, the answer is a bounded claim that says what was tried.
//!
//! The search works in slices (`step`), so a page can run it between frames
//! with a progress bar and a Cancel button.

mod chain;
mod placements;
pub mod table;

pub use placements::{pause_lengths_ms, Placement, NODE_MOMENTS_MAX, STEPS_MAX};

use crate::property::Property;
use crate::scenario::{Fault, FaultKind, Scenario};
use serde::Serialize;

/// At most this many runs go into shrinking a counterexample.
const SHRINK_RUNS_MAX: usize = 2_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counterexample {
    /// The design with the shrunk schedule's faults: replay it as any run.
    pub scenario: Scenario,
    /// What happened, read off the run: "A froze before its INCR; …".
    pub chain: String,
    pub schedules_tried: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "found", rename_all = "snake_case")]
pub enum Outcome {
    /// A schedule broke the property.
    Counterexample(Counterexample),
    /// None did: what was searched, in one honest sentence.
    None { schedules_tried: usize, claim: String },
}

pub struct Explorer {
    design: Scenario,
    property: Property,
    singles: Vec<Placement>,
    faults_max: u8,
    /// The next schedule to try: a single (`second == None`) or a pair.
    first: usize,
    second: Option<usize>,
    tried: usize,
    /// The best violating schedule among the singles, by shrinking order.
    best_single: Option<usize>,
    done: Option<Outcome>,
}

impl Explorer {
    /// Explores `scenario`'s design (its own faults set aside) for
    /// `property`, with schedules of at most `faults_max` (1 or 2) faults.
    pub fn new(scenario: &Scenario, property: Property, faults_max: u8) -> Result<Explorer, crate::ScenarioError> {
        let design = Scenario { faults: Vec::new(), ..scenario.clone() };
        let base = crate::run(&design)?;
        let singles = placements::singles(&design, &base);
        let faults_max = faults_max.clamp(1, 2);
        Ok(Explorer { design, property, singles, faults_max, first: 0, second: None, tried: 0, best_single: None, done: None })
    }

    /// How many schedules the whole search holds (singles, then pairs).
    pub fn total(&self) -> usize {
        let singles = self.singles.len();
        if self.faults_max < 2 {
            return singles;
        }
        singles + singles * singles.saturating_sub(1) / 2
    }

    pub fn tried(&self) -> usize {
        self.tried
    }

    /// Runs up to `runs_max` schedules; the outcome once the search is over.
    pub fn step(&mut self, runs_max: usize) -> Option<&Outcome> {
        for _ in 0..runs_max {
            if self.done.is_some() {
                break;
            }
            self.advance();
        }
        self.done.as_ref()
    }

    /// Runs the whole search at once (the command line, tests).
    pub fn run_to_end(mut self) -> Outcome {
        while self.step(usize::MAX).is_none() {}
        self.done.expect("the search ended")
    }

    fn advance(&mut self) {
        match self.second {
            None if self.first < self.singles.len() => {
                let index = self.first;
                self.first += 1;
                if self.breaks(&[index]) && self.best_single.is_none_or(|best| self.smaller(&[index], &[best])) {
                    self.best_single = Some(index);
                }
            }
            None => self.after_singles(),
            Some(second) => self.try_pair(self.first, second),
        }
    }

    /// Singles done: one that broke the property is the answer (no pair can
    /// have fewer faults); otherwise the pairs begin, if allowed.
    fn after_singles(&mut self) {
        if let Some(best) = self.best_single {
            return self.finish_with(vec![best]);
        }
        if self.faults_max < 2 || self.singles.len() < 2 {
            return self.finish_clean();
        }
        self.first = 0;
        self.second = Some(1);
    }

    fn try_pair(&mut self, first: usize, second: usize) {
        let breaks = self.breaks(&[first, second]);
        if breaks {
            let shrunk = self.shrink(vec![first, second]);
            return self.finish_with(shrunk);
        }
        // Next pair in (first, second) order, first < second.
        if second + 1 < self.singles.len() {
            self.second = Some(second + 1);
        } else if first + 2 < self.singles.len() {
            self.first = first + 1;
            self.second = Some(first + 2);
        } else {
            self.finish_clean();
        }
    }

    /// Whether the schedule of these placements breaks the property.
    fn breaks(&mut self, schedule: &[usize]) -> bool {
        self.tried += 1;
        let scenario = self.with(schedule);
        crate::run_counts(&scenario).is_ok_and(|counts| !self.property.holds(&counts))
    }

    fn with(&self, schedule: &[usize]) -> Scenario {
        let faults: Vec<Fault> = schedule.iter().map(|index| self.singles[*index].fault.clone()).collect();
        Scenario { faults, ..self.design.clone() }
    }

    /// The shrinking order: fewer faults, then less fault in all, then
    /// earlier steps, then earlier in the search.
    fn smaller(&self, left: &[usize], right: &[usize]) -> bool {
        let key = |schedule: &[usize]| {
            let length_ms: u64 = schedule.iter().map(|index| self.singles[*index].length_ms).sum();
            let step: u32 = schedule.iter().map(|index| self.singles[*index].step).sum();
            (schedule.len(), length_ms, step, schedule.to_vec())
        };
        key(left) < key(right)
    }

    /// Replaces one fault at a time by a smaller one of the same kind on the
    /// same target while the schedule still breaks the property.
    fn shrink(&mut self, mut schedule: Vec<usize>) -> Vec<usize> {
        let mut budget = SHRINK_RUNS_MAX;
        let mut improved = true;
        while improved && budget > 0 {
            improved = false;
            for slot in 0..schedule.len() {
                for candidate in 0..self.singles.len() {
                    if budget == 0 || !self.same_shape(schedule[slot], candidate) || schedule.contains(&candidate) {
                        continue;
                    }
                    let mut tried = schedule.clone();
                    tried[slot] = candidate;
                    if !self.smaller(&tried, &schedule) {
                        continue;
                    }
                    budget -= 1;
                    if self.breaks(&tried) {
                        schedule = tried;
                        improved = true;
                    }
                }
            }
        }
        schedule
    }

    fn same_shape(&self, left: usize, right: usize) -> bool {
        let (left, right) = (&self.singles[left].fault, &self.singles[right].fault);
        left.kind() == right.kind() && left.target() == right.target()
    }

    fn finish_with(&mut self, schedule: Vec<usize>) {
        let scenario = self.with(&schedule);
        let trace = crate::run(&scenario).expect("every explored schedule is a valid scenario");
        let chain = chain::chain(&trace, self.property);
        self.done = Some(Outcome::Counterexample(Counterexample { scenario, chain, schedules_tried: self.tried }));
    }

    fn finish_clean(&mut self) {
        let claim = self.claim();
        self.done = Some(Outcome::None { schedules_tried: self.tried, claim });
    }

    /// What was searched, in numbers: every kind of placement the design
    /// allows, with how many of it (a clock jump is no fault of a consensus
    /// lock, so it is not named there).
    fn claim(&self) -> String {
        let count = |kind: FaultKind| self.singles.iter().filter(|placement| placement.fault.kind() == kind).count();
        let lengths = pause_lengths_ms(&self.design).len();
        let mut searched = vec![
            format!(
                "a pause of each worker before each of its first {STEPS_MAX} messages at {lengths} lengths ({})",
                count(FaultKind::Pause)
            ),
            format!("each write held ({})", count(FaultKind::DelayWrite)),
            format!("each worker crashed right after each of those messages ({})", count(FaultKind::Crash)),
        ];
        if self.design.lock_service.nodes() > 0 {
            let jumps = match count(FaultKind::ClockJump) {
                0 => String::new(),
                jumps => format!(" or its clock jumped there ({jumps})"),
            };
            searched.push(format!(
                "each lock node crashed right after each of the service's first {NODE_MOMENTS_MAX} grants, counts and renewals ({}){jumps}",
                count(FaultKind::NodeCrash)
            ));
        }
        let pairs = if self.faults_max >= 2 { ", and every pair of these" } else { "" };
        format!(
            "No schedule broke {} in {} tried: {}{pairs}. \
             A bounded search, not a proof: lost messages, partitions, clock drift and longer schedules were not tried.",
            self.property.name(),
            self.tried,
            searched.join(", "),
        )
    }
}

/// Explores to the end: what the command line and the tests call.
pub fn explore(scenario: &Scenario, property: Property, faults_max: u8) -> Result<Outcome, crate::ScenarioError> {
    Ok(Explorer::new(scenario, property, faults_max)?.run_to_end())
}

#[cfg(test)]
mod tests;
