//! The race view: the controls, the playback bar, and every picture of one
//! run — sequence diagram, lease timelines, store, counters, narration.

use crate::controls::ScenarioControls;
use crate::diagram::SequenceDiagram;
use crate::embed::EmbedButton;
use crate::export::ExportBar;
use crate::faults::FaultButtons;
use crate::narration::Narration;
use crate::outcome::{Counters, Verdict};
use crate::pane::Pane;
use crate::playback::PlaybackBar;
use crate::player::{last_shown, stops, Player};
use crate::store_panel::StorePanel;
use crate::timelines::LeaseTimelines;
use crate::{browser, panic_box};
use fencing_sim::permalink::{to_query, Permalink};
use fencing_sim::{Fault, Scenario};
use leptos::prelude::*;

/// The pause length a scenario uses, for the pause control (15 s if none).
pub fn pause_length_ms(scenario: &Scenario) -> u64 {
    scenario
        .faults
        .iter()
        .find_map(|fault| if let Fault::Pause { pause_ms, .. } = fault { Some(*pause_ms) } else { None })
        .unwrap_or(15_000)
}

/// The folded controls' one-line summary of the scenario.
fn scenario_line(scenario: &Scenario) -> String {
    let name = fencing_sim::presets::find(&scenario.preset).map_or("Custom", |preset| preset.name);
    let fencing = if scenario.fencing { "on" } else { "off" };
    format!("Scenario: {name} · fencing {fencing} · lease {} ms · seed {}", scenario.ttl_ms, scenario.seed)
}

/// The stop index showing event `index` of pane 0 (for a cursor from a link).
pub fn stop_of(stops: &[crate::player::Stop], index: Option<u32>) -> usize {
    index.map_or(0, |index| stops.iter().rposition(|stop| stop.pane == 0 && stop.event <= index).unwrap_or(0))
}

#[component]
pub fn RaceView(
    /// The view to start from, from the URL.
    initial: Permalink,
    /// Whether this view owns the URL (not when embedded beside others).
    #[prop(optional)]
    sync_url: bool,
    /// Start playing at once (the quiz's reveal).
    #[prop(optional)]
    autoplay: bool,
    /// Shown alone in an iframe: the controls fold away, no embed button.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let id = "race";
    let scenario = RwSignal::new(initial.scenario.clone());
    let pause_ms = RwSignal::new(pause_length_ms(&initial.scenario));
    let detail = RwSignal::new(false);
    let pane = Memo::new(move |_| Pane::run(&scenario.get()));
    let visible = Memo::new(move |_| pane.with(|pane| pane.visible(detail.get())));
    let axis = Memo::new(move |_| pane.with(|pane| visible.with(|visible| pane.axis(visible))));
    let stop_list = Memo::new(move |_| pane.with(|pane| visible.with(|visible| stops(&[(&pane.trace, visible.as_slice())]))));
    let start = stop_list.with_untracked(|list| stop_of(list, initial.cursor));
    let player = Player::new(stop_list, start);
    if autoplay && browser::prefers_reduced_motion() {
        // No motion: show the outcome at once; stepping still works.
        player.to_end();
    } else if autoplay {
        player.speed.set(crate::player::SPEED_FAST);
        player.playing.set(true);
    }
    let upto = Signal::derive(move || stop_list.with(|list| last_shown(list, player.cursor.get(), 0)));
    let now_us = Signal::derive(move || upto.get().and_then(|index| pane.with(|pane| pane.event(index).map(|event| event.t_us))));
    let finished = Signal::derive(move || player.cursor.get() >= player.last());

    let link_query = Memo::new(move |_| to_query(&Permalink { scenario: scenario.get(), cursor: upto.get(), compare: None }));
    Effect::new(move |_| {
        scenario.with(|s| panic_box::set_context(format!("preset {}, seed {}", s.preset, s.seed)));
        if sync_url {
            browser::set_query(&link_query.get());
        }
    });

    view! {
        <section id="race" class="race card" aria-labelledby="race-title">
            <h2 id="race-title">"The race"</h2>
            // Open on a wide screen; folded on a phone or in an embed, so the
            // race itself comes first.
            <details class="scenario-details" prop:open=!embedded && browser::wide_screen()>
                <summary data-testid=format!("{id}-scenario-summary")>{move || scenario.with(scenario_line)}</summary>
                <ScenarioControls scenario pause_ms id/>
            </details>
            <PlaybackBar player id/>
            <Verdict pane finished id/>
            <Counters pane upto id/>
            <div class="race-grid">
                <div class="race-main">
                    <div class="picture-head">
                        <h3>"Sequence diagram"</h3>
                        <label class="inline-check">
                            <input type="checkbox" prop:checked=detail on:change=move |ev| detail.set(event_target_checked(&ev))/>
                            "Show retries and refused attempts"
                        </label>
                    </div>
                    <SequenceDiagram pane visible axis upto id/>
                    <h3>"Lease timelines"</h3>
                    <LeaseTimelines pane axis now_us id/>
                    <p class="legend">
                        <span class="key lease">"lease (lock service's view)"</span>
                        <span class="key belief">"believes it holds the lock"</span>
                        <span class="key pause">"‖ paused"</span>
                        <span class="key zombie">"⚠ zombie window: believes, holds nothing"</span>
                    </p>
                </div>
                <div class="race-side">
                    <StorePanel pane upto id/>
                    <FaultButtons scenario pause_ms now_us=Signal::derive(move || now_us.get().unwrap_or(0)) id/>
                </div>
            </div>
            <Narration pane visible upto speed=player.speed.into() detail=detail.into() id/>
            <ExportBar pane id/>
            {(!embedded).then(|| view! { <EmbedButton widget="race" title="the race" query=link_query.into() height_px=900/> })}
        </section>
    }
}
