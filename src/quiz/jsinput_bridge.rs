//! The widget's side of Open edX's JSInput (`embed=…&jsinput=1`):
//! `getGrade`, `getState` and `setState` on the widget's window, holding
//! each question's first try. The quizzes hold it; the problem XML an
//! instructor pastes is `teach/lms.rs`'s.

use crate::shell::browser;
use crate::shell::route::split_query;
use fencing_course::jsinput;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

/// The widget's side of JSInput: the first try of each question, for the
/// platform to grade and keep, and what it gave back (`restored` moves on
/// each `setState`, so the questions redraw as answered).
#[derive(Clone, Copy)]
pub struct Jsinput {
    pub responses: RwSignal<Vec<Option<String>>>,
    pub restored: RwSignal<u32>,
    pub notice: RwSignal<Option<String>>,
}

impl Jsinput {
    /// When the page's link says `jsinput=1`: puts `getGrade`, `getState`
    /// and `setState` on the window for `questions` questions, and takes
    /// any state the platform gave before the page started (boot.js keeps it).
    pub fn start(questions: usize) -> Option<Jsinput> {
        if !browser::IN_BROWSER || !split_query(&browser::query()).jsinput {
            return None;
        }
        let bridge = Jsinput { responses: RwSignal::new(vec![None; questions]), restored: RwSignal::new(0), notice: RwSignal::new(None) };
        let window = web_sys::window()?;
        let early = js_sys::Reflect::get(&window, &"fencingLabJsinput".into())
            .ok()
            .and_then(|held| js_sys::Reflect::get(&held, &"state".into()).ok())
            .and_then(|state| state.as_string());
        if let Some(state) = early {
            bridge.restore(&state);
        }
        let answer = move || JsValue::from(jsinput::answer(&bridge.responses.get_untracked()));
        let get_grade = Closure::<dyn Fn() -> JsValue>::new(answer);
        let get_state = Closure::<dyn Fn() -> JsValue>::new(answer);
        // Called with the state alone, or (through a message channel) with a
        // transaction first and the state second.
        let set_state = Closure::<dyn Fn(JsValue, JsValue)>::new(move |first: JsValue, second: JsValue| {
            let state = second.as_string().or_else(|| first.as_string()).unwrap_or_default();
            bridge.restore(&state);
        });
        for (name, function) in [
            (jsinput::GRADE_FN, get_grade.as_ref()),
            (jsinput::GET_STATE_FN, get_state.as_ref()),
            (jsinput::SET_STATE_FN, set_state.as_ref()),
        ] {
            let _ = js_sys::Reflect::set(&window, &name.into(), function);
        }
        // The functions live as long as the page.
        get_grade.forget();
        get_state.forget();
        set_state.forget();
        Some(bridge)
    }

    /// Takes a state back, or says why it cannot and starts afresh.
    fn restore(self, state: &str) {
        let questions = self.responses.with_untracked(Vec::len);
        match parse_state(state).and_then(|list| jsinput::check_state(list, questions)) {
            Ok(responses) => {
                self.responses.set(responses);
                self.notice.set(None);
            }
            Err(why) => {
                self.responses.set(vec![None; questions]);
                self.notice
                    .set(Some(format!("Your course gave back saved answers that cannot be used ({why}): the questions start afresh.")));
            }
        }
        self.restored.update(|epoch| *epoch += 1);
    }

    /// Keeps a question's first response (later tries do not change it).
    pub fn first(self, position: usize, response: String) {
        self.responses.update(|responses| {
            if let Some(slot @ None) = responses.get_mut(position) {
                *slot = Some(response);
            }
        });
    }

    /// The first response kept for a question, if any.
    pub fn kept(self, position: usize) -> Option<String> {
        self.responses.with_untracked(|responses| responses.get(position).cloned().flatten())
    }
}

/// A state's list of responses, parsed by the browser's JSON (the model's
/// `read_state` does the same with serde's, whose parser the page need not
/// download).
fn parse_state(state: &str) -> Result<Option<Vec<jsinput::Item>>, String> {
    let value = js_sys::JSON::parse(state).map_err(|_| jsinput::NOT_JSON.to_string())?;
    let Some(list) = value.is_object().then(|| js_sys::Reflect::get(&value, &"responses".into()).ok()).flatten() else {
        return Ok(None);
    };
    if !js_sys::Array::is_array(&list) {
        return Ok(None);
    }
    let items = js_sys::Array::from(&list)
        .iter()
        .map(|item| match item.as_string() {
            Some(text) => jsinput::Item::Text(text),
            None if item.is_null() => jsinput::Item::Null,
            None => jsinput::Item::Other,
        })
        .collect();
    Ok(Some(items))
}
