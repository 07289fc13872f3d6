//! Faults: the scenario's faults one per line, each removable (the preset's
//! own marked as such), and buttons that add a fault at the cursor's moment.
//! Everything before that moment stays as it was (same seed, same draws), so
//! the learner's timing decides who gets hurt. Which buttons a moment offers,
//! what each places, and the check that it leaves the past alone are the
//! core's (`fencing_sim::click`); this file only draws them.
//!
//! The panel is markup written from the scenario and the cursor, with one
//! click handler that reads each button's `data-action`: one reactive piece
//! instead of one per button.

use crate::escape;
use crate::race::pane::Pane;
use fencing_sim::click::{self, Action};
use fencing_sim::presets::is_preset_fault;
use fencing_sim::{Actor, Scenario, Trace};
use leptos::prelude::*;
use std::fmt::Write;
use wasm_bindgen::JsCast;

/// The panel's markup: the faults, then the buttons the scenario allows.
pub fn markup(scenario: &Scenario, trace: &Trace, upto: Option<u32>, id: &str) -> String {
    let mut html = format!(r#"<ul class="fault-list" data-testid="{id}-faults">"#);
    if scenario.faults.is_empty() {
        html.push_str(r#"<li class="no-faults">No faults: nothing goes wrong unless you add one.</li>"#);
    }
    for (position, fault) in scenario.faults.iter().enumerate() {
        let said = escape(&fault.describe());
        let tag = if is_preset_fault(scenario, fault) { r#"<span class="tag preset-tag">the preset's</span>"# } else { "" };
        let _ = write!(
            html,
            r#"<li class="fault"><span class="fault-text">{said}</span>{tag}<button type="button" class="remove" data-action="remove:{position}" aria-label="Remove: {said}">✕</button></li>"#
        );
    }
    html.push_str("</ul>");
    let added = scenario.faults.iter().filter(|fault| !is_preset_fault(scenario, fault)).count();
    if added > 0 {
        let what = if added == 1 { "fault" } else { "faults" };
        let _ = write!(
            html,
            r#"<button type="button" class="quiet" data-action="remove-added" data-testid="{id}-remove-added">Remove the {what} you added</button>"#
        );
    }
    html.push_str(r#"<p class="hint">Add one at the cursor's moment; the run before it stays the same.</p><div class="fault-row">"#);
    // One row for the workers' buttons, one for the lock nodes'.
    let mut row = None;
    for button in click::buttons(scenario, trace, upto) {
        let worker = matches!(button.target, Actor::Worker(_));
        if row != Some(worker) {
            html.push_str(if row.is_some() { r#"</div><div class="fault-row">"# } else { "" });
            row = Some(worker);
        }
        let off = button.refused.map_or(String::new(), |why| format!(r#" disabled title="{}""#, escape(&why)));
        let _ = write!(
            html,
            r#"<button type="button" data-action="{action}" data-testid="{id}-{testid}"{off}>{words}</button>"#,
            action = button.action,
            testid = button.action.replace(':', "-"),
            words = escape(&button.words),
        );
    }
    html.push_str("</div>");
    html
}

#[component]
pub fn FaultPanel(scenario: RwSignal<Scenario>, pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let html = Memo::new(move |_| scenario.with(|scenario| pane.with(|pane| markup(scenario, &pane.trace, upto.get(), id))));
    let click = move |ev: leptos::ev::MouseEvent| {
        let target = ev.target().and_then(|target| target.dyn_into::<web_sys::Element>().ok());
        let Some(action) =
            target.and_then(|target| target.closest("[data-action]").ok().flatten()).and_then(|button| button.get_attribute("data-action"))
        else {
            return;
        };
        let Some(action) = Action::parse(&action) else { return };
        let changed = scenario
            .with_untracked(|scenario| pane.with_untracked(|pane| click::apply(action, scenario, &pane.trace, upto.get_untracked())));
        match changed {
            Ok(changed) => {
                problem.set(None);
                scenario.set(changed);
            }
            Err(why) => problem.set(Some(why)),
        }
    };
    view! {
        <section class="fault-panel" aria-labelledby=format!("{id}-faults-title")>
            <h3 id=format!("{id}-faults-title")>"Faults"</h3>
            <div on:click=click inner_html=html></div>
            <p class="notice" role="alert" hidden=move || problem.with(Option::is_none)>{move || problem.get()}</p>
        </section>
    }
}
