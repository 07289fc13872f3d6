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
