//! Differential test against a real etcd 3.4: the consensus lock's three
//! claims (no lease under 2 s, expiry up to a 500 ms tick late, create
//! revisions as tokens that only grow but with gaps) are measured on a real
//! `etcd`, and two consensus stories are replayed on it step by step, at the
//! model's own speed (no time scaling is possible: etcd grants nothing under
//! 2 s), with every reply compared to the model's.
//!
//! `scripts/fidelity-etcd.sh` starts a private server and sets
//! `FENCING_LAB_ETCD_URL`. Without that variable the test says it was skipped
//! and passes, so a plain `cargo test` stays offline.
//!
//! The client is etcd's v3 JSON gateway (`POST /v3/lease/grant`,
//! `/v3/kv/put`, ...) over a plain `TcpStream`: keys are base64, 64-bit numbers
//! are strings. Each model command is rebuilt from its label as the etcd lock
//! recipe does it: a lease, a key `<prefix>/<lease id in hex>` tied to it, the
//! first key by create revision holds the lock; release deletes the key and
//! revokes the lease.
//!
//! Timing: the real etcd revokes an expired lease at its own 500 ms tick,
//! whose phase is not the model's (the model ticks at multiples of 500 ms of
//! virtual time). So while a lease has run out but the model has not revoked it
//! yet, a reply that depends on it may go either way: such a difference is
//! counted and printed, not failed (the offline test checks that the replayed
//! stories have no such step). The replay waits, bounded, for the real etcd to
//! revoke each lease the model revokes, and runs the rest of the story that
//! much later if the real tick came later. Revisions are compared exactly:
//! real = model + an offset read before the story starts.

use fencing_sim::{presets, run, Actor, Fault, Kind, LockService, Scenario, Trace, When};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The model's shortest lease (`LEASE_MS_MIN` in `sim/src/lock/etcd.rs`,
/// private to the crate): etcd's minimum with its default raft timing.
const LEASE_MS_MIN: u64 = 2_000;
/// The model's expiry tick (`EXPIRY_TICK_US`, private too): etcd's lessor
/// looks for expired leases every 500 ms.
const TICK_US: u64 = 500_000;
/// Slack, on this slow 2-core machine, for a revoke to go through raft and
/// for a poll to see it.
const MARGIN_MS: u64 = 300;
/// How often a key whose lease has run out is looked for.
const POLL_MS: u64 = 20;
/// Bound on connecting to and hearing back from the server.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

fn letter(worker: u8) -> char {
    char::from(b'A' + worker)
}

// ---------------------------------------------------------------------------
// The v3 JSON gateway, by hand.

/// An error status from the gateway (or an error in a streamed reply).
#[derive(Debug)]
struct Refused {
    status: u16,
    message: String,
}

impl Refused {
    /// gRPC NotFound: "etcdserver: requested lease not found".
    fn not_found(&self) -> bool {
        self.status == 404 || self.message.contains("not found")
    }
}

struct Etcd {
    addr: std::net::SocketAddr,
    host: String,
}

impl Etcd {
    fn from_url(url: &str) -> Etcd {
        let host =
            url.trim_end_matches('/').strip_prefix("http://").unwrap_or_else(|| panic!("FENCING_LAB_ETCD_URL {url:?}: http:// only"));
        let addr = host.to_socket_addrs().ok().and_then(|mut addrs| addrs.next()).unwrap_or_else(|| panic!("cannot resolve {host:?}"));
        Etcd { addr, host: host.to_string() }
    }

    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect_timeout(&self.addr, REQUEST_TIMEOUT).unwrap_or_else(|error| panic!("connect to etcd: {error}"));
        stream.set_read_timeout(Some(REQUEST_TIMEOUT)).expect("read timeout");
        stream.set_write_timeout(Some(REQUEST_TIMEOUT)).expect("write timeout");
        stream.set_nodelay(true).expect("nodelay");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.host,
            body.len()
        );
        stream.write_all(format!("{head}{body}").as_bytes()).unwrap_or_else(|error| panic!("{path}: {error}"));
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap_or_else(|error| panic!("{path}: no answer: {error}"));
        let raw = String::from_utf8(raw).unwrap_or_else(|_| panic!("{path}: the answer is not UTF-8"));
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or_else(|| panic!("{path}: no HTTP head in {raw:?}"));
        let status =
            head.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or_else(|| panic!("{path}: bad status line in {head:?}"));
        let chunked = head.lines().any(|line| line.to_ascii_lowercase().replace(' ', "") == "transfer-encoding:chunked");
        (status, if chunked { dechunk(body) } else { body.to_string() })
    }

    /// One unary call (or the first message of a streamed one).
    fn call(&self, path: &str, body: Value) -> Result<Value, Refused> {
        let (status, text) = self.request("POST", path, &body.to_string());
        let first = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("{}");
        let value: Value = serde_json::from_str(first).unwrap_or_else(|error| panic!("{path}: {error} in {first:?}"));
        let error = value.get("error").cloned();
        let message = |error: &Value| error.get("message").and_then(Value::as_str).map_or_else(|| error.to_string(), str::to_string);
        match (status, error) {
            (200, None) => Ok(value.get("result").cloned().unwrap_or(value)),
            (200, Some(error)) => Err(Refused {
                status: error.get("http_code").and_then(Value::as_u64).map_or(500, |code| code as u16),
                message: message(&error),
            }),
            (status, _) => Err(Refused { status, message: message(&value) }),
        }
    }

    fn must(&self, path: &str, body: Value) -> Value {
        self.call(path, body).unwrap_or_else(|refused| panic!("{path}: {} {}", refused.status, refused.message))
    }

    fn version(&self) -> String {
        let (_, text) = self.request("GET", "/version", "");
        serde_json::from_str::<Value>(&text).ok().and_then(|v| v["etcdserver"].as_str().map(str::to_string)).unwrap_or(text)
    }

    /// The store's current revision.
    fn revision(&self) -> u64 {
        int(&self.must("/v3/kv/range", json!({ "key": b64("fencing-lab/none") }))["header"], "revision")
    }

    /// Grants a lease of `ttl_s` seconds: (its id, the TTL etcd says it gave).
    fn grant(&self, ttl_s: u64) -> (i64, u64) {
        let reply = self.must("/v3/lease/grant", json!({ "TTL": ttl_s }));
        (int(&reply, "ID") as i64, int(&reply, "TTL"))
    }

    /// Puts `key` tied to `lease`: its create revision (the key is new).
    fn put(&self, key: &str, lease: i64) -> Result<u64, Refused> {
        self.call("/v3/kv/put", json!({ "key": b64(key), "value": "", "lease": lease })).map(|reply| int(&reply["header"], "revision"))
    }

    /// The key under `prefix` with the lowest create revision: (key, create
    /// revision, lease) — the lock's holder in etcd's lock recipe.
    fn first_under(&self, prefix: &str) -> Option<(String, u64, i64)> {
        let reply = self.must(
            "/v3/kv/range",
            json!({ "key": b64(&format!("{prefix}/")), "range_end": b64(&format!("{prefix}0")),
                    "sort_order": "ASCEND", "sort_target": "CREATE", "limit": 1 }),
        );
        let kv = reply.get("kvs")?.get(0)?;
        Some((kv["key"].as_str().unwrap_or_default().to_string(), int(kv, "create_revision"), int(kv, "lease") as i64))
    }

    fn exists(&self, key: &str) -> bool {
        int(&self.must("/v3/kv/range", json!({ "key": b64(key), "count_only": true })), "count") > 0
    }

    /// One keep-alive: the TTL etcd now gives the lease (0: it is gone).
    fn keep_alive(&self, lease: i64) -> u64 {
        int(&self.must("/v3/lease/keepalive", json!({ "ID": lease })), "TTL")
    }

    /// Deletes one key: whether it was there.
    fn delete(&self, key: &str) -> bool {
        int(&self.must("/v3/kv/deleterange", json!({ "key": b64(key) })), "deleted") > 0
    }

    fn revoke(&self, lease: i64) -> Result<(), Refused> {
        self.call("/v3/lease/revoke", json!({ "ID": lease })).map(|_| ())
    }

    fn granted_ttl(&self, lease: i64) -> u64 {
        int(&self.must("/v3/lease/timetolive", json!({ "ID": lease })), "grantedTTL")
    }
}

