//! The pinned fingerprints match this build. After a deliberate change to the
//! model or the trace format, regenerate them with
//! `UPDATE_GOLDEN=1 cargo test -p fencing-sim --test golden` and review the diff.

mod pinned;

use pinned::{fingerprint_lines, story_lines};

/// Compares a pinned file with this build's text (rewriting it first under
/// `UPDATE_GOLDEN`); `what` names the change a difference means.
fn matches_pinned(file: &str, now: &str, what: &str) {
    let path = format!("{}/tests/golden/{file}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(pinned, now, "{what} changed; if that is intended, rerun with UPDATE_GOLDEN=1 and review the diff");
}

#[test]
fn fingerprints_match_the_pinned_file() {
    matches_pinned("fingerprints.txt", &fingerprint_lines(), "traces");
}

/// The links' fingerprints of the same runs: a change here means every
/// link made before it opens with the notice that its run has changed.
#[test]
fn link_fingerprints_match_the_pinned_file() {
    matches_pinned("stories.txt", &story_lines(), "link fingerprints");
}
