//! The whole view in a URL query string, both ways, so a link reproduces
//! exactly what a learner sees. A link is a preset plus overrides:
//! `preset=gc-pause&seed=7&fencing=on&fault=pause:A:write1:20000`.
//!
//! Links are typed, pasted and truncated by people, so parsing never fails:
//! whatever it cannot use it ignores, and says so in a plain sentence.

use crate::actor::Actor;
use crate::compare::Difference;
use crate::presets::{self, Preset};
use crate::scenario::{Fault, FaultKind, Scenario, When, FAULTS_MAX, FAULT_SPECS, TIME_MS_MAX};
use crate::sweep::Param;
use fields::FIELDS;
use std::ops::RangeInclusive;

mod fields;
pub mod fleet;
pub mod page;
pub mod story;

/// The preset a link without one (or with an unknown one) shows.
pub const DEFAULT_PRESET: &str = "gc-pause";
/// Key=value pairs read from one link; the rest are ignored, so a huge
/// pasted string costs little.
pub const PAIRS_MAX: usize = 64;
/// How much of a value a notice repeats back.
const NOTICE_VALUE_CHARS_MAX: usize = 40;

/// Everything the page shows, as a link carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permalink {
    pub scenario: Scenario,
    /// The event the learner has stepped to, by index.
    pub cursor: Option<u32>,
    /// The side-by-side comparison on show, if any.
    pub compare: Option<Difference>,
}

impl Default for Permalink {
    fn default() -> Permalink {
        Permalink { scenario: (default_preset().build)(), cursor: None, compare: None }
    }
}

/// Parses a query string (with or without the leading '?', percent-encoded
/// or not). Never panics. The notices say, for a learner, what was ignored.
pub fn parse(query: &str) -> (Permalink, Vec<String>) {
    let mut notices = Vec::new();
    let pairs = pairs(query, &mut notices);
    let preset = chosen_preset(&pairs, &mut notices);
    let mut reading = Reading::new(preset);
    for (key, value) in pairs.iter().filter(|(key, _)| key != "preset") {
        if let Err(reason) = reading.apply(key, value) {
            notices.push(format!("ignored {}: {reason}", shown(&format!("{key}={value}"))));
        }
    }
    (reading.finish(preset, &mut notices), notices)
}

/// One setting of `scenario` edited as a link would carry it (`ttl_ms`,
/// `work_ms`, `pause_ms`, `seed`…): the same reading and the same reason
/// when the value cannot be used, so a form and a link never disagree.
pub fn set_field(scenario: &Scenario, key: &str, value: &str) -> Result<Scenario, String> {
    let value = value.trim();
    if key == "pause_ms" {
        return Ok(Param::PauseMs.apply(scenario, millis(value, 0..=TIME_MS_MAX, "a pause")?));
    }
    let field = FIELDS.iter().find(|field| field.key == key).ok_or_else(|| format!("a link has no setting {}", shown(key)))?;
    (field.set)(scenario.clone(), value)
}

/// The link for a view: no leading '?'; the preset and seed always, then
/// only what differs from the preset's defaults.
pub fn to_query(link: &Permalink) -> String {
    let scenario = &link.scenario;
    let preset = presets::find(&scenario.preset).unwrap_or_else(default_preset);
    let defaults = (preset.build)();
    let mut pairs = vec![("preset", preset.id.to_string())];
    for field in FIELDS {
        let value = (field.get)(scenario);
        // The seed always goes in: it is what makes a link one exact run.
        if field.key == "seed" || value != (field.get)(&defaults) {
            pairs.push((field.key, value));
        }
    }
    pairs.extend(fault_pairs(&defaults, &scenario.faults));
    pairs.extend(link.cursor.map(|cursor| ("cursor", cursor.to_string())));
    pairs.extend(link.compare.map(|difference| ("compare", difference.id().to_string())));
    pairs.iter().map(|(key, value)| format!("{key}={value}")).collect::<Vec<_>>().join("&")
}

