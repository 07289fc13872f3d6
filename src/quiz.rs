//! Predict, then see: one question at a time, answered before anything is
//! revealed; then the run that answers it plays, every option is explained,
//! and the score is kept in this browser. Keys come from the model's runs.

use crate::embed::EmbedButton;
use crate::race::RaceView;
use crate::{browser, storage};
use fencing_sim::permalink::Permalink;
use fencing_sim::quiz::{writes, Answer, Form, Marked, Question, QUESTIONS};
use leptos::prelude::*;

const PROGRESS_KEY: &str = "fencing-lab.quiz";

/// Right/wrong per question id, as last answered in this browser.
fn load_progress() -> Vec<(String, bool)> {
    let saved = storage::get(PROGRESS_KEY).unwrap_or_default();
    saved
        .split(';')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(id, _)| fencing_sim::quiz::find(id).is_some())
        .map(|(id, right)| (id.to_string(), right == "1"))
        .collect()
}

fn save_progress(progress: &[(String, bool)]) {
    let text: Vec<String> = progress.iter().map(|(id, right)| format!("{id}={}", u8::from(*right))).collect();
    storage::set(PROGRESS_KEY, &text.join(";"));
}

#[component]
pub fn QuizView(
    /// Index of the question to open.
    start: usize,
    /// Whether this view owns the URL.
    #[prop(optional)]
    sync_url: bool,
    /// Shown alone in an iframe: no embed button.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let current = RwSignal::new(start.min(QUESTIONS.len() - 1));
    let first_render = StoredValue::new(true);
    let progress = RwSignal::new(load_progress());
    let record = move |id: &str, right: bool| {
        progress.update(|progress| {
            progress.retain(|(known, _)| known != id);
            progress.push((id.to_string(), right));
        });
        progress.with_untracked(|progress| save_progress(progress));
    };
    Effect::new(move |_| {
        if sync_url {
            browser::set_query(&format!("quiz={}", QUESTIONS[current.get()].id));
        }
    });
    let score = move || progress.with(|progress| progress.iter().filter(|(_, right)| *right).count());
    let answered = move || progress.with(Vec::len);
    view! {
        <section id="quiz" class="quiz card" aria-labelledby="quiz-title">
            <h2 id="quiz-title">"Predict, then see"</h2>
            <p class="quiz-progress" data-testid="quiz-score">
                {move || format!("Question {} of {} · {} right of {} answered", current.get() + 1, QUESTIONS.len(), score(), answered())}
            </p>
            <nav aria-label="Questions">
                <ol class="quiz-dots">
                    {QUESTIONS.iter().enumerate().map(|(index, question)| {
                        let state = move || progress.with(|progress| progress.iter().find(|(id, _)| id == question.id).map(|(_, right)| *right));
                        view! {
                            <li>
                                <button type="button" class="dot" aria-current=move || (current.get() == index).then_some("step")
                                    on:click=move |_| current.set(index)
                                    aria-label=move || format!("Question {}: {}{}", index + 1, question.topic, match state() { Some(true) => ", answered right", Some(false) => ", answered wrong", None => "" })>
                                    {move || match state() { Some(true) => "✓".to_string(), Some(false) => "✗".to_string(), None => (index + 1).to_string() }}
                                </button>
                            </li>
                        }
                    }).collect_view()}
                </ol>
            </nav>
            {move || {
                let index = current.get();
                // Focus follows the learner to a new question, not on page load.
                let focus = !first_render.get_value();
                first_render.set_value(false);
                view! { <QuestionCard index record=record next=move || current.set((index + 1) % QUESTIONS.len()) focus/> }
            }}
            <Summary progress current/>
            {(!embedded).then(|| view! {
                <EmbedButton widget="quiz" title="a quiz question" query=Signal::derive(move || format!("quiz={}", QUESTIONS[current.get()].id)) height_px=700/>
            })}
        </section>
    }
}

