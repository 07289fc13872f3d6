//! The page's components in headless Chromium, and the wasm build's traces
//! against the fingerprints the native build pinned.

use fencing_lab_web::RaceWidget;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

const PINNED: &str = include_str!("../sim/tests/golden/fingerprints.txt");

#[wasm_bindgen_test]
fn wasm_traces_hash_the_same_as_native() {
    let now = fencing_sim::golden::fingerprint_lines();
    assert!(!PINNED.is_empty());
    assert_eq!(now, PINNED, "the wasm build's traces differ from the native build's");
}

/// Mounts the widget in a fresh container and returns the container.
fn mount_race() -> HtmlElement {
    let document = document();
    let container: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&container).unwrap();
    leptos::mount::mount_to(container.clone(), || view! { <RaceWidget/> }).forget();
    container
}

fn find<T: JsCast>(root: &HtmlElement, testid: &str) -> T {
    root.query_selector(&format!("[data-testid={testid}]"))
        .unwrap()
        .unwrap_or_else(|| panic!("no element with data-testid={testid}"))
        .unchecked_into()
}

fn text(root: &HtmlElement, testid: &str) -> String {
    find::<HtmlElement>(root, testid).text_content().unwrap_or_default()
}

#[wasm_bindgen_test]
async fn running_and_toggling_fencing_updates_the_counters() {
    let race = mount_race();
    assert!(race.query_selector("[data-testid=zombie-writes]").unwrap().is_none(), "nothing is revealed before a run");

    find::<HtmlElement>(&race, "run").click();
    leptos::task::tick().await;
    assert_eq!(text(&race, "zombie-writes"), "1");
    assert_eq!(text(&race, "rejected-writes"), "0");
    assert!(text(&race, "store-final").contains("A's data (token 33)"), "{}", text(&race, "store-final"));
    assert!(text(&race, "announcer").contains("Zombie writes: 1"));

    find::<HtmlInputElement>(&race, "fencing").click();
    find::<HtmlElement>(&race, "run").click();
    leptos::task::tick().await;
    assert_eq!(text(&race, "zombie-writes"), "0");
    assert_eq!(text(&race, "rejected-writes"), "1");
    assert!(text(&race, "store-final").contains("B's data (token 34)"));
    assert!(text(&race, "verdict").contains("rejected: token 33 < 34"));
    let events = find::<HtmlElement>(&race, "events");
    assert!(events.text_content().unwrap().contains("Store rejected A's write: token 33 < 34 already accepted"));
}
