//! "Can this go wrong?" in headless Chromium: the explorer's keys in a link,
//! the widget searching in slices, finding the
//! pause before A's INCR, claiming nothing breaks the consensus lock, and
//! stopping at Cancel.

use fencing_lab_web::explorer::found::Found;
use fencing_lab_web::explorer::search::Phase;
use fencing_lab_web::explorer::{read_choice, status, ExploreView};
use fencing_lab_web::shell::app::Lab;
use fencing_lab_web::shell::route::{split_query, view_of, View};
use fencing_sim::explore::{explore, Outcome};
use fencing_sim::permalink::parse;
use fencing_sim::presets;
use fencing_sim::property::Property;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

wasm_bindgen_test_configure!(run_in_browser);

/// The explorer's own keys, split off the link by the route (tested natively
/// in `src/shell/route.rs`), read as its choice.
#[wasm_bindgen_test]
fn the_explorers_keys_are_read_as_its_choice() {
    let page = split_query("view=explore&preset=gc-pause&property=mutual_exclusion&fencing=on&faults_max=1");
    assert_eq!(view_of(&page), View::Explore);
    assert_eq!(read_choice(&page.explorer), (Property::MutualExclusion, 1, vec![]));
}

#[wasm_bindgen_test]
fn unusable_choices_get_a_notice_and_the_defaults() {
    assert_eq!(read_choice(""), (Property::NoStaleOverwrite, 2, vec![]));
    assert_eq!(read_choice("property=no-rightful-write-rejected").0, Property::NoRightfulWriteRejected, "dashes read too");
    let (property, faults_max, notices) = read_choice("property=safety&faults_max=3");
    assert_eq!((property, faults_max), (Property::NoStaleOverwrite, 2));
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].starts_with("ignored property=safety: the properties are no_stale_overwrite, mutual_exclusion"), "{notices:?}");
    assert_eq!(notices[1], "ignored faults_max=3: a schedule holds 1 or 2 faults");
}

#[wasm_bindgen_test]
fn a_finding_reads_the_cores_chain_as_steps_and_its_link_replays_it() {
    let design = fencing_sim::Scenario { fencing: true, ..presets::classic() };
    let Outcome::Counterexample(found) = explore(&design, Property::NoStaleOverwrite, 2).unwrap() else { panic!("a counterexample") };
    let finding = Found::new(&found, Property::NoStaleOverwrite, "view=explore".into());
    assert_eq!(finding.scenario, found.scenario, "its link reads back the same run");
    let steps = finding.steps();
    assert_eq!(steps.first().map(String::as_str), Some("A froze before its INCR (its SET already granted)"));
    assert!(steps.last().is_some_and(|step| step.starts_with("The store took A's write")), "{steps:?}");
    // The card's markup is tested natively (`explorer::found`'s tests).
    assert_eq!(
        status(&Phase::Cancelled { tried: 5, total: 9 }),
        "Cancelled after 5 of 9 schedules: an unfinished search claims nothing either way."
    );
}

// ── The widget ──────────────────────────────────────────────────────────────

/// Mounts the explore widget on `link`'s scenario and returns its container.
fn mount_widget(link: &'static str) -> HtmlElement {
    let container: HtmlElement = document().create_element("div").unwrap().unchecked_into();
    document().body().unwrap().append_child(&container).unwrap();
    let view = move || {
        provide_context(Lab::new(&parse(link).0));
        view! { <ExploreView embedded=true/> }.into_any()
    };
    leptos::mount::mount_to(container.clone(), view).forget();
    container
}

fn find(root: &HtmlElement, testid: &str) -> Option<HtmlElement> {
    root.query_selector(&format!("[data-testid={testid}]")).unwrap().map(JsCast::unchecked_into)
}

fn text(root: &HtmlElement, testid: &str) -> String {
    find(root, testid).and_then(|element| element.text_content()).unwrap_or_default()
}

async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

/// Waits until `count` animation frames have been drawn: the page's own
/// progress, not the wall clock's, so a slow machine only takes longer (the
/// search runs a slice between two frames).
async fn frames(count: u32) {
    for _ in 0..count {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window().unwrap().request_animation_frame(&resolve).unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    }
}

/// The explorer's progress bar: (schedules tried, schedules in all).
fn progress(root: &HtmlElement) -> Option<(usize, usize)> {
    let bar = find(root, "explore-progress")?;
    let read = |name: &str| bar.get_attribute(name).and_then(|value| value.parse().ok());
    Some((read("aria-valuenow")?, read("aria-valuemax")?))
}

/// Waits (polling; at most 60 s, a bound for a very busy machine, not a
/// claim about speed) until `testid` is on the page.
async fn until_shown(root: &HtmlElement, testid: &str) {
    for _ in 0..1200 {
        if find(root, testid).is_some_and(|element| !element.hidden()) {
            return;
        }
        sleep_ms(50).await;
    }
    panic!("{testid} never appeared; status: {}", text(root, "explore-status"));
}

#[wasm_bindgen_test]
async fn the_widget_finds_the_pause_before_as_incr_and_plays_it() {
    let widget = mount_widget("preset=gc-pause&fencing=on");
    find(&widget, "explore-search").unwrap().click();
    until_shown(&widget, "found").await;
    let fault = text(&widget, "found-faults");
    assert!(fault.starts_with("‖A pauses ") && fault.ends_with(" ms before its message 2"), "one pause before A's INCR: {fault}");
    assert!(text(&widget, "found-chain").starts_with("A froze before its INCR"));
    assert!(text(&widget, "explore-status").starts_with("Found a schedule that breaks the property after"));
    find(&widget, "race-end").expect("the race plays the run").click();
    leptos::task::tick().await;
    assert_eq!(text(&widget, "race-stale-overwrites"), "1");
}

#[wasm_bindgen_test]
async fn the_widget_claims_no_schedule_breaks_the_consensus_lock() {
    let widget = mount_widget("preset=gc-pause&fencing=on&lock=consensus");
    find(&widget, "explore-search").unwrap().click();
    until_shown(&widget, "explore-claim").await;
    // The answer's lead, from the model (`explore::none_lead`): the run just seen, then the search.
    let claim = text(&widget, "explore-claim");
    assert!(
        claim.contains(" And none of the ") && claim.ends_with("broke the rule that no write overwrites data written under a newer grant."),
        "{claim}"
    );
    assert!(find(&widget, "found").is_none());
}

#[wasm_bindgen_test]
async fn cancel_stops_the_search_between_two_slices() {
    let widget = mount_widget("preset=consensus-leader-crash&fencing=on");
    find(&widget, "explore-search").unwrap().click();
    // Bounded: a search of a few thousand schedules shows its first slice
    // within a few frames however slow the machine.
    for _ in 0..600 {
        if progress(&widget).is_some_and(|(now, _)| now > 0) {
            break;
        }
        frames(1).await;
    }
    let (now, total) = progress(&widget).expect("the progress bar is there while the search runs");
    assert!(now > 0 && now < total, "a slice ran and yielded: {now} of {total}");
    find(&widget, "explore-cancel").unwrap().click();
    leptos::task::tick().await;
    let stopped = text(&widget, "explore-cancelled");
    assert!(stopped.starts_with("Cancelled after"), "{stopped}");
    // A search still running would run a slice between any two of these.
    frames(20).await;
    assert_eq!(text(&widget, "explore-cancelled"), stopped, "no slice ran after Cancel");
    assert!(find(&widget, "explore-claim").is_none());
}
