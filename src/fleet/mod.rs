//! The fleet view (`view=fleet`, `embed=fleet`): N workers running jobs for
//! hours or days, pausing as a distribution draws; the counters climb as the
//! simulated clock runs, in slices between frames. A learner picks an
//! incident and reads its window, replayed from the same run, or draws the
//! lease trade. The link, its bounds and every figure are the core's.

pub mod chart;
pub mod trade_run;

use crate::shell::embed::EmbedButton;
use crate::shell::slices::{Progress, Task, STEPS_PER_LOOK};
use crate::shell::{browser, notice};
use fencing_sim::fleet::{self, FleetReport, Stepper, TradeRow, WindowStepper, TRADE_LEASES_MS, WINDOW_MARGIN_US};
use fencing_sim::incident::Incident;
use fencing_sim::pauses::{PauseShape, SHAPES};
use fencing_sim::permalink::fleet::{self as fleet_link, FleetLink};
use fencing_sim::Trace;
use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// How often a running fleet's figures are drawn anew.
const REDRAW_MS: f64 = 100.0;
/// The performance measures the bench reads.
pub const MEASURE_RUN: &str = "fencing-lab-fleet";
pub const MEASURE_TRADE: &str = "fencing-lab-fleet-trade";
/// The spans the form offers (a link may carry any other).
const SPANS_MS: [(u64, &str); 4] = [(3_600_000, "1 hour"), (21_600_000, "6 hours"), (86_400_000, "1 day"), (604_800_000, "1 week")];

