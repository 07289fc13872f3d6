//! `invariant!`: what must (and must never) hold at a step of the engine —
//! a lock node, a worker, the store, the queue, the world — checked where
//! the step happens, so a broken state machine stops the run at its cause
//! rather than surfacing later as a wrong story (TigerBeetle's
//! TIGER_STYLE: assertions of what must and must never happen).
//!
//! Why not `debug_assert!`: the tests run in `--release` (`cargo test
//! --release`), which shares the `release` profile with the page's full
//! wasm build, so a profile cannot give the tests the checks without
//! giving them to the browser too. An `invariant!` is an `assert!` on every
//! native build (tests, the command line, the benchmarks: measured at no
//! cost the bench can see, see /tmp/notes/44-asserts.md) and in any debug
//! build; only a release wasm build (the page) compiles it out, to keep its
//! download as it was. Its message names the invariant and the values.
//!
//! It lives here, not in a file of its own, only because the crate root's
//! module list belongs to another change; `#[macro_export]` puts it at
//! `crate::invariant!` wherever it is defined.

/// Asserts an engine invariant (see the module's comment for where it runs).
/// Takes what `assert!` takes: a condition and a message with its values.
#[doc(hidden)]
#[macro_export]
macro_rules! invariant {
    ($($arg:tt)+) => {
        if cfg!(any(debug_assertions, not(target_arch = "wasm32"))) {
            assert!($($arg)+);
        }
    };
}
