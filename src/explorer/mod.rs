//! "Can this go wrong?": the explore view (and `embed=explore`). The learner
//! picks a property; the core's explorer searches the scenario's design (its
//! own faults set aside) in slices between frames, with a progress bar and
//! Cancel. A counterexample opens as a normal run in the race view, with
//! its faults, its link and its cause chain; "none found" shows the core's
//! claim of exactly what was searched. Lives in the full entry point only:
//! the race's first load carries a link here, not the explorer.

pub mod found;
pub mod search;

use crate::explorer::found::{Found, FoundCard};
use crate::explorer::search::{Phase, Search};
use crate::shell::app::Lab;
use crate::shell::browser::focus_soon;
use crate::shell::embed::EmbedButton;
use crate::shell::route::{join, query_of, split_query, View};
use crate::shell::{browser, notice};
use crate::RaceView;
use fencing_sim::explore::{Explorer, Outcome};
pub use fencing_sim::permalink::page::read_choice;
use fencing_sim::property::Property;
use fencing_sim::Scenario;
use leptos::ev;
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate};
use leptos_router::NavigateOptions;
use wasm_bindgen::JsCast;

/// The explorer's own keys: `property=…&faults_max=…`.
pub fn choice_query(property: Property, faults_max: u8) -> String {
    format!("property={}&faults_max={faults_max}", property.name())
}

/// The design's facts, the faults set aside, and (given the race's query
/// for it) a link to change it.
pub fn design_facts(scenario: &Scenario, race_query: Option<String>) -> impl IntoView {
    let facts = fencing_sim::explore::design::facts(scenario)
        .into_iter()
        .map(|(term, value)| view! { <div><dt>{term}</dt><dd>{value}</dd></div> })
        .collect_view();
    let faults: Vec<String> = scenario.faults.iter().map(|fault| fault.describe()).collect();
    let whose = if faults.len() == 1 { "fault is" } else { "faults are" };
    let set_aside = (!faults.is_empty()).then(|| {
        let words = format!("The scenario's own {whose} set aside ({}): the search places its own.", faults.join("; "));
        view! { <p class="hint" data-testid="explore-set-aside">{words}</p> }
    });
    let change = race_query.map(|query| view! { <p class="hint"><a href=format!("?{query}")>"Change the design in the race"</a></p> });
    view! {
        <dl class="design-facts" data-testid="explore-design">{facts}</dl>
        {set_aside}
        {change}
    }
}

/// The two questions as radio groups: which property, how many faults,
/// checked as the page opened (the radios then hold the learner's choice).
/// `sizes`: the schedules of one fault and of up to two, once known.
pub fn choices(property: Property, faults_max: u8, sizes: Signal<Option<(usize, usize)>>) -> impl IntoView {
    let properties = Property::ALL
        .map(|choice| {
            let name = choice.name();
            view! {
                <label class="option">
                    <input type="radio" name="property" value=name checked=choice == property data-testid=format!("explore-property-{name}")/>
                    <span><code>{name}</code>{format!(": {}", choice.describe())}</span>
                </label>
            }
        })
        .collect_view();
    let counts = [1u8, 2].map(|count| {
        let words = move || match (count, sizes.get()) {
            (1, Some((singles, _))) => format!("One: each placement alone ({singles} schedules)"),
            (1, None) => "One: each placement alone".to_string(),
            (_, Some((_, all))) => format!("Up to two: each alone, then every pair ({all} schedules)"),
            (_, None) => "Up to two: each alone, then every pair".to_string(),
        };
        view! {
            <label class="option">
                <input type="radio" name="faults_max" value=count checked=count == faults_max data-testid=format!("explore-faults-{count}")/>
                <span>{words}</span>
            </label>
        }
    });
    view! {
        <fieldset class="answer"><legend>"Which property must hold?"</legend>{properties}</fieldset>
        <fieldset class="answer"><legend>"Faults in a schedule"</legend>{counts}</fieldset>
    }
}

/// What the live region says: only when the search starts or ends (the
/// progress bar carries the count for whoever looks at it).
pub fn status(phase: &Phase) -> String {
    match phase {
        Phase::Idle => String::new(),
        Phase::Running => "Searching… Press Cancel or Escape to stop.".to_string(),
        Phase::Cancelled { tried, total } => {
            format!("Cancelled after {tried} of {total} schedules: an unfinished search claims nothing either way.")
        }
        Phase::Failed(why) => format!("This scenario cannot be searched: {why}"),
        Phase::Done(Outcome::Counterexample(found)) => {
            format!("Found a schedule that breaks the property after {} schedules.", found.schedules_tried)
        }
        Phase::Done(Outcome::None { schedules_tried, .. }) => format!("Nothing broke the property in {schedules_tried} schedules."),
    }
}

