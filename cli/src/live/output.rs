//! The live run's report: the real timeline in words, the outcomes beside
//! the model's, and the verdict; or all of it as one JSON object.

use super::event::{LiveEvent, Store, What, Who};
use super::measure::{self, FinalStore, StoreOutcome};
use super::model::{self, Simulated};
use super::{Plan, BACKOFF_MS_MAX, BACKOFF_MS_MIN};
use fencing_sim::Fault;
use std::io::{self, Write};

/// Everything a report shows.
pub struct Report<'a> {
    pub plan: &'a Plan,
    pub version: &'a str,
    pub prefix: &'a str,
    pub events: &'a [LiveEvent],
    pub outcomes: &'a [(Store, StoreOutcome)],
    pub simulated: &'a Simulated,
    pub disagreements: &'a [String],
    pub notes: &'a [String],
}

/// One line of the timeline, in words.
pub fn describe(event: &LiveEvent, plan: &Plan) -> String {
    let who = event.worker;
    match &event.what {
        What::Started { pid, value } => {
            format!("{who} (pid {pid}) connected; asks for the lock: SET lock {} NX PX {}", &value[..value.len().min(8)], plan.ttl_ms)
        }
        What::Busy => {
            format!(
                "{who} did not get the lock (nil): it is taken; {who} retries every {}–{BACKOFF_MS_MAX} ms (jittered)",
                BACKOFF_MS_MIN / 2
            )
        }
        What::GaveUp { attempts } => format!("{who} gives up after {attempts} attempts"),
        What::Granted { attempts } => format!("{who}'s SET NX said OK on attempt {attempts}: the lock is {who}'s; next, INCR fence"),
        What::Acquired { token } => format!("{who}'s INCR fence returned {token}: {who} holds the lock with token {token}"),
        What::Worked { token, nth } => format!("{who}'s {} ms of work is over; it sends write {nth} with token {token}", plan.work_ms),
        What::Wrote { store: Store::Plain, token, replaced, .. } => {
            let replacing = replaced.as_deref().map_or(" (it was empty)".to_string(), |old| format!(" over {old}"));
            format!("plain store accepted {who}'s write {who}:{token}{replacing}")
        }
        What::Wrote { store: Store::Fenced, token, accepted: true, replaced, .. } => {
            let replacing = replaced.as_deref().map_or(" (it was empty)".to_string(), |old| format!(" over {old}"));
            format!("fenced store accepted {who}'s write {who}:{token}{replacing}")
        }
        What::Wrote { store: Store::Fenced, token, accepted: false, highest, .. } => format!(
            "fenced store rejected {who}'s write: token {token} < {} already accepted",
            highest.map_or("?".to_string(), |highest| highest.to_string())
        ),
        What::Released { deleted: true, .. } => format!("{who} released the lock (compare-and-delete: 1)"),
        What::Released { deleted: false, .. } => {
            format!("{who}'s compare-and-delete returned 0: the lock was not its own any more, nothing deleted")
        }
        What::Stopped { pid } => format!("lab froze A with SIGSTOP (pid {pid}; the kernel reports it stopped): no thread of it runs"),
        What::Resumed { pid, paused_ms } => {
            format!("lab thawed A with SIGCONT (pid {pid}) after {paused_ms:.1} ms: A carries on, unaware that any time passed")
        }
    }
}

fn us(t_ms: f64) -> u64 {
    (t_ms * 1000.0).round().max(0.0) as u64
}

pub fn print_human(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let plan = report.plan;
    writeln!(
        out,
        "Live run, story {}, on Redis {} at {} (keys {}*): lease {} ms, A frozen {} ms {}, work {} ms before each of {}",
        plan.story.id(),
        report.version,
        plan.redis,
        report.prefix,
        plan.ttl_ms,
        plan.pause_ms,
        plan.story.freeze_words(),
        plan.work_ms,
        fencing_sim::count_of(u64::from(plan.writes), "write", "writes")
    )?;
    writeln!(out)?;
    for event in report.events {
        let who = if event.worker == Who::Lab { "lab".to_string() } else { event.worker.to_string() };
        writeln!(out, "{:>12}  {who:<6} {}", fencing_sim::format_us(us(event.t_ms)), describe(event, plan))?;
    }
    writeln!(out)?;
    print_table(out, report)?;
    writeln!(out)?;
    print_scenario(out, report)?;
    if report.disagreements.is_empty() {
        writeln!(
            out,
            "agree: real and simulated runs agree on the tokens drawn and on zombie_writes, stale_overwrites, rejected_writes, \
             rightful_writes_rejected and final_store (writer and token) for both stores"
        )?;
    } else {
        writeln!(out, "DISAGREE: the real run and the model differ:")?;
        for difference in report.disagreements {
            writeln!(out, "  {difference}")?;
        }
        for note in report.notes {
            writeln!(out, "  note: {note}")?;
        }
    }
    Ok(())
}

