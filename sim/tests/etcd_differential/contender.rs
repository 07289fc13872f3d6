//! What the two multi-member etcd checks share (`etcd_cluster.rs`,
//! `etcd_partition.rs`): a contender for the lock, as etcd's lock recipe
//! makes one — a lease, a key under the lock's prefix tied to it (its create
//! revision is the token), and the keep-alives that keep it.

use super::client::{b64, Etcd};
use std::time::{Duration, Instant};

/// One contender: its member, lease and key, and its keep-alives.
pub struct Contender {
    pub name: char,
    pub member: usize,
    /// Moves to each new leader it sees; otherwise stays on its member.
    pub follows_leader: bool,
    pub lease: i64,
    pub key: String,
    pub revision: u64,
    pub next_keep_alive: Instant,
    pub keep_alives_failed: u32,
    pub keep_alives_after_election: u32,
}

impl Contender {
    /// Takes a lease of `ttl_s` through `etcd` (member `member`) and puts its
    /// key under `prefix`; returns the contender and its line for the real
    /// timeline.
    pub fn enter(
        etcd: &Etcd,
        member: usize,
        name: char,
        follows_leader: bool,
        prefix: &str,
        ttl_s: u64,
        keep_alive_every: Duration,
    ) -> (Contender, String) {
        let (lease, granted_s) = etcd.grant(ttl_s);
        let key = format!("{prefix}/{lease:x}");
        let revision = etcd.put(&key, lease).unwrap_or_else(|refused| panic!("{name}'s put: {}", refused.message));
        let first = etcd.first_under(prefix).map(|(first, _, _)| first) == Some(b64(&key));
        let state = if first { "its key is first: it holds the lock" } else { "an older key is first: it queues" };
        let line = format!("lease {lease:x} ({granted_s} s) and key put through m{}: create revision {revision}; {state}", member + 1);
        let next_keep_alive = Instant::now() + keep_alive_every;
        let contender = Contender {
            name,
            member,
            follows_leader,
            lease,
            key,
            revision,
            next_keep_alive,
            keep_alives_failed: 0,
            keep_alives_after_election: 0,
        };
        (contender, line)
    }
}
