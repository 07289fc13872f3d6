//! Predict, then see: one question at a time, answered before anything is
//! revealed. A wrong first try says why that answer is wrong and asks for a
//! second, keeping the key back; the second try (or "Show the answer")
//! reveals the run's verdict, the store's before and after, and every
//! option explained. The score counts first tries and is kept in this
//! browser. The options are shown in the core's order for this learner's
//! attempt (`Question::shown`), so no position holds the key. The questions
//! are the core's data, each rendered by the one `QuestionCard`; every key is
//! read off the model's run.

// What an embedded quiz (and an instructor's question) tells the page around it.
pub mod jsinput_bridge;
pub mod report;

use crate::shell::route::{query_of, View};
use fencing_sim::compare::Difference;
use fencing_sim::fleet::TradeRow;
use fencing_sim::quiz::{writes, Answer, Evidence, Form, Marked, Question, QUESTIONS};
use fencing_sim::store::Datum;
use fencing_sim::Trace;
use leptos::prelude::*;

const PROGRESS_KEY: &str = "fencing-lab.quiz";
/// How many times this browser started the quiz over: each attempt shows
/// the options in another order (`Question::shown`).
const ATTEMPT_KEY: &str = "fencing-lab.quiz-attempt";

/// Where a question stands for the learner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Waiting for a prediction.
    Open,
    /// A wrong first try: told why that answer is wrong, the key kept back.
    Retry,
    /// The key and every explanation, after a second try or on request.
    Revealed,
}

/// The reveal's first words: whether the last try was right, and which.
pub fn verdict_head(right: bool, tries: u8) -> &'static str {
    match (right, tries) {
        (true, 1) => "Right.",
        (true, _) => "Right this time.",
        (false, _) => "Not quite.",
    }
}

/// After a wrong first try: why that answer is wrong (when the question
/// can say without giving the key away), a second try, or the answer.
pub fn wrong_first_try(why: Option<String>, retry: impl Fn() + Copy + 'static, show: impl Fn() + Copy + 'static) -> impl IntoView {
    view! {
        <p class="result-head"><span aria-hidden="true">"✗ "</span>"Not quite. " {why}</p>
        <p class="first-try">"Try once more: the score counts your first try, but the second is how you find out."</p>
        <div class="quiz-actions">
            <button type="button" class="primary" on:click=move |_| retry() data-testid="quiz-retry">"Try once more"</button>
            <button type="button" on:click=move |_| show() data-testid="quiz-show-answer">"Show the answer"</button>
        </div>
    }
}

/// Right/wrong per question id, from the text kept in this browser.
pub fn parse_progress(saved: &str) -> Vec<(String, bool)> {
    saved
        .split(';')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(id, _)| fencing_sim::quiz::find(id).is_some())
        .map(|(id, right)| (id.to_string(), right == "1"))
        .collect()
}

fn format_progress(progress: &[(String, bool)]) -> String {
    progress.iter().map(|(id, right)| format!("{id}={}", u8::from(*right))).collect::<Vec<_>>().join(";")
}

pub(crate) fn question_query(index: usize) -> String {
    query_of(View::Quiz, &fencing_sim::Scenario::default(), Difference::Fencing, None, Some(QUESTIONS[index].id))
}

/// A question's link from this page: the reporting target (`origin=`)
/// rides along, so a learner moving between questions inside a course page
/// (a SCORM package frames the whole quiz) keeps reporting to it.
fn question_href(index: usize) -> String {
    let page = crate::shell::route::split_query(&crate::shell::browser::query());
    let mut own = form_urlencoded::Serializer::new(String::new());
    if let Some(origin) = page.origin {
        own.append_pair("origin", &origin);
    }
    format!("?{}", crate::shell::route::join(&question_query(index), &own.finish()))
}

