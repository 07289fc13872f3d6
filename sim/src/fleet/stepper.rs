//! A fleet run taken in slices, so a page can show the counters climbing as
//! the simulated clock runs and stay responsive while a day of jobs is
//! computed. Any way of cutting the run into slices takes the same steps as
//! `fleet::run`, so the last report is the same, byte for byte.

use super::{report, FleetReport};
use crate::mode::Mode;
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

pub struct Stepper {
    world: World<'static>,
    span_us: u64,
    /// Once the run has ended: whether its bound ended it.
    ended: Option<bool>,
}

impl Stepper {
    pub fn new(scenario: &Scenario) -> Result<Stepper, ScenarioError> {
        let Some(fleet) = scenario.fleet else {
            return Err(ScenarioError { problems: vec!["this scenario has no fleet: give it one (workers, span, pauses)".to_string()] });
        };
        scenario.validate()?;
        Ok(Stepper { world: World::owning(scenario.clone(), Mode::Summary), span_us: (fleet.span_ms * 1000).max(1), ended: None })
    }

    /// At most `steps` more steps of the run; true once it has ended.
    pub fn advance(&mut self, steps: u64) -> bool {
        if self.ended.is_none() {
            self.ended = self.world.advance(steps);
        }
        self.ended.is_some()
    }

    pub fn ended(&self) -> bool {
        self.ended.is_some()
    }

    /// How far the simulated clock has run, in thousandths of the span.
    pub fn progress_milli(&self) -> u32 {
        if self.ended() {
            return 1000;
        }
        let now_us = self.world.counts(false).end_us;
        // Below 1000 until the run ends: the last jobs run past the span.
        u32::try_from(now_us.min(self.span_us) * 999 / self.span_us).unwrap_or(999)
    }

    /// The figures so far: the timeline up to the clock, the rates of the
    /// jobs started so far. Once the run has ended, `fleet::run`'s report.
    pub fn report(&self) -> FleetReport {
        let counts = self.world.counts(self.ended.unwrap_or(false));
        let incidents = self.world.incidents().expect("a fleet keeps its incidents");
        report(counts, incidents, self.span_us, self.ended())
    }
}
