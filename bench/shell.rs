//! The lab's page around the race, with no race in it: the link read and
//! checked (its fingerprint's run), the link written back, the header, the
//! notices, the panic box and the first screen's takeover, all as the
//! race's build has them. `scripts/bench.sh` prints its first load beside
//! the race's: what the race's first load weighs before any of the race's
//! own views. Never served.

use fencing_lab_web::shell::app::single_view_shell;
use fencing_lab_web::{is_race, start};
use leptos::prelude::*;

fn main() {
    start(|_, _| ().into_any(), is_race, single_view_shell);
}
