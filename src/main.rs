use fencing_lab_web::{every_view, panic_box, App};

fn main() {
    panic_box::install();
    let document = leptos::prelude::document();
    // The static page shows a loading note until the app replaces it.
    if let Some(loading) = document.get_element_by_id("loading") {
        loading.remove();
    }
    leptos::mount::mount_to_body(|| leptos::prelude::view! { <App views=every_view has=|_| true/> });
    // The bench script reads this mark: navigation start to a mounted page.
    if let Some(performance) = web_sys::window().and_then(|window| window.performance()) {
        let _ = performance.mark("fencing-lab-mounted");
    }
}
