//! Fencing Lab's page: Leptos components that render the simulator's traces.
//! Nothing here decides an outcome; every number comes from `fencing_sim`.

#![recursion_limit = "256"]

// One folder per view; `shell` is what every view shares.
pub mod compare;
pub mod explorer;
pub mod fleet;
pub mod quiz;
pub mod race;
pub mod real;
pub mod shell;
pub mod teach;

pub use compare::CompareView;
pub use quiz::QuizView;
pub use race::RaceView;
pub use shell::app::App;
pub use shell::mount::{self, Mount};

use leptos::prelude::*;
use shell::route::View;
use shell::{app, browser, panic_box};

/// Starts the page with the views `views` draws (`has` says which): mounts
/// the app in place of the loading note, and marks the moment for the bench.
pub fn start(views: mount::Views, has: fn(View) -> bool, shell: app::Shell) {
    // Loaded beside the race's entry point only to write a trace's JSON:
    // the page is already there.
    let root = document().document_element();
    if root.as_ref().is_some_and(|root| root.has_attribute("data-fencing-lab")) {
        return;
    }
    if let Some(root) = root {
        let _ = root.set_attribute("data-fencing-lab", "started");
    }
    panic_box::install();
    if let Some(loading) = document().get_element_by_id("loading") {
        loading.remove();
    }
    // The story drawn at build time (boot.js showed it): the app draws the
    // same markup, then the copy goes, in one task, so nothing flashes and
    // the page keeps its height and scroll; focus moves to its twin.
    let first = document().get_element_by_id("first-screen");
    let focused = first.as_ref().and_then(browser::focused_within);
    leptos::mount::mount_to_body(move || view! { <App views has shell/> });
    if let Some(first) = first {
        first.remove();
    }
    if let Some(selector) = focused {
        browser::focus_now(&selector);
    }
    // The bench script reads this mark: navigation start to a mounted page.
    if let Some(performance) = web_sys::window().and_then(|window| window.performance()) {
        let _ = performance.mark("fencing-lab-mounted");
    }
}

/// Every view but the instructors' (those are `teach_view`'s): the whole
/// lab in one entry point.
pub fn every_view(view: View, mount: Mount) -> AnyView {
    match view {
        // A run "Can this go wrong?" found has its card above the race.
        View::Race => race_with_finding(view! { <RaceView cursor=mount.cursor embedded=mount.embedded/> }.into_any()),
        View::Compare => compare_view(view, mount),
        View::Quiz => quiz_view(view, mount),
        // Drawn when the site is built (lesson/sweep.html): `App` goes there.
        // The instructors' views are their own entry point's (`teach_view`).
        View::Sweep | View::Build | View::Ask => ().into_any(),
        View::Explore => view! { <explorer::ExploreView embedded=mount.embedded/> }.into_any(),
        View::Fleet => view! { <fleet::FleetView embedded=mount.embedded/> }.into_any(),
        View::Real => view! { <real::RealView embedded=mount.embedded/> }.into_any(),
    }
}

/// The race alone: the race's own entry point (`src/bin/race.rs`).
pub fn race_view(view: View, mount: Mount) -> AnyView {
    only(view, View::Race, || view! { <RaceView cursor=mount.cursor embedded=mount.embedded/> }.into_any())
}

/// A one-view entry point's drawing: `draw` for its view; nothing for
/// another, which `static/boot.js` never starts it for (`entry_point`).
fn only(view: View, drawn: View, draw: impl FnOnce() -> AnyView) -> AnyView {
    if view == drawn {
        draw()
    } else {
        ().into_any()
    }
}

/// Whether `race_view` draws a view.
pub fn is_race(view: View) -> bool {
    view == View::Race
}

/// The built-in quiz alone: its own entry point (`src/bin/quiz.rs`), what a
/// quiz link and `embed=quiz` load (a course page's "predict first" frame),
/// without the explorer, the fleet or side by side.
pub fn quiz_view(view: View, mount: Mount) -> AnyView {
    only(view, View::Quiz, || view! { <QuizView embedded=mount.embedded focus=!mount.first/> }.into_any())
}

/// Whether `quiz_view` draws a view.
pub fn is_quiz(view: View) -> bool {
    view == View::Quiz
}

/// Side by side alone: its own entry point (`src/bin/compare.rs`), what a
/// comparison's link and `embed=compare` load, without the explorer, the
/// fleet or the quiz.
pub fn compare_view(view: View, mount: Mount) -> AnyView {
    only(view, View::Compare, || view! { <CompareView cursor=mount.cursor embedded=mount.embedded/> }.into_any())
}

/// Whether `compare_view` draws a view.
pub fn is_compare(view: View) -> bool {
    view == View::Compare
}

/// The entry point a page load of `view` starts, as `static/boot.js` picks
/// it: its views and which those are (the site draws each link's first
/// screen with the same ones).
pub fn entry_point(view: View) -> (mount::Views, fn(View) -> bool) {
    if is_teach_view(view) {
        (teach_view, is_teach_view)
    } else if is_race(view) {
        (race_view, is_race)
    } else if is_quiz(view) {
        (quiz_view, is_quiz)
    } else if is_compare(view) {
        (compare_view, is_compare)
    } else {
        (every_view, in_every_view)
    }
}

/// Whether `every_view` draws a view.
pub fn in_every_view(view: View) -> bool {
    !is_teach_view(view)
}

/// The instructors' views: the question builder, and a question or set
/// from its link. An entry point of their own (`src/bin/teach.rs`), so the
/// lab's other views do not carry them.
pub fn teach_view(view: View, mount: Mount) -> AnyView {
    match view {
        View::Build => view! { <teach::builder::BuilderView/> }.into_any(),
        View::Ask => view! { <teach::asked::AskedView embedded=mount.embedded/> }.into_any(),
        // Never asked for: `is_teach_view` sends every other view to its own entry point.
        _ => ().into_any(),
    }
}

/// Whether `teach_view` draws a view.
pub fn is_teach_view(view: View) -> bool {
    matches!(view, View::Build | View::Ask)
}

/// The race, and above it the card of a run "Can this go wrong?" found
/// (each type-erased: the race's view code is then not built twice).
pub fn race_with_finding(race: AnyView) -> AnyView {
    (view! { <explorer::found::FoundCard/> }.into_any(), race).into_any()
}

pub use shell::escape::escape;
