//! What a search found, above the race that replays it: the property it
//! broke, the shrunk schedule's faults, and the cause chain the core read
//! off the run. Shown while the race shows exactly that run; a change to the
//! scenario makes it another run, and the card goes.
//!
//! The finding is kept beside the page, not in the shared `Lab`: only the
//! full entry point ever finds anything, and the race's own build should not
//! carry it.

use crate::escape;
use crate::shell::app::Lab;
use fencing_sim::explore::Counterexample;
use fencing_sim::permalink::{self, Permalink};
use fencing_sim::property::Property;
use fencing_sim::{Fault, FaultKind, Scenario};
use leptos::prelude::*;
use std::cell::RefCell;
use std::fmt::Write;
use wasm_bindgen::JsCast;

thread_local! {
    static LAST: RefCell<Option<Found>> = const { RefCell::new(None) };
}

/// A counterexample as the page keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The run, as its link reads back (what the race view will show).
    pub scenario: Scenario,
    pub property: Property,
    /// The core's sentence that connects to the run just seen.
    pub lead: String,
    /// The core's bounds of the search, as a short list.
    pub searched_words: Vec<String>,
    /// The core's cause chain: phrases joined by "; ".
    pub chain: String,
    pub schedules_tried: usize,
    /// The query of the explore view that found it ("Search again").
    pub search_query: String,
}

impl Found {
    pub fn new(found: &Counterexample, property: Property, search_query: String) -> Found {
        let (read_back, _) = permalink::parse(&Found::link_of(&found.scenario));
        Found {
            scenario: read_back.scenario,
            property,
            lead: found.lead.clone(),
            searched_words: found.searched_words.clone(),
            chain: found.chain.clone(),
            schedules_tried: found.schedules_tried,
            search_query,
        }
    }

    /// Keeps it as the page's latest finding; the next card to show it takes focus.
    pub fn keep(self) {
        LAST.with(|last| *last.borrow_mut() = Some(self));
        FOCUS_PENDING.with(|pending| pending.set(true));
    }

    /// The latest finding, if it is of this run.
    pub fn of(scenario: &Scenario) -> Option<Found> {
        LAST.with(|last| last.borrow().as_ref().filter(|found| found.scenario == *scenario).cloned())
    }

    /// The race view's query for the run (no view key, no cursor), with its fingerprint.
    pub fn link_of(scenario: &Scenario) -> String {
        permalink::to_link(&Permalink { scenario: scenario.clone(), cursor: None, compare: None })
    }

    /// The chain's phrases, each a sentence of its own.
    pub fn steps(&self) -> Vec<String> {
        self.chain.split("; ").filter(|phrase| !phrase.is_empty()).map(capitalised).collect()
    }

    /// The card: the heading, what the property means, the faults, the
    /// chain, and a way on (back to the search, or out of a widget).
    pub fn card(&self, embedded: bool) -> String {
        let faults = self.scenario.faults.len();
        let mut html = format!(
            r#"<h2 id="found-title" tabindex="-1"><span aria-hidden="true">⚠ </span>It can go wrong: {broken}</h2><p class="found-lead" data-testid="found-lead">{lead}</p><p class="found-what">The rule it breaks (<code>{name}</code>) is that {means}. The search tried {tried} schedules; the failure shown is {count}: {how}.</p><ul class="found-faults" data-testid="found-faults">"#,
            name = self.property.name(),
            lead = escape(&self.lead),
            broken = escape(self.property.broken()),
            means = escape(self.property.describe()),
            tried = self.schedules_tried,
            count = if faults == 1 { "one fault".to_string() } else { format!("{faults} faults") },
            // Every single fault was tried, so one is the least of them; a
            // pair is only shrunk by swapping in smaller faults of its kinds.
            how = if faults == 1 {
                "the least of every single fault tried"
            } else {
                "no single fault broke it, and this pair was shrunk as far as smaller faults of the same kinds still break it"
            },
        );
        for fault in &self.scenario.faults {
            let _ = write!(
                html,
                r#"<li><span class="fault-glyph" aria-hidden="true">{}</span>{}</li>"#,
                glyph(fault),
                escape(&fault.describe())
            );
        }
        html.push_str(r#"</ul><h3>What happened</h3><ol class="chain" data-testid="found-chain">"#);
        for step in self.steps() {
            let _ = write!(html, "<li>{}</li>", escape(&step));
        }
        html.push_str(r#"</ol><h3>What was searched</h3><ul class="found-bounds" data-testid="found-bounds">"#);
        for item in &self.searched_words {
            let _ = write!(html, "<li>{}</li>", escape(item));
        }
        let _ = write!(html, r#"</ul><p class="hint">{}</p>"#, escape(fencing_sim::explore::CAVEAT));
        let way_on = if embedded {
            format!(
                r#"<a href="./?{}" target="_blank" rel="noopener" data-testid="found-link">Open this run in Fencing Lab ↗</a>"#,
                escape(&Found::link_of(&self.scenario))
            )
        } else {
            format!(r#"<a href="?{}" data-testid="found-link">← Search again</a>"#, escape(&self.search_query))
        };
        let _ = write!(
            html,
            r#"<p class="hint">The run is below, faults and all: press Play to watch it; the address bar holds its link. {way_on}</p>"#
        );
        html
    }
}

thread_local! {
    static FOCUS_PENDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The phrase with an upper-case first letter (the core's phrases start
/// with an actor's name or an English word: ASCII, so no Unicode tables).
fn capitalised(phrase: &str) -> String {
    let mut text = phrase.to_string();
    if let Some(first) = text.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    text
}

/// The glyph the fault buttons give each kind of fault.
fn glyph(fault: &Fault) -> &'static str {
    match fault.kind() {
        FaultKind::Pause => "‖",
        FaultKind::DelayWrite => "→",
        FaultKind::LoseMessage => "✗",
        FaultKind::Partition => "✂",
        FaultKind::Crash | FaultKind::NodeCrash => "✱",
        FaultKind::ClockDrift | FaultKind::ClockJump => "»",
    }
}

/// The card above the race while it shows a found run. `embedded`: inside
/// the explore widget, with a link out instead of "Search again". One
/// element with markup: the race's page stays light.
#[component]
pub fn FoundCard(#[prop(optional)] embedded: bool) -> impl IntoView {
    let lab = Lab::get();
    let shown = Memo::new(move |_| lab.scenario.with(Found::of));
    let card = NodeRef::<leptos::html::Section>::new();
    Effect::new(move |_| {
        if let (Some(card), true) = (card.get(), shown.with(Option::is_some)) {
            if FOCUS_PENDING.with(|pending| pending.replace(false)) {
                if let Some(heading) =
                    card.query_selector("h2").ok().flatten().and_then(|heading| heading.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = heading.focus();
                }
            }
        }
    });
    let html = move || shown.with(|found| found.as_ref().map(|found| found.card(embedded)).unwrap_or_default());
    view! {
        <section class="found card" aria-labelledby="found-title" data-testid="found" node_ref=card hidden=move || shown.with(Option::is_none) inner_html=html></section>
    }
}
