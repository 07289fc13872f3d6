//! What every view shares: the app's frame and its routing, how a view is
//! mounted (in the app, in an embed, and natively for the first screen), the
//! browser's few entry points, long work in slices, the theme, the glossary's
//! terms, notices and the panic box.

pub mod app;
pub mod browser;
pub mod embed;
pub mod escape;
pub mod mount;
pub mod notice;
pub mod panic_box;
#[cfg(not(target_arch = "wasm32"))]
pub mod prerender;
pub mod route;
pub mod slices;
pub mod term;
pub mod theme;
