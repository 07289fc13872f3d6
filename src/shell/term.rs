//! A term with its definition at hand: wherever the page uses one of the
//! words the lesson rests on (lease, zombie write, fencing token…), the
//! word is underlined with dots, and hovering it or giving it keyboard
//! focus shows the model's one-sentence definition (`fencing_sim::guide::
//! GLOSSARY`); a screen reader reads it as the word's description. Esc
//! hides it again (theme.js), as WCAG 1.4.13 asks of content on hover.

use crate::escape;
use leptos::prelude::*;

/// The definition's id: `id` makes it unique on the page.
fn definition_id(term: &str, id: &str) -> String {
    format!("{id}-def-{}", term.replace(' ', "-"))
}

/// `words` defined as `term` (a glossary entry); plain words where the
/// glossary has no such term.
pub fn term(words: &'static str, term: &str, id: &str) -> AnyView {
    let Some(definition) = fencing_sim::guide::define(term) else { return words.into_any() };
    let def_id = definition_id(term, id);
    let described = def_id.clone();
    view! {
        <span class="term" tabindex="0" aria-describedby=described>
            {words}
            <span class="term-def" role="tooltip" id=def_id>{definition}</span>
        </span>
    }
    .into_any()
}

/// `term` as markup, for the picture's key (part of a drawing, written as a string).
pub fn markup(words: &str, term: &str, id: &str) -> String {
    let Some(definition) = fencing_sim::guide::define(term) else { return escape(words) };
    let def_id = definition_id(term, id);
    format!(
        r#"<span class="term" tabindex="0" aria-describedby="{def_id}">{}<span class="term-def" role="tooltip" id="{def_id}">{}</span></span>"#,
        escape(words),
        escape(definition)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_carries_its_definition_and_an_unknown_one_is_plain() {
        let html = markup("Zombie writes", "zombie write", "race");
        assert!(html.contains(r#"aria-describedby="race-def-zombie-write""#), "{html}");
        assert!(html.contains(r#"id="race-def-zombie-write""#) && html.contains("whose lease has run out"), "{html}");
        assert_eq!(markup("Store", "store", "race"), "Store");
    }

    #[test]
    fn the_view_and_the_markup_write_the_same_term() {
        let drawn = Owner::new().with(|| term("Zombie writes", "zombie write", "race").to_html());
        let written = markup("Zombie writes", "zombie write", "race");
        // The view's renderer puts `class` last; otherwise the same.
        assert_eq!(
            drawn.replace(r#" class="term""#, "").replace(r#" class="term-def""#, ""),
            written.replace(r#"class="term" "#, "").replace(r#"class="term-def" "#, "")
        );
    }
}
