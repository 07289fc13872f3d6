//! Which events are retry chatter: a refused acquire attempt, its messages,
//! and the backoff after it. The page folds them away; which events they
//! are is a fact about the run, so the core says.

use crate::event::{Event, Kind};
use crate::trace::Trace;

impl Trace {
    /// For each event: whether it is retry chatter.
    pub fn chatter(&self) -> Vec<bool> {
        let mut refused_msgs: Vec<u32> = Vec::new();
        for (index, event) in self.events.iter().enumerate() {
            if !matches!(event.kind, Kind::Denied { .. }) {
                continue;
            }
            // The refused request is the receive just before the denial on
            // that node; the refusal is the send just after it.
            let before = self.events[..index].iter().rev().find(|e| e.actor == event.actor && matches!(e.kind, Kind::Receive { .. }));
            let after = self.events[index..].iter().find(|e| e.actor == event.actor && matches!(e.kind, Kind::Send { .. }));
            refused_msgs.extend(before.into_iter().chain(after).filter_map(message_id));
        }
        self.events
            .iter()
            .map(|event| {
                matches!(event.kind, Kind::Denied { .. } | Kind::AcquireFailed { .. } | Kind::Backoff { .. })
                    || message_id(event).is_some_and(|msg| refused_msgs.contains(&msg))
            })
            .collect()
    }
}

fn message_id(event: &Event) -> Option<u32> {
    match event.kind {
        Kind::Send { msg, .. } | Kind::Receive { msg, .. } | Kind::Lost { msg, .. } => Some(msg),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_classic_story_folds_b_s_refused_attempts_and_keeps_the_rest() {
        let trace = crate::run(&crate::Scenario::default()).unwrap();
        let chatter = trace.chatter();
        let kept = chatter.iter().filter(|folded| !**folded).count();
        assert!(chatter.iter().any(|folded| *folded), "B's retries fold away");
        assert_eq!((kept, chatter.len() - kept), (50, 70), "B's ten refused attempts fold away, seven events each");
        let writes_kept = trace
            .events
            .iter()
            .zip(&chatter)
            .filter(|(event, folded)| matches!(event.kind, Kind::WriteAccepted { .. }) && !**folded)
            .count();
        assert_eq!(writes_kept, 2, "no write is ever chatter");
    }

    use crate::event::Kind;
}
