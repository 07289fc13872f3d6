//! The store as it stands at the cursor, as the core reports it: what it
//! holds, the highest token it has accepted, the before/after of a stale
//! overwrite (the corruption itself), and its write log in the core's words.

use crate::race::glyphs;
use crate::race::pane::Pane;
use fencing_sim::format_us;
use fencing_sim::store::Datum;
use leptos::prelude::*;

/// The store panel of one run, as of event `upto`.
#[component]
pub fn StorePanel(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    // Written again only when what the store shows changes.
    let shown = Memo::new(move |_| pane.with(|pane| Shown::of(pane, upto.get())));
    view! {
        <section class="store-panel" aria-labelledby=format!("{id}-store-title")>
            <h3 id=format!("{id}-store-title")>"Store"{run_name(id).map(|name| view! { <span class="sr-only">{name}</span> })}</h3>
            <div>{move || contents(shown.get(), id)}</div>
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

/// What the store panel shows at a cursor, in words.
#[derive(Clone, PartialEq)]
pub struct Shown {
    holds: String,
    highest: String,
    /// What a stale overwrite replaced, and with what.
    before_after: Option<(String, String)>,
    log: Vec<Write>,
}

/// A write that reached the store, as the log lists it.
#[derive(Clone, PartialEq)]
struct Write {
    class: &'static str,
    icon: &'static str,
    time: String,
    text: String,
}

impl Shown {
    /// The store as of event `upto`.
    pub fn of(pane: &Pane, upto: Option<u32>) -> Shown {
        let state = upto.map(|index| pane.at.store(index).clone()).unwrap_or_default();
        Shown {
            holds: state.holds.map_or("nothing yet".to_string(), |datum| data(&datum)),
            highest: state.highest_token.map_or("none".to_string(), |token| token.to_string()),
            before_after: state
                .before_after
                .map(|(before, after)| (before.map_or("nothing".to_string(), |datum| data(&datum)), data(&after))),
            log: write_log(pane, upto),
        }
    }
}

/// What the store holds, its highest token, the before/after and the log.
pub fn contents(shown: Shown, id: &str) -> impl IntoView {
    let before_after = shown.before_after.map(|(before, after)| {
        view! {
            <div class="before-after" data-testid=format!("{id}-before-after")>
                <div class="before"><span class="ba-tag">"Before"</span>{before}</div>
                <span class="becomes" aria-hidden="true">"→"</span>
                <div class="after"><span class="ba-tag">"After ☠"</span>{after}</div>
                <p class="sr-only">"The newer data was overwritten by the stale write."</p>
            </div>
        }
    });
    let log = shown
        .log
        .into_iter()
        .map(|write| {
            view! {
                <li class=format!("write {}", write.class)>
                    <span class="glyph" aria-hidden="true">{write.icon}</span>
                    <span class="event-time">{write.time}</span>
                    <span>{write.text}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <p class="store-now">"Holds: "<strong data-testid=format!("{id}-store-holds")>{shown.holds}</strong></p>
        <p class="store-now">"Highest token accepted: "<strong data-testid=format!("{id}-store-highest")>{shown.highest}</strong></p>
        {before_after}
        <ol class="write-log" aria-label="Write log" data-testid=format!("{id}-write-log")>{log}</ol>
    }
}

/// "B's data (token 34)".
fn data(datum: &Datum) -> String {
    match datum.token {
        Some(token) => format!("{}'s data (token {token})", datum.writer),
        None => format!("{}'s data", datum.writer),
    }
}

/// The writes that reached the store up to `upto`, each as the core tells it.
fn write_log(pane: &Pane, upto: Option<u32>) -> Vec<Write> {
    let Some(upto) = upto else { return Vec::new() };
    pane.at
        .writes_to(upto)
        .iter()
        .filter_map(|index| pane.event(*index))
        .map(|event| Write {
            class: glyphs::class(event),
            icon: glyphs::icon(event),
            time: format_us(event.t_us),
            text: pane.trace.text(event),
        })
        .collect()
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_store_at_the_end_of_the_classic_run_shows_the_overwrite_and_its_log() {
        let pane = Pane::run(&fencing_sim::presets::classic());
        let last = pane.trace.events.len() as u32 - 1;
        let shown = Shown::of(&pane, Some(last));
        assert_eq!(shown.before_after, Some(("B's data (token 34)".to_string(), "A's data (token 33)".to_string())));
        let writes = shown.log.len();
        let html = Owner::new().with(|| contents(shown, "race").into_view().to_html());
        assert!(html.contains(r#"Holds: <strong data-testid="race-store-holds">A's data (token 33)</strong>"#), "{html}");
        assert!(html.contains(r#"data-testid="race-before-after""#), "{html}");
        assert_eq!(html.matches("<li class=\"write ").count(), writes, "{html}");
        assert_eq!(Shown::of(&pane, None).log.len(), 0, "nothing before the first event");
    }
}
