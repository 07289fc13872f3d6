//! Fencing Lab on course platforms: a question set (or the built-in quiz)
//! packed as a SCORM 1.2 package for an LMS, and as an Open edX JSInput
//! problem graded on the platform. The top layer of the model's crates:
//! it reads the story crate's quiz and markup and writes files; nothing
//! below it knows a course platform exists.

pub mod jsinput;
pub mod scorm;
