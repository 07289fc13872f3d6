//! What a real server did: the recordings the reality checks commit
//! (`recordings/`, refreshed by `scripts/record.sh`), each a history of
//! docs/histories.md, judged by the same observer as the model's runs and
//! drawn beside the model's run of the story it stages. And any history a
//! reader opens, judged the same way.

use crate::history::{self, Entry, History, HistoryError, Judged, GRANTS_FACT};
use crate::permalink;
use crate::scenario::Scenario;
use crate::trace::Trace;

/// A history as the format's documentation shows it: the GC pause.
pub const EXAMPLE: &str = include_str!("../../examples/histories/zombie-write.jsonl");

/// One committed recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recording {
    /// Its file in `recordings/`.
    pub file: &'static str,
    /// The story it stages, as a link names it (its preset and fencing):
    /// how the race and a link find it. The model's run it is held to, at
    /// the real run's own timings, is the file's (`model` in its header).
    pub story_link: &'static str,
    /// What the reader picks it by.
    pub title: &'static str,
}

/// Every committed recording, in the order the page lists them.
pub const RECORDINGS: &[Recording] = &[
    Recording { file: "gc-pause.redis.jsonl", story_link: "preset=gc-pause", title: "The GC pause on Redis" },
    Recording { file: "gc-pause.fenced.redis.jsonl", story_link: "preset=gc-pause&fencing=on", title: "The GC pause on Redis, fencing on" },
    Recording { file: "token-inversion.redis.jsonl", story_link: "preset=token-inversion", title: "The token inversion on Redis" },
    Recording {
        file: "token-inversion.plain.redis.jsonl",
        story_link: "preset=token-inversion&fencing=off",
        title: "The token inversion on Redis, fencing off",
    },
    Recording { file: "redis-failover.jsonl", story_link: "preset=redis-failover", title: "A Redis failover" },
    Recording { file: "redis-split-brain.jsonl", story_link: "preset=redis-split-brain", title: "Sentinel's split brain" },
    Recording { file: "etcd-partition.jsonl", story_link: "preset=consensus-partitioned-leader", title: "etcd's leader cut off" },
    Recording { file: "zookeeper-gc-pause.jsonl", story_link: "preset=zookeeper-gc-pause", title: "ZooKeeper's session expiry" },
];

impl Recording {
    /// The story, as a link names it.
    pub fn story(&self) -> Scenario {
        permalink::parse(self.story_link).0.scenario
    }

    /// The model's run the recording is held to: its header's `model`
    /// (the check's own scenario, at the real run's timings), else the
    /// story's preset as it stands.
    pub fn model(&self) -> Scenario {
        let header = self.judged().ok().and_then(|(history, _)| history.provenance.model);
        header.map_or_else(|| self.story(), |link| permalink::parse(&link).0.scenario)
    }

    /// The file, as committed (built in: the page makes no request; a
    /// match rather than a field, so that a build that only links to the
    /// recordings, the race's, does not carry them).
    pub fn jsonl(&self) -> &'static str {
        match self.file {
            "gc-pause.redis.jsonl" => include_str!("../../recordings/gc-pause.redis.jsonl"),
            "gc-pause.fenced.redis.jsonl" => include_str!("../../recordings/gc-pause.fenced.redis.jsonl"),
            "token-inversion.redis.jsonl" => include_str!("../../recordings/token-inversion.redis.jsonl"),
            "token-inversion.plain.redis.jsonl" => include_str!("../../recordings/token-inversion.plain.redis.jsonl"),
            "redis-failover.jsonl" => include_str!("../../recordings/redis-failover.jsonl"),
            "redis-split-brain.jsonl" => include_str!("../../recordings/redis-split-brain.jsonl"),
            "etcd-partition.jsonl" => include_str!("../../recordings/etcd-partition.jsonl"),
            "zookeeper-gc-pause.jsonl" => include_str!("../../recordings/zookeeper-gc-pause.jsonl"),
            _ => "",
        }
    }

    /// The recording read and judged (a committed one always is: a test
    /// checks every one).
    pub fn judged(&self) -> Result<(History, Judged), HistoryError> {
        open(self.jsonl().as_bytes())
    }
}

