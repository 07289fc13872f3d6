//! For a course platform: a question set or the built-in quiz as a SCORM 1.2
//! package (Moodle and other LMSs), and Open edX's JSInput problem. The
//! package is the site's own files, fetched from its own origin and packed
//! by the model (`fencing_course::scorm`); the problem's keys are the model's
//! too (`fencing_sim::ask`, `fencing_sim::quiz`). The widget's side of
//! JSInput (`getGrade`, `getState`, `setState` on its window) is
//! `jsinput_bridge::Jsinput`, which the quizzes hold.

use crate::shell::browser;
use crate::shell::route::join;
use fencing_course::jsinput;
use fencing_course::scorm::{self, zip::Entry, Build, Package, MASTERY_DEFAULT_PERCENT};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// "Download for your LMS (SCORM 1.2)", with the pass mark beside it.
#[component]
pub fn ScormDownload(
    /// What the package launches: the quiz's query in this site.
    quiz_query: Signal<String>,
    /// The build that runs it (`static/boot.js` picks the same one).
    runs_in: Build,
    /// The activity's title in the LMS.
    title: Signal<String>,
    /// What the package holds, in a few words ("this set", "the whole quiz").
    scope: &'static str,
) -> impl IntoView {
    let mastery_text = RwSignal::new(MASTERY_DEFAULT_PERCENT.to_string());
    let mastery = Memo::new(move |_| mastery_text.with(|text| scorm::parse_mastery(text)));
    let status = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let download = move |_| {
        let package = Package {
            title: title.get_untracked(),
            quiz_query: quiz_query.get_untracked(),
            build: runs_in,
            mastery_percent: mastery.get_untracked().unwrap_or(MASTERY_DEFAULT_PERCENT),
        };
        busy.set(true);
        status.set("Gathering the site's files…".to_string());
        spawn_local(async move {
            let name = package.file_name();
            let saved = package_bytes(&package).await.and_then(|bytes| browser::download_bytes(&name, "application/zip", &bytes));
            status.set(match saved {
                Ok(()) => format!("Saved {name}. Add it to your course as a SCORM package: the steps for Moodle are just below."),
                Err(why) => format!("The package could not be made: {why}."),
            });
            busy.set(false);
        });
    };
    let mastery_said = move || match mastery.get() {
        Ok(percent) => format!("Passed at {percent} % or more (an LMS that sets its own mastery score overrides it)."),
        Err(why) => format!("Not used: {why}."),
    };
    view! {
        <fieldset class="lms" data-testid="scorm">
            <legend>{format!("For your LMS: {scope} as a SCORM 1.2 package (Moodle and others)")}</legend>
            <label class="field">
                <span>"Pass mark: percent right at the first try"</span>
                <input type="number" min="0" max="100" step="1" inputmode="numeric" data-testid="scorm-mastery"
                    prop:value=move || mastery_text.get() on:input=move |ev| mastery_text.set(event_target_value(&ev))/>
            </label>
            <p class="hint" role="status" data-testid="scorm-mastery-status">{mastery_said}</p>
            <button type="button" on:click=download disabled=move || busy.get() data-testid="scorm-download">
                "Download for your LMS (SCORM 1.2)"
            </button>
            <p role="status" data-testid="scorm-download-status">{move || status.get()}</p>
            <details class="lms-steps" data-testid="scorm-moodle">
                <summary>"How to add it in Moodle"</summary>
                <ol>
                    <li>"In your course, turn editing on, choose “Add an activity or resource”, then “SCORM package”."</li>
                    <li>"Name the activity and drop the downloaded zip into “Package file”; leave the grading at its defaults (the score is the percentage right at the first try)."</li>
                    <li>"Save and display. Learners answer inside Moodle; each answer, the score and passed or failed are recorded in its gradebook."</li>
                </ol>
                <p class="hint">"Canvas and Open edX: see docs/instructors.md in Fencing Lab's source."</p>
            </details>
        </fieldset>
    }
}

