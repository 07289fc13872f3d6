//! Export: the trace as JSON (the command line's format), the diagram as SVG,
//! and a link that reproduces the view.

use crate::browser;
use crate::pane::Pane;
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub fn ExportBar(pane: Memo<Pane>, id: &'static str) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let file_stem = move || pane.with(|pane| format!("fencing-lab-{}-seed-{}", pane.trace.scenario.preset, pane.trace.scenario.seed));
    let save_json = move |_| {
        let json = pane.with(|pane| pane.trace.to_json());
        let result = browser::download(&format!("{}.json", file_stem()), "application/json", &json);
        status.set(result.map_or_else(|error| format!("Could not save: {error}."), |()| "Trace saved as JSON.".to_string()));
    };
    let save_svg = move |_| {
        let selector = format!("[data-testid={id}-diagram]");
        let result = browser::outer_html(&selector)
            .ok_or_else(|| "no diagram on screen".to_string())
            .and_then(|svg| browser::download(&format!("{}.svg", file_stem()), "image/svg+xml", &with_namespace(&svg)));
        status.set(result.map_or_else(|error| format!("Could not save: {error}."), |()| "Diagram saved as SVG.".to_string()));
    };
    let copy_link = move |_| {
        spawn_local(async move {
            let copied = browser::copy(browser::href()).await;
            status.set(if copied { "Link copied: it reproduces exactly this view." } else { "Copying is not allowed here; copy the address bar instead." }.to_string());
        });
    };
    view! {
        <div class="export" role="group" aria-label="Share and export">
            <button type="button" on:click=copy_link data-testid=format!("{id}-copy-link")>"Copy link"</button>
            <button type="button" on:click=save_json>"Download trace (JSON)"</button>
            <button type="button" on:click=save_svg>"Download diagram (SVG)"</button>
            <span class="status" role="status">{move || status.get()}</span>
        </div>
    }
}

/// A standalone SVG file needs its namespace; inline SVG in HTML does not.
fn with_namespace(svg: &str) -> String {
    if svg.contains("xmlns=") {
        svg.to_string()
    } else {
        svg.replacen("<svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"", 1)
    }
}
