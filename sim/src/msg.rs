//! Messages between actors, and how each reads on a diagram.

/// What a write carries to the store. `epoch` is the observer's ground truth
/// (which grant the writer acts under); no actor reads it, it only lets the
/// run count zombie writes and stale overwrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteReq {
    pub token: Option<u64>,
    pub epoch: u32,
    /// 1-based index of this write within the writer's hold.
    pub nth: u8,
    /// Versioned store: the version the writer read (write only if unchanged).
    pub version: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// `SET lock <value> NX PX <ttl>`
    SetNx {
        value: u64,
        ttl_ms: u64,
    },
    /// `INCR fence`: the fencing token.
    Incr,
    /// Compare-and-`PEXPIRE`: extend the lease only if it is still mine.
    Renew {
        value: u64,
        ttl_ms: u64,
    },
    /// `GET lock` compared with my value: is the lease still mine?
    Check {
        value: u64,
    },
    /// Compare-and-delete script.
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
    /// The key's create revision; `owner` when no older key is waiting.
    PutReply {
        revision: u64,
        owner: bool,
    },
    /// Consensus lock: every older key is gone; the lock is yours.
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
        accepted: bool,
        reason: String,
    },
}

impl Msg {
    /// The label drawn on the message's arrow.
    pub fn label(&self) -> String {
        match self {
            Msg::SetNx { value, ttl_ms } => format!("SET lock {} NX PX {ttl_ms}", short_value(*value)),
            Msg::Incr => "INCR fence".to_string(),
            Msg::Renew { ttl_ms, .. } => format!("renew PX {ttl_ms} if mine"),
            Msg::Check { .. } => "GET lock (still mine?)".to_string(),
            Msg::ReleaseCad { .. } => "release if mine".to_string(),
            Msg::Del => "DEL lock".to_string(),
            Msg::SetReply { ok } => if *ok { "OK" } else { "nil (taken)" }.to_string(),
            Msg::IncrReply { value } => format!("token {value}"),
            Msg::RenewReply { ok } => if *ok { "renewed" } else { "0 (not mine)" }.to_string(),
            Msg::CheckReply { mine } => if *mine { "yes, yours" } else { "no, not yours" }.to_string(),
            Msg::ReleaseReply { deleted } => if *deleted { "1 (deleted)" } else { "0 (not mine)" }.to_string(),
            Msg::LeaseGrant { ttl_ms } => format!("grant lease TTL {ttl_ms} ms"),
            Msg::LeaseGrantReply { lease, ttl_ms } => format!("lease {lease:x} ({ttl_ms} ms)"),
            Msg::PutLock { lease } => format!("put lock key (lease {lease:x})"),
            Msg::PutReply { revision, owner } => {
                format!("revision {revision}{}", if *owner { ", you hold it" } else { ", wait your turn" })
            }
            Msg::LockReady { revision } => format!("your key {revision} is first: you hold it"),
            Msg::Read => "read".to_string(),
            Msg::ReadReply { version } => format!("version {version}"),
            Msg::Write(req) => match (req.token, req.version) {
                (_, Some(version)) => format!("write if version = {version}"),
                (Some(token), None) => format!("write(token {token})"),
                (None, None) => "write".to_string(),
            },
            Msg::WriteReply { accepted, reason } => {
                if *accepted {
                    "ok".to_string()
                } else {
                    format!("rejected: {reason}")
                }
            }
        }
    }
}

/// Lock values are random 64-bit numbers; eight hex digits are enough to
/// tell them apart on a diagram.
pub fn short_value(value: u64) -> String {
    format!("{:08x}", value >> 32)
}
