use super::*;

#[test]
fn the_default_is_valid() {
    assert_eq!(Scenario::default().validate(), Ok(()));
}

#[test]
fn every_problem_is_listed() {
    let scenario = Scenario {
        workers: 50,
        ttl_ms: 0,
        faults: vec![Fault::Crash { worker: Actor::Worker(4), at_ms: 10, after_event: None }],
        ..Scenario::default()
    };
    let problems = scenario.validate().unwrap_err().problems;
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("workers must be 2–5, not 50"));
    assert!(problems[1].contains("ttl_ms must be 1–"));
    let scenario =
        Scenario { faults: vec![Fault::Crash { worker: Actor::Worker(4), at_ms: 10, after_event: None }], ..Scenario::default() };
    let problems = scenario.validate().unwrap_err().problems;
    assert_eq!(problems, vec!["fault 1: there is no E in a scenario with 2 workers".to_string()]);
}

#[test]
fn a_write_that_does_not_exist_is_refused() {
    let pause = Fault::Pause { worker: Actor::Worker(0), when: When::BeforeWrite(3), pause_ms: 1 };
    let scenario = Scenario { faults: vec![pause], ..Scenario::default() };
    assert!(scenario.validate().unwrap_err().problems[0].contains("write 3 does not exist"));
}

#[test]
fn json_round_trips_and_unknown_fields_are_refused() {
    let scenario = Scenario::default();
    let json = serde_json::to_string(&scenario).unwrap();
    assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), scenario);
    let error = serde_json::from_str::<Scenario>(r#"{"ttl_msec": 5}"#).unwrap_err().to_string();
    assert!(error.contains("unknown field `ttl_msec`"), "{error}");
    let partial: Scenario = serde_json::from_str(r#"{"ttl_ms": 5}"#).unwrap();
    assert_eq!(partial.ttl_ms, 5);
}

#[test]
fn json_with_too_many_faults_is_refused_at_the_first_extra_one() {
    let crash = r#"{"fault": "crash", "worker": "B", "at_ms": 1}"#;
    let faults = |count: usize| format!(r#"{{"faults": [{}]}}"#, vec![crash; count].join(","));
    assert_eq!(serde_json::from_str::<Scenario>(&faults(FAULTS_MAX)).unwrap().faults.len(), FAULTS_MAX);
    let error = serde_json::from_str::<Scenario>(&faults(FAULTS_MAX + 1)).unwrap_err().to_string();
    assert!(error.starts_with("at most 32 faults, not more at line 1"), "{error}");
}
