//! The test's own reading of the model's etcd, from its replies.

use super::steps::{Command, Reply};
use super::{LEASE_MS_MIN, TICK_US};

#[derive(Clone, Copy, Debug)]
pub struct ShadowLease {
    pub id: u64,
    pub worker: u8,
    pub ttl_ms: u64,
    pub expires_us: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShadowKey {
    pub worker: u8,
    pub lease: u64,
    pub revision: u64,
}

/// etcd's semantics as the model claims them: a lease grant takes no
/// revision, a put and a key's deletion take one each, the lowest create
/// revision holds the lock, an expired lease goes at the next 500 ms tick.
#[derive(Clone, Debug, Default)]
pub struct Shadow {
    pub revision: u64,
    pub leases: Vec<ShadowLease>,
    /// In create-revision order.
    pub keys: Vec<ShadowKey>,
}

/// A lease (and its key) that the shadow's tick revoked.
#[derive(Clone, Copy, Debug)]
pub struct Revoked {
    pub lease: ShadowLease,
    /// Its key, and whether that key held the lock.
    pub key: Option<(ShadowKey, bool)>,
    pub tick_us: u64,
}

pub fn tick_after(expires_us: u64) -> u64 {
    expires_us.div_ceil(TICK_US) * TICK_US
}

impl Shadow {
    /// Revokes every lease whose tick has come by `t_us`.
    pub fn advance(&mut self, t_us: u64) -> Vec<Revoked> {
        let due: Vec<ShadowLease> = self.leases.iter().copied().filter(|lease| tick_after(lease.expires_us) <= t_us).collect();
        due.into_iter()
            .map(|lease| {
                let key = self.remove(lease.id);
                Revoked { lease, key, tick_us: tick_after(lease.expires_us) }
            })
            .collect()
    }

    pub fn remove(&mut self, lease: u64) -> Option<(ShadowKey, bool)> {
        self.leases.retain(|live| live.id != lease);
        let position = self.keys.iter().position(|key| key.lease == lease)?;
        self.revision += 1;
        Some((self.keys.remove(position), position == 0))
    }

    pub fn lease(&self, id: u64) -> Option<&ShadowLease> {
        self.leases.iter().find(|lease| lease.id == id)
    }

    /// Whether the lease has run out but its tick has not come yet: the real
    /// etcd's own tick may or may not have revoked it.
    pub fn running_out(&self, id: u64, t_us: u64) -> bool {
        self.lease(id).is_some_and(|lease| lease.expires_us <= t_us)
    }

    /// Whether the reply to `command` at `t_us` depends on such a lease.
    pub fn uncertain(&self, t_us: u64, command: &Command) -> bool {
        let first_running_out = self.keys.first().is_some_and(|key| self.running_out(key.lease, t_us));
        match *command {
            Command::Grant { .. } | Command::KeepAlive { .. } => false,
            Command::Put { lease } => first_running_out || self.running_out(lease, t_us),
            Command::Check { .. } => first_running_out,
            Command::Release { lease } => self.running_out(lease, t_us),
        }
    }

    /// The reply the model's etcd must give; a grant's id is the model's own.
    pub fn predict(&self, t_us: u64, command: &Command, model: &Reply) -> Reply {
        match *command {
            Command::Grant { ttl_ms } => {
                let lease = if let Reply::Lease { lease, .. } = *model { lease } else { 0 };
                Reply::Lease { lease, ttl_ms: ttl_ms.max(LEASE_MS_MIN) }
            }
            Command::Put { lease } => match self.lease(lease) {
                Some(_) => Reply::Key { revision: self.revision + 1, owner: self.keys.is_empty() },
                None => Reply::Key { revision: 0, owner: false },
            },
            Command::KeepAlive { lease } => Reply::Yes(self.lease(lease).is_some_and(|live| live.expires_us > t_us)),
            Command::Check { lease } => Reply::Yes(self.keys.first().is_some_and(|key| key.lease == lease)),
            Command::Release { lease } => Reply::Yes(self.keys.iter().any(|key| key.lease == lease)),
        }
    }

    pub fn apply(&mut self, t_us: u64, from: u8, command: &Command, reply: &Reply) {
        match (*command, *reply) {
            (Command::Grant { .. }, Reply::Lease { lease, ttl_ms }) => {
                self.leases.push(ShadowLease { id: lease, worker: from, ttl_ms, expires_us: t_us + ttl_ms * 1000 });
            }
            (Command::Put { lease }, Reply::Key { revision, .. }) if revision > 0 => {
                self.revision = revision;
                self.keys.push(ShadowKey { worker: from, lease, revision });
            }
            (Command::KeepAlive { lease }, Reply::Yes(true)) => {
                if let Some(live) = self.leases.iter_mut().find(|live| live.id == lease) {
                    live.expires_us = t_us + live.ttl_ms * 1000;
                }
            }
            (Command::Release { lease }, _) => {
                self.remove(lease);
            }
            _ => {}
        }
    }
}
