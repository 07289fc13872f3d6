//! The page in headless Chromium: its pure functions, its components, and
//! the wasm build's traces against the fingerprints the native build pinned.

use fencing_lab_web::layout::{layout, Rect};
use fencing_lab_web::pane::Pane;
use fencing_lab_web::player::{last_shown, step_ms, stop_of, stops, SPEED_1X};
use fencing_lab_web::route::{join, query_of, split_query, view_of, without_key, Theme, View};
use fencing_lab_web::{embed, quiz, CompareView, RaceView};
use fencing_sim::compare::Difference;
use fencing_sim::permalink::{parse, PAIRS_MAX};
use fencing_sim::presets::{self, PRESETS};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

wasm_bindgen_test_configure!(run_in_browser);

/// The runs the native tests pin, from the same file.
#[path = "../sim/tests/pinned/mod.rs"]
mod pinned;

const PINNED: &str = include_str!("../sim/tests/golden/fingerprints.txt");
const STORIES: &str = include_str!("../sim/tests/golden/stories.txt");

#[wasm_bindgen_test]
fn wasm_traces_hash_the_same_as_native() {
    let now = pinned::fingerprint_lines();
    assert!(!PINNED.is_empty());
    assert_eq!(now, PINNED, "the wasm build's traces differ from the native build's");
}

#[wasm_bindgen_test]
fn wasm_link_fingerprints_are_the_native_ones() {
    assert!(!STORIES.is_empty());
    assert_eq!(pinned::story_lines(), STORIES, "a link made natively would read as changed in wasm");
}

// ── Pure functions ──────────────────────────────────────────────────────────

#[wasm_bindgen_test]
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

