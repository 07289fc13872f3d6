//! The built-in quiz alone: what a quiz link (`view=quiz`, `quiz=`) and
//! `embed=quiz` load, so a course page's first frame, the prediction,
//! downloads neither the explorer nor the fleet. The router stays: moving
//! between questions is in place; a link to another view is a new page
//! load, which `static/boot.js` sends to that view's entry point.

use fencing_lab_web::shell::app::routed_shell;
use fencing_lab_web::{is_quiz, quiz_view, start};

fn main() {
    start(quiz_view, is_quiz, routed_shell);
}
