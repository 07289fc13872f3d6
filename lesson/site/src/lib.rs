//! The static part of Fencing Lab's site. The lesson is prose, so it is
//! plain HTML that reads without WebAssembly; its runs are links into the lab
//! and widgets loaded on request. Its figures come from the model itself, at
//! build time, and every link into the lab is checked against the model's
//! own parser, so a typo fails the build instead of showing a notice.

mod claims;
mod documented;
pub mod expand;
pub mod first;
pub mod fleet;
pub mod highlight;
pub mod pages;
pub mod stamp;
pub mod sweep;

use std::path::Path;

/// Writes each link's first screen (`dist/first/`, the default one into
/// `index.html`), the lesson into `dist/lesson/`, and versions every asset link in
/// `dist` (the page, its loader and the lesson's pages).
pub fn build(dist: &Path) -> Result<(), String> {
    first::write(dist)?;
    let versions = stamp::stamp(dist)?;
    pages::write(dist, &versions)?;
    scorm_files_present(dist)
}

/// The site's files a SCORM package fetches (`fencing_course::scorm`) are all
/// in the build: a renamed file fails the build, not an instructor's download.
fn scorm_files_present(dist: &Path) -> Result<(), String> {
    use fencing_course::scorm::{site_files, Build};
    for name in [Build::Teach, Build::Quiz].into_iter().flat_map(site_files) {
        if !dist.join(name).is_file() {
            return Err(format!("{name}, which every SCORM package carries, is not in the build"));
        }
    }
    Ok(())
}

#[path = "../../../src/shell/escape.rs"]
mod escape;
pub use escape::escape;
/// The fleet's figures as the page draws them: one renderer for both.
#[path = "../../../src/fleet/chart.rs"]
pub mod fleet_chart;
