//! What the model predicts for the timings the live run really had, and
//! where the two differ.

use super::event::{FreezePoint, LiveEvent, Store, What, Who};
use super::measure::{FinalStore, StoreOutcome};
use super::{Plan, BACKOFF_MS_MAX, BACKOFF_MS_MIN};
use fencing_sim::scenario::TokenSource;
use fencing_sim::{presets, Actor, Fault, Kind, Scenario, Trace, When};

/// The model's A has drawn its token by 1 ms: two round trips of at most
/// 0.25 ms each way (the preset's latency). A pause from then on freezes a
/// holder, as the lab's freeze after the `INCR` does.
const MODEL_ACQUIRED_BY_MS: u64 = 1;

pub struct Simulated {
    /// The scenario run (fencing off; the fenced run differs only there).
    pub scenario: Scenario,
    pub plain: Trace,
    pub fenced: Trace,
}

impl Simulated {
    pub fn trace(&self, store: Store) -> &Trace {
        match store {
            Store::Plain => &self.plain,
            Store::Fenced => &self.fenced,
        }
    }
}

/// The story's preset with this run's lease, work and writes, and with the
/// rest of its timing set to what the live run did:
/// - B starts when it really did, relative to A (the preset's gap would start
///   it after A's pause is over);
/// - A's pause lasts as long as A was really frozen, and begins where the lab
///   froze it: after the `INCR` (gc-pause: A's work timer then runs out
///   inside the pause and fires on resume, as a real sleep's deadline does
///   after SIGCONT), or between the `SET` and the `INCR` (token-inversion:
///   the preset's own pause point, right before A's second message);
/// - retries use the live workers' backoff and bound, a request times out
///   when a live worker's command does, and a failed job is not retried.
pub fn simulate(plan: &Plan, events: &[LiveEvent]) -> Result<Simulated, String> {
    let when = |who: Who, what: fn(&What) -> bool| events.iter().find(|said| said.worker == who && what(&said.what)).map(|said| said.t_ms);
    let started = |what: &What| matches!(what, What::Started { .. });
    let (Some(a_started), Some(b_started)) = (when(Who::A, started), when(Who::B, started)) else {
        return Err("the timeline lacks a worker's start".to_string());
    };
    let (Some(stopped), Some(paused_ms)) = (
        when(Who::Lab, |what| matches!(what, What::Stopped { .. })),
        events.iter().find_map(|said| if let What::Resumed { paused_ms, .. } = said.what { Some(paused_ms) } else { None }),
    ) else {
        return Err("the timeline lacks A's freeze or thaw".to_string());
    };
    let after_a_ms = |t_ms: f64| (t_ms - a_started).round().max(0.0) as u64;
    let base = base(plan)?;
    let when = match plan.freeze_at {
        FreezePoint::Acquired => When::AtMs(after_a_ms(stopped).max(MODEL_ACQUIRED_BY_MS)),
        // The preset freezes A where the lab does: right before the message
        // after its SET, the INCR.
        FreezePoint::Granted => preset_pause_of_a(&base).ok_or("the token-inversion preset has no pause of A to follow")?,
    };
    let pause = Fault::Pause { worker: Actor::Worker(0), when, pause_ms: paused_ms.round() as u64 };
    let scenario = Scenario {
        fencing: false,
        ttl_ms: plan.ttl_ms,
        start_gap_ms: after_a_ms(b_started).max(1),
        work_ms: plan.work_ms,
        writes_per_hold: plan.writes,
        backoff_ms_min: BACKOFF_MS_MIN,
        backoff_ms_max: BACKOFF_MS_MAX,
        acquire_attempts_max: plan.attempts_max,
        request_timeout_ms: super::server::COMMAND_TIMEOUT.as_millis() as u64,
        // The live workers run each job once: nothing retries a refused or
        // lost job, where the model's job runner would by default.
        job_retries_max: 0,
        faults: vec![pause],
        ..base
    };
    let refused = |error: fencing_sim::ScenarioError| format!("the model refused the scenario: {error}");
    let plain = fencing_sim::run(&scenario).map_err(refused)?;
    let fenced = fencing_sim::run(&Scenario { fencing: true, ..scenario.clone() }).map_err(refused)?;
    Ok(Simulated { scenario, plain, fenced })
}

/// The story's preset. Token inversion needs the token drawn by a separate
/// `INCR`, as the live workers draw it.
fn base(plan: &Plan) -> Result<Scenario, String> {
    let id = plan.story.preset_id();
    let scenario = presets::build(id).ok_or_else(|| format!("the model has no preset {id}"))?;
    if scenario.token_source != TokenSource::SeparateIncr {
        return Err(format!("preset {id} draws its token with {:?}, the live workers with a separate INCR", scenario.token_source));
    }
    Ok(scenario)
}

