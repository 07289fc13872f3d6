//! etcd's v3 JSON gateway (`POST /v3/lease/grant`, `/v3/kv/put`, ...) through
//! `ureq`: keys are base64, 64-bit numbers are strings, zeros are left out.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde_json::{json, Value};
use std::time::Duration;

/// Bound on connecting to and hearing back from the server.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// The most of a reply that is read: the gateway's replies here are small.
const REPLY_BYTES_MAX: u64 = 1024 * 1024;

/// An error status from the gateway (or an error in a streamed reply).
#[derive(Debug)]
pub struct Refused {
    pub status: u16,
    pub message: String,
}

impl Refused {
    /// gRPC NotFound: "etcdserver: requested lease not found".
    pub fn not_found(&self) -> bool {
        self.status == 404 || self.message.contains("not found")
    }
}

pub struct Etcd {
    agent: ureq::Agent,
    base: String,
}

impl Etcd {
    pub fn from_url(url: &str) -> Etcd {
        Etcd::with_timeout(url, REQUEST_TIMEOUT)
    }

    /// A client whose every request gives up after `timeout` (a cluster
    /// member may be dead or without a leader for a while).
    pub fn with_timeout(url: &str, timeout: Duration) -> Etcd {
        assert!(url.starts_with("http://"), "{url:?}: http:// only (a private etcd on loopback)");
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            // A proxy from the environment has no business on loopback;
            // a gRPC error comes back as a status with a JSON body to read.
            .proxy(None)
            .http_status_as_error(false)
            .no_delay(true)
            .build();
        Etcd { agent: config.into(), base: url.trim_end_matches('/').to_string() }
    }

    /// The reply's status and text, or why there was none.
    fn post(&self, path: &str, body: &Value) -> Result<(u16, String), ureq::Error> {
        let mut reply = self.agent.post(format!("{}{path}", self.base)).content_type("application/json").send(body.to_string())?;
        let status = reply.status().as_u16();
        Ok((status, reply.body_mut().with_config().limit(REPLY_BYTES_MAX).read_to_string()?))
    }

    /// One unary call (or the first message of a streamed one: a keep-alive
    /// stream answers with one JSON object per line). No answer at all (a
    /// dead member, a timeout) is a refusal with status 0.
    pub fn call(&self, path: &str, body: Value) -> Result<Value, Refused> {
        let (status, text) = self.post(path, &body).map_err(|error| Refused { status: 0, message: format!("no answer: {error}") })?;
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

    pub fn must(&self, path: &str, body: Value) -> Value {
        self.call(path, body).unwrap_or_else(|refused| panic!("{path}: {} {}", refused.status, refused.message))
    }

    pub fn version(&self) -> String {
        let text = self
            .agent
            .get(format!("{}/version", self.base))
            .call()
            .and_then(|mut reply| reply.body_mut().with_config().limit(REPLY_BYTES_MAX).read_to_string())
            .unwrap_or_else(|error| panic!("/version: {error}"));
        serde_json::from_str::<Value>(&text).ok().and_then(|v| v["etcdserver"].as_str().map(str::to_string)).unwrap_or(text)
    }

    /// The store's current revision.
    pub fn revision(&self) -> u64 {
        int(&self.must("/v3/kv/range", json!({ "key": b64("fencing-lab/none") }))["header"], "revision")
    }

    /// Grants a lease of `ttl_s` seconds: (its id, the TTL etcd says it gave).
    pub fn grant(&self, ttl_s: u64) -> (i64, u64) {
        let reply = self.must("/v3/lease/grant", json!({ "TTL": ttl_s }));
        (int(&reply, "ID") as i64, int(&reply, "TTL"))
    }

    /// Puts `key` tied to `lease`: its create revision (the key is new).
    pub fn put(&self, key: &str, lease: i64) -> Result<u64, Refused> {
        self.call("/v3/kv/put", json!({ "key": b64(key), "value": "", "lease": lease })).map(|reply| int(&reply["header"], "revision"))
    }

    /// The key under `prefix` with the lowest create revision: (key, create
    /// revision, lease) — the lock's holder in etcd's lock recipe.
    pub fn first_under(&self, prefix: &str) -> Option<(String, u64, i64)> {
        let reply = self.must(
            "/v3/kv/range",
            json!({ "key": b64(&format!("{prefix}/")), "range_end": b64(&format!("{prefix}0")),
                    "sort_order": "ASCEND", "sort_target": "CREATE", "limit": 1 }),
        );
        let kv = reply.get("kvs")?.get(0)?;
        Some((kv["key"].as_str().unwrap_or_default().to_string(), int(kv, "create_revision"), int(kv, "lease") as i64))
    }

    pub fn exists(&self, key: &str) -> bool {
        int(&self.must("/v3/kv/range", json!({ "key": b64(key), "count_only": true })), "count") > 0
    }

    /// One keep-alive: the TTL etcd now gives the lease (0: it is gone).
    pub fn keep_alive(&self, lease: i64) -> Result<u64, Refused> {
        self.call("/v3/lease/keepalive", json!({ "ID": lease })).map(|reply| int(&reply, "TTL"))
    }

    /// `maintenance/status`: this member's id, and the leader's as it knows
    /// it (0: none).
    pub fn status(&self) -> Result<(u64, u64), Refused> {
        self.call("/v3/maintenance/status", json!({})).map(|reply| (int(&reply["header"], "member_id"), int(&reply, "leader")))
    }

    /// Deletes one key: whether it was there.
    pub fn delete(&self, key: &str) -> bool {
        int(&self.must("/v3/kv/deleterange", json!({ "key": b64(key) })), "deleted") > 0
    }

    pub fn revoke(&self, lease: i64) -> Result<(), Refused> {
        self.call("/v3/lease/revoke", json!({ "ID": lease })).map(|_| ())
    }

    pub fn granted_ttl(&self, lease: i64) -> u64 {
        int(&self.must("/v3/lease/timetolive", json!({ "ID": lease })), "grantedTTL")
    }

    /// The seconds the lease has left (0 or less: gone).
    pub fn ttl_left(&self, lease: i64) -> Result<i64, Refused> {
        self.call("/v3/lease/timetolive", json!({ "ID": lease })).map(|reply| int(&reply, "TTL") as i64)
    }
}

/// The gateway sends 64-bit numbers as strings and leaves zeros out.
pub fn int(value: &Value, field: &str) -> u64 {
    match &value[field] {
        // Member ids use all 64 bits; a TTL of -1 means "gone".
        Value::String(text) => text
            .parse::<u64>()
            .or_else(|_| text.parse::<i64>().map(|signed| signed as u64))
            .unwrap_or_else(|_| panic!("{field}: {text:?} is not a number")),
        Value::Number(number) => {
            number.as_u64().or(number.as_i64().map(|signed| signed as u64)).unwrap_or_else(|| panic!("{field}: {number}"))
        }
        Value::Null => 0,
        other => panic!("{field}: {other} is not a number"),
    }
}

pub fn b64(text: &str) -> String {
    BASE64.encode(text)
}

#[test]
fn keys_and_numbers_are_read_as_the_gateway_writes_them() {
    assert_eq!(b64("lk/a"), "bGsvYQ==");
    assert_eq!(int(&json!({ "TTL": "2" }), "TTL"), 2);
    assert_eq!(int(&json!({ "TTL": 2 }), "TTL"), 2);
    assert_eq!(int(&json!({}), "TTL"), 0);
    assert_eq!(int(&json!({ "member_id": "17237436991929493444" }), "member_id"), 17237436991929493444);
    assert_eq!(int(&json!({ "TTL": "-1" }), "TTL") as i64, -1);
}
