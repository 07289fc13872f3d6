//! Predict, then see: one question at a time, answered before anything is
//! revealed; then a compact reveal (the run's verdict, the store's before
//! and after, a link to the whole run), every option explained, and the
//! score kept in this browser. The questions are the core's data, each
//! rendered by the one `QuestionCard`; every key is read off the model's run.

use crate::route::{query_of, View};
use crate::slices::{Progress, Task};
use fencing_sim::compare::Difference;
use fencing_sim::fleet::TradeRow;
use fencing_sim::quiz::{writes, Answer, Evidence, Form, Marked, Question, QUESTIONS};
use fencing_sim::store::Datum;
use fencing_sim::Trace;
use leptos::prelude::*;

const PROGRESS_KEY: &str = "fencing-lab.quiz";

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
    let page = crate::route::split_query(&crate::browser::query());
    let mut own = form_urlencoded::Serializer::new(String::new());
    if let Some(origin) = page.origin {
        own.append_pair("origin", &origin);
    }
    format!("?{}", crate::route::join(&question_query(index), &own.finish()))
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
    let question = crate::app::Lab::get().question;
    let index = Memo::new(move |_| question.with(|id| id.as_deref().and_then(fencing_sim::quiz::find).map_or(0, |(index, _)| index)));
    let (saved, save) = crate::browser::local_storage(PROGRESS_KEY);
    let progress = Memo::new(move |_| parse_progress(&saved.get()));
    let started_ms = crate::report::now_ms();
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
            let link = format!("{}?view=quiz", crate::embed::base_url());
            let elapsed_ms = crate::report::elapsed_ms(started_ms);
            crate::report::send(crate::report::completed(&link, right, QUESTIONS.len(), elapsed_ms, &crate::report::timestamp()));
        }
        None
    };
    let state = move |id: &str| progress.with(|list| list.iter().find(|(known, _)| known == id).map(|(_, right)| *right));
    let first_index = index.get_untracked();
    if embedded {
        // Open edX's JSInput (`jsinput=1`) grades this one question's first try.
        let bridge = crate::jsinput_bridge::Jsinput::start(1);
        return view! {
            <section id="quiz" class="quiz card embedded-quiz" aria-label="Predict, then see">
                {crate::report::page_target().err().map(|notice| view! { <p class="notice" role="status">{notice}</p> })}
                {bridge.map(|bridge| view! {
                    <p class="notice" role="status" hidden=move || bridge.notice.with(Option::is_none) data-testid="jsinput-notice">{move || bridge.notice.get()}</p>
                    <p class="hint" role="status" hidden=move || { bridge.restored.track(); bridge.kept(0).is_none() } data-testid="jsinput-kept">
                        "Your course keeps your first try: it is the one graded, whatever you try next."
                    </p>
                })}
                {move || view! { <QuestionCard index=index.get() record focus=false embedded=true bridge/> }}
            </section>
        }
        .into_any();
    }
    let score = move || progress.with(|list| list.iter().filter(|(_, right)| *right).count());
    let answered = move || progress.with(Vec::len);
    let reporting = crate::route::split_query(&crate::browser::query()).origin;
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
                view! { <QuestionCard index=index.get() record focus=moved embedded=false bridge=None/> }
            }}
            <Summary progress start_over=Callback::new(move |()| save.set(String::new()))/>
            // The instructors' tools, unless the quiz reports to a course
            // page (`origin=`, as in a SCORM package): learners are there.
            // The packages and problems are made in the instructors' build
            // (src/lms.rs), so learners of this build never download them.
            {reporting.is_none().then(|| view! {
                {crate::report::embed_button(Signal::derive(move || question_query(index.get())), "a quiz question", 640)}
                <p><a href=move || format!("?view=build&quiz={}", QUESTIONS[index.get()].id) data-testid="quiz-lms">
                    "For your LMS or Open edX: the whole quiz as a SCORM package, this question as a JSInput problem →"
                </a></p>
            })}
        </section>
    }
    .into_any()
}