#[component]
pub fn FleetView(
    /// Alone in an iframe: the link is the frame's, never rewritten.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let rest = crate::shell::route::split_query(&browser::query()).rest;
    let (first, first_notices) = fleet_link::parse(&rest);
    // The fingerprint the link came with, checked once its fleet has run.
    let carried = StoredValue::new(rest.split('&').find_map(|pair| pair.strip_prefix("fp=")).map(str::to_string));
    let link = RwSignal::new(first);
    let notices = RwSignal::new(first_notices);
    let (run, report) = (Task::new(), RwSignal::new(None::<FleetReport>));
    let (window_task, picked, window) = (Task::new(), RwSignal::new(None::<usize>), RwSignal::new(None::<(Trace, Incident)>));
    let (trade_task, rows, trade_error) = (Task::new(), RwSignal::new(Vec::<TradeRow>::new()), RwSignal::new(None::<String>));
    // Off at first: the renewal curve's five more fleets are computed only
    // when the learner asks for them, so the first comparison answers fast.
    let with_renewal = RwSignal::new(false);
    // The same trade under the shape capped at its cited bound (issue 41,
    // finding 4): asked for on its own, like the renewal curve.
    let with_bounded = RwSignal::new(false);
    let (bounded_task, bounded_rows) = (Task::new(), RwSignal::new(Vec::<TradeRow>::new()));
    Effect::new(move |_| {
        let link = link.get();
        if !embedded {
            browser::replace_query(&with_story(&link, None));
        }
        window_task.cancel();
        trade_task.cancel();
        bounded_task.cancel();
        picked.set(None);
        window.set(None);
        rows.set(Vec::new());
        bounded_rows.set(Vec::new());
        start_run(run, report, &link);
    });
    // Once the fleet has run: the link gains its fingerprint, and the one it
    // came with (if it is still that fleet's) is checked against the report.
    Effect::new(move |_| {
        if run.running.get() {
            return;
        }
        report.with(|report| {
            let Some(report) = report else { return };
            if let Some(text) = carried.get_value().filter(|_| link.get_untracked() == first) {
                carried.set_value(None);
                let changed = fleet_link::fingerprint_notice(&text, report);
                notices.update(|notices| notices.extend(changed));
            }
            if !embedded {
                browser::replace_query(&with_story(&link.get_untracked(), Some(report)));
            }
        });
    });
    // The form's fields are bound to the link: nothing is rewritten, so the
    // field changed keeps the focus.
    let change = move |ev: ev::Event| {
        let Some((name, value)) = changed_field(&ev) else { return };
        let (next, said) = fleet_link::parse(&format!("{}&{name}={value}", fleet_link::to_query(&link.get_untracked())));
        notices.set(said);
        if next == link.get_untracked() {
            // The link is unchanged, so nothing moves the field: it is put
            // back by hand to its default, the value the link keeps.
            if let Some(input) = ev.target().and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                input.set_value(&input.default_value());
            }
        } else {
            link.set(next);
        }
    };
    let pick = move |ev: ev::Event| {
        let value = ev.target().and_then(|target| target.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|select| select.value());
        let nth = value.and_then(|value| value.parse::<usize>().ok());
        picked.set(nth);
        window.set(None);
        let incident =
            nth.and_then(|nth| report.with_untracked(|report| report.as_ref().and_then(|report| report.incidents.get(nth).copied())));
        match incident {
            Some(incident) => start_window(window_task, window, &link.get_untracked(), incident),
            None => window_task.cancel(),
        }
    };
    let draw_trade = move |_| {
        let (scenario, renewal) = (link.get_untracked().scenario(), with_renewal.get_untracked());
        // The default fleet's trade ships with the page (`fleet::shipped`):
        // the same rows its runs give, at once.
        match (fleet::shipped::trade(&scenario, renewal), fleet::sides(&TRADE_LEASES_MS, renewal)) {
            (Some(shipped), _) => {
                trade_task.cancel();
                trade_error.set(None);
                rows.set(shipped.to_vec());
            }
            (None, Ok(sides)) => trade_run::start(trade_task, rows, trade_error, scenario.clone(), sides, Some(MEASURE_TRADE)),
            (None, Err(problem)) => trade_error.set(Some(problem.to_string())),
        }
        bounded_rows.set(Vec::new());
        bounded_task.cancel();
        if with_bounded.get_untracked() {
            match (fleet::shipped::bounded(&scenario), fleet::bounded_sides(&scenario)) {
                (Some(shipped), _) => bounded_rows.set(shipped.to_vec()),
                (None, Some((bounded, _, sides))) => trade_run::start(bounded_task, bounded_rows, trade_error, bounded, sides, None),
                (None, None) => {}
            }
        }
    };
    let bound = move || link.with(|link| link.pauses.bounded().map(|(_, bound)| bound));
    // A picked incident's replay is scrolled into view as it starts (its
    // progress) and again once its story is drawn (issue 42, finding 7).
    Effect::new(move |_| {
        let shown = window.with(Option::is_some);
        if picked.get().is_some() || shown {
            request_animation_frame(|| browser::bring_into_view(".fleet-window-box"));
        }
    });
    crate::shell::browser::while_mounted(ev::keydown, move |event| {
        let busy = run.running.get_untracked() || trade_task.running.get_untracked() || bounded_task.running.get_untracked();
        if event.key() == "Escape" && busy {
            event.prevent_default();
            run.cancel();
            trade_task.cancel();
            bounded_task.cancel();
        }
    });
    // With the fleet's fingerprint once it has run.
    let embed_query = Signal::derive(move || {
        let done = !run.running.get();
        report.with(|report| with_story(&link.get(), report.as_ref().filter(|_| done)))
    });

    view! {
        <section id="fleet" class="fleet card" aria-labelledby="fleet-title">
            {move || notice::notice_box(notices.get())}
            <h2 id="fleet-title">"A fleet: rarer, not impossible"</h2>
            <p class="fleet-intro">
                "Workers run jobs back to back — acquire the lock, work, write, release, rest 100 ms — for a span of simulated time, each pausing now and then as the distribution below draws. No pause is placed by hand: the zombie writes are whatever the draws produce, counted per 10,000 jobs with a 95 % interval."
            </p>
            <form class="fleet-form" on:change=change on:submit=|ev: ev::SubmitEvent| ev.prevent_default()>{fields(link)}</form>
            <p class="hint fleet-basis">{move || link.with(basis)}</p>
            <Progress task=run label="Simulated time run" cancel=Callback::new(move |()| run.cancel()) testid="fleet-progress"/>
            <p class="sr-only" role="status" data-testid="fleet-status">{move || status(run.running.get(), report.get().as_ref(), &link.get())}</p>
            <div class="fleet-results">
                {move || report.with(|report| report.as_ref().map(|report| {
                    let span_us = link.with_untracked(|link| link.span_ms * 1000);
                    // A run cut short at its event bound says so above its figures.
                    let cut_short = fleet::cut_short(report, span_us / 1000)
                        .map(|said| view! { <p class="fleet-cut-short" role="note" data-testid="fleet-cut-short">{said}</p> });
                    let figures = format!("{}<figure class=\"fleet-timeline\">{}</figure>", chart::counters(report), chart::timeline(report, span_us));
                    view! { {cut_short}<div inner_html=figures></div> }
                }))}
            </div>
            <div class="fleet-incidents" hidden=move || run.running.get() || report.with(|report| report.is_none())>
                <h3>"The window around an incident"</h3>
                <p class="hint">{move || incidents_hint(report.get().as_ref())}</p>
                <label class="field">
                    <span>"Incident"</span>
                    <select on:change=pick data-testid="fleet-incident"
                        >{move || report.with(|report| report.as_ref().map(|report| incident_options(report, picked.get_untracked())))}
                    </select>
                </label>
                <div class="fleet-window-box">
                <Progress task=window_task label="Replaying the run up to the incident" cancel=Callback::new(move |()| window_task.cancel()) testid="fleet-window-progress"/>
                <div class="fleet-window" inner_html=move || window.with(|window| window.as_ref().map(|(trace, incident)| {
                    chart::story(trace, &fencing_sim::fleet::Story::of(incident, trace), incident)
                }).unwrap_or_default())></div>
                </div>
            </div>
            <div class="fleet-trade">
                <h3>"The trade: a longer lease against a longer wait"</h3>
                <p class="hint">{trade_hint()}</p>
                <div class="explore-actions">
                    <label class="option"><input type="checkbox" prop:checked=move || with_renewal.get()
                        on:change=move |ev| with_renewal.set(event_target_checked(&ev)) data-testid="fleet-trade-renewal"/>
                        <span>"Renewal at ttl/3 too (five more runs)"</span></label>
                    <label class="option"><input type="checkbox" prop:checked=move || with_bounded.get() prop:disabled=move || bound().is_none()
                        on:change=move |ev| with_bounded.set(event_target_checked(&ev)) data-testid="fleet-trade-bounded"/>
                        <span>{move || bounded_label(bound())}</span></label>
                    <button type="button" class="primary" on:click=draw_trade
                        prop:disabled=move || trade_task.running.get() || bounded_task.running.get() || run.running.get()
                        data-testid="fleet-trade-draw">"Compare lease lengths"</button>
                </div>
                <Progress task=trade_task label="Runs of the trade done" cancel=Callback::new(move |()| trade_task.cancel()) testid="fleet-trade-progress"/>
                <p class="notice" hidden=move || trade_error.with(Option::is_none)>{move || trade_error.get()}</p>
                <div class="fleet-trade-result">{move || rows.with(|rows| trade(rows, trade_task.running.get()))}</div>
                <Progress task=bounded_task label="Runs of the bounded trade done" cancel=Callback::new(move |()| bounded_task.cancel()) testid="fleet-trade-bounded-progress"/>
                <div class="fleet-trade-result fleet-trade-bounded" data-testid="fleet-trade-bounded-result"
                    >{move || bounded_rows.with(|rows| bounded_trade(rows, bound(), bounded_task.running.get()))}</div>
            </div>
            {(!embedded).then(|| view! { <EmbedButton widget="fleet" title="A fleet" query=embed_query height_px=1400/> })}
        </section>
    }
}

