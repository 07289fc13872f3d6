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

/// 64-bit FNV-1a: stable across builds and machines, enough to tell versions apart.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3))
}

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
        fs::write(dir.join("index.html"), r#"<link href="./main.css"><script src="./boot.js"></script>"#).unwrap();
        let versions = stamp(&dir).unwrap();
        let boot = fs::read_to_string(dir.join("boot.js")).unwrap();
        assert!(boot.contains(&format!("'./{}'", versions["fencing-lab-web.js"])), "{boot}");
        let index = fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(index.contains(&format!("\"./{}\"", versions["boot.js"])), "{index}");
        assert!(versions["main.css"].starts_with("main.css?v="));
        fs::write(dir.join("main.css"), "changed").unwrap();
        assert_ne!(stamp(&dir).unwrap()["main.css"], versions["main.css"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
