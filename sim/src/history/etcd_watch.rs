//! A history from two real logs: `etcdctl watch --prefix <lock>/ -w json`
//! for etcd's lock, each line prefixed with the moment it arrived, and a
//! store's log of its decisions (read as `monitor.rs` reads it).
//!
//! **The watch's lines.** etcdctl's JSON printer writes each watch response
//! as `json.Marshal` of clientv3's `WatchResponse`, one per line
//! (etcdctl/ctlv3/command/printer_json.go, etcd 3.4):
//! `{"Header":{…,"revision":5},"Events":[{"type":1,"kv":{"key":"…","mod_revision":5}}],"CompactRevision":0,"Canceled":false,"Created":false}`.
//! An event is mvccpb's `Event` (api/mvccpb/kv.proto): `type` 0 is a PUT
//! and 1 a DELETE, and Go's `omitempty` drops zero values, so a PUT has no
//! `type`; its `kv` is a `KeyValue` with `key` and `value` in base64 (Go's
//! `encoding/json` writes `[]byte` so) and `create_revision`,
//! `mod_revision`, `version` and `lease` as numbers. A DELETE's `kv` has the
//! key and the delete's `mod_revision` only. etcdctl prints no times, so
//! each line must start with the Unix time it arrived, in seconds with six
//! decimals (`date +%s.%6N`): `1733400000.123456 {"Header":…}`.
//!
//! **The lock.** etcd's v3 concurrency `Mutex` (client/v3/concurrency/
//! mutex.go; `etcdctl lock` and the v3 Lock RPC use it) has each waiter PUT
//! its own key, `<prefix>/<its session's lease id in hex>`, attached to that
//! lease; the waiter whose key has the lowest `create_revision` holds the
//! lock, the others wait for every lower key to be deleted (`waitDeletes`).
//! `Unlock` deletes the holder's key; an expired lease deletes it too (a
//! lease's revoke deletes its keys, server/lease/lessor.go). So: a PUT
//! that creates a key (`version` 1) is a waiter, named A, B, C… in the
//! order the keys appear; whenever the lowest live key changes, its owner
//! is granted the lock with its `create_revision` as the token (etcd's
//! "Notes on the usage of lock and lease",
//! https://etcd.io/docs/v3.5/learning/why/#notes-on-the-usage-of-lock-and-lease,
//! names a revision as the fencing token; contrib/lock in etcd's tree uses
//! it so); a DELETE of the holder's key ends its hold.
//!
//! **What the watch cannot say.** A lease's TTL and its keep-alives are not
//! in it (they are the lease API's, not the key's), so a grant's lease is
//! taken to end `ttl_ms` after it, or later if its key is seen to outlive
//! that (the key exists only while its lease does). Nor can it tell a
//! release from a lease that ran out: both are a DELETE. A DELETE is read as
//! the holder's release unless `expired` names its key, in which case the
//! lease ran out right then (etcd's lessor looks for expired leases every
//! 500 ms, server/lease/lessor.go `runLoop`, so the true end may be up to
//! half a second earlier).

use super::monitor::{assemble, numbered, read_time, store_decisions};
use super::{short, Entry, History, HistoryError, Provenance, ReleaseHow, HISTORY_BYTES_MAX, PROBLEMS_MAX, RECORDS_MAX, TIME_US_MAX};
use crate::actor::{Actor, WORKERS_MAX};
use base64::Engine;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The longest watch response line read: a lock's prefix holds a key per
/// waiter, so even a revoke deleting all of them is a few kilobytes.
pub const WATCH_LINE_BYTES_MAX: usize = 64 * 1024;

/// What the converter needs besides the two logs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The lock sessions' TTL, in ms (`etcdctl lock --ttl`, `concurrency.WithTTL`):
    /// the watch does not show it.
    pub ttl_ms: u64,
    /// The keys whose DELETE was their lease running out, not their
    /// owner's release: the watch cannot tell the two apart.
    pub expired: Vec<String>,
    /// Whether the store refuses a lower token: the logs cannot say.
    pub fencing: bool,
    /// Where the logs came from ("etcd 3.4.23 on …").
    pub source: String,
}

