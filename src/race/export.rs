//! Export: the trace as JSON (the command line's format), the diagram as SVG,
//! and a link that reproduces the view. The JSON is written by the full
//! entry point, loaded on request (`window.fencingLab.traceJson`, set by
//! boot.js), so the race's first load carries no serialiser.

use crate::race::pane::Pane;
use crate::shell::browser;
use fencing_sim::permalink::{to_query, Permalink};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub fn ExportBar(pane: Memo<Pane>, id: &'static str) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let file_stem = move || pane.with(|pane| format!("fencing-lab-{}-seed-{}", pane.trace.scenario.preset, pane.trace.scenario.seed));
    let save_json = move |_| {
        let query = pane.with(|pane| to_query(&Permalink { scenario: pane.trace.scenario.clone(), cursor: None, compare: None }));
        let name = format!("{}.json", file_stem());
        status.set("Writing the trace…".to_string());
        spawn_local(async move {
            let result = browser::trace_json(&query).await.and_then(|json| browser::download(&name, "application/json", &json));
            status.set(result.map_or_else(|error| format!("Could not save: {error}."), |()| "Trace saved as JSON.".to_string()));
        });
    };
    let save_svg = move |_| {
        let selector = format!("[data-testid={id}-diagram]");
        let result = browser::outer_html(&selector)
            .ok_or_else(|| "no diagram on screen".to_string())
            .and_then(|svg| browser::download(&format!("{}.svg", file_stem()), "image/svg+xml", &with_namespace(&svg)));
        status.set(result.map_or_else(|error| format!("Could not save: {error}."), |()| "Diagram saved as SVG.".to_string()));
    };
    let copy_link = move |_| {
        browser::copy_then(
            browser::href(),
            Box::new(move |copied| {
                status.set(
                    if copied {
                        "Link copied: it reproduces exactly this view."
                    } else {
                        "Copying is not allowed here; copy the address bar instead."
                    }
                    .to_string(),
                )
            }),
        );
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

/// The page's stylesheet does not travel with a downloaded SVG: these rules
/// (light colours) make the file readable on its own.
const SVG_STYLE: &str = "<style>text{font-family:sans-serif;font-size:12px;fill:#1b1f24}\
.lane-line{stroke:#d5dae1;stroke-width:2;stroke-dasharray:4 4}.time{font-family:monospace;fill:#4f5863}.break{fill:#f6f7f9}\
.break-text{fill:#4f5863;font-style:italic}.arrow line{stroke:#4f5863;stroke-width:1.4}.head-plain{fill:#4f5863}\
.head-bad{fill:#a4161a}.head-good{fill:#116b36}.head-accent{fill:#1f5fbf}.label{paint-order:stroke;stroke:#fff;stroke-width:3px}\
.write-zombie line{stroke:#a4161a;stroke-width:2.4;stroke-dasharray:6 3}.write-zombie text{fill:#a4161a;font-weight:700}\
.write-rejected line{stroke:#116b36;stroke-width:2.4}.write-rejected text{fill:#116b36;font-weight:700}\
.write-accepted line{stroke:#1f5fbf;stroke-width:2}.marker circle{fill:#fff;stroke:#4f5863}.zombie circle{stroke:#a4161a}\
.rejected circle{stroke:#116b36}.words{paint-order:stroke;stroke:#fff;stroke-width:3px}.zombie .words{fill:#a4161a;font-weight:700}\
.rejected .words{fill:#116b36;font-weight:700}.span-lease{fill:#116b36}.span-belief{fill:#1f5fbf;opacity:.5}\
.span-zombie{fill:#a4161a}.hatch-bg{fill:#ece7fa}.hatch-line{stroke:#5b3fa6;stroke-width:2}\
.cursor-line{stroke:#c2410c;stroke-width:2;stroke-dasharray:6 3}</style>";

/// A standalone SVG file needs its namespace and its styles; inline SVG in
/// HTML has both from the page.
fn with_namespace(svg: &str) -> String {
    let Some(open_end) = svg.find('>') else { return svg.to_string() };
    let (open, rest) = svg.split_at(open_end + 1);
    let open =
        if open.contains("xmlns=") { open.to_string() } else { open.replacen("<svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"", 1) };
    format!("{open}{SVG_STYLE}{rest}")
}
