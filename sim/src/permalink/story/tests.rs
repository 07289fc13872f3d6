use super::{of_scenario, Story};
use crate::permalink::{parse, to_link, Permalink};
use crate::scenario::Scenario;
use crate::{presets, run};

fn story(scenario: &Scenario) -> Story {
    Story::of(&run(scenario).expect("a valid scenario"))
}

#[test]
fn the_classic_run_reads_as_its_grants_counters_and_store() {
    let text = story(&presets::classic()).to_text();
    let facts: Vec<&str> = text.split('_').collect();
    assert_eq!(facts[1..4], ["A-33.B-34", "1.1.0.2", "A-33"], "{text}");
    assert_eq!(Story::parse(&text), Some(story(&presets::classic())), "it reads back as written");
}

#[test]
fn every_presets_fingerprint_reads_back_and_matches_its_own_run() {
    for preset in presets::PRESETS {
        for fencing in [false, true] {
            let scenario = Scenario { fencing, ..(preset.build)() };
            let written = story(&scenario);
            let text = written.to_text();
            assert!(text.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"_.-".contains(&byte)), "{text}: carried as it is");
            assert_eq!(Story::parse(&text).as_ref(), Some(&written), "{} fencing={fencing}: {text}", preset.id);
            assert_eq!(written.first_difference(&written), None);
        }
    }
}

/// A link made before a preset was retimed: the run it opens now is another
/// one, and the first difference is named.
#[test]
fn a_link_made_before_a_change_names_the_first_difference() {
    let cases = [
        // Made with fencing on: A's refused job is retried, a third grant.
        (
            Scenario { fencing: true, ..presets::classic() },
            "its author saw the lock's 3rd grant go to A with token 35; this run has no 3rd grant",
        ),
        // The token inversion: B is the first to hold a token.
        (
            presets::build("token-inversion").unwrap(),
            "its author saw the lock's 1st grant go to B with token 33; in this run it goes to A with token 33",
        ),
        // A longer lease: the same story, later.
        (Scenario { ttl_ms: 12_000, ..presets::classic() }, "its author's run had"),
        // A longer pause: the same steps, at other moments.
        (crate::sweep::Param::PauseMs.apply(&presets::classic(), 16_000), "events differ in their timing or order"),
    ];
    for (then, expected) in cases {
        let written = to_link(&Permalink { scenario: then.clone(), cursor: None, compare: None });
        let fingerprint = written.rsplit_once("&fp=").expect("a link carries its fingerprint").1;
        // The same link read against the classic run, as if the preset had changed.
        let (_, notices) = parse(&format!("preset=gc-pause&fp={fingerprint}"));
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].starts_with("This link was made with an earlier version of the simulator; the run below differs"),
            "{notices:?}"
        );
        assert!(notices[0].contains(expected), "{notices:?} should say {expected:?}");
    }
}

#[test]
fn a_link_whose_run_is_unchanged_reads_without_a_notice() {
    for preset in presets::PRESETS {
        let link = to_link(&Permalink { scenario: (preset.build)(), cursor: Some(3), compare: None });
        assert!(link.contains("&fp="), "{link}");
        let (read, notices) = parse(&link);
        assert!(notices.is_empty(), "{link}: {notices:?}");
        assert_eq!(read.scenario, (preset.build)());
    }
}

#[test]
fn a_damaged_fingerprint_is_ignored_with_a_notice_never_a_panic() {
    let good = of_scenario(&presets::classic()).unwrap();
    let damaged = [
        "",
        "zz",
        "12345678",
        "1234567_A-33_1.1.0.2_A-33_18.25004",
        "12345678_A-x_1.1.0.2_A-33_18.25004",
        "12345678_A-33_1.1.0_A-33_18.25004",
        "12345678_A-33_1.1.0.2_Q9-1_18.25004",
        "12345678_A-33_1.1.0.2_A-33_18",
        "12345678_A-33_1.1.0.99999999999_A-33_18.1",
        "12345678_A.A.A.A.A.A.A.A.A_0.0.0.0_none_1.1",
        "héllo_wörld",
        &good[..good.len() - 1].replace('_', "__"),
    ];
    for text in damaged {
        assert_eq!(Story::parse(text), None, "{text:?}");
        let (_, notices) = parse(&format!("preset=gc-pause&fp={text}"));
        assert_eq!(notices.len(), 1, "{text:?}: {notices:?}");
        assert!(notices[0].starts_with("ignored fp="), "{notices:?}");
    }
}

#[test]
fn ordinals_read_as_english() {
    let words: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 103].into_iter().map(super::ordinal).collect();
    assert_eq!(words, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "103rd"]);
}

/// The example docs/instructors.md gives: a failover's repeated token,
/// read against a link made of the GC pause's run.
#[test]
fn the_documented_example_of_a_changed_grant_is_what_the_model_says() {
    let then = story(&Scenario { fencing: true, ..presets::classic() });
    let now = story(&presets::build("redis-failover").unwrap());
    assert_eq!(
        then.first_difference(&now).as_deref(),
        Some("its author saw the lock's 2nd grant go to B with token 34; in this run it goes to B with token 33")
    );
}