/// The link to share: `to_query` with the fingerprint of the run it shows
/// (`story`), so that it can tell later whether it still shows that run.
pub fn to_link(link: &Permalink) -> String {
    with_fingerprint(to_query(link), story::of_scenario(&link.scenario))
}

/// A query with `fp=` and a fingerprint added (one already worked out).
pub fn with_fingerprint(query: String, fingerprint: Option<String>) -> String {
    match fingerprint {
        Some(text) => format!("{query}&{}={text}", story::KEY),
        None => query,
    }
}

fn default_preset() -> &'static Preset {
    presets::find(DEFAULT_PRESET).expect("the default preset exists")
}

/// The decoded key=value pairs, at most `PAIRS_MAX` of them, empty ones
/// (from "&&" or a trailing '&') skipped.
fn pairs(query: &str, notices: &mut Vec<String>) -> Vec<(String, String)> {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut segments = query.split('&').filter(|segment| !segment.trim().is_empty());
    let pairs: Vec<(String, String)> = segments
        .by_ref()
        .take(PAIRS_MAX)
        .map(|segment| {
            let (key, value) = segment.split_once('=').unwrap_or((segment, ""));
            (decode(key).trim().to_string(), decode(value).trim().to_string())
        })
        .collect();
    let ignored = segments.count();
    if ignored > 0 {
        notices.push(format!(
            "ignored the last {}: a link carries at most {PAIRS_MAX}",
            crate::count_of(ignored as u64, "setting", "settings")
        ));
    }
    pairs
}

/// The last preset the link names that exists; the default otherwise.
fn chosen_preset(pairs: &[(String, String)], notices: &mut Vec<String>) -> &'static Preset {
    let mut chosen = default_preset();
    for (_, id) in pairs.iter().filter(|(key, _)| key == "preset") {
        match presets::find(id) {
            Some(preset) => chosen = preset,
            None => notices.push(format!(
                "ignored {}: there is no such preset (the presets are {})",
                shown(&format!("preset={id}")),
                choices(presets::PRESETS.iter().map(|preset| preset.id)),
            )),
        }
    }
    chosen
}

/// A link being read: the preset's scenario with the overrides so far.
/// Faults and pause lengths wait until the end, so that `pause_ms` applies
/// to the link's own faults wherever it appears.
struct Reading {
    link: Permalink,
    /// `Some` once a fault value has been understood: then they replace the preset's.
    faults: Option<Vec<Fault>>,
    fault_values_seen: usize,
    pause_ms: Option<u64>,
    /// `fp=`: the run its author saw.
    fingerprint: Option<String>,
}

impl Reading {
    fn new(preset: &Preset) -> Reading {
        let link = Permalink { scenario: (preset.build)(), cursor: None, compare: None };
        Reading { link, faults: None, fault_values_seen: 0, pause_ms: None, fingerprint: None }
    }

