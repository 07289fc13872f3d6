//! Answers reported to the page around an embedded quiz, as xAPI-shaped
//! statements (docs/answers.md documents the shape). The page itself sends
//! nothing anywhere: it hands each statement to the window that embeds it,
//! with `postMessage`, and only to the origin the embedding link names
//! (`origin=https://courses.example.edu`), or to any page when the link says
//! `origin=*`. Without `origin=` nothing is reported. The host adds the
//! actor (it knows the learner; the widget does not) and forwards the
//! statement to its learning record store if it keeps one.

use crate::shell::browser;
use crate::shell::embed::EmbedButton;
use crate::shell::route::{join, split_query};
use fencing_sim::quiz::{writes, Answer as QuizAnswer, Evidence, Form, Question};
use leptos::prelude::*;
use serde_json::{json, Value};

/// The message's `type` and `version`: a host checks both before reading it.
pub const MESSAGE_TYPE: &str = "fencing-lab:statement";
pub const MESSAGE_VERSION: &str = "1.0";
/// The xAPI verbs and activity types the statements use.
pub const ANSWERED: &str = "http://adlnet.gov/expapi/verbs/answered";
pub const COMPLETED: &str = "http://adlnet.gov/expapi/verbs/completed";
pub const INTERACTION: &str = "http://adlnet.gov/expapi/activities/cmi.interaction";
pub const ASSESSMENT: &str = "http://adlnet.gov/expapi/activities/assessment";
/// The extension that carries the question's short id beside its link.
pub const QUESTION_ID: &str = "urn:fencing-lab:question-id";

/// Where answers may go, as the embedding link says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Only a page of this origin ("https://courses.example.edu").
    Origin(String),
    /// Any page (`origin=*`): only when the host asks for it.
    Anyone,
}

impl Target {
    fn as_str(&self) -> &str {
        match self {
            Target::Origin(origin) => origin,
            Target::Anyone => "*",
        }
    }
}

/// The origin of a web address ("https://host[:port]", lower case), or why
/// there is none. A page's full address is fine: its path is dropped.
pub fn origin_of(address: &str) -> Result<String, String> {
    let address = address.trim();
    let lower = address.to_ascii_lowercase();
    let scheme = ["https://", "http://"].into_iter().find(|scheme| lower.starts_with(scheme));
    let Some(scheme) = scheme else { return Err("it must start with https:// (or http://)".to_string()) };
    let host = lower[scheme.len()..].split(['/', '?', '#']).next().unwrap_or_default();
    let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
    if host.is_empty() || !host.chars().all(fits) || host.starts_with(':') || host.ends_with(':') {
        return Err("it has no host name, or one with characters a host cannot have".to_string());
    }
    Ok(format!("{scheme}{host}"))
}

/// Reads `origin=` from a link: the target, or a notice saying why answers
/// will not be reported. An origin must be written as one (no path), so a
/// link never reports to more than its author meant.
pub fn target(value: Option<&str>) -> Result<Option<Target>, String> {
    match value {
        None => Ok(None),
        Some("*") => Ok(Some(Target::Anyone)),
        Some(value) => match origin_of(value) {
            Ok(origin) if origin == value => Ok(Some(Target::Origin(origin))),
            _ => Err(format!(
                "ignored origin={}: answers go only to an origin written like https://courses.example.edu (or * for any page), so none are reported",
                value.chars().take(60).filter(|c| !c.is_control()).collect::<String>()
            )),
        },
    }
}

/// An ISO 8601 duration in seconds, to the hundredth: "PT12.34S".
pub fn duration(ms: u64) -> String {
    format!("PT{}.{:02}S", ms / 1000, (ms % 1000) / 10)
}

/// How a question is answered, in xAPI's interaction terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interaction {
    /// "choice", "numeric" or "sequencing".
    pub kind: &'static str,
    /// The options, in order; each one's id is its position ("0", "1", …).
    pub choices: Vec<String>,
    /// The right response, when it is one id or number.
    pub correct: Option<String>,
}

/// One answer to one question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The question's short id ("gc-pause", or "ask-" and its link's checksum).
    pub question_id: String,
    /// The question's own link: the statement's activity id.
    pub link: String,
    pub name: String,
    pub prompt: String,
    pub interaction: Interaction,
    pub success: bool,
    /// The response as xAPI writes it: a choice's id, a number, ids joined by "[,]".
    pub response: String,
    pub duration_ms: u64,
    /// The set the question belongs to, by its link.
    pub set_link: Option<String>,
}

