//! A history: what a real incident left behind (a lock service's log, a
//! store's log, measured pauses), written as the typed facts the model
//! records, so that the same observer judges it and the same verdict names
//! its first damaging write. `docs/histories.md` is the format's page; the
//! field table there and `KINDS` here are checked against each other
//! (`sim/tests/history_format.rs`).
//!
//! The format is JSON Lines: a header line, then one record per line in
//! time order. Lines, because incident logs are lines: a converter writes
//! one record per log line, a truncated capture loses only its last line,
//! and every notice can name the line it is about.
//!
//! `parse` reads a file into a `History` (or says what is wrong with it,
//! line and field named); `judge` turns it into the engine's `Record`
//! (`judge.rs`); `export` writes a model's trace as a history
//! (`export.rs`); `monitor` converts `redis-cli MONITOR` output and a
//! store's log into one (`monitor.rs`); `Recorder` writes what a reality
//! check saw a real server do as one, and `compare` holds a fresh real run
//! to its committed recording (`recording.rs`); `etcd_watch` converts
//! `etcdctl watch -w json` output and a store's log into one
//! (`etcd_watch.rs`); `schema` writes `KINDS`
//! as the JSON Schema of one line, `docs/history.schema.json`
//! (`schema.rs`).

pub mod etcd_watch;
mod export;
mod judge;
pub mod monitor;
mod recording;
mod schema;

pub use export::export;
pub use judge::{judge, Judged};
pub use recording::{
    compare, compare_as, model_link, Comparison, Disagreement, Recorder, Sides, GRANTS_FACT, MODEL_AND_REAL, RECORDED_AND_FRESH,
};
pub use schema::{schema, schema_text, SCHEMA_PATH};

use crate::actor::Actor;
use serde_json::{Map, Value};
use std::fmt;

/// The largest history read, as for a scenario file: about ten thousand
/// records of a hundred bytes.
pub const HISTORY_BYTES_MAX: usize = 1024 * 1024;
/// The most records after the header: each becomes at most four events,
/// well under a run's `EVENTS_MAX`.
pub const RECORDS_MAX: usize = 10_000;
/// The latest time a record may name: a year in µs. Far beyond any
/// incident, and far from overflowing when times are compared or added.
pub const TIME_US_MAX: u64 = 366 * 24 * 3600 * 1_000_000;
/// The longest free text (a source, a kernel, a note).
pub const TEXT_CHARS_MAX: usize = 2_000;
/// How many problems a refusal lists before it stops looking.
const PROBLEMS_MAX: usize = 10;
/// The format's version, the header's `version`.
pub const VERSION: u64 = 1;

/// What a field holds: how it is read, and how the format's page names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// Free text, at most `TEXT_CHARS_MAX` characters.
    Text,
    /// A worker's name: A–Z, then W27–W64.
    Worker,
    /// A whole number of µs since the history's zero, up to `TIME_US_MAX`.
    TimeUs,
    /// A fencing token: a whole number from 0 to 2^64 − 1.
    Token,
    /// One of the words listed in the field's description.
    Word(&'static [&'static str]),
    /// A whole number.
    Number,
}

impl FieldType {
    /// The type as the format's table writes it.
    pub fn name(self) -> &'static str {
        match self {
            FieldType::Text => "text",
            FieldType::Worker => "worker",
            FieldType::TimeUs => "µs",
            FieldType::Token => "token",
            FieldType::Word(_) => "word",
            FieldType::Number => "number",
        }
    }
}

/// One field of a record.
#[derive(Clone, Copy, Debug)]
pub struct FieldSpec {
    pub name: &'static str,
    pub of: FieldType,
    pub required: bool,
}

/// One kind of record, and the fields it takes (besides `kind`).
#[derive(Clone, Copy, Debug)]
pub struct KindSpec {
    pub kind: &'static str,
    pub fields: &'static [FieldSpec],
}

