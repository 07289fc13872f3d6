//! One line per actor saying how the run ended for it, for the page's actor
//! cards and the command line. Computed here so that every view agrees.

use crate::actor::Actor;
use crate::event::Kind;
use crate::observer::SpanKind;
use crate::trace::Trace;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ActorDigest {
    pub actor: Actor,
    /// What the actor is (e.g. "Worker", "Lock service (single Redis)").
    pub role: String,
    /// How the run went for it, in a few words.
    pub headline: String,
}

impl Trace {
    /// Digests for the workers, the lock service and the store, in lane order.
    pub fn digests(&self) -> Vec<ActorDigest> {
        let mut digests: Vec<ActorDigest> = self.workers().into_iter().map(|worker| self.worker_digest(worker)).collect();
        if self.scenario.lock_service != crate::LockService::None {
            digests.push(self.lock_digest());
        }
        digests.push(self.store_digest());
        digests
    }

    fn worker_digest(&self, worker: Actor) -> ActorDigest {
        let mut parts = Vec::new();
        let tokens: Vec<String> = self
            .events
            .iter()
            .filter(|event| event.actor == worker && matches!(event.kind, Kind::Acquired { .. }))
            .map(|event| event.token.map_or("held the lock".to_string(), |token| format!("token {token}")))
            .collect();
        parts.push(if tokens.is_empty() { "never held the lock".to_string() } else { tokens.join(", ") });
        let paused_us: u64 = self
            .spans
            .iter()
            .filter(|span| span.worker == worker && span.kind == SpanKind::Pause)
            .map(|span| span.end_us - span.start_us)
            .sum();
        if paused_us > 0 {
            parts.push(format!("paused {}", crate::format_us(paused_us)));
        }
        if self.events.iter().any(|event| event.actor == worker && event.kind == Kind::Crashed) {
            parts.push("crashed".to_string());
        }
        let accepted = self.count(|kind| matches!(kind, Kind::WriteAccepted { writer, .. } if *writer == worker));
        let rejected = self.count(|kind| matches!(kind, Kind::WriteRejected { writer, .. } if *writer == worker));
        if accepted > 0 {
            parts.push(format!("{} accepted", crate::count_of(accepted as u64, "write", "writes")));
        }
        if rejected > 0 {
            parts.push(format!("{} rejected", crate::count_of(rejected as u64, "write", "writes")));
        }
        ActorDigest { actor: worker, role: "Worker".to_string(), headline: parts.join(" · ") }
    }

    fn lock_digest(&self) -> ActorDigest {
        let grants = self.count(|kind| matches!(kind, Kind::Granted { .. }));
        let expiries = self.count(|kind| matches!(kind, Kind::Expired { .. }));
        let headline = format!(
            "{}, {} expired",
            crate::count_of(grants as u64, "grant", "grants"),
            crate::count_of(expiries as u64, "lease", "leases")
        );
        let role = format!("Lock service: {}", self.scenario.lock_service.label());
        ActorDigest { actor: Actor::LockNode(0), role, headline }
    }

    fn store_digest(&self) -> ActorDigest {
        let headline = match self.summary.final_store {
            Some(datum) => match datum.token {
                Some(token) => format!("holds {}'s data (token {token})", datum.writer),
                None => format!("holds {}'s data", datum.writer),
            },
            None => "empty".to_string(),
        };
        ActorDigest { actor: Actor::Store, role: "Store".to_string(), headline }
    }

    fn count(&self, wanted: impl Fn(&Kind) -> bool) -> usize {
        self.events.iter().filter(|event| wanted(&event.kind)).count()
    }
}

#[cfg(test)]
mod tests {
    use crate::{presets, run, Actor, Scenario};

    #[test]
    fn the_classic_story_in_one_line_per_actor() {
        let trace = run(&presets::classic()).unwrap();
        let lines: Vec<(Actor, String)> = trace.digests().into_iter().map(|digest| (digest.actor, digest.headline)).collect();
        assert_eq!(lines[0], (Actor::Worker(0), "token 33 · paused 15.000 s · 1 write accepted".to_string()));
        assert_eq!(lines[1], (Actor::Worker(1), "token 34 · 1 write accepted".to_string()));
        assert_eq!(lines[2], (Actor::LockNode(0), "2 grants, 1 lease expired".to_string()));
        assert_eq!(lines[3], (Actor::Store, "holds A's data (token 33)".to_string()));
        let fenced = run(&Scenario { fencing: true, ..presets::classic() }).unwrap();
        // A's refused job is retried and lands under token 35 (issue 41, finding 5).
        assert_eq!(fenced.digests()[0].headline, "token 33, token 35 · paused 15.000 s · 1 write accepted · 1 write rejected");
    }
}
