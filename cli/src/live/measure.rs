//! What really happened, measured as the model measures it: by the order in
//! which the lock service granted the lock (ground truth), not by tokens.

use super::event::{LiveEvent, Store, What, Who};
use serde::Serialize;

/// A store's last accepted write, as `run --json`'s `final_store` has it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinalStore {
    pub writer: String,
    pub token: Option<u64>,
}

impl FinalStore {
    /// "A:33" → A, token 33.
    pub fn parse(datum: &str) -> FinalStore {
        match datum.split_once(':') {
            Some((writer, token)) => FinalStore { writer: writer.to_string(), token: token.parse().ok() },
            None => FinalStore { writer: datum.to_string(), token: None },
        }
    }

    pub fn describe(store: Option<&FinalStore>) -> String {
        match store {
            Some(FinalStore { writer, token: Some(token) }) => format!("{writer} (token {token})"),
            Some(FinalStore { writer, token: None }) => format!("{writer} (no token)"),
            None => "empty".to_string(),
        }
    }
}

/// One store's outcome, with `run --json`'s summary field names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StoreOutcome {
    pub zombie_writes: u32,
    pub stale_overwrites: u32,
    pub rejected_writes: u32,
    pub rightful_writes_rejected: u32,
    pub accepted_writes: u32,
    pub final_store: Option<FinalStore>,
}

/// When each `SET NX` said OK, in order: the lock service's grants.
struct Grants(Vec<(Who, f64)>);

impl Grants {
    fn of(events: &[LiveEvent]) -> Grants {
        Grants(events.iter().filter(|said| matches!(said.what, What::Granted { .. })).map(|said| (said.worker, said.t_ms)).collect())
    }

    /// The worker's latest grant before `t_ms`.
    fn latest_of(&self, who: Who, t_ms: f64) -> Option<f64> {
        self.0.iter().filter(|(whose, granted)| *whose == who && *granted < t_ms).map(|(_, granted)| *granted).next_back()
    }

    /// Who the lock service granted the lock to last before `t_ms`.
    fn holder_at(&self, t_ms: f64) -> Option<Who> {
        self.0.iter().filter(|(_, granted)| *granted < t_ms).map(|(whose, _)| *whose).next_back()
    }

    /// Whether another worker was granted the lock after `since_ms` and
    /// before `t_ms`.
    fn superseded(&self, who: Who, since_ms: f64, t_ms: f64) -> bool {
        self.0.iter().any(|(whose, granted)| *whose != who && *granted > since_ms && *granted < t_ms)
    }
}

/// Counts one store's writes. A zombie write: accepted after the lock was
/// granted to another worker since the writer's own grant. A stale
/// overwrite: an accepted write that replaced data written under a later
/// grant. A rightful write rejected: a refusal of the worker the lock was
/// granted to last.
pub fn store_outcome(events: &[LiveEvent], store: Store, final_value: Option<&str>) -> StoreOutcome {
    let grants = Grants::of(events);
    let mut outcome = StoreOutcome { final_store: final_value.map(FinalStore::parse), ..StoreOutcome::default() };
    for write in events {
        let What::Wrote { store: written, accepted, replaced, .. } = &write.what else { continue };
        if *written != store {
            continue;
        }
        let (who, t_ms) = (write.worker, write.t_ms);
        if !accepted {
            outcome.rejected_writes += 1;
            outcome.rightful_writes_rejected += u32::from(grants.holder_at(t_ms) == Some(who));
            continue;
        }
        outcome.accepted_writes += 1;
        let own_grant_ms = grants.latest_of(who, t_ms).unwrap_or(f64::NEG_INFINITY);
        outcome.zombie_writes += u32::from(grants.superseded(who, own_grant_ms, t_ms));
        let replaced_writer = replaced.as_deref().map(FinalStore::parse).and_then(|datum| writer(&datum.writer));
        let replaced_grant_ms = replaced_writer.and_then(|other| grants.latest_of(other, t_ms));
        outcome.stale_overwrites += u32::from(replaced_grant_ms.is_some_and(|granted| granted > own_grant_ms));
    }
    outcome
}

fn writer(name: &str) -> Option<Who> {
    match name {
        "A" => Some(Who::A),
        "B" => Some(Who::B),
        _ => None,
    }
}

/// The writes a store saw, in order: "B:34 A:33✗" (✗ refused).
pub fn writes_in_order(events: &[LiveEvent], store: Store) -> String {
    let words: Vec<String> = events
        .iter()
        .filter_map(|said| match said.what {
            What::Wrote { store: written, token, accepted, .. } if written == store => {
                Some(format!("{}:{token}{}", said.worker, if accepted { "" } else { "✗" }))
            }
            _ => None,
        })
        .collect();
    words.join(" ")
}

/// The token each worker drew, in the order they drew them: "A:34 B:33".
pub fn tokens_in_order(events: &[LiveEvent]) -> String {
    let words: Vec<String> = events
        .iter()
        .filter_map(|said| match said.what {
            What::Acquired { token } => Some(format!("{}:{token}", said.worker)),
            _ => None,
        })
        .collect();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrote(t_ms: f64, worker: Who, store: Store, token: u64, accepted: bool, replaced: Option<&str>) -> LiveEvent {
        let replaced = replaced.map(str::to_string);
        LiveEvent::new(t_ms, worker, What::Wrote { store, token, nth: 1, accepted, highest: None, replaced })
    }

    #[test]
    fn a_token_inversion_counts_by_grant_order_not_by_token() {
        let events = vec![
            LiveEvent::new(0.5, Who::A, What::Granted { attempts: 1 }),
            LiveEvent::new(1000.0, Who::B, What::Granted { attempts: 20 }),
            wrote(1400.0, Who::B, Store::Fenced, 33, true, None),
            // A's newer token over B's data from a later grant: stale.
            wrote(1600.0, Who::A, Store::Fenced, 34, true, Some("B:33")),
            // B, the rightful holder, refused.
            wrote(1800.0, Who::B, Store::Fenced, 33, false, None),
        ];
        let outcome = store_outcome(&events, Store::Fenced, Some("A:34"));
        assert_eq!(
            outcome,
            StoreOutcome {
                zombie_writes: 1,
                stale_overwrites: 1,
                rejected_writes: 1,
                rightful_writes_rejected: 1,
                accepted_writes: 2,
                final_store: Some(FinalStore { writer: "A".into(), token: Some(34) }),
            }
        );
        assert_eq!(writes_in_order(&events, Store::Fenced), "B:33 A:34 B:33✗");
        assert_eq!(store_outcome(&events, Store::Plain, None), StoreOutcome::default());
    }
}