#[component]
pub fn ExploreView(
    /// Alone in an iframe: a counterexample plays inside the widget.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let lab = Lab::get();
    let page = split_query(&browser::query());
    let (first_property, first_faults, notices) = read_choice(&page.explorer);
    let property = RwSignal::new(first_property);
    let faults_max = RwSignal::new(first_faults);
    // In the lab the design is the lab's scenario; in a widget, its own
    // (the widget's race then shows the counterexample without losing it).
    let design = if embedded { RwSignal::new(lab.scenario.get_untracked()) } else { lab.scenario };
    let search = Search::new();
    Effect::watch(move || (property.get(), faults_max.get(), design.get()), move |_, _, _| search.reset(), false);
    let sizes = Memo::new(move |_| {
        design.with(|design| {
            let size = |faults_max| Explorer::new(design, Property::NoStaleOverwrite, faults_max).map(|explorer| explorer.total()).ok();
            size(1).zip(size(2))
        })
    });
    let search_query = move || {
        let own = choice_query(property.get(), faults_max.get());
        join(&query_of(View::Explore, &design.get(), lab.difference.get(), None, None), &own)
    };
    let open_found = opener(lab, embedded);
    let search_button = NodeRef::<leptos::html::Button>::new();
    let cancel_button = NodeRef::<leptos::html::Button>::new();
    let result_box = NodeRef::<leptos::html::Div>::new();
    let start = move |_| {
        let (query, chosen, open_found) = (search_query(), property.get_untracked(), open_found.clone());
        search.start(&design.get_untracked(), chosen, faults_max.get_untracked(), move |outcome| match outcome {
            Outcome::Counterexample(found) => open_found(Found::new(found, chosen, query.clone())),
            Outcome::None { .. } => focus_soon(move || result_box.get_untracked().map(Into::into)),
        });
        focus_soon(move || cancel_button.get_untracked().map(Into::into));
    };
    let cancel = move || {
        search.cancel();
        focus_soon(move || search_button.get_untracked().map(Into::into));
    };
    crate::shell::browser::while_mounted(ev::keydown, move |event| {
        if event.key() == "Escape" && search.running() {
            event.prevent_default();
            cancel();
        }
    });
    let choose = move |ev: ev::Event| {
        let Some(input) = ev.target().and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        match (input.name().as_str(), input.value().as_str()) {
            ("property", name) => property.set(Property::parse(name).unwrap_or(Property::NoStaleOverwrite)),
            ("faults_max", "1") => faults_max.set(1),
            ("faults_max", _) => faults_max.set(2),
            _ => {}
        }
    };
    let answer = move || match search.phase.get() {
        Phase::Done(Outcome::None { lead, searched_words, .. }) => nothing_found(lead, searched_words).into_any(),
        Phase::Failed(_) => view! { <p class="notice">{status(&search.phase.get_untracked())}</p> }.into_any(),
        Phase::Cancelled { .. } => {
            view! { <p class="notice" data-testid="explore-cancelled">{status(&search.phase.get_untracked())}</p> }.into_any()
        }
        _ => ().into_any(),
    };

    view! {
        <section id="explore" class="explore card" aria-labelledby="explore-title">
            {notice::notice_box(notices)}
            <h2 id="explore-title">"Can this go wrong?"</h2>
            <p class="explore-intro">
                "The model searches this design's fault schedules — every fault it allows (pauses, held writes, lost messages, crashes, partitions, clock jumps and drift) at every event of its run, alone and in pairs — for one that breaks the property you pick. A single fault found is the least that breaks it; a pair is the first found, made smaller. When none does, it says exactly what it tried."
            </p>
            // Folded, so that Search is in view at 1280×800 (issue 42, item 6).
            <details class="design-box">
                <summary class="design-title">"The design searched"</summary>
                <div class="design">
                    {move || {
                        // The lab links back to the race to change the design; a widget cannot.
                        let race = (!embedded).then(|| query_of(View::Race, &design.get(), lab.difference.get(), None, None));
                        design.with(|design| design_facts(design, race))
                    }}
                </div>
            </details>
            <fieldset class="explore-form" prop:disabled=move || search.running() on:change=choose>
                {choices(property.get_untracked(), faults_max.get_untracked(), sizes.into())}
            </fieldset>
            <div class="explore-actions">
                <button type="button" class="primary" node_ref=search_button on:click=start prop:disabled=move || search.running()
                    data-testid="explore-search">"Search"</button>
            </div>
            <Progress search cancel_button cancel=Callback::new(move |()| cancel())/>
            // Read aloud; what it says is on screen too (the bar, the answer).
            <p class="sr-only" role="status" data-testid="explore-status">{move || status(&search.phase.get())}</p>
            <div class="explore-result" tabindex="-1" node_ref=result_box data-testid="explore-result">{answer}</div>
            {(!embedded).then(|| view! {
                <EmbedButton widget="explore" title="Can this go wrong?" query=Signal::derive(search_query) height_px=900/>
            })}
        </section>
        {move || (embedded && matches!(search.phase.get(), Phase::Done(Outcome::Counterexample(_)))).then(|| {
            (view! { <FoundCard embedded=true/> }.into_any(), view! { <RaceView embedded=true/> }.into_any()).into_any()
        })}
    }
}

