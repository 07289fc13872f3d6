//! Side by side: the same scenario and seed twice, with exactly one
//! difference, one shared cursor, and a verdict per pane.

use crate::diagram::SequenceDiagram;
use crate::embed::EmbedButton;
use crate::outcome::{Counters, Verdict};
use crate::pane::Pane;
use crate::playback::PlaybackBar;
use crate::player::{last_shown, stops, Player};
use crate::race::stop_of;
use crate::store_panel::StorePanel;
use crate::{browser, panic_box};
use fencing_sim::compare::Difference;
use fencing_sim::permalink::{to_query, Permalink};
use fencing_sim::presets;
use leptos::prelude::*;

#[component]
pub fn CompareView(
    initial: Permalink,
    #[prop(optional)] sync_url: bool,
    /// Shown alone in an iframe: no embed button.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let scenario = RwSignal::new(initial.scenario.clone());
    let difference = RwSignal::new(initial.compare.unwrap_or(Difference::Fencing));
    let panes = Memo::new(move |_| {
        let (left, right) = difference.get().split(&scenario.get());
        (Pane::run(&left), Pane::run(&right))
    });
    let left = Memo::new(move |_| panes.with(|(left, _)| left.clone()));
    let right = Memo::new(move |_| panes.with(|(_, right)| right.clone()));
    let left_visible = Memo::new(move |_| left.with(|pane| pane.visible(false)));
    let right_visible = Memo::new(move |_| right.with(|pane| pane.visible(false)));
    let stop_list = Memo::new(move |_| {
        left.with(|l| {
            right.with(|r| left_visible.with(|lv| right_visible.with(|rv| stops(&[(&l.trace, lv.as_slice()), (&r.trace, rv.as_slice())]))))
        })
    });
    let start = stop_list.with_untracked(|list| stop_of(list, initial.cursor));
    let player = Player::new(stop_list, start);
    let upto_left = Signal::derive(move || stop_list.with(|list| last_shown(list, player.cursor.get(), 0)));
    let upto_right = Signal::derive(move || stop_list.with(|list| last_shown(list, player.cursor.get(), 1)));
    let finished = Signal::derive(move || player.cursor.get() >= player.last());

    let link_query =
        Memo::new(move |_| to_query(&Permalink { scenario: scenario.get(), cursor: upto_left.get(), compare: Some(difference.get()) }));
    Effect::new(move |_| {
        scenario.with(|s| panic_box::set_context(format!("compare {}, preset {}, seed {}", difference.get().id(), s.preset, s.seed)));
        if sync_url {
            browser::set_query(&link_query.get());
        }
    });

    let pane_view = move |side: usize, pane: Memo<Pane>, visible: Memo<Vec<bool>>, upto: Signal<Option<u32>>, id: &'static str| {
        let axis = Memo::new(move |_| pane.with(|pane| visible.with(|visible| pane.axis(visible))));
        let name = move || {
            let (left, right) = difference.get().sides();
            if side == 0 {
                left
            } else {
                right
            }
        };
        view! {
            <section class="compare-pane" aria-label=name data-testid=id>
                <h3 class="pane-name">{name}</h3>
                <Counters pane upto id/>
                <Verdict pane finished id/>
                <StorePanel pane upto id/>
                <SequenceDiagram pane visible axis upto id fit=true/>
            </section>
        }
    };

    view! {
        <section id="compare" class="compare card" aria-labelledby="compare-title">
            <h2 id="compare-title">"Side by side"</h2>
            <div class="controls compare-controls">
                <label class="field" for="compare-preset">
                    <span>"Preset"</span>
                    <select id="compare-preset" on:change=move |ev| {
                        if let Some(preset) = presets::find(&event_target_value(&ev)) {
                            let seed = scenario.get_untracked().seed;
                            scenario.set(fencing_sim::Scenario { seed, ..(preset.build)() });
                        }
                    }>
                        {presets::PRESETS.iter().map(|preset| view! {
                            <option value=preset.id selected=move || scenario.with(|s| s.preset == preset.id)>{preset.name}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label class="field" for="compare-difference">
                    <span>"The one difference"</span>
                    <select id="compare-difference" data-testid="compare-difference" on:change=move |ev| {
                        if let Some(choice) = Difference::parse(&event_target_value(&ev)) {
                            difference.set(choice);
                        }
                    }>
                        {Difference::ALL.iter().map(|choice| {
                            let choice = *choice;
                            view! { <option value=choice.id() selected=move || difference.get() == choice>{choice.label()}</option> }
                        }).collect_view()}
                    </select>
                </label>
            </div>
            <p class="difference" data-testid="compare-named">{move || format!("Same scenario, same seed ({}); one difference: {}.", scenario.with(|s| s.seed), difference.get().label())}</p>
            <PlaybackBar player id="compare"/>
            <div class="panes">
                {pane_view(0, left, left_visible, upto_left, "left")}
                {pane_view(1, right, right_visible, upto_right, "right")}
            </div>
            {(!embedded).then(|| view! { <EmbedButton widget="compare" title="side by side" query=link_query.into() height_px=1100/> })}
        </section>
    }
}