#[component]
pub fn QuizView(
    /// Shown alone in an iframe: that one question, nothing else.
    #[prop(optional)]
    embedded: bool,
    /// Move focus to the question (the learner came from another question).
    #[prop(optional)]
    focus: bool,
) -> impl IntoView {
    // The question the link names (an unknown id opens the first); it
    // follows the URL as the learner moves between questions.
    let question = crate::shell::app::Lab::get().question;
    let index = Memo::new(move |_| question.with(|id| id.as_deref().and_then(fencing_sim::quiz::find).map_or(0, |(index, _)| index)));
    let (saved, save) = crate::shell::browser::local_storage(PROGRESS_KEY);
    let progress = Memo::new(move |_| parse_progress(&saved.get()));
    // An embedded question is one a platform grades against keys written
    // for the first attempt's order (Open edX's problem): always attempt 0.
    let (saved_attempt, save_attempt) = crate::shell::browser::local_storage(ATTEMPT_KEY);
    let attempt = Memo::new(move |_| if embedded { 0 } else { saved_attempt.with(|text| text.trim().parse::<u32>().unwrap_or(0)) });
    let started_ms = crate::quiz::report::now_ms();
    // The score counts first tries (as an instructor's set does): a retry
    // is told how the first try went and changes nothing. Returns that
    // first try, if this was not it.
    let record = move |id: &'static str, right: bool| -> Option<bool> {
        let mut list = progress.get_untracked();
        if let Some((_, first)) = list.iter().find(|(known, _)| known == id) {
            return Some(*first);
        }
        list.push((id.to_string(), right));
        save.set(format_progress(&list));
        if list.len() == QUESTIONS.len() {
            // Every question has its first try: the quiz is complete, as a set is.
            let right = list.iter().filter(|(_, right)| *right).count();
            let link = format!("{}?view=quiz", crate::shell::embed::base_url());
            let elapsed_ms = crate::quiz::report::elapsed_ms(started_ms);
            crate::quiz::report::send(crate::quiz::report::completed(
                &link,
                right,
                QUESTIONS.len(),
                elapsed_ms,
                &crate::quiz::report::timestamp(),
            ));
        }
        None
    };
    let state = move |id: &str| progress.with(|list| list.iter().find(|(known, _)| known == id).map(|(_, right)| *right));
    let first_index = index.get_untracked();
    if embedded {
        // Open edX's JSInput (`jsinput=1`) grades this one question's first try.
        let bridge = crate::quiz::jsinput_bridge::Jsinput::start(1);
        // Framed by a course platform (its answers reported, or graded by
        // Open edX): no link leads out of the frame.
        let packaged = bridge.is_some() || crate::shell::route::split_query(&crate::shell::browser::query()).origin.is_some();
        return view! {
            <section id="quiz" class="quiz card embedded-quiz" aria-labelledby="quiz-title">
                // Out of sight, for the headings' order under the embed's own h1.
                <h2 id="quiz-title" class="sr-only">"Predict, then see"</h2>
                {crate::quiz::report::page_target().err().map(|notice| view! { <p class="notice" role="status">{notice}</p> })}
                {bridge.map(|bridge| view! {
                    <p class="notice" role="status" hidden=move || bridge.notice.with(Option::is_none) data-testid="jsinput-notice">{move || bridge.notice.get()}</p>
                    <p class="hint" role="status" hidden=move || { bridge.restored.track(); bridge.kept(0).is_none() } data-testid="jsinput-kept">
                        "Your course keeps your first try: it is the one graded, whatever you try next."
                    </p>
                })}
                {move || view! { <QuestionCard index=index.get() attempt=0 record focus=false embedded=true packaged bridge/> }}
            </section>
        }
        .into_any();
    }
    let score = move || progress.with(|list| list.iter().filter(|(_, right)| *right).count());
    let answered = move || progress.with(Vec::len);
    // Inside a course package (`origin=`: answers go to the LMS) the quiz is
    // all there is: no link leads out of it or to a view it does not carry.
    let packaged = crate::shell::route::split_query(&crate::shell::browser::query()).origin.is_some();
    let start_over = Callback::new(move |()| {
        save.set(String::new());
        save_attempt.set((attempt.get_untracked().saturating_add(1)).to_string());
    });
    view! {
        <section id="quiz" class="quiz card" aria-labelledby="quiz-title">
            <h2 id="quiz-title">"Predict, then see"</h2>
            <p class="quiz-progress" data-testid="quiz-score">
                {move || format!("Question {} of {} · {} right of {} answered (first tries)", index.get() + 1, QUESTIONS.len(), score(), answered())}
            </p>
            <nav aria-label="Questions">
                <ol class="quiz-dots">
                    {QUESTIONS.iter().enumerate().map(|(position, question)| {
                        let mark = move || match state(question.id) { Some(true) => " ✓", Some(false) => " ✗", None => "" };
                        let said = move || match state(question.id) { Some(true) => ", answered right", Some(false) => ", answered wrong", None => "" };
                        view! {
                            <li>
                                <a class="dot" href=question_href(position) aria-current=move || (position == index.get()).then_some("step")
                                    class:right=move || state(question.id) == Some(true) class:wrong=move || state(question.id) == Some(false)
                                    aria-label=move || format!("Question {}: {}{}", position + 1, question.topic, said())>
                                    {position + 1}<span aria-hidden="true">{mark}</span>
                                </a>
                            </li>
                        }
                    }).collect_view()}
                </ol>
            </nav>
            {move || {
                // Focus follows the learner to another question, not on page load.
                let moved = focus || index.get() != first_index;
                view! { <QuestionCard index=index.get() attempt=attempt.get() record focus=moved embedded=false packaged bridge=None/> }
            }}
            <Summary progress start_over packaged/>
            // Instructors' tools live on the instructors' page, one link away.
            {(!packaged).then(|| view! {
                <p class="hint quiz-teach"><a href=move || format!("?view=build&quiz={}", QUESTIONS[index.get()].id) data-testid="quiz-lms">
                    "Teaching with this quiz? Embed a question, or take the quiz to your LMS or Open edX →"
                </a></p>
            })}
        </section>
    }
    .into_any()
}

