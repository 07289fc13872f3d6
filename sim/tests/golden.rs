//! The pinned fingerprints match this build. After a deliberate change to the
//! model or the trace format, regenerate them with
//! `UPDATE_GOLDEN=1 cargo test -p fencing-sim --test golden` and review the diff.

mod pinned;

use pinned::fingerprint_lines;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/fingerprints.txt");

#[test]
fn fingerprints_match_the_pinned_file() {
    let now = fingerprint_lines();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(PATH, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(PATH).unwrap_or_default();
    assert_eq!(pinned, now, "traces changed; if that is intended, rerun with UPDATE_GOLDEN=1 and review the diff");
}
