//! Hostile and careless input to the command line, as an attacker and a
//! hurried user type it: scenario files that would exhaust memory, sweeps
//! and searches that would run for hours, options that try to smuggle in
//! other options, links the page rejects, closed pipes and full disks.
//!
//! Every process here runs under a memory cap (`ulimit -v`, 1 GiB of
//! address space) and a time cap, so a regression fails the test instead of
//! the machine. The table of cases is docs/hostile-input.md's own ("The
//! command line"): each row is run as written and must end as the row says,
//! so the document cannot drift from the program.

use proptest::prelude::*;
use std::fs::File;
use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

/// The memory cap of every process started here, in KiB (1 GiB).
const MEMORY_CAP_KIB: u64 = 1024 * 1024;
/// The time cap of every process started here: the slowest case allowed
/// (a default fleet's day, under a loaded machine) takes a few seconds.
const TIME_CAP: Duration = Duration::from_secs(120);
/// How often a running process is looked at.
const POLL: Duration = Duration::from_millis(10);
/// The seed the link fuzz draws from: the same strings on every machine.
const SEED: u64 = 0x4c49_4e4b;

/// The folder of the suite's scenario files; rows run inside it.
fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile")
}

struct Ran {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Starts the command line under the memory cap, in the fixtures' folder.
fn start(args: &[&str], stdout: Stdio) -> Child {
    Command::new("sh")
        .arg("-c")
        // The cap is the shell's, inherited by the program it becomes.
        .arg(r#"ulimit -v "$1" && shift && exec "$@""#)
        .arg("sh")
        .arg(MEMORY_CAP_KIB.to_string())
        .arg(env!("CARGO_BIN_EXE_fencing-lab"))
        .args(args)
        .current_dir(fixtures())
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs")
}

/// Waits for `child` within the time cap (killed and failed past it),
/// reading its pipes as it runs so that it never blocks on a full one.
fn finish(mut child: Child, args: &[&str]) -> Ran {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|pipe| Box::new(pipe) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|pipe| Box::new(pipe) as Box<dyn Read + Send>));
    let polls = TIME_CAP.as_millis() / POLL.as_millis();
    for _ in 0..polls {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            let (stdout, stderr) = (stdout.join().expect("stdout read"), stderr.join().expect("stderr read"));
            return Ran { status, stdout, stderr };
        }
        std::thread::sleep(POLL);
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("{args:?} ran past the time cap of {TIME_CAP:?}");
}

fn capped(args: &[&str]) -> Ran {
    finish(start(args, Stdio::piped()), args)
}

/// No panic, no abort, no signal: the program ended of its own accord.
fn ended_cleanly(ran: &Ran, args: &[&str]) {
    assert!(ran.status.code().is_some(), "{args:?} was killed: {:?}\n{}", ran.status, ran.stderr);
    assert!(!ran.stderr.contains("panicked") && !ran.stderr.contains("memory allocation"), "{args:?}: {}", ran.stderr);
}

/// A row of the document's table: the command's words (single quotes group
/// words, as a shell's do), the status, and what its stderr says.
struct Row {
    args: Vec<String>,
    status: i32,
    says: String,
}

/// The rows of docs/hostile-input.md's "The command line" table.
fn documented_rows() -> Vec<Row> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/hostile-input.md")).expect("the document");
    let section = doc.split("\n## The command line\n").nth(1).expect("a section \"The command line\"");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut rows = Vec::new();
    for line in section.lines().filter(|line| line.starts_with("| `fencing-lab ")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [command, status, says, ..] = cells[..] else { panic!("a row has a command, a status and a message: {line}") };
        // The command is the cell's first code span; a note may follow it.
        let command = command.split('`').nth(1).and_then(|command| command.strip_prefix("fencing-lab ")).expect("a command");
        let says = says.split('`').nth(1).unwrap_or("");
        rows.push(Row { args: words(command), status: status.parse().expect("a status"), says: says.to_string() });
    }
    rows
}

/// A command's words: spaces part them, single quotes keep them whole.
fn words(command: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for character in command.chars() {
        match character {
            '\'' => (quoted, started) = (!quoted, true),
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            other => (word, started) = (word + &other.to_string(), true),
        }
    }
    if started {
        words.push(word);
    }
    words
}