/// What an event did to its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    Put { create_revision: u64, version: u64 },
    Delete,
}

/// One event of the watch, with the line it was on and when that line arrived.
#[derive(Clone, Debug)]
struct Event {
    line: u32,
    t_us: u64,
    key: String,
    change: Change,
}

/// A waiter's key while it exists.
struct Live {
    key: String,
    create_revision: u64,
    worker: Actor,
}

/// The hold of the lowest key: whose, and which record is its grant.
struct Hold {
    key: String,
    worker: Actor,
    grant_index: usize,
    start_us: u64,
}

/// The history the two logs tell, or every line that could not be read.
pub fn convert(watch: &str, store_log: &str, options: &Options) -> Result<History, HistoryError> {
    if watch.len() > HISTORY_BYTES_MAX {
        return Err(HistoryError::one(format!(
            "the etcd watch log is {} bytes, over the {HISTORY_BYTES_MAX}-byte limit: cut it to the incident's minutes",
            watch.len()
        )));
    }
    let ttl_us = options
        .ttl_ms
        .checked_mul(1_000)
        .filter(|ttl_us| (1..=TIME_US_MAX).contains(ttl_us))
        .ok_or_else(|| HistoryError::one(format!("--ttl-ms {} is not a lease's TTL: from 1 ms to a year", options.ttl_ms)))?;
    let mut problems = Vec::new();
    let (events, last_us) = read_events(watch, &mut problems)?;
    let decisions = store_decisions(store_log, &mut problems);
    if !problems.is_empty() {
        problems.truncate(PROBLEMS_MAX);
        return Err(HistoryError { problems });
    }
    let zero_us = events.iter().map(|event| event.t_us).chain(decisions.iter().map(|(_, t_us, _)| *t_us)).min().unwrap_or(0);
    let entries = replay(&events, options, ttl_us, zero_us, last_us.saturating_sub(zero_us))?;
    let provenance = Provenance {
        source: options.source.clone(),
        notes: Some(format!(
            "converted by fencing-lab convert from an etcdctl watch -w json log (the lock's keys, {}; TTL taken as {} ms; {}) and a store log",
            prefix_of(events.first().map_or("", |event| event.key.as_str())),
            options.ttl_ms,
            if options.expired.is_empty() {
                "every DELETE of the holder's key read as its release".to_string()
            } else {
                format!("expired: {}", options.expired.join(", "))
            }
        )),
        time_zero_unix_us: Some(zero_us),
        ..Provenance::default()
    };
    assemble(entries, decisions, zero_us, provenance, options.fencing)
}

/// The lock's prefix a Mutex key lives under: everything up to its last `/`.
fn prefix_of(key: &str) -> &str {
    key.rfind('/').map_or("", |slash| &key[..=slash])
}

