//! Light, dark, or whatever the system says: a switch that sets `data-theme`
//! on the page and remembers the choice in this browser. `theme.js` applies
//! the saved choice (or an embed's `?theme=`) before the page paints.

use codee::string::FromToStringCodec;
use leptos::prelude::*;
use leptos_use_storage::use_local_storage;

pub const KEY: &str = "fencing-lab.theme";
const CHOICES: [(&str, &str); 3] = [("auto", "Follow the system"), ("light", "Light"), ("dark", "Dark")];

/// Sets the page's theme for this load (not remembered).
pub fn apply(choice: &str) {
    let Some(root) = document().document_element() else { return };
    let _ = match choice {
        "light" | "dark" => root.set_attribute("data-theme", choice),
        _ => root.remove_attribute("data-theme"),
    };
}

/// The theme on screen now (theme.js may have set it from the URL).
fn current() -> String {
    document().document_element().and_then(|root| root.get_attribute("data-theme")).unwrap_or_else(|| "auto".to_string())
}

#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let (_, save, _) = use_local_storage::<String, FromToStringCodec>(KEY);
    let choice = RwSignal::new(current());
    let pick = move |ev: leptos::ev::Event| {
        let picked = event_target_value(&ev);
        apply(&picked);
        save.set(picked.clone());
        choice.set(picked);
    };
    view! {
        <label class="theme">
            "Theme"
            <select on:change=pick>
                {CHOICES.iter().map(|(id, label)| view! {
                    <option value=*id selected=move || choice.get() == *id>{*label}</option>
                }).collect_view()}
            </select>
        </label>
    }
}