fn print_table(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let row = |out: &mut dyn Write, label: &str, cells: [String; 4]| {
        writeln!(out, "{label:<26} {:<14} {:<16} {:<14} {}", cells[0], cells[1], cells[2], cells[3])
    };
    let (plain_header, fenced_header) = ("plain store (no check)", "fenced store (rejects token < highest)");
    writeln!(out, "{:<26} {plain_header:<31} {fenced_header}", "")?;
    row(out, "", ["real".into(), "simulated".into(), "real".into(), "simulated".into()])?;
    let cells = |cell: &dyn Fn(&StoreOutcome, &Simulated, Store) -> [String; 2]| {
        let mut both = Vec::new();
        for (store, real) in report.outcomes {
            both.extend(cell(real, report.simulated, *store));
        }
        <[String; 4]>::try_from(both).expect("two stores, two cells each")
    };
    let count = |real: u32, model: u32| [real.to_string(), model.to_string()];
    row(out, "zombie_writes", cells(&|real, sim, store| count(real.zombie_writes, sim.trace(store).summary.zombie_writes)))?;
    row(out, "stale_overwrites", cells(&|real, sim, store| count(real.stale_overwrites, sim.trace(store).summary.stale_overwrites)))?;
    row(out, "rejected_writes", cells(&|real, sim, store| count(real.rejected_writes, sim.trace(store).summary.rejected_writes)))?;
    row(
        out,
        "rightful_writes_rejected",
        cells(&|real, sim, store| count(real.rightful_writes_rejected, sim.trace(store).summary.rightful_writes_rejected)),
    )?;
    row(out, "accepted_writes", cells(&|real, sim, store| count(real.accepted_writes, sim.trace(store).summary.accepted_writes)))?;
    row(
        out,
        "final_store",
        cells(&|real, sim, store| {
            [FinalStore::describe(real.final_store.as_ref()), FinalStore::describe(model::simulated_final(sim.trace(store)).as_ref())]
        }),
    )?;
    let (real_tokens, model_tokens) = (measure::tokens_in_order(report.events), model::tokens_in_order(&report.simulated.plain));
    writeln!(out, "{:<26} real {real_tokens}; simulated {model_tokens}", "tokens drawn")?;
    for (store, _) in report.outcomes {
        let (real, model) = (measure::writes_in_order(report.events, *store), model::writes_in_order(report.simulated.trace(*store)));
        writeln!(out, "{:<26} real {real}; simulated {model}", format!("{} store's writes", store.name()))?;
    }
    Ok(())
}

fn print_scenario(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let scenario = &report.simulated.scenario;
    let faults: Vec<String> = scenario.faults.iter().map(Fault::describe).collect();
    writeln!(
        out,
        "simulated: preset {} (seed {}), fencing off and on, ttl_ms {}, {}, B starting at {} ms (as it really did, after A's start), \
         work_ms {}, writes_per_hold {}, backoff {}–{} ms, at most {} attempts, a failed job retried {} times",
        scenario.preset,
        scenario.seed,
        scenario.ttl_ms,
        faults.join(", "),
        scenario.start_gap_ms,
        scenario.work_ms,
        scenario.writes_per_hold,
        scenario.backoff_ms_min,
        scenario.backoff_ms_max,
        scenario.acquire_attempts_max,
        scenario.job_retries_max
    )?;
    Ok(())
}

pub fn print_json(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let plan = report.plan;
    let timeline: Vec<serde_json::Value> = report
        .events
        .iter()
        .map(|event| {
            let mut value = serde_json::to_value(event).expect("an event serialises");
            value["text"] = describe(event, plan).into();
            value
        })
        .collect();
    let real_of = |store: Store| report.outcomes.iter().find(|(whose, _)| *whose == store).map(|(_, outcome)| outcome);
    let json = serde_json::json!({
        "story": plan.story.id(),
        "redis": { "url": plan.redis, "version": report.version, "prefix": report.prefix },
        "parameters": {
            "ttl_ms": plan.ttl_ms,
            "pause_ms": plan.pause_ms,
            "freeze_at": plan.freeze_at,
            "work_ms": plan.work_ms,
            "writes_per_hold": plan.writes,
            "backoff_ms_min": BACKOFF_MS_MIN,
            "backoff_ms_max": BACKOFF_MS_MAX,
            "acquire_attempts_max": plan.attempts_max,
        },
        "real": {
            "timeline": timeline,
            "tokens": measure::tokens_in_order(report.events),
            "plain": real_of(Store::Plain),
            "fenced": real_of(Store::Fenced),
        },
        "simulated": {
            "scenario": report.simulated.scenario,
            "tokens": model::tokens_in_order(&report.simulated.plain),
            "plain": report.simulated.plain.summary,
            "fenced": report.simulated.fenced.summary,
            // Each job attempted once, as the live workers run it (the
            // model's job runner retries a refused job: `model::simulated_final`).
            "final_store_attempted_once": {
                "plain": model::simulated_final(&report.simulated.plain),
                "fenced": model::simulated_final(&report.simulated.fenced),
            },
        },
        "agree": report.disagreements.is_empty(),
        "disagreements": report.disagreements,
        "notes": report.notes,
    });
    writeln!(out, "{json}")?;
    Ok(())
}
