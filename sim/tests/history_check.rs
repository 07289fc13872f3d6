//! Histories judged as runs are: a model's run written as a history and
//! checked gives the run's own counters and verdict; the examples are judged
//! as their names say; and the format's page lists exactly the fields the
//! parser takes, so the page and the code cannot drift.

use fencing_sim::history::{self, Entry, KINDS};
use fencing_sim::{presets, run, Kind, Scenario, Tone, Trace};
use std::collections::BTreeSet;

fn checked(text: &str) -> history::Judged {
    let parsed = history::parse(text.as_bytes()).unwrap_or_else(|error| panic!("{error}\n{text}"));
    history::judge(&parsed).unwrap_or_else(|error| panic!("{error}\n{text}"))
}

/// The run, its history, and the history judged.
fn round_trip(scenario: &Scenario) -> (Trace, String, history::Judged) {
    let trace = run(scenario).expect("the preset runs");
    let exported = history::export(&trace).expect("a single Redis's run is a history");
    let text = exported.to_jsonl();
    let judged = checked(&text);
    (trace, text, judged)
}

#[test]
fn the_gc_pause_as_a_history_is_judged_as_the_model_judged_it() {
    for fencing in [false, true] {
        let scenario = Scenario { fencing, ..presets::build("gc-pause").expect("gc-pause is a preset") };
        let (trace, text, judged) = round_trip(&scenario);
        let (model, history) = (&trace.summary, &judged.trace.summary);
        assert_eq!(history.counts().tally, model.counts().tally, "fencing {fencing}:\n{text}");
        assert_eq!(history.counts().work, model.counts().work, "fencing {fencing}");
        assert_eq!(
            (&history.verdict, history.tone, &history.notes, history.final_store, &history.fencing, history.lock_holder_at_end),
            (&model.verdict, model.tone, &model.notes, model.final_store, &model.fencing, model.lock_holder_at_end),
            "fencing {fencing}:\n{text}"
        );
        // Unfenced, A's write is the one damaging write; fenced, none is.
        assert_eq!(judged.damaged(), !fencing);
        assert_eq!(model.tone, if fencing { Tone::Protected } else { Tone::Damaged });
    }
}

