//! The guided first run: the classic race told as a handful of steps, one
//! sentence each, on top of the live picture. A step is anchored on an event
//! of the run on screen, so the guide is a function of the run and the
//! cursor: Play, the scrubber and the arrow keys move it as surely as its
//! own Next button does. Every term the lesson rests on (lock server,
//! lease, fencing token, stop-the-world pause, zombie write) is defined in
//! plain words in the step where it first appears. The sentences are read
//! off the run (who, which token, how long), never written for one run.
//!
//! The order follows the brief: the lock and its lease, the token, the
//! pause, the expiry and B's grant, the zombie write; then the learner turns
//! fencing on and watches the same write refused; then "a longer lease?".

use crate::presets;
use crate::scenario::Scenario;
use crate::trace::Trace;
use crate::worksheet::duration;
use crate::{Actor, Event, Kind};

/// How many steps the guide has, whichever run is on screen (the run with
/// fencing off shows steps 1–7, with fencing on 1–5 and 8–9).
pub const STEPS: usize = 9;

/// The terms the page uses, each defined in plain words for a tooltip
/// wherever the term appears (hover or keyboard focus), after the tour has
/// defined it in the step where it first appears. Short: one sentence.
pub const GLOSSARY: [(&str, &str); 8] = [
    ("lock server", "The server that hands the lock to one worker at a time (here Redis, etcd, ZooKeeper or Consul)."),
    ("lease", "A lock that runs out: the lock server frees it after a set time, whether its holder has finished or not."),
    (
        "fencing token",
        "A number the lock server hands out with every grant, higher each time; a store that checks it refuses a write with an older one.",
    ),
    ("zombie write", "A write from a worker whose lease has run out but which still believes it holds the lock."),
    ("zombie window", "The time a worker believes it holds the lock while the lock server says it does not."),
    ("stale overwrite", "A zombie write that replaced data written by a newer holder of the lock: that data is lost."),
    ("mutual exclusion violation", "Two workers at once, each believing it holds the lock."),
    ("rejected write", "A write the store refused because its fencing token was older than one it had already accepted."),
];

/// The definition of a term of the glossary (its exact words, any case).
pub fn define(term: &str) -> Option<&'static str> {
    GLOSSARY.iter().find(|(name, _)| name.eq_ignore_ascii_case(term)).map(|(_, definition)| *definition)
}

/// What the guide's button does at a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Move the cursor to this event (the next step's anchor).
    Event(u32),
    /// Move the cursor to the run's last event.
    End,
    /// Ask the learner to turn fencing on (the page's own switch).
    TurnFencingOn,
    /// The last step: nothing follows but the links it names.
    Finish,
}

/// One step as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// 1-based, of `STEPS`.
    pub number: usize,
    pub words: String,
    pub next: Next,
}

/// Whether the guide can tell this scenario: the classic run (any seed,
/// fencing either way), the one the lab opens on.
pub fn is_guided(scenario: &Scenario) -> bool {
    let classic = presets::classic();
    Scenario { seed: classic.seed, fencing: classic.fencing, ..scenario.clone() } == classic
}

/// The events the steps are anchored on, found in the run.
struct Anchors<'a> {
    first: &'a Event,
    pause: &'a Event,
    second: &'a Event,
    second_write: &'a Event,
    /// The first holder's write after its pause: accepted (fencing off) or refused (on).
    late_write: &'a Event,
}

