//! A live run as two histories, one per store (docs/histories.md,
//! "Recordings"): the grants as the workers' `SET NX` said OK (each with
//! the token its `INCR` then drew), A's freeze as the lab measured it
//! (SIGSTOP to SIGCONT), each write sent when the work before it ended and
//! decided when the store answered, and each compare-and-delete release.
//! `--record DIR` writes them; `--compare DIR` holds this run to the
//! committed ones (`fencing_sim::history::compare`).

use super::event::{LiveEvent, Store, What, Who};
use super::{Plan, Story};
use fencing_sim::history::{self, History, Provenance, Recorder};
use fencing_sim::{Actor, Scenario};
use std::path::Path;

/// The file a story's store is recorded in: the store the story is about
/// has the plain name (`gc-pause.redis.jsonl`: the zombie write on the
/// plain store; `token-inversion.redis.jsonl`: the fenced store fooled),
/// the other store's name says which it is.
pub fn file_name(story: Story, store: Store) -> String {
    let about = match story {
        Story::GcPause => Store::Plain,
        Story::TokenInversion => Store::Fenced,
    };
    if store == about {
        format!("{}.redis.jsonl", story.id())
    } else {
        format!("{}.{}.redis.jsonl", story.id(), store.name())
    }
}

fn actor(who: Who) -> Option<Actor> {
    match who {
        Who::A => Some(Actor::Worker(0)),
        Who::B => Some(Actor::Worker(1)),
        Who::Lab => None,
    }
}

fn us(t_ms: f64) -> u64 {
    (t_ms * 1000.0).round().max(0.0) as u64
}

/// What the run did, as seen by one store, held to `model`: the scenario
/// the model ran for this run (`model::simulate`), with this store's
/// fencing (the header's `model`, where a link can carry the scenario).
pub fn history_of(
    plan: &Plan,
    version: &str,
    events: &[LiveEvent],
    store: Store,
    model: &Scenario,
    date: &str,
    kernel: &str,
) -> Result<History, String> {
    let provenance = Provenance {
        source: format!("redis-server {version}, fencing-lab live --story {} (cli/src/live)", plan.story.id()),
        kernel: Some(kernel.to_string()),
        date: Some(date.to_string()),
        notes: Some(format!(
            "scripts/live-demo.sh: two worker processes, lease {} ms, A frozen {} ms with SIGSTOP {} and thawed with SIGCONT, \
             work {} ms before each of {} write(s); every write goes to both stores, this is the {} store's side ({})",
            plan.ttl_ms,
            plan.pause_ms,
            plan.story.freeze_words(),
            plan.work_ms,
            plan.writes,
            store.name(),
            match store {
                Store::Plain => "a SET that checks nothing",
                Store::Fenced => "a Lua script that refuses a token below the highest it accepted",
            }
        )),
        ..Provenance::default()
    };
    let fencing = store == Store::Fenced;
    let mut recorder = Recorder::new(provenance, fencing);
    // The lab's measured start gap, backoff and timeouts are settings no
    // link carries yet: then the header has no `model` (docs/histories.md).
    recorder.held_to(&Scenario { fencing, ..model.clone() });
    let ttl_us = plan.ttl_ms * 1000;
    let mut stopped_us = None;
    for (index, event) in events.iter().enumerate() {
        let t_us = us(event.t_ms);
        let later = || events[index + 1..].iter().filter(|later| later.worker == event.worker);
        match (&event.what, actor(event.worker)) {
            (What::Granted { .. }, Some(holder)) => {
                // The token is the one the holder's INCR draws next.
                let token = later().find_map(|later| match later.what {
                    What::Acquired { token } => Some(token),
                    _ => None,
                });
                recorder.grant(holder, token, t_us, t_us + ttl_us);
            }
            (What::Wrote { store: written, token, nth, accepted, .. }, Some(writer)) if *written == store => {
                // Sent when the work before it ended (`Worked`), the latest
                // such line of this worker's before the decision.
                let sent_us = events[..index]
                    .iter()
                    .rev()
                    .find(|before| before.worker == event.worker && matches!(before.what, What::Worked { nth: n, .. } if n == *nth))
                    .map_or(t_us, |before| us(before.t_ms));
                recorder.write(writer, Some(*token), sent_us, t_us, *accepted);
            }
            (What::Released { .. }, Some(worker)) => recorder.release(worker, t_us),
            (What::Stopped { .. }, None) => stopped_us = Some(t_us),
            (What::Resumed { .. }, None) => {
                if let Some(from_us) = stopped_us.take() {
                    recorder.pause(Actor::Worker(0), from_us, t_us);
                }
            }
            _ => {}
        }
    }
    recorder.finish().map_err(|error| error.to_string())
}

