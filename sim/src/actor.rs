//! Who does something in a run: a worker, a lock-service node or the store.
//! Actors print as short names ("A", "L1", "store") because the trace, the
//! command line and the page all show them to people.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The most workers a scenario may have: five fit in one picture.
pub const WORKERS_MAX: u8 = 5;
/// The most lock-service nodes (Redlock's five masters).
pub const LOCK_NODES_MAX: u8 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Actor {
    /// Worker by index: 0 is "A", 1 is "B", …
    Worker(u8),
    /// Lock-service node by index: 0 is "L1".
    LockNode(u8),
    Store,
}

impl Actor {
    pub fn worker_index(self) -> Option<u8> {
        match self {
            Actor::Worker(index) => Some(index),
            _ => None,
        }
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::Worker(index) => write!(f, "{}", char::from(b'A' + index)),
            Actor::LockNode(index) => write!(f, "L{}", index + 1),
            Actor::Store => f.write_str("store"),
        }
    }
}

impl From<Actor> for String {
    fn from(actor: Actor) -> String {
        actor.to_string()
    }
}

impl TryFrom<String> for Actor {
    type Error = String;
    fn try_from(name: String) -> Result<Actor, String> {
        name.parse()
    }
}

impl std::str::FromStr for Actor {
    type Err = String;
    fn from_str(name: &str) -> Result<Actor, String> {
        let bytes = name.as_bytes();
        match bytes {
            b"store" => Ok(Actor::Store),
            [letter @ b'A'..=b'E'] => Ok(Actor::Worker(letter - b'A')),
            [b'L', digit @ b'1'..=b'5'] => Ok(Actor::LockNode(digit - b'1')),
            _ => Err(format!("unknown actor {name:?}: expected a worker A–E, a lock node L1–L5 or \"store\"")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for actor in [Actor::Worker(0), Actor::Worker(4), Actor::LockNode(0), Actor::LockNode(4), Actor::Store] {
            let name = actor.to_string();
            assert_eq!(name.parse::<Actor>(), Ok(actor), "{name}");
        }
        assert!("F".parse::<Actor>().is_err());
        assert!("L6".parse::<Actor>().is_err());
        assert!("".parse::<Actor>().is_err());
    }
}
