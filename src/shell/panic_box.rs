//! Should the page ever panic, show a box saying so — with the scenario and
//! seed that reproduce it, and a button that copies the details — instead of
//! a dead page.

use std::cell::RefCell;
use wasm_bindgen::prelude::*;
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

/// Puts the error box on the page (plain DOM calls: the app may be dead).
pub fn show(message: &str, context: &str) {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else { return };
    let Some(body) = document.body() else { return };
    let Ok(element) = document.create_element("div") else { return };
    element.set_id("panic-box");
    element.set_class_name("panic-box");
    let _ = element.set_attribute("role", "alert");
    let scenario = if context.is_empty() { String::new() } else { format!(" It happened with {context}.") };
    let details = format!("Fencing Lab bug report\nscenario: {context}\npage: {}\nerror: {message}", crate::shell::browser::href());
    let lines = [
        format!("Fencing Lab hit a bug and stopped.{scenario} Reload the page to start again."),
        "The details below let us reproduce it:".to_string(),
        details.clone(),
    ];
    for line in lines {
        if let Ok(paragraph) = document.create_element("p") {
            paragraph.set_text_content(Some(&line));
            let _ = element.append_child(&paragraph);
        }
    }
    if let Ok(button) = document.create_element("button") {
        button.set_text_content(Some("Copy details"));
        let _ = button.set_attribute("type", "button");
        let copy = Closure::<dyn FnMut()>::new(move || crate::shell::browser::copy_then(details.clone(), Box::new(|_| ())));
        button.unchecked_ref::<web_sys::HtmlElement>().set_onclick(Some(copy.as_ref().unchecked_ref()));
        // The box stays until the page reloads; so does its button's handler.
        copy.forget();
        let _ = element.append_child(&button);
    }
    let _ = body.append_child(&element);
}
