//! What the run says at the cursor: the verdict banner, the outcome
//! counters, a reason for every red counter the verdict does not explain,
//! and (at the end) how the run ended for each actor. All of it is the core's
//! (`AtCursor::verdict`, the tallies, the digests); this only draws it.

use crate::race::pane::Pane;
use fencing_sim::{Actor, Tally, Tone, Verdict};
use leptos::prelude::*;

/// The verdict at the cursor, as the core says it (None: before the first event).
pub fn verdict_at(pane: &Pane, upto: Option<u32>) -> Option<Verdict> {
    upto.map(|index| pane.at.verdict(index).clone())
}

/// The banner's class, icon and words.
pub fn banner(verdict: Option<&Verdict>) -> (&'static str, &'static str, String) {
    let Some(verdict) = verdict else { return ("verdict pending", "…", "Nothing has happened yet: press Play.".to_string()) };
    let (class, icon) = match verdict.tone {
        Tone::Safe | Tone::Protected => ("verdict good", "✓"),
        Tone::Damaged => ("verdict bad", "✗"),
        Tone::Exposed | Tone::LostLiveness => ("verdict warn", "!"),
        Tone::Pending => ("verdict pending", "…"),
    };
    (class, icon, verdict.text.clone())
}

/// The banner: the verdict at the cursor, in the core's words and tone.
#[component]
pub fn Verdict(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let shown = Memo::new(move |_| pane.with(|pane| banner(verdict_at(pane, upto.get()).as_ref())));
    view! {
        <p class=move || shown.with(|(class, _, _)| *class) data-testid=format!("{id}-verdict")>
            <span class="verdict-icon" aria-hidden="true">{move || shown.with(|(_, icon, _)| *icon)}</span>
            <span {..crate::shell::browser::story_timing()}>{move || shown.with(|(_, _, text)| text.clone())}</span>
        </p>
    }
}

/// The counters and the notes: the tally, the core's notes, and whether the
/// run can refuse a rightful write (then its counter is shown).
pub fn counters(tally: Tally, notes: Vec<String>, rightful: bool, id: &'static str) -> impl IntoView {
    // Each counter's name is a term of the glossary: its definition on hover and focus.
    let counter = |label: &'static str, term: &str, name: &str, value: u32, alarm: bool| {
        let class = if alarm && value > 0 { "counter alarm" } else { "counter" };
        view! {
            <div class=class>
                <dt>{crate::shell::term::term(label, term, id)}</dt>
                <dd data-testid=format!("{id}-{name}")>{value}</dd>
            </div>
        }
    };
    // The liveness counter only where the run can have one, to keep the rest in view.
    let refused = rightful.then(|| counter("Rightful writes refused", "", "rightful-rejected", tally.rightful_writes_rejected, true));
    view! {
        <dl class="counters">
            {counter("Zombie writes", "zombie write", "zombie-writes", tally.zombie_writes, true)}
            {counter("Stale overwrites", "stale overwrite", "stale-overwrites", tally.stale_overwrites, true)}
            {counter("Mutual exclusion violations", "mutual exclusion violation", "violations", tally.mutual_exclusion_violations, true)}
            {counter("Rejected writes", "rejected write", "rejected-writes", tally.rejected_writes, false)}
            {refused}
        </dl>
        <ul class="counter-notes" data-testid=format!("{id}-notes")>{notes.into_iter().map(|note| view! { <li>{note}</li> }).collect_view()}</ul>
    }
}

/// The counters as they stand at the cursor; a red one the verdict does not
/// explain gets its one-line reason (the core's notes). Written again only
/// when a counter or a note changes.
#[component]
pub fn Counters(pane: Memo<Pane>, upto: Signal<Option<u32>>, id: &'static str) -> impl IntoView {
    let shown = Memo::new(move |_| {
        pane.with(|pane| {
            let upto = upto.get();
            let tally = upto.and_then(|index| pane.event(index)).map(|event| event.tally).unwrap_or_default();
            let notes = verdict_at(pane, upto).map(|verdict| verdict.notes).unwrap_or_default();
            (tally, notes, pane.trace.summary.rightful_writes_rejected > 0)
        })
    });
    view! { <div class="counters-box">{move || {
        let (tally, notes, rightful) = shown.get();
        counters(tally, notes, rightful, id)
    }}</div> }
}

