use super::*;
use crate::pauses::{PauseLaw, PauseShape};

/// Pauses frequent and long enough for a short test to see incidents: a
/// median of 2 s, a 99th percentile of 30 s, a tail exponent of 1, ten a
/// minute.
const STORMY: PauseShape =
    PauseShape::Custom(PauseLaw { median_us: 2_000_000, p99_us: 30_000_000, tail_exponent_milli: 1_000, per_hour: 600, cap_us: None });

fn stormy(span_ms: u64) -> Scenario {
    base(8, span_ms, STORMY)
}

#[test]
fn a_fleet_replays_to_the_same_figures() {
    let scenario = stormy(120_000);
    let once = serde_json::to_string(&run(&scenario).unwrap()).unwrap();
    assert_eq!(once, serde_json::to_string(&run(&scenario).unwrap()).unwrap());
}

#[test]
fn without_fencing_zombies_land_and_with_it_they_are_refused() {
    let off = run(&stormy(600_000)).unwrap();
    assert!(off.jobs > 1_000, "{} jobs", off.jobs);
    assert!(off.zombie_writes > 0 && off.stale_overwrites > 0, "{off:?}");
    let on = run(&Scenario { fencing: true, ..stormy(600_000) }).unwrap();
    assert_eq!(on.stale_overwrites, 0, "fencing: no stale overwrite, ever");
    assert!(on.rejected_writes > 0, "the zombies are refused instead");
    let last = on.timeline.last().unwrap();
    assert_eq!((last.rejected_writes, last.stale_overwrites), (on.rejected_writes, 0), "the timeline ends at the counters");
    assert!(on.timeline.windows(2).all(|pair| pair[0].rejected_writes <= pair[1].rejected_writes), "counters only climb");
}

#[test]
fn incidents_name_the_pause_their_writer_woke_from() {
    let report = run(&stormy(300_000)).unwrap();
    let zombie = report.incidents.iter().find(|incident| incident.kind != IncidentKind::Rejected).expect("an incident");
    let (paused_at_us, pause_us) = (zombie.paused_at_us.unwrap(), zombie.pause_us.unwrap());
    assert!(paused_at_us + pause_us <= zombie.t_us, "the write came after the pause ended");
    assert_eq!(report.incidents_total as usize, report.incidents.len());
}

#[test]
fn a_longer_lease_makes_zombies_rarer_and_a_crash_wait_longer() {
    // Two simulated hours: at seed 1 the 40 s lease still lets 3 zombies through.
    let rows = trade(&stormy(7_200_000), &[10_000, 40_000], false).unwrap();
    let (short, long, fenced) = (&rows[0], &rows[1], &rows[2]);
    assert!(long.zombie_rate.per_10k < short.zombie_rate.per_10k, "{} vs {}", long.zombie_rate.per_10k, short.zombie_rate.per_10k);
    assert!(long.zombie_rate.per_10k > 0.0, "rarer, not impossible");
    assert!(long.crash_wait_us > 3 * short.crash_wait_us, "{} vs {}", long.crash_wait_us, short.crash_wait_us);
    assert!(fenced.fencing && fenced.ttl_ms == 10_000 && fenced.stale_rate.per_10k == 0.0);
}

#[test]
fn rates_carry_intervals_around_them() {
    let rate = Rate::of(17, 10_000);
    assert!((rate.per_10k - 17.0).abs() < 1e-9 && rate.low < 17.0 && rate.high > 17.0);
    let none = Rate::of(0, 5_000);
    assert_eq!((none.per_10k, none.low), (0.0, 0.0));
    assert!(none.high > 0.0, "none seen is not none possible");
}

#[test]
fn a_story_is_not_a_fleet_and_bad_fleets_are_named() {
    assert!(run(&presets::classic()).is_err());
    let too_many = Scenario { workers: 65, ..stormy(60_000) };
    assert!(run(&too_many).unwrap_err().problems.iter().any(|problem| problem.contains("workers must be 2–64")));
    let story_with_many = Scenario { workers: 6, ..presets::classic() };
    assert!(story_with_many.validate().is_err(), "a story stays at five workers");
}

