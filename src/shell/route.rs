//! The page's URLs: which view a query names, and the query of each view.
//! Views live in the query (`?view=compare&preset=…`), not the path, so the
//! site works from any folder of any static host with no rewrite rules, and
//! an embed's link is an ordinary file URL. The scenario's own keys are read
//! by the core (`permalink::parse`), which also bounds and reports them.

use fencing_sim::compare::Difference;
use fencing_sim::permalink::{story, to_query, with_fingerprint, Permalink};
// The page's own keys are read by the core, so that `fencing-lab link` reads
// a link with the very same code.
pub use fencing_sim::permalink::page::{join, split_query, view_of, PageQuery, Theme, View};
use fencing_sim::Scenario;
use std::cell::RefCell;

thread_local! {
    /// The last scenario's fingerprint: the URL is rewritten at every step
    /// of the cursor, and its run is the same until the scenario changes.
    static FINGERPRINT: RefCell<Option<(Scenario, Option<String>)>> = const { RefCell::new(None) };
}

/// The fingerprint (`fp=`) of a scenario's run, worked out once per scenario.
fn fingerprint(scenario: &Scenario) -> Option<String> {
    FINGERPRINT.with(|last| {
        let mut last = last.borrow_mut();
        match last.as_ref() {
            Some((seen, fingerprint)) if seen == scenario => fingerprint.clone(),
            _ => {
                let fingerprint = story::of_scenario(scenario);
                *last = Some((scenario.clone(), fingerprint.clone()));
                fingerprint
            }
        }
    })
}

/// The query (without '?') of a view showing `scenario` (or, for the quiz, `question`).
pub fn query_of(view: View, scenario: &Scenario, difference: Difference, cursor: Option<u32>, question: Option<&str>) -> String {
    let mut page = form_urlencoded::Serializer::new(String::new());
    // Every link the page writes of a run carries that run's fingerprint.
    let link = |compare| with_fingerprint(to_query(&Permalink { scenario: scenario.clone(), cursor, compare }), fingerprint(scenario));
    let scenario_part = match view {
        View::Race => link(None),
        View::Compare => {
            page.append_pair("view", "compare");
            link(Some(difference))
        }
        View::Quiz => {
            page.append_pair("view", "quiz");
            if let Some(id) = question {
                page.append_pair("quiz", id);
            }
            // The questions have their own runs; an edited scenario rides
            // along, so that it is still there on the way back to the race.
            if *scenario == Permalink::default().scenario {
                String::new()
            } else {
                link(None)
            }
        }
        View::Sweep => {
            page.append_pair("view", "sweep");
            String::new()
        }
        View::Build => {
            page.append_pair("view", "build");
            link(None)
        }
        // A question's link is its own (signed): the page never writes it.
        View::Ask => {
            page.append_pair("view", "quiz");
            String::new()
        }
        // The fleet view writes its own keys (its link is not a story's).
        View::Fleet => {
            page.append_pair("view", "fleet");
            String::new()
        }
        // The preset and fencing name the recording; a cursor would be the model's.
        View::Real => {
            page.append_pair("view", "real");
            to_query(&Permalink { scenario: scenario.clone(), cursor: None, compare: None })
        }
        View::Explore => {
            page.append_pair("view", "explore");
            // A design to search, not a moment in a run: no cursor.
            to_query(&Permalink { scenario: scenario.clone(), cursor: None, compare: None })
        }
    };
    join(&page.finish(), &scenario_part)
}

/// The query without one key (and its value), e.g. a link out of an embed.
pub fn without_key(query: &str, key: &str) -> String {
    let kept: Vec<&str> = query
        .trim_start_matches('?')
        .split('&')
        .filter(|segment| !segment.is_empty())
        .filter(|segment| form_urlencoded::parse(segment.as_bytes()).next().is_none_or(|(name, _)| name != key))
        .collect();
    kept.join("&")
}

/// Natively (`cargo test -p fencing-lab-web --lib`): the queries need no
/// browser. Ported from the wasm-bindgen tests (`tests/web.rs`,
/// `tests/explore.rs`), where they ran only in headless Chromium.
#[cfg(test)]
mod tests {
    use super::*;
    use fencing_sim::permalink::{parse, PAIRS_MAX};
    use fencing_sim::presets;

