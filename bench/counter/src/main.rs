//! A counter: the smallest Leptos page, marked when mounted like the lab.

use leptos::prelude::*;

#[component]
fn Counter() -> impl IntoView {
    let (count, set_count) = signal(0);
    view! {
        <button on:click=move |_| set_count.update(|count| *count += 1)>"Clicked " {count} " times"</button>
    }
}

fn main() {
    leptos::mount::mount_to_body(Counter);
    if let Some(performance) = web_sys::window().and_then(|window| window.performance()) {
        let _ = performance.mark("fencing-lab-mounted");
    }
}