/// The gateway sends 64-bit numbers as strings and leaves zeros out.
fn int(value: &Value, field: &str) -> u64 {
    match &value[field] {
        Value::String(text) => text.parse::<i64>().unwrap_or_else(|_| panic!("{field}: {text:?} is not a number")) as u64,
        Value::Number(number) => number.as_i64().unwrap_or_else(|| panic!("{field}: {number}")) as u64,
        Value::Null => 0,
        other => panic!("{field}: {other} is not a number"),
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    // Bounded: every chunk consumes at least its size line.
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].strip_prefix("\r\n").unwrap_or(&rest[size..]);
    }
    out
}

fn b64(text: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(3) {
        let bytes = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let bits = u32::from(bytes[0]) << 16 | u32::from(bytes[1]) << 8 | u32::from(bytes[2]);
        for (position, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            out.push(if position <= chunk.len() { char::from(ALPHABET[(bits >> shift & 63) as usize]) } else { '=' });
        }
    }
    out
}

/// A value no other run uses (the test, not the model, may use entropy).
fn random_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    hasher.finish() as u32
}

fn ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// `later − earlier` in ms, negative when `later` came first.
fn ms_between(earlier: Instant, later: Instant) -> i64 {
    if later >= earlier {
        ms(later - earlier)
    } else {
        -ms(earlier - later)
    }
}

// ---------------------------------------------------------------------------
// The model's trace, read as etcd steps.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Command {
    Grant { ttl_ms: u64 },
    Put { lease: u64 },
    KeepAlive { lease: u64 },
    Check { lease: u64 },
    Release { lease: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reply {
    /// The lease's id and the TTL actually granted.
    Lease { lease: u64, ttl_ms: u64 },
    /// The key's create revision (0: refused) and whether it is first.
    Key { revision: u64, owner: bool },
    /// Keep-alive accepted, still mine, key deleted.
    Yes(bool),
}

#[derive(Clone, Debug)]
enum Step {
    Command {
        index: u32,
        t_us: u64,
        from: u8,
        command: Command,
        model: Reply,
    },
    /// The model's tick revoked the holder's lease and deleted its key.
    Expired {
        index: u32,
        t_us: u64,
        holder: u8,
    },
    /// Every older key is gone: the model tells `to` that it holds the lock.
    Ready {
        index: u32,
        t_us: u64,
        to: u8,
        revision: u64,
    },
}

impl Step {
    fn t_us(&self) -> u64 {
        match *self {
            Step::Command { t_us, .. } | Step::Expired { t_us, .. } | Step::Ready { t_us, .. } => t_us,
        }
    }
}

impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Command::Grant { ttl_ms } => write!(f, "lease grant TTL {ttl_ms} ms"),
            Command::Put { lease } => write!(f, "put key (lease {lease:x})"),
            Command::KeepAlive { lease } => write!(f, "keep-alive {lease:x}"),
            Command::Check { lease } => write!(f, "is {lease:x}'s key first?"),
            Command::Release { lease } => write!(f, "delete key + revoke {lease:x}"),
        }
    }
}

fn hex(text: &str, label: &str) -> u64 {
    u64::from_str_radix(text, 16).unwrap_or_else(|_| panic!("no lease id in {label:?}"))
}

fn number(text: &str, label: &str) -> u64 {
    text.parse().unwrap_or_else(|_| panic!("no number in {label:?}"))
}

