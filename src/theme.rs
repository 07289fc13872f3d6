//! Light, dark, or whatever the system says: a switch that sets
//! `data-theme` on the page and remembers the choice in this browser.

use leptos::prelude::*;

const KEY: &str = "fencing-lab.theme";
const CHOICES: [(&str, &str); 3] = [("auto", "Follow the system"), ("light", "Light"), ("dark", "Dark")];

fn apply(choice: &str) {
    let Some(root) = web_sys::window().and_then(|window| window.document()).and_then(|document| document.document_element()) else {
        return;
    };
    let _ = match choice {
        "light" | "dark" => root.set_attribute("data-theme", choice),
        _ => root.remove_attribute("data-theme"),
    };
}

#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let saved = crate::storage::get(KEY).unwrap_or_else(|| "auto".to_string());
    let choice = RwSignal::new(if CHOICES.iter().any(|(id, _)| *id == saved) { saved } else { "auto".to_string() });
    Effect::new(move |_| {
        let current = choice.get();
        apply(&current);
        crate::storage::set(KEY, &current);
    });
    view! {
        <label class="theme">
            "Theme"
            <select on:change=move |ev| choice.set(event_target_value(&ev))>
                {CHOICES.iter().map(|(id, label)| view! {
                    <option value=*id selected=move || choice.get() == *id>{*label}</option>
                }).collect_view()}
            </select>
        </label>
    }
}