/// The `answered` statement for an answer, stamped `timestamp` (ISO 8601).
pub fn answered(answer: &Answer, timestamp: &str) -> Value {
    let mut definition = json!({
        "type": INTERACTION,
        "name": { "en-US": answer.name },
        "description": { "en-US": answer.prompt },
        "interactionType": answer.interaction.kind,
        "extensions": { QUESTION_ID: answer.question_id },
    });
    if !answer.interaction.choices.is_empty() {
        let choices: Vec<Value> = answer
            .interaction
            .choices
            .iter()
            .enumerate()
            .map(|(id, text)| json!({ "id": id.to_string(), "description": { "en-US": text } }))
            .collect();
        definition["choices"] = Value::Array(choices);
    }
    if let Some(correct) = &answer.interaction.correct {
        definition["correctResponsesPattern"] = json!([correct]);
    }
    let mut statement = json!({
        "verb": { "id": ANSWERED, "display": { "en-US": "answered" } },
        "object": { "objectType": "Activity", "id": answer.link, "definition": definition },
        "result": { "success": answer.success, "response": answer.response, "duration": duration(answer.duration_ms) },
        "timestamp": timestamp,
    });
    if let Some(set_link) = &answer.set_link {
        statement["context"] = json!({ "contextActivities": { "parent": [{ "objectType": "Activity", "id": set_link }] } });
    }
    statement
}

/// The `completed` statement for a set: right at the first try, of how many.
pub fn completed(set_link: &str, right: usize, questions: usize, duration_ms: u64, timestamp: &str) -> Value {
    let scaled = if questions == 0 { 0.0 } else { right as f64 / questions as f64 };
    json!({
        "verb": { "id": COMPLETED, "display": { "en-US": "completed" } },
        "object": {
            "objectType": "Activity",
            "id": set_link,
            "definition": { "type": ASSESSMENT, "name": { "en-US": format!("Fencing Lab: a set of {questions} questions") } },
        },
        "result": {
            "score": { "raw": right, "min": 0, "max": questions, "scaled": scaled },
            "completion": true,
            "duration": duration(duration_ms),
        },
        "timestamp": timestamp,
    })
}

/// The message around a statement, as the host receives it.
pub fn message(statement: Value) -> Value {
    json!({ "type": MESSAGE_TYPE, "version": MESSAGE_VERSION, "statement": statement })
}

/// This page's reporting target, from its own link (None: do not report).
pub fn page_target() -> Result<Option<Target>, String> {
    target(split_query(&browser::query()).origin.as_deref())
}

/// Hands a statement to the embedding page, if this page is embedded and
/// its link names where answers go. Never anything else: no request leaves.
pub fn send(statement: Value) {
    let Ok(Some(target)) = page_target() else { return };
    let Some(window) = web_sys::window() else { return };
    let Ok(Some(parent)) = window.parent() else { return };
    if js_sys::Object::is(&parent, &window) {
        return; // not in a frame: nobody to tell
    }
    let Ok(data) = js_sys::JSON::parse(&message(statement).to_string()) else { return };
    // A wrong origin is the browser's to refuse: the message is then dropped.
    let _ = parent.post_message(&data, target.as_str());
}

pub use crate::shell::browser::now_ms;

/// The wall-clock moment, ISO 8601, for a statement's timestamp.
pub fn timestamp() -> String {
    js_sys::Date::new_0().to_iso_string().into()
}

/// Milliseconds since `since_ms` (from `now_ms`), never negative.
pub fn elapsed_ms(since_ms: f64) -> u64 {
    (now_ms() - since_ms).max(0.0) as u64
}

