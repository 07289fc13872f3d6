//! Lock workers that retry (issue 41, finding 5): a job whose result did
//! not land (a fenced write refused, a lock lost before the write) is
//! retried, as job runners do, so "work done twice?" is a search result for
//! every design, and the trade-off page says what a lock does not make
//! happen once.

use fencing_sim::explore::{explore, Outcome};
use fencing_sim::property::Property;
use fencing_sim::{presets, run, Kind, LockService, RedisPersistence, Scenario, TokenSource};

fn broken(design: &Scenario, property: Property) -> bool {
    matches!(explore(design, property, 2).unwrap(), Outcome::Counterexample(_))
}

#[test]
fn a_fenced_lock_keeps_the_data_right_but_not_the_work_once() {
    let fenced = Scenario { fencing: true, ..presets::classic() };
    let single = Scenario { token_source: TokenSource::AtomicScript, redis_persistence: RedisPersistence::FsyncAlways, ..fenced.clone() };
    for design in [single, Scenario { lock_service: LockService::Consensus, ..fenced.clone() }] {
        assert!(!broken(&design, Property::NoStaleOverwrite), "{:?}", design.lock_service);
        assert!(broken(&design, Property::WorkDoneOnce), "{:?}: a refused job is retried", design.lock_service);
    }
}

#[test]
fn the_tradeoffs_say_a_lock_does_not_make_the_work_happen_once() {
    let page = include_str!("../../lesson/pages/tradeoffs.html");
    for sentence in [
        "The token keeps the data right; it does not make the job's work happen once",
        "A lock does no better here: its refused or lost job is retried too.",
        "No row makes a job's work happen once.",
        "Celery's default <code>max_retries</code>",
    ] {
        assert!(page.contains(sentence), "the trade-offs no longer say: {sentence}");
    }
}

#[test]
fn without_fencing_the_zombie_write_lands_and_nothing_is_retried() {
    let trace = run(&presets::classic()).unwrap();
    assert_eq!(trace.summary.work_redone, 0);
    assert!(trace.events.iter().all(|event| event.kind != Kind::Retry));
}
