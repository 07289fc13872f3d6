//! The first screens: for each link the site names (every view, every
//! embed, every preset's race and the links the lesson, the README and
//! `examples/` use), the markup the app draws at that link, drawn by the
//! app's own components natively (`fencing_lab_web::shell::prerender`). The page
//! shows it while the simulator downloads (`static/boot.js`) and the app
//! replaces it in place when it starts.
//!
//! The default link's screen is inside `index.html` (no request before the
//! story shows); every other one is `first/<key>.html`, fetched by `boot.js`
//! when the page's link is one of them. A link not drawn here shows the
//! loading note with its scenario named, never another link's story.

use fencing_lab_web::shell::prerender::first_screen;
use fencing_lab_web::shell::route::{query_of, split_query, view_of, View};
use fencing_sim::compare::Difference;
use fencing_sim::presets::PRESETS;
use std::fs;
use std::path::Path;

/// Where the other links' screens go, beside `index.html`.
pub const FOLDER: &str = "first";

/// The loading note `index.html` carries; the shelf of screens follows it.
const LOADING: &str = r#"<p id="loading" class="loading">Loading the simulator…</p>"#;

/// The links the documents use beyond each preset's and each view's own
/// (README, `examples/course.html`, the lesson's pages).
const DOCUMENTED: &[&str] = &[
    "quiz=gc-pause&embed=quiz",
    "compare=fencing&embed=compare",
    "preset=token-inversion&token=script",
    "preset=zookeeper-gc-pause&fencing=on",
    "preset=redisson-gc-pause&fencing=on",
    "preset=consul-long-pause&fencing=on",
    "preset=consensus-gc-pause&fencing=on",
];

/// Every link drawn, as written (its key is `key`'s).
pub fn links() -> Vec<String> {
    let mut links: Vec<String> =
        ["", "view=compare", "view=quiz", "view=explore", "embed=race", "embed=compare", "embed=quiz", "embed=explore"]
            .iter()
            .map(|link| link.to_string())
            .collect();
    for preset in PRESETS {
        links.push(format!("preset={}", preset.id));
        links.push(format!("preset={}&embed=race", preset.id));
        links.push(format!("view=compare&preset={}", preset.id));
    }
    links.extend(DOCUMENTED.iter().map(|link| link.to_string()));
    // The tabs' links as the first page writes them (the default scenario's).
    let scenario = fencing_sim::permalink::Permalink::default().scenario;
    for view in [View::Race, View::Compare] {
        links.push(query_of(view, &scenario, Difference::Fencing, None, None));
    }
    links
}

/// A link's key, as `boot.js` computes it from the page's own: its pairs
/// without `theme` (the frame's colours, not its story) and `fp` (a link
/// with its run's fingerprint and one made before fingerprints show the
/// same run, and a stale one's notice is the app's to add), sorted by
/// name, written as a form; then hashed (32-bit FNV-1a, hex) for a file name.
pub fn key(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .filter(|(name, _)| name != "theme" && name != fencing_sim::permalink::story::KEY)
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect();
    // Stable: a repeated name keeps its order, as the page's sort does.
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut form = form_urlencoded::Serializer::new(String::new());
    for (name, value) in &pairs {
        form.append_pair(name, value);
    }
    format!("{:08x}", fencing_sim::fnv1a32(form.finish().as_bytes()))
}

/// The screen for one link, with the entry point that serves it, its
/// controls disabled until the app takes over (their labels and order kept).
pub fn screen(query: &str) -> String {
    let (views, has) = fencing_lab_web::entry_point(view_of(&split_query(query)));
    disabled(&first_screen(query, views, has))
}

/// Every control disabled: nothing answers before the simulator runs. And
/// no inline style (the documented CSP refuses it): `boot.js` sets each
/// through the CSSOM, as the app does.
fn disabled(html: &str) -> String {
    let mut html = html.replace(" style=\"", " data-first-style=\"");
    for tag in ["<button", "<input", "<select", "<textarea"] {
        html = html.replace(&format!("{tag} "), &format!("{tag} disabled ")).replace(&format!("{tag}>"), &format!("{tag} disabled>"));
    }
    html
}