/// One question: the form, then (once answered) the reveal.
#[component]
fn QuestionCard(
    index: usize,
    record: impl Fn(&str, bool) + Copy + Send + Sync + 'static,
    next: impl Fn() + Copy + Send + Sync + 'static,
    /// Move keyboard focus to the question's heading once it is shown.
    focus: bool,
) -> impl IntoView {
    let question: &'static Question = &QUESTIONS[index];
    let heading = NodeRef::<leptos::html::H3>::new();
    let result_box = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        if let (true, Some(heading)) = (focus, heading.get()) {
            let _ = heading.focus();
        }
    });
    let trace = question.run();
    let answer = RwSignal::new(None::<Answer>);
    let marked = RwSignal::new(None::<Marked>);
    let check = {
        let trace = trace.clone();
        move |_| {
            if let Some(given) = answer.get_untracked() {
                let result = question.mark(&trace, &given);
                record(question.id, result.correct);
                marked.set(Some(result));
                // Keyboard and screen-reader users land on the verdict.
                request_animation_frame(move || {
                    if let Some(result_box) = result_box.try_get_untracked().flatten() {
                        let _ = result_box.focus();
                    }
                });
            }
        }
    };
    let retry = move |_| {
        marked.set(None);
        answer.set(None);
    };
    let choices_reveal = {
        let trace = trace.clone();
        move || match &question.form {
            Form::Choice(choices) => Some(
                choices
                    .iter()
                    .enumerate()
                    .map(|(position, choice)| {
                        let right = (choice.holds)(&trace);
                        let picked = answer.get() == Some(Answer::Choice(position));
                        view! {
                            <li class=if right { "why right" } else { "why wrong" }>
                                <span aria-hidden="true">{if right { "✓ " } else { "✗ " }}</span>
                                <strong>{choice.text}</strong>{if picked { " (your answer)" } else { "" }}
                                <br/>{choice.why}
                            </li>
                        }
                    })
                    .collect_view(),
            ),
            _ => None,
        }
    };
    let run_link = Permalink { scenario: (question.scenario)(), cursor: None, compare: None };
    view! {
        <article class="question" aria-labelledby=format!("question-{}", question.id) data-testid="question" data-question=question.id>
            <h3 id=format!("question-{}", question.id) tabindex="-1" node_ref=heading>{format!("{}. {}", index + 1, question.topic)}</h3>
            <p class="prompt">{question.prompt}</p>
            <fieldset class="answer" disabled=move || marked.get().is_some()>
                <legend>"Your prediction"</legend>
                <AnswerForm question trace=trace.clone() answer/>
            </fieldset>
            <Show when=move || marked.get().is_none()>
                <button type="button" class="primary" data-testid="quiz-check" disabled=move || answer.get().is_none() on:click=check.clone()>
                    "Check my prediction"
                </button>
            </Show>
            {move || marked.get().map(|result| view! {
                <div class=if result.correct { "result right" } else { "result wrong" } role="status" tabindex="-1" node_ref=result_box data-testid="quiz-result">
                    <p class="result-head">
                        <span aria-hidden="true">{if result.correct { "✓ " } else { "✗ " }}</span>
                        {if result.correct { "Right." } else { "Not quite." }}
                        " The run says: " <strong>{result.key.clone()}</strong>
                    </p>
                </div>
            })}
            <Show when=move || marked.get().is_some()>
                <ul class="whys">{choices_reveal.clone()}</ul>
                <p class="lesson-line">{question.lesson}</p>
                <div class="quiz-actions">
                    <button type="button" on:click=retry data-testid="quiz-retry">"Try again"</button>
                    <button type="button" class="primary" on:click=move |_| next() data-testid="quiz-next">"Next question"</button>
                </div>
                <h4>"Watch it happen"</h4>
                <RaceView initial=run_link.clone() autoplay=true/>
            </Show>
        </article>
    }
}