const fn field(name: &'static str, of: FieldType, required: bool) -> FieldSpec {
    FieldSpec { name, of, required }
}

const FENCING_WORDS: &[&str] = &["on", "off"];
const DECISION_WORDS: &[&str] = &["accepted", "refused"];
const RELEASE_WORDS: &[&str] = &["if_mine", "plain_del"];

/// Every kind of record and its fields: what the parser accepts, exactly.
/// `docs/histories.md` lists the same table.
pub const KINDS: &[KindSpec] = &[
    KindSpec {
        kind: "history",
        fields: &[
            field("version", FieldType::Number, true),
            field("fencing", FieldType::Word(FENCING_WORDS), true),
            field("source", FieldType::Text, true),
            field("kernel", FieldType::Text, false),
            field("date", FieldType::Text, false),
            field("notes", FieldType::Text, false),
            field("model", FieldType::Text, false),
            field("time_zero_unix_us", FieldType::Number, false),
        ],
    },
    KindSpec {
        kind: "grant",
        fields: &[
            field("holder", FieldType::Worker, true),
            field("token", FieldType::Token, false),
            field("lease_start_us", FieldType::TimeUs, true),
            field("lease_end_us", FieldType::TimeUs, true),
        ],
    },
    KindSpec {
        kind: "renewal",
        fields: &[
            field("holder", FieldType::Worker, true),
            field("at_us", FieldType::TimeUs, true),
            field("lease_end_us", FieldType::TimeUs, true),
        ],
    },
    KindSpec { kind: "expiry", fields: &[field("holder", FieldType::Worker, true), field("at_us", FieldType::TimeUs, true)] },
    KindSpec {
        kind: "release",
        fields: &[
            field("worker", FieldType::Worker, true),
            field("at_us", FieldType::TimeUs, true),
            field("how", FieldType::Word(RELEASE_WORDS), false),
        ],
    },
    KindSpec {
        kind: "pause",
        fields: &[
            field("worker", FieldType::Worker, true),
            field("from_us", FieldType::TimeUs, true),
            field("to_us", FieldType::TimeUs, true),
        ],
    },
    KindSpec {
        kind: "write",
        fields: &[
            field("writer", FieldType::Worker, true),
            field("token", FieldType::Token, false),
            field("sent_at_us", FieldType::TimeUs, true),
            field("decided_at_us", FieldType::TimeUs, true),
            field("decision", FieldType::Word(DECISION_WORDS), true),
        ],
    },
];

/// Where a history came from: the header's free text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// What recorded it: "redis-server 7.0.15 MONITOR + the orders table's audit log".
    pub source: String,
    pub kernel: Option<String>,
    pub date: Option<String>,
    pub notes: Option<String>,
    /// The link (a query string, `preset=gc-pause&seed=1&ttl_ms=1000&…`)
    /// of the model's run this history is held to: a recording's check
    /// writes it (`Recorder::held_to`). Read as text: a link that does not
    /// read back is for whoever opens it to report, not the parser.
    pub model: Option<String>,
    /// The Unix time, in µs, that the history's 0 µs stands for.
    pub time_zero_unix_us: Option<u64>,
}

/// How a worker let the lock go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReleaseHow {
    /// Compare-and-delete: only the worker's own lease is deleted.
    IfMine,
    /// A plain `DEL`: whoever's lease is there is deleted.
    PlainDel,
}

/// One record after the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The lock service granted `holder` a lease from `lease_start_us` to
    /// `lease_end_us`, with `token` (none: the service gives no token).
    Grant {
        holder: Actor,
        token: Option<u64>,
        lease_start_us: u64,
        lease_end_us: u64,
    },
    /// The holder's lease now ends at `lease_end_us`.
    Renewal {
        holder: Actor,
        at_us: u64,
        lease_end_us: u64,
    },
    /// The lock service dropped the holder's lease before its end (a key
    /// evicted, lost in a failover); a lease needs no expiry record to end
    /// at its `lease_end_us`.
    Expiry {
        holder: Actor,
        at_us: u64,
    },
    Release {
        worker: Actor,
        at_us: u64,
        how: ReleaseHow,
    },
    /// A measured stop-the-world pause of `worker`.
    Pause {
        worker: Actor,
        from_us: u64,
        to_us: u64,
    },
    /// A write sent at `sent_at_us`, and the store's decision at `decided_at_us`.
    Write {
        writer: Actor,
        token: Option<u64>,
        sent_at_us: u64,
        decided_at_us: u64,
        accepted: bool,
    },
}

