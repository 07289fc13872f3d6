//! Properties over many random schedules. A failure prints the scenario as
//! JSON, seed included: `fencing-lab run --scenario FILE.json` replays it.

use fencing_sim::{presets, run, Actor, Fault, Kind, LockService, Release, Scenario, Trace, When};
use proptest::prelude::*;

/// Cases per property; 4,000 + 4,000 + 2,000 = 10,000 schedules per run.
const CASES_FENCED: u32 = 4_000;
const CASES_SAFE: u32 = 4_000;
const CASES_DETERMINISM: u32 = 2_000;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn replay(scenario: &Scenario) -> String {
    format!("seed {} — replay with this scenario: {}", scenario.seed, serde_json::to_string(scenario).unwrap())
}

/// A worker fault anywhere in the first minute: pauses, crashes, held writes.
fn worker_fault(workers: u8) -> impl Strategy<Value = Fault> {
    let worker = (0..workers).prop_map(Actor::Worker);
    prop_oneof![
        (worker.clone(), 0..60_000u64, 0..60_000u64).prop_map(|(worker, at_ms, pause_ms)| Fault::Pause {
            worker,
            when: When::AtMs(at_ms),
            pause_ms
        }),
        (worker.clone(), 0..60_000u64).prop_map(|(worker, pause_ms)| Fault::Pause { worker, when: When::BeforeWrite(1), pause_ms }),
        (worker.clone(), 0..60_000u64).prop_map(|(worker, delay_ms)| Fault::DelayWrite { worker, write: 1, delay_ms }),
        (worker.clone(), 0..60_000u64).prop_map(|(worker, at_ms)| Fault::Crash { worker, at_ms }),
        (worker, 0..60_000u64).prop_map(|(from, at_ms)| Fault::LoseMessage { from, at_ms }),
    ]
}

/// The knobs every schedule varies.
fn base() -> impl Strategy<Value = Scenario> {
    (any::<u64>(), 2..=5u8, 500..30_000u64, 0..8_000u64, 0..4_000u64, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(seed, workers, ttl_ms, work_ms, start_gap_ms, renewal, check_before_write, naive)| Scenario {
            seed,
            workers,
            ttl_ms,
            work_ms,
            start_gap_ms,
            renewal,
            check_before_write,
            release: if naive { Release::NaiveDel } else { Release::CompareAndDelete },
            writes_per_hold: 2,
            faults: Vec::new(),
            ..presets::classic()
        },
    )
}

/// Monotonic-token services (no node crash: a Redis without persistence
/// loses its counter) with any worker faults and a fencing store.
fn fenced() -> impl Strategy<Value = Scenario> {
    (base(), any::<bool>())
        .prop_flat_map(|(scenario, consensus)| {
            let workers = scenario.workers;
            (Just(scenario), Just(consensus), prop::collection::vec(worker_fault(workers), 0..6))
        })
        .prop_map(|(scenario, consensus, faults)| with_service(Scenario { fencing: true, faults, ..scenario }, consensus))
}

/// Schedules in which no holder can outlive its lease: renewal on, work and
/// pauses well inside the renewal margin, no held writes or lost messages.
fn safe() -> impl Strategy<Value = Scenario> {
    (base(), any::<bool>(), 0..4_000u64)
        .prop_flat_map(|(scenario, consensus, pause_ppt)| {
            let ttl_ms = scenario.ttl_ms.max(2_000);
            let pause_ms = ttl_ms * pause_ppt / 10_000; // at most 40% of the lease
            let pauses = prop::collection::vec((0..scenario.workers, 0..30_000u64), 0..3).prop_map(move |picks| {
                let mut used = Vec::new();
                picks
                    .into_iter()
                    .filter(|(worker, _)| {
                        if used.contains(worker) {
                            false
                        } else {
                            used.push(*worker);
                            true
                        }
                    })
                    .map(|(worker, at_ms)| Fault::Pause { worker: Actor::Worker(worker), when: When::AtMs(at_ms), pause_ms })
                    .collect::<Vec<_>>()
            });
            (Just(scenario), Just(consensus), Just(ttl_ms), pauses)
        })
        .prop_map(|(scenario, consensus, ttl_ms, faults)| with_service(Scenario { ttl_ms, renewal: true, faults, ..scenario }, consensus))
}

/// Single Redis or the consensus lock (which has no naive DEL).
fn with_service(scenario: Scenario, consensus: bool) -> Scenario {
    if !consensus {
        return scenario;
    }
    Scenario { lock_service: LockService::Consensus, release: Release::CompareAndDelete, ..scenario }
}

fn accepted_tokens(trace: &Trace) -> Vec<u64> {
    trace.events.iter().filter(|event| matches!(event.kind, Kind::WriteAccepted { .. })).filter_map(|event| event.token).collect()
}

proptest! {
    #![proptest_config(config(CASES_FENCED))]
    #[test]
    fn fencing_with_monotonic_tokens_never_lets_a_stale_write_land(scenario in fenced()) {
        let trace = run(&scenario).unwrap_or_else(|error| panic!("{error}: {}", replay(&scenario)));
        prop_assert_eq!(trace.summary.stale_overwrites, 0, "{}", replay(&scenario));
        let tokens = accepted_tokens(&trace);
        prop_assert!(tokens.windows(2).all(|pair| pair[0] <= pair[1]), "accepted tokens went down {:?}: {}", tokens, replay(&scenario));
        prop_assert!(!trace.summary.truncated, "{}", replay(&scenario));
    }
}

proptest! {
    #![proptest_config(config(CASES_SAFE))]
    #[test]
    fn without_long_pauses_or_delays_mutual_exclusion_holds(scenario in safe()) {
        let trace = run(&scenario).unwrap_or_else(|error| panic!("{error}: {}", replay(&scenario)));
        prop_assert_eq!(trace.summary.mutual_exclusion_violations, 0, "{}", replay(&scenario));
        prop_assert_eq!(trace.summary.zombie_writes, 0, "{}", replay(&scenario));
    }
}

proptest! {
    #![proptest_config(config(CASES_DETERMINISM))]
    #[test]
    fn the_same_seed_gives_the_same_trace(scenario in fenced(), fencing in any::<bool>()) {
        let scenario = Scenario { fencing, ..scenario };
        let first = run(&scenario).unwrap();
        prop_assert!(first.to_json() == run(&scenario).unwrap().to_json(), "{}", replay(&scenario));
    }
}

proptest! {
    #![proptest_config(config(1_000))]
    /// A pause just past the 10 s lease is not always fatal: B, backing off
    /// for up to 1 s, may not have the lock yet. Past 11.5 s it always is.
    #[test]
    fn without_fencing_the_gc_pause_always_corrupts_the_store(seed in any::<u64>(), latency_us_max in 100..5_000u64, pause_ms in 11_500..60_000u64) {
        let mut scenario = Scenario { seed, latency_us_max, ..presets::classic() };
        scenario.faults = vec![Fault::Pause { worker: Actor::Worker(0), when: When::BeforeWrite(1), pause_ms }];
        let summary = run(&scenario).unwrap().summary;
        prop_assert_eq!((summary.zombie_writes, summary.stale_overwrites), (1, 1), "{}", replay(&scenario));
    }
}
