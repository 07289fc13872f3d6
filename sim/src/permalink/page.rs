//! The page's own keys in a link (`view`, `embed`, `theme`, `quiz`, the
//! explorer's `property` and `faults_max`…), split from the scenario's, and
//! the view a link opens. The page reads its URL with these, and
//! `fencing-lab link` checks a link with the same ones (`relink::check`), so
//! the two can never disagree about what a link says.

use super::shown;
use crate::property::Property;

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
    /// What a real server did: a recording of a reality check beside the
    /// model's run of its preset, or a history file the reader opens.
    Real,
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
    /// `getGrade`, `getState` and `setState` (src/teach/lms.rs).
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
const VIEW_NAMES: &str = "race, compare, quiz, fleet, real, explore, build, sweep, lesson";

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
                    "real" => page.view = Some(View::Real),
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

/// Two queries as one.
pub fn join(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_string(),
        (_, true) => first.to_string(),
        _ => format!("{first}&{second}"),
    }
}

/// The property and faults per schedule a link's explorer pairs ask for
/// (`route::PageQuery::explorer`), with a notice for anything unusable: the
/// defaults (no_stale_overwrite, up to two) stand in.
pub fn read_choice(pairs: &str) -> (Property, u8, Vec<String>) {
    let (mut property, mut faults_max, mut notices) = (Property::NoStaleOverwrite, 2, Vec::new());
    for (key, value) in form_urlencoded::parse(pairs.as_bytes()) {
        match (key.as_ref(), value.as_ref()) {
            ("faults_max", "1") => faults_max = 1,
            ("faults_max", "2") => faults_max = 2,
            ("faults_max", other) => notices.push(format!("ignored faults_max={}: a schedule holds 1 or 2 faults", shorten(other))),
            (_, name) => match Property::parse(name) {
                Some(chosen) => property = chosen,
                None => {
                    let names = Property::ALL.map(Property::name).join(", ");
                    notices.push(format!("ignored property={}: the properties are {names}", shorten(name)));
                }
            },
        }
    }
    (property, faults_max, notices)
}

fn shorten(text: &str) -> String {
    text.chars().take(40).collect()
}