    /// Applies one pair; an error is the reason it was ignored.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            // A question's own keys, read by `ask`.
            "ask" | "prompt" | "sum" | "set" => {}
            // Checked against the run once the whole link is read.
            story::KEY => self.fingerprint = Some(value.to_string()),
            "fault" => self.add_fault(value)?,
            "pause_ms" => self.pause_ms = Some(millis(value, 0..=TIME_MS_MAX, "a pause")?),
            "cursor" => {
                let cursor = whole(value).and_then(|cursor| u32::try_from(cursor).ok());
                self.link.cursor = Some(cursor.ok_or(format!("the cursor is an event number from 0 to {}", u32::MAX))?);
            }
            "compare" => {
                let ids = choices(Difference::ALL.iter().map(|difference| difference.id()));
                self.link.compare = Some(Difference::parse(value).ok_or(format!("there is no such comparison (try {ids})"))?);
            }
            _ => {
                let field = FIELDS.iter().find(|field| field.key == key);
                let field = field.ok_or_else(|| format!("there is no setting called {}", shown(key)))?;
                self.link.scenario = (field.set)(self.link.scenario.clone(), value)?;
            }
        }
        Ok(())
    }

    fn add_fault(&mut self, value: &str) -> Result<(), String> {
        self.fault_values_seen += 1;
        if self.fault_values_seen > FAULTS_MAX {
            // Counted here, reported once in `finish`.
            return Ok(());
        }
        let fault = parse_fault(value)?;
        self.faults.get_or_insert_with(Vec::new).extend(fault);
        Ok(())
    }

    /// Applies the faults, checks the whole, and falls back to the plain
    /// preset (with the link's seed) if the settings do not fit together.
    fn finish(mut self, preset: &Preset, notices: &mut Vec<String>) -> Permalink {
        let ignored_faults = self.fault_values_seen.saturating_sub(FAULTS_MAX);
        if ignored_faults > 0 {
            notices.push(format!(
                "ignored the last {}: a scenario has at most {FAULTS_MAX}",
                crate::count_of(ignored_faults as u64, "fault", "faults")
            ));
        }
        let scenario = &mut self.link.scenario;
        if let Some(faults) = self.faults {
            scenario.faults = faults;
        }
        if let Some(pause_ms) = self.pause_ms {
            if scenario.faults.iter().any(|fault| matches!(fault, Fault::Pause { .. })) {
                *scenario = Param::PauseMs.apply(scenario, pause_ms);
            } else {
                notices.push(format!("ignored pause_ms={pause_ms}: this scenario has no pause to change"));
            }
        }
        if let Err(error) = scenario.validate() {
            let seed = scenario.seed;
            notices.push(format!(
                "the link's settings do not fit together, so this is the plain {} preset with seed {seed}: {}",
                preset.id,
                error.problems.join("; "),
            ));
            *scenario = Scenario { seed, ..(preset.build)() };
        }
        // Last, so that it speaks of the run the page will show.
        notices.extend(self.fingerprint.and_then(|text| story::notice(&text, &self.link.scenario)));
        self.link
    }
}