#[test]
fn every_documented_case_ends_as_documented() {
    let rows = documented_rows();
    assert!(rows.len() >= 25, "the table lost rows: {}", rows.len());
    for row in rows {
        let args: Vec<&str> = row.args.iter().map(String::as_str).collect();
        let ran = capped(&args);
        ended_cleanly(&ran, &args);
        assert_eq!(ran.status.code(), Some(row.status), "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(&row.says), "{args:?} should say {:?}: {}", row.says, ran.stderr);
        if row.status == 2 {
            assert!(ran.stdout.is_empty(), "{args:?} was refused but printed {}", ran.stdout);
        }
    }
}

/// `fleet --bounded` (issue 41): a word it does not take, the switch
/// without a trade, and a shape that states no cap are each refused with
/// status 2, a message that says what to give instead, and nothing on stdout.
#[test]
fn the_bounded_trades_switch_refuses_what_it_cannot_do() {
    let cases: [(&[&str], &str); 5] = [
        (&["fleet", "--trade", "page", "--bounded", "maybe"], "invalid value 'maybe' for '--bounded"),
        (&["fleet", "--trade", "page", "--bounded", "on&workers=64"], "[possible values: on, off]"),
        (&["fleet", "--bounded", "on"], "--bounded caps the pauses of a trade's runs: give --trade too"),
        (&["fleet", "--bounded", "off"], "give --trade too"),
        (
            &["fleet", "--pauses", "custom", "--trade", "page", "--bounded", "on"],
            "custom pauses state none: choose --pauses jvm_full_gc, vm_migration or throttled_container",
        ),
    ];
    for (args, says) in cases {
        let ran = capped(args);
        ended_cleanly(&ran, args);
        assert_eq!(ran.status.code(), Some(2), "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(says), "{args:?} should say {says:?}: {}", ran.stderr);
        assert!(ran.stdout.is_empty(), "{args:?} was refused but printed {}", ran.stdout);
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // Megabytes of JSON: far more than a pipe holds, so writes meet the close.
    let args = ["run", "--scenario", "busiest.json", "--json"];
    let mut child = start(&args, Stdio::piped());
    let mut first = [0u8; 1];
    child.stdout.take().expect("stdout").read_exact(&mut first).expect("a first byte");
    // The reader goes away, as `| head -c 1` does.
    let ran = finish(child, &args);
    ended_cleanly(&ran, &args);
    assert_eq!(ran.status.code(), Some(141), "{}", ran.stderr);
    assert!(ran.stderr.is_empty(), "quietly: {}", ran.stderr);
}

#[test]
fn a_full_disk_is_said_with_status_2() {
    for args in [&["run"][..], &["presets"], &["sweep", "--param", "ttl-ms", "--from", "1000", "--to", "2000", "--step", "1000"]] {
        let full = File::options().write(true).open("/dev/full").expect("/dev/full");
        let ran = finish(start(args, Stdio::from(full)), args);
        ended_cleanly(&ran, args);
        assert_eq!(ran.status.code(), Some(2), "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains("cannot write the results: No space left on device"), "{args:?}: {}", ran.stderr);
    }
}

/// The memory bound is by construction: one story trace at a time, of at
/// most `EVENTS_MAX` events. The largest one, written whole as JSON, fits
/// in the cap with room to spare (it measured 123 MB).
#[test]
fn the_largest_trace_fits_in_the_memory_cap() {
    let args = ["run", "--scenario", "busiest.json", "--json"];
    let ran = capped(&args);
    ended_cleanly(&ran, &args);
    assert!(ran.status.success(), "{}", ran.stderr);
    let events = ran.stdout.matches("\"t_us\"").count();
    assert_eq!(events, fencing_sim::scenario::EVENTS_MAX as usize + 1, "the bound and its Truncated line");
}

/// `link` says exactly what `relink::check` (the page's readers) says, prints
/// what it would print, and exits 1 for any notice.
fn agrees_with_the_page(link: &str) -> Result<(), TestCaseError> {
    let args = ["link", "--", link];
    let ran = capped(&args);
    prop_assert!(ran.status.code().is_some() && !ran.stderr.contains("panicked"), "{link:?}: {}", ran.stderr);
    let check = fencing_sim::relink::check(link);
    prop_assert!(check.fleet.is_none(), "the suite's links run no fleet");
    let said: Vec<&str> = ran.stderr.lines().map(|line| line.strip_prefix("fencing-lab: ").unwrap_or(line)).collect();
    let expected: Vec<&str> = check.notices.iter().map(String::as_str).collect();
    prop_assert_eq!(said, expected, "{:?}", link);
    prop_assert_eq!(ran.status.code(), Some(i32::from(!check.notices.is_empty())), "{:?}", link);
    let printed = check.fresh.map(|fresh| format!("?{}\n", fresh.trim_start_matches('?'))).unwrap_or_default();
    prop_assert_eq!(ran.stdout, printed, "{:?}", link);
    Ok(())
}

/// The links the issue names, and their like: each with what the page
/// says of it.
#[test]
fn link_agrees_with_the_page_on_every_link_in_the_suite() {
    let question = fencing_sim::ask::Custom {
        scenario: fencing_sim::presets::classic(),
        ask: fencing_sim::ask::Ask::Owner,
        prompt: Some("Whose data?".to_string()),
    }
    .to_query();
    let tampered = question.replace("prompt=Whose", "prompt=Nobody");
    let (signed, sum) = question.rsplit_once("&sum=").expect("a signed question");
    let fresh = fencing_sim::relink::check("preset=gc-pause").fresh.expect("a plain link is stamped");
    let fp = fresh.rsplit_once("fp=").expect("a fingerprint").1.to_string();
    let links = [
        "set".to_string(),
        "set=".to_string(),
        "set=%%%".to_string(),
        "pres%65t=lease-x4&fp=bogus".to_string(),
        "fencing=on&fp=bogus".to_string(),
        "preset=gc-pause&colour=red".to_string(),
        "preset=gc-pause&fault=meteor".to_string(),
        "view=nowhere&preset=gc-pause".to_string(),
        "quiz=nope".to_string(),
        "view=explore&property=safety".to_string(),
        format!("preset=gc-pause&fp={fp}&fp=bogus"),
        format!("preset=gc-pause&fp={fp}"),
        question.clone(),
        tampered.clone(),
        signed.to_string(),
        format!("{question}&sum={sum}"),
        format!("set={}", fencing_sim::ask::set_to_value(&[])),
        String::new(),
        "?".to_string(),
        "&&&".to_string(),
    ];
    for link in &links {
        agrees_with_the_page(link).unwrap_or_else(|error| panic!("{error}"));
    }
    // The issue's findings, each as the page has them.
    let check = |link: &str| fencing_sim::relink::check(link);
    assert!(check(&tampered).fresh.is_none(), "a question whose checksum failed is never signed again");
    assert!(check(&tampered).notices.iter().any(|notice| notice.contains("checksum")), "{:?}", check(&tampered));
    assert_eq!(check(&question).notices, Vec::<String>::new(), "a question as made reads clean");
    assert_eq!(check(&question).fresh.as_deref(), Some(question.as_str()));
    for link in [&links[3], &links[4], &links[5], &links[10], &links[14], &links[15]] {
        assert!(!check(link).notices.is_empty(), "{link}: the page notices it");
    }
}

/// Text an attacker might paste: anything, and link-shaped pieces.
fn hostile_link() -> impl Strategy<Value = String> {
    // Link-shaped pieces, the same the model's own check is fuzzed with.
    let pieces: Vec<&str> = include_str!("../../sim/tests/support/link-pieces.txt").lines().collect();
    let piece = prop_oneof![prop::sample::select(pieces).prop_map(str::to_string), "[a-z_%=.&?0-9-]{0,12}"];
    prop_oneof![any::<String>(), prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.join("&")),]
        // An argument cannot hold a NUL byte; a fleet's link would run a fleet.
        .prop_map(|link| link.replace('\0', ""))
        .prop_filter("no fleet", |link| fencing_sim::relink::check(link).fleet.is_none())
}

proptest! {
    // Fixed seed, no persistence files: the same strings on every run (CI is deterministic).
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(SEED),
        ..ProptestConfig::default()
    })]

    #[test]
    fn link_survives_any_text_and_agrees_with_the_page(link in hostile_link()) {
        agrees_with_the_page(&link)?;
    }
}
