//! What a run keeps: every event with its sentence and the timelines, or
//! only the counters and the verdict. Read by the world, the observer and the
//! cursor alike, so it sits below all three.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Full,
    Summary,
}