/// The package's bytes: the site's files it needs, fetched one by one (a
/// fixed list, `scorm::site_files`), then packed by the model.
async fn package_bytes(package: &Package) -> Result<Vec<u8>, String> {
    let mut site = Vec::new();
    for name in scorm::site_files(package.build) {
        let bytes = browser::fetch_bytes(&format!("./{name}")).await.map_err(|why| format!("{name}: {why}"))?;
        site.push(Entry { path: name.to_string(), bytes });
    }
    package.archive(site)
}

/// Open edX's problem XML for the quiz at `query`, with its keys (None:
/// this quiz's key is not known in advance, and `why_not` says why).
#[component]
pub fn JsinputXml(
    /// The quiz's query in this site (without `embed` or `jsinput`).
    query: Signal<String>,
    /// The keys, one per question, computed by the model; read only once the panel is opened.
    keys: Callback<(), Result<Vec<String>, String>>,
    title: &'static str,
    height_px: u32,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let xml = move || {
        open.get().then(|| {
            let html_file = format!("{}?{}", crate::shell::embed::base_url(), join(&query.get(), "embed=quiz&jsinput=1"));
            keys.run(()).map(|keys| jsinput::problem_xml(&format!("Fencing Lab: {title}"), &html_file, &keys, height_px))
        })
    };
    view! {
        <details class="lms" on:toggle=move |ev| open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open()) data-testid="jsinput">
            <summary>"For Open edX: a problem graded by the platform (JSInput)"</summary>
            <p class="hint">
                "In Studio: add a Problem, Advanced, Custom JavaScript Display and Grading; open its editor and replace the XML with this. "
                "The platform calls the widget for the learner's first tries and grades them against the keys below, computed from the runs."
            </p>
            {move || match xml() {
                Some(Ok(xml)) => view! {
                    <label class="field">
                        <span>"Problem XML"</span>
                        <textarea readonly rows="12" data-testid="jsinput-xml">{xml}</textarea>
                    </label>
                }.into_any(),
                Some(Err(why)) => view! { <p class="notice" role="status">{why}</p> }.into_any(),
                None => ().into_any(),
            }}
        </details>
    }
}

/// A built-in question's key for Open edX, as its answers report it: a
/// framed question always shows its first attempt's order.
pub fn builtin_key(index: usize) -> Result<Vec<String>, String> {
    let question = &fencing_sim::quiz::QUESTIONS[index];
    let trace = question.run();
    let evidence = fencing_sim::quiz::Evidence { trace: &trace, trade: question.trade() };
    question
        .key_response(evidence, 0)
        .map(|key| vec![key])
        .ok_or_else(|| "The model's run does not single out one answer to this question, so it has no key to write into a problem: pick another question, or make your own in the builder.".to_string())
}

/// The built-in quiz for a course platform (the quiz's link to the builder,
/// `view=build&quiz=…`): the whole quiz as a SCORM package, and the named
/// question as a JSInput problem.
#[component]
pub fn BuiltinForLms(
    /// The question the quiz showed, by its position.
    index: usize,
) -> impl IntoView {
    let questions = fencing_sim::quiz::QUESTIONS.len();
    let question = &fencing_sim::quiz::QUESTIONS[index];
    view! {
        <section class="builder-quiz" aria-labelledby="builder-quiz-title" data-testid="builder-quiz">
            <h3 id="builder-quiz-title">"The built-in quiz, for your LMS or Open edX"</h3>
            <p><a href=format!("?{}", crate::quiz::question_query(index))>{format!("← Back to question {}: {}", index + 1, question.topic)}</a></p>
            <ScormDownload quiz_query=Signal::derive(|| "view=quiz".to_string()) runs_in=Build::Quiz scope="the whole quiz"
                title=Signal::derive(move || format!("Fencing Lab: predict, then see ({questions} questions)"))/>
            <JsinputXml query=Signal::derive(move || crate::quiz::question_query(index)) keys=Callback::new(move |()| builtin_key(index))
                title="a quiz question" height_px=640/>
            // This question alone in your own page, with where its answers go.
            <p class="hint">{format!("Question {}, “{}”, alone in your own course page:", index + 1, question.topic)}</p>
            {crate::quiz::report::embed_button(Signal::derive(move || crate::quiz::question_query(index)), "a quiz question", 640)}
        </section>
    }
}
