//! Side by side: the same scenario and seed twice, with exactly one
//! difference, one shared cursor, and a verdict per pane. The two diagrams
//! share their rows (the same moment at the same height) and scroll
//! together; every part of a pane sits in the same grid row as its
//! neighbour's, so the diagrams start level whatever the verdicts say.

use crate::race::diagram::SequenceDiagram;
use crate::race::layout::layout;
use crate::race::narration::Caption;
use crate::race::outcome::{Counters, Verdict};
use crate::race::overview::Overview;
use crate::race::pane::Pane;
use crate::race::picture::OnePicture;
use crate::race::playback::PlaybackBar;
use crate::race::player::{last_shown, stop_of, stops, Player};
use crate::race::present;
use crate::race::store_panel::StorePanel;
use crate::shell::app::Lab;
use crate::shell::embed::EmbedButton;
use crate::shell::route::{query_of, View};
use fencing_sim::compare::Difference;
use fencing_sim::presets;
use leptos::prelude::*;

#[component]
pub fn CompareView(
    /// The event of the left pane to start at (from a link).
    #[prop(optional_no_strip)]
    cursor: Option<u32>,
    /// Shown alone in an iframe: no embed button.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let lab = Lab::get();
    let (scenario, difference) = (lab.scenario, lab.difference);
    let panes = Memo::new(move |_| {
        let (left, right) = difference.get().split(&scenario.get());
        (Pane::run(&left), Pane::run(&right))
    });
    let left = Memo::new(move |_| panes.with(|(left, _)| left.clone()));
    let right = Memo::new(move |_| panes.with(|(_, right)| right.clone()));
    // The left pane's event at the cursor, once the cursor has settled:
    // the link's cursor.
    let shown_left = RwSignal::new(cursor);
    Effect::new(move |_| lab.cursor.set(shown_left.get()));
    let embed_query = Signal::derive(move || query_of(View::Compare, &scenario.get(), difference.get(), shown_left.get(), None));
    let names = Signal::derive(move || {
        let (left, right) = difference.get().sides();
        (left.to_string(), right.to_string())
    });

    view! {
        <section id="compare" class="compare card" aria-labelledby="compare-title">
            <div class="compare-head">
                <h2 id="compare-title">"Side by side"</h2>
                <span class="present-slot"><present::PresentButtons id="compare"/></span>
            </div>
            <div class="controls compare-controls">
                <label class="field" for="compare-preset">
                    <span>"Preset"</span>
                    <select id="compare-preset" on:change=move |ev| {
                        if let Some(preset) = presets::build(&event_target_value(&ev)) {
                            let seed = scenario.get_untracked().seed;
                            scenario.set(fencing_sim::Scenario { seed, ..preset });
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
            <TwoPanes left right names id="compare" cursor shown_left/>
            // After the runs: first watch what happens, then ask what else could.
            // An embed keeps the learner in its frame.
            {(!embedded).then(|| view! {
                <ExploreLinks scenario difference/>
                <EmbedButton widget="compare" title="side by side" query=embed_query height_px=1100/>
            })}
        </section>
    }
}

/// Two runs on one time axis: one playback bar and cursor for both, each
/// run's verdict, picture, details, counters and store in the same grid
/// row as the other's. Side by side and the real runs draw with it.
#[component]
pub fn TwoPanes(
    left: Memo<Pane>,
    right: Memo<Pane>,
    /// Each pane's heading.
    names: Signal<(String, String)>,
    /// The playback bar's name (its test ids).
    id: &'static str,
    /// The left pane's event to start at (from a link).
    cursor: Option<u32>,
    /// Set to the left pane's event at the cursor whenever the cursor settles.
    shown_left: RwSignal<Option<u32>>,
) -> impl IntoView {
    let left_visible = Memo::new(move |_| left.with(|pane| pane.visible(false)));
    let right_visible = Memo::new(move |_| right.with(|pane| pane.visible(false)));
    // Both diagrams are as wide as each other; the left one measures.
    let room_px = RwSignal::new(crate::race::layout::ROOM_UNMEASURED_PX);
    let geometry = Memo::new(move |_| {
        let room_px = room_px.get();
        left.with(|l| {
            right.with(|r| left_visible.with(|lv| right_visible.with(|rv| layout(&[(l, lv.as_slice()), (r, rv.as_slice())], room_px))))
        })
    });
    let stop_list = Memo::new(move |_| {
        left.with(|l| {
            right.with(|r| left_visible.with(|lv| right_visible.with(|rv| stops(&[(&l.trace, lv.as_slice()), (&r.trace, rv.as_slice())]))))
        })
    });
    let player = Player::new(stop_list, stop_list.with_untracked(|list| stop_of(list, cursor)));
    // Memos: a step of one pane leaves the other's panels alone.
    let upto_left: Signal<Option<u32>> = Memo::new(move |_| stop_list.with(|list| last_shown(list, player.cursor.get(), 0))).into();
    let upto_right: Signal<Option<u32>> = Memo::new(move |_| stop_list.with(|list| last_shown(list, player.cursor.get(), 1))).into();
    Effect::new(move |_| {
        if player.settled() {
            shown_left.set(upto_left.get());
        }
    });
    let scroll_top = RwSignal::new(0);
    view! {
        <PlaybackBar player id/>
        <div class="panes">
            <h3 class="pane-name pane-left">{move || names.get().0}</h3>
            <h3 class="pane-name pane-right">{move || names.get().1}</h3>
            <div class="pane-cell pane-left" data-testid="left"><Verdict pane=left upto=upto_left id="left"/></div>
            <div class="pane-cell pane-right" data-testid="right"><Verdict pane=right upto=upto_right id="right"/></div>
            // The whole of each run in one picture, every lane in it; every
            // step and every message one click away under it.
            <div class="pane-cell pane-left pane-overview"><OnePicture pane=left upto=upto_left id="left" name=" on the left"/></div>
            <div class="pane-cell pane-right pane-overview"><OnePicture pane=right upto=upto_right id="right" name=" on the right"/></div>
            <details class="pane-cell pane-left pane-details" data-testid=format!("{id}-diagram-scroll")>
                <summary>"Details: every step and message"</summary>
                <Overview pane=left upto=upto_left id="left"/>
                <SequenceDiagram pane=left geometry index=0 upto=upto_left id="left" shared_scroll=scroll_top neighbour_upto=upto_right room_px/>
            </details>
            <details class="pane-cell pane-right pane-details">
                <summary>"Details: every step and message"</summary>
                <Overview pane=right upto=upto_right id="right"/>
                <SequenceDiagram pane=right geometry index=1 upto=upto_right id="right" shared_scroll=scroll_top neighbour_upto=upto_left/>
            </details>
            // The current line of each run, large under its diagram in projector mode only.
            <div class="pane-cell pane-left present-only"><Caption pane=left upto=upto_left speed=player.speed.into() id="left"/></div>
            <div class="pane-cell pane-right present-only"><Caption pane=right upto=upto_right speed=player.speed.into() id="right"/></div>
            <div class="pane-cell pane-left"><Counters pane=left upto=upto_left id="left"/></div>
            <div class="pane-cell pane-right"><Counters pane=right upto=upto_right id="right"/></div>
            <div class="pane-cell pane-left"><StorePanel pane=left upto=upto_left id="left"/></div>
            <div class="pane-cell pane-right"><StorePanel pane=right upto=upto_right id="right"/></div>
        </div>
    }
}

/// "Can this go wrong?" for either pane's design: each link opens the
/// explore view on that side's scenario.
#[component]
fn ExploreLinks(scenario: RwSignal<fencing_sim::Scenario>, difference: RwSignal<Difference>) -> impl IntoView {
    let href = move |side: usize| {
        let (left, right) = difference.get().split(&scenario.get());
        format!("?{}", query_of(View::Explore, if side == 0 { &left } else { &right }, difference.get(), None, None))
    };
    let name = move |side: usize| {
        let (left, right) = difference.get().sides();
        format!("Search “{}”", if side == 0 { left } else { right })
    };
    view! {
        <div class="explore-links" role="group" aria-labelledby="compare-explore-title">
            <span id="compare-explore-title" class="explore-links-title">"Can this go wrong?"</span>
            <a class="button" href=move || href(0) data-testid="compare-explore-left">{move || name(0)}</a>
            <a class="button" href=move || href(1) data-testid="compare-explore-right">{move || name(1)}</a>
        </div>
    }
}
