//! Embedding: a widget alone on the page for an iframe, the height it
//! reports to the course page, and the "Embed" button that writes the
//! snippet for exactly what is on screen.

use crate::shell::mount::{Mount, Views};
use crate::shell::route::{join, without_key, View};
use crate::shell::{browser, notice};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The message the resize helper listens for.
pub const HEIGHT_MESSAGE: &str = "fencing-lab:height";
/// The resize helper, shipped next to the page.
pub const HELPER_FILE: &str = "fencing-lab-embed.js";

/// One widget alone, for an iframe in course material: minimal chrome, the
/// height reported to the page around it, and a way out to the full lab.
#[component]
pub fn Embedded(view: View, cursor: Option<u32>, notices: Vec<String>, views: Views) -> impl IntoView {
    if browser::IN_BROWSER {
        report_height();
    }
    let query = without_key(&without_key(&browser::query(), "embed"), "theme");
    let full = format!("{}?{query}", base_url());
    view! {
        <div class="embed-bar">
            <h1 class="embed-title">"Fencing Lab"</h1>
            <a href=full target="_blank" rel="noopener">"Open in Fencing Lab ↗"</a>
        </div>
        <main id="main">{notice::notice_box(notices)} {views(view, Mount { cursor, embedded: true, first: true })}</main>
    }
}

/// Reports the page's height to the embedding page whenever it changes.
fn report_height() {
    let Some(body) = document().body() else { return };
    let post = move || {
        let Some(window) = web_sys::window() else { return };
        // The body's own height, not the document's scroll height: that is
        // never less than the frame, so a frame could grow but never shrink.
        let height = document().body().map_or(0, |body| body.offset_height());
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &HEIGHT_MESSAGE.into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &JsValue::from(height));
        if let Ok(Some(parent)) = window.parent() {
            let _ = parent.post_message(&message, "*");
        }
    };
    let callback = Closure::<dyn FnMut()>::new(post);
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    // The observer lives as long as the page.
    callback.forget();
}

/// The page's address without its query, e.g. "https://host/lab/".
pub fn base_url() -> String {
    browser::href().split(['?', '#']).next().unwrap_or_default().to_string()
}

/// The `<iframe>` and helper-script snippet for a widget at `base`.
pub fn snippet(base: &str, widget: &str, query: &str, theme: &str, title: &str, height_px: u32) -> String {
    let mut own = form_urlencoded::Serializer::new(String::new());
    own.append_pair("embed", widget);
    if theme != "auto" {
        own.append_pair("theme", theme);
    }
    let src = format!("{base}?{}", join(query, &own.finish()));
    let folder = base.rsplit_once('/').map_or(base, |(folder, _)| folder);
    format!(
        "<iframe src=\"{src}\" title=\"Fencing Lab: {title}\" width=\"100%\" height=\"{height_px}\" style=\"border:0;max-width:100%\" loading=\"lazy\"></iframe>\n<script src=\"{folder}/{HELPER_FILE}\" async></script>"
    )
}

/// The "Embed" button: the snippet for what is on screen, a copy button and
/// a live preview, written when the panel opens. Choosing a theme changes
/// the snippet and the preview in place: the list keeps its focus.
#[component]
pub fn EmbedButton(
    /// Which widget: race, compare, quiz or sweep.
    widget: &'static str,
    title: &'static str,
    /// The widget's own query (scenario, cursor, question).
    query: Signal<String>,
    height_px: u32,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    let theme = RwSignal::new("auto".to_string());
    let code = move || snippet(&base_url(), widget, &query.get(), &theme.get(), title, height_px);
    let copy = move |_| {
        browser::copy_then(
            code(),
            Box::new(move |copied| {
                status.set(if copied { "Snippet copied." } else { "Copying is not allowed here: select the text and copy it." }.to_string())
            }),
        );
    };
    let form = move || {
        open.get().then(|| {
            let options = [("auto", "The reader's system setting"), ("light", "Light"), ("dark", "Dark")]
                .map(|(value, label)| view! { <option value=value selected=move || theme.with(|theme| theme == value)>{label}</option> });
            view! {
                <label class="field">
                    <span>"Theme inside the frame"</span>
                    <select id=format!("embed-{widget}-theme") on:change=move |ev| theme.set(event_target_value(&ev))>{options}</select>
                </label>
                <label class="field">
                    <span>"Paste this into your course page"</span>
                    <textarea readonly rows="4" data-testid=format!("embed-{widget}-code") prop:value=code>{code}</textarea>
                </label>
                <div class="embed-actions">
                    <button type="button" data-action="copy" on:click=copy>"Copy snippet"</button>
                </div>
            }
        })
    };
    let preview = move || {
        open.get().then(|| {
            let src = move || format!("{}?{}", base_url(), join(&query.get(), &format!("embed={widget}&theme={}", theme.get())));
            view! {
                <p class="hint">"The script is optional: with it the frame grows to fit; without it, it keeps the height above and scrolls."</p>
                <iframe class="embed-preview" title=format!("Preview of the embedded {title}") src=src></iframe>
            }
        })
    };
    view! {
        <div class="embed">
            <button type="button" aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|open| *open = !*open)
                data-testid=format!("embed-{widget}")>"Embed"</button>
            <div class="embed-panel" hidden=move || !open.get()>
                <div class="embed-part">{form}</div>
                <span role="status">{move || status.get()}</span>
                <div class="embed-part">{preview}</div>
            </div>
        </div>
    }
}