fn name_of<T: Copy + PartialEq>(table: &[(&'static str, T)], wanted: T) -> &'static str {
    table.iter().find(|(_, value)| *value == wanted).map_or("", |(name, _)| name)
}

fn named<T: Copy>(table: &[(&'static str, T)], name: &str) -> Result<T, String> {
    let found = table.iter().find(|(known, _)| *known == name).map(|(_, value)| *value);
    found.ok_or_else(|| format!("expected {}", choices(table.iter().map(|(known, _)| *known))))
}

fn on_off(on: bool) -> String {
    if on { "on" } else { "off" }.to_string()
}

fn switch(value: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err("expected on or off".to_string()),
    }
}

/// Digits only: no sign, no spaces, no exponent. (Rust's own parser would
/// take "+5", which a link then could not write back the same way.)
fn is_digits(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|byte| byte.is_ascii_digit())
}

/// Digits within `u64`.
fn whole(value: &str) -> Option<u64> {
    is_digits(value).then(|| value.parse().ok()).flatten()
}

/// An optional '-' then digits, within the type.
fn signed<T: std::str::FromStr>(value: &str) -> Option<T> {
    is_digits(value.strip_prefix('-').unwrap_or(value)).then(|| value.parse().ok()).flatten()
}

/// Digits within `range_ms`; a number too long for `u64` is out of range.
fn millis(value: &str, range_ms: RangeInclusive<u64>, what: &str) -> Result<u64, String> {
    // "-5" is negative; "-0" is no number a person writes.
    if value.strip_prefix('-').is_some_and(|digits| is_digits(digits) && digits.bytes().any(|digit| digit != b'0')) {
        return Err(format!("{what} cannot be negative: it must be from {} to {} ms", range_ms.start(), range_ms.end()));
    }
    if !is_digits(value) {
        return Err("not a whole number of milliseconds".to_string());
    }
    whole(value)
        .filter(|ms| range_ms.contains(ms))
        .ok_or_else(|| format!("{what} must be from {} to {} ms", range_ms.start(), range_ms.end()))
}

/// One `fault=` value: `Ok(None)` for "none" (no faults at all).
fn parse_fault(text: &str) -> Result<Option<Fault>, String> {
    if text == "none" {
        return Ok(None);
    }
    // "…@7": pinned right after event 7.
    let (text, pin) = match text.rsplit_once('@') {
        Some((base, index)) => {
            let index = whole(index).and_then(|index| u32::try_from(index).ok()).ok_or("@ is followed by an event number")?;
            (base, Some(index))
        }
        None => (text, None),
    };
    let fault = parse_unpinned(text)?;
    match (fault, pin) {
        (Some(fault), Some(index)) if fault.pinned(index, fault.at_ms()) == fault || fault.after_event().is_some() => {
            Err("only a fault with a time can be pinned to an event (@…)".to_string())
        }
        (Some(fault), Some(index)) => Ok(Some(fault.pinned(index, fault.at_ms()))),
        (fault, _) => Ok(fault),
    }
}

fn parse_unpinned(text: &str) -> Result<Option<Fault>, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let Some((shape, fields)) = FaultKind::from_link(parts[0]).map(|kind| (kind.spec().shape, &parts[1..])) else {
        let kinds = choices(FAULT_SPECS.iter().map(|spec| spec.link).chain(["none"]));
        return Err(format!("a fault starts with its kind: {kinds}"));
    };
    let malformed = || format!("this fault looks like {shape}");
    let actor = |name: &str| name.parse::<Actor>();
    let ms = |value: &str| whole(value).ok_or_else(malformed);
    let fault = match (parts[0], fields) {
        ("pause", [worker, when, pause_ms]) => {
            Fault::Pause { worker: actor(worker)?, when: parse_when(when).ok_or_else(malformed)?, pause_ms: ms(pause_ms)? }
        }
        ("delay", [worker, write, delay_ms]) => {
            let write = whole(write).and_then(|write| u8::try_from(write).ok()).ok_or_else(malformed)?;
            Fault::DelayWrite { worker: actor(worker)?, write, delay_ms: ms(delay_ms)? }
        }
        ("crash", [worker, at_ms]) => Fault::Crash { worker: actor(worker)?, at_ms: ms(at_ms)?, after_event: None },
        ("lose", [from, at_ms]) => Fault::LoseMessage { from: actor(from)?, at_ms: ms(at_ms)?, after_event: None },
        ("partition", [node, at_ms, for_ms]) => {
            Fault::Partition { node: actor(node)?, at_ms: ms(at_ms)?, for_ms: ms(for_ms)?, from: None, after_event: None }
        }
        ("partition", [node, at_ms, for_ms, from]) => {
            Fault::Partition { node: actor(node)?, at_ms: ms(at_ms)?, for_ms: ms(for_ms)?, from: Some(actor(from)?), after_event: None }
        }
        ("drift", [node, ppm]) => Fault::ClockDrift { node: actor(node)?, ppm: signed(ppm).ok_or_else(malformed)? },
        ("jump", [node, at_ms, jump_ms]) => {
            Fault::ClockJump { node: actor(node)?, at_ms: ms(at_ms)?, jump_ms: signed(jump_ms).ok_or_else(malformed)?, after_event: None }
        }
        ("nodecrash", [node, at_ms, down_ms]) => {
            Fault::NodeCrash { node: actor(node)?, at_ms: ms(at_ms)?, down_ms: ms(down_ms)?, after_event: None }
        }
        _ => return Err(malformed()),
    };
    Ok(Some(fault))
}

/// "write1" (before the first write), "send2" (before the worker's second
/// message), "at5000" (at 5 s) or "event7" (right after event 7).
fn parse_when(text: &str) -> Option<When> {
    if let Some(index) = text.strip_prefix("event") {
        return whole(index).and_then(|index| u32::try_from(index).ok()).map(When::AfterEvent);
    }
    if let Some(write) = text.strip_prefix("write") {
        return whole(write).and_then(|write| u8::try_from(write).ok()).map(When::BeforeWrite);
    }
    if let Some(send) = text.strip_prefix("send") {
        return whole(send).and_then(|send| u16::try_from(send).ok()).filter(|send| *send >= 1).map(When::BeforeSend);
    }
    text.strip_prefix("at").and_then(whole).map(When::AtMs)
}

fn fault_text(fault: &Fault) -> String {
    let text = unpinned_text(fault);
    match fault.after_event() {
        Some(index) if !matches!(fault, Fault::Pause { .. }) => format!("{text}@{index}"),
        _ => text,
    }
}

fn unpinned_text(fault: &Fault) -> String {
    match *fault {
        Fault::Pause { worker, when: When::BeforeWrite(write), pause_ms } => format!("pause:{worker}:write{write}:{pause_ms}"),
        Fault::Pause { worker, when: When::BeforeSend(send), pause_ms } => format!("pause:{worker}:send{send}:{pause_ms}"),
        Fault::Pause { worker, when: When::AtMs(at_ms), pause_ms } => format!("pause:{worker}:at{at_ms}:{pause_ms}"),
        Fault::Pause { worker, when: When::AfterEvent(index), pause_ms } => format!("pause:{worker}:event{index}:{pause_ms}"),
        Fault::DelayWrite { worker, write, delay_ms } => format!("delay:{worker}:{write}:{delay_ms}"),
        Fault::Crash { worker, at_ms, .. } => format!("crash:{worker}:{at_ms}"),
        Fault::LoseMessage { from, at_ms, .. } => format!("lose:{from}:{at_ms}"),
        Fault::Partition { node, at_ms, for_ms, from: None, .. } => format!("partition:{node}:{at_ms}:{for_ms}"),
        Fault::Partition { node, at_ms, for_ms, from: Some(from), .. } => format!("partition:{node}:{at_ms}:{for_ms}:{from}"),
        Fault::ClockDrift { node, ppm } => format!("drift:{node}:{ppm}"),
        Fault::ClockJump { node, at_ms, jump_ms, .. } => format!("jump:{node}:{at_ms}:{jump_ms}"),
        Fault::NodeCrash { node, at_ms, down_ms, .. } => format!("nodecrash:{node}:{at_ms}:{down_ms}"),
    }
}

/// The faults as a link writes them: nothing if they are the preset's,
/// `pause_ms` if only the preset's pause lengths changed (all alike), and
/// every fault otherwise ("none" for no faults at all).
fn fault_pairs(defaults: &Scenario, faults: &[Fault]) -> Vec<(&'static str, String)> {
    if faults == defaults.faults {
        return Vec::new();
    }
    let first_pause_ms = faults.iter().find_map(|fault| match fault {
        Fault::Pause { pause_ms, .. } => Some(*pause_ms),
        _ => None,
    });
    if let Some(pause_ms) = first_pause_ms.filter(|pause_ms| Param::PauseMs.apply(defaults, *pause_ms).faults == faults) {
        return vec![("pause_ms", pause_ms.to_string())];
    }
    if faults.is_empty() {
        return vec![("fault", "none".to_string())];
    }
    faults.iter().map(|fault| ("fault", fault_text(fault))).collect()
}

/// Percent-decoding as forms do it (`%XX` is a byte, '+' a space), by the
/// `form_urlencoded` crate: an escape that is not one stays as written, and
/// bytes that are not UTF-8 become '�'.
pub fn decode(text: &str) -> String {
    form_urlencoded::parse(format!("x={text}").as_bytes()).next().map_or_else(String::new, |(_, value)| value.into_owned())
}

/// Text from a link as a notice repeats it: short, and with no control
/// characters to garble the page (the page's own keys' notices use it too).
pub fn shown(text: &str) -> String {
    let mut shown: String = text.chars().take(NOTICE_VALUE_CHARS_MAX).map(|c| if c.is_control() { '\u{FFFD}' } else { c }).collect();
    if text.chars().nth(NOTICE_VALUE_CHARS_MAX).is_some() {
        shown.push('…');
    }
    shown
}

/// "a, b or c".
fn choices<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
