//! Open edX's "Custom JavaScript Display and Grading" (JSInput): the widget
//! runs in the platform's iframe and the platform calls three functions on
//! its window — the learner's answer (`getGrade`), a state to keep
//! (`getState`), and that state given back on the next visit (`setState`).
//! The answer is graded on the platform by the problem's Python check,
//! written here with the keys the model computed, so the widget's answer
//! and the key meet only on the server.
//!
//! The answer and the state are one JSON text, `{"responses": [..]}`: per
//! question, the response of its first try (what the score counts, as in a
//! set) as the xAPI statement writes it ("1", "9", "2[,]0[,]1"), or null.

use fencing_sim::markup::escape;
use serde_json::{json, Value};

/// The function names the problem XML gives the platform.
pub const GRADE_FN: &str = "getGrade";
pub const GET_STATE_FN: &str = "getState";
pub const SET_STATE_FN: &str = "setState";

/// The answer (and the state) for these first-try responses.
pub fn answer(responses: &[Option<String>]) -> String {
    json!({ "responses": responses }).to_string()
}

/// Why a state text is refused when it is not JSON at all.
pub const NOT_JSON: &str = "the saved answers are not JSON";

/// One item of a state's list, as read from its JSON: null, a text, or
/// anything else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Null,
    Text(String),
    Other,
}

/// Reads a state the platform gives back: the responses, one per question
/// (`questions` of them), or why it cannot be used. A state from another
/// version of the questions (another count) is refused, not guessed at.
pub fn read_state(text: &str, questions: usize) -> Result<Vec<Option<String>>, String> {
    let value: Value = serde_json::from_str(text).map_err(|_| NOT_JSON.to_string())?;
    let list = value.get("responses").and_then(Value::as_array).map(|list| {
        list.iter()
            .map(|item| match item {
                Value::Null => Item::Null,
                Value::String(text) => Item::Text(text.clone()),
                _ => Item::Other,
            })
            .collect()
    });
    check_state(list, questions)
}

/// The same check on a state already parsed (the page parses it with the
/// browser's own JSON, which costs its download nothing): `list` is the
/// state's `responses`, None when it has no such list.
pub fn check_state(list: Option<Vec<Item>>, questions: usize) -> Result<Vec<Option<String>>, String> {
    let Some(list) = list else {
        return Err("the saved answers have no list of responses".to_string());
    };
    if list.len() != questions {
        return Err(format!("the saved answers are for {} questions, and this widget asks {questions}", list.len()));
    }
    list.into_iter()
        .map(|item| match item {
            Item::Null => Ok(None),
            Item::Text(text) if text.len() <= 64 => Ok(Some(text)),
            _ => Err("a saved response is neither an answer nor empty".to_string()),
        })
        .collect()
}

/// The problem to paste into Studio (Problem → Advanced → Custom JavaScript
/// Display and Grading): the widget at `html_file`, and a check that gives
/// the fraction of first tries matching `keys` (partial credit).
pub fn problem_xml(title: &str, html_file: &str, keys: &[String], height_px: u32) -> String {
    let keys_json = Value::from(keys.to_vec()).to_string();
    format!(
        r#"<problem>
  <customresponse cfn="fencing_lab_check">
    <script type="loncapa/python"><![CDATA[
import json

# Written by Fencing Lab: each question's key, computed by its model from the run.
FENCING_LAB_KEYS = {keys_json}

def fencing_lab_check(expect, ans):
    try:
        sent = json.loads(ans)
        answer = json.loads(sent["answer"]) if isinstance(sent, dict) and "answer" in sent else sent
        given = answer["responses"]
    except Exception:
        return {{"ok": False, "msg": "No answers came from the widget: answer its questions, then submit."}}
    if not isinstance(given, list) or len(given) != len(FENCING_LAB_KEYS):
        return {{"ok": False, "msg": "These answers are for other questions: reload the page and answer again."}}
    right = sum(1 for response, key in zip(given, FENCING_LAB_KEYS) if response == key)
    total = len(FENCING_LAB_KEYS)
    if right == total:
        ok = True
    elif right == 0:
        ok = False
    else:
        ok = "partial"
    return {{"ok": ok, "msg": "%d of %d right at the first try." % (right, total), "grade_decimal": float(right) / total}}
]]></script>
    <jsinput gradefn="{GRADE_FN}" get_statefn="{GET_STATE_FN}" set_statefn="{SET_STATE_FN}" html_file="{html_file}" title="{title}" width="900" height="{height_px}" sop="false"/>
  </customresponse>
</problem>
"#,
        html_file = escape(html_file),
        title = escape(title),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_reads_back_as_written() {
        let responses = vec![Some("1".to_string()), None, Some("2[,]0[,]1".to_string())];
        assert_eq!(read_state(&answer(&responses), 3), Ok(responses));
    }

    #[test]
    fn a_broken_state_is_refused_with_a_reason() {
        for (text, why) in [
            ("", "not JSON"),
            ("{\"responses\": 3}", "no list"),
            ("{\"answers\": []}", "no list"),
            ("{\"responses\": [\"1\"]}", "for 1 questions, and this widget asks 2"),
            ("{\"responses\": [1, null]}", "neither"),
        ] {
            assert!(read_state(text, 2).unwrap_err().contains(why), "{text}");
        }
    }

    #[test]
    fn the_problem_carries_the_keys_and_an_escaped_address() {
        let xml = problem_xml("Week 6", "https://lab.example/?set=a.b&embed=quiz&jsinput=1", &["1".to_string(), "0".to_string()], 760);
        assert!(xml.contains(r#"FENCING_LAB_KEYS = ["1","0"]"#));
        assert!(xml.contains(r#"html_file="https://lab.example/?set=a.b&amp;embed=quiz&amp;jsinput=1""#));
        assert!(xml.contains(r#"gradefn="getGrade" get_statefn="getState" set_statefn="setState""#));
        assert_eq!(xml.matches("]]>").count(), 1, "the keys never close the script early");
    }
}
