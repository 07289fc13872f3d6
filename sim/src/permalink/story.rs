//! A link's fingerprint (`fp=`): a few facts of the run its author saw, and
//! a hash of the whole of it, so that a link opened after the model changed
//! can say that its run is no longer the one it was made from, and name the
//! first difference, instead of silently telling another story.
//!
//! Written: `8c1d2e3f_A-33.B-34_1.1.0.1_A-33_18.25004`, that is the hash of
//! every event, who was granted the lock in order with the token each drew,
//! the zombie writes, stale overwrites, refused and accepted writes, the
//! store's last accepted write, and the number of events with the run's end
//! in milliseconds. Only characters a URL carries as they are.

use crate::actor::Actor;
use crate::event::Kind;
use crate::scenario::Scenario;
use crate::trace::{fnv1a32_on, Trace, FNV32_OFFSET};
use std::hash::{Hash, Hasher};

/// The key a link carries its fingerprint under.
pub const KEY: &str = "fp";
/// How the notice for a changed run begins (the page shows it on its own,
/// apart from the notices about settings it could not use).
pub const CHANGED: &str = "This link was made with an earlier version of the simulator; the run below differs from what its author saw: ";
/// Grants written out; the hash covers any beyond them.
const GRANTS_MAX: usize = 8;
/// The counters a fingerprint keeps, as the page names them.
const COUNTS: [(&str, &str); 4] = [
    ("zombie write", "zombie writes"),
    ("stale overwrite", "stale overwrites"),
    ("refused write", "refused writes"),
    ("accepted write", "accepted writes"),
];

/// A worker and the token it was handed (none from a lock without tokens).
type Holder = (Actor, Option<u64>);

/// What a link's author saw of its run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Story {
    /// Who took the lock, in order, with the token each drew (at most `GRANTS_MAX`).
    grants: Vec<Holder>,
    /// As `COUNTS` names them.
    counts: [u32; 4],
    /// The writer and token of the store's last accepted write.
    store: Option<Holder>,
    events: u32,
    end_ms: u64,
    /// Over every event's time, actor, kind and token.
    hash: u32,
}

impl Story {
    pub fn of(trace: &Trace) -> Story {
        let summary = &trace.summary;
        let grants = trace
            .events
            .iter()
            .filter(|event| matches!(event.kind, Kind::Acquired { .. }))
            .take(GRANTS_MAX)
            .map(|event| (event.actor, event.token))
            .collect();
        let mut hasher = Fnv32::default();
        for event in &trace.events {
            (event.t_us, event.actor, &event.kind, event.token).hash(&mut hasher);
        }
        Story {
            grants,
            counts: [summary.zombie_writes, summary.stale_overwrites, summary.rejected_writes, summary.accepted_writes],
            store: summary.final_store.map(|datum| (datum.writer, datum.token)),
            events: trace.events.len() as u32,
            end_ms: summary.end_us / 1000,
            hash: hasher.finish() as u32,
        }
    }

    /// The fingerprint as a link writes it.
    pub fn to_text(&self) -> String {
        let grants: Vec<String> = self.grants.iter().map(holder_text).collect();
        let grants = if grants.is_empty() { "none".to_string() } else { grants.join(".") };
        let store = self.store.as_ref().map_or("none".to_string(), holder_text);
        format!("{:08x}_{grants}_{}_{store}_{}.{}", self.hash, counts_text(&self.counts), self.events, self.end_ms)
    }

    /// Reads a fingerprint as `to_text` writes it; None for anything else.
    pub fn parse(text: &str) -> Option<Story> {
        let parts: Vec<&str> = text.split('_').collect();
        let [hash, grants, counts, store, size] = parts[..] else { return None };
        let hash = (hash.len() == 8).then(|| u32::from_str_radix(hash, 16).ok()).flatten()?;
        let grants = match grants {
            "none" => Vec::new(),
            _ => grants.split('.').take(GRANTS_MAX + 1).map(parse_holder).collect::<Option<Vec<_>>>()?,
        };
        let store = if store == "none" { None } else { Some(parse_holder(store)?) };
        let (events, end_ms) = size.split_once('.')?;
        Some(Story {
            grants: (grants.len() <= GRANTS_MAX).then_some(grants)?,
            counts: parse_counts(counts)?,
            store,
            events: super::whole(events)?.try_into().ok()?,
            end_ms: super::whole(end_ms)?,
            hash,
        })
    }