/// One question: the form; after a wrong first try, why that answer is
/// wrong and a second try; then the reveal.
#[component]
fn QuestionCard(
    index: usize,
    /// The learner's attempt at the quiz: the options' order.
    attempt: u32,
    record: impl Fn(&'static str, bool) -> Option<bool> + Copy + Send + Sync + 'static,
    /// Move keyboard focus to the question's heading once it is shown.
    focus: bool,
    embedded: bool,
    /// Inside a course package or a platform's frame: no link out.
    packaged: bool,
    /// Open edX's JSInput, when it frames this question: it keeps the first try.
    bridge: Option<crate::quiz::jsinput_bridge::Jsinput>,
) -> impl IntoView {
    let question: &'static Question = &QUESTIONS[index];
    let heading = NodeRef::<leptos::html::H3>::new();
    let result_box = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        if let (true, Some(heading)) = (focus, heading.get()) {
            let _ = heading.focus();
        }
    });
    let trace = StoredValue::new(question.run());
    // A rate question's trade ships with it (computed natively when the
    // rows were written): Check is ready as soon as the question shows.
    let trade = question.trade();
    let with_evidence = move |then: &dyn Fn(Evidence)| trace.with_value(|trace| then(Evidence { trace, trade }));
    let answer = RwSignal::new(None::<Answer>);
    let stage = RwSignal::new(Stage::Open);
    let marked = RwSignal::new(None::<Marked>);
    let tries = RwSignal::new(0u8);
    // How the first try went, when the one marked is a later one.
    let first_try = RwSignal::new(None::<bool>);
    // Why the answer just given is wrong, when the question can say.
    let wrong_why = RwSignal::new(None::<String>);
    // When the question (or a retry) appeared: an answer's duration.
    let shown_ms = StoredValue::new(crate::quiz::report::now_ms());
    let check = move |_| {
        let Some(given) = answer.get_untracked() else { return };
        let link = format!("{}?{}", crate::shell::embed::base_url(), question_query(index));
        let spent_ms = crate::quiz::report::elapsed_ms(shown_ms.get_value());
        with_evidence(&|evidence| {
            let result = question.mark(evidence, &given);
            first_try.set(record(question.id, result.correct));
            let report = crate::quiz::report::builtin(question, evidence, attempt, &given, result.correct, spent_ms, link.clone());
            if let Some(bridge) = bridge {
                bridge.first(0, report.response.clone());
            }
            crate::quiz::report::send(crate::quiz::report::answered(&report, &crate::quiz::report::timestamp()));
            tries.update(|tries| *tries = tries.saturating_add(1));
            let reveal = result.correct || tries.get_untracked() >= 2;
            wrong_why.set((!result.correct).then(|| why_wrong(question, evidence, &given)).flatten());
            marked.set(Some(result));
            stage.set(if reveal { Stage::Revealed } else { Stage::Retry });
        });
        // Keyboard and screen-reader users land on the verdict.
        crate::shell::browser::focus_soon(move || result_box.try_get_untracked().flatten().map(Into::into));
    };
    let retry = move || {
        answer.set(None);
        stage.set(Stage::Open);
        shown_ms.set_value(crate::quiz::report::now_ms());
    };
    let show = move || {
        stage.set(Stage::Revealed);
        crate::shell::browser::focus_soon(move || result_box.try_get_untracked().flatten().map(Into::into));
    };
    let next = (index + 1) % QUESTIONS.len();
    view! {
        <article class="question" aria-labelledby=format!("question-{}", question.id) data-testid="question" data-question=question.id>
            <h3 id=format!("question-{}", question.id) tabindex="-1" node_ref=heading>{format!("{}. {}", index + 1, question.topic)}</h3>
            <p class="prompt"><span {..crate::shell::browser::story_timing()}>{question.prompt}</span></p>
            <fieldset class="answer" disabled=move || stage.get() != Stage::Open>
                <legend>"Your prediction"</legend>
                {trace.with_value(|trace| answer_form(question, trace, attempt, answer))}
            </fieldset>
            <Show when=move || stage.get() == Stage::Open>
                <button type="button" class="primary" data-testid="quiz-check" disabled=move || answer.get().is_none() on:click=check>
                    {move || if tries.get() == 0 { "Check my prediction" } else { "Check my second try" }}
                </button>
            </Show>
            {move || match stage.get() {
                Stage::Open => ().into_any(),
                Stage::Retry => view! {
                    <div class="result wrong" role="status" tabindex="-1" node_ref=result_box data-testid="quiz-result">
                        {wrong_first_try(wrong_why.get(), retry, show)}
                    </div>
                }.into_any(),
                Stage::Revealed => {
                    // After "Show the answer", the last marking is the wrong first try.
                    let correct = marked.with(|result| result.as_ref().is_some_and(|result| result.correct));
                    let key = with_evidence_key(question, trace, trade);
                    let head = verdict_head(correct, tries.get());
                    view! {
                        <div class=if correct { "result right" } else { "result wrong" } role="status" tabindex="-1" node_ref=result_box data-testid="quiz-result">
                            <p class="result-head">
                                <span aria-hidden="true">{if correct { "✓ " } else { "✗ " }}</span>
                                {head}
                                " The run says: " <strong>{key}</strong>
                            </p>
                            {first_try.get().map(|first| view! {
                                <p class="first-try" data-testid="quiz-first-try">
                                    <span aria-hidden="true">{if first { "✓ " } else { "✗ " }}</span>
                                    {if first { "Your first try was right, and it is the one the score counts." } else { "Your first try was wrong, and it is the one the score counts." }}
                                </p>
                            })}
                        </div>
                    }.into_any()
                }
            }}
            <Show when=move || stage.get() == Stage::Revealed>
                {move || trace.with_value(|trace| reveal(question, Evidence { trace, trade }, attempt, answer.get(), embedded, packaged))}
                <p class="lesson-line">{question.lesson}</p>
                {(!embedded).then(|| view! {
                    <div class="quiz-actions">
                        <a class="button primary" href=question_href(next) data-testid="quiz-next">"Next question"</a>
                    </div>
                })}
            </Show>
        </article>
    }
}

