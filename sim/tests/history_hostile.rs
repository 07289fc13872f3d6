//! Hostile histories: a file from an incident is a stranger's text. Every
//! bad file — truncated, reordered, duplicated, contradictory, oversized,
//! not UTF-8, nested deep, with numbers too large — must be refused with a
//! notice naming its problem (and its line), never a panic. The table pins
//! each known-bad file's notice; proptest then throws arbitrary bytes and
//! mutated examples at the parser and the judge, from a fixed seed.

use fencing_sim::history::{self, monitor, HISTORY_BYTES_MAX, RECORDS_MAX};
use proptest::prelude::*;

/// The seed every property here draws from: the same hostile text on
/// every machine, every run.
const SEED: u64 = 0x4157_0e1d;
/// Cases per property (a twentieth under `FENCING_LAB_QUICK`).
const CASES: u32 = 2_000;

const HEADER: &str = r#"{"kind":"history","version":1,"fencing":"on","source":"hostile test"}"#;
const GRANT_A: &str = r#"{"kind":"grant","holder":"A","token":33,"lease_start_us":0,"lease_end_us":10000000}"#;
const PAUSE_A: &str = r#"{"kind":"pause","worker":"A","from_us":1000,"to_us":15000000}"#;
const GRANT_B: &str = r#"{"kind":"grant","holder":"B","token":34,"lease_start_us":11000000,"lease_end_us":21000000}"#;
const WRITE_B: &str = r#"{"kind":"write","writer":"B","token":34,"sent_at_us":12000000,"decided_at_us":12000100,"decision":"accepted"}"#;
const WRITE_A: &str = r#"{"kind":"write","writer":"A","token":33,"sent_at_us":15000100,"decided_at_us":15000200,"decision":"refused"}"#;

/// The fenced GC pause, well formed: the base every case below spoils.
fn good() -> Vec<String> {
    [HEADER, GRANT_A, PAUSE_A, GRANT_B, WRITE_B, WRITE_A].iter().map(|line| line.to_string()).collect()
}

fn joined(lines: &[String]) -> String {
    lines.join("\n") + "\n"
}

/// Parses and judges: `Ok` with the verdict, or the refusal's words.
fn checked(bytes: &[u8]) -> Result<String, String> {
    let parsed = history::parse(bytes).map_err(|error| error.to_string())?;
    let judged = history::judge(&parsed).map_err(|error| error.to_string())?;
    Ok(judged.trace.summary.verdict)
}

/// `good()` with line `at` (1-based) replaced.
fn with_line(at: usize, line: &str) -> Vec<u8> {
    let mut lines = good();
    lines[at - 1] = line.to_string();
    joined(&lines).into_bytes()
}