/// Runs the fleet in slices; the report after each slice is the figures so far.
/// The fleet view's query for `link`, with the fingerprint of its finished
/// `report` when there is one.
fn with_story(link: &FleetLink, report: Option<&FleetReport>) -> String {
    let query = format!("view=fleet&{}", fleet_link::to_query(link));
    match report {
        Some(report) => format!("{query}&fp={}", fleet_link::FleetStory::of(report).to_text()),
        None => query,
    }
}

fn start_run(task: Task, report: RwSignal<Option<FleetReport>>, link: &FleetLink) {
    // The link's reader validated the fleet: nothing to run is a blank, not a panic.
    let Ok(mut stepper) = Stepper::new(&link.scenario()) else { return report.set(None) };
    let mut shown_ms = f64::NEG_INFINITY;
    task.start(Some(MEASURE_RUN), move |time_up| {
        let ended = loop {
            if stepper.advance(STEPS_PER_LOOK) {
                break true;
            }
            if time_up() {
                break false;
            }
        };
        // The figures so far, ten times a second: drawing them after every
        // slice would take longer than the slices.
        if ended || crate::shell::slices::now_ms() - shown_ms >= REDRAW_MS {
            report.set(Some(stepper.report()));
            shown_ms = crate::shell::slices::now_ms();
        }
        (!ended).then(|| stepper.progress_milli())
    });
}

