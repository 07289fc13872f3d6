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
            {choice(field("lock"), "Lock service", &LockService::ALL, LockService::label, move || scenario.with(|s| s.lock_service),
                move |service| edit(scenario, problem, |s| s.lock_service = service))}
            {choice(field("token-source"), "Where the token comes from (Redis)", &TokenSource::ALL, TokenSource::label,
                move || scenario.with(|s| s.token_source), move |source| edit(scenario, problem, |s| s.token_source = source))}
            {choice(field("persistence"), "Redis persistence", &RedisPersistence::ALL, RedisPersistence::label,
                move || scenario.with(|s| s.redis_persistence), move |persistence| edit(scenario, problem, |s| s.redis_persistence = persistence))}
            {choice(field("store"), "Store", &StoreKind::ALL, StoreKind::label, move || scenario.with(|s| s.store),
                move |store| edit(scenario, problem, |s| s.store = store))}
            {choice(field("release"), "Release", &Release::ALL, Release::label, move || scenario.with(|s| s.release),
                move |release| edit(scenario, problem, |s| s.release = release))}
            {choice(field("workers"), "Workers", &[2u8, 3, 4, 5], |_| "", move || scenario.with(|s| s.workers),
                move |workers| edit(scenario, problem, |s| s.workers = workers))}
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

/// A labelled select over a fixed list of values.
fn choice<T: Copy + PartialEq + std::fmt::Debug + Send + Sync + 'static>(
    input_id: String,
    label: &'static str,
    options: &'static [T],
    name: fn(T) -> &'static str,
    current: impl Fn() -> T + Copy + Send + Sync + 'static,
    pick: impl Fn(T) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let label_for = input_id.clone();
    view! {
        <label class="field" for=label_for>
            <span>{label}</span>
            <select id=input_id on:change=move |ev| {
                if let Some(value) = event_target_value(&ev).parse::<usize>().ok().and_then(|index| options.get(index)) {
                    pick(*value);
                }
            }>
                {options.iter().enumerate().map(|(index, option)| {
                    let option = *option;
                    let text = if name(option).is_empty() { format!("{option:?}") } else { name(option).to_string() };
                    view! { <option value=index.to_string() selected=move || current() == option>{text}</option> }
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
