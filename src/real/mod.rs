//! What a real server did: a committed recording of a reality check drawn
//! beside the model's run of the same story, on one time axis, with the
//! recording's provenance; or a history file the reader opens (a picker,
//! or dropped on the view), judged and drawn the same way. Everything said
//! of either run is the core's (`fencing_sim::real`, `history`).

use crate::compare::TwoPanes;
use crate::race::pane::Pane;
use crate::race::present;
use crate::shell::app::Lab;
use crate::shell::embed::EmbedButton;
use crate::shell::route::{query_of, View};
use fencing_sim::compare::Difference;
use fencing_sim::history::{History, HistoryError, Judged, HISTORY_BYTES_MAX};
use fencing_sim::real::{self, Recording, RECORDINGS};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[component]
pub fn RealView(
    /// Shown alone in an iframe: no embed button.
    #[prop(optional)]
    embedded: bool,
) -> impl IntoView {
    let lab = Lab::get();
    let scenario = lab.scenario;
    // The link's story names its recording; any other story shows the first.
    let recording = Memo::new(move |_| scenario.with(real::for_scenario).unwrap_or(&RECORDINGS[0]));
    // A story with no recording of its own opens one of its preset's, else the first.
    if scenario.with_untracked(|scenario| real::for_scenario(scenario).is_none()) {
        scenario.set(scenario.with_untracked(real::for_story).unwrap_or(&RECORDINGS[0]).story());
    }
    let opened: RwSignal<Option<(String, History, Judged)>> = RwSignal::new(None);
    let problems: RwSignal<Option<(String, Vec<String>)>> = RwSignal::new(None);
    let left = Memo::new(move |_| Pane::run(&recording.get().model()));
    // One history is one judgement: comparing the histories is enough.
    let judged = Memo::new_with_compare(
        move |_| {
            opened.with(|opened| match opened {
                Some((_, history, judged)) => Some((history.clone(), judged.clone())),
                None => recording.get().judged().ok(),
            })
        },
        |before: Option<&Option<(History, Judged)>>, now: Option<&Option<(History, Judged)>>| {
            before.map(|before| before.as_ref().map(|(history, _)| history)) != now.map(|now| now.as_ref().map(|(history, _)| history))
        },
    );
    let right = Memo::new(move |_| {
        Pane::of(judged.with(|judged| judged.as_ref().map(|(_, judged)| judged.trace.clone())).unwrap_or_else(|| left.get().trace))
    });
    let shown_left = RwSignal::new(None);
    let names = Signal::derive(move || {
        let model = recording.get().model();
        let model = format!("The model: {}", fencing_sim::presets::find(&model.preset).map_or("this story", |preset| preset.name));
        let real = opened.with(|opened| match opened {
            Some((file, ..)) => format!("Your file: {file}"),
            None => "What a real server did".to_string(),
        });
        (model, real)
    });
    // The header's notes: what the check staged (a recording's lease, its pause, its scale).
    let staged = move || judged.with(|judged| judged.as_ref().and_then(|(history, _)| history.provenance.notes.clone()));
    let provenance = move || judged.with(|judged| judged.as_ref().map(|(history, _)| real::provenance(history)));
    let damage = move || {
        let whose = if opened.with(Option::is_some) { "In your file" } else { "In the recording" };
        judged.with(|judged| match judged.as_ref().map(|(_, judged)| real::first_damage(judged)) {
            Some(Some(words)) => format!("{whose}, the first damaging write: {words}."),
            _ => format!("{whose}, no write damaged the data."),
        })
    };
    // A recording beside the model's run it is held to; a file of the
    // reader's is held to nothing.
    let differences = Memo::new(move |_| {
        if opened.with(Option::is_some) {
            return Vec::new();
        }
        let model = left.get();
        judged.with(|judged| judged.as_ref().map(|(history, _)| real::differences(&model.trace, history)).unwrap_or_default())
    });
    let embed_query = Signal::derive(move || query_of(View::Real, &scenario.get(), Difference::Fencing, None, None));
    let read = move |file: web_sys::File| {
        let name = file.name();
        if file.size() > HISTORY_BYTES_MAX as f64 {
            problems.set(Some((
                name,
                vec![format!("the file is over the {HISTORY_BYTES_MAX}-byte limit for a history: cut it to the incident's minutes")],
            )));
            return;
        }
        wasm_bindgen_futures::spawn_local(async move {
            let bytes = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => js_sys::Uint8Array::new(&buffer).to_vec(),
                Err(_) => {
                    problems.set(Some((name, vec!["the browser could not read the file".to_string()])));
                    return;
                }
            };
            match real::open(&bytes) {
                Ok((history, judged)) => {
                    problems.set(None);
                    opened.set(Some((name, history, judged)));
                }
                Err(HistoryError { problems: found }) => problems.set(Some((name, found))),
            }
        });
    };
    let picked = move |ev: leptos::ev::Event| {
        let input = ev.target().and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(file) = input.as_ref().and_then(|input| input.files()).and_then(|files| files.get(0)) {
            read(file);
        }
        // The same file may be picked again after an edit.
        if let Some(input) = input {
            input.set_value("");
        }
    };
    let dropped = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        if let Some(file) = ev.data_transfer().and_then(|transfer| transfer.files()).and_then(|files| files.get(0)) {
            read(file);
        }
    };

    view! {
        <section
            id="real"
            class="real compare card"
            aria-labelledby="real-title"
            on:dragover=move |ev: leptos::ev::DragEvent| ev.prevent_default()
            on:drop=dropped
        >
            <div class="compare-head">
                <h2 id="real-title">"What a real server did"</h2>
                <span class="present-slot"><present::PresentButtons id="real"/></span>
            </div>
            <p class="real-intro">
                "Each story below was also staged on a real server by the test suite, and what the server did was saved as a "
                <dfn>"recording"</dfn>
                ": every lease it granted, every pause, every write and whether the store took it, at the real times. "
                "Below, the model's run of the story and the recording are drawn and judged the same way, on one clock."
            </p>
            <div class="controls compare-controls">
                <label class="field" for="real-recording">
                    <span>"Recording"</span>
                    <select id="real-recording" data-testid="real-recording" on:change=move |ev| {
                        let file = event_target_value(&ev);
                        if let Some(chosen) = RECORDINGS.iter().find(|recording| recording.file == file) {
                            opened.set(None);
                            problems.set(None);
                            scenario.set(chosen.story());
                        }
                    }>
                        {RECORDINGS.iter().map(|choice: &'static Recording| view! {
                            <option value=choice.file selected=move || recording.get().file == choice.file>{choice.title}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label class="field file-field" for="real-file">
                    <span>"Or open a history file (or drop one here)"</span>
                    <input id="real-file" type="file" accept=".jsonl,.json,.txt" data-testid="real-file" on:change=picked/>
                </label>
            </div>
            <details class="real-format">
                <summary>"What a history file holds"</summary>
                <p>
                    "One JSON object a line: a header saying whether the store checks tokens and what recorded the run, then, in time order, each "
                    "lease granted (with its token), renewed, dropped or released, each pause of a worker, and each write with the store's decision. "
                    "Times are whole microseconds. The lab's repository documents every field (docs/histories.md) and converts "
                    "a Redis MONITOR log (fencing-lab convert). A file is read here, in your browser; nothing is sent anywhere. This one is the GC pause:"
                </p>
                <pre class="history-example">{real::EXAMPLE}</pre>
            </details>
            <div role="status" aria-live="polite">
                {move || problems.get().map(|(file, found)| view! {
                    <div class="notice" data-testid="real-problems">
                        <p>{format!("{file} is not a history this lab can judge, so the recording stays:")}</p>
                        <ul>{found.into_iter().map(|problem| view! { <li>{problem}</li> }).collect_view()}</ul>
                    </div>
                })}
            </div>
            <p class="provenance" data-testid="real-provenance">
                <span class="provenance-label">"Recorded by: "</span>
                {provenance}
            </p>
            {move || staged().map(|notes| view! {
                <p class="provenance staged" data-testid="real-staged"><span class="provenance-label">"How it was staged: "</span>{notes}</p>
            })}
            <p class="first-damage" data-testid="real-first-damage">{damage}</p>
            {move || (!differences.with(Vec::is_empty)).then(|| view! {
                <details class="real-differences" open>
                    <summary>"Where the real run differs from the model's run it is held to"</summary>
                    <ul data-testid="real-differences">{differences.get().into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}</ul>
                </details>
            })}
            <TwoPanes left right names id="real" cursor=None shown_left/>
            {(!embedded).then(|| view! { <EmbedButton widget="real" title="what a real server did" query=embed_query height_px=1100/> })}
        </section>
    }
}