#[test]
fn the_first_damaging_write_is_named_by_its_line() {
    let scenario = presets::build("gc-pause").expect("gc-pause is a preset");
    let (_, text, judged) = round_trip(&scenario);
    let (line, index) = judged.first_damage.expect("A's stale write damaged B's data");
    let record = text.lines().nth(line as usize - 1).expect("the line exists");
    assert!(record.contains(r#""writer":"A""#) && record.contains(r#""decision":"accepted""#), "{record}");
    assert_eq!(
        judged.trace.text(&judged.trace.events[index as usize]),
        "Store accepted A's stale write (token 33): it overwrote B's newer data"
    );
}

#[test]
fn the_examples_are_judged_as_their_names_say() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/histories/");
    let read = |name: &str| std::fs::read_to_string(format!("{root}{name}")).expect("the example is committed");
    let zombie = checked(&read("zombie-write.jsonl"));
    assert!(zombie.damaged());
    assert_eq!(zombie.trace.summary.tone, Tone::Damaged);
    assert_eq!(zombie.trace.summary.verdict, "A's stale write (token 33) overwrote B's newer data (token 34)");
    let fenced = checked(&read("zombie-write-fenced.jsonl"));
    assert!(!fenced.damaged());
    assert_eq!(fenced.trace.summary.tone, Tone::Protected);
    assert_eq!(fenced.trace.summary.verdict, "A's stale write was rejected: token 33 < 34 already accepted");
}

#[test]
fn a_history_round_trips_through_its_text() {
    let scenario = presets::build("gc-pause").expect("gc-pause is a preset");
    let exported = history::export(&run(&scenario).expect("runs")).expect("exports");
    let again = history::parse(exported.to_jsonl().as_bytes()).expect("parses");
    assert_eq!(again, exported);
    assert!(exported.records.iter().any(|record| matches!(record.entry, Entry::Pause { .. })), "the pause is measured");
}

/// The table between the `fields` markers of docs/histories.md: (kind,
/// field, type, required).
fn documented() -> BTreeSet<(String, String, String, bool)> {
    let page = include_str!("../../docs/histories.md");
    let (_, rest) = page.split_once("<!-- fields: begin -->").expect("the page marks its table's start");
    let (table, _) = rest.split_once("<!-- fields: end -->").expect("the page marks its table's end");
    table
        .lines()
        .filter(|line| line.starts_with('|') && !line.starts_with("| kind") && !line.starts_with("|---"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            assert!(cells.len() >= 6, "a row of the table has its cells: {line}");
            (cells[1].to_string(), cells[2].to_string(), cells[3].to_string(), cells[4] == "yes")
        })
        .collect()
}

#[test]
fn the_format_page_lists_exactly_the_fields_the_parser_takes() {
    let parsed: BTreeSet<(String, String, String, bool)> = KINDS
        .iter()
        .flat_map(|spec| {
            spec.fields.iter().map(|field| (spec.kind.to_string(), field.name.to_string(), field.of.name().to_string(), field.required))
        })
        .collect();
    assert_eq!(documented(), parsed);
}

/// A value of each documented type that the parser takes.
fn sample(of: &str, field: &str) -> serde_json::Value {
    match (of, field) {
        ("word", "fencing") => "on".into(),
        ("word", "decision") => "accepted".into(),
        ("word", "how") => "if_mine".into(),
        ("number", "version") => 1.into(),
        ("text" | "number" | "worker" | "µs" | "token", _) if of == "text" => "some text".into(),
        ("worker", _) => "A".into(),
        _ => 5.into(),
    }
}

#[test]
fn every_documented_field_is_taken_and_no_other() {
    let rows = documented();
    let kinds: BTreeSet<&String> = rows.iter().map(|(kind, ..)| kind).collect();
    for kind in kinds {
        let mut record = serde_json::Map::new();
        record.insert("kind".to_string(), kind.as_str().into());
        for (_, field, of, _) in rows.iter().filter(|row| &row.0 == kind) {
            record.insert(field.clone(), sample(of, field));
        }
        let header = r#"{"kind":"history","version":1,"fencing":"on","source":"test"}"#;
        let full = serde_json::Value::Object(record.clone()).to_string();
        let text = if kind == "history" { full.clone() } else { format!("{header}\n{full}") };
        history::parse(text.as_bytes()).unwrap_or_else(|error| panic!("every documented field of a {kind} is taken: {error}"));
        record.insert("undocumented".to_string(), 1.into());
        let extra = serde_json::Value::Object(record).to_string();
        let text = if kind == "history" { extra } else { format!("{header}\n{extra}") };
        let error = history::parse(text.as_bytes()).expect_err("an undocumented field is refused");
        assert!(error.to_string().contains("no field \"undocumented\""), "{error}");
    }
}

/// Presets whose runs a history cannot carry: a crash is no record, and a
/// versioned store checks no token. (Two primaries' leases, a split brain,
/// are carried: each holder's lease is the one its own primary set.)
const NOT_CARRIED: [&str; 2] = ["holder-crash", "no-lock-version"];

#[test]
fn every_preset_a_history_can_carry_is_judged_with_the_models_counters() {
    for preset in presets::PRESETS {
        let trace = run(&(preset.build)()).expect("the preset runs");
        let judged = history::export(&trace).map_err(|why| why.to_string()).and_then(|exported| {
            history::judge(&history::parse(exported.to_jsonl().as_bytes()).map_err(|error| error.to_string())?)
                .map_err(|error| error.to_string())
        });
        let judged = match judged {
            Err(why) => {
                assert!(NOT_CARRIED.contains(&preset.id), "{}: {why}", preset.id);
                continue;
            }
            Ok(judged) => judged,
        };
        assert!(!NOT_CARRIED.contains(&preset.id), "{} is carried now: take it off NOT_CARRIED", preset.id);
        let (model, history) = (&trace.summary, &judged.trace.summary);
        assert_eq!(history.counts().tally, model.counts().tally, "{}", preset.id);
        // A worker that starts its job over (`Kind::Retry`: the split
        // brain's C, told its lock is gone) leaves no record in a lock's or
        // a store's log: the work it then does again is not a history's to count.
        let started_over = trace.events.iter().any(|event| matches!(event.kind, Kind::Retry));
        if !started_over {
            assert_eq!(history.counts().work, model.counts().work, "{}", preset.id);
        }
        // The stand-in scenario is a single Redis's: a service that names
        // its tokens its own way (ZooKeeper's in hex) words the verdict otherwise.
        if trace.scenario.lock_service.token_words(33) == "33" {
            assert_eq!(history.verdict, model.verdict, "{}", preset.id);
        }
    }
}