/// Replays the run around `incident` in slices, then shows its story.
fn start_window(task: Task, window: RwSignal<Option<(Trace, Incident)>>, link: &FleetLink, incident: Incident) {
    let Ok(stepper) = WindowStepper::new(&link.scenario(), &incident, WINDOW_MARGIN_US) else { return };
    let mut stepper = Some(stepper);
    task.start(None, move |time_up| {
        let running = stepper.as_mut()?;
        loop {
            if running.advance(STEPS_PER_LOOK) {
                window.set(stepper.take().and_then(WindowStepper::into_trace).map(|trace| (trace, incident)));
                return None;
            }
            if time_up() {
                return Some(running.progress_milli());
            }
        }
    });
}

/// The field an input or a select changed, as a link's key and value.
fn changed_field(ev: &ev::Event) -> Option<(String, String)> {
    let target = ev.target()?;
    if let Some(input) = target.dyn_ref::<web_sys::HtmlInputElement>() {
        let value = if input.type_() == "checkbox" { if input.checked() { "on" } else { "off" }.to_string() } else { input.value() };
        return Some((input.name(), value.trim().to_string()));
    }
    let select = target.dyn_ref::<web_sys::HtmlSelectElement>()?;
    Some((select.name(), select.value()))
}

/// A number field bound to the link: `value` reads it. The attribute is what
/// the first screen, drawn at build time, carries; the property is what a
/// field already edited shows.
fn number(
    link: RwSignal<FleetLink>,
    name: &'static str,
    label: &'static str,
    value: fn(&FleetLink) -> u64,
    min: u64,
    max: u64,
) -> impl IntoView {
    let value = move || link.with(value);
    view! {
        <label class="field">
            <span>{label}</span>
            <input type="number" inputmode="numeric" name=name value=value prop:value=value min=min max=max data-testid=format!("fleet-{name}")/>
        </label>
    }
}

/// A switch bound to the link.
fn check(link: RwSignal<FleetLink>, name: &'static str, label: &'static str, on: fn(&FleetLink) -> bool) -> impl IntoView {
    let on = move || link.with(on);
    view! {
        <label class="option">
            <input type="checkbox" name=name checked=on prop:checked=on data-testid=format!("fleet-{name}")/>
            <span>{label}</span>
        </label>
    }
}