/// One question: the form, then (once answered) the reveal.
#[component]
fn QuestionCard(
    index: usize,
    record: impl Fn(&'static str, bool) -> Option<bool> + Copy + Send + Sync + 'static,
    /// Move keyboard focus to the question's heading once it is shown.
    focus: bool,
    embedded: bool,
    /// Open edX's JSInput, when it frames this question: it keeps the first try.
    bridge: Option<crate::jsinput_bridge::Jsinput>,
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
    // A rate question's trade runs in slices while the learner reads; its
    // prediction can be checked once every run is in.
    let (trade_task, trade, trade_error) = (Task::new(), RwSignal::new(Vec::<TradeRow>::new()), RwSignal::new(None::<String>));
    let runs_needed = question.trade_runs().map_or(0, |(base, sides)| {
        let needed = sides.len();
        crate::trade_run::start(trade_task, trade, trade_error, base, sides, None);
        needed
    });
    let ready = move || trade.with(Vec::len) == runs_needed;
    on_cleanup(move || trade_task.cancel());
    let with_evidence =
        move |then: &dyn Fn(Evidence)| trace.with_value(|trace| trade.with_untracked(|trade| then(Evidence { trace, trade })));
    let answer = RwSignal::new(None::<Answer>);
    let marked = RwSignal::new(None::<Marked>);
    // How the first try went, when the one marked is a retry.
    let first_try = RwSignal::new(None::<bool>);
    // When the question (or a retry) appeared: an answer's duration.
    let shown_ms = StoredValue::new(crate::report::now_ms());
    let check = move |_| {
        if let (Some(given), true) = (answer.get_untracked(), ready()) {
            let link = format!("{}?{}", crate::embed::base_url(), question_query(index));
            let spent_ms = crate::report::elapsed_ms(shown_ms.get_value());
            with_evidence(&|evidence| {
                let result = question.mark(evidence, &given);
                first_try.set(record(question.id, result.correct));
                let report = crate::report::builtin(question, evidence, &given, result.correct, spent_ms, link.clone());
                if let Some(bridge) = bridge {
                    bridge.first(0, report.response.clone());
                }
                crate::report::send(crate::report::answered(&report, &crate::report::timestamp()));
                marked.set(Some(result));
            });
            // Keyboard and screen-reader users land on the verdict.
            crate::browser::focus_soon(move || result_box.try_get_untracked().flatten().map(Into::into));
        }
    };
    let retry = move |_| {
        marked.set(None);
        answer.set(None);
        shown_ms.set_value(crate::report::now_ms());
    };
    let next = (index + 1) % QUESTIONS.len();
    view! {
        <article class="question" aria-labelledby=format!("question-{}", question.id) data-testid="question" data-question=question.id>
            <h3 id=format!("question-{}", question.id) tabindex="-1" node_ref=heading>{format!("{}. {}", index + 1, question.topic)}</h3>
            // `elementtiming`: the bench reads when the question is first painted.
            <p class="prompt" inner_html=format!(r#"<span elementtiming="story">{}</span>"#, crate::escape(question.prompt))></p>
            <fieldset class="answer" disabled=move || marked.get().is_some()>
                <legend>"Your prediction"</legend>
                {trace.with_value(|trace| answer_form(question, trace, answer))}
            </fieldset>
            {(runs_needed > 0).then(|| view! {
                <p class="hint" data-testid="quiz-fleet-status">{move || trade_status(trade_task.running.get(), trade.with(Vec::len), runs_needed, trade_error.get())}</p>
                <Progress task=trade_task label="The fleet's runs done" cancel=Callback::new(move |()| trade_task.cancel()) testid="quiz-fleet-progress"/>
            })}
            <Show when=move || marked.get().is_none()>
                <button type="button" class="primary" data-testid="quiz-check" disabled=move || answer.get().is_none() || !ready() on:click=check>
                    "Check my prediction"
                </button>
            </Show>
            {move || marked.get().map(|result| view! {
                <div class=if result.correct { "result right" } else { "result wrong" } role="status" tabindex="-1" node_ref=result_box data-testid="quiz-result">
                    <p class="result-head">
                        <span aria-hidden="true">{if result.correct { "✓ " } else { "✗ " }}</span>
                        {if result.correct { "Right." } else { "Not quite." }}
                        " The run says: " <strong>{result.key}</strong>
                    </p>
                    {first_try.get().map(|first| view! {
                        <p class="first-try" data-testid="quiz-first-try">
                            <span aria-hidden="true">{if first { "✓ " } else { "✗ " }}</span>
                            {if first { "Your first try was right, and it is the one the score counts." } else { "Your first try was wrong, and it is the one the score counts." }}
                        </p>
                    })}
                </div>
            })}
            <Show when=move || marked.get().is_some()>
                {move || trace.with_value(|trace| trade.with(|trade| reveal(question, Evidence { trace, trade }, answer.get(), embedded)))}
                <p class="lesson-line">{question.lesson}</p>
                <div class="quiz-actions">
                    <button type="button" on:click=retry data-testid="quiz-retry">"Try again"</button>
                    {(!embedded).then(|| view! { <a class="button primary" href=question_href(next) data-testid="quiz-next">"Next question"</a> })}
                </div>
            </Show>
        </article>
    }
}

/// After answering: why each option is right or wrong, and the run in brief
/// (for a rate question, the fleet's figures).
fn reveal(question: &'static Question, evidence: Evidence, given: Option<Answer>, embedded: bool) -> impl IntoView {
    let holding = evidence.holding(&question.form);
    let whys = question.form.options().map(|options| {
        options
            .into_iter()
            .enumerate()
            .map(|(position, (text, why))| {
                let right = holding == Some(position);
                let picked = given == Some(Answer::Choice(position));
                view! {
                    <li class=if right { "why right" } else { "why wrong" }>
                        <span aria-hidden="true">{if right { "✓ " } else { "✗ " }}</span>
                        <strong>{text}</strong>{if picked { " (your answer)" } else { "" }}
                        <br/>{why}
                    </li>
                }
            })
            .collect_view()
    });
    let brief = match question.fleet_link() {
        Some(fleet_query) => fleet_brief(evidence.trade, &fleet_query, &question.run_link(), embedded).into_any(),
        None => run_brief(evidence.trace, &question.run_link(), embedded).into_any(),
    };
    view! {
        <ul class="whys">{whys}</ul>
        {brief}
    }
}

/// A rate question's trade in brief: the core's sentence about quadrupling
/// the lease, the runs as a table, and links to the fleet and to one run.
fn fleet_brief(trade: &[TradeRow], fleet_query: &str, run_query: &str, embedded: bool) -> impl IntoView {
    let sentence = fencing_sim::fleet::quadrupling(trade).unwrap_or_default();
    let target = embedded.then_some("_top");
    view! {
        <div class="run-brief" data-testid="quiz-reveal">
            <p class="run-brief-verdict"><strong>"The fleet: "</strong>{sentence}</p>
            <div inner_html=crate::fleet_chart::trade_table(trade)></div>
            <p>
                <a href=format!("?{fleet_query}") target=target data-testid="quiz-fleet-link">"Run this fleet yourself →"</a>
                " · "
                <a href=format!("?{run_query}") target=target data-testid="quiz-run-link">"Watch one such zombie write, step by step →"</a>
            </p>
        </div>
    }
}

/// Where a rate question's runs are, in words.
fn trade_status(running: bool, done: usize, needed: usize, error: Option<String>) -> String {
    match (error, running) {
        (Some(problem), _) => format!("The fleet could not run: {problem}"),
        (None, true) => format!("Running the fleet for your answer: {done} of {needed} runs done…"),
        (None, false) if done == needed => format!("The fleet has run ({needed} runs): check your prediction when you are ready."),
        (None, false) => "The fleet's runs were cancelled: open the question again to run them.".to_string(),
    }
}

/// The run in brief, once a prediction is in: its verdict, the store's
/// before and after, and a link to the whole run (`run_query`), outside the
/// frame when embedded. Every quiz's reveal, built-in or an instructor's.
pub fn run_brief(trace: &Trace, run_query: &str, embedded: bool) -> impl IntoView {
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
    let run = format!("?{run_query}");
    view! {
        <div class="run-brief" data-testid="quiz-reveal">
            <p class="run-brief-verdict"><strong>"The run: "</strong>{verdict.text}"."</p>
            <p>{store_line}</p>
            <p><a href=run target=embedded.then_some("_top") data-testid="quiz-run-link">"Watch the whole run, step by step →"</a></p>
        </div>
    }
}

/// The inputs for each form of question.
fn answer_form(question: &'static Question, trace: &Trace, answer: RwSignal<Option<Answer>>) -> AnyView {
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
        Form::Choice(_) | Form::Rate { .. } => question
            .form
            .options()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(position, (text, _))| radio(name.clone(), Answer::Choice(position), text.to_string()))
            .collect_view()
            .into_any(),
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
        crate::browser::focus_soon(move || {
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

/// Once every question is answered: what was missed, and the run for each.
#[component]
fn Summary(progress: Memo<Vec<(String, bool)>>, start_over: Callback<()>) -> impl IntoView {
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
                                    <a href=format!("?{}", question.run_link())>"see the run that explains it"</a>
                                    " or "
                                    <a href=question_href(position)>"try it again"</a>
                                    " (the score keeps your first try)"
                                })}
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <button type="button" on:click=move |_| start_over.run(()) data-testid="quiz-start-over">"Start the quiz over (forget every answer)"</button>
            </section>
        </Show>
    }
}
