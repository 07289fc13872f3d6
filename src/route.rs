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
