//! Should the page ever panic, show a box saying so — with the scenario and
//! seed that reproduce it — instead of a dead page.

use std::cell::RefCell;
use wasm_bindgen::JsCast;

thread_local! {
    static CURRENT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Remembers what is on screen, for the error box.
pub fn set_context(description: String) {
    CURRENT.with(|current| *current.borrow_mut() = description);
}

pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let context = CURRENT.with(|current| current.borrow().clone());
        show(&format!("{info}"), &context);
    }));
}

fn show(message: &str, context: &str) {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else { return };
    let Ok(element) = document.create_element("div") else { return };
    element.set_id("panic-box");
    element.set_class_name("panic-box");
    let _ = element.set_attribute("role", "alert");
    let details = if context.is_empty() { String::new() } else { format!(" Scenario: {context}.") };
    element.set_text_content(Some(&format!(
        "Fencing Lab hit a bug and stopped.{details} Reload the page to start again; the details below help us reproduce it. {message}"
    )));
    if let Some(body) = document.body() {
        let _ = body.unchecked_ref::<web_sys::Node>().append_child(&element);
    }
}
