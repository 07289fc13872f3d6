//! `fencing-lab check` and `convert`, as an engineer with an incident uses
//! them: the examples' exit statuses, the JSON, a bad file's notice, and the
//! committed MONITOR and etcd watch samples converted and judged.

use std::process::{Command, Output};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/histories/");

fn fencing_lab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fencing-lab")).args(args).output().expect("the binary runs")
}

fn example(name: &str) -> String {
    format!("{EXAMPLES}{name}")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_zombie_write_exits_1_and_its_fenced_twin_0() {
    let damaged = fencing_lab(&["check", &example("zombie-write.jsonl")]);
    assert_eq!(damaged.status.code(), Some(1), "{}", text(&damaged.stderr));
    let out = text(&damaged.stdout);
    assert!(out.contains("A's stale write (token 33) overwrote B's newer data (token 34)"), "{out}");
    assert!(out.contains("first damaging write: line 7, at 15.000 s"), "{out}");
    assert!(out.contains("A froze in a stop-the-world pause"), "the timeline is printed: {out}");
    let fenced = fencing_lab(&["check", &example("zombie-write-fenced.jsonl")]);
    assert_eq!(fenced.status.code(), Some(0), "{}", text(&fenced.stderr));
    assert!(text(&fenced.stdout).contains("first damaging write: none"));
}

#[test]
fn json_is_the_trace_as_run_prints_it() {
    let output = fencing_lab(&["check", "--json", &example("zombie-write.jsonl")]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&text(&output.stdout)).expect("one JSON object");
    assert_eq!(json["summary"]["zombie_writes"], 1);
    assert_eq!(json["summary"]["stale_overwrites"], 1);
    assert_eq!(json["summary"]["tone"], "damaged");
    assert_eq!(json["scenario"]["preset"], "history");
    assert!(json["events"].as_array().is_some_and(|events| events.iter().all(|event| event["text"].is_string())));
}

#[test]
fn a_bad_file_exits_2_naming_its_line() {
    let path = std::env::temp_dir().join(format!("fencing-lab-history-{}.jsonl", std::process::id()));
    std::fs::write(
        &path,
        "{\"kind\":\"history\",\"version\":1,\"fencing\":\"on\",\"source\":\"t\"}\n{\"kind\":\"grant\",\"holder\":\"A\",\"tokn\":3}\n",
    )
    .expect("a temporary file");
    let output = fencing_lab(&["check", path.to_str().expect("a UTF-8 path")]);
    std::fs::remove_file(&path).ok();
    assert_eq!(output.status.code(), Some(2));
    let notice = text(&output.stderr);
    assert!(notice.contains("line 2: a grant has no field \"tokn\""), "{notice}");
    let missing = fencing_lab(&["check", "/nonexistent/history.jsonl"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("cannot read /nonexistent/history.jsonl"));
}

#[test]
fn the_monitor_sample_converts_to_a_history_that_check_judges_damaged() {
    let output = fencing_lab(&[
        "convert",
        "--redis-monitor",
        &example("redis-monitor.txt"),
        "--store-log",
        &example("store.log"),
        "--fencing",
        "off",
        "--source",
        "hand-written sample",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let history = text(&output.stdout);
    let lines: Vec<&str> = history.lines().collect();
    assert!(lines[0].starts_with(r#"{"kind":"history""#) && lines[0].contains(r#""time_zero_unix_us":1733400000000100"#), "{history}");
    // A's SET, B's SET at 10.872 s once A's lease ran out (B's earlier SETs
    // found it held), B's write, B's scripted release, A's write: A's own
    // release at 15.001 s found the lock B's and deleted nothing.
    let kinds: Vec<String> = lines[1..]
        .iter()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).expect("a record")["kind"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(kinds, ["grant", "grant", "write", "release", "write"]);
    assert!(lines[2].contains(r#""holder":"B""#) && lines[2].contains(r#""lease_start_us":10871900"#), "{}", lines[2]);
    let path = std::env::temp_dir().join(format!("fencing-lab-converted-{}.jsonl", std::process::id()));
    std::fs::write(&path, &history).expect("a temporary file");
    let checked = fencing_lab(&["check", path.to_str().expect("a UTF-8 path")]);
    std::fs::remove_file(&path).ok();
    assert_eq!(checked.status.code(), Some(1), "{}", text(&checked.stderr));
    assert!(text(&checked.stdout).contains("A's stale write (token 33) overwrote B's newer data (token 34)"));
}

#[test]
fn the_etcd_watch_sample_converts_to_histories_that_check_judges_as_its_stores_decided() {
    // examples/histories/etcd-watch.sh recorded it from a real etcd 3.4: A's key was the first.
    let expired = "fixlock/72e3a24bbe8f4106";
    for (store_log, fencing, status) in [("etcd-store.log", "off", 1), ("etcd-store.fenced.log", "on", 0)] {
        let output = fencing_lab(&[
            "convert",
            "--etcd-watch",
            &example("etcd-watch.log"),
            "--ttl-ms",
            "2000",
            "--expired",
            expired,
            "--store-log",
            &example(store_log),
            "--fencing",
            fencing,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let history = text(&output.stdout);
        let kinds: Vec<String> = history
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).expect("a record")["kind"].as_str().unwrap_or("").to_string())
            .collect();
        // A's grant (its lease ran out: no release), B's at A's DELETE, B's write and release, A's write.
        assert_eq!(kinds, ["history", "grant", "grant", "write", "release", "write"], "{history}");
        let path = std::env::temp_dir().join(format!("fencing-lab-etcd-{fencing}-{}.jsonl", std::process::id()));
        std::fs::write(&path, &history).expect("a temporary file");
        let checked = fencing_lab(&["check", path.to_str().expect("a UTF-8 path")]);
        std::fs::remove_file(&path).ok();
        assert_eq!(checked.status.code(), Some(status), "{}{}", text(&checked.stdout), text(&checked.stderr));
    }
    let neither = fencing_lab(&["convert", "--store-log", &example("etcd-store.log"), "--fencing", "off"]);
    assert_eq!(neither.status.code(), Some(2));
    let no_ttl = fencing_lab(&[
        "convert",
        "--etcd-watch",
        &example("etcd-watch.log"),
        "--store-log",
        &example("etcd-store.log"),
        "--fencing",
        "off",
    ]);
    assert!(text(&no_ttl.stderr).contains("--ttl-ms"), "{}", text(&no_ttl.stderr));
}

#[test]
fn a_bad_monitor_line_is_named() {
    let path = std::env::temp_dir().join(format!("fencing-lab-monitor-{}.txt", std::process::id()));
    std::fs::write(&path, "1733400000.000200 [0 127.0.0.1:52000] \"SET\" \"lock\" \"A:33\" \"NX\"\n").expect("a temporary file");
    let output = fencing_lab(&[
        "convert",
        "--redis-monitor",
        path.to_str().expect("a UTF-8 path"),
        "--store-log",
        &example("store.log"),
        "--fencing",
        "off",
    ]);
    std::fs::remove_file(&path).ok();
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("MONITOR line 1: a SET of the lock with no PX or EX"), "{}", text(&output.stderr));
}

#[test]
fn an_oversized_or_non_utf8_file_is_refused_before_it_is_judged() {
    let dir = std::env::temp_dir();
    let big = dir.join(format!("fencing-lab-big-{}.jsonl", std::process::id()));
    std::fs::write(&big, vec![b' '; 1024 * 1024 + 1]).expect("a temporary file");
    let output = fencing_lab(&["check", big.to_str().expect("a UTF-8 path")]);
    std::fs::remove_file(&big).ok();
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("is over 1048576 bytes, the limit for a history"), "{}", text(&output.stderr));
    let latin1 = dir.join(format!("fencing-lab-latin1-{}.jsonl", std::process::id()));
    std::fs::write(&latin1, b"{\"kind\":\"history\",\"version\":1,\"fencing\":\"on\",\"source\":\"caf\xe9\"}\n").expect("a temporary file");
    let output = fencing_lab(&["check", latin1.to_str().expect("a UTF-8 path")]);
    std::fs::remove_file(&latin1).ok();
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("line 1 is not UTF-8 text (byte 59 of the file)"), "{}", text(&output.stderr));
}
