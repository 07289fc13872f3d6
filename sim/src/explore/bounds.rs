//! What the explorer searches, as data: the JSON carries it, the claim is
//! written from it, the page shows it, and a test checks that the schedules
//! run are exactly the ones it describes.

use crate::scenario::{FaultKind, Scenario};
use fencing_engine::renew_interval_us;
use serde::Serialize;

/// Messages per worker the explorer places faults at; more add little.
pub const STEPS_MAX: u16 = 16;
/// Lock-service steps (grants, counts, renewals) it strikes nodes after.
pub const NODE_MOMENTS_MAX: u16 = 8;
/// A clock that runs a tenth fast or slow: far beyond a crystal's tens of
/// ppm, the size of a misconfigured virtual machine's clock.
const DRIFT_PPM: i32 = 100_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bounds {
    /// Faults per schedule: 1 (singles) or 2 (singles, then pairs).
    pub faults_max: u8,
    /// Each worker's first this-many messages are struck.
    pub steps_max: u16,
    /// Lock nodes are struck right after the service's first this-many
    /// grants, counts and renewals.
    pub node_moments_max: u16,
    pub pause_lengths_ms: Vec<u64>,
    pub hold_lengths_ms: Vec<u64>,
    pub node_down_ms: Vec<u64>,
    pub partition_ms: Vec<u64>,
    pub clock_jumps_ms: Vec<i64>,
    pub drift_ppm: Vec<i32>,
    /// The fault kinds placed: every kind this design allows that has a
    /// target in it.
    pub kinds: Vec<FaultKind>,
}

impl Bounds {
    pub fn of(scenario: &Scenario, faults_max: u8) -> Bounds {
        let ttl_ms = scenario.ttl_ms;
        let successor_in_ms = ttl_ms + 500 + scenario.backoff_ms_max + 1;
        let has_nodes = scenario.lock_service.nodes() > 0;
        let kinds = scenario.allowed_faults().into_iter().filter(|kind| has_nodes || !node_only(*kind)).collect::<Vec<_>>();
        let jumps = kinds.contains(&FaultKind::ClockJump);
        Bounds {
            faults_max: faults_max.clamp(1, 2),
            steps_max: STEPS_MAX,
            node_moments_max: NODE_MOMENTS_MAX,
            pause_lengths_ms: pause_lengths_ms(scenario),
            hold_lengths_ms: vec![ttl_ms + 1, successor_in_ms],
            node_down_ms: if has_nodes { vec![1_000, ttl_ms * 2] } else { Vec::new() },
            // Just past a lease, and long enough for a failover or an
            // election and a whole lease after it.
            partition_ms: if has_nodes { vec![ttl_ms + 1, scenario.failover_ms + ttl_ms * 2] } else { Vec::new() },
            clock_jumps_ms: if jumps { vec![ttl_ms as i64, -(ttl_ms as i64)] } else { Vec::new() },
            drift_ppm: if has_nodes { vec![DRIFT_PPM, -DRIFT_PPM] } else { Vec::new() },
            kinds,
        }
    }
}

/// Kinds that strike a lock node (a partition could cut off the store too;
/// the explorer cuts only lock nodes).
fn node_only(kind: FaultKind) -> bool {
    matches!(kind, FaultKind::Partition | FaultKind::ClockDrift | FaultKind::ClockJump | FaultKind::NodeCrash)
}

/// The pause lengths tried, shortest first: just under and just over the
/// lease, past the renewal period, past the lease plus a consensus expiry
/// tick and a full backoff (so a successor surely got in), twice and four
/// times the lease.
pub fn pause_lengths_ms(scenario: &Scenario) -> Vec<u64> {
    let ttl_ms = scenario.ttl_ms;
    let mut lengths = vec![
        ttl_ms.saturating_sub(1).max(1),
        ttl_ms + 1,
        renew_interval_us(scenario) / 1000 + 1,
        ttl_ms + 500 + scenario.backoff_ms_max + 1,
        ttl_ms * 2,
        ttl_ms * 4,
    ];
    lengths.sort_unstable();
    lengths.dedup();
    lengths
}
