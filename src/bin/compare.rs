//! Side by side alone: what a comparison's link (`view=compare`,
//! `compare=`) and `embed=compare` load, so a course page's comparison
//! downloads neither the explorer, the fleet nor the quiz. With one view
//! there is nothing to route: a link to another view is a new page load,
//! which `static/boot.js` sends to that view's entry point.

use fencing_lab_web::shell::app::single_view_shell;
use fencing_lab_web::{compare_view, is_compare, start};

fn main() {
    start(compare_view, is_compare, single_view_shell);
}