/// How the run ended for each actor, once the cursor reaches the end.
#[component]
pub fn Actors(pane: Memo<Pane>, finished: Signal<bool>) -> impl IntoView {
    view! { <div class="run-end">{move || finished.get().then(|| pane.with(actors))}</div> }
}

fn actors(pane: &Pane) -> impl IntoView {
    let rows = pane
        .trace
        .digests()
        .into_iter()
        .map(|digest| {
            let actor = digest.actor.to_string();
            let badge = actor.clone();
            let name = match digest.actor {
                Actor::Worker(_) => format!("Worker {actor}"),
                _ => digest.role.clone(),
            };
            view! {
                <li class="actor" data-actor=actor>
                    <span class="actor-badge" aria-hidden="true">{badge}</span>
                    <span class="actor-role">{name}</span>
                    <span class="actor-headline">{digest.headline}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <p class="run-caption">"Fencing was "{pane.trace.summary.fencing.describe()}" for this run."</p>
        <ul class="actors" aria-label="How the run ended for each actor">{rows}</ul>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_banner_is_the_cores_verdict_in_two_spans() {
        let owner = Owner::new();
        let html = owner.with(|| {
            let pane = Memo::new(|_| Pane::run(&fencing_sim::presets::classic()));
            let last = pane.with_untracked(|pane| pane.trace.events.len() as u32 - 1);
            let upto = Signal::derive(move || Some(last));
            let words = pane.with_untracked(|pane| verdict_at(pane, Some(last)).map(|verdict| verdict.text));
            (view! { <Verdict pane upto id="race"/> }.to_html(), words)
        });
        drop(owner);
        let (html, words) = html;
        let words = words.expect("a verdict at the end");
        assert!(
            html.starts_with(r#"<p data-testid="race-verdict" class="verdict bad"><span aria-hidden="true" class="verdict-icon">✗</span>"#),
            "{html}"
        );
        // Leptos escapes the core's words as text (an ampersand or a bracket; quotes need none).
        let text = words.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        assert!(html.ends_with(&format!(r#"<span elementtiming="story">{text}</span></p>"#)), "{html}");
    }

    #[test]
    fn the_counters_name_their_terms_and_redden_only_when_above_zero() {
        let tally = Tally { zombie_writes: 1, ..Tally::default() };
        let html = Owner::new().with(|| counters(tally, vec!["a <note>".to_string()], false, "race").into_view().to_html());
        assert!(
            html.contains(
                r#"<div class="counter alarm"><dt><span tabindex="0" aria-describedby="race-def-zombie-write" class="term">Zombie writes"#
            ),
            "{html}"
        );
        assert!(html.contains(r#"<dd data-testid="race-zombie-writes">1</dd>"#), "{html}");
        assert_eq!(html.matches("counter alarm").count(), 1, "{html}");
        assert!(!html.contains("rightful-rejected"), "no liveness counter where the run cannot refuse a rightful write: {html}");
        assert!(html.contains("<li>a &lt;note&gt;</li>"), "{html}");
    }

    #[test]
    fn the_run_end_lists_every_actor_once_the_run_is_over() {
        let pane = Pane::run(&fencing_sim::presets::classic());
        let actors = pane.trace.digests().len();
        let drawn = |finished: bool| {
            let pane = pane.clone();
            Owner::new().with(move || {
                let pane = Memo::new(move |_| pane.clone());
                view! { <Actors pane finished=Signal::derive(move || finished)/> }.to_html()
            })
        };
        let html = drawn(true);
        assert_eq!(html.matches(r#"<li data-actor="#).count(), actors, "{html}");
        assert!(html.contains(r#"<li data-actor="A" class="actor"><span aria-hidden="true" class="actor-badge">A</span><span class="actor-role">Worker A</span>"#), "{html}");
        assert!(html.contains("Fencing was ") && html.contains(" for this run.</p>"), "{html}");
        assert!(!drawn(false).contains("<li"), "nothing before the end");
    }
}