/// When the preset's pause of A strikes.
fn preset_pause_of_a(scenario: &Scenario) -> Option<When> {
    scenario.faults.iter().find_map(|fault| match fault {
        Fault::Pause { worker: Actor::Worker(0), when, .. } => Some(*when),
        _ => None,
    })
}

/// The model's last accepted write: the live workers run each job once,
/// and so does the model's run of them (`job_retries_max` 0).
pub fn simulated_final(trace: &Trace) -> Option<FinalStore> {
    trace.summary.final_store.map(|datum| FinalStore { writer: datum.writer.to_string(), token: datum.token })
}

/// The token each worker drew in the model, in order: "A:34 B:33".
pub fn tokens_in_order(trace: &Trace) -> String {
    let words: Vec<String> = trace
        .events
        .iter()
        .filter(|event| matches!(event.kind, Kind::Acquired { .. }))
        .map(|event| format!("{}:{}", event.actor, token(event.token)))
        .collect();
    words.join(" ")
}

/// The writes a store saw in the model, in order: "B:34 A:33✗".
pub fn writes_in_order(trace: &Trace) -> String {
    let words: Vec<String> = trace
        .events
        .iter()
        .filter_map(|event| {
            let (writer, mark) = match event.kind {
                Kind::WriteAccepted { writer, .. } => (writer, ""),
                Kind::WriteRejected { writer, .. } => (writer, "✗"),
                _ => return None,
            };
            Some(format!("{writer}:{}{mark}", token(event.token)))
        })
        .collect();
    words.join(" ")
}

fn token(token: Option<u64>) -> String {
    token.map_or("-".to_string(), |token| token.to_string())
}

/// Where real and simulated differ on what the exit code is about.
pub fn disagreements(real: &[LiveEvent], outcomes: &[(Store, StoreOutcome)], simulated: &Simulated) -> Vec<String> {
    let mut found = Vec::new();
    let (real_tokens, model_tokens) = (super::measure::tokens_in_order(real), tokens_in_order(&simulated.plain));
    if real_tokens != model_tokens {
        found.push(format!("tokens drawn: real {real_tokens}, simulated {model_tokens}"));
    }
    for (store, real) in outcomes {
        let trace = simulated.trace(*store);
        let model = &trace.summary;
        let mut differ = |what: &str, real: String, model: String| {
            if real != model {
                found.push(format!("{} store: {what} real {real}, simulated {model}", store.name()));
            }
        };
        differ("zombie_writes", real.zombie_writes.to_string(), model.zombie_writes.to_string());
        differ("stale_overwrites", real.stale_overwrites.to_string(), model.stale_overwrites.to_string());
        differ("rejected_writes", real.rejected_writes.to_string(), model.rejected_writes.to_string());
        differ("rightful_writes_rejected", real.rightful_writes_rejected.to_string(), model.rightful_writes_rejected.to_string());
        differ("final_store", FinalStore::describe(real.final_store.as_ref()), FinalStore::describe(simulated_final(trace).as_ref()));
    }
    found
}

/// Why a real run may have strayed from the scenario the model ran: the
/// lab's own timing (on a busy machine a thread wakes up late).
pub fn timing_notes(plan: &Plan, events: &[LiveEvent]) -> Vec<String> {
    let mut notes = Vec::new();
    let paused_ms = events.iter().find_map(|said| if let What::Resumed { paused_ms, .. } = said.what { Some(paused_ms) } else { None });
    if let Some(paused_ms) = paused_ms.filter(|paused_ms| (paused_ms - plan.pause_ms as f64).abs() > 10.0) {
        notes.push(format!(
            "A was really frozen {paused_ms:.1} ms, not {} ms (the machine was busy); the model ran the real length",
            plan.pause_ms
        ));
    }
    let writes: Vec<&LiveEvent> = events.iter().filter(|said| matches!(said.what, What::Wrote { store: Store::Plain, .. })).collect();
    let gaps: Vec<String> = writes
        .windows(2)
        .filter(|pair| pair[0].worker != pair[1].worker)
        .map(|pair| format!("{}→{} {:.1} ms", pair[0].worker, pair[1].worker, pair[1].t_ms - pair[0].t_ms))
        .collect();
    if !gaps.is_empty() {
        notes.push(format!(
            "gaps between writes of different workers: {} (the nearer, the more the order is down to scheduling)",
            gaps.join(", ")
        ));
    }
    notes
}
