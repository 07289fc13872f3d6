//! What a real server did: the recordings the reality checks commit
//! (`recordings/`, refreshed by `scripts/record.sh`), each a history of
//! docs/histories.md, judged by the same observer as the model's runs and
//! drawn beside the model's run of the story it stages. And any history a
//! reader opens, judged the same way.

use crate::history::{self, History, HistoryError, Judged};
use crate::permalink;
use crate::scenario::Scenario;

/// A history as the format's documentation shows it: the GC pause.
pub const EXAMPLE: &str = include_str!("../../examples/histories/zombie-write.jsonl");

/// One committed recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recording {
    /// Its file in `recordings/`, and its id in a link (`recording=`).
    pub file: &'static str,
    /// The story it stages, in the model's words: the link of the model's
    /// run the reality check holds it to.
    pub model_link: &'static str,
    /// What the reader picks it by.
    pub title: &'static str,
}

/// Every committed recording, in the order the page lists them.
pub const RECORDINGS: &[Recording] = &[
    Recording { file: "gc-pause.redis.jsonl", model_link: "preset=gc-pause", title: "The GC pause on Redis" },
    Recording { file: "gc-pause.fenced.redis.jsonl", model_link: "preset=gc-pause&fencing=on", title: "The GC pause on Redis, fencing on" },
    Recording { file: "token-inversion.redis.jsonl", model_link: "preset=token-inversion", title: "The token inversion on Redis" },
    Recording {
        file: "token-inversion.plain.redis.jsonl",
        model_link: "preset=token-inversion&fencing=off",
        title: "The token inversion on Redis, fencing off",
    },
    Recording { file: "redis-failover.jsonl", model_link: "preset=redis-failover", title: "A Redis failover" },
    Recording { file: "redis-split-brain.jsonl", model_link: "preset=redis-split-brain", title: "Sentinel's split brain" },
    Recording {
        file: "etcd-partition.jsonl",
        model_link: "preset=consensus-partitioned-leader&fencing=off",
        title: "etcd's leader cut off",
    },
    Recording { file: "zookeeper-gc-pause.jsonl", model_link: "preset=zookeeper-gc-pause", title: "ZooKeeper's session expiry" },
];

impl Recording {
    /// The model's scenario the recording is held to.
    pub fn model(&self) -> Scenario {
        permalink::parse(self.model_link).0.scenario
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

/// The recording of the story a link names (its scenario is the model's
/// run the recording is held to), if there is one. A link names a
/// recording by its story alone: no two recordings share a model link (a
/// test checks).
pub fn for_scenario(scenario: &Scenario) -> Option<&'static Recording> {
    RECORDINGS.iter().find(|recording| recording.model() == *scenario)
}

/// The recording of a story like this one: the same preset with the same
/// fencing (a learner's edits aside), for a link from the race.
pub fn for_story(scenario: &Scenario) -> Option<&'static Recording> {
    for_scenario(scenario).or_else(|| {
        RECORDINGS.iter().find(|recording| {
            let model = recording.model();
            model.preset == scenario.preset && model.fencing == scenario.fencing
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
            let (_, notices) = permalink::parse(recording.model_link);
            assert!(notices.is_empty(), "{}: {notices:?}", recording.file);
            assert_eq!(for_scenario(&recording.model()).map(|found| found.file), Some(recording.file), "one recording per story");
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

    #[test]
    fn a_bad_file_gets_its_problems_not_a_panic() {
        for bytes in [&b""[..], b"{", b"\xff\xfe", b"{\"kind\":\"history\"}\n"] {
            let error = open(bytes).expect_err("not a history");
            assert!(!error.problems.is_empty());
        }
    }
}
