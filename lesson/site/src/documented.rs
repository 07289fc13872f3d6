//! Every link into the lab that the documents write (the README, `docs/`,
//! `examples/` and the lesson's pages) carries the fingerprint of the run it
//! shows (`fp=`), and this checks it still is that run: a model change that
//! alters a documented story fails here until the text around the link is
//! reviewed. `UPDATE_LINKS=1 cargo test -p fencing-lab-site documented`
//! then writes each link as it would be made now (as `fencing-lab link`
//! prints it).

#[cfg(test)]
mod tests {
    use fencing_sim::relink::restamped;
    use std::path::{Path, PathBuf};

    /// The documents, from the workspace's root.
    fn documents() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
        for folder in ["docs", "examples", "lesson/pages"] {
            let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(folder)).unwrap().map(|entry| entry.unwrap().path()).collect();
            found.retain(|path| path.extension().is_some_and(|ext| ["md", "html", "js"].contains(&ext.to_str().unwrap())));
            found.sort();
            files.extend(found);
        }
        files
    }

    /// The queries a text writes after a '?', as (start, end) byte ranges:
    /// up to the first character a written link ends at.
    fn queries(text: &str) -> Vec<(usize, usize)> {
        let ends = |c: char| c.is_whitespace() || "\"'`)<>]\\".contains(c);
        let mut found = Vec::new();
        for (at, _) in text.match_indices('?') {
            let start = at + 1;
            let end = text[start..].find(ends).map_or(text.len(), |length| start + length);
            found.push((start, end));
        }
        found
    }

    /// Whether a query tells a story of its own (and so must carry its
    /// fingerprint); a placeholder with '…' is an example of the shape.
    fn tells_a_story(query: &str) -> bool {
        let story = query.split('&').any(|pair| ["preset=", "compare=", "set=", "ask="].iter().any(|key| pair.starts_with(key)));
        story && !query.contains('…') && !query.contains("${")
    }

    #[test]
    fn every_documented_link_carries_the_fingerprint_of_its_run() {
        let update = std::env::var_os("UPDATE_LINKS").is_some();
        let (mut checked, mut wrong) = (0, Vec::new());
        for file in documents() {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut fresh_text = String::new();
            let mut copied = 0;
            for (start, end) in queries(&text) {
                // In HTML a link's '&' is written "&amp;".
                let html = text[start..end].contains("&amp;");
                let query = text[start..end].replace("&amp;", "&");
                if !tells_a_story(&query) {
                    continue;
                }
                checked += 1;
                let (fresh, difference) = restamped(&query);
                if let Some(difference) = difference {
                    wrong.push(format!("{}: ?{query}\n    {difference}\n    now: ?{fresh}", file.display()));
                }
                fresh_text.push_str(&text[copied..start]);
                fresh_text.push_str(&if html { fresh.replace('&', "&amp;") } else { fresh });
                copied = end;
            }
            fresh_text.push_str(&text[copied..]);
            if update && fresh_text != text {
                std::fs::write(&file, fresh_text).unwrap();
            }
        }
        assert!(checked >= 30, "only {checked} documented links found");
        assert!(
            wrong.is_empty() || update,
            "documented links whose run is not the one their fingerprint names (review the text around each, then rerun with UPDATE_LINKS=1):\n{}",
            wrong.join("\n")
        );
    }

    /// The README is a page a newcomer reads, not a manual: its detail
    /// lives in `docs/` (issue 44: it had grown to 464 lines).
    const README_LINES_MAX: usize = 200;

    #[test]
    fn the_readme_stays_short_and_links_the_map_near_the_top() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        let lines = readme.lines().count();
        assert!(lines < README_LINES_MAX, "the README has {lines} lines; move detail to docs/ to keep it under {README_LINES_MAX}");
        let map = readme.lines().position(|line| line.contains("](ARCHITECTURE.md)"));
        assert!(map.is_some_and(|line| line < 20), "ARCHITECTURE.md is linked near the top (line {map:?})");
    }

    /// Every relative link in the Markdown documents names a file that
    /// exists (a moved section leaves no dead link behind).
    #[test]
    fn every_relative_link_in_the_markdown_names_a_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
        let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs")).unwrap().map(|entry| entry.unwrap().path()).collect();
        docs.retain(|path| path.extension().is_some_and(|ext| ext == "md"));
        docs.sort();
        files.extend(docs);
        let (mut checked, mut dead) = (0, Vec::new());
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            for (at, _) in text.match_indices("](") {
                let start = at + 2;
                let Some(length) = text[start..].find(')') else { continue };
                let target = text[start..start + length].split('#').next().unwrap_or_default();
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                if !file.parent().unwrap().join(target).exists() {
                    dead.push(format!("{}: {target}", file.display()));
                }
            }
        }
        assert!(checked >= 10, "only {checked} relative links found");
        assert!(dead.is_empty(), "links to files that do not exist:\n{}", dead.join("\n"));
    }
}
