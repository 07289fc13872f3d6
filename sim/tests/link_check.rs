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
    // Link-shaped pieces: every kind of link the page reads (a fleet's is
    // filtered out below), and values it cannot use.
    let pieces: Vec<&str> = include_str!("support/link-pieces.txt").lines().collect();
    let piece = prop_oneof![prop::sample::select(pieces).prop_map(str::to_string), "[a-z_%=.&?0-9+-]{0,16}"];
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
