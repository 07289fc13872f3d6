//! `relink::check` (what `fencing-lab link` says of a link) against
//! arbitrary text: it never panics, it says at least every notice the page
//! would show, a link it gives out reads on the page with no notice at all,
//! and a question or set whose checksum failed is never signed again.
//! cli/tests/hostile.rs runs the command itself on a sample of the same.

use fencing_sim::relink::{check, read};
use proptest::prelude::*;

/// The seed the strings are drawn from: the same on every machine, every run.
const SEED: u64 = 0x6c69_6e6b;

/// Cases a run; a twentieth with `FENCING_LAB_QUICK` (the same seed: the first ones).
fn cases() -> u32 {
    if std::env::var_os("FENCING_LAB_QUICK").is_some() {
        150
    } else {
        3_000
    }
}

fn link_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("preset=gc-pause".to_string()),
        Just("preset=lease-x4".to_string()),
        Just("fencing=on".to_string()),
        Just("set".to_string()),
        Just("set=".to_string()),
        Just("set=cHJlc2V0PWdjLXBhdXNl".to_string()),
        Just("ask=owner".to_string()),
        Just("prompt=Whose%20data%3F".to_string()),
        Just("sum=00000000".to_string()),
        Just("fp=".to_string()),
        Just("fp=bogus".to_string()),
        Just("view=compare".to_string()),
        Just("view=explore".to_string()),
        Just("view=quiz".to_string()),
        Just("embed=race".to_string()),
        Just("quiz=nope".to_string()),
        Just("property=mutual_exclusion".to_string()),
        Just("faults_max=9".to_string()),
        Just("theme=neon".to_string()),
        Just("%".to_string()),
        Just("%ff%fe".to_string()),
        Just("=".to_string()),
        "[a-z_%=.&?0-9+-]{0,16}",
    ];
    prop_oneof![any::<String>(), prop::collection::vec(piece, 0..10).prop_map(|pieces| pieces.join("&")),]
        // A fleet's link is checked by running its fleet: the command's part.
        .prop_filter("no fleet", |link| read(link).fleet.is_none())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(SEED),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_text_is_checked_as_the_page_reads_it(link in link_text()) {
        let checked = check(&link);
        let query = link.split_once('?').map_or(link.as_str(), |(_, query)| query);
        let page = read(query).notices;
        prop_assert!(checked.notices.len() >= page.len() && checked.notices[..page.len()] == page[..], "{:?}: {:?} vs {:?}", link, checked.notices, page);
        if let Some(fresh) = &checked.fresh {
            prop_assert!(read(fresh).notices.is_empty(), "{:?} gave out {:?}", link, fresh);
            prop_assert!(page.iter().all(|notice| !notice.contains("checksum does not match")), "{:?} was signed again", link);
        }
        prop_assert!(checked.notices.iter().all(|notice| !notice.is_empty()));
    }
}
