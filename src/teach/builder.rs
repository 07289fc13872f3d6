//! The question builder: from the run on screen (any preset, knobs and
//! faults), an instructor picks what to ask among the kinds the model can
//! answer for this run, may word the prompt, sees the options and the key the
//! core computed, and gets the question's link and embed snippet. Questions
//! gather into a set (kept in this browser until cleared) with a link of its
//! own. Everything lives in the link; no server is involved.

use crate::quiz::report;
use crate::quiz::run_brief;
use crate::race;
use crate::race::pane::Pane;
use crate::shell::app::Lab;
use crate::shell::browser;
use crate::shell::embed::{base_url, EmbedButton};
use crate::teach::asked::ask_label;
use crate::teach::lms::{JsinputXml, ScormDownload};
use fencing_course::scorm::Build;
use fencing_sim::ask::{self, Ask, Custom, LINK_CHARS_MAX, PROMPT_CHARS_MAX, SET_QUESTIONS_MAX};
use fencing_sim::permalink::{to_link, Permalink};
use leptos::prelude::*;

/// Where the set being built is kept (its link's value).
const SET_KEY: &str = "fencing-lab.question-set";

/// The questions of a set's value, ignoring what cannot be read.
fn set_of(value: &str) -> Vec<Custom> {
    if value.is_empty() {
        return Vec::new();
    }
    ask::parse_set(value).0
}

#[component]
pub fn BuilderView() -> impl IntoView {
    // Sent here by the quiz (`quiz=`): the built-in quiz's tools alone, not
    // the builder for an unrelated run under them.
    let builtin =
        crate::shell::route::split_query(&browser::query()).quiz.and_then(|id| fencing_sim::quiz::find(&id).map(|(index, _)| index));
    if let Some(index) = builtin {
        return view! { <div class="builder card"><crate::teach::lms::BuiltinForLms index/></div> }.into_any();
    }
    let scenario = Lab::get().scenario;
    let pane = Memo::new(move |_| Pane::run(&scenario.get()));
    let asks = Memo::new(move |_| pane.with(|pane| ask::asks_for(&pane.trace)));
    let chosen = RwSignal::new(0usize);
    let prompt = RwSignal::new(String::new());
    let custom = Memo::new(move |_| {
        let ask = asks.with(|asks| asks.get(chosen.get()).or(asks.first()).copied()).unwrap_or(Ask::Owner);
        let words = prompt.with(|words| words.trim().to_string());
        Custom { scenario: scenario.get(), ask, prompt: (!words.is_empty()).then_some(words) }
    });
    let query = Memo::new(move |_| custom.with(Custom::to_query));
    let run_query = move || scenario.with(|scenario| to_link(&Permalink { scenario: scenario.clone(), cursor: None, compare: None }));
    let faults = move || scenario.with(|scenario| scenario.faults.iter().map(|fault| fault.describe()).collect::<Vec<_>>());
    let status = RwSignal::new(String::new());
    let origin = RwSignal::new(None::<String>);
    let copy = move |text: String, done: &'static str| {
        browser::copy_then(
            text,
            Box::new(move |copied| {
                status.set(if copied { done } else { "Copying is not allowed here: select the text and copy it." }.to_string())
            }),
        );
    };
    view! {
        <section id="builder" class="builder card" aria-labelledby="builder-title">
            <h2 id="builder-title">"Make a question from this run"</h2>
            <p class="builder-run">{move || scenario.with(race::scenario_line)}</p>
            <ul class="builder-faults" aria-label="Faults in this run" data-testid="builder-faults">
                {move || faults().into_iter().map(|fault| view! { <li>{fault}</li> }).collect_view()}
            </ul>
            <p><a href=move || format!("?{}", run_query()) data-testid="builder-back">"← Back to the race"</a></p>
            {move || pane.with(|pane| run_brief(&pane.trace, Some(&run_query()), false))}
            <div class="builder-grid">
                <fieldset class="answer builder-asks" data-testid="builder-asks">
                    <legend>"What to ask (the kinds the model can answer for this run)"</legend>
                    {move || asks.get().into_iter().enumerate().map(|(index, ask)| view! {
                        <label class="option">
                            <input type="radio" name="builder-ask" prop:checked=move || chosen.get() == index on:change=move |_| chosen.set(index)/>
                            <span>{ask_label(ask)}</span>
                        </label>
                    }).collect_view()}
                </fieldset>
                <div class="builder-words">
                    <label class="field">
                        <span>"The question's words (optional, plain text)"</span>
                        <textarea rows="4" maxlength=PROMPT_CHARS_MAX.to_string() data-testid="builder-prompt"
                            placeholder=move || custom.with(|custom| Custom { prompt: None, ..custom.clone() }.prompt())
                            on:input=move |ev| prompt.set(event_target_value(&ev))></textarea>
                    </label>
                    <p class="hint">{move || format!("{} of {PROMPT_CHARS_MAX} characters. Left empty, the question says what the placeholder says.", prompt.with(|words| words.chars().count()))}</p>
                    <Preview custom pane/>
                </div>
            </div>
            <h3>"Share this question"</h3>
            <div class="builder-share">
                <label class="field wide">
                    <span>"The question's link (opens it in the quiz)"</span>
                    <input type="text" readonly prop:value=move || format!("{}?{}", base_url(), query.get()) data-testid="builder-link"/>
                </label>
                <div class="embed-actions">
                    <button type="button" on:click=move |_| copy(format!("{}?{}", base_url(), query.get_untracked()), "Question link copied.")>"Copy link"</button>
                    <a class="button" href=move || format!("?{}", query.get()) target="_blank" rel="noopener" data-testid="builder-open">"Open the question ↗"</a>
                    <span role="status">{move || status.get()}</span>
                </div>
                // Where answers go: for both snippets, the question's and the set's.
                <report::ReportTo origin/>
                <div data-testid="builder-question-embed">
                    <EmbedButton widget="quiz" title="a question" query=report::with_origin(query.into(), origin) height_px=760/>
                </div>
                <JsinputXml query=query.into() keys=Callback::new(move |()| Ok(vec![custom.with(|custom| pane.with(|pane| key_of(custom, Some(&pane.trace))))]))
                    title="a question" height_px=760/>
            </div>
            <SetPanel custom origin/>
        </section>
    }
    .into_any()
}

