//! The notice for a link that could not be used in full: what was ignored
//! and why, in the core's words, with the defaults standing in.

use leptos::prelude::*;

pub fn notice_box(notices: Vec<String>) -> impl IntoView {
    (!notices.is_empty()).then(|| {
        // Markup, not a view per line: it is written once, when the page opens.
        let lines: String = notices.iter().map(|notice| format!("<li>{}</li>", crate::escape(notice))).collect();
        let html = format!("<p>Parts of this link could not be used, so defaults stand in:</p><ul>{lines}</ul>");
        view! { <div class="notice" role="status" data-testid="url-notice" inner_html=html></div> }
    })
}