/// The recording of the story a link names, if there is one: no two
/// recordings stage the same story (a test checks).
pub fn for_scenario(scenario: &Scenario) -> Option<&'static Recording> {
    RECORDINGS.iter().find(|recording| recording.story() == *scenario)
}

/// The recording of a story like this one: the same preset with the same
/// fencing (a learner's edits aside), for a link from the race.
pub fn for_story(scenario: &Scenario) -> Option<&'static Recording> {
    for_scenario(scenario).or_else(|| {
        RECORDINGS.iter().find(|recording| {
            let story = recording.story();
            story.preset == scenario.preset && story.fencing == scenario.fencing
        })
    })
}

/// A history file's bytes read and judged: the history (for its header)
/// and its trace, or every problem found, each naming its line.
pub fn open(bytes: &[u8]) -> Result<(History, Judged), HistoryError> {
    let history = history::parse(bytes)?;
    let judged = history::judge(&history)?;
    Ok((history, judged))
}

/// Where the history came from, in one line: the header's source, kernel
/// and date, as far as it says them.
pub fn provenance(history: &History) -> String {
    let provenance = &history.provenance;
    let mut words = provenance.source.clone();
    if let Some(kernel) = &provenance.kernel {
        words.push_str(&format!("; {kernel}"));
    }
    if let Some(date) = &provenance.date {
        words.push_str(&format!("; recorded {date}"));
    }
    words
}

/// The most differences the page lists; the rest are counted.
pub const DIFFERENCES_MAX: usize = 12;

/// Where a recording differs from the model's run it is held to, in words:
/// each fact the two tell differently, then each moment that moved by a
/// millisecond or more (`history::compare_as`, as a reality check compares
/// a fresh run with its recording), at most `DIFFERENCES_MAX` and a count
/// of the rest. A check that staged the lock alone wrote to no store: its
/// writes are then not compared, and one line says so.
pub fn differences(model: &Trace, real: &History) -> Vec<String> {
    let model = match history::export(model) {
        Ok(model) => model,
        Err(why) => return vec![format!("The model's run is not compared: {why}.")],
    };
    let comparison = match history::compare_as(&model, real, history::MODEL_AND_REAL) {
        Ok(comparison) => comparison,
        Err(error) => return error.problems,
    };
    let wrote = real.records.iter().any(|record| matches!(record.entry, Entry::Write { .. }));
    let mut lines: Vec<String> = (!wrote)
        .then(|| {
            "The real run wrote to no store (the check staged the lock alone): its writes, and a worker that still believed \
             it held the lock after its lease, are not compared."
                .to_string()
        })
        .into_iter()
        .collect();
    // The facts of writes; with no store in the real run, none of them is a
    // difference. Nor is the count of violations: the model counts a worker
    // that believes it holds an expired lease, which only a write shows in a
    // history.
    let of_writes =
        |fact: &str| fact.contains("write") || fact.contains("fencing") || fact.contains("wrote") || fact.contains("violations");
    let mut renumbered = None;
    for disagreement in comparison.disagreements.iter().filter(|disagreement| wrote || !of_writes(disagreement.fact)) {
        if disagreement.fact == GRANTS_FACT && same_order(&disagreement.recorded, &disagreement.fresh) {
            renumbered = Some(format!(
                "The tokens are numbered differently, in the same order (which is all fencing compares): the model's {}, the real run's {}.",
                disagreement.recorded, disagreement.fresh
            ));
            continue;
        }
        lines.push(format!(
            "{}: the model {}; the real run {}.",
            disagreement.fact.replace('_', " "),
            disagreement.recorded,
            disagreement.fresh
        ));
    }
    let facts_differ = lines.len() > usize::from(!wrote);
    lines.extend(renumbered);
    // The moments fill what the facts leave of the list, the line that
    // says the facts agree kept last: a long run's moments are counted.
    let closing = (!facts_differ).then(|| {
        let within_ms = history::MODEL_AND_REAL.told_from_us / 1_000;
        format!("Every fact as the model tells it; every other moment within {within_ms} ms of the model's.")
    });
    let room = DIFFERENCES_MAX.saturating_sub(lines.len() + usize::from(closing.is_some()));
    let moments: Vec<String> = comparison.timing.into_iter().map(|note| format!("{note}.")).collect();
    if moments.len() > room {
        let shown = room.saturating_sub(1);
        let rest = moments.len() - shown;
        lines.extend(moments.into_iter().take(shown));
        lines.push(format!("and {rest} more moments."));
    } else {
        lines.extend(moments);
    }
    lines.extend(closing);
    if lines.len() > DIFFERENCES_MAX {
        // Facts alone past the bound (a file unlike its model in everything).
        let rest = lines.len() - (DIFFERENCES_MAX - 1);
        lines.truncate(DIFFERENCES_MAX - 1);
        lines.push(format!("and {rest} more."));
    }
    lines
}

