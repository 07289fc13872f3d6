//! The format's JSON Schema, `docs/history.schema.json`: the committed file
//! is the one `history::schema()` generates from the parser's table
//! `KINDS`, and every line of every committed history (examples/histories,
//! recordings) is valid against it.
//!
//! To rewrite the committed file after `KINDS` changed:
//! `FENCING_LAB_WRITE_SCHEMA=1 cargo test --release -p fencing-sim --test history_schema`
//! and review `git diff docs/history.schema.json`.
//!
//! The validator here is a small one for the subset the schema uses (no
//! `jsonschema` crate in the tree); it refuses any keyword it does not know,
//! so the schema cannot grow a rule that is silently not checked.

use fencing_sim::history::{self, schema, schema_text, SCHEMA_PATH};
use serde_json::{json, Value};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let path = root().join(SCHEMA_PATH);
    let generated = schema_text();
    if std::env::var_os("FENCING_LAB_WRITE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).expect("the schema is written");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{SCHEMA_PATH} is not the schema KINDS generates (sim/src/history/schema.rs). Rewrite it with\n  \
         FENCING_LAB_WRITE_SCHEMA=1 cargo test --release -p fencing-sim --test history_schema\n\
         and review `git diff {SCHEMA_PATH}`."
    );
}

/// The keywords the validator knows; anything else in the schema is refused.
const KEYWORDS: &[&str] = &[
    "$schema",
    "title",
    "description",
    "type",
    "const",
    "enum",
    "minimum",
    "maximum",
    "maxLength",
    "properties",
    "required",
    "additionalProperties",
    "oneOf",
];

/// Whether `value` is valid against `schema`, or why not. Integers are the
/// parser's: whole numbers that fit in 64 bits (`1.0` is not one).
fn validate(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let rules = schema.as_object().ok_or_else(|| format!("{at}: the schema is not an object"))?;
    if let Some(unknown) = rules.keys().find(|key| !KEYWORDS.contains(&key.as_str())) {
        return Err(format!("{at}: the validator does not know the keyword {unknown:?}"));
    }
    if let Some(kind) = rules.get("type").and_then(Value::as_str) {
        let fits = match kind {
            "object" => value.is_object(),
            "string" => value.is_string(),
            "integer" => value.is_u64() || value.is_i64(),
            other => return Err(format!("{at}: the validator does not know the type {other:?}")),
        };
        if !fits {
            return Err(format!("{at}: {value} is not of type {kind}"));
        }
    }
    if let Some(expected) = rules.get("const") {
        if value != expected {
            return Err(format!("{at}: {value} is not {expected}"));
        }
    }
    if let Some(words) = rules.get("enum").and_then(Value::as_array) {
        if !words.contains(value) {
            return Err(format!("{at}: {value} is none of the {} allowed values", words.len()));
        }
    }
    let as_i128 = |number: &Value| number.as_u64().map(i128::from).or_else(|| number.as_i64().map(i128::from));
    if let (Some(minimum), Some(number)) = (rules.get("minimum").and_then(as_i128), as_i128(value)) {
        if number < minimum {
            return Err(format!("{at}: {number} is below {minimum}"));
        }
    }
    if let (Some(maximum), Some(number)) = (rules.get("maximum").and_then(as_i128), as_i128(value)) {
        if number > maximum {
            return Err(format!("{at}: {number} is above {maximum}"));
        }
    }
    if let (Some(chars_max), Some(text)) = (rules.get("maxLength").and_then(Value::as_u64), value.as_str()) {
        if text.chars().count() as u64 > chars_max {
            return Err(format!("{at}: a text over {chars_max} characters"));
        }
    }
    if let Some(object) = value.as_object() {
        let properties = rules.get("properties").and_then(Value::as_object);
        for name in rules.get("required").and_then(Value::as_array).into_iter().flatten() {
            let name = name.as_str().unwrap_or_default();
            if !object.contains_key(name) {
                return Err(format!("{at}: the field {name:?} is required"));
            }
        }
        for (name, field) in object {
            match properties.and_then(|properties| properties.get(name)) {
                Some(rule) => validate(rule, field, &format!("{at}.{name}"))?,
                None if rules.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{at}: the field {name:?} is not allowed"));
                }
                None => {}
            }
        }
    }
    if let Some(branches) = rules.get("oneOf").and_then(Value::as_array) {
        let results: Vec<Result<(), String>> = branches.iter().map(|branch| validate(branch, value, at)).collect();
        let valid = results.iter().filter(|result| result.is_ok()).count();
        if valid != 1 {
            let why: Vec<String> = results.into_iter().filter_map(Result::err).collect();
            return Err(format!("{at}: valid against {valid} of the oneOf's branches, not exactly one ({})", why.join("; ")));
        }
    }
    Ok(())
}

fn committed_histories() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for folder in ["examples/histories", "recordings"] {
        let entries = std::fs::read_dir(root().join(folder)).expect("the folder is committed");
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.extension().is_some_and(|extension| extension == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_line_of_every_committed_history_is_valid_against_the_schema() {
    let schema = schema();
    let files = committed_histories();
    assert!(files.len() >= 10, "the examples and the recordings: {files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a committed history is text");
        for (index, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            let value: Value = serde_json::from_str(line).unwrap_or_else(|error| panic!("{}:{}: {error}", path.display(), index + 1));
            if let Err(problem) = validate(&schema, &value, "line") {
                panic!("{}:{}: {problem}\n{line}", path.display(), index + 1);
            }
        }
        // And the parser reads it: the schema is no looser than the files it passes.
        history::parse(text.as_bytes()).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    }
}

#[test]
fn the_validator_refuses_what_the_parser_refuses() {
    let schema = schema();
    let good = json!({"kind":"grant","holder":"A","token":33,"lease_start_us":200,"lease_end_us":10000200});
    assert_eq!(validate(&schema, &good, "line"), Ok(()));
    let header = json!({"kind":"history","version":1,"fencing":"off","source":"x"});
    assert_eq!(validate(&schema, &header, "line"), Ok(()));
    let bad = [
        json!({"kind":"grant","holder":"A","tokn":33,"lease_start_us":200,"lease_end_us":1}),
        json!({"kind":"grant","holder":"A","lease_start_us":200}),
        json!({"kind":"grant","holder":"W65","lease_start_us":200,"lease_end_us":1}),
        json!({"kind":"grant","holder":"A","lease_start_us":-1,"lease_end_us":1}),
        json!({"kind":"grant","holder":"A","lease_start_us":1.5,"lease_end_us":1}),
        json!({"kind":"grant","holder":"A","lease_start_us":31_622_400_000_001_u64,"lease_end_us":1}),
        json!({"kind":"write","writer":"A","sent_at_us":1,"decided_at_us":2,"decision":"maybe"}),
        json!({"kind":"history","version":2,"fencing":"off","source":"x"}),
        json!({"kind":"history","version":1,"fencing":"off","source":"x".repeat(2_001)}),
        json!({"kind":"lease","holder":"A"}),
        json!(["kind", "grant"]),
    ];
    for value in bad {
        assert!(validate(&schema, &value, "line").is_err(), "{value}");
        let text = value.to_string();
        let file = format!("{header}\n{text}\n");
        let file = if text.contains("\"history\"") { format!("{text}\n") } else { file };
        assert!(history::parse(file.as_bytes()).is_err(), "the parser takes what the schema refuses: {text}");
    }
}
