use super::*;

#[test]
fn the_default_fleet_round_trips() {
    assert_eq!(to_query(&DEFAULT_FLEET), "seed=1");
    assert_eq!(parse("seed=1"), (DEFAULT_FLEET, vec![]));
    assert_eq!(parse("").0, DEFAULT_FLEET);
}

#[test]
fn a_changed_fleet_round_trips() {
    let law = PauseLaw { median_us: 2_000_000, p99_us: 30_000_000, tail_exponent_milli: 1_000, per_hour: 600, cap_us: None };
    for link in [
        FleetLink { ttl_ms: 40_000, fencing: true, seed: 9, ..DEFAULT_FLEET },
        FleetLink { workers: 64, span_ms: 3_600_000, pauses: PauseShape::JvmFullGc, renewal: true, work_ms: 5_000, ..DEFAULT_FLEET },
        FleetLink { pauses: PauseShape::Custom(law), ..DEFAULT_FLEET },
    ] {
        let query = to_query(&link);
        assert_eq!(parse(&query), (link, vec![]), "{query}");
        assert_eq!(parse(&format!("view=fleet&{query}")).0, link, "the page's keys are the page's");
    }
}

#[test]
fn bad_values_are_ignored_and_said() {
    let (link, notices) = parse("workers=65&ttl_ms=-5&pauses=earthquake&span_ms=999999999999&colour=red");
    assert_eq!(link, DEFAULT_FLEET);
    assert_eq!(notices.len(), 5, "{notices:?}");
    assert!(notices[0].contains("2 to 64 workers"), "{notices:?}");
    assert!(notices[2].contains("jvm_full_gc, vm_migration"), "{notices:?}");
}

#[test]
fn a_custom_shape_needs_consistent_figures() {
    let (link, notices) = parse("pauses=custom&median_ms=500&p99_ms=100");
    assert_eq!(link.pauses, DEFAULT_FLEET.pauses, "a 99th percentile below the median is refused");
    assert!(notices[0].contains("99th percentile"), "{notices:?}");
    let (link, notices) = parse("median_ms=500");
    assert_eq!((link.pauses, notices.len()), (DEFAULT_FLEET.pauses, 0), "figures alone choose nothing");
}

#[test]
fn the_link_and_the_command_line_run_the_same_fleet() {
    let scenario = parse("ttl_ms=40000").0.scenario();
    assert_eq!((scenario.ttl_ms, scenario.workers, scenario.fleet.unwrap().span_ms), (40_000, 16, 86_400_000));
}

/// A small fleet of the default's kind, for its fingerprint.
fn small(seed: u64) -> (FleetLink, crate::fleet::FleetReport) {
    let link = FleetLink { workers: 4, span_ms: 600_000, seed, ..DEFAULT_FLEET };
    let report = crate::fleet::run(&link.scenario()).expect("a valid fleet");
    (link, report)
}

#[test]
fn a_fleet_links_fingerprint_reads_back_and_names_what_changed() {
    let (link, report) = small(1);
    let text = FleetStory::of(&report).to_text();
    assert_eq!(FleetStory::parse(&text), Some(FleetStory::of(&report)), "{text}");
    assert!(text.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"_.".contains(&byte)), "{text}");
    // The page writes it after the fleet's own keys; reading the link ignores it.
    let (read, notices) = parse(&format!("{}&fp={text}", to_query(&link)));
    assert_eq!((read, notices), (link, Vec::new()));
    assert_eq!(fingerprint_notice(&text, &report), None, "its own run");
    // A link made when the fleet ran otherwise (here: another seed's draws).
    let (_, other) = small(2);
    let notice = fingerprint_notice(&FleetStory::of(&other).to_text(), &report).expect("another fleet");
    assert!(notice.starts_with(crate::permalink::story::CHANGED), "{notice}");
    assert!(notice.contains("its author"), "{notice}");
    for damaged in ["", "1234", "0000000g_1_0.0.0.0_0", "00000000_1_0.0.0_0", "00000000_x_0.0.0.0_0"] {
        let notice = fingerprint_notice(damaged, &report).unwrap();
        assert!(notice.starts_with("ignored fp="), "{damaged:?}: {notice}");
    }
}