/// A command's first line of output ("?" if it cannot run).
fn command_line(program: &str, args: &[&str]) -> String {
    let output = std::process::Command::new(program).args(args).output();
    let text = output.ok().filter(|output| output.status.success()).map(|output| String::from_utf8_lossy(&output.stdout).into_owned());
    text.and_then(|text| text.lines().next().map(|line| line.trim().to_string()))
        .filter(|line| !line.is_empty())
        .unwrap_or_else(|| "?".to_string())
}

/// Both stores' histories, with today's date and this machine's kernel,
/// each held to `model` with its store's fencing.
pub fn histories(plan: &Plan, version: &str, events: &[LiveEvent], model: &Scenario) -> Result<Vec<(String, History)>, String> {
    let (date, kernel) = (command_line("date", &["-u", "+%F"]), command_line("uname", &["-sr"]));
    Store::BOTH
        .iter()
        .map(|store| Ok((file_name(plan.story, *store), history_of(plan, version, events, *store, model, &date, &kernel)?)))
        .collect()
}

/// Writes each history into `dir`; the lines to print.
pub fn record(dir: &Path, recordings: &[(String, History)]) -> Result<Vec<String>, String> {
    let mut said = Vec::new();
    for (name, history) in recordings {
        let judged = history::judge(history).map_err(|error| format!("the real run, as a history ({name}), cannot be judged: {error}"))?;
        let path = dir.join(name);
        let text = history.to_jsonl();
        std::fs::write(&path, &text).map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        said.push(format!(
            "recorded {} ({} records, {} bytes; zombie_writes {}, stale_overwrites {}, rejected_writes {}): review it with git diff",
            path.display(),
            history.records.len(),
            text.len(),
            judged.trace.summary.zombie_writes,
            judged.trace.summary.stale_overwrites,
            judged.trace.summary.rejected_writes
        ));
    }
    Ok(said)
}

/// Compares each history with its recording in `dir`: the lines to print,
/// and the disagreements (each naming the recording, the fact and both
/// values). A missing or unreadable recording is a disagreement too.
pub fn compare(dir: &Path, recordings: &[(String, History)]) -> (Vec<String>, Vec<String>) {
    let redo = "run scripts/record.sh and review the new recording with git diff";
    let (mut said, mut differ) = (Vec::new(), Vec::new());
    for (name, fresh) in recordings {
        let path = dir.join(name);
        let recorded = std::fs::read(&path)
            .map_err(|error| format!("no recording {} ({error})", path.display()))
            .and_then(|bytes| history::parse(&bytes).map_err(|error| format!("{} cannot be read: {error}", path.display())));
        let comparison = recorded.and_then(|recorded| {
            let date = recorded.provenance.date.clone().unwrap_or_else(|| "?".to_string());
            said.push(format!("this run beside {} ({}, recorded {date}):", path.display(), recorded.provenance.source));
            history::compare(&recorded, fresh).map_err(|error| format!("{}: {error}", path.display()))
        });
        match comparison {
            Err(problem) => differ.push(format!("{problem}; {redo}")),
            Ok(comparison) => {
                said.extend(comparison.timing.iter().map(|note| format!("  timing (not compared): {note}")));
                if comparison.agrees() {
                    said.push(format!(
                        "  agree with {} on holders and tokens, writes and decisions, the last writer and the verdict's counters",
                        path.display()
                    ));
                }
                differ.extend(comparison.disagreements.iter().map(|disagreement| {
                    format!(
                        "this real run disagrees with {} on {}: recorded {}, this run {}; {redo}",
                        path.display(),
                        disagreement.fact,
                        disagreement.recorded,
                        disagreement.fresh
                    )
                }));
            }
        }
    }
    (said, differ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_story_records_the_store_it_is_about_under_its_plain_name() {
        assert_eq!(file_name(Story::GcPause, Store::Plain), "gc-pause.redis.jsonl");
        assert_eq!(file_name(Story::GcPause, Store::Fenced), "gc-pause.fenced.redis.jsonl");
        assert_eq!(file_name(Story::TokenInversion, Store::Fenced), "token-inversion.redis.jsonl");
        assert_eq!(file_name(Story::TokenInversion, Store::Plain), "token-inversion.plain.redis.jsonl");
    }
}
