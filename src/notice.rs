//! The notice for a link that could not be used in full: what was ignored
//! and why, in the core's words, with the defaults standing in.

use leptos::prelude::*;

pub fn notice_box(notices: Vec<String>) -> impl IntoView {
    (!notices.is_empty()).then(|| {
        view! {
            <div class="notice" role="status" data-testid="url-notice">
                <p>"Parts of this link could not be used, so defaults stand in:"</p>
                <ul>{notices.into_iter().map(|notice| view! { <li>{notice}</li> }).collect_view()}</ul>
            </div>
        }
    })
}