#[wasm_bindgen_test]
fn every_views_query_opens_that_view_again() {
    let scenario = presets::classic();
    for view in [View::Race, View::Compare, View::Quiz, View::Sweep, View::Build] {
        let query = query_of(view, &scenario, Difference::LeaseX4, Some(12), Some("nfs"));
        let page = split_query(&query);
        assert_eq!(view_of(&page), view, "{query}");
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

#[wasm_bindgen_test]
fn snippets_name_the_widget_the_theme_and_the_helper() {
    let code = embed::snippet("https://host/lab/", "race", "preset=gc-pause&seed=1", "dark", "the race", 900);
    assert!(code.starts_with("<iframe src=\"https://host/lab/?preset=gc-pause&seed=1&embed=race&theme=dark\""), "{code}");
    assert!(code.contains("height=\"900\""));
    assert!(code.ends_with("<script src=\"https://host/lab/fencing-lab-embed.js\" async></script>"), "{code}");
    let plain = embed::snippet("https://host/lab/index.html", "quiz", "view=quiz&quiz=nfs", "auto", "a quiz question", 640);
    assert!(plain.contains("?view=quiz&quiz=nfs&embed=quiz\""), "no theme when it follows the reader: {plain}");
    assert!(plain.contains("https://host/lab/fencing-lab-embed.js"));
}

#[wasm_bindgen_test]
fn stops_merge_two_runs_in_time_order_and_find_each_panes_last_event() {
    let left = Pane::run(&presets::classic());
    let right = Pane::run(&fencing_sim::Scenario { fencing: true, ..presets::classic() });
    let (lv, rv) = (left.visible(false), right.visible(false));
    let list = stops(&[(&left.trace, lv.as_slice()), (&right.trace, rv.as_slice())]);
    assert_eq!(list.len(), lv.iter().chain(&rv).filter(|shown| **shown).count());
    assert!(list.windows(2).all(|pair| (pair[0].t_us, pair[0].pane, pair[0].event) <= (pair[1].t_us, pair[1].pane, pair[1].event)));
    let end = list.len() - 1;
    assert_eq!(last_shown(&list, end, 0), left.trace.events.iter().rev().find(|event| lv[event.index as usize]).map(|event| event.index));
    assert_eq!(last_shown(&list, 0, 1), None, "the right pane has shown nothing at the first stop");
    assert_eq!(stop_of(&list, Some(0)), 0);
    assert!(list.iter().any(|stop| stop.key) && list.iter().any(|stop| !stop.key));
}

#[wasm_bindgen_test]
fn the_classic_run_reaches_its_zombie_write_in_well_under_ten_seconds_at_1x() {
    let pane = Pane::run(&presets::classic());
    let visible = pane.visible(false);
    let list = stops(&[(&pane.trace, visible.as_slice())]);
    let zombie = list.iter().position(|stop| {
        matches!(pane.trace.events[stop.event as usize].kind, fencing_sim::Kind::WriteAccepted { stale_overwrite: true, .. })
    });
    let until_ms: u32 =
        list[..zombie.expect("the classic run has its stale overwrite")].iter().map(|stop| step_ms(stop.key, SPEED_1X)).sum();
    assert!(until_ms < 8_000, "the zombie write comes {until_ms} ms into playback at 1×");
    assert!(step_ms(true, 0) > step_ms(true, SPEED_1X), "slower is a choice");
}

#[wasm_bindgen_test]
fn quiz_words_have_their_plurals_and_no_stray_verdict() {
    let progress = quiz::parse_progress("gc-pause=1;nope=1;crash=0;garbage");
    assert_eq!(progress, vec![("gc-pause".to_string(), true), ("crash".to_string(), false)]);
    for question in fencing_sim::quiz::QUESTIONS {
        // A rate question's words are its options' (its trade is tested natively).
        let words = question.key_words(fencing_sim::quiz::Evidence { trace: &question.run(), trade: &[] });
        assert!(!words.contains("(s)"), "{}: {words}", question.id);
        if let fencing_sim::quiz::Form::Choice(choices) = &question.form {
            assert!(choices.iter().all(|choice| !choice.why.starts_with("Right.")), "{}: a verdict inside an explanation", question.id);
        }
    }
}

/// No two label boxes of one pane overlap, and none leaves the picture.
fn assert_labels_apart(geometry: &fencing_lab_web::layout::Geometry, what: &str) {
    for (index, pane) in geometry.panes.iter().enumerate() {
        let mut boxes: Vec<Rect> = geometry.times.iter().map(|label| label.rect).collect();
        boxes.extend(geometry.breaks.iter().flat_map(|gap| [gap.label.rect, gap.then.rect]));
        boxes.extend(pane.markers.iter().filter_map(|marker| marker.words.as_ref().map(|words| words.rect)));
        boxes.extend(pane.arrows.iter().map(|arrow| arrow.label.rect));
        for (position, rect) in boxes.iter().enumerate() {
            assert!(
                rect.x >= 0 && rect.y >= 0 && rect.x + rect.w <= pane.width && rect.y + rect.h <= geometry.height,
                "{what}, pane {index}: {rect:?} leaves the picture"
            );
            for other in &boxes[position + 1..] {
                let apart =
                    rect.x + rect.w <= other.x || other.x + other.w <= rect.x || rect.y + rect.h <= other.y || other.y + other.h <= rect.y;
                assert!(apart, "{what}, pane {index}: {rect:?} overlaps {other:?}");
            }
        }
    }
}

/// The rooms the diagram is laid out for: a laptop's and wider, one pane
/// side by side on a laptop, a phone.
const ROOMS_PX: [i32; 3] = [fencing_lab_web::layout::ROOM_UNMEASURED_PX, 590, 350];

#[wasm_bindgen_test]
fn every_presets_diagram_places_its_labels_apart_alone_and_side_by_side() {
    for preset in PRESETS {
        let scenario = (preset.build)();
        let pane = Pane::run(&scenario);
        for room_px in ROOMS_PX {
            for detail in [false, true] {
                let visible = pane.visible(detail);
                let geometry = layout(&[(&pane, visible.as_slice())], room_px);
                assert_labels_apart(&geometry, &format!("{} (detail {detail}, in {room_px} px)", preset.id));
            }
            let (left, right) = Difference::Fencing.split(&scenario);
            let (left, right) = (Pane::run(&left), Pane::run(&right));
            let (lv, rv) = (left.visible(false), right.visible(false));
            let geometry = layout(&[(&left, lv.as_slice()), (&right, rv.as_slice())], room_px);
            assert_labels_apart(&geometry, &format!("{} side by side in {room_px} px", preset.id));
            // Rows are shared: an event both runs have at the same moment sits at the same height.
            let first = |pane: usize| geometry.panes[pane].row_of.iter().flatten().next().copied();
            assert_eq!(first(0), first(1), "{}: both runs start on the same row", preset.id);
        }
    }
}

#[wasm_bindgen_test]
fn lanes_narrow_to_the_room_they_have_down_to_a_floor() {
    use fencing_lab_web::layout::{lane_gap_for, LANE_GAP_MIN_PX, LANE_GAP_PX, LEFT_PX};
    let pane = Pane::run(&presets::classic());
    let visible = pane.visible(false);
    // A phone's 350 px holds the classic run's four lanes, A to the store.
    let phone = layout(&[(&pane, visible.as_slice())], 350);
    let lanes = &phone.panes[0].lanes;
    assert_eq!(lanes.len(), 4);
    assert!(lanes.iter().all(|(_, x)| *x + LANE_GAP_MIN_PX / 2 <= 350), "{lanes:?}");
    assert_eq!(lane_gap_for(1_000, 4), LANE_GAP_PX, "a laptop keeps the usual distance");
    assert_eq!(lane_gap_for(350, 4), (350 - LEFT_PX) / 4);
    assert_eq!(lane_gap_for(200, 8), LANE_GAP_MIN_PX, "never below the floor");
}

#[wasm_bindgen_test]
fn the_forms_fields_edit_the_scenario_in_the_cores_terms() {
    use fencing_lab_web::controls::{apply, form};
    let classic = fencing_sim::Scenario { seed: 9, ..presets::classic() };
    let inverted = apply(&classic, "preset", "token-inversion", false).unwrap();
    assert_eq!((inverted.preset.as_str(), inverted.seed), ("token-inversion", 9), "a preset keeps the seed");
    assert_eq!(inverted.pause_ms_default(), 12_000, "and brings its own pause");
    let longer = apply(&classic, "pause", "20000", false).unwrap();
    assert!(longer.faults.iter().all(|fault| !matches!(fault, fencing_sim::Fault::Pause { pause_ms, .. } if *pause_ms != 20_000)));
    assert!(apply(&classic, "fencing", "on", true).unwrap().fencing);
    assert!(apply(&classic, "ttl", "ten", false).unwrap_err().contains("whole number of milliseconds"));
    assert!(apply(&classic, "lock", "99", false).is_err());
    let html = form(&inverted, "race");
    assert!(html.contains(r#"<option value="token-inversion" selected>"#), "{html}");
    assert!(html.contains(r#"name="pause" data-testid="race-pause" type="number" inputmode="numeric" min="0" value="12000""#), "{html}");
    let no_pause = apply(&classic, "preset", "holder-crash", false).unwrap();
    assert!(form(&no_pause, "race").contains(" disabled>"), "no pause to change: the field says so");
}

#[wasm_bindgen_test]
fn the_fault_panel_draws_the_cores_buttons_and_the_faults() {
    use fencing_lab_web::faults::markup;
    use fencing_sim::click::{apply, buttons, Action};
    let scenario = presets::classic();
    let pane = Pane::run(&scenario);
    let at = pane.trace.events.iter().position(|event| event.t_us >= 2_000_000).unwrap() as u32;
    let paused =
        apply(Action::Add(fencing_sim::FaultKind::Pause, fencing_sim::Actor::Worker(1)), &scenario, &pane.trace, Some(at)).unwrap();
    let html = markup(&paused, &pane.trace, Some(at), "race");
    assert_eq!(html.matches("<li class=\"fault\">").count(), 2);
    assert_eq!(html.matches("the preset's").count(), 1, "only the preset's own fault is marked");
    assert!(html.contains("Remove the fault you added"));
    for button in buttons(&paused, &pane.trace, Some(at)) {
        let testid = format!("data-testid=\"race-{}\"", button.action.replace(':', "-"));
        assert!(html.contains(&format!("data-action=\"{}\" {testid}", button.action)), "{testid} in {html}");
    }
    // A has one write, so after it there is nothing left to delay.
    let end = pane.trace.events.len() as u32 - 1;
    assert!(markup(&scenario, &pane.trace, Some(end), "race").contains("data-testid=\"race-delay-A\" disabled"));
}

// ── Components ──────────────────────────────────────────────────────────────

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
    let race = mount(|| view! { <RaceView/> }.into_any());
    assert_eq!(text(&race, "race-zombie-writes"), "0", "nothing has happened at the start");

    click(&race, "race-end").await;
    assert_eq!(text(&race, "race-zombie-writes"), "1");
    assert!(text(&race, "race-verdict").contains("overwrote B's newer data"));
    assert_eq!(count(&race, "[data-testid=race-diagram] [data-kind=stale-overwrite]"), 1, "the zombie write is drawn");
    assert!(count(&race, "[data-testid=race-diagram] .arrow") >= 10, "messages are drawn as arrows");
    assert!(count(&race, "[data-testid=race-timelines] .bar-zombie") >= 1, "the zombie window is drawn");
    assert!(text(&race, "race-store-holds").contains("A's data (token 33)"));
    assert!(text(&race, "race-caption").contains("A"), "the caption tells the step");

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
    assert!(!text(&race, "race-verdict").contains("overwrote"), "the banner agrees with the counters");
    click(&race, "race-forward").await;
    assert_eq!(text(&race, "race-zombie-writes"), "1");
    assert!(text(&race, "race-store-holds").contains("A's data (token 33)"));
}

#[wasm_bindgen_test]
async fn side_by_side_differs_in_exactly_fencing() {
    let compare = mount(move || view! { <CompareView/> }.into_any());
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

// ── For instructors: question links, reported answers ───────────────────────

#[wasm_bindgen_test]
fn a_question_link_opens_the_asked_view_with_its_own_keys_split_off() {
    use fencing_lab_web::asked::read;
    use fencing_sim::ask::{Ask, Custom};
    let question = Custom {
        scenario: presets::classic(),
        ask: Ask::Token { worker: fencing_sim::Actor::Worker(1) },
        prompt: Some("Which token?".into()),
    };
    let query = question.to_query();
    for extra in ["", "&embed=quiz", "&embed=quiz&theme=dark&origin=https%3A%2F%2Fcourses.example.edu", "&embed=quiz&jsinput=1"] {
        let page = split_query(&format!("{query}{extra}"));
        assert_eq!(view_of(&page), View::Ask, "{extra}");
        assert_eq!(page.rest, query, "the page's own keys never reach the checksum");
        let asked = read(&page.rest);
        assert!(asked.usable(), "{:?}", asked.notices);
        assert_eq!(asked.questions, vec![question.clone()]);
    }
    assert_eq!(split_query("embed=quiz&origin=*&set=abc").origin.as_deref(), Some("*"));
    // Open edX's JSInput mode is the page's own key: only `1` turns it on.
    assert!(split_query("set=abc&embed=quiz&jsinput=1").jsinput);
    assert!(!split_query("set=abc&embed=quiz&jsinput=yes").jsinput);
    assert_eq!(view_of(&split_query("set=abc&embed=quiz")), View::Ask);
    assert_eq!(view_of(&split_query("view=build&preset=gc-pause")), View::Build);
    // Any notice makes the link unusable: the built-in quiz stands in.
    let altered = read(&query.replace("Which", "Whose"));
    assert!(!altered.usable() && altered.notices[0].contains("changed after it was made"), "{:?}", altered.notices);
    let set = fencing_sim::ask::set_to_value(&[question.clone(), Custom { ask: Ask::Owner, ..question.clone() }]);
    let read_set = read(&format!("set={set}"));
    assert_eq!((read_set.questions.len(), read_set.set.as_deref()), (2, Some(set.as_str())));
    assert_eq!(fencing_lab_web::asked::question_id(&query), format!("ask-{}", query.rsplit_once("&sum=").unwrap().1));
}

#[wasm_bindgen_test]
fn answers_go_only_to_an_origin_written_as_one() {
    use fencing_lab_web::report::{duration, origin_of, target, Target};
    assert_eq!(origin_of("https://Courses.Example.edu/week-6.html?x=1#top").as_deref(), Ok("https://courses.example.edu"));
    assert_eq!(origin_of("http://127.0.0.1:8080/").as_deref(), Ok("http://127.0.0.1:8080"));
    for bad in ["courses.example.edu", "javascript:alert(1)", "https://", "https://user@host", "https://a b"] {
        assert!(origin_of(bad).is_err(), "{bad}");
    }
    assert_eq!(target(None), Ok(None));
    assert_eq!(target(Some("*")), Ok(Some(Target::Anyone)));
    assert_eq!(target(Some("https://courses.example.edu")), Ok(Some(Target::Origin("https://courses.example.edu".into()))));
    for loose in ["https://courses.example.edu/", "https://courses.example.edu/week-6", "null", "HTTPS://COURSES.EXAMPLE.EDU"] {
        assert!(target(Some(loose)).unwrap_err().contains("ignored origin="), "{loose}");
    }
    assert_eq!(duration(0), "PT0.00S");
    assert_eq!(duration(12_345), "PT12.34S");
    assert_eq!(duration(61_000), "PT61.00S");
}

#[wasm_bindgen_test]
fn statements_have_the_documented_shape() {
    use fencing_lab_web::report::{answered, builtin, completed, message, Answer, Interaction, ANSWERED, COMPLETED, QUESTION_ID};
    let answer = Answer {
        question_id: "ask-0123abcd".into(),
        link: "https://host/lab/?preset=gc-pause&seed=1&ask=owner&sum=0123abcd".into(),
        name: "Whose data the store holds at the end".into(),
        prompt: "Whose data? <b>plain</b>".into(),
        interaction: Interaction { kind: "choice", choices: vec!["A's data".into(), "B's data".into()], correct: Some("0".into()) },
        success: false,
        response: "1".into(),
        duration_ms: 4_250,
        set_link: Some("https://host/lab/?set=abc".into()),
    };
    let sent = message(answered(&answer, "2026-12-01T10:00:00.000Z"));
    assert_eq!((sent["type"].as_str(), sent["version"].as_str()), (Some("fencing-lab:statement"), Some("1.0")));
    let statement = &sent["statement"];
    assert_eq!(statement["verb"]["id"], ANSWERED);
    assert_eq!(statement["object"]["id"], answer.link.as_str());
    assert_eq!(statement["object"]["definition"]["extensions"][QUESTION_ID], "ask-0123abcd");
    assert_eq!(statement["object"]["definition"]["description"]["en-US"], "Whose data? <b>plain</b>");
    assert_eq!(statement["object"]["definition"]["choices"][1]["description"]["en-US"], "B's data");
    assert_eq!(statement["object"]["definition"]["correctResponsesPattern"][0], "0");
    assert_eq!(statement["result"]["success"], false);
    assert_eq!(statement["result"]["response"], "1");
    assert_eq!(statement["result"]["duration"], "PT4.25S");
    assert_eq!(statement["context"]["contextActivities"]["parent"][0]["id"], "https://host/lab/?set=abc");
    assert!(statement.get("actor").is_none(), "the host adds the actor");
    let done = completed("https://host/lab/?set=abc", 2, 3, 60_000, "2026-12-01T10:01:00.000Z");
    assert_eq!(done["verb"]["id"], COMPLETED);
    assert_eq!(done["result"]["score"]["raw"], 2);
    assert_eq!(done["result"]["score"]["max"], 3);
    assert_eq!(done["result"]["completion"], true);
    // A built-in question's answer, in the same terms: the key is the model's,
    // and positions are as the learner saw them at that attempt.
    let (_, question) = fencing_sim::quiz::find("gc-pause").unwrap();
    let trace = question.run();
    let evidence = fencing_sim::quiz::Evidence { trace: &trace, trade: &[] };
    let right = evidence.holding(&question.form).expect("gc-pause is a choice");
    let given = fencing_sim::quiz::Answer::Choice(right);
    for attempt in 0..4 {
        let shown = question.shown(attempt);
        let at = shown.iter().position(|index| *index == right).unwrap();
        let report = builtin(
            question,
            evidence,
            attempt,
            &given,
            question.mark(evidence, &given).correct,
            1_000,
            "https://host/lab/?view=quiz&quiz=gc-pause".into(),
        );
        assert_eq!((report.success, report.interaction.correct.clone()), (true, Some(at.to_string())));
        assert_eq!(report.response, at.to_string());
        let options = question.form.options().unwrap();
        assert_eq!(report.interaction.choices[at], options[right].0, "the choices are listed as shown");
    }
}
