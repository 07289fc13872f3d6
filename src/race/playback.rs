//! The playback bar: play/pause, step back and forward, a scrubber, speed and
//! restart, with keyboard shortcuts (space, arrows, Home, End) that work
//! anywhere in the page except while typing in a field.

use crate::race::player::{Player, SPEEDS_QUARTERS, SPEED_1X};
use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[component]
pub fn PlaybackBar(
    player: Player,
    id: &'static str,
    /// Controls of the run itself, kept beside Play (the race's fencing switch).
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    crate::shell::browser::while_mounted(ev::keydown, move |event| {
        if typing(&event, event.key() == " ") || event.alt_key() || event.ctrl_key() || event.meta_key() {
            return;
        }
        let handled = match event.key().as_str() {
            " " => {
                player.toggle();
                true
            }
            "ArrowRight" => {
                player.step(true);
                true
            }
            "ArrowLeft" => {
                player.step(false);
                true
            }
            "Home" => {
                player.restart();
                true
            }
            "End" => {
                player.to_end();
                true
            }
            _ => false,
        };
        if handled {
            event.prevent_default();
        }
    });

    let position = move || format!("{} of {}", player.cursor.get() + 1, player.last() + 1);
    view! {
        <div class="playback" role="group" aria-label="Playback">
            <button type="button" on:click=move |_| player.restart() aria-label="Restart" title="Restart (Home)">"⇤"</button>
            <button type="button" on:click=move |_| player.step(false) aria-label="Step back" title="Step back (←)" data-testid=format!("{id}-back")>"◀"</button>
            <button type="button" class="primary play" data-testid=format!("{id}-play") title="Play or pause (space)" on:click=move |_| {
                player.toggle();
                if player.playing.get_untracked() {
                    // The picture of the run: the overview where there is one (it comes first), else the diagram.
                    crate::shell::browser::bring_into_view(&format!("[data-testid={id}-overview], [data-testid={id}-diagram-scroll]"));
                }
            }>
                {move || if player.playing.get() { "‖ Pause" } else { "▶ Play" }}
            </button>
            <button type="button" on:click=move |_| player.step(true) aria-label="Step forward" title="Step forward (→)" data-testid=format!("{id}-forward")>"▶"</button>
            <button type="button" on:click=move |_| player.to_end() aria-label="Jump to the end" title="Jump to the end (End)" data-testid=format!("{id}-end")>"⇥"</button>
            {children.map(|children| children())}
            <label class="scrubber" for=format!("{id}-scrubber")>
                <span class="sr-only">"Position in the run"</span>
                <input
                    id=format!("{id}-scrubber")
                    type="range"
                    min="0"
                    max=move || player.last()
                    // The attribute for the first screen drawn at build time
                    // (which writes no properties); the property as it moves.
                    value=player.cursor.get_untracked().to_string()
                    prop:value=move || player.cursor.get().to_string()
                    on:input=move |ev| {
                        player.playing.set(false);
                        player.scrubbing.set(true);
                        if let Ok(value) = event_target_value(&ev).parse::<usize>() {
                            player.cursor.set(value.min(player.last()));
                        }
                    }
                    // Released (or moved by keys): the position is settled.
                    on:change=move |_| player.scrubbing.set(false)
                    aria-valuetext=position
                    data-testid=format!("{id}-scrubber")
                />
            </label>
            <span class="position" aria-hidden="true">{position}</span>
            <label class="speed">
                <span class="speed-word">"Speed"</span>
                <select on:change=move |ev| {
                    if let Ok(index) = event_target_value(&ev).parse::<usize>() {
                        player.speed.set(index.min(SPEEDS_QUARTERS.len() - 1));
                    }
                }>{speed_options(player.speed.get_untracked())}</select>
            </label>
        </div>
        // Hidden on touch-only devices (style/main.css), where there are no keys.
        <p class="shortcuts">"Keys: space play/pause · ← → step · Home/End jump"</p>
    }
}

/// The speed list's options, `chosen` selected. Written once: only the
/// list itself changes the speed, and it shows its own choice.
fn speed_options(chosen: usize) -> impl IntoView {
    (0..SPEEDS_QUARTERS.len())
        .map(|index| view! { <option value=index selected=index == chosen>{speed_label(index)}</option> })
        .collect_view()
}

/// "¼× (slower)", "1× (normal)", "16× (faster)".
fn speed_label(index: usize) -> String {
    let quarters = SPEEDS_QUARTERS[index];
    let number = match quarters {
        1 => "¼".to_string(),
        2 => "½".to_string(),
        _ => (quarters / 4).to_string(),
    };
    let name = match index.cmp(&SPEED_1X) {
        std::cmp::Ordering::Less => "slower",
        std::cmp::Ordering::Equal => "normal",
        std::cmp::Ordering::Greater => "faster",
    };
    format!("{number}× ({name})")
}

/// Whether the key belongs to a control that uses it itself: a field the
/// learner types in, or (for space) a focused button or checkbox.
fn typing(event: &web_sys::KeyboardEvent, space: bool) -> bool {
    let Some(target) = event.target().and_then(|target| target.dyn_into::<web_sys::Element>().ok()) else { return false };
    match target.tag_name().as_str() {
        "SELECT" | "TEXTAREA" => true,
        "INPUT" => target.get_attribute("type").as_deref() != Some("checkbox") || space,
        "BUTTON" | "SUMMARY" | "A" => space,
        _ => target.closest("[contenteditable]").ok().flatten().is_some(),
    }
}
