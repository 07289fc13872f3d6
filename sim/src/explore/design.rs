//! A design as people read it: which of the scenario's options apply to its
//! lock service, and their values. The explorer's page lists these facts;
//! the verdict table names a design with the same parts.

use crate::presets;
use crate::scenario::Scenario;
use crate::services::Renewal;
use crate::trace::Fencing;

/// The design's facts, term and value, in the order the page lists them.
pub fn facts(scenario: &Scenario) -> Vec<(&'static str, String)> {
    let preset = presets::find(&scenario.preset).map_or("Custom", |preset| preset.name);
    let mut facts = vec![("Scenario", format!("{preset}, seed {}", scenario.seed))];
    facts.extend(options(scenario).into_iter().map(|(term, value)| (term, value.to_string())));
    let fencing = match Fencing::of(scenario) {
        Fencing::Unavailable(why) => format!("unavailable: {why}"),
        other => other.short().to_string(),
    };
    facts.push(("Fencing", fencing));
    facts.push(("Lease", format!("{} ms, {}", scenario.ttl_ms, renewal(scenario))));
    facts
}

/// The options that apply to the design's service: its label, the Redis
/// token source and persistence where it has them, the store.
pub(super) fn options(design: &Scenario) -> Vec<(&'static str, &'static str)> {
    let service = design.lock_service;
    let mut options = vec![("Lock service", service.label())];
    if service.is_redis() {
        options.push(("Token", design.token_source_used().label()));
    }
    if service.spec().options.redis {
        options.push(("Redis persistence", design.redis_persistence.label()));
    }
    options.push(("Store", design.store.label()));
    options
}

/// How the worker keeps its lease.
fn renewal(design: &Scenario) -> &'static str {
    match design.lock_service.spec().options.renewal {
        Renewal::Always => "kept alive every ttl/3",
        Renewal::Watchdog => "the watchdog renews it every ttl/3",
        Renewal::Optional if design.renewal => "renewed every ttl/3",
        Renewal::Optional | Renewal::Never => "no renewal",
    }
}
