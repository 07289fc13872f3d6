use super::*;
use crate::scenario::{LockService, Release, StoreKind};
use proptest::prelude::*;

fn preset(id: &str) -> Scenario {
    presets::build(id).unwrap()
}

/// Parses a link that must be fully understood.
fn clean(query: &str) -> Permalink {
    let (link, notices) = parse(query);
    assert_eq!(notices, Vec::<String>::new(), "{query}");
    link
}

/// The one notice a link gives.
fn notice(query: &str) -> String {
    let (_, notices) = parse(query);
    assert_eq!(notices.len(), 1, "{query}: {notices:?}");
    notices[0].clone()
}

#[test]
fn an_empty_link_is_the_default_preset() {
    for query in ["", "?", "&&", "?&"] {
        assert_eq!(clean(query), Permalink::default());
    }
    assert_eq!(Permalink::default().scenario, presets::classic());
    assert_eq!(to_query(&Permalink::default()), "preset=gc-pause&seed=1");
}

#[test]
fn every_setting_is_read() {
    let link = clean(
        "?preset=naive-del&seed=7&fencing=on&ttl_ms=20000&work_ms=300&workers=4&renewal=on&check=on\
         &release=cad&lock=redis_failover&store=nfs_file&cursor=12&compare=lease-x4",
    );
    let expected = Scenario {
        seed: 7,
        fencing: true,
        ttl_ms: 20_000,
        work_ms: 300,
        workers: 4,
        renewal: true,
        check_before_write: true,
        release: Release::CompareAndDelete,
        lock_service: LockService::RedisFailover,
        store: StoreKind::NfsFile,
        ..preset("naive-del")
    };
    assert_eq!(link, Permalink { scenario: expected, cursor: Some(12), compare: Some(Difference::LeaseX4) });
    let link = clean("lock=none&store=versioned&release=cad&lock=consensus&store=database");
    assert_eq!((link.scenario.lock_service, link.scenario.store), (LockService::Consensus, StoreKind::Database));
}

#[test]
fn the_last_of_repeated_settings_wins() {
    assert_eq!(clean("ttl_ms=5000&ttl_ms=7000").scenario.ttl_ms, 7_000);
    assert_eq!(clean("preset=renewal&preset=lease-x4").scenario, preset("lease-x4"));
    // An unusable repeat is ignored, as if it were not there.
    let (link, notices) = parse("ttl_ms=5000&ttl_ms=abc");
    assert_eq!((link.scenario.ttl_ms, notices.len()), (5_000, 1));
}

#[test]
fn unusable_values_are_ignored_with_a_reason() {
    assert_eq!(notice("ttl_ms=abc"), "ignored ttl_ms=abc: not a whole number of milliseconds");
    assert_eq!(notice("ttl_ms=-5"), "ignored ttl_ms=-5: the lease cannot be negative: it must be from 1 to 3600000 ms");
    assert_eq!(notice("ttl_ms=NaN"), "ignored ttl_ms=NaN: not a whole number of milliseconds");
    assert_eq!(notice("ttl_ms=1e4"), "ignored ttl_ms=1e4: not a whole number of milliseconds");
    assert_eq!(notice("ttl_ms=0"), "ignored ttl_ms=0: the lease must be from 1 to 3600000 ms");
    let forty_digits = "1".repeat(40);
    assert!(notice(&format!("ttl_ms={forty_digits}")).ends_with("the lease must be from 1 to 3600000 ms"));
    assert!(notice(&format!("seed={forty_digits}")).contains("the seed is a whole number from 0 to 18446744073709551615"));
    assert_eq!(notice("fencing=maybe"), "ignored fencing=maybe: expected on or off");
    assert_eq!(notice("workers=9"), "ignored workers=9: the number of workers is 2 to 5");
    assert_eq!(notice("release=unlink"), "ignored release=unlink: expected cad or del");
    assert!(
        notice("lock=chubby").ends_with("expected single_redis, redis_failover, redlock, consensus, zookeeper, consul, redisson or none")
    );
    assert!(notice("cursor=-1").contains("the cursor is an event number"));
    assert!(notice("compare=everything").contains("try fencing, lease-x4, renewal, store-nfs, lock-consensus or lock-redlock"));
    assert_eq!(notice("colour=red"), "ignored colour=red: there is no setting called colour");
    assert_eq!(notice("fencing"), "ignored fencing=: expected on or off");
    for query in ["ttl_ms=abc", "fencing=maybe", "colour=red", "seed=x"] {
        assert_eq!(parse(query).0, Permalink::default(), "{query}");
    }
}

#[test]
fn an_unknown_preset_shows_the_default() {
    let (link, notices) = parse("preset=gc-paws&seed=3");
    assert_eq!(link.scenario, Scenario { seed: 3, ..presets::classic() });
    assert_eq!(notices.len(), 1);
    assert!(notices[0].starts_with("ignored preset=gc-paws: there is no such preset (the presets are gc-pause, "));
}

