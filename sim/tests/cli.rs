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
    let sweep = stdout(&fencing_lab(&["sweep", "--preset", "lease-x4", "--param", "pause-ms", "--from", "15000", "--to", "45000", "--step", "30000", "--seeds", "3"]));
    let lines: Vec<&str> = sweep.lines().collect();
    assert_eq!(lines.len(), 3, "{sweep}");
    assert!(lines[1].split_whitespace().eq(["15000", "3", "0", "0", "0", "0"]), "{}", lines[1]);
    assert!(lines[2].split_whitespace().eq(["45000", "3", "3", "3", "0", "3"]), "{}", lines[2]);
}