    #[test]
    fn split_query_takes_the_pages_keys_and_leaves_every_scenario_pair() {
        let page = split_query("?view=compare&preset=gc-pause&embed=compare&theme=dark&seed=7");
        assert_eq!((page.view, page.embed, page.theme), (Some(View::Compare), true, Some(Theme::Dark)));
        assert_eq!(page.rest, "preset=gc-pause&seed=7");
        let quiz = split_query("quiz=crash");
        assert_eq!((quiz.view, quiz.quiz.as_deref()), (Some(View::Quiz), Some("crash")));
        assert!(split_query("view=lesson").lesson);
        assert_eq!(split_query("view=%63ompare").view, Some(View::Compare), "keys and values are decoded");
        assert_eq!(view_of(&split_query("compare=lease-x4")), View::Compare);
        assert_eq!(view_of(&split_query("preset=renewal")), View::Race);
        // Nothing is cut before the core sees it: it counts and reports the excess.
        let many = "ttl_ms=5000&".repeat(70);
        let page = split_query(&format!("view=race&{many}"));
        assert_eq!(page.rest.split('&').filter(|pair| !pair.is_empty()).count(), 70);
        let (_, notices) = parse(&page.rest);
        assert!(notices.iter().any(|notice| notice.contains(&format!("ignored the last {} settings", 70 - PAIRS_MAX))), "{notices:?}");
    }

    #[test]
    fn every_views_query_opens_that_view_again() {
        let scenario = presets::classic();
        for view in [View::Race, View::Compare, View::Quiz, View::Sweep, View::Build, View::Fleet, View::Explore, View::Real] {
            let query = query_of(view, &scenario, Difference::LeaseX4, Some(12), Some("nfs"));
            assert_eq!(view_of(&split_query(&query)), view, "{query}");
        }
        assert_eq!(query_of(View::Quiz, &scenario, Difference::LeaseX4, None, Some("nfs")), "view=quiz&quiz=nfs");
        let compare = query_of(View::Compare, &scenario, Difference::LeaseX4, Some(12), None);
        assert!(compare.contains("&fp="), "{compare}: a link the page writes carries its run's fingerprint");
        let (link, notices) = parse(&split_query(&compare).rest);
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!((link.compare, link.cursor), (Some(Difference::LeaseX4), Some(12)));
        assert_eq!(join("a=1", ""), "a=1");
        assert_eq!(join("a=1", "b=2"), "a=1&b=2");
        assert_eq!(without_key("?preset=x&embed=race&seed=1", "embed"), "preset=x&seed=1");
    }

    /// The explorer's link names a design, not a moment: no cursor and no
    /// fingerprint, and the explorer's own keys never enter the scenario.
    #[test]
    fn the_explorers_link_is_a_design_and_its_keys_stay_out_of_the_scenario() {
        let page = split_query("view=explore&preset=gc-pause&property=mutual_exclusion&fencing=on&faults_max=1");
        assert_eq!(view_of(&page), View::Explore);
        assert_eq!(page.explorer, "property=mutual_exclusion&faults_max=1");
        assert_eq!(page.rest, "preset=gc-pause&fencing=on");
        let (_, notices) = parse(&page.rest);
        assert!(notices.is_empty(), "{notices:?}");
        let query = query_of(View::Explore, &presets::classic(), Difference::Fencing, Some(12), None);
        assert!(query.starts_with("view=explore&preset=gc-pause&seed=1"), "{query}");
        assert!(!query.contains("cursor") && !query.contains("fp="), "a design, not a moment: {query}");
    }

    /// The fingerprint is remembered per scenario: the same scenario writes
    /// the same link, and a changed one never reuses the last run's `fp=`.
    #[test]
    fn a_changed_scenario_gets_its_own_fingerprint() {
        let fp = |query: &str| query.split('&').find_map(|pair| pair.strip_prefix("fp=")).map(str::to_string);
        let classic = presets::classic();
        let fenced = Scenario { fencing: true, ..presets::classic() };
        let first = query_of(View::Race, &classic, Difference::Fencing, None, None);
        let again = query_of(View::Race, &classic, Difference::Fencing, None, None);
        let other = query_of(View::Race, &fenced, Difference::Fencing, None, None);
        assert_eq!(first, again);
        assert!(fp(&first).is_some() && fp(&other).is_some(), "{first} / {other}");
        assert_ne!(fp(&first), fp(&other), "fencing on is another run");
        assert_eq!(fp(&query_of(View::Race, &classic, Difference::Fencing, None, None)), fp(&first), "back to the first scenario");
    }

    #[test]
    fn without_key_reads_names_decoded_and_keeps_everything_else_in_order() {
        assert_eq!(without_key("a=1&%65mbed=race&b=2", "embed"), "a=1&b=2", "a percent-encoded name is the same key");
        assert_eq!(without_key("embed=race", "embed"), "");
        assert_eq!(without_key("&&a=1&&b=2&", "none"), "a=1&b=2", "empty segments are dropped");
        assert_eq!(without_key("embedded=1&embed=race", "embed"), "embedded=1", "a longer name is another key");
    }
}
