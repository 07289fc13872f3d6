//! The instructors' views: the question builder (`view=build`) and an
//! instructor's question or set opened from its link (`ask=`, `set=`), with
//! the built-in quiz as their safe default. An entry point of its own, so
//! the lab's other views (and the race's first load) carry none of it;
//! `static/boot.js` picks it for those links, and a link to any other view
//! is a new page load there.

use fencing_lab_web::shell::app::routed_shell;
use fencing_lab_web::{is_teach_view, start, teach_view};

fn main() {
    start(teach_view, is_teach_view, routed_shell);
}
