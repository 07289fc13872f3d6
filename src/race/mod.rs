//! The race view. Its first screen is the story: the verdict at the cursor,
//! the playback bar, a caption of the step on screen, and the run's one
//! picture (`picture`) beside the counters and the store; the step table,
//! the message-level diagram and the log are one Details disclosure under
//! it. The scenario's controls fold behind a one-line summary; faults follow
//! below.
//! Every panel is a function of the current trace and cursor.

// The race's parts; side by side draws its two panes with the same ones.
pub mod controls;
pub mod diagram;
pub mod export;
pub mod faults;
pub mod glyphs;
pub mod guide;
pub mod layout;
pub mod narration;
pub mod outcome;
pub mod overview;
pub mod pane;
pub mod picture;
pub mod playback;
pub mod player;
pub mod present;
pub mod store_panel;

use crate::race::controls::ScenarioControls;
use crate::race::diagram::SequenceDiagram;
use crate::race::export::ExportBar;
use crate::race::faults::FaultPanel;
use crate::race::guide::Guide;
use crate::race::layout::layout;
use crate::race::narration::{Caption, Narration};
use crate::race::outcome::{Actors, Counters, Verdict};
use crate::race::overview::Overview;
use crate::race::pane::Pane;
use crate::race::picture::OnePicture;
use crate::race::playback::PlaybackBar;
use crate::race::player::{last_shown, stop_of, stops, Player};
use crate::race::store_panel::StorePanel;
use crate::shell::app::Lab;
use crate::shell::embed::EmbedButton;
use crate::shell::route::{query_of, View};
use fencing_sim::compare::Difference;
use fencing_sim::{presets, Scenario};
use leptos::prelude::*;

/// The folded controls' one-line summary of the scenario (the label and the
/// seed are elements of their own, so a phone can leave them out).
pub fn scenario_line(scenario: &Scenario) -> impl IntoView {
    let name = presets::find(&scenario.preset).map_or("Custom", |preset| preset.name);
    let fencing = if scenario.fencing { "on" } else { "off" };
    // No-break spaces: the summary lays its parts out as flex items, which
    // drop ordinary spaces at their edges; and a number and its unit never
    // part at a line's end.
    let lease = fencing_sim::worksheet::duration(scenario.ttl_ms).replace(' ', "\u{a0}");
    view! {
        <span class="summary-label">"Scenario:\u{a0}"</span>
        {format!("{name} · fencing {fencing} · lease {lease}")}
        <span class="summary-seed">{format!("\u{a0}· seed {}", scenario.seed)}</span>
    }
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
    let room_px = RwSignal::new(crate::race::layout::ROOM_UNMEASURED_PX);
    let geometry = Memo::new(move |_| pane.with(|pane| visible.with(|visible| layout(&[(pane, visible.as_slice())], room_px.get()))));
    let stop_list = Memo::new(move |_| pane.with(|pane| visible.with(|visible| stops(&[(&pane.trace, visible.as_slice())]))));
    let player = Player::new(stop_list, stop_list.with_untracked(|list| stop_of(list, cursor)));
    let upto = Signal::derive(move || stop_list.with(|list| last_shown(list, player.cursor.get(), 0)));
    let finished = Signal::derive(move || player.cursor.get() >= player.last());
    // The link carries the cursor whenever playback rests.
    Effect::new(move |_| {
        if player.settled() {
            lab.cursor.set(upto.get());
        }
    });
    // While the guided tour greets a first visit, the race's other tools
    // wait below it (one click on Skip away).
    let guiding = RwSignal::new(false);
    let embed_query = Signal::derive(move || query_of(View::Race, &scenario.get(), lab.difference.get(), upto.get(), None));

    view! {
        <section id="race" class="race card" class:guiding=guiding aria-labelledby="race-title">
            <div class="race-head">
                <h2 id="race-title">"The race"</h2>
                <span class="present-slot"><present::PresentButtons id/></span>
                <details class="scenario-details">
                    <summary data-testid=format!("{id}-scenario-summary")>{move || scenario.with(scenario_line)}</summary>
                    <ScenarioControls scenario id/>
                </details>
                // The explorer is in the full entry point: from the race's own
                // build this link loads it (boot.js), from the full one it routes.
                <a class="button explore-link" hidden=embedded href=move || format!("?{}", query_of(View::Explore, &scenario.get(), lab.difference.get(), None, None)) data-testid="race-explore">"Can this go wrong?"</a>
            </div>
            <p class="story-line" data-testid=format!("{id}-story")>{move || scenario.with(fencing_sim::worksheet::story_line)}</p>
            <Verdict pane upto id/>
            <PlaybackBar player id>
                <FencingSwitch scenario id/>
            </PlaybackBar>
            {(!embedded).then(|| view! { <Guide scenario pane player upto guiding/> })}
            <NextStep scenario pane player finished embedded id/>
            // Once the run is over: the same story on a real server, where one was recorded.
            {move || (finished.get() && !embedded).then(|| scenario.with(fencing_sim::real::for_story)).flatten().map(|recording| view! {
                <p class="real-link">
                    <a href=format!("?view=real&{}", recording.story_link) data-testid=format!("{id}-real")>"What a real server did in this story →"</a>
                </p>
            })}
            <Caption pane upto speed=player.speed.into() id/>
            <div class="race-grid">
                <div class="race-main">
                    <OnePicture pane upto id/>
                    // Everything else about the run, one click away: every step
                    // as a table, every message as a sequence diagram, the log.
                    <details class="race-details" data-testid=format!("{id}-details")>
                        <summary>"Details: every step, every message (the protocol), the event log"</summary>
                        <Overview pane upto id/>
                        <SequenceDiagram pane geometry upto id room_px/>
                        <label class="inline-check">
                            <input type="checkbox" prop:checked=detail on:change=move |ev| detail.set(event_target_checked(&ev))/>
                            "Show retries and refused attempts"
                        </label>
                        <Narration pane visible upto detail=detail.into() id/>
                    </details>
                </div>
                <div class="race-side">
                    <Counters pane upto id/>
                    <StorePanel pane upto id/>
                </div>
            </div>
            <div class="race-more"><FaultPanel scenario pane upto id/></div>
            <Actors pane finished/>
            <ExportBar pane id/>
            <TeachBar scenario embedded/>
            <Handout pane scenario/>
            {(!embedded).then(|| view! { <EmbedButton widget="race" title="the race" query=embed_query height_px=900/> })}
        </section>
    }
}