/// The key in words, read off the question's run.
fn with_evidence_key(question: &'static Question, trace: StoredValue<Trace>, trade: &[TradeRow]) -> String {
    trace.with_value(|trace| question.key_words(Evidence { trace, trade }))
}

/// Why a wrong answer is wrong, without naming the right one: a choice's
/// own explanation; for a picked write, the store's decision on it. None
/// for a number or an order (any hint there would point at the key).
fn why_wrong(question: &Question, evidence: Evidence, given: &Answer) -> Option<String> {
    match (&question.form, given) {
        (Form::Choice(_) | Form::Rate { .. }, Answer::Choice(index)) => {
            question.form.options().and_then(|options| options.get(*index).map(|(_, why)| (*why).to_string()))
        }
        (Form::PickWrite { .. }, Answer::Write(index)) => {
            let event = evidence.trace.events.get(*index as usize)?;
            matches!(event.kind, fencing_sim::event::Kind::WriteAccepted { .. })
                .then(|| "The store accepted that write: look for one it turned away.".to_string())
        }
        _ => None,
    }
}

/// After answering: why each option is right or wrong, in the order shown,
/// and the run in brief (for a rate question, the fleet's figures).
fn reveal(
    question: &'static Question,
    evidence: Evidence,
    attempt: u32,
    given: Option<Answer>,
    embedded: bool,
    packaged: bool,
) -> impl IntoView {
    let holding = evidence.holding(&question.form);
    let whys = question.form.options().map(|options| {
        question
            .shown(attempt)
            .into_iter()
            .map(|index| {
                let (text, why) = options[index];
                let right = holding == Some(index);
                let picked = given == Some(Answer::Choice(index));
                view! {
                    <li class=if right { "why right" } else { "why wrong" }>
                        <span aria-hidden="true">{if right { "✓ " } else { "✗ " }}</span>
                        <strong>{text}</strong>{if picked { " (your last answer)" } else { "" }}
                        <br/>{why}
                    </li>
                }
            })
            .collect_view()
    });
    let links = !packaged;
    let brief = match question.fleet_link() {
        Some(fleet_query) => fleet_brief(evidence.trade, links.then(|| (fleet_query, question.run_link())), embedded).into_any(),
        None => run_brief(evidence.trace, links.then(|| question.run_link()).as_deref(), embedded).into_any(),
    };
    view! {
        <ul class="whys">{whys}</ul>
        {brief}
    }
}

