//! The race alone: what the lab's first page and `embed=race` load. The
//! other views live in the full entry point (`src/main.rs`); a link to one
//! of them is a new page load, which `static/boot.js` sends there. With one
//! view there is nothing to route, so this entry point has no router.

use fencing_lab_web::app::single_view_shell;
use fencing_lab_web::route::View;
use fencing_lab_web::{start, Mount, RaceView};
use leptos::prelude::*;

fn race_only(view: View, mount: Mount) -> AnyView {
    match view {
        View::Race => view! { <RaceView cursor=mount.cursor embedded=mount.embedded/> }.into_any(),
        // Never asked for: `has` below sends every other view to the full entry point.
        _ => ().into_any(),
    }
}

fn main() {
    start(race_only, |view| view == View::Race, single_view_shell);
}
