//! The lesson's own tags, expanded into plain HTML:
//! - `<run query="?preset=gc-pause" verdict="overwrote B's newer data" widget="race">words</run>`:
//!   a link into the lab ("See it run: words"), which the page's script can
//!   turn into the live widget in place; `verdict` is what the sentence claims
//!   the run ends with (`left | right` side by side), checked in `claims.rs`;
//! - `<quiz id="nfs">words</quiz>`: a link to one quiz question;
//! - `href="lab:?…"`: any other link into the lab;
//! - `<toc></toc>`, `<lesson-code></lesson-code>`, `<lesson-sweep></lesson-sweep>`, `<lesson-fleet></lesson-fleet>`:
//!   the contents, the code listings, the lease sweep.
//!
//! Every link into the lab is checked here against the model's parser.

use crate::escape;
use fencing_sim::permalink;

/// The page's own keys, which the model's link parser does not read.
const PAGE_KEYS: &[&str] = &["view", "quiz", "embed", "theme"];
const VIEWS: &[&str] = &["race", "compare", "quiz", "fleet", "real"];
/// How often a tag may appear in one page: a bound on the expansion loop.
const TAGS_PER_PAGE_MAX: usize = 200;

/// The page's body with the lesson's tags written out; `contents` is the
/// lesson's table of contents, which the pages that list it (`<toc>`) show.
pub fn expand(body: &str, contents: &str) -> Result<String, String> {
    let mut html = body.to_string();
    html = replace_tags(&html, "run", run)?;
    html = replace_tags(&html, "quiz", quiz)?;
    html = lab_links(&html)?;
    html = html.replace("<toc></toc>", contents);
    html = html.replace("<lesson-code></lesson-code>", &crate::highlight::panel());
    html = html.replace("<lesson-sweep></lesson-sweep>", &crate::sweep::figure());
    if html.contains("<lesson-fleet></lesson-fleet>") {
        html = html.replace("<lesson-fleet></lesson-fleet>", &crate::fleet::figure());
    }
    Ok(html)
}

/// Checks a link into the lab (a query such as `?preset=gc-pause&fencing=on`)
/// and returns it as an attribute value relative to a lesson page.
pub fn lab_href(query: &str) -> Result<String, String> {
    let query = query.strip_prefix('?').ok_or_else(|| format!("a link into the lab starts with '?': {query}"))?;
    let mut rest = Vec::new();
    for pair in query.split('&') {
        match pair.split_once('=').unwrap_or((pair, "")) {
            ("view", view) if !VIEWS.contains(&view) => return Err(format!("no view called {view}")),
            ("quiz", id) if fencing_sim::quiz::find(id).is_none() => return Err(format!("no quiz question called {id}")),
            (key, _) if PAGE_KEYS.contains(&key) => {}
            _ => rest.push(pair),
        }
    }
    // A fleet's link is the fleet reader's; every other view's, the story's.
    let fleet = query.split('&').any(|pair| pair == "view=fleet");
    let notices = match fleet {
        true => permalink::fleet::parse(&rest.join("&")).1,
        false => permalink::parse(&rest.join("&")).1,
    };
    if !notices.is_empty() {
        return Err(format!("the lab would not understand ?{query}: {}", notices.join("; ")));
    }
    Ok(escape(&format!("../?{query}")))
}

fn run(attributes: &str, words: &str) -> Result<String, String> {
    let query = attribute(attributes, "query").ok_or("a <run> needs query=\"?…\"")?;
    let widget = attribute(attributes, "widget").unwrap_or_else(|| "race".to_string());
    if !["race", "compare"].contains(&widget.as_str()) {
        return Err(format!("a <run> shows the race or the comparison, not {widget}"));
    }
    let height_px: u32 =
        attribute(attributes, "height").map_or(Ok(900), |height| height.parse()).map_err(|_| "a <run>'s height is in pixels")?;
    let href = lab_href(&query)?;
    let embed = lab_href(&format!("{query}&embed={widget}"))?;
    Ok(format!(
        r#"<figure class="lesson-run" data-embed="{embed}" data-height="{height_px}" data-title="{title}"><a href="{href}">See it run: {words}<span aria-hidden="true">&nbsp;→</span></a></figure>"#,
        title = escape(&words.replace(['<', '>'], "")),
    ))
}

