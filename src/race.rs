//! The race view. Its first screen is the story: the verdict at the cursor,
//! the playback bar, a caption of the step on screen, and the sequence
//! diagram beside the counters and the store. The scenario's controls fold
//! behind a one-line summary; faults, timelines and the log follow below.
//! Every panel is a function of the current trace and cursor.

use crate::app::Lab;
use crate::controls::ScenarioControls;
use crate::diagram::SequenceDiagram;
use crate::embed::EmbedButton;
use crate::export::ExportBar;
use crate::faults::FaultPanel;
use crate::layout::layout;
use crate::narration::{Caption, Narration};
use crate::outcome::{Actors, Counters, Verdict};
use crate::pane::Pane;
use crate::playback::PlaybackBar;
use crate::player::{last_shown, stop_of, stops, Player};
use crate::route::{query_of, View};
use crate::store_panel::StorePanel;
use crate::timelines::LeaseTimelines;
use fencing_sim::{presets, Scenario};
use leptos::prelude::*;

/// The folded controls' one-line summary of the scenario (the label and the
/// seed are markup of their own, so a phone can leave them out).
pub fn scenario_line(scenario: &Scenario) -> String {
    let name = presets::find(&scenario.preset).map_or("Custom", |preset| preset.name);
    let fencing = if scenario.fencing { "on" } else { "off" };
    format!(
        // No-break spaces: the summary lays its parts out as flex items,
        // which drop ordinary spaces at their edges.
        r#"<span class="summary-label">Scenario:&nbsp;</span>{} · fencing {fencing} · lease {}<span class="summary-seed">&nbsp;· seed {}</span>"#,
        crate::escape(name),
        if scenario.ttl_ms.is_multiple_of(1000) { format!("{} s", scenario.ttl_ms / 1000) } else { format!("{} ms", scenario.ttl_ms) },
        scenario.seed
    )
}

#[component]
pub fn RaceView(
    /// The event to start at (from a link).
    #[prop(optional_no_strip)]
    cursor: Option<u32>,
    /// Shown alone in an iframe: no embed button.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let id = "race";
    let lab = Lab::get();
    let scenario = lab.scenario;
    let detail = RwSignal::new(false);
    let pane = Memo::new(move |_| Pane::run(&scenario.get()));
    let visible = Memo::new(move |_| pane.with(|pane| pane.visible(detail.get())));
    let geometry = Memo::new(move |_| pane.with(|pane| visible.with(|visible| layout(&[(pane, visible.as_slice())]))));
    let stop_list = Memo::new(move |_| pane.with(|pane| visible.with(|visible| stops(&[(&pane.trace, visible.as_slice())]))));
    let player = Player::new(stop_list, stop_list.with_untracked(|list| stop_of(list, cursor)));
    let upto = Signal::derive(move || stop_list.with(|list| last_shown(list, player.cursor.get(), 0)));
    let now_us = Signal::derive(move || upto.get().and_then(|index| pane.with(|pane| pane.event(index).map(|event| event.t_us))));
    let finished = Signal::derive(move || player.cursor.get() >= player.last());
    // The link carries the cursor whenever playback rests.
    Effect::new(move |_| {
        if player.settled() {
            lab.cursor.set(upto.get());
        }
    });
    let embed_query = Signal::derive(move || query_of(View::Race, &scenario.get(), lab.difference.get(), upto.get(), None));

    view! {
        <section id="race" class="race card" aria-labelledby="race-title">
            <div class="race-head">
                <h2 id="race-title">"The race"</h2>
                <details class="scenario-details">
                    <summary data-testid=format!("{id}-scenario-summary") inner_html=move || scenario.with(scenario_line)></summary>
                    {view! { <ScenarioControls scenario id/> }.into_any()}
                </details>
                // The explorer is in the full entry point: from the race's own
                // build this link loads it (boot.js), from the full one it routes.
                <a class="button explore-link" hidden=embedded href=move || format!("?{}", query_of(View::Explore, &scenario.get(), lab.difference.get(), None, None)) data-testid="race-explore">"Can this go wrong?"</a>
            </div>
            {view! { <Verdict pane upto id/> }.into_any()}
            {view! { <PlaybackBar player id/> }.into_any()}
            {view! { <Caption pane upto speed=player.speed.into() id/> }.into_any()}
            <div class="race-grid">
                <div class="race-main">
                    {view! { <SequenceDiagram pane geometry upto id/> }.into_any()}
                    <label class="inline-check">
                        <input type="checkbox" prop:checked=detail on:change=move |ev| detail.set(event_target_checked(&ev))/>
                        "Show retries and refused attempts"
                    </label>
                </div>
                <div class="race-side">
                    {view! { <Counters pane upto id/> }.into_any()}
                    {view! { <StorePanel pane upto id/> }.into_any()}
                </div>
            </div>
            <div class="race-more">
                <div class="race-more-main">
                    <h3>"Lease timelines"</h3>
                    {view! { <LeaseTimelines pane geometry now_us id/> }.into_any()}
                    <p class="legend">
                        <span class="key lease">"lease (lock service's view)"</span>
                        <span class="key belief">"believes it holds the lock"</span>
                        <span class="key pause">"‖ paused"</span>
                        <span class="key zombie">"⚠ zombie window: believes, holds nothing"</span>
                    </p>
                    {view! { <Narration pane visible upto detail=detail.into() id/> }.into_any()}
                </div>
                <div class="race-side">{view! { <FaultPanel scenario pane upto id/> }.into_any()}</div>
            </div>
            {view! { <Actors pane finished/> }.into_any()}
            {view! { <ExportBar pane id/> }.into_any()}
            {(!embedded).then(|| view! { <EmbedButton widget="race" title="the race" query=embed_query height_px=900/> }.into_any())}
        </section>
    }
}
