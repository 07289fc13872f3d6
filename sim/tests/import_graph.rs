//! The import graph between each crate's top-level modules has no circle:
//! a module may use the ones below it, never one that uses it back. Read
//! from the source (`crate::x` paths, grouped ones included, and items
//! re-exported by `lib.rs`), tests and binaries aside.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Files under `dir`, at most this many (a bound on the walk).
const FILES_MAX: usize = 2_000;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() && name != "tests" && name != "bin" {
            files(&path, out);
        } else if name.ends_with(".rs") && name != "tests.rs" {
            assert!(out.len() < FILES_MAX, "more than {FILES_MAX} files under {}", dir.display());
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to ("lib" for lib.rs itself).
fn module_of(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).unwrap();
    let first = relative.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

/// The source before its unit tests.
fn code(file: &Path) -> String {
    let text = fs::read_to_string(file).unwrap();
    text.split("#[cfg(test)]").next().unwrap_or_default().to_string()
}

/// The first segment of every `crate::` path in `text`.
fn used(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(group.split(',').map(|item| item.trim().split("::").next().unwrap_or("").to_string()));
        } else {
            names.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    names
}

/// Items `lib.rs` re-exports, by the module they come from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    for line in lib.lines().filter_map(|line| line.trim().strip_prefix("pub use ")) {
        let Some((module, rest)) = line.split_once("::") else { continue };
        let rest = rest.trim_end_matches(';').trim_start_matches('{').trim_end_matches('}');
        for item in rest.split(',') {
            let item = item.trim().rsplit(" as ").next().unwrap_or("").trim();
            items.insert(item.to_string(), module.to_string());
        }
    }
    items
}

fn graph(root: &Path) -> Graph {
    let mut paths = Vec::new();
    files(root, &mut paths);
    let modules: BTreeSet<String> = paths.iter().map(|file| module_of(root, file)).collect();
    let lib = root.join("lib.rs");
    let exported = if lib.exists() { reexports(&code(&lib)) } else { BTreeMap::new() };
    let mut graph = Graph::new();
    for file in &paths {
        let from = module_of(root, file);
        for name in used(&code(file)) {
            let to = if modules.contains(&name) { Some(name) } else { exported.get(&name).cloned() };
            if let Some(to) = to.filter(|to| *to != from && to != "lib") {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// A circle through `start`, if the graph has one: the path back to it.
fn circle_through(graph: &Graph, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![start.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap();
        for next in graph.get(last).into_iter().flatten() {
            if next == start {
                return Some(path.iter().cloned().chain([start.to_string()]).collect());
            }
            if seen.insert(next.clone()) {
                stack.push(path.iter().cloned().chain([next.clone()]).collect());
            }
        }
    }
    None
}

#[test]
fn no_crate_has_a_circle_between_its_modules() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut circles = Vec::new();
    for crate_src in ["engine/src", "sim/src", "src", "lesson/site/src"] {
        let graph = graph(&workspace.join(crate_src));
        assert!(graph.len() >= 3, "{crate_src}: the graph was read ({} modules import others)", graph.len());
        for module in graph.keys() {
            if let Some(circle) = circle_through(&graph, module) {
                circles.push(format!("{crate_src}: {}", circle.join(" → ")));
            }
        }
    }
    assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n"));
}

#[test]
fn a_circle_is_found_where_there_is_one() {
    let mut graph = Graph::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("c".into());
    graph.entry("c".into()).or_default().insert("a".into());
    assert_eq!(circle_through(&graph, "a"), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    graph.get_mut("c").unwrap().clear();
    assert_eq!(circle_through(&graph, "a"), None);
    assert_eq!(used("use crate::{app, embed::Embedded};\nlet x = crate::escape(y);"), ["app", "embed", "escape"]);
}
