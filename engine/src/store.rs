//! The protected resource. Fencing lives here: only the store, at the moment
//! of the write, can refuse a stale writer.

use crate::actor::Actor;
use crate::msg::{Refusal, WriteReq};
use crate::scenario::StoreKind;
use serde::Serialize;

/// What the store holds: who wrote it, under which token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Datum {
    pub writer: Actor,
    pub token: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `replaced_epoch`: ground truth, the grant the replaced data was
    /// written under (0 when nothing was replaced).
    Accepted {
        replaced: Option<Datum>,
        replaced_epoch: u32,
    },
    Rejected {
        refusal: Refusal,
    },
}

impl Verdict {
    pub fn refusal(self) -> Option<Refusal> {
        match self {
            Verdict::Accepted { .. } => None,
            Verdict::Rejected { refusal } => Some(refusal),
        }
    }
}

pub struct Store {
    kind: StoreKind,
    checks_tokens: bool,
    current: Option<Datum>,
    /// Ground truth: the grant the current data was written under.
    current_epoch: u32,
    highest_token: Option<u64>,
    /// Versioned store: bumped by every accepted write.
    version: u64,
}

impl Store {
    pub fn new(kind: StoreKind, fencing: bool) -> Store {
        let checks_tokens = fencing && kind == StoreKind::Database;
        Store { kind, checks_tokens, current: None, current_epoch: 0, highest_token: None, version: 0 }
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    #[cfg(test)]
    pub fn current(&self) -> Option<Datum> {
        self.current
    }

    /// The highest token the store has accepted.
    pub fn highest_token(&self) -> Option<u64> {
        self.highest_token
    }

    /// Fencing: refuse a token lower than the highest accepted. An equal
    /// token is accepted, so one holder can write several times.
    pub fn write(&mut self, writer: Actor, request: &WriteReq) -> Verdict {
        let (highest_before, version_before) = (self.highest_token, self.version);
        let verdict = self.decide(writer, request);
        // The highest token only grows; a refusal changes nothing; a
        // versioned store moves one version per accepted write.
        crate::invariant!(
            self.highest_token >= highest_before,
            "the store's highest token went back: {highest_before:?} -> {:?}",
            self.highest_token
        );
        match verdict {
            Verdict::Accepted { .. } => {
                // A fenced store never accepts a token below its highest.
                let fenced_ok = !self.checks_tokens || request.token.is_none() || request.token >= highest_before;
                crate::invariant!(fenced_ok, "a fenced store accepted token {:?} below its highest {highest_before:?}", request.token);
                let versions = u64::from(self.kind == StoreKind::Versioned);
                crate::invariant!(
                    self.version == version_before + versions,
                    "an accepted write moved the version {version_before} -> {}",
                    self.version
                );
            }
            Verdict::Rejected { .. } => {
                let unchanged = self.highest_token == highest_before && self.version == version_before;
                crate::invariant!(unchanged, "a refused write from {writer:?} changed the store");
            }
        }
        verdict
    }

    fn decide(&mut self, writer: Actor, request: &WriteReq) -> Verdict {
        if self.kind == StoreKind::Versioned {
            match request.version {
                Some(read) if read == self.version => self.version += 1,
                Some(read) => return Verdict::Rejected { refusal: Refusal::StaleVersion { read, current: self.version } },
                None => return Verdict::Rejected { refusal: Refusal::NoVersion },
            }
        }
        if self.checks_tokens {
            if let (Some(token), Some(highest)) = (request.token, self.highest_token) {
                if token < highest {
                    return Verdict::Rejected { refusal: Refusal::StaleToken { token, highest } };
                }
            }
        }
        if let Some(token) = request.token {
            self.highest_token = Some(self.highest_token.map_or(token, |highest| highest.max(token)));
        }
        let replaced = self.current.replace(Datum { writer, token: request.token });
        let replaced_epoch = std::mem::replace(&mut self.current_epoch, request.epoch);
        Verdict::Accepted { replaced, replaced_epoch }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(store: &mut Store, writer: u8, token: u64) -> Verdict {
        store.write(Actor::Worker(writer), &WriteReq { token: Some(token), epoch: 0, nth: 1, version: None })
    }

    #[test]
    fn fencing_refuses_lower_accepts_equal_and_higher() {
        let mut store = Store::new(StoreKind::Database, true);
        assert!(matches!(write(&mut store, 1, 34), Verdict::Accepted { replaced: None, .. }));
        assert!(matches!(write(&mut store, 1, 34), Verdict::Accepted { .. }));
        assert_eq!(write(&mut store, 0, 33), Verdict::Rejected { refusal: Refusal::StaleToken { token: 33, highest: 34 } });
        assert!(matches!(write(&mut store, 2, 35), Verdict::Accepted { .. }));
    }

    #[test]
    fn a_versioned_store_takes_one_write_per_version() {
        let mut store = Store::new(StoreKind::Versioned, false);
        let at = |version| WriteReq { token: None, epoch: 0, nth: 1, version: Some(version) };
        assert!(matches!(store.write(Actor::Worker(0), &at(0)), Verdict::Accepted { .. }));
        assert_eq!(store.write(Actor::Worker(1), &at(0)), Verdict::Rejected { refusal: Refusal::StaleVersion { read: 0, current: 1 } });
        assert!(matches!(store.write(Actor::Worker(1), &at(1)), Verdict::Accepted { .. }));
    }

    #[test]
    fn without_fencing_or_on_nfs_the_last_writer_wins() {
        for mut store in [Store::new(StoreKind::Database, false), Store::new(StoreKind::NfsFile, true)] {
            write(&mut store, 1, 34);
            assert!(matches!(write(&mut store, 0, 33), Verdict::Accepted { .. }));
            assert_eq!(store.current().unwrap().writer, Actor::Worker(0));
        }
    }
}