/// Every event of the watch in order, and the time its last line arrived.
/// A line that cannot be read adds a problem; more than `RECORDS_MAX`
/// events is refused at once.
fn read_events(watch: &str, problems: &mut Vec<String>) -> Result<(Vec<Event>, u64), HistoryError> {
    let mut events = Vec::new();
    let mut previous: Option<(u32, u64)> = None;
    // Bounded by the watch's lines, and stops after PROBLEMS_MAX problems.
    for (line, text) in numbered(watch) {
        if problems.len() >= PROBLEMS_MAX {
            break;
        }
        let problem = |text: String| format!("etcd watch line {line}{text}");
        if text.len() > WATCH_LINE_BYTES_MAX {
            problems.push(problem(format!(" is {} bytes, over the {WATCH_LINE_BYTES_MAX}-byte limit for one watch response", text.len())));
            continue;
        }
        if text.starts_with('{') {
            problems.push(problem(
                " has no time: etcdctl's watch prints none, so prefix each line with the Unix time it arrived, \
                 `etcdctl watch --prefix <lock>/ -w json | while read -r l; do printf '%s %s\\n' \"$(date +%s.%6N)\" \"$l\"; done`"
                    .to_string(),
            ));
            continue;
        }
        let Some((time, json)) = text.split_once(' ') else {
            problems.push(problem(": expected `<unix seconds.micros> <etcdctl watch -w json response>`".to_string()));
            continue;
        };
        let t_us = match read_time(time) {
            Ok(t_us) => t_us,
            Err(error) => {
                problems.push(problem(format!(": {error}: each line is `<unix seconds.micros> <etcdctl watch -w json response>`")));
                continue;
            }
        };
        if let Some((before, before_us)) = previous.filter(|(_, before_us)| t_us < *before_us) {
            problems.push(problem(format!(
                " arrived at {t_us} µs, before line {before}'s {before_us} µs: lines must be in the order they arrived (were lines reordered?)"
            )));
            continue;
        }
        previous = Some((line, t_us));
        let value: Value = match serde_json::from_str(json.trim()) {
            Ok(value) => value,
            Err(error) if error.is_eof() => {
                problems.push(problem(format!(" is cut short ({error}): was the watch stopped mid-line?")));
                continue;
            }
            Err(error) => {
                problems.push(problem(format!(" is not one JSON watch response: {error}")));
                continue;
            }
        };
        match read_response(&value) {
            Ok(changes) => {
                for (key, change) in changes {
                    events.push(Event { line, t_us, key, change });
                }
            }
            Err(error) => problems.push(problem(error)),
        }
        if events.len() > RECORDS_MAX {
            return Err(HistoryError::one(format!(
                "the etcd watch log has over {RECORDS_MAX} events by line {line}, over the limit of {RECORDS_MAX} records: cut it to the incident's minutes"
            )));
        }
    }
    Ok((events, previous.map_or(0, |(_, t_us)| t_us)))
}

/// One watch response's events: each key, decoded, and what happened to it.
/// The error starts where a line's notice goes on (`, event 2, field …`).
fn read_response(value: &Value) -> Result<Vec<(String, Change)>, String> {
    let Value::Object(response) = value else {
        return Err(" is not a JSON object: expected a watch response, {\"Header\":…,\"Events\":[…]}".to_string());
    };
    if !response.contains_key("Header") && !response.contains_key("Events") {
        return Err(" has neither \"Header\" nor \"Events\": is it `etcdctl watch -w json` output?".to_string());
    }
    // A watch cancelled (its start revision compacted away) has lost events
    // (clientv3's WatchResponse: `Canceled`, `CompactRevision`).
    let compacted = response.get("CompactRevision").and_then(Value::as_u64).unwrap_or(0);
    if response.get("Canceled") == Some(&Value::Bool(true)) || compacted > 0 {
        return Err(format!(
            ": the watch was cancelled{}: events are missing, so the lock's history cannot be told; watch again before the lock is first taken",
            if compacted > 0 { format!(" (compacted at revision {compacted})") } else { String::new() }
        ));
    }
    let events = match response.get("Events") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(events)) => events,
        Some(_) => return Err(", field \"Events\": expected a list of events".to_string()),
    };
    events
        .iter()
        .enumerate()
        .map(|(index, event)| {
            let at = |field: &str, text: String| format!(", event {}, field \"{field}\": {text}", index + 1);
            let Value::Object(event) = event else {
                return Err(format!(", event {}: expected an object {{\"type\":…,\"kv\":{{…}}}}", index + 1));
            };
            let delete = match event.get("type") {
                None => false,
                Some(kind) => match kind.as_u64() {
                    Some(0) => false,
                    Some(1) => true,
                    _ => return Err(at("type", format!("expected 0 (PUT, or absent) or 1 (DELETE), found {}", shown(kind)))),
                },
            };
            let Some(Value::Object(kv)) = event.get("kv") else {
                return Err(at("kv", "expected the key's {\"key\":…} object".to_string()));
            };
            let key = read_key(kv).map_err(|text| at("kv.key", text))?;
            if let Some(value) = kv.get("value") {
                decoded(value).map_err(|text| at("kv.value", text))?;
            }
            if delete {
                return Ok((key, Change::Delete));
            }
            let revision = |name: &str| {
                kv.get(name).and_then(Value::as_u64).filter(|number| *number >= 1).ok_or_else(|| {
                    at(
                        &format!("kv.{name}"),
                        format!("a PUT's {name} is a whole number from 1, found {}", kv.get(name).map_or("none".to_string(), shown)),
                    )
                })
            };
            Ok((key, Change::Put { create_revision: revision("create_revision")?, version: revision("version")? }))
        })
        .collect()
}

