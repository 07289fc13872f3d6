//! The format as a JSON Schema (draft 2020-12): one line of a history, a
//! `oneOf` with one branch per kind of `KINDS`, each with its `required`
//! fields and `additionalProperties: false`. Generated from the parser's
//! own table, so the committed `docs/history.schema.json` cannot drift from
//! what `parse` reads (`sim/tests/history_schema.rs` compares them).
//!
//! The schema says what one line may hold; what the lines must say to each
//! other (time order, a write's token its grant's) is `judge`'s, and no
//! schema can say it. It uses only `type`, `const`, `enum`, `minimum`,
//! `maximum`, `maxLength`, `properties`, `required`,
//! `additionalProperties` and `oneOf`, as defined in JSON Schema 2020-12's
//! Validation and Core vocabularies (https://json-schema.org/draft/2020-12).

use super::{FieldType, KINDS, TEXT_CHARS_MAX, TIME_US_MAX, VERSION};
use crate::actor::{Actor, WORKERS_MAX};
use serde_json::{json, Map, Value};

/// Where the committed schema lives, from the repository's root.
pub const SCHEMA_PATH: &str = "docs/history.schema.json";

/// The schema of one line of a history.
pub fn schema() -> Value {
    let branches: Vec<Value> = KINDS
        .iter()
        .map(|spec| {
            let mut properties = Map::new();
            properties.insert("kind".to_string(), json!({ "const": spec.kind }));
            let mut required = vec![Value::from("kind")];
            for field in spec.fields {
                let mut of = field_schema(field.of);
                // The header's version is the one this lab reads.
                if spec.kind == "history" && field.name == "version" {
                    of = json!({ "const": VERSION });
                }
                properties.insert(field.name.to_string(), of);
                if field.required {
                    required.push(field.name.into());
                }
            }
            json!({
                "title": spec.kind,
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            })
        })
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "One line of a Fencing Lab history",
        "description": "A history is JSON Lines: a header (kind history) on the first line, then one record per line in time order. See docs/histories.md. Generated from KINDS in sim/src/history/mod.rs: do not edit by hand (FENCING_LAB_WRITE_SCHEMA=1 cargo test -p fencing-sim --test history_schema rewrites it).",
        "type": "object",
        "oneOf": branches,
    })
}

/// A field's type as the parser reads it.
fn field_schema(of: FieldType) -> Value {
    match of {
        FieldType::Text => json!({ "type": "string", "maxLength": TEXT_CHARS_MAX }),
        FieldType::Worker => {
            let names: Vec<Value> = (0..WORKERS_MAX).map(|index| Actor::Worker(index).to_string().into()).collect();
            json!({ "enum": names })
        }
        FieldType::TimeUs => json!({ "type": "integer", "minimum": 0, "maximum": TIME_US_MAX }),
        FieldType::Token | FieldType::Number => json!({ "type": "integer", "minimum": 0, "maximum": u64::MAX }),
        FieldType::Word(words) => json!({ "enum": words }),
    }
}

/// The schema as the committed file holds it: pretty-printed, with a
/// trailing newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_a_branch_with_its_required_fields() {
        let schema = schema();
        let branches = schema["oneOf"].as_array().expect("a oneOf");
        assert_eq!(branches.len(), KINDS.len());
        let grant = branches.iter().find(|branch| branch["title"] == "grant").expect("grant");
        assert_eq!(grant["required"], json!(["kind", "holder", "lease_start_us", "lease_end_us"]));
        assert_eq!(grant["additionalProperties"], json!(false));
        assert_eq!(grant["properties"]["holder"]["enum"].as_array().map(Vec::len), Some(WORKERS_MAX as usize));
    }
}
