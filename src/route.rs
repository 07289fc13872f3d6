//! The page's URLs: which view a query names, and the query of each view.
//! Views live in the query (`?view=compare&preset=…`), not the path, so the
//! site works from any folder of any static host with no rewrite rules, and
//! an embed's link is an ordinary file URL. The scenario's own keys are read
//! by the core (`permalink::parse`), which also bounds and reports them.

use fencing_sim::compare::Difference;
use fencing_sim::permalink::{shown, story, to_query, with_fingerprint, Permalink};
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

/// The views of the page. (The lesson is static HTML beside it.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Race,
    Compare,
    /// The quiz (its question is the URL's `quiz=`, read by the quiz view:
    /// the race's entry point never carries the questions).
    Quiz,
    /// The lease sweep alone, for an embed (a static page of the lesson's).
    Sweep,
    /// The question builder for the run the link describes (`view=build`).
    Build,
    /// An instructor's question, or set of questions, from the link's own
    /// `ask=` or `set=` (read by `asked.rs`; the link is never rewritten).
    Ask,
    /// "Can this go wrong?": the explorer searches the scenario's design
    /// (the full entry point only; the race's links load it).
    Explore,
    /// A fleet of workers for hours or days: the counters as rates, the
    /// incidents, the lease trade (its own keys: `permalink::fleet`).
    Fleet,
}

/// A theme forced by the URL (for an embed inside a light or dark course page).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
    Auto,
}

impl Theme {
    pub fn id(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
            Theme::Auto => "auto",
        }
    }
}

/// What the URL asks of the page itself, apart from the scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageQuery {
    pub view: Option<View>,
    /// Show one widget alone, for an iframe.
    pub embed: bool,
    /// `view=lesson` or `embed=lesson`: the lesson is its own pages now.
    pub lesson: bool,
    pub theme: Option<Theme>,
    /// The quiz question the link names, by id.
    pub quiz: Option<String>,
    /// `origin=`: where an embedded quiz may report answers (the host's
    /// origin, or `*`), as the link spells it; checked by `report.rs`.
    pub origin: Option<String>,
    /// `jsinput=1`: Open edX's JSInput frames the quiz and calls its
    /// `getGrade`, `getState` and `setState` (src/lms.rs).
    pub jsinput: bool,
    /// The explorer's own pairs (`property=…&faults_max=…`), for it to read.
    pub explorer: String,
    /// Everything else, untouched: the scenario's keys, for the core.
    pub rest: String,
    /// What the page's own keys named that it does not have, in a learner's
    /// words (the scenario's keys get the core's notices).
    pub notices: Vec<String>,
}

/// The names `view=` and `embed=` take.
const VIEW_NAMES: &str = "race, compare, quiz, fleet, explore, build, sweep, lesson";

/// Splits the page's own keys (`view`, `quiz`, `embed`, `theme`, and the
/// explorer's `property` and `faults_max`) from the
/// scenario's. Every scenario pair goes on to the core, which keeps at most
/// `permalink::PAIRS_MAX` and says how many it ignored.
pub fn split_query(query: &str) -> PageQuery {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut page = PageQuery::default();
    let mut rest = Vec::new();
    for segment in query.split('&').filter(|segment| !segment.is_empty()) {
        let Some((key, value)) = form_urlencoded::parse(segment.as_bytes()).next() else { continue };
        match (key.as_ref(), value.as_ref()) {
            ("quiz", id) => page.quiz = Some(id.to_string()),
            ("property" | "faults_max", _) => page.explorer = join(&page.explorer, segment),
            ("view" | "embed", name) => {
                page.embed |= key == "embed";
                match name {
                    "race" => page.view = Some(View::Race),
                    "compare" => page.view = Some(View::Compare),
                    "quiz" => page.view = page.view.or(Some(View::Quiz)),
                    "sweep" => page.view = Some(View::Sweep),
                    "build" => page.view = Some(View::Build),
                    "explore" => page.view = Some(View::Explore),
                    "fleet" => page.view = Some(View::Fleet),
                    "lesson" => page.lesson = true,
                    other => {
                        page.notices.push(format!("ignored {key}={}: there is no such view (the views are {VIEW_NAMES})", shown(other)))
                    }
                }
            }
            ("theme", "light") => page.theme = Some(Theme::Light),
            ("theme", "dark") => page.theme = Some(Theme::Dark),
            ("theme", "auto") => page.theme = Some(Theme::Auto),
            ("theme", other) => page.notices.push(format!("ignored theme={}: the themes are light, dark and auto", shown(other))),
            ("origin", origin) => page.origin = Some(origin.to_string()),
            ("jsinput", flag) => page.jsinput = flag == "1",
            _ => rest.push(segment),
        }
    }
    if page.quiz.is_some() && page.view.is_none() {
        page.view = Some(View::Quiz);
    }
    // An instructor's question is a quiz, whichever way it is opened.
    let asks = rest.iter().any(|pair| pair.starts_with("ask=") || pair.starts_with("set="));
    if asks && matches!(page.view, None | Some(View::Quiz)) {
        page.view = Some(View::Ask);
    }
    page.rest = rest.join("&");
    page
}

/// The view a query opens: the one it names, else the comparison if it
/// names a difference, else the race.
pub fn view_of(page: &PageQuery) -> View {
    page.view.unwrap_or(if page.rest.split('&').any(|pair| pair.starts_with("compare=")) { View::Compare } else { View::Race })
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

/// Two queries as one.
pub fn join(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_string(),
        (_, true) => first.to_string(),
        _ => format!("{first}&{second}"),
    }
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
