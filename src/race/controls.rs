//! The scenario's controls. Every edit is validated by the core before it
//! takes effect; an impossible combination keeps the last good scenario and
//! says why.
//!
//! The form's fields are bound to the scenario, with one change handler
//! that reads each field's `name`; an edit never rewrites the form, so focus
//! stays on the field the learner used.

use fencing_sim::permalink;
use fencing_sim::{presets, Fault, LockService, RedisPersistence, Release, Scenario, StoreKind, TokenSource};
use leptos::prelude::*;
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

/// The scenario's fields, bound to `scenario`: an edit from anywhere (a
/// preset, a fault button, a link) moves each field to the scenario's value,
/// and nothing is rewritten, so focus stays on the field the learner used.
/// Each field shows its value twice: as an attribute (what the first screen,
/// drawn at build time, carries) and as a property (what a field the learner
/// has already edited shows). Field ids start with `id`.
#[component]
pub fn ScenarioControls(scenario: RwSignal<Scenario>, id: &'static str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let commit = move |changed: Result<Scenario, String>| match changed
        .and_then(|changed| changed.validate().map(|()| changed).map_err(|error| error.problems.join("; ")))
    {
        Ok(changed) => {
            problem.set(None);
            scenario.set(changed);
        }
        Err(reason) => problem.set(Some(format!("Not applied: {reason}. The run below is the last one that was."))),
    };
    // One handler for the form, reading each field's `name` (`apply`): a
    // form of twenty fields is one listener, not twenty.
    let change = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            // A select: its value is its option's.
            if let Some(select) = ev.target().and_then(|target| target.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
                commit(scenario.with_untracked(|scenario| apply(scenario, &select.name(), &select.value(), false)));
            }
            return;
        };
        commit(scenario.with_untracked(|scenario| apply(scenario, &input.name(), &input.value(), input.checked())));
    };
    let new_seed = move |_| {
        let seed = fresh_seed().to_string();
        commit(scenario.with_untracked(|scenario| apply(scenario, "seed", &seed, false)));
    };
    let presets = presets::PRESETS
        .iter()
        .map(|preset| {
            let chosen = move || scenario.with(|scenario| scenario.preset == preset.id);
            view! { <option value=preset.id selected=chosen prop:selected=chosen>{preset.name}</option> }
        })
        .collect_view();
    let checks = [
        ("fencing", "Fencing (the store checks tokens)", (|scenario| scenario.fencing) as fn(&Scenario) -> bool),
        ("renewal", "Watchdog renewal every ttl/3", |scenario| scenario.renewal),
        ("check", "Check the lease before each write", |scenario| scenario.check_before_write),
    ]
    .map(|(name, label, on)| {
        let on = move || scenario.with(on);
        view! { <label class="check"><input type="checkbox" id=format!("{id}-{name}") name=name checked=on prop:checked=on/><span>{label}</span></label> }
    });
    let has_pause = move || scenario.with(|scenario| scenario.faults.iter().any(|fault| matches!(fault, Fault::Pause { .. })));
    let hint = move || {
        if has_pause() {
            "Every pause in the scenario, and a pause you add, lasts this long."
        } else {
            "This scenario has no pause; one you add lasts this long."
        }
    };
    let settings = SETTINGS
        .iter()
        .map(|setting| {
            let options = (setting.options)()
                .into_iter()
                .enumerate()
                .map(|(index, option)| {
                    let chosen = move || scenario.with(|scenario| (setting.get)(scenario) == index);
                    view! { <option value=index selected=chosen prop:selected=chosen>{option}</option> }
                })
                .collect_view();
            view! {
                <label class="field" for=format!("{id}-{}", setting.name)>
                    <span>{setting.label}</span>
                    <select id=format!("{id}-{}", setting.name) name=setting.name>{options}</select>
                </label>
            }
        })
        .collect_view();
    let seed = move || scenario.with(|scenario| scenario.seed);
    view! {
        <div class="scenario-form" on:change=change>
            <fieldset class="controls-grid">
                <legend>"Scenario"</legend>
                <label class="field wide" for=format!("{id}-preset")>
                    <span>"Preset"</span>
                    <select id=format!("{id}-preset") name="preset">{presets}</select>
                </label>
                // The story line the race shows (`worksheet::story_line`): the preset's
                // story while the scenario is the preset's, else the edit's own words,
                // so a lease set to 40 s never reads "a 10 s lease" here.
                <p class="preset-story wide" data-testid=format!("{id}-form-story")>{move || scenario.with(fencing_sim::worksheet::story_line)}</p>
                {checks}
                <NumberField scenario id name="ttl" label="Lease TTL (ms)" value=|scenario| scenario.ttl_ms/>
                // The pause length is the scenario's own: the field changes every pause.
                <NumberField scenario id name="pause" label="Pause length (ms)" value=Scenario::pause_ms_default disabled=Signal::derive(move || !has_pause())/>
                <p class="hint field-hint" id=format!("{id}-pause-hint")>{hint}</p>
                <NumberField scenario id name="work" label="Work before each write (ms)" value=|scenario| scenario.work_ms/>
                {settings}
                <label class="field" for=format!("{id}-seed")>
                    <span>"Seed"</span>
                    <span class="seed-row">
                        <input id=format!("{id}-seed") name="seed" type="number" inputmode="numeric" min="0" value=seed prop:value=seed/>
                        <button type="button" data-action="new-seed" on:click=new_seed>"New seed"</button>
                    </span>
                </label>
            </fieldset>
        </div>
        <p class="notice" role="alert" data-testid=format!("{id}-problem") hidden=move || problem.with(Option::is_none)>{move || problem.get()}</p>
    }
}

