//! The instructors' views, an entry point of their own (`src/bin/teach.rs`):
//! the question builder, a question or set opened from its link, and either
//! packed for a course platform.

pub mod asked;
pub mod builder;
pub mod lms;
