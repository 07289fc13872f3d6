//! The notice for a link that could not be used in full: what was ignored
//! and why, in the core's words, with the defaults standing in; and the
//! notice for a link whose run has changed since it was made.

use leptos::prelude::*;

pub fn notice_box(notices: Vec<String>) -> impl IntoView {
    // A link whose run has changed since it was made says so on its own:
    // its settings were all used, the story is what differs.
    let (changed, unused): (Vec<String>, Vec<String>) =
        notices.into_iter().partition(|notice| notice.starts_with(fencing_sim::permalink::story::CHANGED));
    let changed = changed.into_iter().map(|notice| {
        let html = format!("<p><span aria-hidden=\"true\">⚠ </span>{}</p>", crate::escape(&notice));
        view! { <div class="notice story-notice" role="status" data-testid="story-notice" inner_html=html></div> }
    });
    let unused = (!unused.is_empty()).then(|| {
        // Markup, not a view per line: it is written once, when the page opens.
        let lines: String = unused.iter().map(|notice| format!("<li>{}</li>", crate::escape(notice))).collect();
        let html = format!("<p>Parts of this link could not be used, so defaults stand in:</p><ul>{lines}</ul>");
        view! { <div class="notice" role="status" data-testid="url-notice" inner_html=html></div> }
    });
    (changed.collect_view(), unused)
}
