//! Every view of the lab: the race, side by side, the quiz and the sweep.

use fencing_lab_web::app::routed_shell;
use fencing_lab_web::{every_view, start};

fn main() {
    start(every_view, |_| true, routed_shell);
}
