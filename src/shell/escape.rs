//! Text for HTML: the five characters that could change its meaning. Shared
//! by the page and the lesson's site builder (which includes this file); the
//! function is the model's, which writes the SCORM package's XML with it.

pub use fencing_sim::markup::escape;
