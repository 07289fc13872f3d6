//! The page's components in headless Chromium, and the wasm build's traces
//! against the fingerprints the native build pinned.

use fencing_lab_web::{CompareView, RaceView};
use fencing_sim::compare::Difference;
use fencing_sim::permalink::{parse, Permalink};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

wasm_bindgen_test_configure!(run_in_browser);

/// The runs the native tests pin, from the same file.
#[path = "../sim/tests/pinned/mod.rs"]
mod pinned;

const PINNED: &str = include_str!("../sim/tests/golden/fingerprints.txt");

#[wasm_bindgen_test]
fn wasm_traces_hash_the_same_as_native() {
    let now = pinned::fingerprint_lines();
    assert!(!PINNED.is_empty());
    assert_eq!(now, PINNED, "the wasm build's traces differ from the native build's");
}

/// Mounts a view in a fresh container and returns the container.
fn mount(view: impl FnOnce() -> AnyView + 'static) -> HtmlElement {
    let document = document();
    let container: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&container).unwrap();
    leptos::mount::mount_to(container.clone(), view).forget();
    container
}

fn find(root: &HtmlElement, selector: &str) -> HtmlElement {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("nothing matches {selector}")).unchecked_into()
}

fn text(root: &HtmlElement, testid: &str) -> String {
    find(root, &format!("[data-testid={testid}]")).text_content().unwrap_or_default()
}

async fn click(root: &HtmlElement, testid: &str) {
    find(root, &format!("[data-testid={testid}]")).click();
    leptos::task::tick().await;
}

fn count(root: &HtmlElement, selector: &str) -> u32 {
    root.query_selector_all(selector).unwrap().length()
}

#[wasm_bindgen_test]
async fn the_diagram_draws_the_trace_and_stepping_back_restores_the_past() {
    let race = mount(|| view! { <RaceView initial=Permalink::default()/> }.into_any());
    assert_eq!(text(&race, "race-zombie-writes"), "0", "nothing has happened at the start");
    assert!(text(&race, "race-verdict").contains("Play the run"), "the verdict waits for the end");

    click(&race, "race-end").await;
    assert_eq!(text(&race, "race-zombie-writes"), "1");
    assert!(text(&race, "race-verdict").contains("overwrote B's newer data"));
    assert_eq!(count(&race, "[data-testid=race-diagram] [data-kind=stale-overwrite]"), 1, "the zombie write is drawn");
    assert!(count(&race, "[data-testid=race-diagram] .arrow") >= 10, "messages are drawn as arrows");
    assert!(count(&race, "[data-testid=race-timelines] .bar-zombie") >= 1, "the zombie window is drawn");
    assert!(text(&race, "race-store-holds").contains("A's data (token 33)"));

    // Step back to just before A's stale write: the damage is undone on
    // screen; one step forward brings it back.
    let mut steps = 0;
    while text(&race, "race-zombie-writes") != "0" && steps < 40 {
        click(&race, "race-back").await;
        steps += 1;
    }
    assert!(steps > 1 && steps < 40, "{steps} steps back");
    assert!(text(&race, "race-store-holds").contains("B's data (token 34)"));
    assert_eq!(count(&race, "[data-testid=race-before-after]"), 0);
    click(&race, "race-forward").await;
    assert_eq!(text(&race, "race-zombie-writes"), "1");
    assert!(text(&race, "race-store-holds").contains("A's data (token 33)"));
}

#[wasm_bindgen_test]
async fn a_link_sets_up_the_view() {
    let (link, notices) = parse("preset=lease-x4&pause_ms=45000&seed=7");
    assert!(notices.is_empty(), "{notices:?}");
    let race = mount(move || view! { <RaceView initial=link/> }.into_any());
    click(&race, "race-end").await;
    assert_eq!(text(&race, "race-stale-overwrites"), "1", "a 45 s pause beats the 40 s lease");
}

#[wasm_bindgen_test]
async fn side_by_side_differs_in_exactly_fencing() {
    let link = Permalink { compare: Some(Difference::Fencing), ..Permalink::default() };
    let compare = mount(move || view! { <CompareView initial=link/> }.into_any());
    click(&compare, "compare-end").await;
    assert_eq!(text(&compare, "left-zombie-writes"), "1");
    assert_eq!(text(&compare, "right-rejected-writes"), "1");
    assert!(text(&compare, "compare-named").contains("Fencing off vs on"));
}

#[wasm_bindgen_test]
fn a_panic_shows_a_box_with_the_seed_and_a_copy_button() {
    fencing_lab_web::panic_box::show("deliberate test panic", "preset gc-pause, seed 7");
    let document = document();
    let panic_box = document.get_element_by_id("panic-box").expect("the box is on the page");
    let text = panic_box.text_content().unwrap_or_default();
    assert!(text.contains("seed 7"), "{text}");
    assert!(text.contains("deliberate test panic"), "{text}");
    assert_eq!(panic_box.get_attribute("role").as_deref(), Some("alert"));
    let button = panic_box.query_selector("button").unwrap().expect("a copy button");
    assert_eq!(button.text_content().as_deref(), Some("Copy details"));
    panic_box.remove();
}
