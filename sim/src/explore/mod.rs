//! "Can this go wrong?": the explorer takes a design (a scenario without its
//! faults) and a property, places faults systematically — every single
//! placement, then every pair, each pair's second fault placed on the run
//! its first produced — and runs each schedule. A single that breaks the
//! property is answered with the least single that does (fewer faults, then
//! less fault, then earlier: the minimum within the bounds); a pair, with
//! the first breaking pair made smaller one fault at a time (a small
//! schedule, not provably the least: `minimal` says which). Either comes as
//! an ordinary scenario with a cause chain read off its run. When nothing
//! breaks it, the answer is a bounded claim, written from the `Bounds` it
//! carries, that says what was tried.
//!
//! The search works in slices (`step`), so a page can run it between frames
//! with a progress bar and a Cancel button.

mod bounds;
mod chain;
mod claim;
pub mod design;
mod placements;
pub mod table;
mod words;

pub use bounds::{pause_lengths_ms, Bounds, NODE_MOMENTS_MAX, STEPS_MAX};
pub use placements::Placement;
pub use words::CAVEAT;

use crate::property::Property;
use crate::scenario::{Fault, FaultKind, Scenario};
use serde::Serialize;
use std::cell::OnceCell;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counterexample {
    /// The design with the least breaking schedule's faults: replay it as
    /// any run.
    pub scenario: Scenario,
    /// One sentence that connects to the run just seen: "Fencing saved this
    /// run. But with the token drawn by a second command, one
    /// stop-the-world pause can still break the rule: …".
    pub lead: String,
    /// What happened, read off the run: "A froze before its INCR; …".
    pub chain: String,
    pub schedules_tried: usize,
    /// True when no schedule within the bounds is smaller (a single); false
    /// for a pair made smaller by swaps, which is only a small schedule.
    pub minimal: bool,
    /// What was searched to find it, so "least" has a meaning (boxed: an
    /// outcome is passed around by value, the bounds rarely read).
    pub bounds: Box<Bounds>,
    /// The bounds as a short list, one item per kind of fault.
    pub searched_words: Vec<String>,
}

/// How many single placements of one kind the search tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Searched {
    pub kind: FaultKind,
    pub singles: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "found", rename_all = "snake_case")]
pub enum Outcome {
    /// A schedule broke the property.
    Counterexample(Counterexample),
    /// None did: what was searched, as data and in one honest sentence;
    /// for people, a lead that connects to the run just seen, the bounds as
    /// a short list, and `CAVEAT`.
    None {
        schedules_tried: usize,
        claim: String,
        bounds: Box<Bounds>,
        searched: Vec<Searched>,
        pairs: usize,
        lead: String,
        searched_words: Vec<String>,
    },
}

/// The order schedules are compared in: fewer faults, less fault in all,
/// earlier, then earlier in the search.
type Key = (usize, u64, u32, usize);

/// At most this many runs go into making a breaking pair smaller.
const SHRINK_RUNS_MAX: usize = 2_000;

pub struct Explorer {
    design: Scenario,
    /// The run the learner saw (the design with its own faults) and its counters.
    seen_scenario: Scenario,
    seen: crate::Counts,
    property: Property,
    bounds: Bounds,
    singles: Vec<Placement>,
    /// The next single to try, or the first fault of the pairs being tried.
    first: usize,
    /// Pairs: the second faults for `first`, read off its run, and the next.
    seconds: Option<Vec<Placement>>,
    second: usize,
    pairs_tried: usize,
    pairs_total: OnceCell<usize>,
    tried: usize,
    /// The least breaking schedule so far, by `Key`.
    best: Option<(Key, Vec<Fault>)>,
    /// Every schedule run, in order, when asked for (tests).
    log: Option<Vec<Vec<Fault>>>,
    done: Option<Outcome>,
}

