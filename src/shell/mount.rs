//! How a view is mounted, and the function an entry point draws its views
//! with: shared by the app and the embed, which each mount views.

use crate::shell::route::View;
use leptos::prelude::AnyView;

/// How a view is being shown.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mount {
    /// The event to start at, from the link the page was opened with.
    pub cursor: Option<u32>,
    /// Alone in an iframe.
    pub embedded: bool,
    /// The first view of this page load (later ones take focus).
    pub first: bool,
}

/// Renders one view; each entry point (the race alone, or every view) says
/// which views it has, and links to the others leave the page.
pub type Views = fn(View, Mount) -> AnyView;