fn quiz(attributes: &str, words: &str) -> Result<String, String> {
    let id = attribute(attributes, "id").ok_or("a <quiz> needs id=\"…\"")?;
    Ok(format!(r#"<a class="lesson-quiz" href="{}">{words}</a>"#, lab_href(&format!("?view=quiz&quiz={id}"))?))
}

/// Every `<name …>words</name>` replaced by `make(attributes, words)`.
fn replace_tags(html: &str, name: &str, make: impl Fn(&str, &str) -> Result<String, String>) -> Result<String, String> {
    let (open, close) = (format!("<{name} "), format!("</{name}>"));
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    for _ in 0..TAGS_PER_PAGE_MAX {
        let Some(start) = rest.find(&open) else {
            out.push_str(rest);
            return Ok(out);
        };
        let after = &rest[start + open.len()..];
        let end_of_open = after.find('>').ok_or_else(|| format!("an unclosed <{name}"))?;
        let inner = &after[end_of_open + 1..];
        let end = inner.find(&close).ok_or_else(|| format!("a <{name}> without {close}"))?;
        out.push_str(&rest[..start]);
        out.push_str(&make(&after[..end_of_open], inner[..end].trim())?);
        rest = &inner[end + close.len()..];
    }
    Err(format!("more than {TAGS_PER_PAGE_MAX} <{name}> tags"))
}

/// `href="lab:?…"` → the checked link.
fn lab_links(html: &str) -> Result<String, String> {
    let marker = "href=\"lab:";
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    for _ in 0..TAGS_PER_PAGE_MAX {
        let Some(start) = rest.find(marker) else {
            out.push_str(rest);
            return Ok(out);
        };
        let after = &rest[start + marker.len()..];
        let end = after.find('"').ok_or("an unclosed lab: link")?;
        out.push_str(&rest[..start]);
        out.push_str(&format!("href=\"{}\"", lab_href(&after[..end])?));
        rest = &after[end..][1..];
    }
    Err(format!("more than {TAGS_PER_PAGE_MAX} lab: links"))
}

/// The value of `name="…"` in a tag's attributes.
pub(crate) fn attribute(attributes: &str, name: &str) -> Option<String> {
    let key = format!("{name}=\"");
    let start = attributes.find(&key)? + key.len();
    let end = attributes[start..].find('"')?;
    Some(attributes[start..start + end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_into_the_lab_are_checked_by_the_model() {
        assert_eq!(lab_href("?preset=gc-pause&fencing=on").unwrap(), "../?preset=gc-pause&amp;fencing=on");
        assert_eq!(lab_href("?view=quiz&quiz=nfs").unwrap(), "../?view=quiz&amp;quiz=nfs");
        assert!(lab_href("?preset=gc-paws").unwrap_err().contains("no such preset"));
        assert!(lab_href("?quiz=nope").unwrap_err().contains("no quiz question called nope"));
        assert!(lab_href("?view=lessons").is_err());
        assert_eq!(lab_href("?view=fleet&workers=8").unwrap(), "../?view=fleet&amp;workers=8");
        assert!(lab_href("?view=fleet&workers=99").unwrap_err().contains("2 to 64 workers"));
        assert!(lab_href("preset=gc-pause").is_err());
    }

    #[test]
    fn the_lessons_tags_become_plain_html() {
        let html =
            expand(r#"<p>Read <quiz id="nfs">the NFS question</quiz>.</p><run query="?preset=gc-pause">the pause</run>"#, "").unwrap();
        assert!(html.contains(r#"<a class="lesson-quiz" href="../?view=quiz&amp;quiz=nfs">the NFS question</a>"#), "{html}");
        assert!(html.contains(r#"data-embed="../?preset=gc-pause&amp;embed=race""#), "{html}");
        assert!(html.contains(r#"<a href="../?preset=gc-pause">See it run: the pause"#), "{html}");
        assert!(expand(r#"<run query="?preset=nope">x</run>"#, "").is_err());
        assert!(expand(r#"<run query="?preset=gc-pause">x"#, "").is_err());
    }
}