    /// The first way `now` differs from what the author saw (`self`), in
    /// words; None when they are the same run.
    pub fn first_difference(&self, now: &Story) -> Option<String> {
        if let Some(n) = (0..self.grants.len().max(now.grants.len())).find(|n| self.grants.get(*n) != now.grants.get(*n)) {
            let nth = ordinal(n + 1);
            return Some(match (self.grants.get(n), now.grants.get(n)) {
                (Some(then), Some(later)) => {
                    format!("its author saw the lock's {nth} grant go to {}; in this run it goes to {}", holder(then), holder(later))
                }
                (Some(then), None) => format!("its author saw the lock's {nth} grant go to {}; this run has no {nth} grant", holder(then)),
                (None, later) => format!("its author saw no {nth} grant; in this run it goes to {}", later.map_or(String::new(), holder)),
            });
        }
        if let Some(difference) = counts_difference(&self.counts, &now.counts, "run") {
            return Some(difference);
        }
        if self.store != now.store {
            return Some(format!("its author saw the store end with {}; this run ends with {}", data(self.store), data(now.store)));
        }
        if (self.events, self.end_ms) != (now.events, now.end_ms) {
            return Some(format!(
                "its author's run had {} and ended at {}; this one has {} and ends at {}",
                crate::count_of(u64::from(self.events), "event", "events"),
                crate::format_us(self.end_ms * 1000),
                now.events,
                crate::format_us(now.end_ms * 1000),
            ));
        }
        (self.hash != now.hash)
            .then(|| "the grants, the counters and the store's end are the same, but events differ in their timing or order".to_string())
    }
}

/// The first of the counters (`COUNTS`) that differs, in words: "its author
/// saw 1 zombie write; this run has 0" (`what`: "run", "fleet").
pub(super) fn counts_difference(then: &[u32; 4], now: &[u32; 4], what: &str) -> Option<String> {
    let n = (0..COUNTS.len()).find(|n| then[*n] != now[*n])?;
    let (one, many) = COUNTS[n];
    Some(format!("its author saw {}; this {what} has {}", crate::count_of(u64::from(then[n]), one, many), now[n]))
}

/// Reads the counters as a fingerprint writes them ("1.1.0.2").
pub(super) fn parse_counts(text: &str) -> Option<[u32; 4]> {
    let counts: Vec<u32> = text.split('.').map(|count| super::whole(count)?.try_into().ok()).collect::<Option<_>>()?;
    counts.try_into().ok()
}

/// The counters as a fingerprint writes them.
pub(super) fn counts_text(counts: &[u32; 4]) -> String {
    counts.iter().map(u32::to_string).collect::<Vec<_>>().join(".")
}

/// The notice for a link whose fingerprint differs as `difference` says.
pub(super) fn changed(difference: String) -> String {
    format!("{CHANGED}{difference}.")
}

/// The fingerprint of a scenario's run; None for a scenario that cannot run.
pub fn of_scenario(scenario: &Scenario) -> Option<String> {
    crate::run(scenario).ok().map(|trace| Story::of(&trace).to_text())
}

/// The notice for a link whose fingerprint `text` is not its run's; None
/// when the run is the one its author saw.
pub fn notice(text: &str, scenario: &Scenario) -> Option<String> {
    let Some(then) = Story::parse(text) else {
        return Some(format!("ignored fp={}: not a fingerprint Fencing Lab writes", super::shown(text)));
    };
    let now = Story::of(&crate::run(scenario).ok()?);
    then.first_difference(&now).map(changed)
}

fn holder_text((actor, token): &Holder) -> String {
    token.map_or(actor.to_string(), |token| format!("{actor}-{token}"))
}

fn parse_holder(text: &str) -> Option<Holder> {
    let (actor, token) = match text.split_once('-') {
        Some((actor, token)) => (actor, Some(super::whole(token)?)),
        None => (text, None),
    };
    Some((actor.parse().ok()?, token))
}

fn holder((actor, token): &Holder) -> String {
    token.map_or(format!("{actor}, with no token"), |token| format!("{actor} with token {token}"))
}

fn data(holder: Option<Holder>) -> String {
    match holder {
        Some((actor, Some(token))) => format!("{actor}'s data (token {token})"),
        Some((actor, None)) => format!("{actor}'s data"),
        None => "nothing written".to_string(),
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// 32-bit FNV-1a with the same bytes on every target: `usize` and `isize`
/// (lengths, enum discriminants) are written as 64-bit little-endian, where
/// the standard hasher writes their native width (4 bytes in wasm32).
#[derive(Default)]
struct Fnv32(Option<u32>);

impl Hasher for Fnv32 {
    fn finish(&self) -> u64 {
        u64::from(self.0.unwrap_or(FNV32_OFFSET))
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = Some(fnv1a32_on(self.0.unwrap_or(FNV32_OFFSET), bytes));
    }

    fn write_usize(&mut self, value: usize) {
        self.write(&(value as u64).to_le_bytes());
    }

    fn write_isize(&mut self, value: isize) {
        self.write(&(value as i64).to_le_bytes());
    }
}

#[cfg(test)]
mod tests;