/// A search that found nothing: the model's lead, what was searched as a
/// short list, and the caveat on its own line.
pub fn nothing_found(lead: String, searched_words: Vec<String>) -> impl IntoView {
    let items = searched_words.into_iter().map(|item| view! { <li>{item}</li> }).collect_view();
    view! {
        <div class="verdict good" data-testid="explore-none">
            <span class="verdict-icon" aria-hidden="true">"✓"</span>
            <div>
                <p class="explore-lead" data-testid="explore-claim">{lead}</p>
                <h3>"What was searched"</h3>
                <ul class="explore-bounds" data-testid="explore-bounds">{items}</ul>
                <p class="hint">{fencing_sim::explore::CAVEAT}</p>
            </div>
        </div>
    }
}

/// What happens to a counterexample: in the lab, the race view opens on it
/// (a new history entry: Back returns to the search); in a widget, it plays
/// below the search.
fn opener(lab: Lab, embedded: bool) -> impl Fn(Found) + Clone + 'static {
    // Natively (a first screen drawn at build time) there is no router.
    let routed = !embedded && crate::shell::browser::IN_BROWSER;
    let navigate = routed.then(use_navigate);
    let path = routed.then(|| use_location().pathname);
    move |found: Found| {
        let scenario = found.scenario.clone();
        found.keep();
        lab.cursor.set(None);
        lab.scenario.set(scenario.clone());
        if let (Some(navigate), Some(path)) = (&navigate, path) {
            let query = query_of(View::Race, &scenario, lab.difference.get_untracked(), None, None);
            navigate(&format!("{}?{query}", path.get_untracked()), NavigateOptions::default());
        }
    }
}

/// The progress bar (schedules explored of the total) and Cancel, while searching.
#[component]
fn Progress(search: Search, cancel_button: NodeRef<leptos::html::Button>, cancel: Callback<()>) -> impl IntoView {
    let shown = move || search.tried.get().min(search.total.get());
    let text = move || format!("{} of {} schedules", shown(), search.total.get());
    let width = move || (shown() * 1000).checked_div(search.total.get()).unwrap_or(0).to_string();
    view! {
        <div class="explore-progress" hidden=move || !search.running()>
            <div class="meter" role="progressbar" aria-label="Schedules explored" aria-valuemin="0"
                aria-valuemax=move || search.total.get().to_string() aria-valuenow=move || shown().to_string() aria-valuetext=text
                data-testid="explore-progress">
                <svg viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true"><rect height="10" width=width/></svg>
            </div>
            <span class="meter-text" aria-hidden="true">{text}</span>
            <button type="button" node_ref=cancel_button on:click=move |_| cancel.run(()) data-testid="explore-cancel">"Cancel"</button>
        </div>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use fencing_sim::presets;

    fn html(view: impl FnOnce() -> AnyView) -> String {
        Owner::new().with(|| view().to_html())
    }

    #[test]
    fn the_design_says_what_decides_the_answer_and_which_faults_it_sets_aside() {
        let gc_pause = presets::classic();
        let drawn = html(|| design_facts(&gc_pause, Some("preset=gc-pause&seed=1".to_string())).into_any());
        assert!(drawn.contains("<dt>Token</dt><dd>SET NX, then INCR (two round trips)</dd>"), "{drawn}");
        assert!(drawn.contains("<dt>Fencing</dt><dd>off</dd>"), "{drawn}");
        assert!(drawn.contains("own fault is set aside (A pauses 15000 ms before write 1)"), "{drawn}");
        assert!(drawn.contains(r#"href="?preset=gc-pause&amp;seed=1""#), "{drawn}");
        let consensus = presets::build("consensus-gc-pause").expect("a preset");
        let drawn = html(|| design_facts(&Scenario { faults: vec![], ..consensus }, None).into_any());
        assert!(!drawn.contains("<dt>Token</dt>"), "a consensus lock has no token source to choose: {drawn}");
        assert!(!drawn.contains("set aside") && !drawn.contains("href"), "{drawn}");
        let sizes = Signal::derive(|| Some((72, 2628)));
        let drawn = html(|| choices(Property::LockEventuallyFree, 1, sizes).into_any());
        assert!(drawn.contains(r#"value="lock_eventually_free" checked"#), "{drawn}");
        assert!(drawn.contains(r#"value="1" checked"#) && drawn.contains("(2628 schedules)"), "{drawn}");
        assert_eq!(drawn.matches(" checked").count(), 2, "one choice per question: {drawn}");
    }
}
