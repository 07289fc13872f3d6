//! The families of protocol the services speak, and what each means to a
//! worker and to a scenario's validation (`Client`): one exhaustive table,
//! so neither the worker nor validation tests which family it is. What a
//! family means to the world (its nodes, its leader, its state) is in
//! `world/family/`, one file per family.

/// How a service's nodes work together, and so what the world drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// One Redis node: `SET NX PX`, a token from a counter.
    SingleRedis,
    /// A Redis primary, an asynchronous replica, Sentinel promoting it.
    RedisFailover,
    /// Independent masters; a client holds the lock on a majority of them.
    Redlock,
    /// Replicated members with a leader that needs a majority (Raft, ZAB):
    /// a session kept alive, a key per contender, the first key holds.
    Consensus,
    /// No lock service: the store's conditional write.
    None,
}

/// What a worker does differently per family, and what a scenario of the
/// family may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client {
    /// Whether a holder has a fencing token (Redlock's value is random;
    /// without a lock there is none).
    pub tokens: bool,
    /// Whether the token comes from a Redis counter.
    pub redis_counter: bool,
    /// What a holder does before a write when `check_before_write` is on.
    pub check: Check,
    /// Whether a lock request and a release go to every master, not to
    /// "the lock service" (Redlock): a release then is sent, not confirmed.
    pub every_master: bool,
    /// No lock: a worker reads a version, writes conditionally and starts
    /// over on its own terms; a scenario must use a versioned store.
    pub conditional: bool,
    /// Whether a scenario may turn renewal on (Redlock has no renewal in
    /// this model).
    pub renewal_allowed: bool,
    /// Whether it is a replicated service with a leader and a majority.
    pub consensus: bool,
}

/// What a holder checks before it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// It asks the lock service whether the lock is still its own.
    AskService,
    /// It can only consult its own clock (Redlock's validity time).
    OwnClock,
    /// Nothing: there is no lock to check (the store's condition decides).
    Nothing,
}

/// A Redis lock's client: a token from the counter, a check with the node.
const REDIS: Client = Client {
    tokens: true,
    redis_counter: true,
    check: Check::AskService,
    every_master: false,
    conditional: false,
    renewal_allowed: true,
    consensus: false,
};

impl Family {
    /// What a worker of this family does differently.
    pub const fn client(self) -> Client {
        match self {
            Family::SingleRedis | Family::RedisFailover => REDIS,
            Family::Redlock => {
                Client { tokens: false, redis_counter: false, check: Check::OwnClock, every_master: true, renewal_allowed: false, ..REDIS }
            }
            Family::Consensus => Client { redis_counter: false, consensus: true, ..REDIS },
            Family::None => Client { tokens: false, redis_counter: false, check: Check::Nothing, conditional: true, ..REDIS },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Check, Family};

    /// The table says what the families' checks used to: no lock is the
    /// only conditional one, Redlock the only one without renewal, tokens
    /// or a service to ask.
    #[test]
    fn each_family_is_what_its_workers_did() {
        let all = [Family::SingleRedis, Family::RedisFailover, Family::Redlock, Family::Consensus, Family::None];
        let conditional: Vec<Family> = all.into_iter().filter(|family| family.client().conditional).collect();
        assert_eq!(conditional, [Family::None]);
        let unrenewed: Vec<Family> = all.into_iter().filter(|family| !family.client().renewal_allowed).collect();
        assert_eq!(unrenewed, [Family::Redlock]);
        let tokenless: Vec<Family> = all.into_iter().filter(|family| !family.client().tokens).collect();
        assert_eq!(tokenless, [Family::Redlock, Family::None]);
        let redis: Vec<Family> = all.into_iter().filter(|family| family.client().redis_counter).collect();
        assert_eq!(redis, [Family::SingleRedis, Family::RedisFailover]);
        assert_eq!(Family::Redlock.client().check, Check::OwnClock);
        assert!(all.iter().all(|family| family.client().every_master == (*family == Family::Redlock)));
    }
}
