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
        view! {
            <div class="notice story-notice" role="status" data-testid="story-notice">
                <p><span aria-hidden="true">"⚠ "</span>{notice}</p>
            </div>
        }
    });
    let unused = (!unused.is_empty()).then(|| {
        let lines = unused.into_iter().map(|notice| view! { <li>{notice}</li> }).collect_view();
        view! {
            <div class="notice" role="status" data-testid="url-notice">
                <p>"Parts of this link could not be used, so defaults stand in:"</p>
                <ul>{lines}</ul>
            </div>
        }
    });
    (changed.collect_view(), unused)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn a_changed_story_and_unused_parts_are_two_notices() {
        let changed = format!("{} since <this> link was made", fencing_sim::permalink::story::CHANGED);
        let html = Owner::new().with(|| notice_box(vec!["ttl=ten: not a number".to_string(), changed]).to_html());
        assert!(html.contains(r#"data-testid="story-notice" class="notice story-notice"><p><span aria-hidden="true">⚠ </span>"#), "{html}");
        assert!(html.contains("&lt;this&gt;"), "the words are text: {html}");
        assert!(
            html.contains("<p>Parts of this link could not be used, so defaults stand in:</p><ul><li>ttl=ten: not a number</li>"),
            "{html}"
        );
    }
}
