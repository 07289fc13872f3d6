//! The store as it stands at the cursor: what it holds, the highest token it
//! has accepted, and its write log with each write's fate. A stale overwrite
//! is shown as a before/after, because that is the corruption.

use crate::glyphs;
use crate::pane::Pane;
use fencing_sim::{format_us, Event, Kind};
use leptos::prelude::*;

/// The store panel of one run, as of event `upto`.
#[component]
pub fn StorePanel(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let all_writes = Memo::new(move |_| {
        pane.with(|pane| {
            pane.trace
                .events
                .iter()
                .filter(|event| matches!(event.kind, Kind::WriteAccepted { .. } | Kind::WriteRejected { .. }))
                .cloned()
                .collect::<Vec<Event>>()
        })
    });
    let writes = move || {
        let upto = upto.get();
        all_writes
            .with(|writes| writes.iter().take_while(|event| upto.is_some_and(|upto| event.index <= upto)).cloned().collect::<Vec<_>>())
    };
    let holds = move || writes().iter().rev().find(|event| matches!(event.kind, Kind::WriteAccepted { .. })).map(describe_data);
    let highest =
        move || writes().iter().filter(|event| matches!(event.kind, Kind::WriteAccepted { .. })).filter_map(|event| event.token).max();
    let overwrite = move || {
        let writes = writes();
        let accepted: Vec<&Event> = writes.iter().filter(|event| matches!(event.kind, Kind::WriteAccepted { .. })).collect();
        let stale = accepted.iter().rposition(|event| matches!(event.kind, Kind::WriteAccepted { stale_overwrite: true, .. }))?;
        let before = stale.checked_sub(1).map(|index| describe_data(accepted[index]))?;
        Some((before, describe_data(accepted[stale])))
    };
    view! {
        <section class="store-panel" aria-label="The store">
            <h3>"Store"</h3>
            <p class="store-now">
                "Holds: " <strong data-testid=format!("{id}-store-holds")>{move || holds().unwrap_or_else(|| "nothing yet".to_string())}</strong>
            </p>
            <p class="store-now">
                "Highest token accepted: "
                <strong>{move || highest().map_or("none".to_string(), |token| token.to_string())}</strong>
            </p>
            {move || overwrite().map(|(before, after)| view! {
                <div class="before-after" data-testid=format!("{id}-before-after")>
                    <div class="before"><span class="tag">"Before"</span>{before}</div>
                    <span class="becomes" aria-hidden="true">"→"</span>
                    <div class="after"><span class="tag">"After ☠"</span>{after}</div>
                    <p class="sr-only">"The newer data was overwritten by the stale write."</p>
                </div>
            })}
            <ol class="write-log" aria-label="Write log">
                <For each=writes key=|event| event.index let:event>
                    <li class=format!("write {}", glyphs::class(&event))>
                        <span class="glyph" aria-hidden="true">{glyphs::icon(&event)}</span>
                        <span class="event-time">{format_us(event.t_us)}</span>
                        <span>{fate(&event)}</span>
                    </li>
                </For>
            </ol>
        </section>
    }
}

fn describe_data(event: &Event) -> String {
    let writer = match event.kind {
        Kind::WriteAccepted { writer, .. } | Kind::WriteRejected { writer, .. } => writer.to_string(),
        _ => String::from("?"),
    };
    match event.token {
        Some(token) => format!("{writer}'s data (token {token})"),
        None => format!("{writer}'s data"),
    }
}

fn fate(event: &Event) -> String {
    let what = describe_data(event).replace("'s data", "'s write");
    match event.kind {
        Kind::WriteAccepted { stale_overwrite: true, .. } => format!("{what}: accepted, overwrote newer data"),
        Kind::WriteAccepted { zombie: true, .. } => format!("{what}: accepted from a zombie"),
        Kind::WriteAccepted { .. } => format!("{what}: accepted"),
        _ => format!("{what}: rejected"),
    }
}