/// A value repeated back in a notice, cut short.
fn shown(value: &Value) -> String {
    short(&value.to_string()).to_string()
}

/// Go's base64 of a `[]byte` (standard alphabet, padded), decoded.
fn decoded(value: &Value) -> Result<Vec<u8>, String> {
    let text = value.as_str().ok_or_else(|| format!("expected base64 text, found {}", shown(value)))?;
    base64::engine::general_purpose::STANDARD.decode(text).map_err(|error| format!("{:?} is not base64 ({error})", short(text)))
}

/// The event's key as text: a lock's keys are its prefix and a lease id in hex.
fn read_key(kv: &Map<String, Value>) -> Result<String, String> {
    let bytes = decoded(kv.get("key").unwrap_or(&Value::Null))?;
    let key =
        String::from_utf8(bytes).map_err(|_| "the key is not UTF-8 text (a Mutex's key is `<prefix>/<lease id in hex>`)".to_string())?;
    if key.is_empty() {
        return Err("the key is empty".to_string());
    }
    Ok(key)
}

/// The Mutex replayed from its keys' events (the module's comment says how).
fn replay(events: &[Event], options: &Options, ttl_us: u64, zero_us: u64, last_us: u64) -> Result<Vec<Entry>, HistoryError> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut live: Vec<Live> = Vec::new();
    let mut named: Vec<(String, Actor)> = Vec::new();
    let mut deleted: BTreeSet<String> = BTreeSet::new();
    let mut hold: Option<Hold> = None;
    let prefix = events.first().map(|event| prefix_of(&event.key).to_string()).unwrap_or_default();
    // Sets the grant's lease end once its hold is over.
    let end_lease = |entries: &mut Vec<Entry>, grant_index: usize, end_us: u64| {
        if let Some(Entry::Grant { lease_end_us, .. }) = entries.get_mut(grant_index) {
            *lease_end_us = end_us;
        }
    };
    for event in events {
        let at_us = event.t_us.saturating_sub(zero_us);
        let problem = |text: String| HistoryError::one(format!("etcd watch line {}: {text}", event.line));
        let key = short(&event.key);
        if prefix_of(&event.key) != prefix || prefix.is_empty() {
            return Err(problem(format!(
                "the key {key:?} is not under {prefix:?}: an etcd Mutex's keys are `<prefix>/<lease id in hex>` \
                 (client/v3/concurrency/mutex.go); watch one lock's prefix, `etcdctl watch --prefix <lock>/`"
            )));
        }
        let position = live.iter().position(|waiter| waiter.key == event.key);
        match (event.change, position) {
            (Change::Put { create_revision, version: 1 }, None) => {
                let worker = match named.iter().find(|(name, _)| *name == event.key) {
                    Some((_, worker)) => *worker,
                    None if named.len() < usize::from(WORKERS_MAX) => {
                        let worker = Actor::Worker(named.len() as u8);
                        named.push((event.key.clone(), worker));
                        worker
                    }
                    None => {
                        return Err(problem(format!(
                            "the watch shows more than {WORKERS_MAX} lock keys, the most workers a history may have"
                        )))
                    }
                };
                if let Some(holder) = live.iter().find(|waiter| waiter.create_revision >= create_revision) {
                    return Err(problem(format!(
                        "the key {key:?} is created at revision {create_revision}, not after {:?}'s {}: revisions only grow (were lines reordered?)",
                        short(&holder.key),
                        holder.create_revision
                    )));
                }
                live.push(Live { key: event.key.clone(), create_revision, worker });
            }
            (Change::Put { version: 1, .. }, Some(_)) => {
                return Err(problem(format!("the key {key:?} is created (version 1) while it exists: is an event missing?")));
            }
            (Change::Put { create_revision, .. }, Some(index)) if live[index].create_revision == create_revision => {}
            (Change::Put { version, .. }, _) => {
                return Err(problem(format!(
                    "the key {key:?} is written (version {version}), but the watch never showed it created: \
                     start the watch before the lock is first taken"
                )));
            }
            (Change::Delete, Some(index)) => {
                let waiter = live.remove(index);
                deleted.insert(waiter.key.clone());
                if let Some(ended) = hold.take_if(|hold| hold.key == waiter.key) {
                    if options.expired.contains(&ended.key) {
                        // The lease ran out: nobody released.
                        end_lease(&mut entries, ended.grant_index, at_us);
                    } else {
                        end_lease(&mut entries, ended.grant_index, at_us.max(ended.start_us.saturating_add(ttl_us)));
                        entries.push(Entry::Release { worker: ended.worker, at_us, how: ReleaseHow::IfMine });
                    }
                }
            }
            (Change::Delete, None) if deleted.contains(&event.key) => {
                return Err(problem(format!("the key {key:?} is deleted again: the watch already showed it deleted (a duplicated line?)")));
            }
            (Change::Delete, None) => {
                return Err(problem(format!(
                    "the key {key:?} is deleted, but the watch never showed it created: start the watch before the lock is first taken"
                )));
            }
        }
        // The lowest create revision holds (mutex.go: `WithFirstCreate`, `waitDeletes`).
        if hold.is_none() {
            if let Some(lowest) = live.iter().min_by_key(|waiter| waiter.create_revision) {
                hold = Some(Hold { key: lowest.key.clone(), worker: lowest.worker, grant_index: entries.len(), start_us: at_us });
                entries.push(Entry::Grant {
                    holder: lowest.worker,
                    token: Some(lowest.create_revision),
                    lease_start_us: at_us,
                    lease_end_us: at_us.saturating_add(ttl_us),
                });
            }
        }
    }
    // Still held when the watch ends: its key proves the lease lived until then.
    if let Some(held) = hold {
        end_lease(&mut entries, held.grant_index, last_us.max(held.start_us.saturating_add(ttl_us)));
    }
    for key in &options.expired {
        if !deleted.contains(key) {
            let keys: Vec<&str> = named.iter().map(|(name, _)| name.as_str()).take(8).collect();
            return Err(HistoryError::one(format!(
                "--expired names {:?}, but the watch {}; its keys: {}",
                short(key),
                if named.iter().any(|(name, _)| name == key) { "never shows it deleted" } else { "never shows it" },
                if keys.is_empty() { "none".to_string() } else { keys.join(", ") }
            )));
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WATCH: &str = include_str!("../../../examples/histories/etcd-watch.log");
    const STORE: &str = include_str!("../../../examples/histories/etcd-store.log");
    const STORE_FENCED: &str = include_str!("../../../examples/histories/etcd-store.fenced.log");

    /// The key of the fixture's first PUT: A's, whose lease ran out.
    fn first_key() -> String {
        let (_, json) = WATCH.lines().next().and_then(|line| line.split_once(' ')).expect("a first line");
        let value: Value = serde_json::from_str(json).expect("JSON");
        let bytes = decoded(&value["Events"][0]["kv"]["key"]).expect("base64");
        String::from_utf8(bytes).expect("text")
    }

    fn options(fencing: bool, expired: Vec<String>) -> Options {
        Options { ttl_ms: 2_000, expired, fencing, source: "etcd 3.4.23 (examples/histories/etcd-watch.sh)".to_string() }
    }

    fn problems(watch: &str) -> String {
        convert(watch, "", &options(false, Vec::new())).expect_err("refused").to_string()
    }

    #[test]
    fn the_recorded_gc_pause_is_a_zombie_write_on_the_plain_store_and_a_refusal_on_the_fenced_one() {
        let expired = vec![first_key()];
        let plain = convert(WATCH, STORE, &options(false, expired.clone())).expect("the fixture converts");
        let text = plain.to_jsonl();
        let parsed = super::super::parse(text.as_bytes()).expect("the history parses");
        let entries: Vec<Entry> = parsed.records.iter().map(|line| line.entry).collect();
        let grants: Vec<(String, Option<u64>)> = entries
            .iter()
            .filter_map(|entry| match *entry {
                Entry::Grant { holder, token, .. } => Some((holder.to_string(), token)),
                _ => None,
            })
            .collect();
        assert_eq!(grants, vec![("A".to_string(), Some(2)), ("B".to_string(), Some(3))], "{text}");
        // A's DELETE was its lease running out: no release of A, B's release only.
        let releases: Vec<String> = entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Release { worker, .. } => Some(worker.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(releases, vec!["B".to_string()], "{text}");
        let judged = super::super::judge(&parsed).expect("the history is judged");
        assert!(judged.damaged(), "A's write with token 2 after B's 3 is a zombie write:\n{text}");
        let tally = &judged.trace.summary.counts().tally;
        assert_eq!((tally.zombie_writes, tally.stale_overwrites), (1, 1), "{text}");

        let fenced = convert(WATCH, STORE_FENCED, &options(true, expired)).expect("the fixture converts");
        let judged = super::super::judge(&fenced).expect("the fenced history is judged");
        assert!(!judged.damaged(), "{}", fenced.to_jsonl());
        assert_eq!(judged.trace.summary.counts().tally.rejected_writes, 1);
    }

    #[test]
    fn without_expired_the_holders_delete_reads_as_its_release() {
        let history = convert(WATCH, "", &options(false, Vec::new())).expect("converts");
        let releases = history.records.iter().filter(|line| matches!(line.entry, Entry::Release { .. })).count();
        assert_eq!(releases, 2);
        let wrong = convert(WATCH, "", &options(false, vec!["fixlock/nothing".to_string()])).expect_err("an unknown key");
        assert!(wrong.to_string().contains("--expired names \"fixlock/nothing\", but the watch never shows it"), "{wrong}");
    }

    #[test]
    fn a_grant_outliving_its_ttl_lasts_until_its_key_is_deleted() {
        let put = |t: &str, key: &str, revision: u64| {
            format!("{t} {{\"Events\":[{{\"kv\":{{\"key\":\"{key}\",\"create_revision\":{revision},\"mod_revision\":{revision},\"version\":1}}}}]}}\n")
        };
        // "l/a" is bC9h: held 5 s under a 2 s TTL (kept alive), then released.
        let watch = put("100.000000", "bC9h", 7) + "105.000000 {\"Events\":[{\"type\":1,\"kv\":{\"key\":\"bC9h\",\"mod_revision\":8}}]}\n";
        let history = convert(&watch, "", &options(false, Vec::new())).expect("converts");
        let entries: Vec<Entry> = history.records.iter().map(|line| line.entry).collect();
        assert_eq!(
            entries,
            vec![
                Entry::Grant { holder: Actor::Worker(0), token: Some(7), lease_start_us: 0, lease_end_us: 5_000_000 },
                Entry::Release { worker: Actor::Worker(0), at_us: 5_000_000, how: ReleaseHow::IfMine },
            ]
        );
    }

    #[test]
    fn hostile_watch_logs_get_notices_naming_line_and_field() {
        let line = WATCH.lines().next().expect("a line");
        let (time, json) = line.split_once(' ').expect("timed");
        let cases: Vec<(String, &str)> = vec![
            (json.to_string(), "etcd watch line 1 has no time: etcdctl's watch prints none"),
            (format!("{time} {}", &json[..json.len() / 2]), "etcd watch line 1 is cut short"),
            (format!("{time} [1,2]"), "etcd watch line 1 is not a JSON object"),
            (format!("{time} {{\"a\":1}}"), "has neither \"Header\" nor \"Events\""),
            (format!("{time} {}", json.replace("\"key\":\"", "\"key\":\"!!")), "etcd watch line 1, event 1, field \"kv.key\": \"!!"),
            (format!("{time} {}", json.replace("\"version\":1", "\"version\":\"one\"")), "field \"kv.version\""),
            (format!("{time} {}", json.replace("\"kv\":{", "\"type\":7,\"kv\":{")), "field \"type\": expected 0 (PUT, or absent) or 1"),
            (format!("1733400000 {json}"), "is not a time in Unix seconds with six decimals"),
            (format!("{time} {}", json.replace("\"Canceled\":false", "\"Canceled\":true")), "the watch was cancelled"),
            (format!("{time} {}", "[".repeat(200)), "is not one JSON watch response: recursion limit exceeded"),
            (format!("{time} {}", "x".repeat(WATCH_LINE_BYTES_MAX)), "over the 65536-byte limit for one watch response"),
            ("x".repeat(HISTORY_BYTES_MAX + 1), "over the 1048576-byte limit"),
        ];
        for (watch, expected) in cases {
            let notice = problems(&watch);
            assert!(notice.contains(expected), "expected {expected:?} in\n{notice}");
        }
        // Lines out of arrival order, and a duplicated DELETE.
        let lines: Vec<&str> = WATCH.lines().collect();
        let swapped = [lines[1], lines[0]].join("\n");
        assert!(problems(&swapped).contains("etcd watch line 2 arrived at"), "{}", problems(&swapped));
        let twice = [lines[0], lines[1], lines[2], lines[2]].join("\n");
        assert!(problems(&twice).contains("etcd watch line 4: the key"), "{}", problems(&twice));
        assert!(problems(&twice).contains("already showed it deleted"), "{}", problems(&twice));
        // A DELETE whose PUT the watch never showed.
        assert!(problems(lines[2]).contains("never showed it created"), "{}", problems(lines[2]));
        // Two locks' keys in one watch: "l/a" and "m/b".
        let put = |key: &str, revision: u64| {
            format!(
                "1733400000.00000{revision} {{\"Events\":[{{\"kv\":{{\"key\":\"{key}\",\"create_revision\":{revision},\"version\":1}}}}]}}"
            )
        };
        let two = [put("bC9h", 2), put("bS9i", 3)].join("\n");
        assert!(problems(&two).contains("etcd watch line 2: the key \"m/b\" is not under \"l/\""), "{}", problems(&two));
        assert!(convert(WATCH, "", &Options { ttl_ms: 0, ..options(false, Vec::new()) }).is_err());
    }

    #[test]
    fn over_ten_thousand_events_are_refused_by_the_stated_limit() {
        // 10,001 DELETE events of one key, 1,000 to a line: under both byte limits.
        let event = r#"{"type":1,"kv":{"key":"bC9h","mod_revision":2}}"#;
        let mut watch = String::new();
        for index in 0..11 {
            let count = if index < 10 { 1_000 } else { 1 };
            let events = vec![event; count].join(",");
            watch.push_str(&format!("1733400000.{index:06} {{\"Events\":[{events}]}}\n"));
        }
        assert!(watch.len() < HISTORY_BYTES_MAX);
        let notice = problems(&watch);
        assert!(notice.contains("over 10000 events by line 11, over the limit of 10000 records"), "{notice}");
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        // A fixed-seed walk over mutations of the fixture: each is refused or converted, never a panic.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let bytes = WATCH.as_bytes();
        for _ in 0..500 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut mutated = bytes.to_vec();
            let at = (state as usize) % mutated.len();
            mutated[at] = (state >> 32) as u8;
            mutated.truncate(at + ((state >> 40) as usize % (mutated.len() - at + 1)));
            let text = String::from_utf8_lossy(&mutated);
            let _ = convert(&text, STORE, &options(false, Vec::new()));
        }
    }
}