impl Entry {
    /// When the record happens: records are in this order in the file.
    pub fn at_us(&self) -> u64 {
        match *self {
            Entry::Grant { lease_start_us, .. } => lease_start_us,
            Entry::Renewal { at_us, .. } | Entry::Expiry { at_us, .. } | Entry::Release { at_us, .. } => at_us,
            Entry::Pause { from_us, .. } => from_us,
            Entry::Write { sent_at_us, .. } => sent_at_us,
        }
    }

    /// The worker the record is about.
    pub fn worker(&self) -> Actor {
        match *self {
            Entry::Grant { holder, .. } | Entry::Renewal { holder, .. } | Entry::Expiry { holder, .. } => holder,
            Entry::Release { worker, .. } | Entry::Pause { worker, .. } => worker,
            Entry::Write { writer, .. } => writer,
        }
    }

    /// The record as one line of the format.
    pub fn to_line(&self) -> String {
        let mut fields = Map::new();
        let mut put = |name: &str, value: Value| {
            fields.insert(name.to_string(), value);
        };
        let (kind, token) = match *self {
            Entry::Grant { holder, token, lease_start_us, lease_end_us } => {
                put("holder", holder.to_string().into());
                put("lease_start_us", lease_start_us.into());
                put("lease_end_us", lease_end_us.into());
                ("grant", token)
            }
            Entry::Renewal { holder, at_us, lease_end_us } => {
                put("holder", holder.to_string().into());
                put("at_us", at_us.into());
                put("lease_end_us", lease_end_us.into());
                ("renewal", None)
            }
            Entry::Expiry { holder, at_us } => {
                put("holder", holder.to_string().into());
                put("at_us", at_us.into());
                ("expiry", None)
            }
            Entry::Release { worker, at_us, how } => {
                put("worker", worker.to_string().into());
                put("at_us", at_us.into());
                put("how", if how == ReleaseHow::PlainDel { "plain_del" } else { "if_mine" }.into());
                ("release", None)
            }
            Entry::Pause { worker, from_us, to_us } => {
                put("worker", worker.to_string().into());
                put("from_us", from_us.into());
                put("to_us", to_us.into());
                ("pause", None)
            }
            Entry::Write { writer, token, sent_at_us, decided_at_us, accepted } => {
                put("writer", writer.to_string().into());
                put("sent_at_us", sent_at_us.into());
                put("decided_at_us", decided_at_us.into());
                put("decision", if accepted { "accepted" } else { "refused" }.into());
                ("write", token)
            }
        };
        if let Some(token) = token {
            put("token", token.into());
        }
        line_of(kind, fields)
    }
}

/// `{"kind": …, fields…}` with `kind` first, the way people read a log
/// (a JSON map would sort it among the fields).
fn line_of(kind: &str, fields: Map<String, Value>) -> String {
    let kind = Value::from(kind);
    let fields = Value::Object(fields).to_string();
    match fields.strip_prefix('{').and_then(|inner| inner.strip_suffix('}')) {
        Some(inner) if !inner.is_empty() => format!("{{\"kind\":{kind},{inner}}}"),
        _ => format!("{{\"kind\":{kind}}}"),
    }
}

/// A record and the line it was on (1-based; the header is line 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub line: u32,
    pub entry: Entry,
}

/// A history as read: its header and its records in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    pub provenance: Provenance,
    /// Whether the store refuses a token lower than one it has accepted.
    pub fencing: bool,
    pub records: Vec<Line>,
}

