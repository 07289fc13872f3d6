//! The smaller untruths of issue 41 (finding 6), each corrected in the
//! model's own words and guarded here: each assertion failed on the words
//! the model used before.

use fencing_sim::narrate::narrate;
use fencing_sim::{presets, run, Kind, RedisPersistence};

fn labels(preset: &str) -> Vec<String> {
    let trace = run(&presets::build(preset).unwrap()).unwrap();
    let service = trace.scenario.lock_service;
    trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            Kind::Send { body, .. } => Some(service.label_of(&body)),
            _ => None,
        })
        .collect()
}

#[test]
fn etcds_messages_carry_etcds_names_not_redis_commands() {
    let said = labels("consensus-gc-pause");
    assert!(said.iter().all(|label| !label.contains(" PX ")), "etcd speaks LeaseKeepAlive, not PEXPIRE: {said:?}");
    assert!(said.iter().any(|label| label.starts_with("LeaseKeepAlive")), "{said:?}");
    assert!(said.iter().any(|label| label.contains("LeaseRevoke")), "{said:?}");
}

#[test]
fn the_cut_off_leader_renewing_in_memory_is_said_to_be_etcd_3_4s() {
    let story = presets::find("consensus-partitioned-leader").unwrap().story;
    assert!(story.contains("etcd 3.4") && story.contains("newer releases check leadership"), "{story}");
}

#[test]
fn aof_everysec_loses_nothing_only_while_the_disk_keeps_up() {
    assert!(RedisPersistence::AofEverysec.label().contains("while the disk keeps up"));
}

#[test]
fn a_resumed_process_can_see_afterwards_that_time_passed() {
    let trace = run(&presets::classic()).unwrap();
    let resumed = trace.events.iter().find(|event| event.kind == Kind::PauseEnded).expect("A resumes");
    let said = narrate(resumed.actor, &resumed.kind, resumed.token, resumed.t_us, &trace.scenario);
    assert!(!said.contains("unaware"), "{said}");
    assert!(said.contains("afterwards") && said.contains("in time"), "{said}");
}

/// The fenced consensus rows' "lost update: pause + pause" is the search's
/// result for the table's design, which writes the moment it holds the
/// lock; with work between the grant and the write, one pause breaks it,
/// and the table says so (issue 41, finding 6).
#[test]
fn one_pause_loses_an_update_when_the_work_takes_time_and_the_table_says_so() {
    use fencing_sim::explore::{explore, table, Outcome};
    use fencing_sim::property::Property;
    use fencing_sim::{LockService, Scenario};
    let faults = |work_ms: u64| {
        let design = Scenario { lock_service: LockService::Consensus, fencing: true, work_ms, ..presets::classic() };
        match explore(&design, Property::NoLostUpdate, 2).unwrap() {
            Outcome::Counterexample(found) => found.scenario.faults.iter().map(|fault| fault.kind().spec().short).collect::<Vec<_>>(),
            Outcome::None { .. } => Vec::new(),
        }
    };
    assert_eq!(faults(0), ["pause", "pause"], "the table's design writes the moment it holds the lock");
    assert_eq!(faults(2_000), ["pause"], "with 2 s of work, one pause is enough");
    let summary = table::summary(&[]);
    assert!(summary.contains("writes the moment it holds the lock"), "{summary}");
    assert!(summary.contains("with 2 s of work between the grant and the write, one pause"), "{summary}");
}