/// The consensus node's steps of a trace, in order.
fn steps(trace: &Trace) -> Vec<Step> {
    let events = &trace.events;
    // The latest lease the node granted each worker: what its keep-alive,
    // check and release name (their labels do not).
    let mut lease_of: HashMap<u8, u64> = HashMap::new();
    let mut steps = Vec::new();
    for (position, event) in events.iter().enumerate() {
        match (&event.kind, event.actor) {
            (Kind::Receive { from: Actor::Worker(from), body, .. }, Actor::LockNode(0)) => {
                let label = &body.label();
                let reply = events[position + 1..].iter().find_map(|later| match &later.kind {
                    Kind::Send { to, body, .. } | Kind::Lost { to, body, .. }
                        if later.actor == event.actor && *to == Actor::Worker(*from) =>
                    {
                        Some(body.label())
                    }
                    _ => None,
                });
                let reply = reply.unwrap_or_else(|| panic!("L1 never answered {label:?} (event {})", event.index));
                let lease = || *lease_of.get(from).unwrap_or_else(|| panic!("{label:?} sent before any lease"));
                let words: Vec<&str> = label.split_whitespace().collect();
                let command = match words.as_slice() {
                    ["grant", "lease", "TTL", ttl_ms, "ms"] => Command::Grant { ttl_ms: number(ttl_ms, label) },
                    ["put", "lock", "key", "(lease", id] => Command::Put { lease: hex(id.trim_end_matches(')'), label) },
                    ["renew", "PX", _, "if", "mine"] => Command::KeepAlive { lease: lease() },
                    ["GET", "lock", "(still", "mine?)"] => Command::Check { lease: lease() },
                    ["release", "if", "mine"] => Command::Release { lease: lease() },
                    _ => panic!("unknown consensus command label {label:?}: teach tests/etcd_differential.rs about it"),
                };
                let model = model_reply(&command, &reply);
                if let Reply::Lease { lease, .. } = model {
                    lease_of.insert(*from, lease);
                }
                steps.push(Step::Command { index: event.index, t_us: event.t_us, from: *from, command, model });
            }
            (Kind::Send { to: Actor::Worker(to), body: fencing_sim::msg::Msg::LockReady { revision }, .. }, Actor::LockNode(0)) => {
                let revision = *revision;
                steps.push(Step::Ready { index: event.index, t_us: event.t_us, to: *to, revision });
            }
            (Kind::Expired { holder: Actor::Worker(holder), .. }, Actor::LockNode(0)) => {
                steps.push(Step::Expired { index: event.index, t_us: event.t_us, holder: *holder });
            }
            (Kind::Receive { .. } | Kind::Expired { .. }, Actor::LockNode(node)) if node != 0 => {
                panic!("event {}: the consensus lock runs on one node, not L{}", event.index, node + 1)
            }
            _ => {}
        }
    }
    steps
}

fn model_reply(command: &Command, label: &str) -> Reply {
    let words: Vec<&str> = label.split_whitespace().collect();
    let reply = match (command, words.as_slice()) {
        (Command::Grant { .. }, ["lease", id, ttl_ms, "ms)"]) => {
            Some(Reply::Lease { lease: hex(id, label), ttl_ms: number(ttl_ms.trim_start_matches('('), label) })
        }
        (Command::Put { .. }, ["revision", revision, "you", "hold", "it"]) => {
            Some(Reply::Key { revision: number(revision.trim_end_matches(','), label), owner: true })
        }
        (Command::Put { .. }, ["revision", revision, "wait", "your", "turn"]) => {
            Some(Reply::Key { revision: number(revision.trim_end_matches(','), label), owner: false })
        }
        (Command::KeepAlive { .. }, ["renewed"])
        | (Command::Check { .. }, ["yes,", "yours"])
        | (Command::Release { .. }, ["1", "(deleted)"]) => Some(Reply::Yes(true)),
        (Command::KeepAlive { .. } | Command::Release { .. }, ["0", "(not", "mine)"])
        | (Command::Check { .. }, ["no,", "not", "yours"]) => Some(Reply::Yes(false)),
        _ => None,
    };
    reply.unwrap_or_else(|| panic!("unknown reply {label:?} to {command}"))
}

// ---------------------------------------------------------------------------
// The test's own reading of the model's etcd, from its replies.

#[derive(Clone, Copy, Debug)]
struct ShadowLease {
    id: u64,
    worker: u8,
    ttl_ms: u64,
    expires_us: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ShadowKey {
    worker: u8,
    lease: u64,
    revision: u64,
}

/// etcd's semantics as the model claims them: a lease grant takes no
/// revision, a put and a key's deletion take one each, the lowest create
/// revision holds the lock, an expired lease goes at the next 500 ms tick.
#[derive(Clone, Debug, Default)]
struct Shadow {
    revision: u64,
    leases: Vec<ShadowLease>,
    /// In create-revision order.
    keys: Vec<ShadowKey>,
}

/// A lease (and its key) that the shadow's tick revoked.
#[derive(Clone, Copy, Debug)]
struct Revoked {
    lease: ShadowLease,
    /// Its key, and whether that key held the lock.
    key: Option<(ShadowKey, bool)>,
    tick_us: u64,
}

fn tick_after(expires_us: u64) -> u64 {
    expires_us.div_ceil(TICK_US) * TICK_US
}

impl Shadow {
    /// Revokes every lease whose tick has come by `t_us`.
    fn advance(&mut self, t_us: u64) -> Vec<Revoked> {
        let due: Vec<ShadowLease> = self.leases.iter().copied().filter(|lease| tick_after(lease.expires_us) <= t_us).collect();
        due.into_iter()
            .map(|lease| {
                let key = self.remove(lease.id);
                Revoked { lease, key, tick_us: tick_after(lease.expires_us) }
            })
            .collect()
    }

    fn remove(&mut self, lease: u64) -> Option<(ShadowKey, bool)> {
        self.leases.retain(|live| live.id != lease);
        let position = self.keys.iter().position(|key| key.lease == lease)?;
        self.revision += 1;
        Some((self.keys.remove(position), position == 0))
    }

    fn lease(&self, id: u64) -> Option<&ShadowLease> {
        self.leases.iter().find(|lease| lease.id == id)
    }

    /// Whether the lease has run out but its tick has not come yet: the real
    /// etcd's own tick may or may not have revoked it.
    fn running_out(&self, id: u64, t_us: u64) -> bool {
        self.lease(id).is_some_and(|lease| lease.expires_us <= t_us)
    }

