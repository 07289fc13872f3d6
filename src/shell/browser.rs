//! The few places the page touches the browser: the URL, downloads and the
//! clipboard. Each fails quietly (with a message where one helps) rather
//! than breaking the page: an iframe may forbid any of them.

use std::cell::RefCell;
use wasm_bindgen::JsCast;

/// Whether the page runs in a browser. Natively (the site's build, which
/// writes each view's first screen into the served HTML: `prerender.rs`)
/// there is no browser: the views are drawn once, their listeners never
/// registered, and the URL is the one being drawn.
pub const IN_BROWSER: bool = cfg!(target_arch = "wasm32");

thread_local! {
    /// The query a first screen is drawn for, when there is no browser.
    static DRAWN_QUERY: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Names the query the views are drawn for natively (`prerender.rs`).
pub fn draw_for(query: &str) {
    DRAWN_QUERY.with(|drawn| *drawn.borrow_mut() = query.to_string());
}

/// The query string of the page's URL, without the '?'.
pub fn query() -> String {
    if !IN_BROWSER {
        return DRAWN_QUERY.with(|drawn| drawn.borrow().clone());
    }
    web_sys::window()
        .and_then(|window| window.location().search().ok())
        .map(|search| search.trim_start_matches('?').to_string())
        .unwrap_or_default()
}

/// Replaces the URL's query without adding a history entry.
pub fn replace_query(query: &str) {
    let Some(window) = web_sys::window() else { return };
    let path = window.location().pathname().unwrap_or_default();
    let url = if query.is_empty() { path } else { format!("{path}?{query}") };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// Leaves for another page of the site without a history entry.
pub fn replace_location(url: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.location().replace(url);
    }
}

/// Loads the current URL afresh (another entry point draws it).
pub fn reload() {
    if let Some(window) = web_sys::window() {
        let _ = window.location().reload();
    }
}

/// The full URL of the page as it stands (what "Copy link" copies).
pub fn href() -> String {
    if !IN_BROWSER {
        return String::new();
    }
    web_sys::window().and_then(|window| window.location().href().ok()).unwrap_or_default()
}

/// Offers `text` as a file download.
pub fn download(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    save(filename, mime, &js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text)), false)
}

/// Offers `bytes` as a file download (a zip, say).
pub fn download_bytes(filename: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    save(filename, mime, &js_sys::Array::of1(&js_sys::Uint8Array::from(bytes)), true)
}

/// A Blob of `parts` (strings or byte arrays: the constructor takes both),
/// saved through a link. A large file's address is kept a minute, so the
/// browser has read it before it is revoked.
fn save(filename: &str, mime: &str, parts: &js_sys::Array, large: bool) -> Result<(), String> {
    let document = web_sys::window().and_then(|window| window.document()).ok_or("no document")?;
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(parts, &options).map_err(|_| "the browser refused the file")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "the browser refused the file")?;
    let anchor: web_sys::HtmlAnchorElement = document.create_element("a").map_err(|_| "no anchor")?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    if large {
        leptos::prelude::set_timeout(move || drop(web_sys::Url::revoke_object_url(&url)), std::time::Duration::from_secs(60));
    } else {
        let _ = web_sys::Url::revoke_object_url(&url);
    }
    Ok(())
}

/// The bytes of one of the site's own files (same origin: the page's CSP
/// allows nothing else), or why not.
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url)).await.map_err(|_| "the request failed")?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| "no response")?;
    if !response.ok() {
        return Err(format!("the server answered {}", response.status()));
    }
    let body = response.array_buffer().map_err(|_| "no body")?;
    let buffer = wasm_bindgen_futures::JsFuture::from(body).await.map_err(|_| "the body could not be read")?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The trace of the scenario in `query`, as the command line's JSON: asks
/// the full entry point, which boot.js loads on the first request.
pub async fn trace_json(query: &str) -> Result<String, String> {
    let window = web_sys::window().ok_or("no window")?;
    let lab = js_sys::Reflect::get(&window, &"fencingLab".into()).map_err(|_| "the page's loader is missing")?;
    let function: js_sys::Function = js_sys::Reflect::get(&lab, &"traceJson".into())
        .ok()
        .and_then(|value| value.dyn_into().ok())
        .ok_or("the page's loader is missing")?;
    let promise: js_sys::Promise = function.call1(&lab, &query.into()).ok().and_then(|value| value.dyn_into().ok()).ok_or("no trace")?;
    let json = wasm_bindgen_futures::JsFuture::from(promise).await.map_err(|_| "the trace could not be written")?;
    json.as_string().ok_or_else(|| "the trace could not be written".to_string())
}