#[test]
fn notices_repeat_long_or_odd_values_briefly() {
    let long = "x".repeat(10_000);
    let said = notice(&format!("ttl_ms={long}"));
    assert!(said.chars().count() < 120, "{said}");
    assert!(said.contains('…'));
    assert_eq!(notice("colour=%07"), "ignored colour=\u{FFFD}: there is no setting called colour");
}

#[test]
fn faults_replace_the_presets_and_round_trip() {
    let faults = [
        "pause:A:write1:15000",
        "pause:B:at5000:15000",
        "delay:A:1:15000",
        "crash:B:1000",
        "lose:A:1000",
        "lose:store:0",
        "partition:L1:0:500",
        "partition:store:10:500",
        "drift:L1:-2000",
        "jump:L1:2000:-10000",
        "nodecrash:L1:2:60000",
    ];
    let query: String = faults.iter().map(|fault| format!("&fault={fault}")).collect();
    let link = clean(&format!("preset=gc-pause{query}"));
    assert_eq!(link.scenario.faults.len(), faults.len());
    assert_eq!(link.scenario.faults[1], Fault::Pause { worker: Actor::Worker(1), when: When::AtMs(5_000), pause_ms: 15_000 });
    assert_eq!(link.scenario.faults[9], Fault::ClockJump { node: Actor::LockNode(0), at_ms: 2_000, jump_ms: -10_000, after_event: None });
    assert_eq!(to_query(&link), format!("preset=gc-pause&seed=1{query}"));
    let redlock = clean("preset=redlock-clock-jump&fault=partition:L4:0:500&fault=jump:L3:2000:10000");
    assert_eq!(redlock.scenario.faults.len(), 2);
}

#[test]
fn malformed_faults_are_ignored_and_keep_the_presets() {
    assert!(notice("fault=pause:A:write1").contains("this fault looks like pause:A:write1:15000"));
    assert!(notice("fault=pause:A:later:5").contains("this fault looks like pause:A:write1:15000"));
    assert!(notice("fault=pause:Q9:write1:5").contains("unknown actor \"Q9\""));
    assert!(
        notice("fault=pause:Z:write1:5").contains("there is no Z in a scenario with 2 workers"),
        "{}",
        notice("fault=pause:Z:write1:5")
    );
    assert!(notice("fault=drift:L1:1.5").contains("this fault looks like drift:L1:-2000"));
    assert!(notice("fault=delay:A:300:5").contains("this fault looks like delay:A:1:15000"));
    assert!(notice("fault=meteor:A:5").contains("a fault starts with its kind: pause, delay, lose"));
    let (link, _) = parse("fault=meteor:A:5");
    assert_eq!(link.scenario.faults, presets::classic().faults);
}

#[test]
fn none_removes_every_fault() {
    let link = clean("preset=gc-pause&fault=none");
    assert!(link.scenario.faults.is_empty());
    assert_eq!(to_query(&link), "preset=gc-pause&seed=1&fault=none");
}

#[test]
fn pause_ms_lengthens_every_pause_wherever_it_appears() {
    let link = clean("pause_ms=20000&fault=pause:A:write1:1&fault=pause:B:at9:2");
    assert!(link.scenario.faults.iter().all(|fault| matches!(fault, Fault::Pause { pause_ms: 20_000, .. })));
    let link = clean("preset=gc-pause&pause_ms=45000");
    assert_eq!(to_query(&link), "preset=gc-pause&seed=1&pause_ms=45000");
    assert_eq!(notice("preset=holder-crash&pause_ms=5000"), "ignored pause_ms=5000: this scenario has no pause to change");
}

#[test]
fn percent_encoding_and_plus_signs_are_decoded() {
    let link = clean("%3Fpreset=gc-pause".trim_start_matches("%3F"));
    assert_eq!(link, Permalink::default());
    let link = clean("fault=pause%3AA%3Awrite1%3A20000&fencing=%6Fn&+ttl_ms+=+5000");
    assert_eq!(link.scenario.faults, [Fault::Pause { worker: Actor::Worker(0), when: When::BeforeWrite(1), pause_ms: 20_000 }]);
    assert!(link.scenario.fencing);
    assert_eq!(link.scenario.ttl_ms, 5_000);
    assert_eq!(decode("a%zzb%4"), "a%zzb%4");
    assert_eq!(decode("%e2%9C%93+%"), "✓ %");
    assert_eq!(decode("%ff"), "\u{FFFD}");
    assert_eq!(decode("%26%3D"), "&=");
}