    /// Whether the reply to `command` at `t_us` depends on such a lease.
    fn uncertain(&self, t_us: u64, command: &Command) -> bool {
        let first_running_out = self.keys.first().is_some_and(|key| self.running_out(key.lease, t_us));
        match *command {
            Command::Grant { .. } | Command::KeepAlive { .. } => false,
            Command::Put { lease } => first_running_out || self.running_out(lease, t_us),
            Command::Check { .. } => first_running_out,
            Command::Release { lease } => self.running_out(lease, t_us),
        }
    }

    /// The reply the model's etcd must give; a grant's id is the model's own.
    fn predict(&self, t_us: u64, command: &Command, model: &Reply) -> Reply {
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

    fn apply(&mut self, t_us: u64, from: u8, command: &Command, reply: &Reply) {
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

// ---------------------------------------------------------------------------
// The replay on the real etcd.

/// A real lease standing in for one of the model's.
#[derive(Clone, Debug)]
struct RealLease {
    id: i64,
    ttl: Duration,
    key: Option<String>,
    /// Around the latest grant or keep-alive that etcd accepted: the lease
    /// ends between `sent + ttl` and `replied + ttl`.
    sent: Instant,
    replied: Instant,
    /// Released by its worker: its key going is no expiry.
    released: bool,
    /// The last poll that still saw the key, and the first that did not.
    last_seen: Option<Instant>,
    gone: Option<Instant>,
}

impl RealLease {
    fn watched(&self, now: Instant) -> bool {
        self.key.is_some() && !self.released && self.gone.is_none() && now >= self.sent + self.ttl
    }
}

/// A key's create revision: the token its worker fences with.
#[derive(Clone, Copy, Debug)]
struct Token {
    worker: u8,
    model: u64,
    real: u64,
}

/// How late a lease's key went after the lease ran out.
#[derive(Clone, Copy, Debug)]
struct Expiry {
    worker: u8,
    model_late_ms: i64,
    /// At most this late: measured from the latest keep-alive's reply.
    real_late_ms: i64,
}

/// What one story's replay found.
struct Replayed {
    failures: Vec<String>,
    /// Each put's create revision, in order.
    tokens: Vec<Token>,
    expiries: Vec<Expiry>,
}

struct Replay<'a> {
    etcd: &'a Etcd,
    what: String,
    prefix: String,
    /// Real revision = model revision + offset.
    offset: i64,
    shadow: Shadow,
    real_leases: HashMap<u64, RealLease>,
    start: Instant,
    /// How much later than the model the story runs, after real ticks that
    /// came later than the model's.
    shift: Duration,
    next_poll: Instant,
    /// Each put's create revision, model and real, in order.
    tokens: Vec<Token>,
    real_grants: Vec<u8>,
    expiries: Vec<Expiry>,
    identical: u32,
    tolerated: Vec<String>,
    failures: Vec<String>,
    late_ms_max: i64,
}

impl Replay<'_> {
    fn at(&self, t_us: u64) -> Instant {
        self.start + self.shift + Duration::from_micros(t_us)
    }

    fn key_of(&self, id: i64) -> String {
        format!("{}/{id:x}", self.prefix)
    }

    fn real(&self, lease: u64) -> &RealLease {
        self.real_leases.get(&lease).unwrap_or_else(|| panic!("{}: model lease {lease:x} was never granted", self.what))
    }

    /// Polls, every `POLL_MS`, the keys whose leases have run out.
    fn poll(&mut self) {
        let now = Instant::now();
        if now < self.next_poll {
            return;
        }
        self.next_poll = now + Duration::from_millis(POLL_MS);
        let watched: Vec<u64> = self.real_leases.iter().filter(|(_, lease)| lease.watched(now)).map(|(id, _)| *id).collect();
        for id in watched {
            let key = self.real_leases[&id].key.clone().unwrap_or_default();
            let present = self.etcd.exists(&key);
            let seen = Instant::now();
            let lease = self.real_leases.get_mut(&id).unwrap();
            if present {
                lease.last_seen = Some(seen);
            } else {
                lease.gone = Some(seen);
            }
        }
    }

    /// Sleeps until `target`, polling on the way.
    fn wait_until(&mut self, target: Instant) {
        loop {
            self.poll();
            let now = Instant::now();
            if now >= target {
                return;
            }
            std::thread::sleep((target - now).min(self.next_poll.saturating_duration_since(now)).max(Duration::from_micros(200)));
        }
    }

    /// The model's tick revoked a lease: waits (bounded) for the real etcd
    /// to do the same, then checks when, and runs the rest of the story
    /// later if the real tick came later.
    fn revoked(&mut self, revoked: &Revoked) {
        let worker = revoked.lease.worker;
        let model_late_ms = ((revoked.tick_us - revoked.lease.expires_us) / 1000) as i64;
        let lease = self.real(revoked.lease.id).clone();
        if lease.key.is_none() || lease.released {
            return;
        }
        let deadline = lease.replied + lease.ttl + Duration::from_micros(TICK_US) + Duration::from_millis(MARGIN_MS);
        while self.real_leases[&revoked.lease.id].gone.is_none() && Instant::now() < deadline {
            self.next_poll = self.next_poll.min(Instant::now() + Duration::from_millis(POLL_MS));
            let next = self.next_poll;
            self.wait_until(next);
        }
        let lease = self.real(revoked.lease.id).clone();
        let who = letter(worker);
        let Some(gone) = lease.gone else {
            self.failures.push(format!(
                "{}: {who}'s key was still there {} ms after its lease ran out (model: revoked {model_late_ms} ms late, at {})",
                self.what,
                ms_between(lease.replied + lease.ttl, Instant::now()),
                fencing_sim::format_us(revoked.tick_us)
            ));
            return;
        };
        let real_late_ms = ms_between(lease.replied + lease.ttl, gone);
        let since_sent_ms = ms_between(lease.sent, gone);
        println!(
            "  {who}'s lease ({} ms) ran out: the model's tick revoked it {model_late_ms} ms late (at {}); \
             the real etcd had deleted its key {real_late_ms} ms late at most (seen gone {since_sent_ms} ms after the last grant/keep-alive was sent)",
            lease.ttl.as_millis(),
            fencing_sim::format_us(revoked.tick_us)
        );
        self.expiries.push(Expiry { worker, model_late_ms, real_late_ms });
        if since_sent_ms < ms(lease.ttl) {
            self.failures.push(format!(
                "{}: the real etcd deleted {who}'s key {since_sent_ms} ms into a {} ms lease",
                self.what,
                lease.ttl.as_millis()
            ));
        }
        // The model's tick is the moment the story goes on from: if the real
        // one came later, so does the rest of the story.
        let model_at = self.at(revoked.tick_us);
        if gone > model_at {
            self.shift += gone - model_at;
        }
    }

    fn execute(&mut self, from: u8, command: &Command, model: &Reply) -> Reply {
        match *command {
            Command::Grant { ttl_ms } => {
                assert_eq!(ttl_ms % 1000, 0, "{}: etcd's TTLs are whole seconds, the model asked {ttl_ms} ms", self.what);
                let sent = Instant::now();
                let (id, ttl_s) = self.etcd.grant(ttl_ms / 1000);
                let Reply::Lease { lease, .. } = *model else { unreachable!("a grant's reply is a lease") };
                let real = RealLease {
                    id,
                    ttl: Duration::from_secs(ttl_s),
                    key: None,
                    sent,
                    replied: Instant::now(),
                    released: false,
                    last_seen: None,
                    gone: None,
                };
                self.real_leases.insert(lease, real);
                Reply::Lease { lease, ttl_ms: ttl_s * 1000 }
            }
            Command::Put { lease } => {
                let id = self.real(lease).id;
                let key = self.key_of(id);
                match self.etcd.put(&key, id) {
                    Ok(revision) => {
                        self.real_leases.get_mut(&lease).unwrap().key = Some(key.clone());
                        let owner = self.etcd.first_under(&self.prefix).is_some_and(|(first, _, _)| first == b64(&key));
                        let model_revision = (revision as i64 - self.offset) as u64;
                        let expected = if let Reply::Key { revision, .. } = *model { revision } else { 0 };
                        self.tokens.push(Token { worker: from, model: expected, real: revision });
                        if owner {
                            self.real_grants.push(from);
                        }
                        Reply::Key { revision: model_revision, owner }
                    }
                    Err(refused) if refused.not_found() => Reply::Key { revision: 0, owner: false },
                    Err(refused) => panic!("{}: put: {} {}", self.what, refused.status, refused.message),
                }
            }
            Command::KeepAlive { lease } => {
                let id = self.real(lease).id;
                let sent = Instant::now();
                let ttl_s = self.etcd.keep_alive(id);
                if ttl_s > 0 {
                    let real = self.real_leases.get_mut(&lease).unwrap();
                    (real.sent, real.replied) = (sent, Instant::now());
                }
                Reply::Yes(ttl_s > 0)
            }
            Command::Check { lease } => {
                let id = self.real(lease).id;
                Reply::Yes(self.etcd.first_under(&self.prefix).is_some_and(|(_, _, first)| first == id))
            }
            Command::Release { lease } => {
                let (id, key) = (self.real(lease).id, self.real(lease).key.clone());
                self.real_leases.get_mut(&lease).unwrap().released = true;
                // etcd's Mutex.Unlock deletes the key; closing the session
                // revokes the lease, which then has no key left to delete.
                let deleted = key.is_some_and(|key| self.etcd.delete(&key));
                match self.etcd.revoke(id) {
                    Ok(()) => {}
                    Err(refused) if refused.not_found() => {}
                    Err(refused) => panic!("{}: revoke: {} {}", self.what, refused.status, refused.message),
                }
                Reply::Yes(deleted)
            }
        }
    }

    fn command(&mut self, step: &Step) {
        let Step::Command { index, t_us, from, command, model } = step else { unreachable!() };
        let (t_us, from) = (*t_us, *from);
        let predicted = self.shadow.predict(t_us, command, model);
        assert_eq!(
            predicted,
            *model,
            "{}: event {index}, {command} from {} at {}: the model's reply is not what its etcd semantics give",
            self.what,
            letter(from),
            fencing_sim::format_us(t_us)
        );
        let uncertain = self.shadow.uncertain(t_us, command);
        let real = self.execute(from, command, model);
        let late_ms = ms_between(self.at(t_us), Instant::now());
        self.late_ms_max = self.late_ms_max.max(late_ms);
        self.shadow.apply(t_us, from, command, model);
        let said = format!(
            "{} at {} (+{late_ms} ms): {} sent {command}: model {model:?}, real {real:?}",
            self.what,
            fencing_sim::format_us(t_us),
            letter(from)
        );
        if real == *model {
            self.identical += 1;
        } else if uncertain {
            println!("  TOLERATED (a lease had run out, its tick not come yet): {said}");
            self.tolerated.push(said);
        } else {
            self.failures.push(said);
        }
    }

    fn ready(&mut self, step: &Step) {
        let Step::Ready { index, t_us, to, revision } = *step else { unreachable!() };
        let first = self.shadow.keys.first().copied();
        assert_eq!(
            first.map(|key| (key.worker, key.revision)),
            Some((to, revision)),
            "{}: event {index}: the model tells {} its key {revision} is first, but its own keys say otherwise",
            self.what,
            letter(to)
        );
        let real = self.etcd.first_under(&self.prefix);
        let wanted = first.map(|key| self.real(key.lease)).map(|lease| (b64(&self.key_of(lease.id)), lease.id));
        let said = format!(
            "{} at {}: the model says {}'s key (revision {revision}, real {}) is now first; the real first key is {}",
            self.what,
            fencing_sim::format_us(t_us),
            letter(to),
            revision as i64 + self.offset,
            real.as_ref().map_or("none".to_string(), |(_, create, lease)| format!("lease {lease:x}'s, revision {create}"))
        );
        match (real, wanted) {
            (Some((key, create, _)), Some((wanted_key, _))) if key == wanted_key && create as i64 == revision as i64 + self.offset => {
                self.identical += 1;
                self.real_grants.push(to);
            }
            _ => self.failures.push(said),
        }
    }
}

/// Replays one consensus scenario on the real etcd; returns the failures
/// and the replay's measurements.
fn replay(etcd: &Etcd, what: &str, scenario: &Scenario, trace: &Trace) -> Replayed {
    let steps = steps(trace);
    let base = etcd.revision();
    let mut replay = Replay {
        etcd,
        what: what.to_string(),
        prefix: format!("fencing-lab/{what}/{:08x}", random_u32()),
        offset: base as i64 - (scenario.first_token as i64 - 1),
        shadow: Shadow { revision: scenario.first_token - 1, ..Shadow::default() },
        real_leases: HashMap::new(),
        start: Instant::now(),
        shift: Duration::ZERO,
        next_poll: Instant::now(),
        tokens: Vec::new(),
        real_grants: Vec::new(),
        expiries: Vec::new(),
        identical: 0,
        tolerated: Vec::new(),
        failures: Vec::new(),
        late_ms_max: 0,
    };
    for step in &steps {
        let target = replay.at(step.t_us());
        replay.wait_until(target);
        let revoked = replay.shadow.advance(step.t_us());
        for revoked in &revoked {
            replay.revoked(revoked);
        }
        match *step {
            Step::Command { .. } => replay.command(step),
            Step::Expired { index, holder, .. } => {
                assert!(
                    revoked.iter().any(|revoked| revoked.key.is_some_and(|(key, first)| key.worker == holder && first)),
                    "{what}: event {index}: the model revoked {}'s lease at a time its 500 ms tick rule does not give",
                    letter(holder)
                );
            }
            Step::Ready { .. } => replay.ready(step),
        }
    }
    let elapsed = replay.start.elapsed();
    // Every delete took exactly one revision, and nothing else took any.
    let real_end = etcd.revision();
    if real_end as i64 != replay.shadow.revision as i64 + replay.offset {
        replay.failures.push(format!(
            "{what}: the real etcd ended at revision {real_end}, the model at {} (= real {})",
            replay.shadow.revision,
            replay.shadow.revision as i64 + replay.offset
        ));
    }
    let model_grants: Vec<u8> = trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            Kind::Granted { holder: Actor::Worker(worker), .. } => Some(worker),
            _ => None,
        })
        .collect();
    let names = |grants: &[u8]| grants.iter().map(|worker| letter(*worker).to_string()).collect::<Vec<_>>().join(" ");
    let tokens =
        |pick: fn(&Token) -> u64| replay.tokens.iter().map(|token| format!("{}:{}", letter(token.worker), pick(token))).collect::<Vec<_>>();
    println!(
        "{what}: {} commands and handovers: {} identical, {} timing-tolerated; {} expiries; grants real [{}] model [{}]; \
         tokens model [{}] real [{}] (offset {}); {:.2} s run, {} ms later than the model at most, {} ms of it after late real ticks",
        steps.iter().filter(|step| !matches!(step, Step::Expired { .. })).count(),
        replay.identical,
        replay.tolerated.len(),
        replay.expiries.len(),
        names(&replay.real_grants),
        names(&model_grants),
        tokens(|token| token.model).join(" "),
        tokens(|token| token.real).join(" "),
        replay.offset,
        elapsed.as_secs_f64(),
        replay.late_ms_max,
        replay.shift.as_millis()
    );
    if replay.real_grants != model_grants {
        let said = format!(
            "{what}: the lock went to [{}] on the real etcd, to [{}] in the model",
            names(&replay.real_grants),
            names(&model_grants)
        );
        if replay.tolerated.is_empty() {
            replay.failures.push(said);
        } else {
            println!("  TOLERATED (follows a timing-tolerated reply): {said}");
        }
    }
    // Leave nothing behind: revoke what is left (its keys go with it).
    for lease in replay.real_leases.values() {
        let _ = etcd.revoke(lease.id);
    }
    Replayed { failures: replay.failures, tokens: replay.tokens, expiries: replay.expiries }
}

