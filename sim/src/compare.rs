//! Side-by-side runs: one scenario split into two that differ in exactly one
//! setting, so a learner can see what that one setting changes. Everything
//! else, the seed included, is the same on both sides; where the difference
//! would make a side invalid, both sides are adjusted alike beforehand.

use crate::actor::Actor;
use crate::scenario::{LockService, Release, Scenario, StoreKind, TTL_MS_MAX};

/// The one setting the two sides of a comparison disagree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Difference {
    Fencing,
    LeaseX4,
    Renewal,
    StoreNfs,
    LockConsensus,
    LockRedlock,
}

impl Difference {
    pub const ALL: [Difference; 6] = [
        Difference::Fencing,
        Difference::LeaseX4,
        Difference::Renewal,
        Difference::StoreNfs,
        Difference::LockConsensus,
        Difference::LockRedlock,
    ];

    /// The name the URL carries (`compare=…`).
    pub fn id(self) -> &'static str {
        match self {
            Difference::Fencing => "fencing",
            Difference::LeaseX4 => "lease-x4",
            Difference::Renewal => "renewal",
            Difference::StoreNfs => "store-nfs",
            Difference::LockConsensus => "lock-consensus",
            Difference::LockRedlock => "lock-redlock",
        }
    }

    pub fn parse(id: &str) -> Option<Difference> {
        Difference::ALL.into_iter().find(|difference| difference.id() == id)
    }

    /// What the picker shows.
    pub fn label(self) -> &'static str {
        match self {
            Difference::Fencing => "Fencing off vs on",
            Difference::LeaseX4 => "Lease ×1 vs ×4",
            Difference::Renewal => "Renewal off vs on",
            Difference::StoreNfs => "Database vs plain file on NFS",
            Difference::LockConsensus => "Single Redis vs consensus lock",
            Difference::LockRedlock => "Single Redis vs Redlock",
        }
    }

    /// Each side's short name, left first.
    pub fn sides(self) -> (&'static str, &'static str) {
        match self {
            Difference::Fencing => ("Fencing off", "Fencing on"),
            Difference::LeaseX4 => ("Lease ×1", "Lease ×4"),
            Difference::Renewal => ("Renewal off", "Renewal on"),
            Difference::StoreNfs => ("Database", "Plain file on NFS"),
            Difference::LockConsensus => ("Single Redis", "Consensus lock"),
            Difference::LockRedlock => ("Single Redis", "Redlock"),
        }
    }

    /// The two scenarios: same seed and everything else, exactly one
    /// difference. Both are valid whenever `base` is.
    pub fn split(self, base: &Scenario) -> (Scenario, Scenario) {
        let common = with_a_lock(base);
        match self {
            Difference::Fencing => (Scenario { fencing: false, ..common.clone() }, Scenario { fencing: true, ..common }),
            Difference::LeaseX4 => {
                // Saturating and capped so a huge lease stays a valid one.
                let ttl_x4_ms = common.ttl_ms.saturating_mul(4).min(TTL_MS_MAX);
                (common.clone(), Scenario { ttl_ms: ttl_x4_ms, ..common })
            }
            Difference::Renewal => {
                // Redlock has no renewal in this model, so both sides use one Redis.
                let common =
                    if common.lock_service == LockService::Redlock { on_lock_service(common, LockService::SingleRedis) } else { common };
                (Scenario { renewal: false, ..common.clone() }, Scenario { renewal: true, ..common })
            }
            Difference::StoreNfs => {
                // Fencing on both sides: the point is that the file cannot check it.
                let common = Scenario { fencing: true, ..common };
                (Scenario { store: StoreKind::Database, ..common.clone() }, Scenario { store: StoreKind::NfsFile, ..common })
            }
            Difference::LockConsensus => lock_versus(common, LockService::Consensus),
            Difference::LockRedlock => lock_versus(common, LockService::Redlock),
        }
    }
}

/// A lock-free base (versioned store, no lock) has nothing for these
/// differences to act on, so both sides get one Redis and a database.
fn with_a_lock(base: &Scenario) -> Scenario {
    if base.lock_service != LockService::None && base.store != StoreKind::Versioned {
        return base.clone();
    }
    let scenario = Scenario { store: StoreKind::Database, ..base.clone() };
    on_lock_service(scenario, LockService::SingleRedis)
}

/// Single Redis on the left, `right` on the right, with whatever both sides
/// need to be valid under either service applied to both.
fn lock_versus(common: Scenario, right: LockService) -> (Scenario, Scenario) {
    let mut common = without_lock_node_faults(common);
    if matches!(right, LockService::Redlock) {
        common.renewal = false;
    }
    if matches!(right, LockService::Consensus) {
        common.release = Release::CompareAndDelete;
    }
    (Scenario { lock_service: LockService::SingleRedis, ..common.clone() }, Scenario { lock_service: right, ..common })
}