/// Writes every link's screen and puts the default one, with the list of
/// keys drawn and the presets' names, into `index.html`.
pub fn write(dist: &Path) -> Result<(), String> {
    let folder = dist.join(FOLDER);
    fs::create_dir_all(&folder).map_err(|error| format!("{}: {error}", folder.display()))?;
    let mut keys = Vec::new();
    let mut all = String::new();
    // The list of links drawn, key → link (the tests open each one).
    let mut list = Vec::new();
    for link in links() {
        let (key, html) = (key(&link), screen(&link));
        if keys.contains(&key) {
            return Err(format!("first screens: the link {link:?} is drawn twice"));
        }
        let path = folder.join(format!("{key}.html"));
        fs::write(&path, &html).map_err(|error| format!("{}: {error}", path.display()))?;
        all.push_str(&html);
        list.push(format!("  \"{key}\": \"{}\"", link.replace('\\', "\\\\").replace('"', "\\\"")));
        keys.push(key);
    }
    let path = folder.join("links.json");
    fs::write(&path, format!("{{\n{}\n}}\n", list.join(",\n"))).map_err(|error| format!("{}: {error}", path.display()))?;
    let index = dist.join("index.html");
    let page = fs::read_to_string(&index).map_err(|error| format!("{}: {error}", index.display()))?;
    if !page.contains(LOADING) {
        return Err(format!("{}: no loading note to put the first screens after", index.display()));
    }
    let shelf = shelf(&keys, &crate::stamp::fnv1a(all.as_bytes()), &screen(""));
    fs::write(&index, page.replace(LOADING, &format!("{LOADING}\n    {shelf}"))).map_err(|error| format!("{}: {error}", index.display()))
}

/// The `<template>` boot.js reads: the default link's screen, the keys of
/// the others (and a version of them all, for caches), the presets' names.
fn shelf(keys: &[String], version: &u64, default: &str) -> String {
    let names: Vec<String> = PRESETS.iter().map(|preset| format!("{}={}", preset.id, preset.name)).collect();
    format!(
        r#"<template id="first-screens" data-default="{}" data-keys="{}" data-version="{:08x}" data-presets="{}">{default}</template>"#,
        key(""),
        keys.join(" "),
        version >> 32,
        crate::escape(&names.join("|"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_the_theme_and_the_order_of_pairs() {
        assert_eq!(key("preset=gc-pause&embed=race"), key("embed=race&theme=dark&preset=gc-pause"));
        assert_eq!(key("preset=gc-pause&embed=race"), key("preset=gc-pause&embed=race&fp=8a16a605_A-33.B-34_1.1.0.2_A-33_120.20872"));
        assert_ne!(key("preset=gc-pause"), key("preset=gc-pause&fencing=on"));
        // What boot.js computes for the default link (an empty form).
        assert_eq!(key(""), format!("{:08x}", 0x811c_9dc5u32));
    }

    #[test]
    fn every_link_draws_its_own_story_with_its_controls_disabled() {
        let mut keys = std::collections::BTreeSet::new();
        for link in links() {
            assert!(keys.insert(key(&link)), "{link:?} has another link's key");
            let html = screen(&link);
            assert!(!html.contains("<button type") && !html.contains("<input type"), "{link:?}: a control left enabled");
            assert!(!html.contains(" style=\""), "{link:?}: an inline style the CSP refuses");
            let (parsed, _) = fencing_sim::permalink::parse(&split_query(&link).rest);
            if view_of(&split_query(&link)) == View::Race {
                let name = fencing_sim::presets::find(&parsed.scenario.preset).map_or("Custom", |preset| preset.name);
                assert!(html.contains(&format!("</span>{}", fencing_lab_web::escape(name))), "{link:?}: not its scenario's story");
                assert!(html.contains("data-testid=\"race-verdict\""), "{link:?}: no verdict");
            }
        }
    }
}