/// What learners will see: the prompt, the options, and (for the
/// instructor only) which option the run makes right.
#[component]
fn Preview(custom: Memo<Custom>, pane: Memo<Pane>) -> impl IntoView {
    let options = Memo::new(move |_| custom.with(|custom| pane.with(|pane| custom.options(&pane.trace))));
    view! {
        <section class="builder-preview" aria-labelledby="builder-preview-title">
            <h3 id="builder-preview-title">"What learners see"</h3>
            <p class="prompt asked-prompt" data-testid="builder-preview-prompt">{move || custom.with(Custom::prompt)}</p>
            <ol class="builder-options" data-testid="builder-options">
                {move || options.with(|(options, key)| options.iter().enumerate().map(|(index, text)| {
                    let right = index == *key;
                    view! {
                        <li class:key=right data-testid=right.then_some("builder-key")>
                            {text.clone()}
                            {right.then(|| view! { <span class="key-mark">" ✓ the run's answer"</span> })}
                        </li>
                    }
                }).collect_view())}
            </ol>
            <p class="hint">"The options and the answer are read off the model's run of this scenario, as for the built-in questions."</p>
        </section>
    }
}

/// The set being built: its questions in order, its link and snippet.
#[component]
fn SetPanel(custom: Memo<Custom>, origin: RwSignal<Option<String>>) -> impl IntoView {
    let (saved, save) = crate::shell::browser::local_storage(SET_KEY);
    let set = Memo::new(move |_| saved.with(|saved| set_of(saved)));
    let problem = RwSignal::new(None::<String>);
    let keep = move |list: Vec<Custom>| {
        let value = ask::set_to_value(&list);
        if value.len() > LINK_CHARS_MAX {
            problem.set(Some(format!("The set's link would pass {LINK_CHARS_MAX} characters: make a second set.")));
        } else {
            problem.set(None);
            save.set(value);
        }
    };
    let add = move |_| {
        let mut list = set.get_untracked();
        if list.len() >= SET_QUESTIONS_MAX {
            problem.set(Some(format!("A set holds at most {SET_QUESTIONS_MAX} questions.")));
            return;
        }
        list.push(custom.get_untracked());
        keep(list);
    };
    let remove = move |index: usize| {
        let mut list = set.get_untracked();
        if index < list.len() {
            list.remove(index);
            keep(list);
        }
    };
    let set_query = Signal::derive(move || format!("set={}", saved.get()));
    view! {
        <section class="builder-set" aria-labelledby="builder-set-title">
            <h3 id="builder-set-title">{move || format!("Your set ({} of at most {SET_QUESTIONS_MAX} questions)", set.with(Vec::len))}</h3>
            <button type="button" on:click=add data-testid="builder-add">"Add this question to the set"</button>
            <p class="notice" role="alert" hidden=move || problem.with(Option::is_none)>{move || problem.get()}</p>
            <ol class="builder-set-list" data-testid="builder-set">
                {move || set.get().into_iter().enumerate().map(|(index, question)| view! {
                    <li>
                        <span class="set-prompt">{question.prompt()}</span>
                        <button type="button" class="quiet" on:click=move |_| remove(index) aria-label=format!("Remove question {} from the set", index + 1)>"Remove"</button>
                    </li>
                }).collect_view()}
            </ol>
            <Show when=move || set.with(|set| !set.is_empty())>
                <label class="field">
                    <span>"The set's link"</span>
                    <input type="text" readonly prop:value=move || format!("{}?{}", base_url(), set_query.get()) data-testid="builder-set-link"/>
                </label>
                <div class="embed-actions">
                    <a class="button" href=move || format!("?{}", set_query.get()) target="_blank" rel="noopener">"Open the set ↗"</a>
                    <button type="button" class="quiet" on:click=move |_| keep(Vec::new()) data-testid="builder-clear">"Clear the set"</button>
                </div>
                <div data-testid="builder-set-embed">
                    <EmbedButton widget="quiz" title="a set of questions" query=report::with_origin(set_query, origin) height_px=900/>
                </div>
                <ScormDownload quiz_query=Signal::derive(move || format!("{}&embed=quiz", set_query.get())) runs_in=Build::Teach scope="this set"
                    title=Signal::derive(move || format!("Fencing Lab: a set of {} questions", set.with(Vec::len)))/>
                <JsinputXml query=set_query keys=Callback::new(move |()| Ok(set.with(|set| set.iter().map(|custom| key_of(custom, None)).collect())))
                    title="a set of questions" height_px=900/>
            </Show>
        </section>
    }
}

/// A question's key as its answers report it (the right option's position),
/// from its run: `trace` when the run is at hand, else run here.
fn key_of(custom: &Custom, trace: Option<&fencing_sim::Trace>) -> String {
    let key = match trace {
        Some(trace) => custom.options(trace).1,
        None => custom.options(&Pane::run(&custom.scenario).trace).1,
    };
    key.to_string()
}
