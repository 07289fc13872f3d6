//! Faults: the scenario's faults one per line, each removable (the preset's
//! own marked as such), and buttons that add a fault at the cursor's moment.
//! Everything before that moment stays as it was (same seed, same draws), so
//! the learner's timing decides who gets hurt. Which buttons a moment offers,
//! what each places, and the check that it leaves the past alone are the
//! core's (`fencing_sim::click`); this file only draws them.
//!
//! The panel is written from the scenario and the cursor, again only when a
//! fault or a button changes; each button asks for its `data-action`.

use crate::race::pane::Pane;
use fencing_sim::click::{self, Action};
use fencing_sim::presets::is_preset_fault;
use fencing_sim::{Actor, Scenario, Trace};
use leptos::prelude::*;

/// What the panel shows: each fault's words (and whether it is the
/// preset's), how many were added, and the buttons the moment allows, as
/// the core gives them.
#[derive(Clone, PartialEq)]
pub struct Shown {
    faults: Vec<(String, bool)>,
    added: usize,
    buttons: Vec<(bool, click::Button)>,
}

impl Shown {
    /// The panel for `scenario` at event `upto` of its run.
    pub fn of(scenario: &Scenario, trace: &Trace, upto: Option<u32>) -> Shown {
        let faults: Vec<(String, bool)> =
            scenario.faults.iter().map(|fault| (fault.describe(), is_preset_fault(scenario, fault))).collect();
        let added = faults.iter().filter(|(_, preset)| !preset).count();
        let buttons =
            click::buttons(scenario, trace, upto).into_iter().map(|button| (matches!(button.target, Actor::Worker(_)), button)).collect();
        Shown { faults, added, buttons }
    }
}

/// The panel: the faults, then the buttons the scenario allows; `act` is
/// what a button's press asks for (its `data-action`, which the browser
/// tests also read).
pub fn panel(shown: Shown, id: &'static str, act: impl Fn(&str) + Copy + Send + Sync + 'static) -> impl IntoView {
    let none = shown.faults.is_empty().then(|| view! { <li class="no-faults">"No faults: nothing goes wrong unless you add one."</li> });
    let faults = shown
        .faults
        .into_iter()
        .enumerate()
        .map(|(position, (said, preset))| {
            let action = format!("remove:{position}");
            let pressed = action.clone();
            view! {
                <li class="fault">
                    <span class="fault-text">{said.clone()}</span>
                    {preset.then(|| view! { <span class="tag preset-tag">"the preset's"</span> })}
                    <button type="button" class="remove" data-action=action aria-label=format!("Remove: {said}") on:click=move |_| act(&pressed)>"✕"</button>
                </li>
            }
        })
        .collect_view();
    let remove_added = (shown.added > 0).then(|| {
        let what = if shown.added == 1 { "fault" } else { "faults" };
        view! {
            <button type="button" class="quiet" data-action="remove-added" data-testid=format!("{id}-remove-added") on:click=move |_| act("remove-added")>
                {format!("Remove the {what} you added")}
            </button>
        }
    });
    // One row for the workers' buttons, one for the lock nodes'.
    // The first row is there even when no button is (an empty row keeps the panel's height).
    let row = |worker: bool, first: bool| {
        let buttons = shown
            .buttons
            .iter()
            .filter(|(for_worker, _)| *for_worker == worker)
            .map(|(_, button)| {
                let action = button.action.clone();
                let pressed = action.clone();
                view! {
                    <button
                        type="button"
                        data-action=action
                        data-testid=format!("{id}-{}", button.action.replace(':', "-"))
                        disabled=button.refused.is_some()
                        title=button.refused.clone()
                        on:click=move |_| act(&pressed)
                    >
                        {button.words.clone()}
                    </button>
                }
            })
            .collect::<Vec<_>>();
        (first || !buttons.is_empty()).then(|| view! { <div class="fault-row">{buttons}</div> })
    };
    // The workers' row first when the core lists a worker's button first.
    let workers_first = shown.buttons.first().is_none_or(|(worker, _)| *worker);
    let rows = if workers_first { (row(true, true), row(false, false)) } else { (row(false, true), row(true, false)) };
    view! {
        <ul class="fault-list" data-testid=format!("{id}-faults")>{none}{faults}</ul>
        {remove_added}
        <p class="hint">"Add one at the cursor's moment; the run before it stays the same."</p>
        {rows}
    }
}

#[component]
pub fn FaultPanel(scenario: RwSignal<Scenario>, pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    // Written again only when a fault or a button changes.
    let shown = Memo::new(move |_| scenario.with(|scenario| pane.with(|pane| Shown::of(scenario, &pane.trace, upto.get()))));
    let act = move |action: &str| {
        let Some(action) = Action::parse(action) else { return };
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
            <div>{move || panel(shown.get(), id, act)}</div>
            <p class="notice" role="alert" hidden=move || problem.with(Option::is_none)>{move || problem.get()}</p>
        </section>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn drawn(scenario: &Scenario, trace: &Trace, upto: Option<u32>) -> String {
        Owner::new().with(|| panel(Shown::of(scenario, trace, upto), "race", |_| {}).into_view().to_html())
    }

    #[test]
    fn the_fault_panel_draws_the_cores_buttons_and_the_faults() {
        let scenario = fencing_sim::presets::classic();
        let pane = Pane::run(&scenario);
        let at = pane.trace.events.iter().position(|event| event.t_us >= 2_000_000).expect("an event after 2 s") as u32;
        let paused = click::apply(Action::Add(fencing_sim::FaultKind::Pause, Actor::Worker(1)), &scenario, &pane.trace, Some(at))
            .expect("a pause at 2 s");
        let html = drawn(&paused, &pane.trace, Some(at));
        assert_eq!(html.matches("<li class=\"fault\">").count(), 2, "{html}");
        assert_eq!(html.matches("the preset's").count(), 1, "only the preset's own fault is marked: {html}");
        assert!(html.contains("Remove the fault you added"), "{html}");
        for button in click::buttons(&paused, &pane.trace, Some(at)) {
            let testid = format!("data-testid=\"race-{}\"", button.action.replace(':', "-"));
            assert!(html.contains(&format!("data-action=\"{}\" {testid}", button.action)), "{testid} in {html}");
        }
        // A has one write, so after it there is nothing left to delay.
        let end = pane.trace.events.len() as u32 - 1;
        assert!(drawn(&scenario, &pane.trace, Some(end)).contains("data-testid=\"race-delay-A\" disabled title="));
        assert!(drawn(&Scenario { faults: vec![], ..scenario }, &pane.trace, None).contains("No faults: nothing goes wrong"));
    }
}