// ---------------------------------------------------------------------------
// The scenarios.

fn consensus_preset(id: &str) -> Scenario {
    let scenario = (presets::find(id).unwrap_or_else(|| panic!("no preset {id}")).build)();
    Scenario { lock_service: LockService::Consensus, ..scenario }
}

/// consensus-gc-pause at etcd's own speed: 2 s leases (etcd's minimum; no
/// time scaling is possible below it) and a 3 s pause instead of 10 s and
/// 15 s. A takes the lock and keeps its lease alive while it works (1 s),
/// then freezes before its write; B (at 1.8 s) queues behind A's key; A's
/// lease runs out and its key's deletion takes a revision; B holds; C (at
/// 3.6 s, after A's expiry, while B still works) creates a key whose
/// revision shows that gap: model tokens 33, 34, 36.
fn gc_pause_story() -> Scenario {
    let pause = Fault::Pause { worker: Actor::Worker(0), when: When::BeforeWrite(1), pause_ms: 3_000 };
    Scenario {
        ttl_ms: 2_000,
        workers: 3,
        start_gap_ms: 1_800,
        work_ms: 1_000,
        faults: vec![pause],
        ..consensus_preset("consensus-gc-pause")
    }
}

/// holder-crash on the consensus lock with 2 s leases: A crashes 300 ms into
/// its hold, before its first keep-alive; B's key waits until A's lease runs
/// out and the tick revokes it.
fn crash_story() -> Scenario {
    let crash = Fault::Crash { worker: Actor::Worker(0), at_ms: 300 };
    let consensus_latency = consensus_preset("consensus-gc-pause");
    Scenario {
        ttl_ms: 2_000,
        work_ms: 500,
        start_gap_ms: 1_000,
        latency_us_min: consensus_latency.latency_us_min,
        latency_us_max: consensus_latency.latency_us_max,
        faults: vec![crash],
        ..consensus_preset("holder-crash")
    }
}

