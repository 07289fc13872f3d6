//! Redisson's fenced lock (`RFencedLock`) on one Redis: the lock a Java
//! engineer actually takes. `lockAndGetToken()` runs one Lua script that
//! takes the lock (a hash holding the owner, with a `PEXPIRE`) and counts
//! the token with `INCR` on the lock's token key, so no pause can fall
//! between the grant and the number. With no lease time given, Redisson's
//! watchdog keeps the lock alive: every `lockWatchdogTimeout / 3` (10 s of
//! the default 30 s) a script renews it if the owner still holds it.
//!
//! The watchdog is a timer thread in the holder's own JVM, so a
//! stop-the-world pause freezes it with the holder: a pause longer than what
//! is left of the lease lets the lock expire, and the holder wakes to write
//! anyway. Its first renewal after the pause is refused, and that only stops
//! the watchdog: in `renewExpiration` a `false` answer calls
//! `cancelExpirationRenewal` and nothing more, so the application thread is
//! never told and goes on with its work. A client that calls
//! `isHeldByCurrentThread()` before writing (the scenario's "check before
//! each write") asks Redis in a round trip of its own, and a pause between
//! that answer and the write still lands. The token is what makes that write harmless, if the store checks
//! it. Redisson is not in Debian, so this is checked against its documented
//! behaviour (the watchdog timeout, the renewal period, one script for the
//! token), not a running client; the Redis it talks to is the single-node
//! model the Redis reality check covers.

use super::TokenSource;
use super::{Family, Options, Renewal, Spec, PLAIN_WORDS};
use crate::msg::{short_value, Msg};

/// Redisson's `lockWatchdogTimeout` default: the lease the watchdog keeps.
pub const WATCHDOG_TIMEOUT_MS: u64 = 30_000;

pub const SPEC: Spec = Spec {
    id: "redisson",
    label: "Redisson fenced lock (watchdog, one Redis)",
    lane: "redis (Redisson)",
    nodes: 1,
    family: Family::SingleRedis,
    tokens: Ok(()),
    session: None,
    options: Options {
        redis: true,
        renewal: Renewal::Watchdog,
        // `unlock()` checks the owner in its script; there is no plain DEL.
        naive_del: false,
        clock_jumps: true,
        token_source: Some(TokenSource::AtomicScript),
    },
    words: PLAIN_WORDS,
    wire_label: label,
};

/// The messages as Redisson's scripts do them.
fn label(msg: &Msg) -> Option<String> {
    let text = match *msg {
        Msg::AcquireScript { value, ttl_ms } => {
            format!("lockAndGetToken: HSET lock {} + PEXPIRE {ttl_ms} + INCR token", short_value(value))
        }
        Msg::AcquireScriptReply { token: Some(token) } => format!("locked, token {token}"),
        Msg::Renew { ttl_ms, .. } => format!("watchdog: PEXPIRE {ttl_ms} if mine"),
        Msg::ReleaseCad { .. } => "unlock (if mine)".to_string(),
        // `isHeldByCurrentThread()`: `HEXISTS` on the lock hash for this
        // client's id and thread, a round trip like any other.
        Msg::Check { value } => format!("isHeldByCurrentThread: HEXISTS lock {}", short_value(value)),
        _ => return None,
    };
    Some(text)
}
