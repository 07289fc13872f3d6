//! The command line, as an engineer uses it.

use std::process::{Command, Output};

fn fencing_lab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fencing-lab")).args(args).output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn json_carries_the_summary_fields_exactly_as_named() {
    let output = fencing_lab(&["run", "--preset", "gc-pause", "--fencing", "off", "--json"]);
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let summary = &json["summary"];
    assert_eq!(summary["zombie_writes"], 1);
    assert_eq!(summary["stale_overwrites"], 1);
    assert_eq!(summary["rejected_writes"], 0);
    assert_eq!(summary["accepted_writes"], 2);
    assert_eq!(summary["final_store"], serde_json::json!({ "writer": "A", "token": 33 }));
    assert_eq!(summary["mutual_exclusion_violations"], 1);
    assert_eq!(summary["lock_lost_by_successor_release"], 0);
    assert!(json["events"].as_array().unwrap().len() > 10);
    assert_eq!(json["scenario"]["preset"], "gc-pause");
}

#[test]
fn overrides_change_the_run() {
    let output = fencing_lab(&["run", "--preset", "lease-x4", "--pause-ms", "45000", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["summary"]["stale_overwrites"], 1);
    let output = fencing_lab(&["run", "--fencing", "on"]);
    assert!(stdout(&output).contains("Store rejected A's write: token 33 < 34 already accepted"));
}

#[test]
fn a_scenario_file_replays() {
    let path = std::env::temp_dir().join(format!("fencing-lab-cli-{}.json", std::process::id()));
    std::fs::write(&path, r#"{"preset": "file", "ttl_ms": 40000}"#).unwrap();
    let output = fencing_lab(&["run", "--scenario", path.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&path).ok();
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["scenario"]["ttl_ms"], 40000);
    assert_eq!(json["summary"]["zombie_writes"], 0);
    // Fields the file leaves out keep the chosen preset's values.
    let path = std::env::temp_dir().join(format!("fencing-lab-cli-overlay-{}.json", std::process::id()));
    std::fs::write(&path, r#"{"fencing": true}"#).unwrap();
    let output = fencing_lab(&["run", "--preset", "naive-del", "--scenario", path.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&path).ok();
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!((json["scenario"]["workers"].clone(), json["scenario"]["fencing"].clone()), (3.into(), true.into()));
}

#[test]
fn bad_arguments_exit_non_zero_with_a_message() {
    for args in [
        &["run", "--preset", "nope"][..],
        &["run", "--ttl-ms", "0"],
        &["run", "--fencing", "maybe"],
        &["run", "--scenario", "/nonexistent.json"],
        &["sweep", "--param", "colour", "--from", "1", "--to", "2", "--step", "1"],
        &["sweep", "--param", "ttl-ms", "--from", "5", "--to", "1", "--step", "1"],
    ] {
        let output = fencing_lab(args);
        assert!(!output.status.success(), "{args:?} should fail");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.trim().is_empty() && !stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn presets_and_sweeps_print_tables() {
    let presets = stdout(&fencing_lab(&["presets"]));
    assert!(presets.contains("gc-pause") && presets.contains("no-lock-version"));
    let sweep = stdout(&fencing_lab(&[
        "sweep", "--preset", "lease-x4", "--param", "pause-ms", "--from", "15000", "--to", "45000", "--step", "30000", "--seeds", "3",
    ]));
    let lines: Vec<&str> = sweep.lines().collect();
    assert_eq!(lines.len(), 3, "{sweep}");
    assert!(lines[1].split_whitespace().eq(["15000", "3", "0", "0", "0", "0"]), "{}", lines[1]);
    assert!(lines[2].split_whitespace().eq(["45000", "3", "3", "3", "0", "3"]), "{}", lines[2]);
}

/// Runs the command line expecting a refusal: a non-zero exit, no panic, and
/// a message on stderr that names the problem.
fn refused(args: &[&str], names: &str) {
    let output = fencing_lab(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{args:?} should be refused");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(stderr.contains(names), "{args:?}: the message should name {names:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?} printed a result anyway");
}

#[test]
fn a_huge_sweep_is_refused_before_it_allocates() {
    let sweep = |from, to, step, seeds| ["sweep", "--param", "pause-ms", "--from", from, "--to", to, "--step", step, "--seeds", seeds];
    let refuse = |args: [&str; 11], names: &str| refused(&args, names);
    // Once collected the whole range first: 2^64 values.
    refuse(sweep("0", "18446744073709551615", "1", "20"), "18446744073709551615 is not in 0..=3600000");
    // Each bound within range, the product not: counted before collecting.
    refuse(sweep("0", "3600000", "1", "20"), "at most 100000 runs");
    refuse(sweep("0", "100", "0", "20"), "0 is not in 1..=3600000");
    refuse(sweep("0", "100", "1", "0"), "0 is not in 1..=100000");
    refuse(sweep("0", "100", "1", "4294967295"), "4294967295 is not in 1..=100000");
    refuse(sweep("5", "1", "1", "20"), "--from ≤ --to");
    // The largest sweep allowed runs (100 values × 1 seed here, quickly).
    let output = fencing_lab(&sweep("0", "99", "1", "1"));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(stdout(&output).lines().count(), 101);
}

#[test]
fn run_overrides_are_bounded_by_clap() {
    refused(&["run", "--ttl-ms", "18446744073709551615"], "is not in 1..=3600000");
    refused(&["run", "--pause-ms", "3600001"], "is not in 0..=3600000");
    refused(&["sweep", "--param", "colour", "--from", "1", "--to", "2", "--step", "1"], "choose ttl-ms, pause-ms or work-ms");
}

#[test]
fn an_oversized_scenario_file_is_refused_unread() {
    let path = std::env::temp_dir().join(format!("fencing-lab-cli-huge-{}.json", std::process::id()));
    // Valid JSON all the way: only its size is wrong.
    std::fs::write(&path, format!("{{\"preset\": \"{}\"}}", "x".repeat(2 * 1024 * 1024))).unwrap();
    let path_text = path.to_str().unwrap().to_string();
    let output = fencing_lab(&["run", "--scenario", &path_text]);
    std::fs::remove_file(&path).ok();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("is over 1048576 bytes"), "{stderr}");
}

#[test]
fn live_checks_its_arguments_before_it_connects() {
    // Port 9 (discard) on loopback: were the arguments accepted, the run
    // would fail to connect instead.
    let redis = ["--redis", "redis://127.0.0.1:9/"];
    refused(&[&["live", "--ttl-ms", "0"][..], &redis].concat(), "0 is not in 1..=20000");
    refused(&[&["live", "--pause-ms", "20001"][..], &redis].concat(), "20001 is not in 1..=20000");
    refused(&[&["live", "--story", "split-brain"][..], &redis].concat(), "possible values: gc-pause, token-inversion");
    refused(&["live-worker", "--name", "C"], "possible values: A, B");
    // With good arguments and no server, a clear message and exit 2.
    let output = fencing_lab(&[&["live", "--story", "token-inversion"][..], &redis].concat());
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot connect to Redis at redis://127.0.0.1:9/"));
}

/// A file's "preset" chooses its base values (it is never only a label
/// beside another preset's), and a `--preset` that disagrees is refused.
#[test]
fn a_scenario_files_preset_chooses_its_base_or_is_refused() {
    let path = std::env::temp_dir().join(format!("fencing-lab-preset-{}.json", std::process::id()));
    std::fs::write(&path, r#"{"preset":"consensus-gc-pause","fencing":true}"#).unwrap();
    let file = path.to_str().unwrap();
    let explored = fencing_lab(&["explore", "--property", "no-stale-overwrite", "--scenario", file, "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&explored)).expect("JSON");
    assert_eq!(json["found"], "none", "the consensus design, not the default single Redis: {json}");
    assert!(json["bounds"]["kinds"].as_array().is_some_and(|kinds| !kinds.is_empty()), "the bounds are data: {json}");
    let clash = fencing_lab(&["explore", "--property", "no-stale-overwrite", "--preset", "gc-pause", "--scenario", file]);
    let _ = std::fs::remove_file(&path);
    assert!(!clash.status.success());
    assert!(String::from_utf8_lossy(&clash.stderr).contains("contradicts the scenario file's \"preset\""), "{clash:?}");
}

/// A Redlock release goes to every master: its last word never says
/// "nothing deleted" after masters did delete the key.
#[test]
fn a_redlock_release_does_not_say_nothing_was_deleted() {
    let run = stdout(&fencing_lab(&["run", "--preset", "redlock-clock-jump"]));
    assert!(run.contains("L1 sent 1 (deleted) to A"), "a master deletes A's key");
    assert!(!run.contains("nothing deleted"), "{run}");
    assert!(run.contains("its release went to every master"));
}

#[test]
fn a_fleet_prints_its_rates_and_refuses_an_unknown_shape() {
    let output = fencing_lab(&["fleet", "--workers", "4", "--span-ms", "600000", "--pauses", "throttled_container", "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert!(json["jobs"].as_u64().unwrap() > 1_000);
    assert!(json["zombie_rate"]["high"].as_f64().unwrap() > 0.0, "an interval even with no zombie seen");
    assert_eq!(json["timeline"].as_array().unwrap().len(), 48);
    let table = fencing_lab(&["fleet", "--workers", "4", "--span-ms", "60000", "--trade", "10000,40000"]);
    assert!(stdout(&table).contains("crash wait") && stdout(&table).contains("40.260 s"), "{}", stdout(&table));
    let unknown = fencing_lab(&["fleet", "--pauses", "meteor"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("ignored pauses=meteor: expected jvm_full_gc"), "{unknown:?}");
}

#[test]
fn a_fleet_link_from_the_page_prints_the_page_figures() {
    // The same fleet twice: once by options, once by the page's link.
    let by_options = stdout(&fencing_lab(&["fleet", "--span-ms", "3600000", "--ttl-ms", "40000", "--json"]));
    let by_link = stdout(&fencing_lab(&["fleet", "--link", "?view=fleet&seed=1&span_ms=3600000&ttl_ms=40000", "--json"]));
    assert_eq!(by_options, by_link);
    let human = stdout(&fencing_lab(&["fleet", "--span-ms", "3600000", "--ttl-ms", "40000"]));
    assert!(human.contains("on the page: ?view=fleet&seed=1&span_ms=3600000&ttl_ms=40000"), "{human}");
}

#[test]
fn a_lease_sweep_over_a_distribution_is_a_fleet_per_lease() {
    let output = fencing_lab(&[
        "sweep",
        "--param",
        "ttl-ms",
        "--from",
        "10000",
        "--to",
        "40000",
        "--step",
        "30000",
        "--pauses",
        "vm_migration",
        "--json",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let ttls: Vec<u64> = rows.as_array().unwrap().iter().map(|row| row["ttl_ms"].as_u64().unwrap()).collect();
    assert_eq!(ttls, [10_000, 40_000, 10_000], "each lease, then fencing at the shortest");
    let wrong = fencing_lab(&["sweep", "--param", "pause-ms", "--from", "0", "--to", "1", "--step", "1", "--pauses", "vm_migration"]);
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("--param ttl-ms"));
}

#[test]
fn link_prints_a_link_with_its_runs_fingerprint_and_checks_one() {
    let output = fencing_lab(&["link", "https://lab.example/?preset=gc-pause&fencing=on"]);
    assert_eq!(output.status.code(), Some(1), "a link without a fingerprint is not checked yet");
    let fresh = stdout(&output).trim().to_string();
    assert!(fresh.starts_with("?preset=gc-pause&fencing=on&fp="), "{fresh}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("carried no fingerprint"));
    let output = fencing_lab(&["link", &fresh]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(stdout(&output).trim(), fresh);
    // A's refused job is retried, so the fenced run accepts two writes (issue 41, finding 5).
    let stale = fresh.replace("_0.0.1.2_", "_1.1.0.2_");
    let output = fencing_lab(&["link", &stale]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("its author saw 1 zombie write; this run has 0"));
}

/// The page's "Under the same shape with every pause capped" trade, on the
/// command line (issue 41): `--trade page --bounded on` runs the page's
/// leases doubled past the shape's cited cap, its rows the model's own
/// (`fleet::bounded_trade`), and says the sentence the page says.
#[test]
fn the_bounded_trade_is_the_pages() {
    let args = ["fleet", "--workers", "4", "--span-ms", "3600000", "--trade", "page", "--bounded", "on"];
    let output = fencing_lab(&[&args[..], &["--json"]].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (fleet_link, notices) = fencing_sim::permalink::fleet::parse("workers=4&span_ms=3600000");
    assert!(notices.is_empty(), "{notices:?}");
    let (rows, bound) = fencing_sim::fleet::bounded_trade(&fleet_link.scenario()).unwrap().expect("the default shape is bounded");
    // The same rows to the last bit (compared as printed: a float read
    // back from JSON may differ in its last place).
    assert_eq!(stdout(&output).trim_end(), serde_json::to_string(&rows).unwrap());
    let leases: Vec<u64> = rows.iter().map(|row| row.ttl_ms).collect();
    assert_eq!(leases, [10_000, 20_000, 40_000, 80_000, 160_000, 320_000], "doubled past the 4 minute cap");
    let human = stdout(&fencing_lab(&args));
    assert!(human.starts_with(&format!("every pause capped at {} ({})", bound.words, bound.source)), "{human}");
    let sentence = fencing_sim::fleet::bounded(&rows, bound).expect("a sentence");
    assert!(human.trim_end().ends_with(&sentence), "{human}");
    // Off is the shape as it is: the same rows as no flag at all.
    let off = fencing_lab(&["fleet", "--workers", "4", "--span-ms", "60000", "--trade", "10000", "--bounded", "off"]);
    let plain = fencing_lab(&["fleet", "--workers", "4", "--span-ms", "60000", "--trade", "10000"]);
    assert!(off.status.success());
    assert_eq!(stdout(&off), stdout(&plain));
}
