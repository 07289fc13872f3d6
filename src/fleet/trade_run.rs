//! A lease trade's runs (`fleet::sides`) one after another, each a fleet
//! stepped in slices: the fleet view's trade and the quiz's rate question.
//! Every row is the core's (`Side::row`); this decides only when each
//! slice runs.

use crate::shell::slices::{Task, STEPS_PER_LOOK};
use fencing_sim::fleet::{Side, Stepper, TradeRow};
use fencing_sim::Scenario;
use leptos::prelude::*;

/// The trade's runs one after another, each in slices; a row per run.
/// `measure`: the performance measure the bench reads, if any.
pub fn start(
    task: Task,
    rows: RwSignal<Vec<TradeRow>>,
    error: RwSignal<Option<String>>,
    base: Scenario,
    sides: Vec<Side>,
    measure: Option<&'static str>,
) {
    if sides.is_empty() {
        return error.set(Some("a trade needs at least one run".to_string()));
    }
    rows.set(Vec::new());
    error.set(None);
    let mut at = 0;
    let mut stepper: Option<Stepper> = None;
    task.start(measure, move |time_up| loop {
        let side = sides[at];
        let running = match stepper.as_mut() {
            Some(running) => running,
            None => match Stepper::new(&side.scenario(&base)) {
                Ok(fresh) => stepper.insert(fresh),
                Err(problem) => {
                    error.set(Some(problem.to_string()));
                    return None;
                }
            },
        };
        if running.advance(STEPS_PER_LOOK) {
            match side.row(&base, &running.report()) {
                Ok(row) => rows.update(|rows| rows.push(row)),
                Err(problem) => {
                    error.set(Some(problem.to_string()));
                    return None;
                }
            }
            (stepper, at) = (None, at + 1);
            if at == sides.len() {
                return None;
            }
        } else if time_up() {
            let done_milli = at * 1000 + stepper.as_ref().map_or(0, |running| running.progress_milli() as usize);
            return Some(u32::try_from(done_milli / sides.len()).unwrap_or(999));
        }
    });
}
