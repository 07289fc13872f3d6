//! The whole view in a URL query string, both ways, so a link reproduces
//! exactly what a learner sees. A link is a preset plus overrides:
//! `preset=gc-pause&seed=7&fencing=on&fault=pause:A:write1:20000`.
//!
//! Links are typed, pasted and truncated by people, so parsing never fails:
//! whatever it cannot use it ignores, and says so in a plain sentence.

use crate::actor::{Actor, WORKERS_MAX};
use crate::compare::Difference;
use crate::presets::{self, Preset};
use crate::scenario::{
    Fault, LockService, RedisPersistence, Release, Scenario, StoreKind, TokenSource, When, FAULTS_MAX, TIME_MS_MAX, TTL_MS_MAX,
};
use crate::sweep::Param;
use std::ops::RangeInclusive;

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

impl crate::quiz::Question {
    /// The query that opens this question's run in the race view. Links
    /// know about questions, not the other way round.
    pub fn run_link(&self) -> String {
        to_query(&Permalink { scenario: (self.scenario)(), cursor: None, compare: None })
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
        notices.push(format!("ignored the last {ignored} setting(s): a link carries at most {PAIRS_MAX}"));
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
}

impl Reading {
    fn new(preset: &Preset) -> Reading {
        let link = Permalink { scenario: (preset.build)(), cursor: None, compare: None };
        Reading { link, faults: None, fault_values_seen: 0, pause_ms: None }
    }

    /// Applies one pair; an error is the reason it was ignored.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            // A question's own keys, read by `ask`.
            "ask" | "prompt" | "sum" | "set" => {}
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
            notices.push(format!("ignored the last {ignored_faults} fault(s): a scenario has at most {FAULTS_MAX}"));
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
        self.link
    }
}

/// A scenario setting a link can carry: how to write it and how to read it.
/// Reading checks the value alone; `Scenario::validate` checks the whole.
struct Field {
    key: &'static str,
    get: fn(&Scenario) -> String,
    /// The scenario with the field set, or why the value cannot be used.
    set: fn(Scenario, &str) -> Result<Scenario, String>,
}

const FIELDS: &[Field] = &[
    Field {
        key: "seed",
        get: |scenario| scenario.seed.to_string(),
        set: |scenario, value| {
            let seed = whole(value).ok_or(format!("the seed is a whole number from 0 to {}", u64::MAX))?;
            Ok(Scenario { seed, ..scenario })
        },
    },
    Field {
        key: "fencing",
        get: |scenario| on_off(scenario.fencing),
        set: |scenario, value| Ok(Scenario { fencing: switch(value)?, ..scenario }),
    },
    Field {
        key: "ttl_ms",
        get: |scenario| scenario.ttl_ms.to_string(),
        set: |scenario, value| Ok(Scenario { ttl_ms: millis(value, 1..=TTL_MS_MAX, "the lease")?, ..scenario }),
    },
    Field {
        key: "work_ms",
        get: |scenario| scenario.work_ms.to_string(),
        set: |scenario, value| Ok(Scenario { work_ms: millis(value, 0..=TIME_MS_MAX, "the work")?, ..scenario }),
    },
    Field {
        key: "workers",
        get: |scenario| scenario.workers.to_string(),
        set: |scenario, value| {
            let workers = whole(value).and_then(|workers| u8::try_from(workers).ok());
            let workers = workers.filter(|workers| (2..=WORKERS_MAX).contains(workers));
            Ok(Scenario { workers: workers.ok_or(format!("the number of workers is 2 to {WORKERS_MAX}"))?, ..scenario })
        },
    },
    Field {
        key: "renewal",
        get: |scenario| on_off(scenario.renewal),
        set: |scenario, value| Ok(Scenario { renewal: switch(value)?, ..scenario }),
    },
    Field {
        key: "check",
        get: |scenario| on_off(scenario.check_before_write),
        set: |scenario, value| Ok(Scenario { check_before_write: switch(value)?, ..scenario }),
    },
    Field {
        key: "release",
        get: |scenario| name_of(RELEASES, scenario.release).to_string(),
        set: |scenario, value| Ok(Scenario { release: named(RELEASES, value)?, ..scenario }),
    },
    Field {
        key: "lock",
        get: |scenario| name_of(LOCK_SERVICES, scenario.lock_service).to_string(),
        set: |scenario, value| Ok(Scenario { lock_service: named(LOCK_SERVICES, value)?, ..scenario }),
    },
    Field {
        key: "store",
        get: |scenario| name_of(STORES, scenario.store).to_string(),
        set: |scenario, value| Ok(Scenario { store: named(STORES, value)?, ..scenario }),
    },
    Field {
        key: "token",
        get: |scenario| name_of(TOKEN_SOURCES, scenario.token_source).to_string(),
        set: |scenario, value| Ok(Scenario { token_source: named(TOKEN_SOURCES, value)?, ..scenario }),
    },
    Field {
        key: "persistence",
        get: |scenario| name_of(PERSISTENCES, scenario.redis_persistence).to_string(),
        set: |scenario, value| Ok(Scenario { redis_persistence: named(PERSISTENCES, value)?, ..scenario }),
    },
];