/// The form's fields, bound to the link (a refused value leaves the link, and
/// so the field, as it was: `change` puts the field back).
fn fields(link: RwSignal<FleetLink>) -> impl IntoView {
    // The spans offered: the usual ones, and the link's own if it is another.
    let spans = Memo::new(move |_| {
        let span_ms = link.with(|link| link.span_ms);
        let mut spans: Vec<(u64, String)> = SPANS_MS.iter().map(|(ms, words)| (*ms, words.to_string())).collect();
        if !spans.iter().any(|(ms, _)| *ms == span_ms) {
            spans.push((span_ms, fleet::lasting(span_ms * 1000)));
        }
        spans
    });
    let span_options = move || {
        spans
            .get()
            .into_iter()
            .map(|(ms, words)| {
                let chosen = move || link.with(|link| link.span_ms == ms);
                view! { <option value=ms selected=chosen prop:selected=chosen>{words}</option> }
            })
            .collect_view()
    };
    let shape_options = SHAPES
        .iter()
        .map(|facts| {
            let chosen = move || link.with(|link| facts.shape == link.pauses);
            view! { <option value=facts.id selected=chosen prop:selected=chosen>{facts.name}</option> }
        })
        .collect_view();
    let is_custom = Memo::new(move |_| link.with(|link| matches!(link.pauses, PauseShape::Custom(_))));
    // Written when the shape becomes custom, not at each edit of its fields.
    let custom = move || {
        is_custom.get().then(|| {
            view! {
                <fieldset class="fleet-custom">
                    <legend>"Custom pauses: a log-normal body, a Pareto tail"</legend>
                    {number(link, "median_ms", "Median (ms)", |link| link.pauses.law().median_us / 1000, 1, 86_400_000)}
                    {number(link, "p99_ms", "99th percentile (ms)", |link| link.pauses.law().p99_us / 1000, 1, 86_400_000)}
                    {number(link, "tail_milli", "Tail exponent (thousandths: 1100 is 1.1)", |link| u64::from(link.pauses.law().tail_exponent_milli), 500, 20_000)}
                    {number(link, "per_hour", "Pauses per hour of running", |link| u64::from(link.pauses.law().per_hour), 1, 36_000)}
                </fieldset>
            }
        })
    };
    view! {
        <div class="fleet-fields">
            {number(link, "workers", "Workers", |link| u64::from(link.workers), 2, 64)}
            <label class="field">
                <span>"Simulated span"</span>
                <select name="span_ms" data-testid="fleet-span_ms">{span_options}</select>
            </label>
            <label class="field">
                <span>"Pauses"</span>
                <select name="pauses" data-testid="fleet-pauses-shape">
                    {shape_options}
                    <option value="custom" selected=is_custom prop:selected=is_custom>"Custom"</option>
                </select>
            </label>
            {number(link, "ttl_ms", "Lease (ms)", |link| link.ttl_ms, 1, fencing_sim::scenario::TTL_MS_MAX)}
            {number(link, "work_ms", "Work per job (ms)", |link| link.work_ms, 0, fleet_link::FLEET_WORK_MS_MAX)}
            {number(link, "seed", "Seed", |link| link.seed, 0, u64::MAX)}
        </div>
        {custom}
        <div class="fleet-switches">
            {check(link, "fencing", "Fencing: the store checks each write's token", |link| link.fencing)}
            {check(link, "renewal", "Renewal every ttl/3 while holding", |link| link.renewal)}
        </div>
    }
}

/// The incident picker's options: a prompt, then every incident kept,
/// `picked` chosen.
fn incident_options(report: &FleetReport, picked: Option<usize>) -> impl IntoView {
    let incidents = report
        .incidents
        .iter()
        .enumerate()
        .map(|(nth, incident)| {
            view! { <option value=nth selected=picked == Some(nth)>{chart::incident_label(incident, nth, report.incidents_total)}</option> }
        })
        .collect_view();
    view! {
        <option value="">"Choose an incident…"</option>
        {incidents}
    }
}

/// What the chosen shape's figures are and what they rest on.
fn basis(link: &FleetLink) -> impl IntoView {
    let law = link.pauses.law();
    let figures = format!(
        "median {}, 99th percentile {}, tail exponent {}.{:03}, {} pauses an hour of running",
        fleet::lasting(law.median_us),
        fleet::lasting(law.p99_us),
        law.tail_exponent_milli / 1000,
        law.tail_exponent_milli % 1000,
        law.per_hour
    );
    match link.pauses.facts() {
        Some(facts) => view! { <strong>{facts.name}</strong>{format!(": {figures}. {}.", facts.basis)} }.into_any(),
        None => view! { <strong>"Custom"</strong>{format!(": {figures}.")} }.into_any(),
    }
}