#[test]
fn the_window_around_an_incident_tells_it_as_a_story() {
    let scenario = stormy(300_000);
    let report = run(&scenario).unwrap();
    let incident = report.incidents.iter().find(|incident| incident.kind == IncidentKind::StaleOverwrite).expect("a stale overwrite");
    let margin_us = 2_000_000;
    let trace = window(&scenario, incident, margin_us).unwrap();
    let from_us = incident.paused_at_us.unwrap() - margin_us;
    assert!(trace.events.iter().all(|event| (from_us..=incident.t_us + margin_us).contains(&event.t_us)));
    assert!(trace.events.iter().enumerate().all(|(position, event)| event.index as usize == position), "indexed as a story is");
    let write = trace
        .events
        .iter()
        .find(|event| event.t_us == incident.t_us && matches!(event.kind, Kind::WriteAccepted { stale_overwrite: true, .. }));
    let write = write.expect("the incident's own write is in its window");
    assert_eq!((write.actor, write.token), (crate::Actor::Store, incident.token));
    assert!(
        trace.events.iter().any(|event| matches!(event.kind, Kind::PauseBegan { .. }) && event.actor == incident.writer),
        "and the pause it woke from"
    );
    assert!(trace.events.len() < 5_000, "{} events: a window, not the whole run", trace.events.len());
    assert_eq!(trace.summary.stale_overwrites, report.stale_overwrites, "the counters are the whole run's");
}

#[test]
fn a_fleet_taken_in_slices_is_the_same_run() {
    let scenario = stormy(300_000);
    let whole = run(&scenario).unwrap().fingerprint();
    for slice in [1, 997, 50_000] {
        let mut stepper = Stepper::new(&scenario).unwrap();
        let (mut last_milli, mut last_zombies, mut slices) = (0, 0, 0u32);
        while !stepper.advance(slice) {
            slices += 1;
            assert!(slices < 10_000_000, "a bounded run ends");
            if slices % 101 == 0 {
                let (milli, partial) = (stepper.progress_milli(), stepper.report());
                assert!(milli >= last_milli && milli < 1000, "progress climbs and stays below the end until the end");
                assert!(partial.zombie_writes >= last_zombies, "counters only climb");
                assert!(partial.timeline.iter().all(|point| point.t_us <= partial.end_us), "no point past the clock");
                (last_milli, last_zombies) = (milli, partial.zombie_writes);
            }
        }
        assert_eq!(stepper.progress_milli(), 1000);
        assert_eq!(stepper.report().fingerprint(), whole, "slices of {slice} steps");
    }
}

#[test]
fn an_incident_story_names_who_was_involved_and_tells_it() {
    for fencing in [false, true] {
        let scenario = Scenario { fencing, ..stormy(300_000) };
        let report = run(&scenario).unwrap();
        let incident = report.incidents.iter().find(|incident| incident.kind != IncidentKind::ZombieWrite).expect("an incident");
        let trace = window(&scenario, incident, 1_000_000).unwrap();
        let story = Story::of(incident, &trace);
        let other = story.other.expect("a stale write meets someone's newer grant");
        assert_ne!(other, incident.writer);
        let kinds: Vec<&crate::Kind> = story.rows.iter().map(|&index| &trace.events[index as usize].kind).collect();
        assert!(kinds.iter().any(|kind| matches!(kind, crate::Kind::PauseBegan { .. })), "the writer's pause is told");
        let write = |kind: &&crate::Kind| matches!(kind, crate::Kind::WriteAccepted { .. } | crate::Kind::WriteRejected { .. });
        assert!(kinds.iter().any(write), "the write is told");
        assert!(story.rows.windows(2).all(|pair| pair[0] < pair[1]) && story.rows.len() <= crate::fleet::STORY_ROWS_MAX);
        let actors: Vec<crate::Actor> = story.rows.iter().map(|&index| trace.events[index as usize].actor).collect();
        assert!(actors.contains(&other), "the other worker's own events are told too");
        let others = actors.iter().filter(|actor| **actor == other).count();
        assert!(others < 20, "only the other's part from the grant the write ran into: {others} rows");
    }
}

/// A fleet stopped at its event bound before its span has figures only for
/// the time that ran: its timeline ends where the run stopped, not padded
/// with flat counters to the end of the span.
#[test]
fn a_truncated_fleet_has_no_padded_timeline() {
    let span_ms = 600_000;
    let report = run(&Scenario { events_max: 20_000, ..stormy(span_ms) }).unwrap();
    assert!(report.truncated, "20,000 events is far short of ten minutes of eight workers");
    assert!(report.end_us < span_ms * 1000, "stopped at {} µs", report.end_us);
    let last = report.timeline.last().unwrap();
    assert_eq!(last.t_us, report.end_us, "the timeline ends at the clock");
    assert!(report.timeline.iter().all(|point| point.t_us <= report.end_us));
}