impl Explorer {
    /// Explores `scenario`'s design (its own faults set aside) for
    /// `property`, with schedules of at most `faults_max` (1 or 2) faults.
    pub fn new(scenario: &Scenario, property: Property, faults_max: u8) -> Result<Explorer, crate::ScenarioError> {
        let design = Scenario { faults: Vec::new(), ..scenario.clone() };
        let base = crate::run(&design)?;
        let seen = crate::run_counts(scenario)?;
        let bounds = Bounds::of(&design, faults_max);
        let singles = placements::singles(&design, &bounds, &base);
        Ok(Explorer {
            design,
            seen_scenario: scenario.clone(),
            seen,
            property,
            bounds,
            singles,
            first: 0,
            seconds: None,
            second: 0,
            pairs_tried: 0,
            pairs_total: OnceCell::new(),
            tried: 0,
            best: None,
            log: None,
            done: None,
        })
    }

    /// Keeps every schedule it runs, for `log`.
    pub fn logging(mut self) -> Explorer {
        self.log = Some(Vec::new());
        self
    }

    /// The schedules run so far, in order (empty unless `logging`).
    pub fn log(&self) -> &[Vec<Fault>] {
        self.log.as_deref().unwrap_or(&[])
    }

    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// How many schedules the whole search holds (singles, then pairs; the
    /// pairs are counted on first asking, a run per single).
    pub fn total(&self) -> usize {
        if self.bounds.faults_max < 2 {
            return self.singles.len();
        }
        self.singles.len() + *self.pairs_total.get_or_init(|| (0..self.singles.len()).map(|first| self.seconds_of(first).len()).sum())
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
        let Some(seconds) = &self.seconds else { return self.advance_singles() };
        let Some(second) = seconds.get(self.second).cloned() else { return self.next_first() };
        self.second += 1;
        self.pairs_tried += 1;
        let first = self.singles[self.first].clone();
        if self.try_pair(&first, &second) {
            let (first, second) = self.shrink(first, second);
            self.done = Some(self.counterexample(vec![first.fault, second.fault], false));
        }
    }

    fn try_pair(&mut self, first: &Placement, second: &Placement) -> bool {
        let key = (2, first.length_ms + second.length_ms, first.position + second.position, self.tried);
        self.try_schedule(key, vec![first.fault.clone(), second.fault.clone()])
    }

    fn advance_singles(&mut self) {
        let Some(single) = self.singles.get(self.first).cloned() else { return self.after_singles() };
        self.first += 1;
        self.try_schedule((1, single.length_ms, single.position, self.tried), vec![single.fault]);
    }

    /// Singles done: the least that broke the property is the answer (no
    /// pair has fewer faults); otherwise the pairs begin, if allowed.
    fn after_singles(&mut self) {
        if self.best.is_some() || self.bounds.faults_max < 2 || self.singles.is_empty() {
            return self.finish();
        }
        self.first = 0;
        self.seconds = Some(self.seconds_of(0));
        self.second = 0;
    }

    fn next_first(&mut self) {
        self.first += 1;
        if self.first >= self.singles.len() {
            return self.finish();
        }
        self.seconds = Some(self.seconds_of(self.first));
        self.second = 0;
    }

    /// The second faults paired with single `first`: the singles that
    /// strike at the same moment after it in the search, then every
    /// placement on the run `first` produced that strikes after it did.
    fn seconds_of(&self, first: usize) -> Vec<Placement> {
        let single = &self.singles[first];
        let same_moment = self.singles[first + 1..].iter().take_while(|other| other.position == single.position).cloned();
        let scenario = Scenario { faults: vec![single.fault.clone()], ..self.design.clone() };
        let later = match crate::run(&scenario) {
            Ok(trace) => placements::singles(&self.design, &self.bounds, &trace),
            Err(_) => Vec::new(),
        };
        let mut seconds: Vec<Placement> = same_moment.collect();
        let same_count = seconds.len();
        for other in later.into_iter().filter(|other| other.position > single.position) {
            // A fault that only moved (a pause before a message the first
            // fault delayed) is the same schedule as one already listed.
            if !seconds[..same_count].iter().any(|listed| listed.fault == other.fault) {
                seconds.push(other);
            }
        }
        seconds
    }

