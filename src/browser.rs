//! The few places the page touches the browser: the URL, downloads and the
//! clipboard. Each fails quietly (with a message where one helps) rather
//! than breaking the page: an iframe may forbid any of them.

use wasm_bindgen::JsCast;

/// The query string of the page's URL, without the '?'.
pub fn query() -> String {
    web_sys::window()
        .and_then(|window| window.location().search().ok())
        .map(|search| search.trim_start_matches('?').to_string())
        .unwrap_or_default()
}

/// Replaces the URL's query without adding a history entry.
pub fn set_query(query: &str) {
    let Some(window) = web_sys::window() else { return };
    let path = window.location().pathname().unwrap_or_default();
    let url = if query.is_empty() { path } else { format!("{path}?{query}") };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The full URL of the page as it stands (what "Copy link" copies).
pub fn href() -> String {
    web_sys::window().and_then(|window| window.location().href().ok()).unwrap_or_default()
}

/// Offers `text` as a file download.
pub fn download(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    let document = web_sys::window().and_then(|window| window.document()).ok_or("no document")?;
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|_| "the browser refused the file")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "the browser refused the file")?;
    let anchor: web_sys::HtmlAnchorElement = document.create_element("a").map_err(|_| "no anchor")?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Copies text to the clipboard; resolves to whether it worked.
pub async fn copy(text: String) -> bool {
    let Some(window) = web_sys::window() else { return false };
    let promise = window.navigator().clipboard().write_text(&text);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}

/// The markup of the first element matching `selector`, e.g. a diagram.
pub fn outer_html(selector: &str) -> Option<String> {
    let document = web_sys::window()?.document()?;
    Some(document.query_selector(selector).ok()??.outer_html())
}

/// Whether the learner asked the system for less motion.
pub fn prefers_reduced_motion() -> bool {
    web_sys::window()
        .and_then(|window| window.match_media("(prefers-reduced-motion: reduce)").ok().flatten())
        .is_some_and(|query| query.matches())
}

/// Whether the page has room for the controls beside the pictures.
pub fn wide_screen() -> bool {
    web_sys::window().and_then(|window| window.match_media("(min-width: 48rem)").ok().flatten()).is_some_and(|query| query.matches())
}
