use super::restamped;
use crate::presets;

#[test]
fn a_link_restamped_keeps_its_pairs_and_says_what_changed() {
    let (fresh, difference) = restamped("?view=compare&preset=gc-pause&embed=compare");
    assert_eq!(difference.as_deref(), Some("it carried no fingerprint"));
    assert!(fresh.starts_with("view=compare&preset=gc-pause&embed=compare&fp="), "{fresh}");
    assert_eq!(restamped(&fresh), (fresh.clone(), None), "a fresh link is its own restamp");
    let older = fresh.replace("_1.1.0.2_", "_0.0.1.1_");
    let (again, difference) = restamped(&older);
    assert_eq!(again, fresh);
    assert!(difference.unwrap().contains("its author saw 0 zombie writes; this run has 1"));
    assert_eq!(restamped("view=fleet&workers=8"), ("view=fleet&workers=8".to_string(), None), "no story of its own");
}

#[test]
fn a_question_and_a_set_are_signed_again_with_their_runs() {
    use crate::ask::{parse_set, set_to_value, Ask, Custom};
    let question = Custom { scenario: presets::classic(), ask: Ask::Owner, prompt: Some("Whose data?".to_string()) };
    let link = format!("{}&embed=quiz", question.to_query());
    assert_eq!(restamped(&link), (link.clone(), None));
    let set = format!("set={}&embed=quiz", set_to_value(&[question.clone(), question.clone()]));
    assert_eq!(restamped(&set), (set.clone(), None));
    assert_eq!(parse_set(set.trim_start_matches("set=").trim_end_matches("&embed=quiz")).0.len(), 2);
}

#[test]
fn a_set_key_without_a_value_is_no_set_and_no_panic() {
    use super::check;
    // The page reads `?set` as the race (no set in it), so the check does too.
    let plain = check("set");
    assert!(plain.notices.iter().all(|notice| notice.contains("carried no fingerprint")), "{plain:?}");
    let empty = check("set=");
    assert!(empty.fresh.is_none() && !empty.notices.is_empty(), "{empty:?}");
}

#[test]
fn a_question_whose_checksum_failed_is_never_signed_again() {
    use super::check;
    use crate::ask::{Ask, Custom};
    let question = Custom { scenario: presets::classic(), ask: Ask::Owner, prompt: Some("Whose data?".to_string()) }.to_query();
    assert_eq!(check(&question).fresh.as_deref(), Some(question.as_str()));
    let tampered = question.replace("Whose", "Anyone");
    let checked = check(&tampered);
    assert_eq!(checked.fresh, None, "{checked:?}");
    assert!(checked.notices.iter().any(|notice| notice.contains("checksum does not match")), "{checked:?}");
    // Two checksums, or none: the page reads the last, or finds none.
    for damaged in [format!("{question}&sum=00000000"), question.rsplit_once("&sum=").unwrap().0.to_string()] {
        let checked = check(&damaged);
        assert!(checked.fresh.is_none() && !checked.notices.is_empty(), "{damaged}: {checked:?}");
    }
}

#[test]
fn every_notice_the_page_shows_is_the_checks() {
    use super::{check, read};
    let fresh = check("preset=gc-pause").fresh.unwrap();
    let fp = fresh.rsplit_once("fp=").unwrap().1;
    for link in [
        "pres%65t=lease-x4&fp=bogus".to_string(),
        "fencing=on&fp=bogus".to_string(),
        "preset=gc-pause&colour=red".to_string(),
        format!("preset=gc-pause&fp={fp}&fp=bogus"),
        "view=nowhere".to_string(),
        "quiz=nope".to_string(),
        "view=explore&faults_max=3".to_string(),
    ] {
        let (page, checked) = (read(&link).notices, check(&link));
        assert!(!page.is_empty(), "{link}: the page notices it");
        assert_eq!(checked.notices[..page.len()], page[..], "{link}");
        assert_eq!(checked.fresh, None, "{link}: nothing is stamped over a notice");
    }
    assert_eq!(check(&fresh).notices, Vec::<String>::new(), "a fresh link reads clean");
}