/// Issue 41, finding 4: the same stormy fleet with its pauses capped at
/// 40 s. No pause is longer than the cap, and a lease longer than the cap
/// (with the job's work and its messages) sees no zombie write, where the
/// unbounded shape at that lease does (fixed seeds).
#[test]
fn a_bounded_shape_never_outlasts_its_cap_and_a_longer_lease_reaches_zero() {
    let PauseShape::Custom(law) = STORMY else { unreachable!() };
    let capped = PauseShape::Custom(PauseLaw { cap_us: Some(40_000_000), ..law });
    let mut unbounded_zombies = 0;
    for seed in 1..=3 {
        let at = |pauses: PauseShape, ttl_ms: u64| Scenario { ttl_ms, seed, ..base(8, 600_000, pauses) };
        let bounded = run(&at(capped, 10_000)).unwrap();
        assert!(bounded.longest_pause_us <= 40_000_000, "seed {seed}: a {} µs pause", bounded.longest_pause_us);
        assert!(bounded.zombie_writes > 0, "seed {seed}: a lease shorter than the cap still has zombies");
        assert_eq!(run(&at(capped, 60_000)).unwrap().zombie_writes, 0, "seed {seed}: no pause outlasts a 60 s lease");
        unbounded_zombies += run(&at(STORMY, 60_000)).unwrap().zombie_writes;
    }
    assert!(unbounded_zombies > 0, "without the cap, the same lease has zombies: the test means something");
}

/// The bounded trade's leases run past the cap, and its sentence says the
/// zero it reached rests on the cap being known.
#[test]
fn the_bounded_trade_reaches_a_lease_longer_than_the_cap() {
    let scenario = base(16, 3_600_000, PauseShape::ThrottledContainer);
    let (_, bound, sides) = bounded_sides(&scenario).unwrap();
    assert_eq!(bound.cap_us, 240_000_000);
    assert_eq!(sides.iter().map(|side| side.ttl_ms).collect::<Vec<_>>(), [10_000, 20_000, 40_000, 80_000, 160_000, 320_000]);
    assert!(sides.last().unwrap().ttl_ms * 1000 > bound.cap_us);
    assert!(bounded_sides(&base(4, 3_600_000, STORMY)).is_none(), "a custom shape has no cited bound");
}

/// The shipped rows are what the fleets give now; the bounded trade of the
/// default fleet reaches zero at the first lease longer than its cap, and
/// its sentence says so and why that zero is not a promise.
#[test]
fn the_shipped_trades_are_the_fleets() {
    let base = shipped::base();
    let fresh = trade(&base, &TRADE_LEASES_MS, false).unwrap();
    let (bounded_rows, bound) = bounded_trade(&base).unwrap().unwrap();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/fleet/shipped.rs");
        let old = std::fs::read_to_string(path).unwrap();
        let head = &old[..old.find("// The shipped rows.").expect("the marker")];
        let rate = |rate: Rate| format!("Rate {{ per_10k: {:?}, low: {:?}, high: {:?} }}", rate.per_10k, rate.low, rate.high);
        let rows = |rows: &[TradeRow]| -> String {
            rows.iter()
                .map(|row| {
                    format!(
                        "    TradeRow {{\n        ttl_ms: {},\n        fencing: {},\n        renewal: {},\n        jobs: {},\n        zombie_rate: {},\n        stale_rate: {},\n        crash_wait_us: {},\n    }},\n",
                        row.ttl_ms, row.fencing, row.renewal, row.jobs, rate(row.zombie_rate), rate(row.stale_rate), row.crash_wait_us
                    )
                })
                .collect()
        };
        std::fs::write(
            path,
            format!(
                "{head}// The shipped rows.\npub const TRADE: &[TradeRow] = &[\n{}];\npub const BOUNDED: &[TradeRow] = &[\n{}];\n",
                rows(&fresh),
                rows(&bounded_rows)
            ),
        )
        .unwrap();
    }
    assert_eq!(shipped::TRADE, &fresh[..], "the shipped rows are stale: rewrite them with UPDATE_GOLDEN=1");
    assert_eq!(shipped::BOUNDED, &bounded_rows[..], "the shipped rows are stale: rewrite them with UPDATE_GOLDEN=1");
    assert_eq!(shipped::trade(&Scenario { ttl_ms: 40_000, ..base.clone() }, false), Some(shipped::TRADE), "any lease of the same fleet");
    assert_eq!(shipped::trade(&base, true), None, "the renewal curve is not shipped");
    assert_eq!(shipped::trade(&Scenario { seed: 2, ..base.clone() }, false), None);
    // Under the cap, the lease longer than it has no zombie write.
    let longest = bounded_rows.last().unwrap();
    assert!(longest.ttl_ms * 1000 > bound.cap_us);
    assert_eq!(longest.zombie_rate.per_10k, 0.0, "{bounded_rows:?}");
    assert!(bounded_rows[0].zombie_rate.per_10k > 0.0, "the short lease still has zombies under the cap");
    let sentence = super::bounded(&bounded_rows, bound).unwrap();
    assert!(sentence.contains("to none at 5 min 20 s, a lease longer than the cap"), "{sentence}");
    assert!(sentence.contains("ZOOKEEPER-601") && sentence.contains("no one knows"), "{sentence}");
}