/// A rate question's trade in brief: the core's sentence about quadrupling
/// the lease, the runs as a table, and links to the fleet and to one run
/// (`links`: none inside a package, which carries neither).
fn fleet_brief(trade: &[TradeRow], links: Option<(String, String)>, embedded: bool) -> impl IntoView {
    let sentence = fencing_sim::fleet::quadrupling(trade).unwrap_or_default();
    let target = embedded.then_some("_top");
    view! {
        <div class="run-brief" data-testid="quiz-reveal">
            <p class="run-brief-verdict"><strong>"The fleet: "</strong>{sentence}</p>
            <div inner_html=crate::fleet::chart::trade_table(trade)></div>
            {links.map(|(fleet_query, run_query)| view! {
                <p>
                    <a href=format!("?{fleet_query}") target=target data-testid="quiz-fleet-link">"Run this fleet yourself →"</a>
                    " · "
                    <a href=format!("?{run_query}") target=target data-testid="quiz-run-link">"Watch one such zombie write, step by step →"</a>
                </p>
            })}
        </div>
    }
}

/// The run in brief, once a prediction is in: its verdict, the store's
/// before and after, and a link to the whole run (`run_query`; none inside
/// a package), outside the frame when embedded. Every quiz's reveal,
/// built-in or an instructor's.
pub fn run_brief(trace: &Trace, run_query: Option<&str>, embedded: bool) -> impl IntoView {
    let last = trace.events.len().saturating_sub(1) as u32;
    let (verdict, store) = (trace.verdict_at(last), trace.store_at(last));
    let data = |datum: Option<Datum>| match datum {
        Some(Datum { writer, token: Some(token) }) => format!("{writer}'s data (token {token})"),
        Some(Datum { writer, token: None }) => format!("{writer}'s data"),
        None => "nothing".to_string(),
    };
    let store_line = match store.before_after {
        Some((before, after)) => format!("The store held {}; the stale write left it holding {}.", data(before), data(Some(after))),
        None => format!("The store ends holding {}.", data(store.holds)),
    };
    let run = run_query.map(|query| format!("?{query}"));
    view! {
        <div class="run-brief" data-testid="quiz-reveal">
            <p class="run-brief-verdict"><strong>"The run: "</strong>{verdict.text}"."</p>
            <p>{store_line}</p>
            {run.map(|run| view! { <p><a href=run target=embedded.then_some("_top") data-testid="quiz-run-link">"Watch the whole run, step by step →"</a></p> })}
        </div>
    }
}

/// The inputs for each form of question.
fn answer_form(question: &'static Question, trace: &Trace, attempt: u32, answer: RwSignal<Option<Answer>>) -> AnyView {
    let name = format!("answer-{}", question.id);
    let radio = move |name: String, value: Answer, text: String| {
        let chosen = value.clone();
        view! {
            <label class="option">
                <input type="radio" name=name prop:checked=move || answer.get().as_ref() == Some(&chosen)
                    on:change=move |_| answer.set(Some(value.clone()))/>
                <span>{text}</span>
            </label>
        }
    };
    match &question.form {
        Form::Choice(_) | Form::Rate { .. } => {
            let options = question.form.options().unwrap_or_default();
            question
                .shown(attempt)
                .into_iter()
                .map(|index| radio(name.clone(), Answer::Choice(index), options[index].0.to_string()))
                .collect_view()
                .into_any()
        }
        Form::Number { unit: name, .. } => view! {
            <label class="option number">
                <span>{name.how_many()}</span>
                <input type="number" min="0" inputmode="numeric" data-testid="quiz-number"
                    on:input=move |ev| answer.set(event_target_value(&ev).trim().parse::<u64>().ok().map(Answer::Number))/>
            </label>
        }
        .into_any(),
        Form::PickWrite { .. } => {
            writes(trace).into_iter().map(|(event, label)| radio(name.clone(), Answer::Write(event.index), label)).collect_view().into_any()
        }
        Form::Order(steps) => view! { <OrderForm steps answer/> }.into_any(),
    }
}