fn stories() -> Vec<(&'static str, Scenario)> {
    vec![("consensus-gc-pause@2s", gc_pause_story()), ("holder-crash@2s", crash_story())]
}

/// The model's grant for a request of `ttl_ms`: the TTL its reply gives and
/// the `LeaseClamped` note, if any.
fn model_grant(ttl_ms: u64) -> (u64, Option<u64>) {
    let trace = run(&Scenario { ttl_ms, ..gc_pause_story() }).unwrap();
    let granted = steps(&trace)
        .iter()
        .find_map(|step| match step {
            Step::Command { model: Reply::Lease { ttl_ms, .. }, .. } => Some(*ttl_ms),
            _ => None,
        })
        .expect("a lease grant");
    let clamped = trace.events.iter().find_map(|event| match event.kind {
        Kind::LeaseClamped { ttl_ms, .. } => Some(ttl_ms),
        _ => None,
    });
    (granted, clamped)
}

// ---------------------------------------------------------------------------
// Checks 1 and 2: the lease minimum and late expiry, measured directly.

struct Probe {
    what: &'static str,
    id: i64,
    key: String,
    ttl_s: u64,
    sent: Instant,
    replied: Instant,
    last_seen: Instant,
    gone: Option<Instant>,
}

/// Grants a lease of `asked_s`, ties a key to it, and returns the probe.
fn probe(etcd: &Etcd, prefix: &str, what: &'static str, asked_s: u64) -> Probe {
    let sent = Instant::now();
    let (id, ttl_s) = etcd.grant(asked_s);
    let replied = Instant::now();
    let key = format!("{prefix}/{what}/{id:x}");
    etcd.put(&key, id).unwrap_or_else(|refused| panic!("put {key}: {}", refused.message));
    Probe { what, id, key, ttl_s, sent, replied, last_seen: Instant::now(), gone: None }
}

