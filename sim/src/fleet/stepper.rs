//! A fleet run taken in slices, so a page can show the counters climbing as
//! the simulated clock runs and stay responsive while a day of jobs is
//! computed. Any way of cutting the run into slices takes the same steps as
//! `fleet::run`, so the last report is the same, byte for byte.

use super::{report, FleetReport};
use crate::incident::Incident;
use crate::mode::Mode;
use crate::scenario::{Scenario, ScenarioError};
use crate::Trace;
use fencing_engine::World;

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
        progress_milli(self.world.now_us(), self.span_us, self.ended())
    }

    /// The figures so far: the timeline up to the clock, the rates of the
    /// jobs started so far. Once the run has ended, `fleet::run`'s report.
    pub fn report(&self) -> FleetReport {
        let counts = self.world.counts(self.ended.unwrap_or(false));
        let incidents = self.world.incidents().expect("a fleet keeps its incidents");
        report(counts, incidents, self.span_us, self.ended())
    }
}

/// The window around one incident (see `fleet::window`), replayed in slices:
/// the fleet's run from its start, keeping only the window's events.
pub struct WindowStepper {
    world: World<'static>,
    span_us: u64,
    ended: Option<bool>,
}

impl WindowStepper {
    pub fn new(scenario: &Scenario, incident: &Incident, margin_us: u64) -> Result<WindowStepper, ScenarioError> {
        scenario.validate()?;
        let from_us = incident.paused_at_us.unwrap_or(incident.t_us).saturating_sub(margin_us);
        let to_us = incident.t_us.saturating_add(margin_us);
        let world = World::owning(scenario.clone(), Mode::Full).windowed(from_us, to_us);
        let span_us = scenario.fleet.map_or(1, |fleet| fleet.span_ms * 1000).max(1);
        Ok(WindowStepper { world, span_us, ended: None })
    }

    /// At most `steps` more steps; true once the run has ended.
    pub fn advance(&mut self, steps: u64) -> bool {
        if self.ended.is_none() {
            self.ended = self.world.advance(steps);
        }
        self.ended.is_some()
    }

    pub fn progress_milli(&self) -> u32 {
        progress_milli(self.world.now_us(), self.span_us, self.ended.is_some())
    }

    /// The window's trace, once the run has ended (None before).
    pub fn into_trace(self) -> Option<Trace> {
        let truncated = self.ended?;
        Some(Trace::from(self.world.into_record(truncated)))
    }
}

/// Thousandths of the span the clock has run: below 1000 until the run
/// ends (the last jobs run past the span).
fn progress_milli(now_us: u64, span_us: u64, ended: bool) -> u32 {
    if ended {
        return 1000;
    }
    u32::try_from(now_us.min(span_us) * 999 / span_us).unwrap_or(999)
}