impl<'a> Anchors<'a> {
    /// None when the run is not the classic story (then there is no guide).
    fn find(trace: &'a Trace) -> Option<Anchors<'a>> {
        let events = &trace.events;
        let first = events.iter().find(|event| matches!(event.kind, Kind::Acquired { .. }))?;
        let holder = first.actor;
        let pause = events.iter().find(|event| event.actor == holder && matches!(event.kind, Kind::PauseBegan { .. }))?;
        let second = events.iter().find(|event| event.actor != holder && matches!(event.kind, Kind::Acquired { .. }))?;
        let writer = |event: &Event| match event.kind {
            Kind::WriteAccepted { writer, .. } | Kind::WriteRejected { writer, .. } => Some(writer),
            _ => None,
        };
        let second_write = events.iter().find(|event| event.index > second.index && writer(event) == Some(second.actor))?;
        let late_write = events.iter().find(|event| event.index > pause.index && writer(event) == Some(holder))?;
        Some(Anchors { first, pause, second, second_write, late_write })
    }
}

/// The step the guide shows for `trace` with the cursor at `cursor` (None
/// before the first event), or None when the run is not the classic one.
pub fn at(trace: &Trace, cursor: Option<u32>) -> Option<Step> {
    if !is_guided(&trace.scenario) {
        return None;
    }
    let anchors = Anchors::find(trace)?;
    let fenced = trace.scenario.fencing;
    let last = trace.events.last()?.index;
    let at = cursor.map_or(-1, i64::from);
    let reached = |event: &Event| at >= i64::from(event.index);
    let (holder, other) = (anchors.first.actor, anchors.second.actor);
    let token = |event: &Event| event.token.map_or("no token".to_string(), |token| format!("token {token}"));
    let step = |number: usize, words: String, next: Next| Some(Step { number, words, next });
    if fenced && at >= i64::from(last) && reached(anchors.late_write) {
        return step(9, longer_lease(trace), Next::Finish);
    }
    if reached(anchors.late_write) {
        return if fenced {
            step(8, refused(trace, &anchors, holder, other), Next::End)
        } else if at >= i64::from(last) {
            step(7, turn_fencing_on(), Next::TurnFencingOn)
        } else {
            step(6, zombie(&anchors, holder, other), Next::End)
        };
    }
    if reached(anchors.second_write) {
        let words = format!(
            "{other} writes its data with {}, and the store keeps it. The lock server says {other} holds the lock, but frozen {holder} \
             still believes it does too.",
            token(anchors.second_write)
        );
        return step(5, words, Next::Event(anchors.late_write.index));
    }
    if reached(anchors.second) {
        return step(4, expired(trace, &anchors, holder, other), Next::Event(anchors.second_write.index));
    }
    if reached(anchors.pause) {
        return step(3, paused(&anchors, holder), Next::Event(anchors.second.index));
    }
    if reached(anchors.first) {
        return step(2, granted(trace, &anchors, holder), Next::Event(anchors.pause.index));
    }
    step(1, intro(trace, holder, other), Next::Event(anchors.first.index))
}

/// The first event at which the guide shows step `number` (where the page
/// puts the cursor when fencing is turned on mid-guide: the refusal).
pub fn first_at(trace: &Trace, number: usize) -> Option<u32> {
    // Bounded by the run's events; only the classic run (about 150) has steps.
    trace.events.iter().map(|event| event.index).find(|index| at(trace, Some(*index)).is_some_and(|step| step.number == number))
}

fn intro(trace: &Trace, holder: Actor, other: Actor) -> String {
    format!(
        "Two workers, {holder} and {other}, each want to update one record in a shared store. To take turns they ask a lock server \
         (here {}) for a lock: a promise that only one of them writes at a time. Press Next to follow the run a step at a time.",
        // The guided run is the classic one (`is_guided`): one Redis.
        match trace.scenario.lock_service {
            crate::LockService::SingleRedis => "one Redis server",
            _ => "a lock service",
        }
    )
}

fn granted(trace: &Trace, anchors: &Anchors, holder: Actor) -> String {
    let token = anchors.first.token.map_or(String::new(), |token| {
        format!(" The lock server also gave {holder} fencing token {token}: a number that grows with every grant, so a later holder always has a higher one.")
    });
    format!(
        "{holder} holds the lock. It is a lease: the lock server keeps it for {holder} for {} and then frees it, whether {holder} has finished or not.{token}",
        duration(trace.scenario.ttl_ms)
    )
}

fn paused(anchors: &Anchors, holder: Actor) -> String {
    let pause_ms = match anchors.pause.kind {
        Kind::PauseBegan { until_us } => until_us.saturating_sub(anchors.pause.t_us) / 1_000,
        _ => 0,
    };
    format!(
        "Just before writing, {holder} freezes for {}: a stop-the-world pause, such as a garbage collection, in which none of its code runs. \
         Frozen, {holder} cannot notice its lease running out.",
        duration(pause_ms)
    )
}

fn expired(trace: &Trace, anchors: &Anchors, holder: Actor, other: Actor) -> String {
    let since_ms = anchors.second.t_us.saturating_sub(anchors.first.t_us) / 1_000;
    let token = anchors.second.token.map_or(String::new(), |token| format!(", with the next token: {token}"));
    format!(
        "{holder}'s {} lease ran out while {holder} was still frozen. {} after {holder} got the lock, the lock server gave it to {other}{token}. \
         {holder} does not know.",
        duration(trace.scenario.ttl_ms),
        duration(since_ms / 100 * 100)
    )
}

fn zombie(anchors: &Anchors, holder: Actor, other: Actor) -> String {
    let (mine, theirs) = (anchors.first.token, anchors.second.token);
    let tokens = match (mine, theirs) {
        (Some(mine), Some(theirs)) => format!(" {holder}'s data (token {mine}) replaced {other}'s newer data (token {theirs})."),
        _ => String::new(),
    };
    format!(
        "{holder} wakes up and writes, still believing it holds the lock. This is a zombie write: a write from a worker whose lease has \
         already ended. The store takes it:{tokens} Two workers acted as the lock's holder at once, and the newer data is lost."
    )
}

fn turn_fencing_on() -> String {
    "Now you: turn Fencing on, beside Play. With fencing, the store remembers the highest token it has accepted and refuses any \
     write that carries a lower one."
        .to_string()
}

fn refused(trace: &Trace, anchors: &Anchors, holder: Actor, other: Actor) -> String {
    let (mine, highest) = match anchors.late_write.kind {
        Kind::WriteRejected { highest_token, .. } => (anchors.late_write.token, highest_token),
        _ => (None, None),
    };
    let why = match (mine, highest) {
        (Some(mine), Some(highest)) => format!(" It has already accepted token {highest}, so it refuses token {mine}."),
        _ => String::new(),
    };
    // A job runner retries the refused job (`worker`'s JOB_RETRIES_MAX):
    // said when the run shows it, under the new lock and token it took.
    let retried = trace
        .events
        .iter()
        .find(|event| event.index > anchors.late_write.index && event.actor == holder && matches!(event.kind, Kind::Acquired { .. }))
        .map_or(String::new(), |event| {
            let token = event.token.map_or(String::new(), |token| format!(" and token {token}"));
            format!(" Then {holder}'s job is retried under a new lock{token}: the data stays right, though the job's work is done twice.")
        });
    format!(
        "The same pause, the same zombie write from {holder} — but now the store checks the token.{why} {other}'s data is safe. \
         The lock alone could not stop {holder}; the token checked by the store did.{retried}"
    )
}

fn longer_lease(trace: &Trace) -> String {
    format!(
        "Would a longer lease than {} fix it without tokens? It only needs a longer pause: no lease outlasts every pause, because nobody \
         knows how long the longest will be. See how often each lease length loses data, or test yourself in the quiz.",
        duration(trace.scenario.ttl_ms)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fencing: bool) -> Trace {
        crate::run(&Scenario { fencing, ..presets::classic() }).expect("the classic scenario runs")
    }

    /// Every step of a run, in order, as the cursor walks it.
    fn walk(trace: &Trace) -> Vec<Step> {
        let mut steps: Vec<Step> = Vec::new();
        for cursor in std::iter::once(None).chain(trace.events.iter().map(|event| Some(event.index))) {
            let step = at(trace, cursor).expect("the classic run has a guide at every cursor");
            if steps.last() != Some(&step) {
                steps.push(step);
            }
        }
        steps
    }

    #[test]
    fn fencing_off_walks_steps_one_to_seven_in_order_each_next_reaching_the_following_step() {
        let trace = run(false);
        let steps = walk(&trace);
        assert_eq!(steps.iter().map(|step| step.number).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6, 7]);
        for pair in steps.windows(2) {
            let Next::Event(index) = pair[0].next else {
                assert_eq!(pair[0].next, Next::End, "step {}", pair[0].number);
                continue;
            };
            assert_eq!(at(&trace, Some(index)).as_ref(), Some(&pair[1]), "Next from step {}", pair[0].number);
        }
        assert_eq!(steps[6].next, Next::TurnFencingOn);
    }