/// Copies text to the clipboard; resolves to whether it worked.
pub async fn copy(text: String) -> bool {
    let Some(window) = web_sys::window() else { return false };
    let promise = window.navigator().clipboard().write_text(&text);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}

/// Copies text to the clipboard, then tells `then` whether it worked. One
/// type-erased continuation, so every copy button shares one future's code
/// (the race's first load is measured in bytes).
pub fn copy_then(text: String, then: Box<dyn FnOnce(bool)>) {
    wasm_bindgen_futures::spawn_local(async move { then(copy(text).await) });
}

/// The markup of the first element matching `selector`, e.g. a diagram.
pub fn outer_html(selector: &str) -> Option<String> {
    let document = web_sys::window()?.document()?;
    Some(document.query_selector(selector).ok()??.outer_html())
}

/// Scrolls the page just enough to show the element matching `selector`
/// (Play keeps the action in view), unless it is already on screen.
pub fn bring_into_view(selector: &str) {
    let Some(window) = web_sys::window() else { return };
    let Some(element) = window.document().and_then(|document| document.query_selector(selector).ok().flatten()) else { return };
    let rect = element.get_bounding_client_rect();
    let height = window.inner_height().ok().and_then(|height| height.as_f64()).unwrap_or(0.0);
    // Enough of it shows already: the top and a good part below it.
    if rect.top() >= 0.0 && rect.top() + rect.height().min(240.0) <= height {
        return;
    }
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
    element.scroll_into_view_with_scroll_into_view_options(&options);
}

/// Once the page has drawn the cursor's move, scrolls the element matching
/// `selector` to the middle of the screen unless it shows already between
/// `top_px` (what a sticky box above it covers) and the bottom (the guided
/// tour's Next: its sentence and the row it names are both on screen).
pub fn centre_soon(selector: &'static str, top_px: f64) {
    leptos::prelude::request_animation_frame(move || {
        let Some(window) = web_sys::window() else { return };
        let Some(element) = window.document().and_then(|document| document.query_selector(selector).ok().flatten()) else { return };
        let rect = element.get_bounding_client_rect();
        let height = window.inner_height().ok().and_then(|height| height.as_f64()).unwrap_or(0.0);
        if rect.top() >= top_px && rect.bottom() <= height {
            return;
        }
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Center);
        element.scroll_into_view_with_scroll_into_view_options(&options);
    });
}

/// The height of the first element matching `selector`, if it is on the page.
pub fn element_height(selector: &str) -> Option<f64> {
    let document = web_sys::window()?.document()?;
    Some(document.query_selector(selector).ok()??.get_bounding_client_rect().height())
}

/// Calls `measure` with the element once it is laid out, and again after
/// the window or the page's layout changes size (projector mode, a pane
/// folding): the pictures that lay themselves out for their box.
pub fn after_layout(host: leptos::prelude::NodeRef<leptos::html::Div>, measure: impl Fn(&web_sys::Element) + Copy + 'static) {
    use leptos::prelude::*;
    let relaid = layout_changes();
    let resized = window_events("resize");
    Effect::new(move |_| {
        relaid.track();
        resized.track();
        request_animation_frame(move || {
            if let Some(element) = host.try_get_untracked().flatten() {
                measure(&element);
            }
        });
    });
}

/// The text size an element has, in whole pixels ("16px" → 16).
pub fn font_px(element: &web_sys::Element) -> Option<i32> {
    let style = web_sys::window()?.get_computed_style(element).ok()??;
    let size = style.get_property_value("font-size").ok()?;
    let px: f64 = size.trim_end_matches("px").parse().ok()?;
    Some(px.round() as i32)
}

/// Moves focus to an element once the page has drawn it (keyboard and
/// screen-reader users land on what just appeared).
pub fn focus_soon(element: impl FnOnce() -> Option<web_sys::HtmlElement> + 'static) {
    leptos::prelude::request_animation_frame(move || {
        if let Some(element) = element() {
            let _ = element.focus();
        }
    });
}

/// A media query's listener, removed by `remove`.
pub struct MediaListener(Option<(web_sys::MediaQueryList, wasm_bindgen::closure::Closure<dyn FnMut()>)>);