/// The one change the lesson is about, beside Play: the run is recomputed
/// with the store checking tokens (or not), the link follows, and the
/// change is said aloud.
#[component]
fn FencingSwitch(scenario: RwSignal<Scenario>, id: &'static str) -> impl IntoView {
    let said = RwSignal::new(String::new());
    let toggle = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        scenario.update(|scenario| scenario.fencing = on);
        said.set(
            if on { "Fencing on: the store now checks each write's token." } else { "Fencing off: the store takes any write." }.to_string(),
        );
        crate::shell::browser::bring_into_view(&format!("[data-testid={id}-verdict]"));
    };
    view! {
        <label class="fencing-switch">
            <input type="checkbox" role="switch" checked=scenario.with_untracked(|scenario| scenario.fencing)
                prop:checked=move || scenario.with(|scenario| scenario.fencing) on:change=toggle data-testid=format!("{id}-fencing") aria-describedby=format!("{id}-fencing-hint")/>
            <span>"Fencing"</span>
        </label>
        // One line that says what the switch does, in its current state.
        <span class="fencing-hint" id=format!("{id}-fencing-hint") data-testid=format!("{id}-fencing-hint")>
            {move || if scenario.with(|scenario| scenario.fencing) { "the store refuses an older token" } else { "the store takes any write" }}
        </span>
        <span class="sr-only" role="status" data-testid=format!("{id}-fencing-said")>{said}</span>
    }
}

/// Once the run is over: the next experiment as one click, the core's
/// (`worksheet::next_step`). A change plays the new run from the start.
#[component]
fn NextStep(
    scenario: RwSignal<Scenario>,
    pane: Memo<Pane>,
    player: Player,
    finished: Signal<bool>,
    embedded: bool,
    id: &'static str,
) -> impl IntoView {
    let lab = Lab::get();
    let step = Memo::new(move |_| scenario.with(|scenario| pane.with(|pane| fencing_sim::worksheet::next_step(scenario, &pane.trace))));
    move || {
        let step = step.get().filter(|_| finished.get())?;
        Some(match step.kind {
            fencing_sim::worksheet::Step::Change(next) => {
                let next = StoredValue::new(*next);
                let go = move |_| {
                    scenario.set(next.get_value());
                    player.restart();
                    player.toggle();
                    crate::shell::browser::bring_into_view(&format!("[data-testid={id}-verdict]"));
                };
                view! { <p class="next-step"><button type="button" class="primary" on:click=go data-testid=format!("{id}-next")>{step.words}" →"</button></p> }.into_any()
            }
            fencing_sim::worksheet::Step::Explore => {
                let href = query_of(View::Explore, &scenario.get_untracked(), lab.difference.get_untracked(), None, None);
                view! { <p class="next-step"><a class="button" href=format!("?{href}") target=embedded.then_some("_top") data-testid=format!("{id}-next")>{step.words}" →"</a></p> }.into_any()
            }
        })
    }
}