/// Polls every `POLL_MS` until every probe's key is gone, bounded by its TTL
/// plus a tick plus the margin plus a second.
fn watch(etcd: &Etcd, probes: &mut [Probe]) {
    let bound =
        probes.iter().map(|probe| probe.replied + Duration::from_secs(probe.ttl_s + 1) + Duration::from_micros(TICK_US)).max().unwrap();
    while probes.iter().any(|probe| probe.gone.is_none()) && Instant::now() < bound {
        for probe in probes.iter_mut().filter(|probe| probe.gone.is_none()) {
            let present = etcd.exists(&probe.key);
            let now = Instant::now();
            if present {
                probe.last_seen = now;
            } else {
                probe.gone = Some(now);
            }
        }
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
}

fn lease_minimum_and_late_expiry(etcd: &Etcd, failures: &mut Vec<String>) -> Vec<i64> {
    let prefix = format!("fencing-lab/probe/{:08x}", random_u32());
    // Check 1: what the model says of a lease under the minimum ...
    let (model_500, clamped_500) = model_grant(500);
    let (model_1000, clamped_1000) = model_grant(1_000);
    let (model_2000, clamped_2000) = model_grant(2_000);
    println!(
        "lease minimum, model: 500 ms asked → {model_500} ms granted (LeaseClamped {clamped_500:?}); \
         1000 → {model_1000} ({clamped_1000:?}); 2000 → {model_2000} ({clamped_2000:?})"
    );
    assert_eq!((model_500, clamped_500), (LEASE_MS_MIN, Some(LEASE_MS_MIN)));
    assert_eq!((model_1000, clamped_1000), (LEASE_MS_MIN, Some(LEASE_MS_MIN)));
    assert_eq!((model_2000, clamped_2000), (LEASE_MS_MIN, None));
    // ... and what the real one does: the 1 s lease's key is watched with
    // the 2 s lease's, so the TTL it reports is checked against its life.
    let mut probes = vec![probe(etcd, &prefix, "asked-1s", 1), probe(etcd, &prefix, "asked-2s", 2)];
    for probe in &probes {
        let granted = etcd.granted_ttl(probe.id);
        println!(
            "lease minimum, real: {} → the grant says TTL {} s, TimeToLive says grantedTTL {granted} s",
            probe.what.trim_start_matches("asked-"),
            probe.ttl_s
        );
        if probe.ttl_s * 1000 != LEASE_MS_MIN || granted * 1000 != LEASE_MS_MIN {
            failures.push(format!(
                "lease minimum: {} on the real etcd: TTL {} s, grantedTTL {granted} s; the model grants {LEASE_MS_MIN} ms",
                probe.what, probe.ttl_s
            ));
        }
    }
    // Check 2: nothing keeps these leases alive; when do their keys go?
    watch(etcd, &mut probes);
    let mut lateness = Vec::new();
    for probe in &probes {
        let ttl = Duration::from_secs(probe.ttl_s);
        let Some(gone) = probe.gone else {
            failures
                .push(format!("late expiry: {}'s key outlived its {} s lease by more than a second and a tick", probe.what, probe.ttl_s));
            continue;
        };
        let since_sent_ms = ms_between(probe.sent, gone);
        let since_reply_ms = ms_between(probe.replied, gone);
        let late_ms = since_reply_ms - ms(ttl);
        let last_seen_ms = ms_between(probe.sent, probe.last_seen);
        // The model's lateness for a lease granted right now: up to its next
        // 500 ms tick, i.e. between 0 and 499 ms.
        println!(
            "late expiry, real: {}: key still there {last_seen_ms} ms after the grant was sent, gone by {since_sent_ms} ms \
             ({since_reply_ms} ms after the reply): {late_ms} ms late at most (model: 0–{} ms, to its next {} ms tick)",
            probe.what,
            TICK_US / 1000 - 1,
            TICK_US / 1000
        );
        lateness.push(late_ms);
        if since_sent_ms < ms(ttl) {
            failures.push(format!("late expiry: {}'s key went {since_sent_ms} ms after a {} s grant", probe.what, probe.ttl_s));
        }
        let bound_ms = ms(ttl) + (TICK_US / 1000) as i64 + MARGIN_MS as i64;
        if since_reply_ms > bound_ms {
            failures.push(format!(
                "late expiry: {}'s key went {since_reply_ms} ms after a {} s grant: more than TTL + a {} ms tick + {MARGIN_MS} ms",
                probe.what,
                probe.ttl_s,
                TICK_US / 1000
            ));
        }
    }
    lateness
}

// ---------------------------------------------------------------------------
// The tests.

#[test]
fn a_real_etcd_keeps_the_consensus_models_promises() {
    let Ok(url) = std::env::var("FENCING_LAB_ETCD_URL") else {
        println!("etcd_differential: skipped (FENCING_LAB_ETCD_URL is not set; scripts/fidelity-etcd.sh sets it)");
        return;
    };
    let etcd = Etcd::from_url(&url);
    let start = Instant::now();
    println!("etcd_differential: etcd {} at {url}, polling every {POLL_MS} ms, margin {MARGIN_MS} ms", etcd.version());
    let mut failures = Vec::new();

    // 1 and 2.
    let mut lateness = lease_minimum_and_late_expiry(&etcd, &mut failures);

    // 3 and 4: the stories, one after the other (revisions are global).
    for (what, scenario) in stories() {
        let trace = run(&scenario).unwrap_or_else(|error| panic!("{what}: {error}"));
        assert!(!trace.summary.truncated, "{what} hit its event bound");
        let Replayed { failures: story_failures, tokens, expiries } = replay(&etcd, what, &scenario, &trace);
        failures.extend(story_failures);
        lateness.extend(expiries.iter().map(|expiry| expiry.real_late_ms));
        // Tokens: strictly increasing, with the same steps between them as
        // the model's (the real absolute revision depends on what ran before).
        let model_steps: Vec<u64> = tokens.windows(2).map(|pair| pair[1].model - pair[0].model).collect();
        let real_steps: Vec<i64> = tokens.windows(2).map(|pair| pair[1].real as i64 - pair[0].real as i64).collect();
        println!(
            "{what}: tokens model [{}] real [{}]: steps model {model_steps:?} real {real_steps:?}",
            tokens.iter().map(|token| token.model.to_string()).collect::<Vec<_>>().join(", "),
            tokens.iter().map(|token| token.real.to_string()).collect::<Vec<_>>().join(", ")
        );
        if real_steps.iter().any(|step| *step <= 0) {
            failures.push(format!("{what}: the real tokens are not strictly increasing: {real_steps:?}"));
        }
        if real_steps.iter().map(|step| *step as u64).collect::<Vec<_>>() != model_steps {
            failures.push(format!("{what}: the real tokens step by {real_steps:?}, the model's by {model_steps:?}"));
        }
        if what.starts_with("consensus-gc-pause") && !real_steps.iter().any(|step| *step > 1) {
            failures.push(format!("{what}: no gap in the real tokens after A's expiry: {real_steps:?}"));
        }
        if what.starts_with("holder-crash") {
            // The crashed holder's lock came free only with its lease's
            // expiry, at a tick: both sides revoked it within a tick.
            for Expiry { worker, model_late_ms: model_ms, real_late_ms: real_ms } in &expiries {
                println!(
                    "{what}: crashed {}'s lock was free {model_ms} ms after its lease ran out in the model, {real_ms} ms (at most) on the real etcd",
                    letter(*worker)
                );
            }
            if expiries.is_empty() {
                failures.push(format!("{what}: the crashed holder's lease never expired"));
            }
        }
    }
    lateness.sort_unstable();
    println!(
        "etcd_differential: real expiries {lateness:?} ms late at most (model rule: up to {} ms, the next tick); {:.1} s in all",
        TICK_US / 1000 - 1,
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "the real etcd disagreed with the model:\n{}", failures.join("\n"));
}

/// The offline half: the stories read as the etcd steps the task describes,
/// and no step of theirs falls where the real tick's phase could change it.
#[test]
fn the_stories_read_as_etcd_steps() {
    let trace = run(&gc_pause_story()).unwrap();
    let story = steps(&trace);
    let tokens: Vec<(u8, u64)> = story
        .iter()
        .filter_map(|step| match step {
            Step::Command { from, command: Command::Put { .. }, model: Reply::Key { revision, .. }, .. } => Some((*from, *revision)),
            _ => None,
        })
        .collect();
    assert_eq!(tokens, vec![(0, 33), (1, 34), (2, 36)], "A, B, then C after the gap A's expiry left");
    assert!(story.iter().any(|step| matches!(step, Step::Expired { holder: 0, .. })));
    let ready: Vec<(u8, u64)> = story
        .iter()
        .filter_map(|step| match *step {
            Step::Ready { to, revision, .. } => Some((to, revision)),
            _ => None,
        })
        .collect();
    assert_eq!(ready, vec![(1, 34), (2, 36)]);

    for (what, scenario) in stories() {
        let trace = run(&scenario).unwrap();
        assert!(!trace.summary.truncated, "{what}");
        let mut shadow = Shadow { revision: scenario.first_token - 1, ..Shadow::default() };
        let mut expired = 0;
        for step in steps(&trace) {
            let revoked = shadow.advance(step.t_us());
            for revoked in &revoked {
                // The model's ticks are on its 500 ms grid, less than a tick late.
                assert_eq!(revoked.tick_us % TICK_US, 0, "{what}");
                assert!(revoked.tick_us - revoked.lease.expires_us < TICK_US, "{what}");
            }
            match step {
                Step::Command { t_us, from, command, model, .. } => {
                    assert!(
                        !shadow.uncertain(t_us, &command),
                        "{what}: {command} at {} depends on the real tick's phase",
                        fencing_sim::format_us(t_us)
                    );
                    assert_eq!(shadow.predict(t_us, &command, &model), model, "{what}: {command} at {}", fencing_sim::format_us(t_us));
                    shadow.apply(t_us, from, &command, &model);
                }
                Step::Expired { holder, t_us, .. } => {
                    expired += 1;
                    assert!(
                        revoked.iter().any(|revoked| revoked.key.is_some_and(|(key, first)| key.worker == holder && first)),
                        "{what} at {t_us}"
                    );
                }
                Step::Ready { to, revision, .. } => {
                    assert_eq!(shadow.keys.first().map(|key| (key.worker, key.revision)), Some((to, revision)))
                }
            }
        }
        assert_eq!(expired, 1, "{what}: A's lease, once");
    }
}

#[test]
fn base64_and_chunked_replies_are_read_right() {
    assert_eq!(b64(""), "");
    assert_eq!(b64("f"), "Zg==");
    assert_eq!(b64("fo"), "Zm8=");
    assert_eq!(b64("foo"), "Zm9v");
    assert_eq!(b64("lk/a"), "bGsvYQ==");
    assert_eq!(dechunk("5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n"), "hello, world");
    assert_eq!(int(&json!({ "TTL": "2" }), "TTL"), 2);
    assert_eq!(int(&json!({}), "TTL"), 0);
}