/// What the live region says: only when a run starts or ends.
fn status(running: bool, report: Option<&FleetReport>, link: &FleetLink) -> String {
    match (running, report) {
        (true, _) => {
            format!("Running {} workers for {}… Press Cancel or Escape to stop.", link.workers, fleet::lasting(link.span_ms * 1000))
        }
        (false, Some(report)) => format!(
            "{} jobs: {} zombie writes, {} stale overwrites, {} rejected writes.",
            fleet::thousands(report.jobs),
            report.zombie_writes,
            report.stale_overwrites,
            report.rejected_writes
        ),
        (false, None) => String::new(),
    }
}

fn incidents_hint(report: Option<&FleetReport>) -> String {
    match report {
        Some(report) if report.incidents_total == 0 => {
            "No write went wrong in this run. Not impossible: a longer span, more workers or another seed may show one.".to_string()
        }
        Some(report) if report.incidents.len() < report.incidents_total as usize => format!(
            "{} incidents; the first {} are listed. Each opens the window around it, replayed from the same run.",
            report.incidents_total,
            report.incidents.len()
        ),
        _ => "Each incident opens the window around it: the same run replayed from its start, told from a little before the writer's pause to a little after its write.".to_string(),
    }
}

fn trade_hint() -> String {
    let leases: Vec<String> = TRADE_LEASES_MS.iter().map(|ttl_ms| format!("{} s", ttl_ms / 1000)).collect();
    format!(
        "The same fleet at each lease ({}), and with fencing at the shortest: zombie writes per 10,000 jobs against the wait a genuine crash of the holder costs everyone else. Each run takes as long as the fleet above.",
        leases.join(", ")
    )
}

/// The trade's charts, its sentence (once the runs it needs are in) and its
/// table, and where the rows came from if they came with the page. The
/// charts and the table are the fleet's figures (`chart`), written as strings.
fn trade(rows: &[TradeRow], running: bool) -> Option<impl IntoView> {
    if rows.is_empty() {
        return None;
    }
    let sentence =
        fleet::quadrupling(rows).map(|sentence| view! { <p class="fleet-summary" data-testid="fleet-trade-summary">{sentence}</p> });
    let shipped = (rows == fleet::shipped::TRADE).then(|| {
        view! {
            <p class="hint" data-testid="fleet-trade-shipped">
                "This is the default fleet: its runs were made when the page was built (the same runs, the same figures as "
                <code>"fencing-lab fleet --trade page"</code>
                "), so they show at once."
            </p>
        }
    });
    Some(view! {
        {sentence}
        <div inner_html=chart::trade(rows)></div>
        {still_running(running)}
        {shipped}
        <details><summary>"The figures as a table"</summary><div inner_html=chart::trade_table(rows)></div></details>
    })
}

/// Said below a trade's charts while its runs are still coming in.
fn still_running(running: bool) -> Option<impl IntoView> {
    running.then(|| view! { <p class="hint">"More runs are on their way…"</p> })
}

/// The checkbox's words: the shape's cap and where it comes from.
fn bounded_label(bound: Option<&fencing_sim::pauses::Bound>) -> String {
    match bound {
        Some(bound) => format!("Under the same shape with every pause capped at {} too ({})", bound.words, bound.source),
        None => "Under a bounded shape too (a custom shape has no cited bound)".to_string(),
    }
}

