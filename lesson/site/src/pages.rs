//! The lesson's pages: one URL per section, each opened by the same header,
//! contents and pager, so Back and a shared link land on exactly one section.

use crate::escape;
use crate::expand::expand;
use crate::stamp::Versions;
use std::fs;
use std::path::Path;

pub struct Page {
    /// The file name without `.html`.
    pub id: &'static str,
    pub title: &'static str,
    /// One line for the contents.
    pub summary: &'static str,
    /// The section's HTML, with the lesson's own tags (see `expand`).
    pub body: &'static str,
}

pub const PAGES: &[Page] = &[
    Page {
        id: "index",
        title: "Locks, leases and fencing tokens",
        summary: "The story in one minute, and what is in the lesson",
        body: include_str!("../../pages/index.html"),
    },
    Page {
        id: "problem",
        title: "The problem, and when a lock is the wrong tool",
        summary: "Efficiency and correctness locks, and what to reach for first",
        body: include_str!("../../pages/problem.html"),
    },
    Page {
        id: "mechanism",
        title: "How it works: lease, owner value, fencing token",
        summary: "Why safety moves from the lock to the resource",
        body: include_str!("../../pages/mechanism.html"),
    },
    Page {
        id: "build",
        title: "Building it step by step",
        summary: "From a unique owner value to a token on every write",
        body: include_str!("../../pages/build.html"),
    },
    Page {
        id: "code",
        title: "The code: a client with a fencing token, and the store's check",
        summary: "The same program in Rust, Python, Go, TypeScript and Java",
        body: include_str!("../../pages/code.html"),
    },
    Page {
        id: "failures",
        title: "Failure modes",
        summary: "Pauses, delays, failovers, clock jumps, crashes and a plain DEL, each as a run",
        body: include_str!("../../pages/failures.html"),
    },
    Page {
        id: "tradeoffs",
        title: "Trade-offs",
        summary: "Redis, Redlock, consensus locks, version checks and partitioning compared",
        body: include_str!("../../pages/tradeoffs.html"),
    },
    Page {
        id: "myths",
        title: "What people get wrong",
        summary: "Four tempting answers, and why each falls short",
        body: include_str!("../../pages/myths.html"),
    },
    Page {
        id: "reading",
        title: "Further reading",
        summary: "Kleppmann, the Redis authors, Chubby, ZooKeeper and etcd",
        body: include_str!("../../pages/reading.html"),
    },
];

/// Writes every page, and the code files they offer for download, into `dist/lesson/`.
pub fn write(dist: &Path, versions: &Versions) -> Result<(), String> {
    let folder = dist.join("lesson");
    fs::create_dir_all(folder.join("code")).map_err(|error| format!("{}: {error}", folder.display()))?;
    for listing in crate::highlight::LISTINGS {
        let path = folder.join("code").join(listing.file);
        fs::write(&path, listing.source).map_err(|error| format!("{}: {error}", path.display()))?;
    }
    for (index, page) in PAGES.iter().enumerate() {
        let path = folder.join(format!("{}.html", page.id));
        fs::write(&path, render(index, versions)?).map_err(|error| format!("{}: {error}", path.display()))?;
    }
    let path = folder.join("sweep.html");
    fs::write(&path, figure_page(versions)).map_err(|error| format!("{}: {error}", path.display()))
}

/// The lease sweep alone (`?embed=sweep` on a course page lands here): the
/// lesson's figure with the site's style, nothing around it.
pub fn figure_page(versions: &Versions) -> String {
    let asset = |name: &str| format!("../{}", versions.get(name).map_or(name, String::as_str));
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>A longer lease only needs a longer pause — Fencing Lab</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="{}">
    <link rel="stylesheet" href="{}">
    <script src="{}"></script>
    <script src="{}" defer></script>
</head>
<body class="lesson-body">
    <main id="main">
        <article class="lesson card" aria-labelledby="lesson-title">
            <h1 id="lesson-title">A longer lease only needs a longer pause</h1>
            {}
            <p><a href="myths.html">Read why, in the lesson</a></p>
        </article>
    </main>
</body>
</html>
"#,
        asset("main.css"),
        asset("lesson.css"),
        asset("theme.js"),
        asset("lesson.js"),
        crate::sweep::figure()
    )
}