    /// Runs one schedule; true when it breaks the property.
    fn try_schedule(&mut self, key: Key, faults: Vec<Fault>) -> bool {
        self.tried += 1;
        let scenario = Scenario { faults, ..self.design.clone() };
        let breaks = crate::run_counts(&scenario).is_ok_and(|counts| !self.property.holds(&counts));
        if breaks && self.best.as_ref().is_none_or(|(best, _)| key < *best) {
            self.best = Some((key, scenario.faults.clone()));
        }
        if let Some(log) = &mut self.log {
            log.push(scenario.faults);
        }
        breaks
    }

    /// Swaps in a smaller fault of the same kind on the same target, the
    /// second from the first's run, the first from the singles, while the
    /// pair still breaks the property.
    fn shrink(&mut self, mut first: Placement, mut second: Placement) -> (Placement, Placement) {
        let size = |placement: &Placement| (placement.length_ms, placement.position);
        let seconds = self.seconds.clone().unwrap_or_default();
        let singles = self.singles.clone();
        let mut budget = SHRINK_RUNS_MAX;
        let shape_of_second = second.clone();
        for candidate in seconds.iter().filter(|candidate| same_shape(candidate, &shape_of_second)) {
            if budget == 0 {
                break;
            }
            budget -= 1;
            if size(candidate) < size(&second) && self.try_pair(&first, candidate) {
                second = candidate.clone();
            }
        }
        let shape_of_first = first.clone();
        for candidate in singles.iter().filter(|candidate| same_shape(candidate, &shape_of_first)) {
            if budget == 0 {
                break;
            }
            budget -= 1;
            if size(candidate) < size(&first) && self.try_pair(candidate, &second) {
                first = candidate.clone();
            }
        }
        (first, second)
    }

    fn finish(&mut self) {
        let outcome = match self.best.take() {
            Some((_, faults)) => self.counterexample(faults, true),
            None => Outcome::None {
                schedules_tried: self.tried,
                claim: claim::claim(self.property, &self.bounds, &self.singles, self.pairs_tried, self.tried),
                bounds: Box::new(self.bounds.clone()),
                searched: self.searched(),
                pairs: self.pairs_tried,
                lead: words::none_lead(&self.seen_scenario, &self.seen, self.property, self.tried, self.bounds.faults_max),
                searched_words: words::searched(&self.bounds, Some(&self.singles), Some(self.pairs_tried)),
            },
        };
        self.done = Some(outcome);
    }

    fn counterexample(&self, faults: Vec<Fault>, minimal: bool) -> Outcome {
        let scenario = Scenario { faults, ..self.design.clone() };
        let trace = crate::run(&scenario).expect("every explored schedule is a valid scenario");
        let chain = chain::chain(&trace, self.property);
        let lead = words::found_lead(&self.seen_scenario, &self.seen, self.property, &scenario.faults);
        Outcome::Counterexample(Counterexample {
            lead,
            searched_words: words::searched(&self.bounds, None, None),
            scenario,
            chain,
            schedules_tried: self.tried,
            minimal,
            bounds: Box::new(self.bounds.clone()),
        })
    }

    fn searched(&self) -> Vec<Searched> {
        let counts = placements::count_by_kind(&self.singles);
        counts.into_iter().filter(|(kind, _)| self.bounds.kinds.contains(kind)).map(|(kind, singles)| Searched { kind, singles }).collect()
    }
}

fn same_shape(left: &Placement, right: &Placement) -> bool {
    left.fault.kind() == right.fault.kind() && left.fault.target() == right.fault.target()
}

/// Explores to the end: what the command line and the tests call.
pub fn explore(scenario: &Scenario, property: Property, faults_max: u8) -> Result<Outcome, crate::ScenarioError> {
    Ok(Explorer::new(scenario, property, faults_max)?.run_to_end())
}

#[cfg(test)]
mod tests;
