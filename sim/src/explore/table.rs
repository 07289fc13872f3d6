//! The verdict table a reviewer asks for: for every lock service × token
//! source × Redis persistence × store × fencing × renewal, whether the
//! explorer breaks each of `PROPERTIES` within its bounds (schedules of up
//! to two faults on the GC-pause design), and with which kinds of fault.

use super::{explore, Outcome};
use crate::property::Property;
use crate::scenario::{LockService, RedisPersistence, Release, Scenario, StoreKind, TokenSource};
use crate::services::{Family, Renewal};
use crate::trace::Fencing;

/// The columns: what a lock and a fencing token are for (no stale
/// overwrite), and what any design of shared data must also answer for,
/// with or without a lock (no lost update, the work done once).
pub const PROPERTIES: [Property; 3] = [Property::NoStaleOverwrite, Property::NoLostUpdate, Property::WorkDoneOnce];

pub struct Row {
    pub design: Scenario,
    /// One outcome per property of `PROPERTIES`, in that order.
    pub outcomes: Vec<Outcome>,
}

impl Row {
    pub fn outcome(&self, property: Property) -> &Outcome {
        let index = PROPERTIES.iter().position(|column| *column == property).expect("a property of the table");
        &self.outcomes[index]
    }

    pub fn broken(&self, property: Property) -> bool {
        matches!(self.outcome(property), Outcome::Counterexample(_))
    }
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
    if service.token_source_applies() {
        TokenSource::ALL.to_vec()
    } else {
        vec![TokenSource::SeparateIncr]
    }
}

/// Persistence decides what a restarted Redis node still has, on a single
/// node and on a failover primary alike; other services have no such option.
fn persistences(service: LockService) -> Vec<RedisPersistence> {
    if service.spec().options.redis {
        RedisPersistence::ALL.to_vec()
    } else {
        vec![RedisPersistence::None]
    }
}

fn stores(service: LockService) -> Vec<(StoreKind, bool)> {
    match service.family() {
        // No lock, no token: the store's own version check is the design.
        Family::None => vec![(StoreKind::Versioned, false)],
        Family::SingleRedis | Family::RedisFailover | Family::Redlock | Family::Consensus => {
            vec![(StoreKind::Database, false), (StoreKind::Database, true), (StoreKind::NfsFile, true)]
        }
    }
}

/// Renewal is a choice only where it is one: Redlock and no lock have none,
/// and a consensus lock's keep-alive always runs (its lease is a session's).
fn renewals(service: LockService) -> Vec<bool> {
    if service.spec().options.renewal != Renewal::Optional {
        vec![false]
    } else {
        vec![false, true]
    }
}

/// Explores every design for every property (a few seconds natively).
pub fn rows() -> Vec<Row> {
    designs()
        .into_iter()
        .map(|design| {
            let outcomes =
                PROPERTIES.iter().map(|property| explore(&design, *property, 2).expect("every design in the table is valid")).collect();
            Row { design, outcomes }
        })
        .collect()
}

/// The sentences under the table, written from it: for each property, the
/// designs no schedule broke it in (or, when those are most, the others).
pub fn summary(rows: &[Row]) -> String {
    let mut text = String::new();
    for property in PROPERTIES {
        let (held, broke): (Vec<&Row>, Vec<&Row>) = rows.iter().partition(|row| !row.broken(property));
        let names = |some: &[&Row]| some.iter().map(|row| format!("- {}", name(&row.design))).collect::<Vec<_>>().join("\n");
        let line = if held.len() <= broke.len() {
            format!("No schedule broke `{}` in {} of {} designs:\n{}\n\n", property.name(), held.len(), rows.len(), names(&held))
        } else {
            format!("A schedule broke `{}` in {} of {} designs:\n{}\n\n", property.name(), broke.len(), rows.len(), names(&broke))
        };
        text.push_str(&line);
        if property == Property::NoLostUpdate {
            text.push_str(NO_WORK_TIME);
        }
        if property == Property::WorkDoneOnce {
            text.push_str(&work_once());
        }
    }
    text
}

/// What a fault count means for the table's design, whose worker does no
/// work between the grant and the write (`work_ms` 0). Guarded by
/// `sim/tests/untruths.rs`, which runs both searches.
const NO_WORK_TIME: &str = "Every design here is the GC-pause story's, whose worker writes the moment it holds the \
lock: a count of faults is that design's. Where a fenced consensus row loses an update with pause + pause (one freezes \
the old holder before its write, the other the new holder before its own), with 2 s of work between the grant and the write, one \
pause is enough: the new holder's own work holds its write back while the old holder's stale write lands first.\n\n";

/// What the last column means, under its list.
fn work_once() -> String {
    format!(
        "A job whose result did not land (its write refused, or its lock lost before the write) is retried from the \
         start, as job runners retry a failed task: at most {} times (Celery's default `max_retries`; an assumption of \
         the model). So a lease lock with fencing keeps the data right, but neither the lock nor the token makes a \
         job's work happen once. A refused zombie has done its work (an email sent, a card charged) and does it again on the \
         retry; only an idempotent job makes that harmless.\n\n",
        fencing_engine::JOB_RETRIES_MAX
    )
}

/// A design in a few words: what differs from the lock service's own.
fn name(design: &Scenario) -> String {
    let mut parts: Vec<String> = super::design::options(design).into_iter().map(|(_, value)| value.to_string()).collect();
    parts.push(match Fencing::of(design) {
        Fencing::VersionCheck => "a version check instead of fencing".to_string(),
        other => format!("fencing {}", other.short()),
    });
    if design.lock_service.spec().options.renewal == Renewal::Optional {
        parts.push(format!("renewal {}", if design.renewal { "on" } else { "off" }));
    }
    parts.join(", ")
}

/// The table as Markdown, as the README prints it.
pub fn markdown(rows: &[Row]) -> String {
    let mut text = String::from(
        "| lock service | token | Redis persistence | store | fencing | renewal | stale overwrite? | lost update? | work done twice? |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let design = &row.design;
        let token = if design.lock_service.is_redis() { design.token_source_used().label() } else { "—" };
        let persistence = if design.lock_service.spec().options.redis { design.redis_persistence.label() } else { "—" };
        let fencing = Fencing::of(design).short();
        let renewal = match design.lock_service.spec().options.renewal {
            Renewal::Always => "always (keep-alive)",
            Renewal::Watchdog => "always (watchdog)",
            Renewal::Never => "—",
            Renewal::Optional if design.renewal => "on",
            Renewal::Optional => "off",
        };
        let verdicts: Vec<String> = row.outcomes.iter().map(verdict).collect();
        text.push_str(&format!(
            "| {} | {token} | {persistence} | {} | {fencing} | {renewal} | {} |\n",
            design.lock_service.label(),
            design.store.label(),
            verdicts.join(" | ")
        ));
    }
    text
}

fn verdict(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Counterexample(found) => {
            let kinds: Vec<&str> = found.scenario.faults.iter().map(|fault| fault.kind().spec().short).collect();
            format!("**yes**: {}", kinds.join(" + "))
        }
        Outcome::None { schedules_tried, .. } => format!("none in {schedules_tried} schedules"),
    }
}
