//! The verdict table a reviewer asks for: for every lock service × token
//! source × Redis persistence × store × fencing × renewal, whether the
//! explorer breaks `no_stale_overwrite` within its bounds (schedules of up
//! to two faults on the GC-pause design), and with which kind of fault.

use super::{explore, Outcome};
use crate::property::Property;
use crate::scenario::{FaultKind, LockService, RedisPersistence, Release, Scenario, StoreKind, TokenSource};

pub struct Row {
    pub design: Scenario,
    pub outcome: Outcome,
}

/// Every design the table covers, in a fixed order.
pub fn designs() -> Vec<Scenario> {
    let mut designs = Vec::new();
    for lock_service in LockService::ALL {
        for token_source in token_sources(lock_service) {
            for redis_persistence in persistences(lock_service) {
                for (store, fencing) in stores(lock_service) {
                    for renewal in renewals(lock_service) {
                        let release = Release::CompareAndDelete;
                        let base = crate::presets::classic();
                        designs.push(Scenario {
                            lock_service,
                            token_source,
                            redis_persistence,
                            store,
                            fencing,
                            renewal,
                            release,
                            faults: Vec::new(),
                            ..base
                        });
                    }
                }
            }
        }
    }
    designs
}

fn token_sources(service: LockService) -> Vec<TokenSource> {
    if service.is_redis() {
        TokenSource::ALL.to_vec()
    } else {
        vec![TokenSource::SeparateIncr]
    }
}

/// Persistence decides what a restarted Redis node still has, on a single
/// node and on a failover primary alike; other services have no such option.
fn persistences(service: LockService) -> Vec<RedisPersistence> {
    if matches!(service, LockService::SingleRedis | LockService::RedisFailover) {
        RedisPersistence::ALL.to_vec()
    } else {
        vec![RedisPersistence::None]
    }
}

fn stores(service: LockService) -> Vec<(StoreKind, bool)> {
    if service == LockService::None {
        return vec![(StoreKind::Versioned, false)];
    }
    vec![(StoreKind::Database, false), (StoreKind::Database, true), (StoreKind::NfsFile, true)]
}

/// Renewal is a choice only where it is one: Redlock and no lock have none,
/// and a consensus lock's keep-alive always runs (its lease is a session's).
fn renewals(service: LockService) -> Vec<bool> {
    if matches!(service, LockService::Redlock | LockService::None | LockService::Consensus) {
        vec![false]
    } else {
        vec![false, true]
    }
}

/// Explores every design (about a second natively).
pub fn rows() -> Vec<Row> {
    designs()
        .into_iter()
        .map(|design| {
            let outcome = explore(&design, Property::NoStaleOverwrite, 2).expect("every design in the table is valid");
            Row { design, outcome }
        })
        .collect()
}

/// The table as Markdown, as the README prints it.
pub fn markdown(rows: &[Row]) -> String {
    let mut text = String::from(
        "| lock service | token | Redis persistence | store | fencing | renewal | stale overwrite within bounds? |\n|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let design = &row.design;
        let token = if design.lock_service.is_redis() { design.token_source.label() } else { "—" };
        let persistence = if matches!(design.lock_service, LockService::SingleRedis | LockService::RedisFailover) {
            design.redis_persistence.label()
        } else {
            "—"
        };
        let fencing = match crate::trace::Fencing::of(design) {
            crate::trace::Fencing::On => "on",
            crate::trace::Fencing::Off => "off",
            crate::trace::Fencing::VersionCheck => "version check instead",
            crate::trace::Fencing::Unavailable(_) => "unavailable",
        };
        let renewal = match design.lock_service {
            LockService::Consensus => "always (keep-alive)",
            LockService::Redlock | LockService::None => "—",
            _ if design.renewal => "on",
            _ => "off",
        };
        text.push_str(&format!(
            "| {} | {token} | {persistence} | {} | {fencing} | {renewal} | {} |\n",
            design.lock_service.label(),
            design.store.label(),
            verdict(&row.outcome)
        ));
    }
    text
}

fn verdict(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Counterexample(found) => {
            let kinds: Vec<&str> = found.scenario.faults.iter().map(|fault| short(fault.kind())).collect();
            format!("**yes**: {}", kinds.join(" + "))
        }
        Outcome::None { schedules_tried, .. } => format!("none in {schedules_tried} schedules"),
    }
}

fn short(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::Pause => "pause",
        FaultKind::DelayWrite => "held write",
        FaultKind::LoseMessage => "lost message",
        FaultKind::Partition => "partition",
        FaultKind::Crash => "worker crash",
        FaultKind::ClockDrift => "clock drift",
        FaultKind::ClockJump => "clock jump",
        FaultKind::NodeCrash => "lock-node crash",
    }
}
