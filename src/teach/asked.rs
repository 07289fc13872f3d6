//! An instructor's own question, or a set of them, opened from its link:
//! predict first, then the run reveals the answer, as in the built-in quiz.
//! The question, its options and its key are the core's (`fencing_sim::ask`);
//! the prompt is plain text and is only ever put on the page as text. A link
//! that reads with any notice (altered, cut, too long, asking about a worker
//! the run lacks) is not shown: its notices are, with the built-in quiz.

use crate::quiz::report::{self, Answer, Interaction};
use crate::quiz::{run_brief, verdict_head, wrong_first_try, QuizView, Stage};
use crate::shell::route::split_query;
use crate::shell::{browser, embed};
use fencing_sim::ask::{Ask, Custom};
use fencing_sim::permalink::{to_link, Permalink};
use fencing_sim::Trace;
use leptos::prelude::*;

/// What a question link holds, as the core read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asked {
    pub questions: Vec<Custom>,
    /// The set's value (`set=`), when the link is a set.
    pub set: Option<String>,
    pub notices: Vec<String>,
}

impl Asked {
    /// A link made by the builder reads without a notice; any notice means
    /// it was altered or damaged on the way, so it is not put to learners.
    pub fn usable(&self) -> bool {
        self.notices.is_empty() && !self.questions.is_empty()
    }
}

/// Reads the scenario part of a question's or a set's link (the page's own
/// keys, such as `embed` and `origin`, already split off).
pub fn read(rest: &str) -> Asked {
    // The core's reading, which `fencing-lab link` checks links with too.
    let (questions, set, notices) = fencing_sim::relink::questions(rest);
    Asked { questions, set: set.map(str::to_string), notices }
}

/// What a kind of question asks, in a few words (the builder's menu, and a
/// reported answer's name).
pub fn ask_label(ask: Ask) -> String {
    match ask {
        Ask::Owner => "Whose data the store holds at the end".to_string(),
        Ask::WriteFate { worker, nth } => format!("What happens to {worker}'s write number {nth}"),
        Ask::StaleCount => "How many writes overwrite newer data".to_string(),
        Ask::Token { worker } => format!("Which fencing token {worker} draws"),
        Ask::AnyRefused => "Whether the store refuses any write".to_string(),
        Ask::SmallestLease => "The smallest lease that survives these faults (answered by a sweep)".to_string(),
    }
}

/// The short id of a question: "ask-" and its link's checksum.
pub fn question_id(query: &str) -> String {
    format!("ask-{}", query.rsplit_once("&sum=").map_or("unsigned", |(_, sum)| sum))
}

/// One question, ready to ask: its run, options and key, and its links.
#[derive(Clone, Debug)]
struct Prepared {
    custom: Custom,
    trace: Trace,
    options: Vec<String>,
    key: usize,
    id: String,
    link: String,
    run_query: String,
}

fn prepare(custom: Custom, base: &str) -> Prepared {
    let trace = crate::race::pane::Pane::run(&custom.scenario).trace;
    let (options, key) = custom.options(&trace);
    let query = custom.to_query();
    let run_query = to_link(&Permalink { scenario: custom.scenario.clone(), cursor: None, compare: None });
    Prepared { id: question_id(&query), link: format!("{base}?{query}"), custom, trace, options, key, run_query }
}

