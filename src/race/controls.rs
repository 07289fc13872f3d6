//! The scenario's controls. Every edit is validated by the core before it
//! takes effect; an impossible combination keeps the last good scenario and
//! says why.
//!
//! The form is markup written from the scenario, with one change handler
//! that reads each field's `name`: a form of twenty fields is then one
//! reactive piece, not twenty (the race's first load is measured in bytes).
//! When an edit rewrites the form, focus goes back to the field edited.

use crate::escape;
use fencing_sim::permalink;
use fencing_sim::{presets, Fault, LockService, RedisPersistence, Release, Scenario, StoreKind, TokenSource};
use leptos::prelude::*;
use std::fmt::Write;
use wasm_bindgen::JsCast;

/// The scenario after the field `name` took `value` (`on` for a checkbox),
/// or why it cannot (the reason alone, as a link's notice gives it).
/// Validation of the whole is the caller's (the core's).
pub fn apply(scenario: &Scenario, name: &str, value: &str, on: bool) -> Result<Scenario, String> {
    let mut changed = scenario.clone();
    match name {
        "preset" => {
            let preset = presets::build(value).ok_or_else(|| format!("there is no preset {value:?}"))?;
            changed = Scenario { seed: scenario.seed, ..preset };
        }
        "fencing" => changed.fencing = on,
        "renewal" => changed.renewal = on,
        "check" => changed.check_before_write = on,
        // A number is read as a link's is (the same bounds, the same words).
        // The pause length is the scenario's own: the field shows it and
        // changes every pause in the scenario.
        "ttl" | "work" | "pause" | "seed" => {
            let key = if name == "seed" { "seed".to_string() } else { format!("{name}_ms") };
            changed = permalink::set_field(scenario, &key, value)?;
        }
        _ => {
            let setting = SETTINGS.iter().find(|setting| setting.name == name).ok_or_else(|| format!("there is no setting {name:?}"))?;
            let index = value.parse::<usize>().ok().filter(|index| *index < (setting.options)().len());
            (setting.set)(&mut changed, index.ok_or_else(|| format!("{value:?} is not one of the choices"))?);
        }
    }
    Ok(changed)
}