/// For instructors: a handout to print (one page per run, `print.css`;
/// the button is `theme.js`'s), and the question builder for this run (the
/// full build's view: a link, so the race's own build carries none of it).
#[component]
fn TeachBar(scenario: RwSignal<Scenario>, embedded: bool) -> impl IntoView {
    let question = (!embedded).then(|| {
        let href = move || format!("?{}", scenario.with(|scenario| query_of(View::Build, scenario, Difference::Fencing, None, None)));
        view! { <a class="button" href=href data-testid="race-make-question">"? Make a question from this run"</a> }
    });
    view! {
        <div class="teach" role="group" aria-label="For instructors">
            <button type="button" data-print="" data-testid="race-print">
                <svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
                    <path d="M4 6V1h8v5M4 12H1V6h14v6h-3M4 9h8v6H4z" fill="none" stroke="currentColor" stroke-width="1.6"/>
                </svg>
                " Print handout"
            </button>
            {question}
        </div>
    }
}

/// The handout printing gives (`print.css` shows it and nothing else; the
/// screen never does; it is written when the browser starts printing): the scenario and its faults, the run's story as a
/// sequence diagram (the events that change it, and the writes), and the
/// outcome and the store at the end of the run, whatever the cursor says.
/// Scaled to one page.
#[component]
fn Handout(pane: Memo<Pane>, scenario: RwSignal<Scenario>) -> impl IntoView {
    // Written only while printing (the browser says so before and after):
    // the page never holds a second copy of the run's words.
    let printing = RwSignal::new(false);
    crate::shell::browser::while_mounted(leptos::ev::beforeprint, move |_| printing.set(true));
    crate::shell::browser::while_mounted(leptos::ev::afterprint, move |_| printing.set(false));
    // A print preview built from print media fires no beforeprint: the
    // media query says it too.
    // (Kept in the owner's local storage: a JS closure never leaves this thread.)
    let print_media = StoredValue::new_local(crate::shell::browser::on_media_change("print", move |matches| printing.set(matches)));
    on_cleanup(move || {
        print_media.try_with_value(crate::shell::browser::MediaListener::remove);
    });
    view! {
        <section class="handout" aria-hidden="true">
            {move || printing.get().then(|| pane.with(|pane| scenario.with(|scenario| handout(pane, scenario))))}
        </section>
    }
}

/// The handout: the words, the whole run's story as the overview's table
/// (its text keeps its size on paper, where a scaled diagram would shrink
/// below 8 pt; a drawing, written as a string), the outcome. The table's type
/// is as large as the page has room for: a short run fills the page, a long
/// one still fits it.
fn handout(pane: &Pane, scenario: &Scenario) -> impl IntoView {
    let last = pane.trace.events.len().checked_sub(1).map(|last| last as u32);
    let size = match crate::race::overview::lines(pane) {
        lines if lines <= 18 => "large",
        lines if lines <= 26 => "medium",
        lines if lines <= 40 => "small",
        _ => "tiny",
    };
    let (class, icon, words) = crate::race::outcome::banner(crate::race::outcome::verdict_at(pane, last).as_ref());
    let tally = last.and_then(|index| pane.event(index)).map(|event| event.tally).unwrap_or_default();
    let rightful = pane.trace.summary.rightful_writes_rejected > 0;
    let link = format!("{}?{}", crate::shell::embed::base_url(), query_of(View::Race, scenario, Difference::Fencing, None, None));
    let faults = scenario.faults.iter().map(|fault| view! { <li>{fault.describe()}</li> }).collect_view();
    view! {
        <h2 class="handout-title">"Fencing Lab — one run"</h2>
        <p class="handout-scenario">{scenario_line(scenario)}</p>
        <p class="handout-link">{link}</p>
        <ul class="handout-faults">{faults}</ul>
        <p class="handout-legend">
            "◆ granted · ◇ lease gone · ‖ paused · ▶ resumes · → sends a write · ✓ accepted · ✗ refused or lost · ! a rightful write refused · ⚠ zombie write · ☠ overwrote newer data · ✱ crashed"
        </p>
        <div class="handout-grid">
            <div class="handout-story" data-size=size inner_html=crate::race::overview::markup(pane, last, "handout")></div>
            <div class="handout-outcome">
                <p class=class><span class="verdict-icon">{icon}</span><span>{words}</span></p>
                {crate::race::outcome::counters(tally, Vec::new(), rightful, "handout")}
                <section class="store-panel">
                    <h3>"Store at the end"</h3>
                    {crate::race::store_panel::contents(crate::race::store_panel::Shown::of(pane, last), "handout")}
                </section>
            </div>
        </div>
    }
}
