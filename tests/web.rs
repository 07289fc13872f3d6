//! The page in headless Chromium: its pure functions, its components, and
//! the wasm build's traces against the fingerprints the native build pinned.

use fencing_lab_web::race::pane::Pane;
use fencing_lab_web::race::player::{last_shown, step_ms, stop_of, stops, SPEED_1X};
use fencing_lab_web::shell::embed;
use fencing_lab_web::shell::route::{split_query, view_of, View};
use fencing_lab_web::{quiz, CompareView, RaceView};
use fencing_sim::presets;
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
// The routes' and the layout's tests run natively, in the modules themselves
// (`cargo test -p fencing-lab-web --lib`); these need the wasm build's
// player, quiz and forms.

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

#[wasm_bindgen_test]
fn the_forms_fields_edit_the_scenario_in_the_cores_terms() {
    // The form's markup is tested natively (`race::controls`'s tests).
    use fencing_lab_web::race::controls::apply;
    let classic = fencing_sim::Scenario { seed: 9, ..presets::classic() };
    let inverted = apply(&classic, "preset", "token-inversion", false).unwrap();
    assert_eq!((inverted.preset.as_str(), inverted.seed), ("token-inversion", 9), "a preset keeps the seed");
    assert_eq!(inverted.pause_ms_default(), 12_000, "and brings its own pause");
    let longer = apply(&classic, "pause", "20000", false).unwrap();
    assert!(longer.faults.iter().all(|fault| !matches!(fault, fencing_sim::Fault::Pause { pause_ms, .. } if *pause_ms != 20_000)));
    assert!(apply(&classic, "fencing", "on", true).unwrap().fencing);
    assert!(apply(&classic, "ttl", "ten", false).unwrap_err().contains("whole number of milliseconds"));
    assert!(apply(&classic, "lock", "99", false).is_err());
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
    assert!(count(&race, "[data-testid=race-picture] .bar-zombie") >= 1, "the zombie window is drawn");
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
    fencing_lab_web::shell::panic_box::show("deliberate test panic", "preset gc-pause, seed 7");
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
    use fencing_lab_web::teach::asked::read;
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
    assert_eq!(fencing_lab_web::teach::asked::question_id(&query), format!("ask-{}", query.rsplit_once("&sum=").unwrap().1));
}

#[wasm_bindgen_test]
fn answers_go_only_to_an_origin_written_as_one() {
    use fencing_lab_web::quiz::report::{duration, origin_of, target, Target};
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
    use fencing_lab_web::quiz::report::{answered, builtin, completed, message, Answer, Interaction, ANSWERED, COMPLETED, QUESTION_ID};
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