/// The question (or set) the page's link holds; the built-in quiz, with the
/// notices, when it cannot be used as it is.
#[component]
pub fn AskedView(
    /// Alone in an iframe.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let asked = read(&split_query(&browser::query()).rest);
    if !asked.usable() {
        return view! {
            <div class="notice" role="status" data-testid="ask-notice">
                <p>"This question's link cannot be used as it is, so the built-in quiz stands in:"</p>
                <ul>{asked.notices.into_iter().map(|notice| view! { <li>{notice}</li> }).collect_view()}</ul>
            </div>
            <QuizView embedded/>
        }
        .into_any();
    }
    let base = embed::base_url();
    let set_link = asked.set.as_ref().map(|value| format!("{base}?set={value}"));
    let questions = StoredValue::new(asked.questions.into_iter().map(|custom| prepare(custom, &base)).collect::<Vec<_>>());
    let total = questions.with_value(Vec::len);
    let current = RwSignal::new(0usize);
    let firsts = RwSignal::new(vec![None::<bool>; total]);
    let started_ms = report::now_ms();
    let completed = StoredValue::new(false);
    let set_for_record = StoredValue::new(set_link.clone());
    // Open edX's JSInput (`jsinput=1`): the platform grades and keeps the
    // first tries; what it gives back marks those questions answered.
    let bridge = crate::quiz::jsinput_bridge::Jsinput::start(total);
    // Inside a course package (`origin=`) or Open edX's frame: no link out.
    let packaged = split_query(&browser::query()).origin.is_some() || bridge.is_some();
    if let Some(bridge) = bridge {
        Effect::new(move |_| {
            bridge.restored.track();
            let kept: Vec<Option<bool>> = questions.with_value(|all| {
                all.iter()
                    .enumerate()
                    .map(|(position, question)| restored_choice(bridge, position, question).map(|chosen| chosen == question.key))
                    .collect()
            });
            firsts.set(kept);
        });
    }
    let record = move |position: usize, right: bool, response: usize| {
        if let Some(bridge) = bridge {
            bridge.first(position, response.to_string());
        }
        firsts.update(|firsts| {
            if firsts[position].is_none() {
                firsts[position] = Some(right);
            }
        });
        let (done, score) = firsts
            .with_untracked(|firsts| (firsts.iter().all(Option::is_some), firsts.iter().filter(|first| **first == Some(true)).count()));
        if let (true, false, Some(set_link)) = (done, completed.get_value(), set_for_record.get_value()) {
            completed.set_value(true);
            report::send(report::completed(&set_link, score, total, report::elapsed_ms(started_ms), &report::timestamp()));
        }
    };
    let score = move || firsts.with(|firsts| firsts.iter().filter(|first| **first == Some(true)).count());
    let answered = move || firsts.with(|firsts| firsts.iter().filter(|first| first.is_some()).count());
    let progress =
        move || format!("Question {} of {total} · {} right at the first try, of {} answered", current.get() + 1, score(), answered());
    let heading = if total > 1 { format!("A set of {total} questions from your instructor") } else { "Predict, then see".to_string() };
    view! {
        <section id="quiz" class="quiz card asked" class:embedded-quiz=embedded aria-labelledby="quiz-title">
            <h2 id="quiz-title" class:sr-only=embedded>{heading}</h2>
            {report::page_target().err().map(|notice| view! { <p class="notice" role="status">{notice}</p> })}
            {bridge.map(|bridge| view! { <p class="notice" role="status" hidden=move || bridge.notice.with(Option::is_none) data-testid="jsinput-notice">{move || bridge.notice.get()}</p> })}
            {(total > 1).then(|| view! { <p class="quiz-progress" data-testid="ask-progress">{progress}</p> })}
            {move || {
                // A state given back by the platform redraws the question.
                let restored = bridge.and_then(|bridge| {
                    bridge.restored.track();
                    questions.with_value(|all| restored_choice(bridge, current.get_untracked(), &all[current.get_untracked()]))
                });
                let position = current.get();
                let next = (position + 1 < total).then_some(move || current.set(position + 1));
                let set_link = set_for_record.get_value();
                questions.with_value(|all| card(&all[position], position, total, set_link, record, next, embedded, restored, packaged))
            }}
            <Show when=move || { total > 1 && answered() == total }>
                <p class="quiz-summary" data-testid="ask-summary">
                    {move || format!("Set finished: {} of {total} right at the first try.", score())}
                </p>
            </Show>
        </section>
    }
    .into_any()
}

/// The option a platform's saved state gives as a question's first try, if
/// it names one of the question's options.
fn restored_choice(bridge: crate::quiz::jsinput_bridge::Jsinput, position: usize, question: &Prepared) -> Option<usize> {
    bridge.kept(position).and_then(|response| response.parse::<usize>().ok()).filter(|chosen| *chosen < question.options.len())
}

