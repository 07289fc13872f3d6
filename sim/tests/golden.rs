//! The pinned fingerprints match this build. After a deliberate change to the
//! model or the trace format, regenerate them with
//! `UPDATE_GOLDEN=1 cargo test -p fencing-sim --test golden` and review the diff.

mod pinned;

use pinned::{fingerprint_lines, story_lines};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/fingerprints.txt");
const STORIES_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/stories.txt");

#[test]
fn fingerprints_match_the_pinned_file() {
    let now = fingerprint_lines();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(PATH, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(PATH).unwrap_or_default();
    assert_eq!(pinned, now, "traces changed; if that is intended, rerun with UPDATE_GOLDEN=1 and review the diff");
}

/// The links' fingerprints of the same runs: a change here means every
/// link made before it opens with the notice that its run has changed.
#[test]
fn link_fingerprints_match_the_pinned_file() {
    let now = story_lines();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(STORIES_PATH, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(STORIES_PATH).unwrap_or_default();
    assert_eq!(pinned, now, "link fingerprints changed; if that is intended, rerun with UPDATE_GOLDEN=1 and review the diff");
}
