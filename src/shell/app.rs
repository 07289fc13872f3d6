//! The whole page: the view the URL names, the tabs between views, and the
//! one scenario every view shares. The URL is the view (Back and Forward
//! move between views); the scenario lives in `Lab` and is written into the
//! URL as it changes, so a copied link reproduces what is on screen.

use crate::shell::mount::{Mount, Views};
use crate::shell::route::{self, query_of, split_query, view_of, View};
use crate::shell::{browser, embed, notice, theme};
use fencing_sim::compare::Difference;
use fencing_sim::permalink::{self, Permalink};
use fencing_sim::Scenario;
use leptos::prelude::*;
use leptos_router::components::Router;
use leptos_router::hooks::{use_location, use_navigate};
use leptos_router::NavigateOptions;

/// What the views share: the scenario (so edits survive a look at the quiz),
/// the comparison's difference, and the cursor of the view on screen.
#[derive(Clone, Copy)]
pub struct Lab {
    pub scenario: RwSignal<Scenario>,
    pub difference: RwSignal<Difference>,
    /// The event the learner has stepped to, for the link (None while playing).
    pub cursor: RwSignal<Option<u32>>,
    /// The quiz question last shown (its id), for the Quiz tab's link.
    pub question: RwSignal<Option<String>>,
}

impl Lab {
    pub fn new(link: &Permalink) -> Lab {
        Lab {
            scenario: RwSignal::new(link.scenario.clone()),
            difference: RwSignal::new(link.compare.unwrap_or(Difference::Fencing)),
            cursor: RwSignal::new(link.cursor),
            question: RwSignal::new(None),
        }
    }

    pub fn get() -> Lab {
        use_context::<Lab>().unwrap_or_else(|| Lab::new(&Permalink::default()))
    }
}

/// The page around the views: with the router (every view, moving between
/// them in place) or without it (the race alone: a link elsewhere is a new
/// page, and the router's bytes stay out of the first load).
pub type Shell = fn(Vec<String>, Views, fn(View) -> bool) -> AnyView;

/// The page, with the views `views` can draw; `has` says which those are.
#[component]
pub fn App(views: Views, has: fn(View) -> bool, shell: Shell) -> impl IntoView {
    let page = split_query(&browser::query());
    if page.lesson {
        // The lesson is its own static pages now: old links still arrive.
        browser::replace_location(if page.embed { "lesson/index.html?embed=lesson" } else { "lesson/index.html" });
        return ().into_any();
    }
    if view_of(&page) == View::Sweep {
        // The lease sweep is drawn when the site is built; its page is static.
        browser::replace_location(if page.embed { "lesson/sweep.html?embed=sweep" } else { "lesson/sweep.html" });
        return ().into_any();
    }
    // A fleet's link is not a story's: the fleet view reads it, and says
    // what it could not use.
    let (link, mut notices) = match view_of(&page) {
        View::Fleet => (Permalink::default(), Vec::new()),
        _ => permalink::parse(&page.rest),
    };
    notices.extend(page.notices.iter().cloned());
    notices.extend(fencing_sim::relink::quiz_notice(&page));
    let lab = Lab::new(&link);
    lab.question.set(page.quiz.clone());
    provide_context(lab);
    if page.embed {
        return view! { <embed::Embedded view=view_of(&page) cursor=link.cursor notices views/> }.into_any();
    }
    shell(notices, views, has)
}

/// Every view, with the router: each view its own URL, Back and Forward move
/// between them without reloading.
pub fn routed_shell(notices: Vec<String>, views: Views, has: fn(View) -> bool) -> AnyView {
    view! { <Router><RoutedShell notices views has/></Router> }.into_any()
}

#[component]
fn RoutedShell(notices: Vec<String>, views: Views, has: fn(View) -> bool) -> impl IntoView {
    let lab = Lab::get();
    let location = use_location();
    let page = Memo::new(move |_| split_query(&location.search.get()));
    let view = Memo::new(move |_| view_of(&page.get()));
    adopt_links(lab, page);
    let navigate = use_navigate();
    let replace = move |query: &str| {
        if location.search.get_untracked().trim_start_matches('?') != query {
            let path = location.pathname.get_untracked();
            navigate(&format!("{path}?{query}"), NavigateOptions { replace: true, scroll: false, ..NavigateOptions::default() });
        }
    };
    write_links(lab, view.into(), replace);
    frame(lab, view.into(), notices, views, has)
}

/// One view, without the router: the URL is kept up to date in place.
pub fn single_view_shell(notices: Vec<String>, views: Views, has: fn(View) -> bool) -> AnyView {
    let lab = Lab::get();
    let view = Signal::stored(view_of(&split_query(&browser::query())));
    let replace = move |query: &str| {
        if browser::query() != query {
            browser::replace_query(query);
        }
    };
    write_links(lab, view, replace);
    frame(lab, view, notices, views, has).into_any()
}

