//! The test's own reading of one model node, from its typed replies: what
//! the node must answer next, and when its lease runs out. Checking it
//! against the model's replies is a second, independent look at the model.

use super::{SCALE, TOLERANCE_US};
use fencing_sim::msg::Msg;

/// How far behind schedule (scaled µs) this process was just before it sent
/// a command and just after the reply: the server ran it somewhere between.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Late {
    pub before_us: i64,
    pub after_us: i64,
}

impl Late {
    /// The most the real time between two commands can differ from their
    /// scaled model time.
    fn skew_us(self, earlier: Late) -> u64 {
        self.after_us.abs_diff(earlier.before_us).max(self.before_us.abs_diff(earlier.after_us))
    }
}

impl std::fmt::Display for Late {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}–{} µs late", self.before_us, self.after_us)
    }
}

#[derive(Clone, Copy, Debug)]
pub struct ShadowLease {
    /// The model's lock value.
    pub value: u64,
    pub expires_us: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Shadow {
    pub lease: Option<ShadowLease>,
    pub counter: u64,
    /// The latest planned expiry (model µs), and how late this process was
    /// when it set the real key's expiry.
    pub expiry: Option<(u64, Late)>,
}

impl Shadow {
    pub fn new(first_token: u64) -> Shadow {
        Shadow { counter: first_token - 1, ..Shadow::default() }
    }

    pub fn expire(&mut self, t_us: u64) {
        if self.lease.is_some_and(|lease| lease.expires_us <= t_us) {
            self.lease = None;
        }
    }

    fn mine(&self, value: u64) -> bool {
        self.lease.is_some_and(|lease| lease.value == value)
    }

    /// The reply Redis semantics give to `request` now.
    pub fn predict(&self, request: &Msg) -> Msg {
        match *request {
            Msg::SetNx { .. } => Msg::SetReply { ok: self.lease.is_none() },
            Msg::Incr => Msg::IncrReply { value: self.counter + 1 },
            Msg::AcquireScript { .. } => Msg::AcquireScriptReply { token: self.lease.is_none().then_some(self.counter + 1) },
            Msg::Renew { value, .. } => Msg::RenewReply { ok: self.mine(value) },
            Msg::Check { value } => Msg::CheckReply { mine: self.mine(value) },
            Msg::ReleaseCad { value } => Msg::ReleaseReply { deleted: self.mine(value) },
            Msg::Del => Msg::ReleaseReply { deleted: self.lease.is_some() },
            other => panic!("{other:?} is no Redis lock command"),
        }
    }

    pub fn apply(&mut self, t_us: u64, late: Late, request: &Msg, reply: &Msg) {
        match (*request, *reply) {
            (Msg::SetNx { value, ttl_ms }, Msg::SetReply { ok: true }) => self.grant(t_us, late, value, ttl_ms),
            (Msg::AcquireScript { value, ttl_ms }, Msg::AcquireScriptReply { token: Some(token) }) => {
                self.grant(t_us, late, value, ttl_ms);
                self.counter = token;
            }
            (Msg::Incr, Msg::IncrReply { value }) => self.counter = value,
            (Msg::Renew { ttl_ms, .. }, Msg::RenewReply { ok: true }) => {
                let expires_us = t_us + ttl_ms * 1000;
                if let Some(lease) = &mut self.lease {
                    lease.expires_us = expires_us;
                }
                self.expiry = Some((expires_us, late));
            }
            (Msg::ReleaseCad { .. } | Msg::Del, Msg::ReleaseReply { deleted: true }) => {
                self.lease = None;
                self.expiry = None;
            }
            _ => {}
        }
    }

    fn grant(&mut self, t_us: u64, late: Late, value: u64, ttl_ms: u64) {
        let expires_us = t_us + ttl_ms * 1000;
        self.lease = Some(ShadowLease { value, expires_us });
        self.expiry = Some((expires_us, late));
    }

    /// The node's clock jumps: its expiries come `jump_ms` sooner.
    pub fn jump(&mut self, t_us: u64, jump_ms: i64) {
        let shift = |expires_us: u64| expires_us.saturating_add_signed(-jump_ms * 1000).max(t_us);
        if let Some(lease) = &mut self.lease {
            lease.expires_us = shift(lease.expires_us);
        }
        if let Some((expires_us, _)) = &mut self.expiry {
            *expires_us = shift(*expires_us);
        }
        self.expire(t_us);
    }

    /// Whether, at model time `t_us` with this process `late` behind, the
    /// reply could depend on which side of an expiry the real server is.
    pub fn near_expiry(&self, t_us: u64, late: Late) -> bool {
        self.expiry.is_some_and(|(expires_us, late_at_set)| t_us.abs_diff(expires_us) / SCALE <= TOLERANCE_US + late.skew_us(late_at_set))
    }
}