/// A number of milliseconds in the scenario (`value` reads it), with its
/// label; the pause's is described by the hint below it and disabled while
/// the scenario has no pause.
#[component]
fn NumberField(
    scenario: RwSignal<Scenario>,
    id: &'static str,
    name: &'static str,
    label: &'static str,
    value: fn(&Scenario) -> u64,
    #[prop(optional)] disabled: Option<Signal<bool>>,
) -> impl IntoView {
    let value = move || scenario.with(value);
    let described = disabled.is_some().then(|| format!("{id}-pause-hint"));
    view! {
        <label class="field" for=format!("{id}-{name}")>
            <span>{label}</span>
            <input
                id=format!("{id}-{name}")
                name=name
                data-testid=format!("{id}-{name}")
                type="number"
                inputmode="numeric"
                min="0"
                value=value
                prop:value=value
                aria-describedby=described
                disabled=move || disabled.is_some_and(|disabled| disabled.get())
            />
        </label>
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// The form as the first screen draws it, natively.
    fn drawn(scenario: Scenario) -> String {
        let owner = Owner::new();
        let html = owner.with(|| {
            let scenario = RwSignal::new(scenario);
            view! { <ScenarioControls scenario id="race"/> }.to_html()
        });
        drop(owner);
        html
    }

    #[test]
    fn the_form_shows_the_scenarios_values() {
        let classic = Scenario { seed: 9, ..presets::classic() };
        let inverted = apply(&classic, "preset", "token-inversion", false).expect("a preset");
        let html = drawn(inverted);
        assert!(html.contains(r#"<option value="token-inversion" selected"#), "{html}");
        assert_eq!(html.matches(" selected").count(), 1 + SETTINGS.len(), "one option chosen per select: {html}");
        assert!(
            html.contains(r#"name="pause" data-testid="race-pause" type="number" inputmode="numeric" min="0" value="12000""#),
            "{html}"
        );
        assert!(html.contains(r#"id="race-seed" name="seed" type="number" inputmode="numeric" min="0" value="9""#), "{html}");
        assert!(!html.contains(" disabled"), "the pause can be changed: {html}");
        let no_pause = apply(&classic, "preset", "holder-crash", false).expect("a preset");
        let html = drawn(no_pause);
        assert!(html.contains(r#"aria-describedby="race-pause-hint" disabled"#), "no pause to change: the field says so: {html}");
        assert!(html.contains("This scenario has no pause"), "{html}");
    }

    #[test]
    fn a_checkbox_is_checked_as_the_scenario_is() {
        let fenced = Scenario { fencing: true, renewal: false, ..presets::classic() };
        let html = drawn(fenced);
        assert!(html.contains(r#"id="race-fencing" name="fencing" checked"#), "{html}");
        assert!(html.contains(r#"id="race-renewal" name="renewal">"#), "{html}");
    }
}