/// The inputs for each form of question.
#[component]
fn AnswerForm(question: &'static Question, trace: fencing_sim::Trace, answer: RwSignal<Option<Answer>>) -> impl IntoView {
    let name = format!("answer-{}", question.id);
    match &question.form {
        Form::Choice(choices) => choices
            .iter()
            .enumerate()
            .map(|(position, choice)| {
                let name = name.clone();
                view! {
                    <label class="option">
                        <input type="radio" name=name prop:checked=move || answer.get() == Some(Answer::Choice(position))
                            on:change=move |_| answer.set(Some(Answer::Choice(position)))/>
                        <span>{choice.text}</span>
                    </label>
                }
            })
            .collect_view()
            .into_any(),
        Form::Number { unit, .. } => view! {
            <label class="option number">
                <span>{unit.how_many()}</span>
                <input type="number" min="0" inputmode="numeric" data-testid="quiz-number"
                    on:input=move |ev| answer.set(event_target_value(&ev).trim().parse::<u64>().ok().map(Answer::Number))/>
            </label>
        }
        .into_any(),
        Form::PickWrite { .. } => writes(&trace)
            .into_iter()
            .map(|(event, label)| {
                let name = name.clone();
                let index = event.index;
                view! {
                    <label class="option">
                        <input type="radio" name=name prop:checked=move || answer.get() == Some(Answer::Write(index))
                            on:change=move |_| answer.set(Some(Answer::Write(index)))/>
                        <span>{label}</span>
                    </label>
                }
            })
            .collect_view()
            .into_any(),
        Form::Order(steps) => view! { <OrderForm steps answer/> }.into_any(),
    }
}

/// Put steps in order with buttons (no dragging needed: keyboard first).
#[component]
fn OrderForm(steps: &'static [fencing_sim::quiz::Step], answer: RwSignal<Option<Answer>>) -> impl IntoView {
    let order = RwSignal::new((0..steps.len()).collect::<Vec<usize>>());
    Effect::new(move |_| answer.set(Some(Answer::Order(order.get()))));
    let shift = move |position: usize, up: bool| {
        order.update(|order| {
            let other = if up { position.checked_sub(1) } else { Some(position + 1).filter(|next| *next < order.len()) };
            if let Some(other) = other {
                order.swap(position, other);
            }
        });
    };
    view! {
        <p class="hint">"Move each step up or down until the list reads from first to last."</p>
        <ol class="order" data-testid="quiz-order">
            {move || order.get().into_iter().enumerate().map(|(position, step)| view! {
                <li>
                    <span class="order-text">{steps[step].text}</span>
                    <button type="button" aria-label=format!("Move \"{}\" up", steps[step].text) disabled=position == 0 on:click=move |_| shift(position, true)>"↑"</button>
                    <button type="button" aria-label=format!("Move \"{}\" down", steps[step].text) disabled=position + 1 == steps.len() on:click=move |_| shift(position, false)>"↓"</button>
                </li>
            }).collect_view()}
        </ol>
    }
}

/// Once every question is answered: what was missed, and the run for each.
#[component]
fn Summary(progress: RwSignal<Vec<(String, bool)>>, current: RwSignal<usize>) -> impl IntoView {
    let complete = move || progress.with(|progress| progress.len() == QUESTIONS.len());
    view! {
        <Show when=complete>
            <section class="quiz-summary" aria-labelledby="quiz-summary-title" data-testid="quiz-summary">
                <h3 id="quiz-summary-title">
                    {move || format!("You got {} of {} right", progress.with(|p| p.iter().filter(|(_, right)| *right).count()), QUESTIONS.len())}
                </h3>
                <ul>
                    {move || QUESTIONS.iter().enumerate().map(|(index, question)| {
                        let right = progress.with(|p| p.iter().any(|(id, right)| id == question.id && *right));
                        let run = format!("?{}", question.run_link());
                        view! {
                            <li class=if right { "right" } else { "wrong" }>
                                <span aria-hidden="true">{if right { "✓ " } else { "✗ " }}</span>
                                {question.topic}
                                {(!right).then(|| view! {
                                    " — "
                                    <a href=run.clone()>"see the run that explains it"</a>
                                    " or "
                                    <button type="button" class="link" on:click=move |_| current.set(index)>"try it again"</button>
                                })}
                            </li>
                        }
                    }).collect_view()}
                </ul>
            </section>
        </Show>
    }
}