/// The header, the view on screen and the footer.
fn frame(lab: Lab, view: Signal<View>, notices: Vec<String>, views: Views, has: fn(View) -> bool) -> impl IntoView {
    let tab = move |label: &'static str, target: View, testid: &'static str| {
        let selected = move || view.get() == target;
        let href = move || {
            format!(
                "?{}",
                lab.question.with(|question| query_of(target, &lab.scenario.get(), lab.difference.get(), None, question.as_deref()))
            )
        };
        // A view this entry point does not have is a whole new page.
        let rel = (!has(target)).then_some("external");
        view! { <a href=href rel=rel aria-current=move || selected().then_some("page") data-testid=testid>{label}</a> }
    };
    // The first view keeps the link's cursor; later views start at the start.
    let first = StoredValue::new(Some(view.get_untracked()));
    let packaged = split_query(&browser::query()).origin.is_some();
    view! {
        <a class="skip-link" href="#main">"Skip to the simulator"</a>
        <header class="site-header">
            <h1 class="site-title">"Fencing Lab"</h1>
            // Inside a course package (`origin=`: answers go to the LMS) the
            // quiz is the whole page: the package carries no other view.
            {(!packaged).then(|| view! {
                <nav class="tabs" aria-label="Views">
                    {tab("The race", View::Race, "tab-race")}
                    {tab("Side by side", View::Compare, "tab-compare")}
                    {tab("Quiz", View::Quiz, "tab-quiz")}
                    {tab("A fleet", View::Fleet, "tab-fleet")}
                    {tab("Real runs", View::Real, "tab-real")}
                    <a href="lesson/index.html" rel="external" data-testid="tab-lesson">"Lesson"</a>
                </nav>
            })}
        </header>
        <main id="main">
            {notice::notice_box(notices)}
            {move || {
                let current = view.get();
                let is_first = first.get_value() == Some(current);
                let cursor = if is_first { lab.cursor.get_untracked() } else { None };
                first.set_value(None);
                if has(current) {
                    views(current, Mount { cursor, embedded: false, first: is_first })
                } else {
                    elsewhere(lab, current, is_first);
                    ().into_any()
                }
            }}
        </main>
        <footer class="site-footer">
            <p>"Every run is computed in your browser by a deterministic simulator: same seed, same story."</p>
            <theme::ThemeSwitch/>
        </footer>
    }
}

/// A view this entry point does not draw. Arrived at by Back or Forward
/// from another entry point's view: the page loads afresh, and `boot.js`
/// starts that view's build. On the first load, `boot.js` read the link
/// otherwise than the app (an odd link, such as `?compare` without a
/// value): the page goes to the view's own link as the app writes it,
/// which both read alike; never again to the same link, so it cannot loop.
fn elsewhere(lab: Lab, view: View, first: bool) {
    if !first {
        browser::reload();
        return;
    }
    let query = lab.question.with_untracked(|question| {
        query_of(view, &lab.scenario.get_untracked(), lab.difference.get_untracked(), lab.cursor.get_untracked(), question.as_deref())
    });
    if browser::query() != query {
        browser::replace_location(&format!("?{query}"));
    }
}

/// Back and Forward bring a link back: its scenario becomes the lab's again.
fn adopt_links(lab: Lab, page: Memo<route::PageQuery>) {
    Effect::new(move |first: Option<()>| {
        let page = page.get();
        if first.is_none() {
            return; // the first link was read before the views were built
        }
        match view_of(&page) {
            View::Race | View::Compare | View::Build | View::Explore => {
                let (link, _) = permalink::parse(&page.rest);
                if lab.scenario.get_untracked() != link.scenario {
                    lab.scenario.set(link.scenario);
                }
                if let Some(difference) = link.compare.filter(|difference| *difference != lab.difference.get_untracked()) {
                    lab.difference.set(difference);
                }
            }
            View::Quiz => lab.question.set(page.quiz.clone()),
            View::Real => {
                let (link, _) = permalink::parse(&page.rest);
                if lab.scenario.get_untracked() != link.scenario {
                    lab.scenario.set(link.scenario);
                }
            }
            View::Sweep | View::Ask | View::Fleet => {}
        }
    });
}

/// Every change of the scenario, the difference or the cursor is written into
/// the URL in place (no new history entry: Back goes to the previous view).
/// (`Effect::watch`, not a plain effect: the handler runs outside the
/// effect's owner, so whatever a navigation builds is not disposed when the
/// effect runs again.)
fn write_links(lab: Lab, view: Signal<View>, replace: impl Fn(&str) + 'static) {
    Effect::watch(
        move || (lab.scenario.get(), lab.difference.get(), lab.cursor.get(), lab.question.get()),
        move |(scenario, difference, cursor, question), _, _| {
            // A question's link is signed by its checksum: it stays as it
            // came; a fleet's link is the fleet view's to write.
            if matches!(view.get_untracked(), View::Ask | View::Fleet) {
                return;
            }
            // Where answers go (`origin=`) is the host's, not the view's:
            // it stays through the rewrite (a SCORM package frames the whole quiz).
            let mut host = form_urlencoded::Serializer::new(String::new());
            if let Some(origin) = split_query(&browser::query()).origin {
                host.append_pair("origin", &origin);
            }
            replace(&route::join(&query_of(view.get_untracked(), scenario, *difference, *cursor, question.as_deref()), &host.finish()));
            crate::shell::panic_box::set_context(format!("preset {}, seed {}", scenario.preset, scenario.seed));
        },
        true,
    );
}