/// Each known-bad file and a piece of the notice it must get.
fn cases() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let good = good();
    let text = joined(&good);
    let mut reordered = good.clone();
    reordered.swap(3, 4);
    let mut duplicated = good.clone();
    duplicated.insert(5, WRITE_B.to_string());
    let mut both_ways = good.clone();
    both_ways.push(WRITE_A.replace("refused", "accepted"));
    let deep = format!("{HEADER}\n{{\"kind\":\"grant\",\"holder\":{}{}}}\n", "[".repeat(100_000), "]".repeat(100_000));
    let mut not_utf8 = format!("{HEADER}\n").into_bytes();
    not_utf8.extend(b"{\"kind\":\"grant\",\"holder\":\"\xff\xfe\"}\n");
    let oversized = format!("{HEADER}\n{}", " ".repeat(HISTORY_BYTES_MAX));
    let many: String = std::iter::once(HEADER.to_string())
        .chain((0..=RECORDS_MAX as u64).map(|nth| format!(r#"{{"kind":"expiry","holder":"A","at_us":{nth}}}"#)))
        .collect::<Vec<_>>()
        .join("\n");
    vec![
        ("empty", Vec::new(), "the file is empty"),
        ("truncated mid-line", text.as_bytes()[..text.len() - 30].to_vec(), "line 6 is cut short"),
        (
            "a line cut in the middle",
            joined(&[HEADER.into(), GRANT_A[..40].into(), PAUSE_A.into()]).into_bytes(),
            "line 2 is not one JSON object",
        ),
        ("reordered", joined(&reordered).into_bytes(), "line 5 happens at 11.000 s, before line 4's 12.000 s"),
        ("duplicated", joined(&duplicated).into_bytes(), "line 6 repeats line 5 exactly"),
        ("accepted and refused", joined(&both_ways).into_bytes(), "lines 6 and 7 are the same write"),
        (
            "token going back on its grant",
            with_line(6, &WRITE_A.replace("\"token\":33", "\"token\":32")),
            "A writes with token 32, but its grant (line 2) gave it token 33",
        ),
        (
            "refused by a store that checks nothing",
            text.replace("\"fencing\":\"on\"", "\"fencing\":\"off\"").into_bytes(),
            "a store that checks nothing refuses nothing",
        ),
        (
            "a fencing store taking a lower token",
            with_line(6, &WRITE_A.replace("refused", "accepted")),
            "the store accepted A's token 33 after accepting 34",
        ),
        (
            "a refusal no token explains",
            with_line(5, &WRITE_B.replace("accepted", "refused")),
            "a fencing store refuses only a lower token",
        ),
        ("a write inside the writer's pause", with_line(6, &WRITE_A.replace("15000100", "14000000")), "inside its pause of line 3"),
        (
            "a write with no grant",
            with_line(2, r#"{"kind":"pause","worker":"C","from_us":0,"to_us":1}"#),
            "A writes at 15.000 s, but no grant before it gave A the lock",
        ),
        (
            "a lease ending before it starts",
            with_line(2, &GRANT_A.replace("10000000", "0")),
            "line 2: the lease ends (0.0 ms) before it starts",
        ),
        (
            "a renewal of no lease",
            format!("{HEADER}\n{GRANT_A}\n{}\n", r#"{"kind":"renewal","holder":"A","at_us":10000001,"lease_end_us":20000000}"#)
                .into_bytes(),
            "A's lease is renewed at 10.000 s, but it holds none then",
        ),
        (
            "an expiry of no lease",
            format!("{HEADER}\n{}\n", r#"{"kind":"expiry","holder":"B","at_us":5}"#).into_bytes(),
            "B's lease expires at 0.0 ms, but it holds none then",
        ),
        ("oversized", oversized.into_bytes(), "over the 1048576-byte limit"),
        ("too many records", many.into_bytes(), "records, over the limit of 10000"),
        ("not UTF-8", not_utf8, "line 2 is not UTF-8 text"),
        ("nested deep", deep.into_bytes(), "recursion limit exceeded"),
        ("a huge number", with_line(2, &GRANT_A.replace("10000000", "1e300")), "line 2, field \"lease_end_us\": expected whole µs"),
        (
            "a number past 64 bits",
            with_line(2, &GRANT_A.replace("33", "18446744073709551616")),
            "line 2, field \"token\": expected a token",
        ),
        ("a negative time", with_line(3, &PAUSE_A.replace("1000", "-1000")), "line 3, field \"from_us\""),
        (
            "a time past a year",
            with_line(2, &GRANT_A.replace("10000000", "99999999999999999")),
            "expected whole µs from 0 to 31622400000000",
        ),
        ("no header", joined(&good[1..]).into_bytes(), "line 1 is a grant, but a history starts with its header line"),
        ("a second header", with_line(3, HEADER), "line 3 is a second header"),
        ("another version", with_line(1, &HEADER.replace("\"version\":1", "\"version\":2")), "reads version 1 histories, not 2"),
        ("an unknown kind", with_line(3, r#"{"kind":"crash","worker":"A"}"#), "line 3: unknown kind \"crash\""),
        ("an unknown field", with_line(2, &GRANT_A.replace("\"token\"", "\"tokn\"")), "line 2: a grant has no field \"tokn\""),
        (
            "a missing field",
            with_line(2, r#"{"kind":"grant","holder":"A","lease_start_us":0}"#),
            "a grant needs the field \"lease_end_us\"",
        ),
        ("a lock node as a holder", with_line(2, &GRANT_A.replace("\"A\"", "\"L1\"")), "field \"holder\": expected a worker's name"),
        ("not an object", with_line(2, "[1,2,3]"), "line 2 is an array, not a JSON object"),
        (
            "a word not in the list",
            with_line(5, &WRITE_B.replace("accepted", "maybe")),
            "field \"decision\": expected one of accepted, refused",
        ),
        ("a kind that is not text", with_line(2, r#"{"kind":7}"#), "line 2, field \"kind\": a number is not a kind"),
    ]
}

#[test]
fn every_known_bad_history_is_refused_with_its_notice() {
    for (name, bytes, says) in cases() {
        match checked(&bytes) {
            Ok(verdict) => panic!("{name}: judged ({verdict}), not refused"),
            Err(notice) => assert!(notice.contains(says), "{name}: the notice does not say {says:?}:\n{notice}"),
        }
    }
}

#[test]
fn the_unspoiled_base_is_judged() {
    assert_eq!(checked(joined(&good()).as_bytes()), Ok("A's stale write was rejected: token 33 < 34 already accepted".to_string()));
    // Blank lines and Windows line ends are read as a log has them.
    let windows = joined(&good()).replace('\n', "\r\n\r\n");
    assert!(checked(windows.as_bytes()).is_ok());
}

#[test]
fn a_notice_repeats_back_a_long_value_cut_short() {
    let line = GRANT_A.replace("\"A\"", &format!("\"{}\"", "x".repeat(100_000)));
    let notice = checked(&with_line(2, &line)).expect_err("a holder of 100,000 x's is refused");
    assert!(notice.len() < 400, "{} characters", notice.len());
}

fn config() -> ProptestConfig {
    let cases = if std::env::var_os("FENCING_LAB_QUICK").is_some() { CASES.div_ceil(20) } else { CASES };
    ProptestConfig { cases, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(SEED), ..ProptestConfig::default() }
}

/// A refusal names where: a line, the file, or the records' count.
fn names_where(notice: &str) -> bool {
    notice.contains("line ") || notice.contains("the file") || notice.contains("records")
}

/// One spoiling of the base: a line dropped, swapped, repeated, or a piece
/// of it replaced with arbitrary text.
#[derive(Clone, Debug)]
enum Spoil {
    Drop(usize),
    Swap(usize, usize),
    Repeat(usize),
    Splice { line: usize, at: usize, text: String },
}

fn spoil() -> impl Strategy<Value = Spoil> {
    prop_oneof![
        (0usize..6).prop_map(Spoil::Drop),
        (0usize..6, 0usize..6).prop_map(|(a, b)| Spoil::Swap(a, b)),
        (0usize..6).prop_map(Spoil::Repeat),
        (0usize..6, 0usize..120, "[ -~]{0,12}|[0-9]{1,25}").prop_map(|(line, at, text)| Spoil::Splice { line, at, text }),
    ]
}

fn spoiled(spoils: &[Spoil]) -> String {
    let mut lines = good();
    for spoil in spoils {
        let count = lines.len().max(1);
        match spoil {
            Spoil::Drop(at) if !lines.is_empty() => _ = lines.remove(at % count),
            Spoil::Swap(a, b) if !lines.is_empty() => lines.swap(a % count, b % count),
            Spoil::Repeat(at) if !lines.is_empty() => lines.insert(at % count, lines[at % count].clone()),
            Spoil::Splice { line, at, text } if !lines.is_empty() => {
                let target = &mut lines[line % count];
                let mut cut = (*at).min(target.len());
                while !target.is_char_boundary(cut) {
                    cut -= 1;
                }
                target.replace_range(cut..(cut + text.len()).min(target.len()).max(cut), text);
            }
            _ => {}
        }
    }
    joined(&lines)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_are_refused_or_judged_never_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        if let Err(notice) = checked(&bytes) {
            prop_assert!(names_where(&notice), "{notice}");
        }
    }

    #[test]
    fn spoiled_histories_are_refused_or_judged_never_a_panic(spoils in proptest::collection::vec(spoil(), 1..5)) {
        let text = spoiled(&spoils);
        match checked(text.as_bytes()) {
            Err(notice) => prop_assert!(names_where(&notice), "{notice}\n{text}"),
            // A spoiling that still reads is judged as any history is: its
            // events in time order, with the tallies the observer keeps.
            Ok(_) => {
                let judged = history::judge(&history::parse(text.as_bytes()).expect("parsed once")).expect("judged once");
                let events = &judged.trace.events;
                prop_assert!(events.windows(2).all(|pair| pair[0].t_us <= pair[1].t_us), "{text}");
                let summary = &judged.trace.summary;
                prop_assert!(summary.zombie_writes <= summary.accepted_writes && summary.stale_overwrites <= summary.accepted_writes);
            }
        }
    }

    #[test]
    fn arbitrary_monitor_and_store_logs_convert_or_are_refused_never_a_panic(
        monitor_lines in proptest::collection::vec(monitor_line(), 0..12),
        store_lines in proptest::collection::vec("[0-9]{1,20}\\.[0-9]{6} [A-Z] [0-9-]{1,21} (accepted|refused|maybe)", 0..4),
    ) {
        let options = monitor::Options { lock_key: "lock".to_string(), fencing: false, source: "fuzz".to_string() };
        match monitor::convert(&monitor_lines.join("\n"), &store_lines.join("\n"), &options) {
            Err(error) => prop_assert!(error.problems.iter().all(|problem| problem.contains("line") || problem.contains("logs")), "{error}"),
            // What converts is a history the parser reads back as it was written.
            Ok(converted) => {
                let text = converted.to_jsonl();
                prop_assert_eq!(history::parse(text.as_bytes()).map_err(|error| error.to_string()), Ok(converted), "{}", text);
                let _ = checked(text.as_bytes());
            }
        }
    }
}

/// A MONITOR line with a time, a client and arguments drawn from the lock's
/// commands, or arbitrary text.
fn monitor_line() -> impl Strategy<Value = String> {
    let command = prop_oneof![
        Just("\"SET\" \"lock\" \"A:33\" \"NX\" \"PX\" \"10000\"".to_string()),
        Just("\"SET\" \"lock\" \"B:34\" \"NX\" \"PX\" \"10000\"".to_string()),
        Just("\"SET\" \"lock\"".to_string()),
        Just("\"PEXPIRE\" \"lock\" \"99999999999999999999\"".to_string()),
        Just("\"DEL\" \"lock\"".to_string()),
        Just("\"SET\" \"lock\" \"Z\" \"EX\" \"31622400\"".to_string()),
        "[ -~]{0,30}",
    ];
    ("[0-9]{1,20}\\.[0-9]{6}", prop_oneof![Just("127.0.0.1:1"), Just("127.0.0.1:2"), Just("lua")], command)
        .prop_map(|(time, client, command)| format!("{time} [0 {client}] {command}"))
}
