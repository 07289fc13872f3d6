//! What a search found, above the race that replays it: the property it
//! broke, the shrunk schedule's faults, and the cause chain the core read
//! off the run. Shown while the race shows exactly that run; a change to the
//! scenario makes it another run, and the card goes.
//!
//! The finding is kept beside the page, not in the shared `Lab`: only the
//! full entry point ever finds anything, and the race's own build should not
//! carry it.

use crate::shell::app::Lab;
use fencing_sim::explore::Counterexample;
use fencing_sim::permalink::{self, Permalink};
use fencing_sim::property::Property;
use fencing_sim::{Fault, FaultKind, Scenario};
use leptos::prelude::*;
use std::cell::RefCell;
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
    pub fn card(&self, embedded: bool) -> impl IntoView {
        let faults = self.scenario.faults.len();
        let count = if faults == 1 { "one fault".to_string() } else { format!("{faults} faults") };
        // Every single fault was tried, so one is the least of them; a
        // pair is only shrunk by swapping in smaller faults of its kinds.
        let how = if faults == 1 {
            "the least of every single fault tried"
        } else {
            "no single fault broke it, and this pair was shrunk as far as smaller faults of the same kinds still break it"
        };
        let what = format!(
            ") is that {}. The search tried {} schedules; the failure shown is {count}: {how}.",
            self.property.describe(),
            self.schedules_tried
        );
        let fault_items = self
            .scenario
            .faults
            .iter()
            .map(|fault| view! { <li><span class="fault-glyph" aria-hidden="true">{glyph(fault)}</span>{fault.describe()}</li> })
            .collect_view();
        let steps = self.steps().into_iter().map(|step| view! { <li>{step}</li> }).collect_view();
        let searched = self.searched_words.iter().map(|item| view! { <li>{item.clone()}</li> }).collect_view();
        let way_on = if embedded {
            view! { <a href=format!("./?{}", Found::link_of(&self.scenario)) target="_blank" rel="noopener" data-testid="found-link">"Open this run in Fencing Lab ↗"</a> }
                .into_any()
        } else {
            view! { <a href=format!("?{}", self.search_query) data-testid="found-link">"← Search again"</a> }.into_any()
        };
        view! {
            <h2 id="found-title" tabindex="-1"><span aria-hidden="true">"⚠ "</span>"It can go wrong: "{self.property.broken()}</h2>
            <p class="found-lead" data-testid="found-lead">{self.lead.clone()}</p>
            <p class="found-what">"The rule it breaks ("<code>{self.property.name()}</code>{what}</p>
            <ul class="found-faults" data-testid="found-faults">{fault_items}</ul>
            <h3>"What happened"</h3>
            <ol class="chain" data-testid="found-chain">{steps}</ol>
            <h3>"What was searched"</h3>
            <ul class="found-bounds" data-testid="found-bounds">{searched}</ul>
            <p class="hint">{fencing_sim::explore::CAVEAT}</p>
            <p class="hint">"The run is below, faults and all: press Play to watch it; the address bar holds its link. "{way_on}</p>
        }
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
/// the explore widget, with a link out instead of "Search again".
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
    view! {
        <section class="found card" aria-labelledby="found-title" data-testid="found" node_ref=card hidden=move || shown.with(Option::is_none)>
            {move || shown.with(|found| found.as_ref().map(|found| found.card(embedded)))}
        </section>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use fencing_sim::explore::{explore, Outcome};

    #[test]
    fn the_card_says_what_broke_the_faults_the_chain_and_the_way_on() {
        let design = Scenario { fencing: true, ..fencing_sim::presets::classic() };
        let Ok(Outcome::Counterexample(found)) = explore(&design, Property::NoStaleOverwrite, 2) else { panic!("a counterexample") };
        let finding = Found::new(&found, Property::NoStaleOverwrite, "view=explore".into());
        let card = |embedded: bool| Owner::new().with(|| finding.card(embedded).into_view().to_html());
        let html = card(false);
        assert!(html.contains("It can go wrong: <!>a stale write overwrites data written under a newer grant"), "{html}");
        assert!(html.contains("(<code>no_stale_overwrite</code>) is that"), "{html}");
        assert!(html.contains(r#"href="?view=explore""#) && !html.contains(r#"target="_blank""#), "{html}");
        assert_eq!(
            html.matches("<li>").count(),
            finding.steps().len() + finding.searched_words.len() + finding.scenario.faults.len(),
            "{html}"
        );
        assert!(card(true).contains(r#"target="_blank""#));
    }
}
