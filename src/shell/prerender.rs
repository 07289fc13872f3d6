//! Each view's first screen, drawn natively when the site is built: the
//! same components the page runs, rendered to HTML once at the link's
//! cursor, so the story is on screen before the simulator arrives (the
//! site writes it into the served page; the app replaces it in place).
//! Natively nothing plays and no listener is registered (`browser::IN_BROWSER`).

use crate::shell::app::{single_view_shell, App};
use crate::shell::mount::Views;
use crate::shell::route::View;
use any_spawner::{CustomExecutor, Executor, PinnedFuture, PinnedLocalFuture};
use leptos::prelude::*;

/// Drops every task: effects (which measure, scroll and write the URL in
/// the browser) never run when a first screen is drawn.
struct NoTasks;

impl CustomExecutor for NoTasks {
    fn spawn(&self, _task: PinnedFuture<()>) {}
    fn spawn_local(&self, _task: PinnedLocalFuture<()>) {}
    fn poll_local(&self) {}
}

/// The markup the page draws for `query` (without its '?'), with the views
/// of the entry point that serves it.
pub fn first_screen(query: &str, views: Views, has: fn(View) -> bool) -> String {
    // Already set by an earlier call of this process: the same executor.
    let _ = Executor::init_custom_executor(NoTasks);
    crate::shell::browser::draw_for(query);
    let owner = Owner::new();
    // Without the router: its links and markup are the ones `frame` writes
    // for both shells, and natively there is no location for it to read.
    // Untracked: drawn once, nothing is to follow a signal.
    let html = owner.with(|| untrack(|| view! { <App views has shell=single_view_shell/> }.to_html()));
    drop(owner);
    html
}