/// Put steps in order with buttons (no dragging needed: keyboard first).
#[component]
fn OrderForm(steps: &'static [fencing_sim::quiz::Step], answer: RwSignal<Option<Answer>>) -> impl IntoView {
    let order = RwSignal::new((0..steps.len()).collect::<Vec<usize>>());
    Effect::new(move |_| answer.set(Some(Answer::Order(order.get()))));
    let shift = move |position: usize, up: bool| {
        let mut moved_to = position;
        order.update(|order| {
            let other = if up { position.checked_sub(1) } else { Some(position + 1).filter(|next| *next < order.len()) };
            if let Some(other) = other {
                order.swap(position, other);
                moved_to = other;
            }
        });
        // The list is drawn anew: focus follows the step moved, on the same
        // button while it can move further that way, else on the other.
        let last = steps.len() - 1;
        let direction = match (up, moved_to) {
            (true, 0) => "down",
            (false, at) if at == last => "up",
            (true, _) => "up",
            (false, _) => "down",
        };
        crate::shell::browser::focus_soon(move || {
            let selector = format!("[data-testid=quiz-order] li:nth-child({}) button[data-move={direction}]", moved_to + 1);
            document().query_selector(&selector).ok().flatten().and_then(|element| wasm_bindgen::JsCast::dyn_into(element).ok())
        });
    };
    view! {
        <p class="hint">"Move each step up or down until the list reads from first to last."</p>
        <ol class="order" data-testid="quiz-order">
            {move || order.get().into_iter().enumerate().map(|(position, step)| view! {
                <li>
                    <span class="order-text">{steps[step].text}</span>
                    <button type="button" data-move="up" aria-label=format!("Move \"{}\" up", steps[step].text) disabled=position == 0 on:click=move |_| shift(position, true)>"↑"</button>
                    <button type="button" data-move="down" aria-label=format!("Move \"{}\" down", steps[step].text) disabled=position + 1 == steps.len() on:click=move |_| shift(position, false)>"↓"</button>
                </li>
            }).collect_view()}
        </ol>
    }
}

/// Once every question is answered: what was missed, and the run for each
/// (inside a package, which carries no race, the question again only).
#[component]
fn Summary(progress: Memo<Vec<(String, bool)>>, start_over: Callback<()>, packaged: bool) -> impl IntoView {
    let complete = move || progress.with(|list| list.len() == QUESTIONS.len());
    view! {
        <Show when=complete>
            <section class="quiz-summary" aria-labelledby="quiz-summary-title" data-testid="quiz-summary">
                <h3 id="quiz-summary-title">
                    {move || format!("You got {} of {} right at the first try", progress.with(|list| list.iter().filter(|(_, right)| *right).count()), QUESTIONS.len())}
                </h3>
                <ul>
                    {move || QUESTIONS.iter().enumerate().map(|(position, question)| {
                        let right = progress.with(|list| list.iter().any(|(id, right)| id == question.id && *right));
                        view! {
                            <li class=if right { "right" } else { "wrong" }>
                                <span aria-hidden="true">{if right { "✓ " } else { "✗ " }}</span>
                                {question.topic}
                                {(!right).then(|| view! {
                                    " — "
                                    {(!packaged).then(|| view! { <a href=format!("?{}", question.run_link())>"see the run that explains it"</a>" or " })}
                                    <a href=question_href(position)>"look at it again"</a>
                                    " (the score keeps your first try)"
                                })}
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <button type="button" on:click=move |_| start_over.run(()) data-testid="quiz-start-over">"Start the quiz over (forget every answer; the options come in a new order)"</button>
            </section>
        </Show>
    }
}
