//! Light, dark, or whatever the system says. The switch is plain markup;
//! `theme.js` (loaded before the page paints) applies the saved choice or an
//! embed's `?theme=`, and handles the switch: no WebAssembly needed for it,
//! and the same switch works on the lesson's static pages.

use leptos::prelude::*;

const CHOICES: [(&str, &str); 3] = [("auto", "Follow the system"), ("light", "Light"), ("dark", "Dark")];

/// The theme on screen now.
fn current() -> String {
    if !crate::shell::browser::IN_BROWSER {
        // Drawn at build time: `theme.js` selects the reader's choice.
        return "auto".to_string();
    }
    document().document_element().and_then(|root| root.get_attribute("data-theme")).unwrap_or_else(|| "auto".to_string())
}

#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let chosen = current();
    // Written once: the options never change while the page runs.
    let options = CHOICES.iter().map(|(id, label)| view! { <option value=*id selected=chosen == *id>{*label}</option> }).collect_view();
    view! {
        <label class="theme">
            "Theme"
            <select id="theme-choice">{options}</select>
        </label>
    }
}
