//! The scenario settings a link carries, each with how to write it and how
//! to read it.

use super::{choices, millis, name_of, named, on_off, switch, whole};
use crate::actor::STORY_WORKERS_MAX;
use crate::scenario::{
    LockService, RedisPersistence, Release, Scenario, StoreKind, TokenSource, ACQUIRE_ATTEMPTS_MAX, FIRST_TOKEN_MAX, TIME_MS_MAX,
    TTL_MS_MAX, WRITES_PER_HOLD_MAX,
};
use fencing_engine::JOB_RETRIES_MAX;

/// A scenario setting a link can carry: how to write it and how to read it.
/// Reading checks the value alone; `Scenario::validate` checks the whole.
pub(super) struct Field {
    pub key: &'static str,
    pub get: fn(&Scenario) -> String,
    /// The scenario with the field set, or why the value cannot be used.
    pub set: fn(Scenario, &str) -> Result<Scenario, String>,
}

pub(super) const FIELDS: &[Field] = &[
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
            let workers = workers.filter(|workers| (2..=STORY_WORKERS_MAX).contains(workers));
            Ok(Scenario { workers: workers.ok_or(format!("the number of workers is 2 to {STORY_WORKERS_MAX}"))?, ..scenario })
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
        get: |scenario| scenario.lock_service.spec().id.to_string(),
        set: |scenario, value| Ok(Scenario { lock_service: lock_service_named(value)?, ..scenario }),
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
    // The timings a reality check sets to what its real run did (the live
    // stories' measured start gap, backoff, attempts and command timeout),
    // so that a recording can name the model's run it is held to. The page
    // has no control for them; a link carries them only when they differ
    // from the preset's.
    Field {
        key: "start_gap_ms",
        get: |scenario| scenario.start_gap_ms.to_string(),
        set: |scenario, value| Ok(Scenario { start_gap_ms: millis(value, 0..=TIME_MS_MAX, "the start gap")?, ..scenario }),
    },
    Field {
        key: "writes_per_hold",
        get: |scenario| scenario.writes_per_hold.to_string(),
        set: |scenario, value| {
            let writes =
                whole(value).and_then(|writes| u8::try_from(writes).ok()).filter(|writes| (1..=WRITES_PER_HOLD_MAX).contains(writes));
            Ok(Scenario { writes_per_hold: writes.ok_or(format!("the writes per hold are 1 to {WRITES_PER_HOLD_MAX}"))?, ..scenario })
        },
    },
    Field {
        key: "backoff_ms_min",
        get: |scenario| scenario.backoff_ms_min.to_string(),
        set: |scenario, value| Ok(Scenario { backoff_ms_min: millis(value, 1..=TIME_MS_MAX, "the shortest backoff")?, ..scenario }),
    },
    Field {
        key: "backoff_ms_max",
        get: |scenario| scenario.backoff_ms_max.to_string(),
        set: |scenario, value| Ok(Scenario { backoff_ms_max: millis(value, 1..=TIME_MS_MAX, "the longest backoff")?, ..scenario }),
    },
    Field {
        key: "acquire_attempts_max",
        get: |scenario| scenario.acquire_attempts_max.to_string(),
        set: |scenario, value| {
            let attempts = whole(value)
                .and_then(|attempts| u32::try_from(attempts).ok())
                .filter(|attempts| (1..=ACQUIRE_ATTEMPTS_MAX).contains(attempts));
            Ok(Scenario {
                acquire_attempts_max: attempts.ok_or(format!("the attempts to acquire are 1 to {ACQUIRE_ATTEMPTS_MAX}"))?,
                ..scenario
            })
        },
    },
    Field {
        // etcd numbers its keys by the cluster's revision: a fresh
        // cluster's first lock key is revision 2, where the stories start
        // at 33.
        key: "first_token",
        get: |scenario| scenario.first_token.to_string(),
        set: |scenario, value| {
            let first = whole(value).filter(|first| (1..=FIRST_TOKEN_MAX).contains(first));
            Ok(Scenario { first_token: first.ok_or(format!("the first token is 1 to {FIRST_TOKEN_MAX}"))?, ..scenario })
        },
    },
    Field {
        key: "job_retries_max",
        get: |scenario| scenario.job_retries_max.to_string(),
        set: |scenario, value| {
            let retries = whole(value).and_then(|retries| u8::try_from(retries).ok()).filter(|retries| *retries <= JOB_RETRIES_MAX);
            Ok(Scenario { job_retries_max: retries.ok_or(format!("a failed job's retries are 0 to {JOB_RETRIES_MAX}"))?, ..scenario })
        },
    },
    Field {
        key: "request_timeout_ms",
        get: |scenario| scenario.request_timeout_ms.to_string(),
        set: |scenario, value| Ok(Scenario { request_timeout_ms: millis(value, 1..=TIME_MS_MAX, "a request's timeout")?, ..scenario }),
    },
];

const TOKEN_SOURCES: &[(&str, TokenSource)] = &[("incr", TokenSource::SeparateIncr), ("script", TokenSource::AtomicScript)];
const PERSISTENCES: &[(&str, RedisPersistence)] = &[
    ("none", RedisPersistence::None),
    ("rdb", RedisPersistence::Rdb),
    ("everysec", RedisPersistence::AofEverysec),
    ("fsync", RedisPersistence::FsyncAlways),
];

const RELEASES: &[(&str, Release)] = &[("cad", Release::CompareAndDelete), ("del", Release::NaiveDel)];
const STORES: &[(&str, StoreKind)] =
    &[("database", StoreKind::Database), ("versioned", StoreKind::Versioned), ("nfs_file", StoreKind::NfsFile)];

/// A lock service by its link name, which its description gives.
fn lock_service_named(name: &str) -> Result<LockService, String> {
    let found = LockService::ALL.into_iter().find(|service| service.spec().id == name);
    found.ok_or_else(|| format!("expected {}", choices(LockService::ALL.iter().map(|service| service.spec().id))))
}
