//! The store as it stands at the cursor, as the core reports it: what it
//! holds, the highest token it has accepted, the before/after of a stale
//! overwrite (the corruption itself), and its write log in the core's words.

use crate::escape;
use crate::race::glyphs;
use crate::race::pane::Pane;
use fencing_sim::format_us;
use fencing_sim::store::Datum;
use leptos::prelude::*;
use std::fmt::Write;

/// The store panel of one run, as of event `upto`.
#[component]
pub fn StorePanel(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let html = Memo::new(move |_| pane.with(|pane| markup(pane, upto.get(), id)));
    view! {
        <section class="store-panel" aria-labelledby=format!("{id}-store-title")>
            <h3 id=format!("{id}-store-title")>"Store"{run_name(id).map(|name| view! { <span class="sr-only">{name}</span> })}</h3>
            <div inner_html=html></div>
        </section>
    }
}

/// Side by side's two stores say which run each belongs to (for a screen
/// reader: landmarks must differ).
fn run_name(id: &str) -> Option<&'static str> {
    match id {
        "left" => Some(" of the left-hand run"),
        "right" => Some(" of the right-hand run"),
        _ => None,
    }
}

/// What the store holds, its highest token, the before/after and the log.
pub fn markup(pane: &Pane, upto: Option<u32>, id: &str) -> String {
    let state = upto.map(|index| pane.at.store(index).clone()).unwrap_or_default();
    let holds = state.holds.map_or("nothing yet".to_string(), |datum| data(&datum));
    let highest = state.highest_token.map_or("none".to_string(), |token| token.to_string());
    let mut html = format!(
        r#"<p class="store-now">Holds: <strong data-testid="{id}-store-holds">{holds}</strong></p><p class="store-now">Highest token accepted: <strong data-testid="{id}-store-highest">{highest}</strong></p>"#
    );
    if let Some((before, after)) = state.before_after {
        let before = before.map_or("nothing".to_string(), |datum| data(&datum));
        let _ = write!(
            html,
            r#"<div class="before-after" data-testid="{id}-before-after"><div class="before"><span class="ba-tag">Before</span>{before}</div><span class="becomes" aria-hidden="true">→</span><div class="after"><span class="ba-tag">After ☠</span>{}</div><p class="sr-only">The newer data was overwritten by the stale write.</p></div>"#,
            data(&after)
        );
    }
    let _ = write!(html, r#"<ol class="write-log" aria-label="Write log" data-testid="{id}-write-log">{}</ol>"#, write_log(pane, upto));
    html
}

/// "B's data (token 34)".
fn data(datum: &Datum) -> String {
    match datum.token {
        Some(token) => format!("{}'s data (token {token})", datum.writer),
        None => format!("{}'s data", datum.writer),
    }
}

/// The writes that reached the store up to `upto`, each as the core tells it.
fn write_log(pane: &Pane, upto: Option<u32>) -> String {
    let Some(upto) = upto else { return String::new() };
    let mut html = String::new();
    for event in pane.at.writes_to(upto).iter().filter_map(|index| pane.event(*index)) {
        let _ = write!(
            html,
            r#"<li class="write {}"><span class="glyph" aria-hidden="true">{}</span><span class="event-time">{}</span><span>{}</span></li>"#,
            glyphs::class(event),
            glyphs::icon(event),
            format_us(event.t_us),
            escape(&pane.trace.text(event))
        );
    }
    html
}