impl MediaListener {
    pub fn remove(&self) {
        if let Some((query, _closure)) = &self.0 {
            query.set_onchange(None);
        }
    }
}

/// Calls `changed` with whether `media` matches now, and again at each
/// change, until the listener is removed.
pub fn on_media_change(media: &str, changed: impl Fn(bool) + 'static) -> MediaListener {
    if !IN_BROWSER {
        return MediaListener(None);
    }
    let Some(query) = web_sys::window().and_then(|window| window.match_media(media).ok().flatten()) else { return MediaListener(None) };
    changed(query.matches());
    let watched = query.clone();
    let closure = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || changed(watched.matches()));
    query.set_onchange(Some(wasm_bindgen::JsCast::unchecked_ref(closure.as_ref())));
    MediaListener(Some((query, closure)))
}

/// The event `static/theme.js` sends after it changes the layout (projector
/// mode on or off, its detailed view): sizes changed, so whatever keeps a
/// cursor in view looks again.
pub const LAYOUT_EVENT: &str = "fencing-lab-layout";

/// A count of those layout changes, for an effect to track.
pub fn layout_changes() -> leptos::prelude::ReadSignal<u32> {
    window_events(LAYOUT_EVENT)
}

/// A count of the window's `event`s (`"resize"`, `LAYOUT_EVENT`), for an
/// effect to track; the listener goes with the component that asked.
pub fn window_events(event: &str) -> leptos::prelude::ReadSignal<u32> {
    use leptos::prelude::*;
    let (count, set_count) = signal(0u32);
    if IN_BROWSER {
        let handle = window_event_listener_untyped(event, move |_| set_count.update(|count| *count = count.wrapping_add(1)));
        on_cleanup(move || handle.remove());
    }
    count
}

/// Calls `handler` at each of the window's `event`s while the component
/// that asked is on the page (a key anywhere on the page, printing).
pub fn while_mounted<E>(event: E, handler: impl Fn(E::EventType) + 'static)
where
    E: leptos::ev::EventDescriptor + 'static,
    E::EventType: JsCast,
{
    if IN_BROWSER {
        let handle = leptos::prelude::window_event_listener(event, handler);
        leptos::prelude::on_cleanup(move || handle.remove());
    }
}

/// The text this browser keeps under `key` (a quiz's progress, a set being
/// built), and its setter. Natively (a first screen) nothing is kept yet.
pub fn local_storage(key: &'static str) -> (leptos::prelude::Signal<String>, leptos::prelude::WriteSignal<String>) {
    use leptos::prelude::*;
    if !IN_BROWSER {
        let (saved, save) = signal(String::new());
        return (saved.into(), save);
    }
    let (saved, save, _) = leptos_use_storage::use_local_storage::<String, codee::string::FromToStringCodec>(key);
    (saved, save)
}

/// `elementtiming="story"` on the element that first shows the story (the
/// verdict, a question's prompt): the bench reads when it is first painted,
/// a first screen's or the app's. An attribute `view!` has no name for.
pub fn story_timing() -> impl leptos::attr::Attribute {
    leptos::tachys::html::attribute::custom::custom_attribute("elementtiming", "story")
}

/// The page's performance timeline (none natively).
pub fn performance() -> Option<web_sys::Performance> {
    if !IN_BROWSER {
        return None;
    }
    web_sys::window().and_then(|window| window.performance())
}

/// Milliseconds on the page's monotonic clock (for durations; 0 natively).
pub fn now_ms() -> f64 {
    performance().map_or(0.0, |performance| performance.now())
}

/// A selector for the element that has focus inside `within` (by its id,
/// test id or link), to give focus to its twin once `within` is replaced.
pub fn focused_within(within: &web_sys::Element) -> Option<String> {
    let active = web_sys::window()?.document()?.active_element()?;
    if !within.contains(Some(&active)) {
        return None;
    }
    let attribute = ["id", "data-testid", "href"].into_iter().find(|name| active.has_attribute(name))?;
    let value = active.get_attribute(attribute)?.replace('\\', "\\\\").replace('"', "\\\"");
    Some(format!("{}[{attribute}=\"{value}\"]", active.tag_name().to_lowercase()))
}

/// Gives focus to the element matching `selector`, if there is one.
pub fn focus_now(selector: &str) {
    let element =
        web_sys::window().and_then(|window| window.document()).and_then(|document| document.query_selector(selector).ok().flatten());
    if let Some(element) = element.and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = element.focus();
    }
}