/// One page, complete.
pub fn render(index: usize, versions: &Versions) -> Result<String, String> {
    let page = &PAGES[index];
    let body = expand(page.body, &contents_with_summaries()).map_err(|problem| format!("lesson/pages/{}.html: {problem}", page.id))?;
    let asset = |name: &str| format!("../{}", versions.get(name).map_or(name, String::as_str));
    let pager = pager(index);
    let contents = contents(Some(index));
    let title = escape(page.title);
    let heading = if index == 0 { title.clone() } else { format!("{index}. {title}") };
    Ok(format!(
        r##"<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>{title} — Fencing Lab lesson</title>
    <meta name="description" content="{summary}">
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="{main_css}">
    <link rel="stylesheet" href="{lesson_css}">
    <script src="{theme_js}"></script>
    <script src="{lesson_js}" defer></script>
    <script src="{embed_js}" defer></script>
</head>
<body class="lesson-body">
    <a class="skip-link" href="#main">Skip to the lesson</a>
    <header class="site-header">
        <p class="site-title"><a href="../">Fencing Lab</a></p>
        <nav class="tabs" aria-label="Views">
            <a href="../">The race</a>
            <a href="../?view=compare">Side by side</a>
            <a href="../?view=quiz">Quiz</a>
            <a href="index.html" aria-current="page">Lesson</a>
        </nav>
    </header>
    <main id="main" class="lesson-layout">
        <details class="lesson-toc" open>
            <summary>Contents</summary>
            <nav aria-label="Lesson contents">{contents}</nav>
        </details>
        <article class="lesson card" aria-labelledby="lesson-title">
            <h1 id="lesson-title">{heading}</h1>
{body}
            {pager}
        </article>
    </main>
    <footer class="site-footer">
        <p>Every run is computed in your browser by a deterministic simulator: same seed, same story.</p>
        <label class="theme" hidden>Theme <select id="theme-choice"><option value="auto">Follow the system</option><option value="light">Light</option><option value="dark">Dark</option></select></label>
    </footer>
</body>
</html>
"##,
        summary = escape(page.summary),
        main_css = asset("main.css"),
        lesson_css = asset("lesson.css"),
        theme_js = asset("theme.js"),
        lesson_js = asset("lesson.js"),
        embed_js = asset("fencing-lab-embed.js"),
    ))
}

/// The contents as a list of links; `current` is marked for assistive technology.
pub fn contents(current: Option<usize>) -> String {
    let items: Vec<String> = PAGES
        .iter()
        .enumerate()
        .map(|(index, page)| {
            let marked = if current == Some(index) { r#" aria-current="page""# } else { "" };
            let name = if index == 0 { "Introduction".to_string() } else { format!("{index}. {}", escape(page.title)) };
            format!(r#"<li><a href="{}.html"{marked}>{name}</a></li>"#, page.id)
        })
        .collect();
    format!(r#"<ol class="lesson-contents">{}</ol>"#, items.join(""))
}

/// The contents with a line for each page, for the introduction.
pub fn contents_with_summaries() -> String {
    let items: Vec<String> = PAGES
        .iter()
        .enumerate()
        .skip(1)
        .map(|(index, page)| {
            format!(
                r#"<li><a href="{}.html">{index}. {}</a><span class="toc-summary"> — {}</span></li>"#,
                page.id,
                escape(page.title),
                escape(page.summary)
            )
        })
        .collect();
    format!(r#"<ol class="lesson-toc-full">{}</ol>"#, items.join(""))
}

fn pager(index: usize) -> String {
    let link = |to: usize, rel: &str, words: &str| {
        format!(r#"<a href="{}.html" rel="{rel}"><span class="pager-dir">{words}</span> {}</a>"#, PAGES[to].id, escape(PAGES[to].title))
    };
    let previous = index.checked_sub(1).map(|to| link(to, "prev", "← Previous:")).unwrap_or_default();
    let next = if index + 1 < PAGES.len() { link(index + 1, "next", "Next:") } else { String::new() };
    format!(r#"<nav class="lesson-pager" aria-label="Previous and next section">{previous}{next}</nav>"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_renders_with_one_heading_and_its_neighbours() {
        let versions = Versions::new();
        for (index, page) in PAGES.iter().enumerate() {
            let html = render(index, &versions).unwrap_or_else(|problem| panic!("{problem}"));
            assert_eq!(html.matches("<h1 ").count(), 1, "{}", page.id);
            assert!(html.contains(r#"aria-current="page">"#));
            assert_eq!(html.contains(r#"rel="next""#), index + 1 < PAGES.len());
            assert!(!html.contains("<run") && !html.contains("<quiz") && !html.contains("lab:"), "{}: an unexpanded tag", page.id);
        }
    }

    #[test]
    fn page_ids_are_unique() {
        let mut ids: Vec<&str> = PAGES.iter().map(|page| page.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), PAGES.len());
    }
}