#[test]
fn settings_that_do_not_fit_together_fall_back_to_the_plain_preset() {
    let (link, notices) = parse("preset=renewal&seed=9&lock=redlock&ttl_ms=500&cursor=3");
    assert_eq!(link.scenario, Scenario { seed: 9, ..preset("renewal") });
    assert_eq!(link.cursor, Some(3));
    assert_eq!(notices.len(), 1);
    assert!(notices[0].starts_with("the link's settings do not fit together, so this is the plain renewal preset with seed 9: "));
    assert!(notices[0].contains("Redlock has no renewal"), "{}", notices[0]);
    let said = notice("fault=crash:E:5");
    assert!(said.contains("fault 1: there is no E in a scenario with 2 workers"), "{said}");
}

#[test]
fn the_work_is_capped() {
    let many_pairs = "ttl_ms=5000&".repeat(70);
    let (link, notices) = parse(&many_pairs);
    assert_eq!(link.scenario.ttl_ms, 5_000);
    assert_eq!(notices, ["ignored the last 6 settings: a link carries at most 64"]);
    let many_faults = "fault=crash:B:1&".repeat(40);
    let (link, notices) = parse(&many_faults);
    assert_eq!(link.scenario.faults.len(), FAULTS_MAX);
    assert_eq!(notices, ["ignored the last 8 faults: a scenario has at most 32"]);
}

#[test]
fn a_link_names_only_what_differs_from_its_preset() {
    let link = clean("preset=lease-x4&seed=5&ttl_ms=40000&fencing=on&compare=fencing");
    assert_eq!(to_query(&link), "preset=lease-x4&seed=5&fencing=on&compare=fencing");
    let every_preset_plainly = presets::PRESETS.iter().map(|preset| (preset.id, to_query(&clean(&format!("preset={}", preset.id)))));
    for (id, query) in every_preset_plainly {
        assert_eq!(query, format!("preset={id}&seed=1"));
    }
}

/// Pieces of links: mostly meaningful, some broken, some percent-encoded.
fn piece() -> impl Strategy<Value = String> {
    let preset = prop::sample::select(presets::PRESETS.iter().map(|preset| preset.id).chain(["nope"]).collect::<Vec<_>>());
    let number = prop_oneof![0..8u64, 0..70_000u64, any::<u64>()].prop_map(|number| number.to_string());
    let word = prop::sample::select(vec![
        "on",
        "off",
        "maybe",
        "cad",
        "del",
        "single_redis",
        "redis_failover",
        "redlock",
        "consensus",
        "none",
        "database",
        "versioned",
        "nfs_file",
        "abc",
        "-5",
        "",
        "fencing",
        "lease-x4",
        "store-nfs",
        "lock-redlock",
        "NaN",
    ]);
    let actor = prop::sample::select(vec!["A", "B", "C", "E", "L1", "L2", "L4", "store", "Q"]);
    let kind = prop::sample::select(crate::scenario::FAULT_SPECS.iter().map(|spec| spec.link).chain(["none"]).collect::<Vec<_>>());
    let when = prop_oneof![(0..3u8).prop_map(|n| format!("write{n}")), (0..20_000u64).prop_map(|ms| format!("at{ms}"))];
    let numbers = prop::collection::vec(-3_000..70_000i64, 1..4);
    let fault = (kind, actor, when, numbers).prop_map(|(kind, actor, when, numbers)| {
        let when = if kind == "pause" { vec![when] } else { Vec::new() };
        let numbers = numbers.iter().map(i64::to_string);
        [kind.to_string(), actor.to_string()].into_iter().chain(when).chain(numbers).collect::<Vec<_>>().join(":")
    });
    let key = prop::sample::select(vec![
        "seed", "fencing", "ttl_ms", "pause_ms", "work_ms", "workers", "renewal", "check", "release", "lock", "store", "cursor", "compare",
        "colour",
    ]);
    prop_oneof![
        preset.prop_map(|id| format!("preset={id}")),
        (key.clone(), number).prop_map(|(key, number)| format!("{key}={number}")),
        (key, word).prop_map(|(key, word)| format!("{key}={word}")),
        fault.clone().prop_map(|fault| format!("fault={fault}")),
        fault.prop_map(|fault| format!("fault={}", fault.replace(':', "%3A"))),
        Just("fault=none".to_string()),
        "[ -~]{0,12}",
    ]
}

/// A fixed seed: the same links on every machine, every run.
fn config() -> ProptestConfig {
    let rng_seed = proptest::test_runner::RngSeed::Fixed(0x114c);
    ProptestConfig { cases: 3_000, failure_persistence: None, rng_seed, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn every_parsed_link_round_trips_without_notices(pieces in prop::collection::vec(piece(), 0..12)) {
        let (link, _) = parse(&pieces.join("&"));
        prop_assert_eq!(link.scenario.validate(), Ok(()));
        let query = to_query(&link);
        let (again, notices) = parse(&query);
        prop_assert!(notices.is_empty(), "{}: {:?}", query, notices);
        prop_assert_eq!(again, link, "{}", query);
    }

    #[test]
    fn parsing_never_panics(query in "\\PC{0,200}", bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse(&query);
        let _ = parse(&String::from_utf8_lossy(&bytes));
    }
}