const TOKEN_SOURCES: &[(&str, TokenSource)] = &[("incr", TokenSource::SeparateIncr), ("script", TokenSource::AtomicScript)];
const PERSISTENCES: &[(&str, RedisPersistence)] = &[("none", RedisPersistence::None), ("fsync", RedisPersistence::FsyncAlways)];

const RELEASES: &[(&str, Release)] = &[("cad", Release::CompareAndDelete), ("del", Release::NaiveDel)];
const LOCK_SERVICES: &[(&str, LockService)] = &[
    ("single_redis", LockService::SingleRedis),
    ("redis_failover", LockService::RedisFailover),
    ("redlock", LockService::Redlock),
    ("consensus", LockService::Consensus),
    ("none", LockService::None),
];
const STORES: &[(&str, StoreKind)] =
    &[("database", StoreKind::Database), ("versioned", StoreKind::Versioned), ("nfs_file", StoreKind::NfsFile)];

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
    if !is_digits(value) {
        return Err("not a whole number of milliseconds".to_string());
    }
    whole(value)
        .filter(|ms| range_ms.contains(ms))
        .ok_or_else(|| format!("{what} must be from {} to {} ms", range_ms.start(), range_ms.end()))
}

/// What each fault kind looks like in a link, for notices.
const FAULT_SHAPES: &[(&str, &str)] = &[
    ("pause", "pause:A:write1:15000 (before A's first write, 15 s), pause:A:send2:12000 (before A's second message) or pause:A:at5000:15000 (at 5 s)"),
    ("delay", "delay:A:1:15000 (A's first write held 15 s)"),
    ("crash", "crash:A:1000 (A crashes at 1 s)"),
    ("lose", "lose:A:1000 (A's first message from 1 s on is lost)"),
    ("partition", "partition:L4:0:500 (L4 cut off from 0 for 500 ms)"),
    ("drift", "drift:L1:-2000 (L1's clock 2000 ppm slow)"),
    ("jump", "jump:L3:2000:10000 (L3's clock jumps 10 s ahead at 2 s)"),
    ("nodecrash", "nodecrash:L1:2:60000 (L1 down from 2 ms for 60 s)"),
];

/// One `fault=` value: `Ok(None)` for "none" (no faults at all).
fn parse_fault(text: &str) -> Result<Option<Fault>, String> {
    if text == "none" {
        return Ok(None);
    }
    let parts: Vec<&str> = text.split(':').collect();
    let Some((shape, fields)) = FAULT_SHAPES.iter().find(|(kind, _)| *kind == parts[0]).map(|(_, shape)| (shape, &parts[1..])) else {
        let kinds = choices(FAULT_SHAPES.iter().map(|(kind, _)| *kind).chain(["none"]));
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
        ("crash", [worker, at_ms]) => Fault::Crash { worker: actor(worker)?, at_ms: ms(at_ms)? },
        ("lose", [from, at_ms]) => Fault::LoseMessage { from: actor(from)?, at_ms: ms(at_ms)? },
        ("partition", [node, at_ms, for_ms]) => Fault::Partition { node: actor(node)?, at_ms: ms(at_ms)?, for_ms: ms(for_ms)? },
        ("drift", [node, ppm]) => Fault::ClockDrift { node: actor(node)?, ppm: signed(ppm).ok_or_else(malformed)? },
        ("jump", [node, at_ms, jump_ms]) => {
            Fault::ClockJump { node: actor(node)?, at_ms: ms(at_ms)?, jump_ms: signed(jump_ms).ok_or_else(malformed)? }
        }
        ("nodecrash", [node, at_ms, down_ms]) => Fault::NodeCrash { node: actor(node)?, at_ms: ms(at_ms)?, down_ms: ms(down_ms)? },
        _ => return Err(malformed()),
    };
    Ok(Some(fault))
}

