//! Cache-busting: every link to an asset carries `?v=` and a hash of the
//! asset's bytes, so a host can cache the files for a year and an upgrade
//! is still picked up at once. The file names stay stable (the strict CSP
//! and the embed snippets name them), only the links change.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The assets whose links are versioned, in the order they must be hashed:
/// `boot.js` names the app's files, so it is rewritten (and hashed) after them.
const ASSETS: &[&str] = &[
    "fencing-lab-web_bg.wasm",
    "fencing-lab-web.js",
    "fencing-lab-race_bg.wasm",
    "fencing-lab-race.js",
    "fencing-lab-quiz_bg.wasm",
    "fencing-lab-quiz.js",
    "fencing-lab-compare_bg.wasm",
    "fencing-lab-compare.js",
    "fencing-lab-teach_bg.wasm",
    "fencing-lab-teach.js",
    "main.css",
    "print.css",
    "lesson.css",
    "lesson.js",
    "theme.js",
    "fencing-lab-embed.js",
    "boot.js",
];

/// Asset name → versioned link ("main.css?v=1a2b3c4d").
pub type Versions = BTreeMap<&'static str, String>;

/// Rewrites the links in `boot.js` and `index.html`; returns every asset's versioned link.
pub fn stamp(dist: &Path) -> Result<Versions, String> {
    let mut versions = Versions::new();
    for name in ASSETS {
        let path = dist.join(name);
        if *name == "boot.js" {
            rewrite(&path, &versions)?;
        }
        if name.ends_with(".css") {
            let text = fs::read_to_string(&path).map_err(|error| format!("{}: {error}", path.display()))?;
            let compact = compact_css(&text);
            fs::write(&path, &compact).map_err(|error| format!("{}: {error}", path.display()))?;
            reintegrate(&dist.join("index.html"), name, compact.as_bytes())?;
        }
        let bytes = fs::read(&path).map_err(|error| format!("{}: {error}", path.display()))?;
        versions.insert(name, format!("{name}?v={:08x}", fnv1a(&bytes) >> 32));
    }
    rewrite(&dist.join("index.html"), &versions)?;
    Ok(versions)
}

/// Replaces `./name` (a link as Trunk and boot.js write it) with its versioned form.
fn rewrite(path: &Path, versions: &Versions) -> Result<(), String> {
    let mut text = fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
    for (name, versioned) in versions {
        for quote in ['"', '\''] {
            text = text.replace(&format!("{quote}./{name}{quote}"), &format!("{quote}./{versioned}{quote}"));
        }
    }
    fs::write(path, text).map_err(|error| format!("{}: {error}", path.display()))
}

/// The stylesheet without its comments, indentation and blank lines: the
/// sources explain themselves to their readers, the browser needs none of it
/// (about 1.3 KB less in the first load, gzipped). Quoted strings are kept
/// as they are, so a `content: "/*"` would survive.
pub fn compact_css(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    let mut quote = None;
    while let Some(c) = rest.chars().next() {
        if quote.is_none() && rest.starts_with("/*") {
            // An unclosed comment runs to the end, as it does for the browser.
            rest = rest[2..].find("*/").map_or("", |end| &rest[2 + end + 2..]);
            continue;
        }
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            (Some(_), '\\') => {
                // An escaped character inside a string: copy it as it is.
                out.push(c);
                rest = &rest[1..];
                let Some(next) = rest.chars().next() else { break };
                out.push(next);
                rest = &rest[next.len_utf8()..];
                continue;
            }
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    let lines: Vec<&str> = out.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    let mut compact = lines.join("\n");
    compact.push('\n');
    compact
}

/// Writes the Subresource Integrity hash of `name`'s new bytes into the
/// link Trunk gave one (a link without one is left as it is).
fn reintegrate(index: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    use base64::Engine;
    use sha2::Digest;
    let mut html = fs::read_to_string(index).map_err(|error| format!("{}: {error}", index.display()))?;
    let Some(link) = html.find(&format!("\"./{name}\"")) else { return Ok(()) };
    let tag_end = html[link..].find('>').map_or(html.len(), |end| link + end);
    let Some(start) = html[link..tag_end].find("integrity=\"").map(|at| link + at + "integrity=\"".len()) else { return Ok(()) };
    let end = html[start..].find('"').map_or(tag_end, |end| start + end);
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha384::digest(bytes));
    html.replace_range(start..end, &format!("sha384-{hash}"));
    fs::write(index, html).map_err(|error| format!("{}: {error}", index.display()))
}

/// 64-bit FNV-1a (the model's): stable across builds and machines, enough to tell versions apart.
pub use fencing_sim::trace::fnv1a;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_gain_a_version_that_follows_the_content() {
        let dir = std::env::temp_dir().join(format!("fencing-lab-stamp-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        for name in ASSETS {
            fs::write(dir.join(name), format!("content of {name}")).unwrap();
        }
        fs::write(dir.join("boot.js"), "import init from './fencing-lab-web.js'; init('./fencing-lab-web_bg.wasm');").unwrap();
        fs::write(dir.join("index.html"), r#"<link href="./main.css" integrity="sha384-stale"><script src="./boot.js"></script>"#).unwrap();
        let versions = stamp(&dir).unwrap();
        let boot = fs::read_to_string(dir.join("boot.js")).unwrap();
        assert!(boot.contains(&format!("'./{}'", versions["fencing-lab-web.js"])), "{boot}");
        let index = fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(index.contains(&format!("\"./{}\"", versions["boot.js"])), "{index}");
        // The compacted stylesheet's integrity hash: SHA-384 of "content of main.css\n".
        assert!(index.contains("integrity=\"sha384-Gc3Rfb//wG817+odK3am5q0mWZ0M0vcT8Xk40YA89Ah9C79jalzz+BtB2ejaq4My\""), "{index}");
        assert!(versions["main.css"].starts_with("main.css?v="));
        fs::write(dir.join("main.css"), "changed").unwrap();
        assert_ne!(stamp(&dir).unwrap()["main.css"], versions["main.css"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stylesheets_lose_comments_and_indentation_but_never_a_string() {
        let css = "/* what the colours mean */\n:root {\n    --bg: #fff; /* the page */\n\n}\n.a::before { content: \"/* kept */\"; }\n.b::after { content: '\\'*/'; }\n";
        assert_eq!(compact_css(css), ":root {\n--bg: #fff;\n}\n.a::before { content: \"/* kept */\"; }\n.b::after { content: '\\'*/'; }\n");
        assert_eq!(compact_css("a { color: red } /* unclosed"), "a { color: red }\n");
    }
}