/// The trade under the bounded shape: its sentence, its charts and its table.
fn bounded_trade(rows: &[TradeRow], bound: Option<&fencing_sim::pauses::Bound>, running: bool) -> Option<impl IntoView> {
    let bound = bound.filter(|_| !rows.is_empty())?;
    let sentence = if running { None } else { fleet::bounded(rows, bound) }
        .map(|sentence| view! { <p class="fleet-summary" data-testid="fleet-trade-bounded-summary">{sentence}</p> });
    Some(view! {
        <h4>{format!("The same trade with every pause capped at {}", bound.words)}</h4>
        {sentence}
        <div inner_html=chart::trade_with(rows, "fleet-trade-bounded")></div>
        {still_running(running)}
        <details><summary>"The bounded figures as a table"</summary><div inner_html=chart::trade_table(rows)></div></details>
    })
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn drawn(query: &str) -> String {
        let (link, notices) = fleet_link::parse(query);
        assert!(notices.is_empty(), "{notices:?}");
        Owner::new().with(|| {
            let link = RwSignal::new(link);
            view! { <form>{fields(link)}</form><p>{move || link.with(basis)}</p> }.to_html()
        })
    }

    #[test]
    fn the_incident_picker_lists_every_kept_incident_and_marks_the_picked_one() {
        // Frequent, long pauses (median 2 s, p99 30 s, ten a minute), so five
        // simulated minutes of eight workers have incidents; fixed seed.
        let (link, notices) =
            fleet_link::parse("workers=8&span_ms=300000&pauses=custom&median_ms=2000&p99_ms=30000&tail_milli=1000&per_hour=600");
        assert!(notices.is_empty(), "{notices:?}");
        let report = fleet::run(&link.scenario()).expect("a valid fleet");
        assert!(!report.incidents.is_empty(), "the stormy fleet has incidents");
        let drawn = |picked| Owner::new().with(|| view! { <select>{incident_options(&report, picked)}</select> }.to_html());
        let html = drawn(Some(0));
        assert_eq!(html.matches("<option ").count(), report.incidents.len() + 1, "a prompt, then each incident: {html}");
        assert_eq!(html.matches(" selected>").count(), 1, "{html}");
        assert!(html.contains(&format!(r#"<option value="0" selected>Incident 1 of {}: "#, report.incidents_total)), "{html}");
        assert_eq!(drawn(None).matches(" selected>").count(), 0);
    }

    #[test]
    fn the_shipped_trade_says_where_its_rows_came_from_above_its_table() {
        let rows = fleet::shipped::TRADE;
        let html = Owner::new().with(|| view! { <div>{trade(rows, false)}</div><div>{trade(&[], true)}</div> }.to_html());
        assert!(
            html.contains(r#"data-testid="fleet-trade-shipped""#) && html.contains("<code>fencing-lab fleet --trade page</code>"),
            "{html}"
        );
        assert!(!html.contains("More runs are on their way"), "{html}");
        assert!(html.contains(&chart::trade_table(rows)), "the table is the chart module's: {html}");
        assert!(html.ends_with("<div><!></div>"), "no rows, nothing drawn: {html}");
        if let Some(sentence) = fleet::quadrupling(rows) {
            assert!(html.contains(r#"data-testid="fleet-trade-summary""#), "{sentence}: {html}");
        }
    }

    #[test]
    fn the_fleet_form_shows_the_links_values_and_a_custom_shape_its_figures() {
        let html = drawn("workers=12&ttl_ms=30000&span_ms=7200000&fencing=on");
        assert!(html.contains(r#"name="workers" value="12""#) && html.contains(r#"name="ttl_ms" value="30000""#), "{html}");
        assert!(html.contains(r#"name="fencing" checked"#) && !html.contains(r#"name="renewal" checked"#), "{html}");
        // A span the list does not offer is added to it, chosen.
        assert!(html.contains(r#"<option value="7200000" selected>2 h</option>"#), "{html}");
        assert_eq!(html.matches(" selected").count(), 2, "one choice per list: {html}");
        assert!(!html.contains("fleet-custom"), "{html}");
        let custom = drawn("pauses=custom&median_ms=40&p99_ms=900");
        assert!(custom.contains(r#"<option value="custom" selected>Custom</option>"#), "{custom}");
        assert!(custom.contains(r#"name="median_ms" value="40""#) && custom.contains(r#"name="p99_ms" value="900""#), "{custom}");
        assert!(custom.contains("<strong>Custom</strong>: median 40.0 ms, 99th percentile 900.0 ms"), "{custom}");
    }
}