/// The form's markup for `scenario`; field ids start with `id`.
pub fn form(scenario: &Scenario, id: &str) -> String {
    let mut html = format!(
        r#"<fieldset class="controls-grid"><legend>Scenario</legend><label class="field wide" for="{id}-preset"><span>Preset</span><select id="{id}-preset" name="preset">"#
    );
    for preset in presets::PRESETS {
        let selected = if preset.id == scenario.preset { " selected" } else { "" };
        let _ = write!(html, r#"<option value="{}"{selected}>{}</option>"#, preset.id, escape(preset.name));
    }
    // The story line the race shows (`worksheet::story_line`): the preset's
    // story while the scenario is the preset's, else the edit's own words,
    // so a lease set to 40 s never reads "a 10 s lease" here.
    let story = fencing_sim::worksheet::story_line(scenario);
    let _ = write!(html, r#"</select></label><p class="preset-story wide" data-testid="{id}-form-story">{}</p>"#, escape(&story));
    for (name, label, on) in [
        ("fencing", "Fencing (the store checks tokens)", scenario.fencing),
        ("renewal", "Watchdog renewal every ttl/3", scenario.renewal),
        ("check", "Check the lease before each write", scenario.check_before_write),
    ] {
        let checked = if on { " checked" } else { "" };
        let _ = write!(
            html,
            r#"<label class="check"><input type="checkbox" id="{id}-{name}" name="{name}"{checked}><span>{label}</span></label>"#
        );
    }
    let number = |html: &mut String, name: &str, label: &str, value: u64, extra: &str| {
        let _ = write!(
            html,
            r#"<label class="field" for="{id}-{name}"><span>{label}</span><input id="{id}-{name}" name="{name}" data-testid="{id}-{name}" type="number" inputmode="numeric" min="0" value="{value}"{extra}></label>"#
        );
    };
    number(&mut html, "ttl", "Lease TTL (ms)", scenario.ttl_ms, "");
    let has_pause = scenario.faults.iter().any(|fault| matches!(fault, Fault::Pause { .. }));
    let hint = if has_pause {
        "Every pause in the scenario, and a pause you add, lasts this long."
    } else {
        "This scenario has no pause; one you add lasts this long."
    };
    let pause_extra = format!(r#" aria-describedby="{id}-pause-hint"{}"#, if has_pause { "" } else { " disabled" });
    number(&mut html, "pause", "Pause length (ms)", scenario.pause_ms_default(), &pause_extra);
    let _ = write!(html, r#"<p class="hint field-hint" id="{id}-pause-hint">{hint}</p>"#);
    number(&mut html, "work", "Work before each write (ms)", scenario.work_ms, "");
    for setting in SETTINGS {
        let current = (setting.get)(scenario);
        let _ = write!(
            html,
            r#"<label class="field" for="{id}-{name}"><span>{}</span><select id="{id}-{name}" name="{name}">"#,
            setting.label,
            name = setting.name
        );
        for (index, option) in (setting.options)().into_iter().enumerate() {
            let selected = if index == current { " selected" } else { "" };
            let _ = write!(html, r#"<option value="{index}"{selected}>{}</option>"#, escape(option));
        }
        html.push_str("</select></label>");
    }
    let _ = write!(
        html,
        r#"<label class="field" for="{id}-seed"><span>Seed</span><span class="seed-row"><input id="{id}-seed" name="seed" type="number" inputmode="numeric" min="0" value="{}"><button type="button" data-action="new-seed">New seed</button></span></label></fieldset>"#,
        scenario.seed
    );
    html
}

#[component]
pub fn ScenarioControls(scenario: RwSignal<Scenario>, id: &'static str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let html = Memo::new(move |_| scenario.with(|scenario| form(scenario, id)));
    let commit = move |changed: Result<Scenario, String>, field: Option<String>| {
        match changed.and_then(|changed| changed.validate().map(|()| changed).map_err(|error| error.problems.join("; "))) {
            Ok(changed) => {
                problem.set(None);
                scenario.set(changed);
            }
            Err(reason) => problem.set(Some(format!("Not applied: {reason}. The run below is the last one that was."))),
        }
        // The form was written afresh: the learner stays on the field they used.
        if let Some(field) = field {
            crate::shell::browser::focus_soon(move || document().get_element_by_id(&field).and_then(|element| element.dyn_into().ok()));
        }
    };
    let change = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            // A select: its value is its option's.
            if let Some(select) = ev.target().and_then(|target| target.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
                let changed = scenario.with_untracked(|scenario| apply(scenario, &select.name(), &select.value(), false));
                commit(changed, Some(select.id()));
            }
            return;
        };
        let changed = scenario.with_untracked(|scenario| apply(scenario, &input.name(), &input.value(), input.checked()));
        let field = if input.id().is_empty() { None } else { Some(input.id()) };
        commit(changed, field);
    };
    let click = move |ev: leptos::ev::MouseEvent| {
        let target = ev.target().and_then(|target| target.dyn_into::<web_sys::Element>().ok());
        if target.and_then(|target| target.closest("[data-action=new-seed]").ok().flatten()).is_some() {
            let seed = fresh_seed().to_string();
            commit(scenario.with_untracked(|scenario| apply(scenario, "seed", &seed, false)), None);
        }
    };
    view! {
        <div class="scenario-form" on:change=change on:click=click inner_html=html></div>
        <p class="notice" role="alert" data-testid=format!("{id}-problem") hidden=move || problem.with(Option::is_none)>{move || problem.get()}</p>
    }
}

/// A setting chosen from a fixed list: its options' names, which one the
/// scenario has, and how to set another.
struct Setting {
    name: &'static str,
    label: &'static str,
    options: fn() -> Vec<&'static str>,
    get: fn(&Scenario) -> usize,
    set: fn(&mut Scenario, usize),
}

/// The position of `value` in `all` (0 if absent, which the types rule out).
fn position<T: PartialEq>(all: &[T], value: &T) -> usize {
    all.iter().position(|option| option == value).unwrap_or(0)
}

const WORKER_COUNTS: [u8; 4] = [2, 3, 4, 5];

const SETTINGS: &[Setting] = &[
    Setting {
        name: "lock",
        label: "Lock service",
        options: || LockService::ALL.iter().map(|option| option.label()).collect(),
        get: |s| position(&LockService::ALL, &s.lock_service),
        set: |s, index| s.lock_service = LockService::ALL[index],
    },
    Setting {
        name: "token-source",
        label: "Where the token comes from (Redis)",
        options: || TokenSource::ALL.iter().map(|option| option.label()).collect(),
        get: |s| position(&TokenSource::ALL, &s.token_source),
        set: |s, index| s.token_source = TokenSource::ALL[index],
    },
    Setting {
        name: "persistence",
        label: "Redis persistence",
        options: || RedisPersistence::ALL.iter().map(|option| option.label()).collect(),
        get: |s| position(&RedisPersistence::ALL, &s.redis_persistence),
        set: |s, index| s.redis_persistence = RedisPersistence::ALL[index],
    },
    Setting {
        name: "store",
        label: "Store",
        options: || StoreKind::ALL.iter().map(|option| option.label()).collect(),
        get: |s| position(&StoreKind::ALL, &s.store),
        set: |s, index| s.store = StoreKind::ALL[index],
    },
    Setting {
        name: "release",
        label: "Release",
        options: || Release::ALL.iter().map(|option| option.label()).collect(),
        get: |s| position(&Release::ALL, &s.release),
        set: |s, index| s.release = Release::ALL[index],
    },
    Setting {
        name: "workers",
        label: "Workers",
        options: || vec!["2", "3", "4", "5"],
        get: |s| position(&WORKER_COUNTS, &s.workers),
        set: |s, index| s.workers = WORKER_COUNTS[index],
    },
];

/// A fresh seed from the browser's randomness: the only place Fencing Lab
/// asks for entropy, and never inside the simulation.
pub fn fresh_seed() -> u64 {
    let mut bytes = [0u8; 8];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes) >> 11,
        Err(_) => 1,
    }
}
