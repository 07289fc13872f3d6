//! The reference implementation in five languages: a lock client with a
//! fencing token and the store's check. The files are the ones the test
//! command compiles and runs, so the page can never show code that does not
//! build. The chosen language is remembered in this browser.

use crate::{browser, storage};
use leptos::prelude::*;
use leptos::task::spawn_local;

const KEY: &str = "fencing-lab.code-language";

struct Listing {
    id: &'static str,
    name: &'static str,
    file: &'static str,
    mime: &'static str,
    source: &'static str,
}

const LISTINGS: [Listing; 5] = [
    Listing { id: "rust", name: "Rust", file: "fencing.rs", mime: "text/x-rust", source: include_str!("../lesson/code/fencing.rs") },
    Listing { id: "python", name: "Python", file: "fencing.py", mime: "text/x-python", source: include_str!("../lesson/code/fencing.py") },
    Listing { id: "go", name: "Go", file: "fencing.go", mime: "text/x-go", source: include_str!("../lesson/code/fencing.go") },
    Listing {
        id: "typescript",
        name: "TypeScript",
        file: "fencing.ts",
        mime: "text/typescript",
        source: include_str!("../lesson/code/fencing.ts"),
    },
    Listing { id: "java", name: "Java", file: "Fencing.java", mime: "text/x-java", source: include_str!("../lesson/code/Fencing.java") },
];

#[component]
pub fn CodePanel() -> impl IntoView {
    let saved = storage::get(KEY).and_then(|id| LISTINGS.iter().position(|listing| listing.id == id)).unwrap_or(0);
    let chosen = RwSignal::new(saved);
    let status = RwSignal::new(String::new());
    Effect::new(move |_| storage::set(KEY, LISTINGS[chosen.get()].id));
    let listing = move || &LISTINGS[chosen.get()];
    let copy = move |_| {
        let source = listing().source.to_string();
        spawn_local(async move {
            let copied = browser::copy(source).await;
            status.set(if copied { "Code copied." } else { "Copying is not allowed here: select the code and copy it." }.to_string());
        });
    };
    let download = move |_| {
        let listing = listing();
        let result = browser::download(listing.file, listing.mime, listing.source);
        status.set(result.map_or_else(|error| format!("Could not save: {error}."), |()| format!("Saved {}.", listing.file)));
    };
    view! {
        <section id="code" class="code-panel card" aria-labelledby="code-title">
            <h2 id="code-title">"Code: a lock client with a fencing token, and the store's check"</h2>
            <p>"The same small program in five languages. Each one runs the GC-pause story against an in-memory lock service and prints that A's write is rejected; the test suite compiles and runs all five."</p>
            <div class="code-tabs" role="group" aria-label="Language">
                {LISTINGS.iter().enumerate().map(|(index, listing)| view! {
                    <button type="button" aria-pressed=move || (chosen.get() == index).to_string() on:click=move |_| chosen.set(index)
                        data-testid=format!("code-{}", listing.id)>{listing.name}</button>
                }).collect_view()}
            </div>
            <div class="code-actions">
                <button type="button" on:click=copy data-testid="code-copy">"Copy"</button>
                <button type="button" on:click=download>{move || format!("Download {}", listing().file)}</button>
                <span role="status">{move || status.get()}</span>
            </div>
            <pre class="code" tabindex="0" aria-label=move || format!("{} source", listing().name) data-testid="code-source"><code>{move || listing().source}</code></pre>
        </section>
    }
}
