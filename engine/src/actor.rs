//! Who does something in a run: a worker, a lock-service node or the store.
//! Actors print as short names ("A", "L1", "store") because the trace, the
//! command line and the page all show them to people.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The most workers a story may have: five fit in one picture.
pub const STORY_WORKERS_MAX: u8 = 5;
/// The most workers any run may have (a fleet's).
pub const WORKERS_MAX: u8 = 64;
/// Workers past Z are named by number: "W27".
const LETTERS: u8 = 26;
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
            Actor::Worker(index) if *index < LETTERS => write!(f, "{}", char::from(b'A' + index)),
            Actor::Worker(index) => write!(f, "W{}", u16::from(*index) + 1),
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
        let unknown = || format!("unknown actor {name:?}: expected a worker A–Z or W27–W64, a lock node L1–L5 or \"store\"");
        match bytes {
            b"store" => Ok(Actor::Store),
            [letter @ b'A'..=b'Z'] => Ok(Actor::Worker(letter - b'A')),
            [b'W', digits @ ..] if digits.first().is_some_and(|first| *first != b'0') => {
                let number = std::str::from_utf8(digits).ok().and_then(|digits| digits.parse::<u8>().ok());
                number
                    .filter(|number| (LETTERS + 1..=WORKERS_MAX).contains(number))
                    .map(|number| Actor::Worker(number - 1))
                    .ok_or_else(unknown)
            }
            [b'L', digit @ b'1'..=b'5'] => Ok(Actor::LockNode(digit - b'1')),
            _ => Err(unknown()),
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
        assert_eq!("F".parse::<Actor>(), Ok(Actor::Worker(5)));
        assert_eq!(Actor::Worker(26).to_string(), "W27");
        assert_eq!("W64".parse::<Actor>(), Ok(Actor::Worker(63)));
        for name in ["W26", "W65", "W027", "Q9", "a"] {
            assert!(name.parse::<Actor>().is_err(), "{name}");
        }
        assert!("L6".parse::<Actor>().is_err());
        assert!("".parse::<Actor>().is_err());
    }
}