/// A built-in question's answer, in the statement's terms.
pub fn builtin(
    question: &Question,
    evidence: Evidence,
    attempt: u32,
    given: &QuizAnswer,
    success: bool,
    duration_ms: u64,
    link: String,
) -> Answer {
    let ids = |list: &[usize]| list.iter().map(usize::to_string).collect::<Vec<_>>().join("[,]");
    let trace = evidence.trace;
    // The key is the model's, in the response's own terms: for a choice,
    // positions as the learner saw them at this attempt, so the LMS's
    // correct-response pattern matches the options it lists.
    let correct = question.key_response(evidence, attempt);
    let (interaction, response) = match &question.form {
        Form::Choice(_) | Form::Rate { .. } => {
            let shown = question.shown(attempt);
            let options = question.form.options().unwrap_or_default();
            let texts = shown.iter().map(|index| options[*index].0.to_string()).collect();
            let response = match given {
                QuizAnswer::Choice(index) => shown.iter().position(|shown| shown == index).map_or_else(String::new, |at| at.to_string()),
                _ => String::new(),
            };
            (Interaction { kind: "choice", choices: texts, correct }, response)
        }
        Form::Number { .. } => (Interaction { kind: "numeric", choices: Vec::new(), correct }, response_of(given, &ids)),
        Form::Order(steps) => {
            let texts = steps.iter().map(|step| step.text.to_string()).collect();
            (Interaction { kind: "sequencing", choices: texts, correct }, response_of(given, &ids))
        }
        Form::PickWrite { .. } => {
            let listed = writes(trace);
            let response = match given {
                QuizAnswer::Write(index) => {
                    listed.iter().position(|(event, _)| event.index == *index).map_or_else(String::new, |at| at.to_string())
                }
                _ => String::new(),
            };
            let texts = listed.iter().map(|(_, label)| label.clone()).collect();
            (Interaction { kind: "choice", choices: texts, correct }, response)
        }
    };
    Answer {
        question_id: question.id.to_string(),
        link,
        name: question.topic.to_string(),
        prompt: question.prompt.to_string(),
        interaction,
        success,
        response,
        duration_ms,
        set_link: None,
    }
}

fn response_of(given: &QuizAnswer, ids: &dyn Fn(&[usize]) -> String) -> String {
    match given {
        QuizAnswer::Choice(index) => index.to_string(),
        QuizAnswer::Number(value) => value.to_string(),
        QuizAnswer::Order(order) => ids(order),
        QuizAnswer::Write(index) => index.to_string(),
    }
}

/// A quiz's Embed button, with the choice of where answers go beside it:
/// its snippet carries `origin=` once the instructor says.
pub fn embed_button(query: Signal<String>, title: &'static str, height_px: u32) -> impl IntoView {
    let origin = RwSignal::new(None::<String>);
    view! {
        <EmbedButton widget="quiz" title query=with_origin(query, origin) height_px/>
        <details class="report-details">
            <summary>"Report answers to your course page"</summary>
            <ReportTo origin/>
        </details>
    }
}

/// A quiz's query with `origin=` added, once one is chosen.
pub fn with_origin(query: Signal<String>, origin: RwSignal<Option<String>>) -> Signal<String> {
    Signal::derive(move || match origin.get() {
        Some(origin) => join(&query.get(), &form_urlencoded::Serializer::new(String::new()).append_pair("origin", &origin).finish()),
        None => query.get(),
    })
}

/// The Embed panel's choice of where answers go: the course page's address
/// (reduced to its origin), or any page. Sets `origin` for the snippet.
#[component]
pub fn ReportTo(origin: RwSignal<Option<String>>) -> impl IntoView {
    let address = RwSignal::new(String::new());
    let anyone = RwSignal::new(false);
    let said = RwSignal::new(String::new());
    let update = move || {
        let (chosen, words) = if anyone.get_untracked() {
            (Some("*".to_string()), "Answers go to whichever page embeds the frame (origin=*).".to_string())
        } else {
            match address.with_untracked(|address| (address.trim().is_empty(), origin_of(address))) {
                (true, _) => (None, "Answers are not reported: give your course page's address to receive them.".to_string()),
                (false, Ok(origin)) => (Some(origin.clone()), format!("Answers go only to pages at {origin}.")),
                (false, Err(why)) => (None, format!("Not reported: that address will not do ({why}).")),
            }
        };
        origin.set(chosen);
        said.set(words);
    };
    update();
    view! {
        <fieldset class="report-to">
            <legend>"Where answers go"</legend>
            <label class="field">
                <span>"Your course page's address"</span>
                <input type="url" placeholder="https://courses.example.edu/week-6.html" data-testid="report-origin"
                    on:input=move |ev| { address.set(event_target_value(&ev)); update(); }/>
            </label>
            <label class="check">
                <input type="checkbox" on:change=move |ev| { anyone.set(event_target_checked(&ev)); update(); }/>
                <span>"Any page that embeds it (origin=*): whoever frames it sees the answers"</span>
            </label>
            <p class="hint" role="status" data-testid="report-status">{move || said.get()}</p>
        </fieldset>
    }
}