impl History {
    /// The history as a file of the format: the header, then a line per record.
    pub fn to_jsonl(&self) -> String {
        let mut header = Map::new();
        header.insert("version".to_string(), VERSION.into());
        header.insert("fencing".to_string(), if self.fencing { "on" } else { "off" }.into());
        header.insert("source".to_string(), self.provenance.source.clone().into());
        let optional = [
            ("kernel", &self.provenance.kernel),
            ("date", &self.provenance.date),
            ("notes", &self.provenance.notes),
            ("model", &self.provenance.model),
        ];
        for (name, text) in optional {
            if let Some(text) = text {
                header.insert(name.to_string(), text.clone().into());
            }
        }
        if let Some(zero) = self.provenance.time_zero_unix_us {
            header.insert("time_zero_unix_us".to_string(), zero.into());
        }
        let mut text = line_of("history", header);
        text.push('\n');
        for record in &self.records {
            text.push_str(&record.entry.to_line());
            text.push('\n');
        }
        text
    }
}

/// Why a history cannot be judged: every problem found, in plain words,
/// each naming its line and field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryError {
    pub problems: Vec<String>,
}

impl HistoryError {
    pub(crate) fn one(problem: String) -> HistoryError {
        HistoryError { problems: vec![problem] }
    }
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a history this lab can judge: {}", self.problems.join("; "))
    }
}

impl std::error::Error for HistoryError {}

/// Reads a history file: at most `HISTORY_BYTES_MAX` bytes of UTF-8, a
/// header line then at most `RECORDS_MAX` records, each a JSON object on
/// one line with exactly the fields `KINDS` lists. Blank lines are skipped.
/// Whether the records agree with each other (time order, tokens, pauses)
/// is `judge`'s to check.
pub fn parse(bytes: &[u8]) -> Result<History, HistoryError> {
    if bytes.len() > HISTORY_BYTES_MAX {
        return Err(HistoryError::one(format!(
            "the file is {} bytes, over the {HISTORY_BYTES_MAX}-byte limit for a history (about {RECORDS_MAX} records): cut it to the incident's minutes",
            bytes.len()
        )));
    }
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let line = bytes[..error.valid_up_to()].iter().filter(|byte| **byte == b'\n').count() + 1;
        HistoryError::one(format!("line {line} is not UTF-8 text (byte {} of the file)", error.valid_up_to() + 1))
    })?;
    let lines: Vec<(u32, &str)> = text
        .split('\n')
        .enumerate()
        .map(|(index, line)| (index as u32 + 1, line.strip_suffix('\r').unwrap_or(line)))
        .filter(|(_, line)| !line.trim().is_empty())
        .collect();
    let Some(((header_line, header), records)) = lines.split_first() else {
        return Err(HistoryError::one("the file is empty: a history starts with its header line, {\"kind\":\"history\",…}".to_string()));
    };
    if records.len() > RECORDS_MAX {
        return Err(HistoryError::one(format!(
            "the file has {} records, over the limit of {RECORDS_MAX}: cut it to the incident's minutes",
            records.len()
        )));
    }
    let last_line = lines.last().map_or(0, |(line, _)| *line);
    let mut problems = Vec::new();
    let header = read_object(*header_line, header, last_line).and_then(|object| read_header(*header_line, &object));
    let header = header.map_err(|problem| problems.push(problem)).ok();
    let mut entries = Vec::with_capacity(records.len());
    for (line, text) in records {
        if problems.len() >= PROBLEMS_MAX {
            break;
        }
        match read_object(*line, text, last_line).and_then(|object| read_entry(*line, &object)) {
            Ok(entry) => entries.push(Line { line: *line, entry }),
            Err(problem) => problems.push(problem),
        }
    }
    match header {
        Some((provenance, fencing)) if problems.is_empty() => Ok(History { provenance, fencing, records: entries }),
        _ => Err(HistoryError { problems }),
    }
}