    #[test]
    fn fencing_on_shows_the_refusal_and_then_the_longer_lease() {
        let trace = run(true);
        let numbers: Vec<usize> = walk(&trace).iter().map(|step| step.number).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 8, 9]);
        let refusal = first_at(&trace, 8).expect("the fenced run reaches step 8");
        assert!(matches!(trace.events[refusal as usize].kind, Kind::WriteRejected { .. }), "step 8 starts at the refused write");
    }

    #[test]
    fn the_words_are_the_runs_own_tokens_and_times() {
        let off = run(false);
        let words = |trace: &Trace, number: usize| walk(trace).into_iter().find(|step| step.number == number).expect("step").words;
        assert!(words(&off, 2).contains("for 10 s") && words(&off, 2).contains("fencing token 33"), "{}", words(&off, 2));
        assert!(words(&off, 3).contains("freezes for 15 s"), "{}", words(&off, 3));
        assert!(words(&off, 4).contains("gave it to B, with the next token: 34"), "{}", words(&off, 4));
        assert!(words(&off, 6).contains("A's data (token 33) replaced B's newer data (token 34)"), "{}", words(&off, 6));
        let on = run(true);
        assert!(words(&on, 8).contains("already accepted token 34, so it refuses token 33"), "{}", words(&on, 8));
        // The refused job is retried, as the run shows: A takes the lock again with token 35.
        assert!(words(&on, 8).contains("retried under a new lock and token 35"), "{}", words(&on, 8));
        assert!(on
            .events
            .iter()
            .any(|event| event.actor == Actor::Worker(0) && matches!(event.kind, Kind::Acquired { .. }) && event.token == Some(35)));
        // The run agrees with its words: fencing off, A's late write overwrote B's; on, it was refused.
        assert_eq!(off.summary.stale_overwrites, 1);
        assert!(on
            .events
            .iter()
            .any(|event| matches!(event.kind, Kind::WriteRejected { writer: Actor::Worker(0), .. }) && event.token == Some(33)));
    }

    #[test]
    fn each_term_is_defined_in_the_step_where_it_first_appears() {
        let trace = run(false);
        let steps = walk(&trace);
        let first = |term: &str| steps.iter().find(|step| step.words.to_lowercase().contains(term)).map(|step| step.words.clone());
        for (term, definition) in [
            ("lock server", "for a lock: a promise"),
            ("lease", "it is a lease: the lock server keeps it"),
            ("fencing token", "a number that grows with every grant"),
            ("stop-the-world pause", "none of its code runs"),
            ("zombie write", "a write from a worker whose lease has"),
        ] {
            let words = first(term).unwrap_or_else(|| panic!("no step says {term}"));
            assert!(words.to_lowercase().contains(&definition.to_lowercase()), "{term} is not defined where it first appears: {words}");
        }
    }

    /// Every glossary entry is one sentence, and says the same as the tour
    /// does where the tour defines the term.
    #[test]
    fn the_glossary_agrees_with_the_tour() {
        for (term, definition) in GLOSSARY {
            assert_eq!(definition.matches(". ").count(), 0, "{term}: one sentence");
            assert!(definition.ends_with('.'), "{term}");
            assert_eq!(define(&term.to_uppercase()), Some(definition));
        }
        let steps = walk(&run(false));
        let said = steps.iter().map(|step| step.words.to_lowercase()).collect::<Vec<_>>().join(" ");
        assert!(
            said.contains("a number that grows with every grant")
                && define("fencing token").is_some_and(|words| words.contains("higher each time"))
        );
        assert!(
            said.contains("frees it, whether")
                && define("lease").is_some_and(|words| words.contains("whether its holder has finished or not"))
        );
        assert!(
            said.contains("a write from a worker whose lease has")
                && define("zombie write").is_some_and(|words| words.starts_with("A write from a worker whose lease has run out"))
        );
    }

    #[test]
    fn only_the_classic_run_is_guided() {
        assert!(is_guided(&presets::classic()));
        assert!(is_guided(&Scenario { fencing: true, seed: 7, ..presets::classic() }));
        assert!(!is_guided(&Scenario { ttl_ms: 40_000, ..presets::classic() }));
        let other = crate::run(&presets::find("lease-x4").map(|preset| (preset.build)()).expect("preset")).expect("runs");
        assert_eq!(at(&other, None), None);
    }
}
