//! The guided first run, on top of the race's live picture: one sentence
//! per step, "Step 2 of 9", Next and Skip. The steps and their words are
//! the model's (`fencing_sim::guide`), read off the run on screen at the
//! cursor, so Play, the scrubber and the arrow keys move the guide as its
//! own Next does. It greets a first visit to the lab's front page only: a
//! shared link, an embed, or a learner who skipped or finished it (this
//! browser remembers, and `theme.js` hides it before the first paint) lands
//! on the race directly.

use crate::race::pane::Pane;
use crate::race::player::{stop_of, Player};
use fencing_sim::guide::{self, Next, STEPS};
use fencing_sim::Scenario;
use leptos::prelude::*;

/// What this browser keeps once the guide is skipped or finished
/// (`static/theme.js` reads the same key).
const KEY: &str = "fencing-lab.guide";
const DONE: &str = "done";

/// The guide box, or nothing. `guiding` says whether it is on screen (the
/// race leaves its other tools out of the first screen meanwhile).
#[component]
pub fn Guide(
    scenario: RwSignal<Scenario>,
    pane: Memo<Pane>,
    player: Player,
    upto: Signal<Option<u32>>,
    guiding: RwSignal<bool>,
) -> impl IntoView {
    let (saved, save) = crate::shell::browser::local_storage(KEY);
    // Only the lab's front page, as first opened, greets with the guide.
    let front_page = crate::shell::browser::query().is_empty();
    let step = Memo::new(move |_| pane.with(|pane| guide::at(&pane.trace, upto.get())));
    let wanted = move || front_page && saved.get() != DONE && step.with(Option::is_some);
    // Set while drawing too: a first screen drawn at build time shows it
    // (and `theme.js` hides it before the paint where it was finished).
    guiding.set(untrack(wanted));
    Effect::new(move |_| guiding.set(wanted()));
    // Fencing turned on while guided (by the guide's button or the switch):
    // the cursor goes to the same write, now refused.
    Effect::new(move |was_on: Option<bool>| {
        let on = scenario.with(|scenario| scenario.fencing);
        if was_on == Some(false) && on && guiding.get_untracked() {
            if let Some(refusal) = pane.with_untracked(|pane| guide::first_at(&pane.trace, 8)) {
                player.playing.set(false);
                player.cursor.set(player.stops.with_untracked(|stops| stop_of(stops, Some(refusal))));
            }
        }
        on
    });
    let finish = move || {
        save.set(DONE.to_string());
        guiding.set(false);
    };
    let next = move |_| {
        let Some(step) = step.get_untracked() else { return };
        match step.next {
            Next::Event(index) => {
                player.playing.set(false);
                player.cursor.set(player.stops.with_untracked(|stops| stop_of(stops, Some(index))));
            }
            Next::End => player.to_end(),
            Next::TurnFencingOn => scenario.update(|scenario| scenario.fencing = true),
            Next::Finish => finish(),
        }
        // The glyph the step names, below the tour's sticky box (about a
        // third of a phone's screen at most).
        let covered_px = crate::shell::browser::element_height("[data-testid=guide]").unwrap_or(0.0);
        crate::shell::browser::centre_soon("#race .pic-mark.current", covered_px);
    };
    let number = move || step.with(|step| step.as_ref().map_or(0, |step| step.number));
    let words = move || step.with(|step| step.as_ref().map(|step| step.words.clone()).unwrap_or_default());
    let label = move || {
        step.with(|step| match step.as_ref().map(|step| &step.next) {
            Some(Next::TurnFencingOn) => "Turn fencing on",
            Some(Next::Finish) => "Finish the tour",
            _ => "Next →",
        })
    };
    let last = move || step.with(|step| step.as_ref().is_some_and(|step| step.next == Next::Finish));
    view! {
        <aside class="guide" hidden=move || !guiding.get() aria-labelledby="guide-title" data-testid="guide">
            <p class="guide-head">
                <span id="guide-title" class="guide-title">"Guided tour"</span>
                <span class="guide-count" data-testid="guide-count">{move || format!("Step {} of {STEPS}", number())}</span>
            </p>
            <p class="guide-words" aria-live="polite" data-testid="guide-words">{words}</p>
            <p class="guide-links" hidden=move || !last()>
                <a class="button" href="?view=fleet" data-testid="guide-fleet">"How often does each lease length lose data?"</a>
                <a class="button" href="?view=quiz" data-testid="guide-quiz">"Test yourself: the quiz"</a>
            </p>
            <p class="guide-buttons">
                <button type="button" class="primary" on:click=next data-testid="guide-next">{label}</button>
                <button type="button" on:click=move |_| finish() hidden=last data-testid="guide-skip">"Skip the tour"</button>
            </p>
        </aside>
    }
}
