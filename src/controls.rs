//! The scenario's controls. Every edit is validated by the core before it
//! takes effect; an impossible combination keeps the last good scenario and
//! says why.

use fencing_sim::sweep::Param;
use fencing_sim::{presets, Fault, LockService, RedisPersistence, Release, Scenario, StoreKind, TokenSource};
use leptos::prelude::*;

/// Applies an edit if the result is valid; otherwise reports why not.
fn edit(scenario: RwSignal<Scenario>, problem: RwSignal<Option<String>>, change: impl FnOnce(&mut Scenario)) {
    let mut candidate = scenario.get_untracked();
    change(&mut candidate);
    match candidate.validate() {
        Ok(()) => {
            problem.set(None);
            scenario.set(candidate);
        }
        Err(error) => problem.set(Some(format!("Not applied: {}.", error.problems.join("; ")))),
    }
}

/// Reads a whole number of milliseconds from a field, or says what is wrong.
fn millis(text: &str, what: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| format!("{what} must be a whole number of milliseconds, not {text:?}."))
}

#[component]
pub fn ScenarioControls(scenario: RwSignal<Scenario>, id: &'static str) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let field = move |name: &str| format!("{id}-{name}");
    let number = move |label: &'static str, name: &'static str, value: Signal<u64>, apply: fn(&mut Scenario, u64)| {
        let input_id = field(name);
        let label_for = input_id.clone();
        let on_change = move |ev: leptos::ev::Event| match millis(&event_target_value(&ev), label) {
            Ok(ms) => edit(scenario, problem, |s| apply(s, ms)),
            Err(message) => problem.set(Some(message)),
        };
        view! {
            <label class="field" for=label_for>
                <span>{label}</span>
                <input id=input_id type="number" inputmode="numeric" min="0" prop:value=move || value.get().to_string() on:change=on_change/>
            </label>
        }
    };
    let check = move |label: &'static str, value: Signal<bool>, apply: fn(&mut Scenario, bool)| {
        let on_change = move |ev: leptos::ev::Event| {
            let on = event_target_checked(&ev);
            edit(scenario, problem, |s| apply(s, on))
        };
        view! {
            <label class="check">
                <input type="checkbox" prop:checked=value on:change=on_change/>
                <span>{label}</span>
            </label>
        }
    };
    // The pause length is the scenario's own (one copy, in the core's terms):
    // the field shows it and changes every pause in the scenario.
    let set_pause = move |ev: leptos::ev::Event| match millis(&event_target_value(&ev), "The pause length") {
        Ok(ms) => edit(scenario, problem, |s| *s = Param::PauseMs.apply(s, ms)),
        Err(message) => problem.set(Some(message)),
    };
    let has_pause = move || scenario.with(|s| s.faults.iter().any(|fault| matches!(fault, Fault::Pause { .. })));
    let set_seed = move |ev: leptos::ev::Event| match event_target_value(&ev).trim().parse::<u64>() {
        Ok(seed) => edit(scenario, problem, |s| s.seed = seed),
        Err(_) => problem.set(Some("The seed must be a whole number from 0 to 18446744073709551615.".to_string())),
    };
    view! {
        <fieldset class="controls-grid">
            <legend>"Scenario"</legend>
            <label class="field wide" for=field("preset")>
                <span>"Preset"</span>
                <select id=field("preset") on:change=move |ev| {
                    if let Some(preset) = presets::find(&event_target_value(&ev)) {
                        let seed = scenario.get_untracked().seed;
                        edit(scenario, problem, |s| *s = Scenario { seed, ..(preset.build)() });
                    }
                }>
                    {presets::PRESETS.iter().map(|preset| view! {
                        <option value=preset.id selected=move || scenario.with(|s| s.preset == preset.id)>{preset.name}</option>
                    }).collect_view()}
                </select>
            </label>
            <p class="preset-story wide">{move || scenario.with(|s| presets::find(&s.preset).map(|preset| preset.story))}</p>
            {check("Fencing (the store checks tokens)", Signal::derive(move || scenario.with(|s| s.fencing)), |s, on| s.fencing = on)}
            {check("Watchdog renewal every ttl/3", Signal::derive(move || scenario.with(|s| s.renewal)), |s, on| s.renewal = on)}
            {check("Check the lease before each write", Signal::derive(move || scenario.with(|s| s.check_before_write)), |s, on| s.check_before_write = on)}
            {number("Lease TTL (ms)", "ttl", Signal::derive(move || scenario.with(|s| s.ttl_ms)), |s, ms| s.ttl_ms = ms)}
            <label class="field" for=field("pause")>
                <span>"Pause length (ms)"</span>
                <input id=field("pause") type="number" inputmode="numeric" min="0" data-testid=field("pause")
                    prop:value=move || scenario.with(Scenario::pause_ms_default).to_string()
                    disabled=move || !has_pause() aria-describedby=field("pause-hint") on:change=set_pause/>
                <span class="hint" id=field("pause-hint")>{move || if has_pause() {
                    "Every pause in the scenario, and a pause you add, lasts this long."
                } else {
                    "This scenario has no pause; one you add lasts this long."
                }}</span>
            </label>
            {number("Work before each write (ms)", "work", Signal::derive(move || scenario.with(|s| s.work_ms)), |s, ms| s.work_ms = ms)}
            {SETTINGS.iter().map(|setting| choice(scenario, problem, id, setting)).collect_view()}
            <label class="field" for=field("seed")>
                <span>"Seed"</span>
                <span class="seed-row">
                    <input id=field("seed") type="number" inputmode="numeric" min="0" prop:value=move || scenario.with(|s| s.seed.to_string()) on:change=set_seed/>
                    <button type="button" on:click=move |_| edit(scenario, problem, |s| s.seed = fresh_seed())>"New seed"</button>
                </span>
            </label>
        </fieldset>
        {move || problem.get().map(|message| view! { <p class="notice" role="alert" data-testid=format!("{id}-problem")>{message}</p> })}
    }
}

/// A setting chosen from a fixed list: its options' names, which one the
/// scenario has, and how to set another. One table, one select: no view
/// code per type of setting.
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

/// A labelled select for one setting.
fn choice(scenario: RwSignal<Scenario>, problem: RwSignal<Option<String>>, id: &'static str, setting: &'static Setting) -> impl IntoView {
    let input_id = format!("{id}-{}", setting.name);
    let label_for = input_id.clone();
    let current = move || scenario.with(|s| (setting.get)(s));
    view! {
        <label class="field" for=label_for>
            <span>{setting.label}</span>
            <select id=input_id on:change=move |ev| {
                if let Ok(index) = event_target_value(&ev).parse::<usize>() {
                    if index < (setting.options)().len() {
                        edit(scenario, problem, |s| (setting.set)(s, index));
                    }
                }
            }>
                {(setting.options)().into_iter().enumerate().map(|(index, text)| {
                    view! { <option value=index.to_string() selected=move || current() == index>{text}</option> }
                }).collect_view()}
            </select>
        </label>
    }
}

/// A fresh seed from the browser's randomness: the only place Fencing Lab
/// asks for entropy, and never inside the simulation.
pub fn fresh_seed() -> u64 {
    let mut bytes = [0u8; 8];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes) >> 11,
        Err(_) => 1,
    }
}
