//! The race alone: what the lab's first page and `embed=race` load. The
//! other views live in the full entry point (`src/main.rs`); a link to one
//! of them is a new page load, which `static/boot.js` sends there. With one
//! view there is nothing to route, so this entry point has no router.

use fencing_lab_web::shell::app::single_view_shell;
use fencing_lab_web::{is_race, race_view, start};

fn main() {
    start(race_view, is_race, single_view_shell);
}