/// The scenario on another lock service. Lock-node faults are dropped: node
/// indices mean different machines (or none) on another service.
fn on_lock_service(scenario: Scenario, lock_service: LockService) -> Scenario {
    Scenario { lock_service, ..without_lock_node_faults(scenario) }
}

fn without_lock_node_faults(mut scenario: Scenario) -> Scenario {
    scenario.faults.retain(|fault| !matches!(fault.target(), Actor::LockNode(_)));
    scenario
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::PRESETS;

    /// The names of the fields in which two scenarios differ.
    fn differing_fields(left: &Scenario, right: &Scenario) -> Vec<String> {
        let left = serde_json::to_value(left).unwrap();
        let right = serde_json::to_value(right).unwrap();
        let (left, right) = (left.as_object().unwrap(), right.as_object().unwrap());
        left.keys().filter(|key| left[*key] != right[*key]).cloned().collect()
    }

    fn intended_field(difference: Difference) -> &'static str {
        match difference {
            Difference::Fencing => "fencing",
            Difference::LeaseX4 => "ttl_ms",
            Difference::Renewal => "renewal",
            Difference::StoreNfs => "store",
            Difference::LockConsensus | Difference::LockRedlock => "lock_service",
        }
    }

    #[test]
    fn every_preset_splits_into_two_valid_sides_one_field_apart() {
        for preset in PRESETS {
            let base = (preset.build)();
            for difference in Difference::ALL {
                let (left, right) = difference.split(&base);
                let context = format!("{} split by {}", preset.id, difference.id());
                assert_eq!(left.validate(), Ok(()), "left of {context}");
                assert_eq!(right.validate(), Ok(()), "right of {context}");
                assert_eq!(differing_fields(&left, &right), [intended_field(difference)], "{context}");
                assert_eq!((left.seed, left.preset.as_str()), (base.seed, preset.id), "{context}");
            }
        }
    }

    #[test]
    fn fencing_turns_the_zombie_write_into_a_rejection() {
        let base = crate::presets::classic();
        let (left, right) = Difference::Fencing.split(&base);
        let left = crate::run(&left).unwrap().summary;
        let right = crate::run(&right).unwrap().summary;
        assert_eq!((left.zombie_writes, left.rejected_writes), (1, 0));
        assert_eq!((right.zombie_writes, right.rejected_writes), (0, 1));
    }

    #[test]
    fn ids_round_trip_and_names_are_distinct() {
        for difference in Difference::ALL {
            assert_eq!(Difference::parse(difference.id()), Some(difference));
            let (left, right) = difference.sides();
            assert_ne!(left, right);
        }
        assert_eq!(Difference::parse("Fencing"), None);
        assert_eq!(Difference::parse(""), None);
    }

    #[test]
    fn the_longer_lease_is_four_times_as_long_but_never_out_of_bounds() {
        let base = crate::presets::classic();
        assert_eq!(Difference::LeaseX4.split(&base).1.ttl_ms, 40_000);
        let huge = Scenario { ttl_ms: TTL_MS_MAX - 1, ..base };
        let (left, right) = Difference::LeaseX4.split(&huge);
        assert_eq!((left.ttl_ms, right.ttl_ms), (TTL_MS_MAX - 1, TTL_MS_MAX));
        assert_eq!(right.validate(), Ok(()));
    }

    #[test]
    fn a_lock_free_base_gets_one_redis_and_a_database() {
        let base = crate::presets::build("no-lock-version").unwrap();
        let (left, right) = Difference::Fencing.split(&base);
        for side in [left, right] {
            assert_eq!((side.lock_service, side.store), (LockService::SingleRedis, StoreKind::Database));
        }
    }

    #[test]
    fn switching_lock_service_keeps_worker_faults_and_drops_node_faults() {
        let base = crate::presets::build("redlock-clock-jump").unwrap();
        let with_worker_fault = Scenario {
            faults: [base.faults.clone(), vec![crate::Fault::Crash { worker: Actor::Worker(1), at_ms: 9, after_event: None }]].concat(),
            ..base
        };
        let (left, right) = Difference::LockConsensus.split(&with_worker_fault);
        assert_eq!(left.faults, [crate::Fault::Crash { worker: Actor::Worker(1), at_ms: 9, after_event: None }]);
        assert_eq!(right.faults, left.faults);
    }
}