/// One line as a JSON object with a `kind`.
fn read_object(line: u32, text: &str, last_line: u32) -> Result<Map<String, Value>, String> {
    let value: Value = serde_json::from_str(text).map_err(|error| {
        if error.is_eof() && line == last_line {
            format!("line {line} is cut short ({error}): was the file truncated?")
        } else {
            format!("line {line} is not one JSON object: {error}")
        }
    })?;
    match value {
        Value::Object(object) => Ok(object),
        other => Err(format!("line {line} is {}, not a JSON object {{\"kind\": …}}", json_type(&other))),
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A record's fields, checked against its kind's spec as they are read.
struct Fields<'a> {
    line: u32,
    spec: &'static KindSpec,
    object: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// The fields of `object`, once its kind is known and every field it
    /// has is one that kind takes (and none it needs is missing).
    fn of(line: u32, object: &'a Map<String, Value>) -> Result<Fields<'a>, String> {
        let kinds = || KINDS.iter().map(|spec| spec.kind).collect::<Vec<_>>().join(", ");
        let kind = match object.get("kind") {
            Some(Value::String(kind)) => kind,
            Some(other) => return Err(format!("line {line}, field \"kind\": {} is not a kind; kinds: {}", json_type(other), kinds())),
            None => return Err(format!("line {line} has no \"kind\"; kinds: {}", kinds())),
        };
        let spec = KINDS
            .iter()
            .find(|spec| spec.kind == kind)
            .ok_or_else(|| format!("line {line}: unknown kind {:?}; kinds: {}", short(kind), kinds()))?;
        let names = || spec.fields.iter().map(|field| field.name).collect::<Vec<_>>().join(", ");
        if let Some(unknown) = object.keys().find(|name| *name != "kind" && !spec.fields.iter().any(|field| field.name == *name)) {
            return Err(format!("line {line}: a {kind} has no field {:?}; its fields are {}", short(unknown), names()));
        }
        if let Some(missing) = spec.fields.iter().find(|field| field.required && !object.contains_key(field.name)) {
            return Err(format!("line {line}: a {kind} needs the field \"{}\" (its fields are {})", missing.name, names()));
        }
        Ok(Fields { line, spec, object })
    }

    /// The field's spec: only fields of the kind's spec are read.
    fn spec_of(&self, name: &str) -> FieldSpec {
        *self.spec.fields.iter().find(|field| field.name == name).expect("a reader reads only its kind's fields")
    }

    fn problem(&self, name: &str, expected: &str, value: &Value) -> String {
        let found = match value {
            Value::String(text) => format!("{:?}", short(text)),
            Value::Number(number) => short(&number.to_string()).to_string(),
            other => json_type(other).to_string(),
        };
        format!("line {}, field \"{name}\": expected {expected}, found {found}", self.line)
    }

    fn number(&self, name: &str) -> Result<Option<u64>, String> {
        let spec = self.spec_of(name);
        let (expected, max) = match spec.of {
            FieldType::TimeUs => (format!("whole µs from 0 to {TIME_US_MAX}"), TIME_US_MAX),
            FieldType::Token => ("a token, a whole number from 0 to 18446744073709551615".to_string(), u64::MAX),
            _ => ("a whole number from 0 to 18446744073709551615".to_string(), u64::MAX),
        };
        match self.object.get(name) {
            None | Some(Value::Null) if !spec.required => Ok(None),
            None => Ok(None),
            Some(value) => value.as_u64().filter(|number| *number <= max).map(Some).ok_or_else(|| self.problem(name, &expected, value)),
        }
    }

    fn time(&self, name: &str) -> Result<u64, String> {
        self.number(name).map(|time| time.unwrap_or(0))
    }

    fn text(&self, name: &str) -> Result<Option<String>, String> {
        match self.object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) if text.chars().count() <= TEXT_CHARS_MAX => Ok(Some(text.clone())),
            Some(value) => Err(self.problem(name, &format!("text of at most {TEXT_CHARS_MAX} characters"), value)),
        }
    }

    fn worker(&self, name: &str) -> Result<Actor, String> {
        let expected = "a worker's name, A–Z or W27–W64";
        let value = self.object.get(name).unwrap_or(&Value::Null);
        match value {
            Value::String(text) => match text.parse::<Actor>() {
                Ok(actor) if actor.worker_index().is_some() => Ok(actor),
                _ => Err(self.problem(name, expected, value)),
            },
            other => Err(self.problem(name, expected, other)),
        }
    }

    /// The index of the field's word in its list (absent: the first word).
    fn word(&self, name: &str) -> Result<usize, String> {
        let FieldType::Word(words) = self.spec_of(name).of else { unreachable!("{name} is a word field") };
        match self.object.get(name) {
            None | Some(Value::Null) => Ok(0),
            Some(value) => value
                .as_str()
                .and_then(|word| words.iter().position(|known| *known == word))
                .ok_or_else(|| self.problem(name, &format!("one of {}", words.join(", ")), value)),
        }
    }
}