/// "write1" (before the first write), "send2" (before the worker's second
/// message) or "at5000" (at 5 s).
fn parse_when(text: &str) -> Option<When> {
    if let Some(write) = text.strip_prefix("write") {
        return whole(write).and_then(|write| u8::try_from(write).ok()).map(When::BeforeWrite);
    }
    if let Some(send) = text.strip_prefix("send") {
        return whole(send).and_then(|send| u16::try_from(send).ok()).filter(|send| *send >= 1).map(When::BeforeSend);
    }
    text.strip_prefix("at").and_then(whole).map(When::AtMs)
}

fn fault_text(fault: &Fault) -> String {
    match *fault {
        Fault::Pause { worker, when: When::BeforeWrite(write), pause_ms } => format!("pause:{worker}:write{write}:{pause_ms}"),
        Fault::Pause { worker, when: When::BeforeSend(send), pause_ms } => format!("pause:{worker}:send{send}:{pause_ms}"),
        Fault::Pause { worker, when: When::AtMs(at_ms), pause_ms } => format!("pause:{worker}:at{at_ms}:{pause_ms}"),
        Fault::DelayWrite { worker, write, delay_ms } => format!("delay:{worker}:{write}:{delay_ms}"),
        Fault::Crash { worker, at_ms } => format!("crash:{worker}:{at_ms}"),
        Fault::LoseMessage { from, at_ms } => format!("lose:{from}:{at_ms}"),
        Fault::Partition { node, at_ms, for_ms } => format!("partition:{node}:{at_ms}:{for_ms}"),
        Fault::ClockDrift { node, ppm } => format!("drift:{node}:{ppm}"),
        Fault::ClockJump { node, at_ms, jump_ms } => format!("jump:{node}:{at_ms}:{jump_ms}"),
        Fault::NodeCrash { node, at_ms, down_ms } => format!("nodecrash:{node}:{at_ms}:{down_ms}"),
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
/// characters to garble the page.
fn shown(text: &str) -> String {
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
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn preset(id: &str) -> Scenario {
        presets::build(id).unwrap()
    }

    /// Parses a link that must be fully understood.
    fn clean(query: &str) -> Permalink {
        let (link, notices) = parse(query);
        assert_eq!(notices, Vec::<String>::new(), "{query}");
        link
    }

    /// The one notice a link gives.
    fn notice(query: &str) -> String {
        let (_, notices) = parse(query);
        assert_eq!(notices.len(), 1, "{query}: {notices:?}");
        notices[0].clone()
    }

    #[test]
    fn an_empty_link_is_the_default_preset() {
        for query in ["", "?", "&&", "?&"] {
            assert_eq!(clean(query), Permalink::default());
        }
        assert_eq!(Permalink::default().scenario, presets::classic());
        assert_eq!(to_query(&Permalink::default()), "preset=gc-pause&seed=1");
    }

    #[test]
    fn every_setting_is_read() {
        let link = clean(
            "?preset=naive-del&seed=7&fencing=on&ttl_ms=20000&work_ms=300&workers=4&renewal=on&check=on\
             &release=cad&lock=redis_failover&store=nfs_file&cursor=12&compare=lease-x4",
        );
        let expected = Scenario {
            seed: 7,
            fencing: true,
            ttl_ms: 20_000,
            work_ms: 300,
            workers: 4,
            renewal: true,
            check_before_write: true,
            release: Release::CompareAndDelete,
            lock_service: LockService::RedisFailover,
            store: StoreKind::NfsFile,
            ..preset("naive-del")
        };
        assert_eq!(link, Permalink { scenario: expected, cursor: Some(12), compare: Some(Difference::LeaseX4) });
        let link = clean("lock=none&store=versioned&release=cad&lock=consensus&store=database");
        assert_eq!((link.scenario.lock_service, link.scenario.store), (LockService::Consensus, StoreKind::Database));
    }

    #[test]
    fn the_last_of_repeated_settings_wins() {
        assert_eq!(clean("ttl_ms=5000&ttl_ms=7000").scenario.ttl_ms, 7_000);
        assert_eq!(clean("preset=renewal&preset=lease-x4").scenario, preset("lease-x4"));
        // An unusable repeat is ignored, as if it were not there.
        let (link, notices) = parse("ttl_ms=5000&ttl_ms=abc");
        assert_eq!((link.scenario.ttl_ms, notices.len()), (5_000, 1));
    }

    #[test]
    fn unusable_values_are_ignored_with_a_reason() {
        assert_eq!(notice("ttl_ms=abc"), "ignored ttl_ms=abc: not a whole number of milliseconds");
        assert_eq!(notice("ttl_ms=-5"), "ignored ttl_ms=-5: not a whole number of milliseconds");
        assert_eq!(notice("ttl_ms=NaN"), "ignored ttl_ms=NaN: not a whole number of milliseconds");
        assert_eq!(notice("ttl_ms=1e4"), "ignored ttl_ms=1e4: not a whole number of milliseconds");
        assert_eq!(notice("ttl_ms=0"), "ignored ttl_ms=0: the lease must be from 1 to 3600000 ms");
        let forty_digits = "1".repeat(40);
        assert!(notice(&format!("ttl_ms={forty_digits}")).ends_with("the lease must be from 1 to 3600000 ms"));
        assert!(notice(&format!("seed={forty_digits}")).contains("the seed is a whole number from 0 to 18446744073709551615"));
        assert_eq!(notice("fencing=maybe"), "ignored fencing=maybe: expected on or off");
        assert_eq!(notice("workers=9"), "ignored workers=9: the number of workers is 2 to 5");
        assert_eq!(notice("release=unlink"), "ignored release=unlink: expected cad or del");
        assert!(notice("lock=zookeeper").ends_with("expected single_redis, redis_failover, redlock, consensus or none"));
        assert!(notice("cursor=-1").contains("the cursor is an event number"));
        assert!(notice("compare=everything").contains("try fencing, lease-x4, renewal, store-nfs, lock-consensus or lock-redlock"));
        assert_eq!(notice("colour=red"), "ignored colour=red: there is no setting called colour");
        assert_eq!(notice("fencing"), "ignored fencing=: expected on or off");
        for query in ["ttl_ms=abc", "fencing=maybe", "colour=red", "seed=x"] {
            assert_eq!(parse(query).0, Permalink::default(), "{query}");
        }
    }

    #[test]
    fn an_unknown_preset_shows_the_default() {
        let (link, notices) = parse("preset=gc-paws&seed=3");
        assert_eq!(link.scenario, Scenario { seed: 3, ..presets::classic() });
        assert_eq!(notices.len(), 1);
        assert!(notices[0].starts_with("ignored preset=gc-paws: there is no such preset (the presets are gc-pause, "));
    }

    #[test]
    fn notices_repeat_long_or_odd_values_briefly() {
        let long = "x".repeat(10_000);
        let said = notice(&format!("ttl_ms={long}"));
        assert!(said.chars().count() < 120, "{said}");
        assert!(said.contains('…'));
        assert_eq!(notice("colour=%07"), "ignored colour=\u{FFFD}: there is no setting called colour");
    }

    #[test]
    fn faults_replace_the_presets_and_round_trip() {
        let faults = [
            "pause:A:write1:15000",
            "pause:B:at5000:15000",
            "delay:A:1:15000",
            "crash:B:1000",
            "lose:A:1000",
            "lose:store:0",
            "partition:L1:0:500",
            "partition:store:10:500",
            "drift:L1:-2000",
            "jump:L1:2000:-10000",
            "nodecrash:L1:2:60000",
        ];
        let query: String = faults.iter().map(|fault| format!("&fault={fault}")).collect();
        let link = clean(&format!("preset=gc-pause{query}"));
        assert_eq!(link.scenario.faults.len(), faults.len());
        assert_eq!(link.scenario.faults[1], Fault::Pause { worker: Actor::Worker(1), when: When::AtMs(5_000), pause_ms: 15_000 });
        assert_eq!(link.scenario.faults[9], Fault::ClockJump { node: Actor::LockNode(0), at_ms: 2_000, jump_ms: -10_000 });
        assert_eq!(to_query(&link), format!("preset=gc-pause&seed=1{query}"));
        let redlock = clean("preset=redlock-clock-jump&fault=partition:L4:0:500&fault=jump:L3:2000:10000");
        assert_eq!(redlock.scenario.faults.len(), 2);
    }

    #[test]
    fn malformed_faults_are_ignored_and_keep_the_presets() {
        assert!(notice("fault=pause:A:write1").contains("this fault looks like pause:A:write1:15000"));
        assert!(notice("fault=pause:A:later:5").contains("this fault looks like pause:A:write1:15000"));
        assert!(notice("fault=pause:Z:write1:5").contains("unknown actor \"Z\""));
        assert!(notice("fault=drift:L1:1.5").contains("this fault looks like drift:L1:-2000"));
        assert!(notice("fault=delay:A:300:5").contains("this fault looks like delay:A:1:15000"));
        assert!(notice("fault=meteor:A:5").contains("a fault starts with its kind: pause, delay, crash"));
        let (link, _) = parse("fault=meteor:A:5");
        assert_eq!(link.scenario.faults, presets::classic().faults);
    }

    #[test]
    fn none_removes_every_fault() {
        let link = clean("preset=gc-pause&fault=none");
        assert!(link.scenario.faults.is_empty());
        assert_eq!(to_query(&link), "preset=gc-pause&seed=1&fault=none");
    }

    #[test]
    fn pause_ms_lengthens_every_pause_wherever_it_appears() {
        let link = clean("pause_ms=20000&fault=pause:A:write1:1&fault=pause:B:at9:2");
        assert!(link.scenario.faults.iter().all(|fault| matches!(fault, Fault::Pause { pause_ms: 20_000, .. })));
        let link = clean("preset=gc-pause&pause_ms=45000");
        assert_eq!(to_query(&link), "preset=gc-pause&seed=1&pause_ms=45000");
        assert_eq!(notice("preset=holder-crash&pause_ms=5000"), "ignored pause_ms=5000: this scenario has no pause to change");
    }

    #[test]
    fn percent_encoding_and_plus_signs_are_decoded() {
        let link = clean("%3Fpreset=gc-pause".trim_start_matches("%3F"));
        assert_eq!(link, Permalink::default());
        let link = clean("fault=pause%3AA%3Awrite1%3A20000&fencing=%6Fn&+ttl_ms+=+5000");
        assert_eq!(link.scenario.faults, [Fault::Pause { worker: Actor::Worker(0), when: When::BeforeWrite(1), pause_ms: 20_000 }]);
        assert!(link.scenario.fencing);
        assert_eq!(link.scenario.ttl_ms, 5_000);
        assert_eq!(decode("a%zzb%4"), "a%zzb%4");
        assert_eq!(decode("%e2%9C%93+%"), "✓ %");
        assert_eq!(decode("%ff"), "\u{FFFD}");
        assert_eq!(decode("%26%3D"), "&=");
    }

    #[test]
    fn settings_that_do_not_fit_together_fall_back_to_the_plain_preset() {
        let (link, notices) = parse("preset=renewal&seed=9&lock=redlock&ttl_ms=500&cursor=3");
        assert_eq!(link.scenario, Scenario { seed: 9, ..preset("renewal") });
        assert_eq!(link.cursor, Some(3));
        assert_eq!(notices.len(), 1);
        assert!(notices[0].starts_with("the link's settings do not fit together, so this is the plain renewal preset with seed 9: "));
        assert!(notices[0].contains("Redlock has no renewal"), "{}", notices[0]);
        let said = notice("fault=crash:E:5");
        assert!(said.contains("fault 1: there is no E in a scenario with 2 workers"), "{said}");
    }

    #[test]
    fn the_work_is_capped() {
        let many_pairs = "ttl_ms=5000&".repeat(70);
        let (link, notices) = parse(&many_pairs);
        assert_eq!(link.scenario.ttl_ms, 5_000);
        assert_eq!(notices, ["ignored the last 6 setting(s): a link carries at most 64"]);
        let many_faults = "fault=crash:B:1&".repeat(40);
        let (link, notices) = parse(&many_faults);
        assert_eq!(link.scenario.faults.len(), FAULTS_MAX);
        assert_eq!(notices, ["ignored the last 8 fault(s): a scenario has at most 32"]);
    }

    #[test]
    fn a_link_names_only_what_differs_from_its_preset() {
        let link = clean("preset=lease-x4&seed=5&ttl_ms=40000&fencing=on&compare=fencing");
        assert_eq!(to_query(&link), "preset=lease-x4&seed=5&fencing=on&compare=fencing");
        let every_preset_plainly = presets::PRESETS.iter().map(|preset| (preset.id, to_query(&clean(&format!("preset={}", preset.id)))));
        for (id, query) in every_preset_plainly {
            assert_eq!(query, format!("preset={id}&seed=1"));
        }
    }

    /// Pieces of links: mostly meaningful, some broken, some percent-encoded.
    fn piece() -> impl Strategy<Value = String> {
        let preset = prop::sample::select(presets::PRESETS.iter().map(|preset| preset.id).chain(["nope"]).collect::<Vec<_>>());
        let number = prop_oneof![0..8u64, 0..70_000u64, any::<u64>()].prop_map(|number| number.to_string());
        let word = prop::sample::select(vec![
            "on",
            "off",
            "maybe",
            "cad",
            "del",
            "single_redis",
            "redis_failover",
            "redlock",
            "consensus",
            "none",
            "database",
            "versioned",
            "nfs_file",
            "abc",
            "-5",
            "",
            "fencing",
            "lease-x4",
            "store-nfs",
            "lock-redlock",
            "NaN",
        ]);
        let actor = prop::sample::select(vec!["A", "B", "C", "E", "L1", "L2", "L4", "store", "Q"]);
        let kind = prop::sample::select(FAULT_SHAPES.iter().map(|(kind, _)| *kind).chain(["none"]).collect::<Vec<_>>());
        let when = prop_oneof![(0..3u8).prop_map(|n| format!("write{n}")), (0..20_000u64).prop_map(|ms| format!("at{ms}"))];
        let numbers = prop::collection::vec(-3_000..70_000i64, 1..4);
        let fault = (kind, actor, when, numbers).prop_map(|(kind, actor, when, numbers)| {
            let when = if kind == "pause" { vec![when] } else { Vec::new() };
            let numbers = numbers.iter().map(i64::to_string);
            [kind.to_string(), actor.to_string()].into_iter().chain(when).chain(numbers).collect::<Vec<_>>().join(":")
        });
        let key = prop::sample::select(vec![
            "seed", "fencing", "ttl_ms", "pause_ms", "work_ms", "workers", "renewal", "check", "release", "lock", "store", "cursor",
            "compare", "colour",
        ]);
        prop_oneof![
            preset.prop_map(|id| format!("preset={id}")),
            (key.clone(), number).prop_map(|(key, number)| format!("{key}={number}")),
            (key, word).prop_map(|(key, word)| format!("{key}={word}")),
            fault.clone().prop_map(|fault| format!("fault={fault}")),
            fault.prop_map(|fault| format!("fault={}", fault.replace(':', "%3A"))),
            Just("fault=none".to_string()),
            "[ -~]{0,12}",
        ]
    }

    fn config() -> ProptestConfig {
        ProptestConfig { cases: 3_000, failure_persistence: None, ..ProptestConfig::default() }
    }

    proptest! {
        #![proptest_config(config())]
        #[test]
        fn every_parsed_link_round_trips_without_notices(pieces in prop::collection::vec(piece(), 0..12)) {
            let (link, _) = parse(&pieces.join("&"));
            prop_assert_eq!(link.scenario.validate(), Ok(()));
            let query = to_query(&link);
            let (again, notices) = parse(&query);
            prop_assert!(notices.is_empty(), "{}: {:?}", query, notices);
            prop_assert_eq!(again, link, "{}", query);
        }

        #[test]
        fn parsing_never_panics(query in "\\PC{0,200}", bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse(&query);
            let _ = parse(&String::from_utf8_lossy(&bytes));
        }
    }
}