/// Whether two lists of grants ("A:33 B:34", as a comparison writes them)
/// name the same holders in the same order, with tokens in the same order
/// (each token's rank among the list's): two services that number their
/// tokens from different starts (etcd's revisions, ZooKeeper's transaction
/// ids) agree on everything a fencing store decides by.
fn same_order(model: &str, real: &str) -> bool {
    let parse = |grants: &str| -> Option<Vec<(String, Option<u64>)>> {
        grants
            .split(' ')
            .map(|grant| {
                let (holder, token) = grant.split_once(':')?;
                Some((holder.to_string(), token.parse().ok()))
            })
            .collect()
    };
    let ranks = |grants: &[(String, Option<u64>)]| -> Vec<(String, Option<usize>)> {
        let mut tokens: Vec<u64> = grants.iter().filter_map(|(_, token)| *token).collect();
        tokens.sort_unstable();
        tokens.dedup();
        grants.iter().map(|(holder, token)| (holder.clone(), token.and_then(|token| tokens.binary_search(&token).ok()))).collect()
    };
    match (parse(model), parse(real)) {
        (Some(model), Some(real)) => ranks(&model) == ranks(&real),
        _ => false,
    }
}

/// The first write that damaged the data, where the file has it: "line 7,
/// at 15.000 s: …" in the words the run's own diagram uses; none if no
/// write did.
pub fn first_damage(judged: &Judged) -> Option<String> {
    let (line, index) = judged.first_damage?;
    let event = judged.trace.events.get(index as usize)?;
    Some(format!("line {line}, at {}: {}", crate::format_us(event.t_us), judged.trace.text(event)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recording_is_judged_and_its_model_link_is_clean() {
        for recording in RECORDINGS {
            assert!(!recording.jsonl().is_empty(), "{}: no file built in", recording.file);
            let (history, judged) = recording.judged().unwrap_or_else(|error| panic!("{}: {error}", recording.file));
            assert!(!history.records.is_empty(), "{}", recording.file);
            assert!(!judged.trace.events.is_empty(), "{}", recording.file);
            let (_, notices) = permalink::parse(recording.story_link);
            assert!(notices.is_empty(), "{}: {notices:?}", recording.file);
            assert_eq!(for_scenario(&recording.story()).map(|found| found.file), Some(recording.file), "one recording per story");
            // The model's run the check holds it to is the story's, at the real run's timings.
            let model = history.provenance.model.as_deref().unwrap_or_else(|| panic!("{}: no model link", recording.file));
            let (link, notices) = permalink::parse(model);
            assert!(notices.is_empty(), "{}: {notices:?}", recording.file);
            let scenario = link.scenario;
            assert_eq!((scenario.preset, scenario.fencing), (recording.story().preset, recording.story().fencing), "{}", recording.file);
        }
    }

    /// A file committed to `recordings/` and left off the page would be a
    /// real run no learner sees.
    #[test]
    fn every_file_in_recordings_is_on_the_page() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../recordings");
        let mut files: Vec<String> = std::fs::read_dir(folder)
            .expect("recordings/ is committed")
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.ends_with(".jsonl"))
            .collect();
        files.sort();
        let mut listed: Vec<String> = RECORDINGS.iter().map(|recording| recording.file.to_string()).collect();
        listed.sort();
        assert_eq!(files, listed);
    }

    #[test]
    fn the_first_damaging_write_is_named_by_its_line() {
        let (_, judged) = open(include_bytes!("../../examples/histories/zombie-write.jsonl")).expect("the example is a history");
        let words = first_damage(&judged).expect("the example has a zombie write");
        assert_eq!(words, "line 7, at 15.000 s: Store accepted A's stale write (token 33): it overwrote B's newer data");
        let (_, fenced) = open(include_bytes!("../../examples/histories/zombie-write-fenced.jsonl")).expect("the fenced example");
        assert_eq!(first_damage(&fenced), None);
    }

    /// Each recording beside its model's run: the live GC pause agrees on
    /// every fact and differs only in moments; a check with no store says
    /// so once instead of listing the model's writes.
    #[test]
    fn a_recording_differs_from_its_model_in_moments_not_in_facts() {
        for recording in RECORDINGS {
            let (history, _) = recording.judged().expect("judged");
            let model = crate::run(&recording.model()).expect("the model's scenario runs");
            let lines = differences(&model, &history);
            assert!(lines.len() <= DIFFERENCES_MAX, "{}: {lines:?}", recording.file);
            assert!(lines.iter().all(|line| line.ends_with('.')), "{}: {lines:?}", recording.file);
            let wrote = history.records.iter().any(|record| matches!(record.entry, Entry::Write { .. }));
            assert_eq!(
                lines.first().is_some_and(|line| line.starts_with("The real run wrote to no store")),
                !wrote,
                "{}: {lines:?}",
                recording.file
            );
        }
        // Every recording tells every fact as its model's run does: a
        // check's model link is the run it staged, and a fact that differs
        // is a change in what the real server does (or in how it was staged).
        for recording in RECORDINGS {
            let (history, _) = recording.judged().expect("judged");
            let lines = differences(&crate::run(&recording.model()).expect("runs"), &history);
            assert!(lines.iter().all(|line| !line.contains("; the real run ")), "{}: {lines:?}", recording.file);
            assert!(lines.last().is_some_and(|line| line.starts_with("Every fact as the model tells it")), "{}: {lines:?}", recording.file);
        }
        let gc = RECORDINGS.iter().find(|recording| recording.file == "gc-pause.redis.jsonl").expect("the GC pause");
        let (history, _) = gc.judged().expect("judged");
        let lines = differences(&crate::run(&gc.model()).expect("runs"), &history);
        let (last, moved) = lines.split_last().expect("a line at least");
        assert_eq!(last, "Every fact as the model tells it; every other moment within 10 ms of the model's.");
        assert!(moved.iter().all(|line| line.contains(" than in the model (")), "facts agree: {lines:?}");
    }

    /// Fencing compares tokens by their order alone: two services that
    /// number from different starts agree; a swapped order or holder does not.
    #[test]
    fn tokens_numbered_differently_in_the_same_order_are_the_same_fact() {
        assert!(same_order("A:33 B:34 C:35", "A:4294967298 B:4294967300 C:4294967304"));
        assert!(same_order("A:34 B:33", "A:3 B:2"));
        assert!(same_order("A:33 B:34 C:34", "A:2 B:3 C:3"));
        assert!(!same_order("A:33 B:34", "A:3 B:2"), "the order swapped");
        assert!(!same_order("A:33 B:34", "B:2 A:3"), "the holders swapped");
        assert!(!same_order("A:33 B:34 C:34", "A:2 B:3 C:4"), "a shared token split");
        assert!(!same_order("A:33 B:34", "A:33"), "a grant missing");
        assert!(same_order("A:- B:34", "A:- B:2"), "a grant without a token");
        assert!(!same_order("A:33 garbage", "A:33 B:34"));
    }

    #[test]
    fn a_bad_file_gets_its_problems_not_a_panic() {
        for bytes in [&b""[..], b"{", b"\xff\xfe", b"{\"kind\":\"history\"}\n"] {
            let error = open(bytes).expect_err("not a history");
            assert!(!error.problems.is_empty());
        }
    }
}