/// Text repeated back in a notice, cut short: a hostile file's 1 MB field
/// is not worth printing.
fn short(text: &str) -> &str {
    const CHARS: usize = 40;
    text.char_indices().nth(CHARS).map_or(text, |(end, _)| &text[..end])
}

fn read_header(line: u32, object: &Map<String, Value>) -> Result<(Provenance, bool), String> {
    let fields = Fields::of(line, object)?;
    if fields.spec.kind != "history" {
        return Err(format!(
            "line {line} is a {}, but a history starts with its header line, {{\"kind\":\"history\",\"version\":1,\"fencing\":\"on\",\"source\":…}}",
            fields.spec.kind
        ));
    }
    let version = fields.number("version")?.unwrap_or(0);
    if version != VERSION {
        return Err(format!("line {line}, field \"version\": this lab reads version {VERSION} histories, not {version}"));
    }
    let fencing = fields.word("fencing")? == 0;
    let provenance = Provenance {
        source: fields.text("source")?.unwrap_or_default(),
        kernel: fields.text("kernel")?,
        date: fields.text("date")?,
        notes: fields.text("notes")?,
        model: fields.text("model")?,
        time_zero_unix_us: fields.number("time_zero_unix_us")?,
    };
    Ok((provenance, fencing))
}

fn read_entry(line: u32, object: &Map<String, Value>) -> Result<Entry, String> {
    let fields = Fields::of(line, object)?;
    Ok(match fields.spec.kind {
        "grant" => Entry::Grant {
            holder: fields.worker("holder")?,
            token: fields.number("token")?,
            lease_start_us: fields.time("lease_start_us")?,
            lease_end_us: fields.time("lease_end_us")?,
        },
        "renewal" => {
            Entry::Renewal { holder: fields.worker("holder")?, at_us: fields.time("at_us")?, lease_end_us: fields.time("lease_end_us")? }
        }
        "expiry" => Entry::Expiry { holder: fields.worker("holder")?, at_us: fields.time("at_us")? },
        "release" => Entry::Release {
            worker: fields.worker("worker")?,
            at_us: fields.time("at_us")?,
            how: if fields.word("how")? == 1 { ReleaseHow::PlainDel } else { ReleaseHow::IfMine },
        },
        "pause" => Entry::Pause { worker: fields.worker("worker")?, from_us: fields.time("from_us")?, to_us: fields.time("to_us")? },
        "write" => Entry::Write {
            writer: fields.worker("writer")?,
            token: fields.number("token")?,
            sent_at_us: fields.time("sent_at_us")?,
            decided_at_us: fields.time("decided_at_us")?,
            accepted: fields.word("decision")? == 0,
        },
        "history" => return Err(format!("line {line} is a second header: a history has one, on its first line")),
        other => unreachable!("{other} is in KINDS but has no reader"),
    })
}