/// One question: the options, then (once checked) the verdict, every option
/// marked, and the run in brief.
#[allow(clippy::too_many_arguments)]
fn card(
    question: &Prepared,
    position: usize,
    total: usize,
    set_link: Option<String>,
    record: impl Fn(usize, bool, usize) + Copy + Send + Sync + 'static,
    next: Option<impl Fn() + Copy + Send + Sync + 'static>,
    embedded: bool,
    // A first try the course platform kept: shown answered.
    restored: Option<usize>,
    // Inside a course package or a platform's frame: no link out.
    packaged: bool,
) -> AnyView {
    let chosen = RwSignal::new(restored);
    // A first try the platform kept is shown revealed, as after a second try.
    let stage = RwSignal::new(if restored.is_some() { Stage::Revealed } else { Stage::Open });
    let tries = RwSignal::new(u8::from(restored.is_some()));
    let right_last = RwSignal::new(restored.is_some_and(|given| given == question.key));
    let shown_ms = StoredValue::new(report::now_ms());
    let heading = NodeRef::<leptos::html::H3>::new();
    let result_box = NodeRef::<leptos::html::Div>::new();
    if position > 0 {
        // The learner moved on: the new question takes focus.
        crate::shell::browser::focus_soon(move || heading.get_untracked().map(Into::into));
    }
    let (options, key) = (question.options.clone(), question.key);
    let report_base = Answer {
        question_id: question.id.clone(),
        link: question.link.clone(),
        name: ask_label(question.custom.ask),
        prompt: question.custom.prompt(),
        interaction: Interaction { kind: "choice", choices: options.clone(), correct: Some(key.to_string()) },
        success: false,
        response: String::new(),
        duration_ms: 0,
        set_link,
    };
    let report_base = StoredValue::new(report_base);
    let check = move |_| {
        let Some(given) = chosen.get_untracked() else { return };
        let right = given == key;
        let answer = Answer {
            success: right,
            response: given.to_string(),
            duration_ms: report::elapsed_ms(shown_ms.get_value()),
            ..report_base.get_value()
        };
        report::send(report::answered(&answer, &report::timestamp()));
        // After the answer: the set's last first answer completes it.
        record(position, right, given);
        tries.update(|tries| *tries = tries.saturating_add(1));
        right_last.set(right);
        stage.set(if right || tries.get_untracked() >= 2 { Stage::Revealed } else { Stage::Retry });
        crate::shell::browser::focus_soon(move || result_box.try_get_untracked().flatten().map(Into::into));
    };
    let retry = move || {
        chosen.set(None);
        stage.set(Stage::Open);
        shown_ms.set_value(report::now_ms());
    };
    let show = move || {
        stage.set(Stage::Revealed);
        crate::shell::browser::focus_soon(move || result_box.try_get_untracked().flatten().map(Into::into));
    };
    let title = if total > 1 { format!("Question {} of {total}", position + 1) } else { "Your instructor asks".to_string() };
    let name = format!("answer-{position}");
    let radios = options
        .iter()
        .enumerate()
        .map(|(index, text)| {
            view! {
                <label class="option">
                    <input type="radio" name=name.clone() prop:checked=move || chosen.get() == Some(index) on:change=move |_| chosen.set(Some(index))/>
                    <span>{text.clone()}</span>
                </label>
            }
        })
        .collect_view();
    let key_words = options[key].clone();
    let explanation = question.custom.explain(&question.trace);
    let whys = options
        .iter()
        .enumerate()
        .map(|(index, text)| {
            let right = index == key;
            view! {
                <li class=if right { "why right" } else { "why wrong" }>
                    <span aria-hidden="true">{if right { "✓ " } else { "✗ " }}</span>
                    <strong>{text.clone()}</strong>
                    {move || if chosen.get() == Some(index) { " (your last answer)" } else { "" }}
                    {right.then(|| view! { <br/>{explanation.clone()} })}
                </li>
            }
        })
        .collect_view();
    let run_query = (!packaged).then(|| question.run_query.clone());
    let brief = run_brief(&question.trace, run_query.as_deref(), embedded);
    view! {
        <article class="question" aria-labelledby=format!("asked-{position}") data-testid="question" data-question=question.id.clone()>
            <h3 id=format!("asked-{position}") tabindex="-1" node_ref=heading>{title}</h3>
            // The instructor's words, as text: never read as markup.
            <p class="prompt asked-prompt" data-testid="ask-prompt">{question.custom.prompt()}</p>
            <fieldset class="answer" disabled=move || stage.get() != Stage::Open>
                <legend>"Your prediction"</legend>
                {radios}
            </fieldset>
            <Show when=move || stage.get() == Stage::Open>
                <button type="button" class="primary" data-testid="quiz-check" disabled=move || chosen.get().is_none() on:click=check>
                    {move || if tries.get() == 0 { "Check my prediction" } else { "Check my second try" }}
                </button>
            </Show>
            {move || match stage.get() {
                Stage::Open => ().into_any(),
                Stage::Retry => view! {
                    <div class="result wrong" role="status" tabindex="-1" node_ref=result_box data-testid="quiz-result">
                        {wrong_first_try(None, retry, show)}
                    </div>
                }.into_any(),
                Stage::Revealed => {
                    let right = right_last.get();
                    view! {
                        <div class=if right { "result right" } else { "result wrong" } role="status" tabindex="-1" node_ref=result_box data-testid="quiz-result">
                            <p class="result-head">
                                <span aria-hidden="true">{if right { "✓ " } else { "✗ " }}</span>
                                {verdict_head(right, tries.get())}
                                " The run says: " <strong data-testid="ask-key">{key_words.clone()}</strong>
                            </p>
                        </div>
                    }.into_any()
                }
            }}
            <div hidden=move || stage.get() != Stage::Revealed>
                <ul class="whys">{whys}</ul>
                {brief}
                {next.map(|next| view! {
                    <div class="quiz-actions">
                        <button type="button" class="primary" on:click=move |_| next() data-testid="quiz-next">"Next question"</button>
                    </div>
                })}
            </div>
        </article>
    }
    .into_any()
}
