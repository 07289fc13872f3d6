//! A cut-off leader's step-down is said with its service's own timers
//! (`SessionRules::leader_loss`), not "an election timeout" for every
//! consensus service: ZooKeeper's leader gives up after syncLimit ticks,
//! Consul's servers after Raft's heartbeat timeout × raft_multiplier.

use fencing_sim::scenario::Fault;
use fencing_sim::{presets, run, Actor, Kind, LockService, Scenario};

/// The partitioned-leader story (L1 cut off from both followers at 3 s),
/// held for 40 s so that the step-down comes before any heal.
fn partitioned(service: LockService) -> Scenario {
    let mut scenario = presets::build("consensus-partitioned-leader").expect("preset");
    scenario.lock_service = service;
    for fault in &mut scenario.faults {
        if let Fault::Partition { for_ms, .. } = fault {
            *for_ms = 40_000;
        }
    }
    scenario
}

fn step_down_text(service: LockService) -> String {
    let trace = run(&partitioned(service)).unwrap();
    let event = trace.events.iter().find(|event| event.kind == Kind::SteppedDown).expect("the leader steps down");
    assert_eq!(event.actor, Actor::LockNode(0));
    event.text.clone()
}

#[test]
fn a_leader_steps_down_after_its_own_services_timers() {
    let says = |service: LockService, how_long: &str| {
        let text = step_down_text(service);
        let wanted = format!("L1 has not reached a majority of the members for {how_long} and steps down: it commits nothing more");
        assert_eq!(text, wanted, "{service:?}");
    };
    says(LockService::ZooKeeper, "10.000 s (syncLimit × tickTime = 5 × 2 s)");
    says(LockService::Consul, "5.000 s (Raft's heartbeat timeout × raft_multiplier = 1 s × 5)");
    let etcd = partitioned(LockService::Consensus);
    says(LockService::Consensus, &format!("{} (the election timeout)", fencing_sim::format_us(etcd.failover_ms * 1000)));
}