#[test]
fn a_fleets_times_read_one_way() {
    assert_eq!(when(0), "day 1, 00:00:00");
    assert_eq!(when(1_229_321_000), "day 1, 00:20:29");
    assert_eq!(when(86_410_007_000), "day 2, 00:00:10");
    assert_eq!(when_to_ms(1_229_321_000), "day 1, 00:20:29.321");
    for (us, words) in [
        (120_000, "120.0 ms"),
        (9_692_790, "9.692 s"),
        (193_024_000, "3 min 13 s"),
        (320_000_000, "5 min 20 s"),
        (3_600_000_000, "1 h"),
        (86_400_000_000, "1 day"),
        (604_800_000_000, "7 days"),
    ] {
        assert_eq!(lasting(us), words);
    }
}

#[test]
fn an_incidents_story_reads_its_times_the_fleets_way() {
    assert_eq!(
        story::fleet_times("A holds the lock with token 34, until 1229.321 s by its own clock"),
        "A holds the lock with token 34, until day 1, 00:20:29.321 by its own clock"
    );
    assert_eq!(story::fleet_times("A pauses for 193.024 s"), "A pauses for 3 min 13 s");
    assert_eq!(story::fleet_times("B backs off for 0.6 ms before trying again"), "B backs off for 0.6 ms before trying again");
    assert_eq!(
        story::fleet_times("the lease ran out at 86410.007 s; A waits 15.000 s"),
        "the lease ran out at day 2, 00:00:10.007; A waits 15.000 s"
    );
    assert_eq!(story::fleet_times("token 33 and 12 workers"), "token 33 and 12 workers");
    // Every sentence of a real incident's story, rewritten, keeps no raw moment.
    let scenario = stormy(300_000);
    let report = run(&scenario).unwrap();
    let incident = report.incidents[0];
    let trace = window(&scenario, &incident, WINDOW_MARGIN_US).unwrap();
    let lines = Story::of(&incident, &trace).lines(&trace);
    assert!(!lines.is_empty());
    for (_, time, text) in &lines {
        assert!(time.starts_with("day 1, "), "{time}");
        assert!(!text.contains("until 1") && !text.contains("until 2"), "{text}");
    }
}

/// The crash-wait axis is the worst case (issue 41): a crash right after A
/// takes the lock keeps B out for the whole lease, never less (a crash 1 s
/// into a 10 s lease, the preset's, waited 9.69 s).
#[test]
fn the_crash_wait_is_the_whole_lease_at_least() {
    let base = crate::presets::classic();
    for ttl_ms in [10_000, 40_000] {
        let wait_us = crate::fleet::crash_wait_us(&base, ttl_ms).expect("the holder-crash story runs");
        assert!(wait_us >= ttl_ms * 1_000, "a {ttl_ms} ms lease kept B out for only {wait_us} µs after A's crash");
        assert!(wait_us < ttl_ms * 1_000 + 2_000_000, "B's retries reach the lock within 2 s of its end: {wait_us} µs");
    }
}

/// A run cut short names both lengths as the fleet writes every length
/// (`lasting`), not as a story's seconds: "of its 1 day span", never
/// "86400.000 s" (issue 41).
#[test]
fn a_run_cut_short_reads_its_lengths_the_fleets_way() {
    let day_ms = 86_400_000;
    let scenario = Scenario { events_max: 20_000, ..stormy(day_ms) };
    let report = run(&scenario).unwrap();
    assert!(report.truncated);
    let said = cut_short(&report, day_ms).expect("cut short");
    let ran = lasting(report.end_us);
    assert_eq!(
        said,
        format!("CUT SHORT: the run reached its bound on events after {ran} of its 1 day span; every figure below is for those {ran}")
    );
    assert!(!said.contains("86400"), "{said}");
}
