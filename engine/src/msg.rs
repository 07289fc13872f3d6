//! Messages between actors, typed: the trace carries them as they are, and the
//! text on a diagram's arrow is rendered from them (`Msg::label`). A message
//! travels with a request id (see `world::net`): a request names its own, a
//! reply names the request it answers, so a late reply to an earlier attempt
//! can never be taken for the answer to the current one.

use serde::Serialize;
use std::fmt;

/// What a write carries to the store. `epoch` is the observer's ground truth
/// (which grant the writer acts under); no actor reads it, it only lets the
/// run count zombie writes and stale overwrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct WriteReq {
    pub token: Option<u64>,
    #[serde(skip)]
    pub epoch: u32,
    /// 1-based index of this write within the writer's hold.
    pub nth: u8,
    /// Versioned store: the version the writer read (write only if unchanged).
    pub version: Option<u64>,
}

/// Why the store refused a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "refusal", rename_all = "snake_case")]
pub enum Refusal {
    /// Fencing: the token is lower than one already accepted.
    StaleToken { token: u64, highest: u64 },
    /// Optimistic concurrency: the data moved on since the writer read it.
    StaleVersion { read: u64, current: u64 },
    /// A conditional write without the version it was conditioned on.
    NoVersion,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::StaleToken { token, highest } => write!(f, "token {token} < {highest} already accepted"),
            Refusal::StaleVersion { read, current } => write!(f, "version {read} is stale, the data is at version {current}"),
            Refusal::NoVersion => f.write_str("a versioned store needs the version read"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Msg {
    /// `SET lock <value> NX PX <ttl>`
    SetNx {
        value: u64,
        ttl_ms: u64,
    },
    /// `INCR fence`: the fencing token, as a second round trip.
    Incr,
    /// One Lua script: `SET lock <value> NX PX <ttl>` and, only if it was
    /// set, `INCR fence`; the grant and its token in one atomic step.
    AcquireScript {
        value: u64,
        ttl_ms: u64,
    },
    /// Compare-and-`PEXPIRE` (Redis) or a lease keep-alive (consensus):
    /// extend the lease only if it is still mine.
    Renew {
        value: u64,
        ttl_ms: u64,
    },
    /// `GET lock` compared with my value: is the lease still mine?
    Check {
        value: u64,
    },
    /// Compare-and-delete script (Redis) or revoking my lease (consensus).
    ReleaseCad {
        value: u64,
    },
    /// Naive `DEL lock`.
    Del,
    /// Consensus lock: ask for a lease (a session).
    LeaseGrant {
        ttl_ms: u64,
    },
    LeaseGrantReply {
        lease: u64,
        ttl_ms: u64,
    },
    /// Consensus lock: create my key under the lock prefix, tied to my lease.
    PutLock {
        lease: u64,
    },
    /// The key's create revision (0: the lease was gone); `owner` when no
    /// older key is waiting.
    PutReply {
        revision: u64,
        owner: bool,
    },
    /// Consensus lock: every older key is gone; the lock is yours. It answers
    /// the waiter's `PutLock` (a watch, in etcd's recipe).
    LockReady {
        revision: u64,
    },
    /// Versioned store: read the data and its version.
    Read,
    ReadReply {
        version: u64,
    },
    SetReply {
        ok: bool,
    },
    /// The acquire script's answer: the token, or nil when the lock is taken.
    AcquireScriptReply {
        token: Option<u64>,
    },
    IncrReply {
        value: u64,
    },
    RenewReply {
        ok: bool,
    },
    CheckReply {
        mine: bool,
    },
    ReleaseReply {
        deleted: bool,
    },
    Write(WriteReq),
    WriteReply {
        refusal: Option<Refusal>,
    },
    // Appended, not inserted: a link's story hash covers each message's
    // variant index, so a new variant goes last.
    /// A lock that keeps no line (Consul's `?acquire`): `false`. `held`:
    /// another session holds the key (the client then blocks on it); else
    /// nobody does but a lock-delay refuses it. The real answer is only
    /// `false`; the client learns which from the key (`api/lock.go`,
    /// `Lock`), folded in here.
    AcquireRefused {
        held: bool,
    },
    /// The key a blocked client watches changed: its holder went. It answers
    /// the refused acquire (a blocking `GET` with a wait index, in Consul).
    KeyChanged,
    /// ZooKeeper: the create's answer, the znode's name (its sequence
    /// number, from the parent's counter) and its `czxid` from its `Stat`,
    /// the token; `owner` when no lower znode is waiting.
    Created {
        seq: u64,
        czxid: u64,
        owner: bool,
    },
}

impl Msg {
    /// The label drawn on the message's arrow.
    pub fn label(&self) -> String {
        match self {
            Msg::SetNx { value, ttl_ms } => format!("SET lock {} NX PX {ttl_ms}", short_value(*value)),
            Msg::Incr => "INCR fence".to_string(),
            Msg::AcquireScript { value, ttl_ms } => format!("EVAL acquire: SET lock {} NX PX {ttl_ms} + INCR", short_value(*value)),
            Msg::Renew { ttl_ms, .. } => format!("renew PX {ttl_ms} if mine"),
            Msg::Check { .. } => "GET lock (still mine?)".to_string(),
            Msg::ReleaseCad { .. } => "release if mine".to_string(),
            Msg::Del => "DEL lock".to_string(),
            Msg::SetReply { ok } => if *ok { "OK" } else { "nil (taken)" }.to_string(),
            Msg::AcquireScriptReply { token: Some(token) } => format!("OK, token {token}"),
            Msg::AcquireScriptReply { token: None } => "nil (taken)".to_string(),
            Msg::IncrReply { value } => format!("token {value}"),
            Msg::RenewReply { ok } => if *ok { "renewed" } else { "0 (not mine)" }.to_string(),
            Msg::CheckReply { mine } => if *mine { "yes, yours" } else { "no, not yours" }.to_string(),
            Msg::ReleaseReply { deleted } => if *deleted { "1 (deleted)" } else { "0 (not mine)" }.to_string(),
            Msg::LeaseGrant { ttl_ms } => format!("grant lease TTL {ttl_ms} ms"),
            Msg::LeaseGrantReply { lease, ttl_ms } => format!("lease {lease:x} ({ttl_ms} ms)"),
            Msg::PutLock { lease } => format!("put lock key (lease {lease:x})"),
            Msg::PutReply { revision: 0, .. } => "lease not found".to_string(),
            Msg::PutReply { revision, owner } => {
                format!("revision {revision}{}", if *owner { ", you hold it" } else { ", wait your turn" })
            }
            Msg::LockReady { revision } => format!("your key {revision} is first: you hold it"),
            Msg::AcquireRefused { .. } => "false".to_string(),
            Msg::KeyChanged => "lock key changed: no holder".to_string(),
            Msg::Created { seq, czxid, owner } => {
                format!("n-{seq:010}, czxid {czxid:#x}{}", if *owner { ", you hold it" } else { ", wait your turn" })
            }
            Msg::Read => "read".to_string(),
            Msg::ReadReply { version } => format!("version {version}"),
            Msg::Write(req) => match (req.token, req.version) {
                (_, Some(version)) => format!("write if version = {version}"),
                (Some(token), None) => format!("write(token {token})"),
                (None, None) => "write".to_string(),
            },
            Msg::WriteReply { refusal: None } => "ok".to_string(),
            Msg::WriteReply { refusal: Some(refusal) } => format!("rejected: {refusal}"),
        }
    }

    /// Whether this message answers a request (rather than asking one).
    pub fn is_reply(&self) -> bool {
        matches!(
            self,
            Msg::LeaseGrantReply { .. }
                | Msg::PutReply { .. }
                | Msg::LockReady { .. }
                | Msg::AcquireRefused { .. }
                | Msg::KeyChanged
                | Msg::Created { .. }
                | Msg::ReadReply { .. }
                | Msg::SetReply { .. }
                | Msg::AcquireScriptReply { .. }
                | Msg::IncrReply { .. }
                | Msg::RenewReply { .. }
                | Msg::CheckReply { .. }
                | Msg::ReleaseReply { .. }
                | Msg::WriteReply { .. }
        )
    }
}

/// Lock values are random 64-bit numbers; eight hex digits are enough to
/// tell them apart on a diagram.
pub fn short_value(value: u64) -> String {
    format!("{:08x}", value >> 32)
}
