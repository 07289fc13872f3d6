//! Checks 1 and 2: the lease minimum and late expiry, measured directly.

use super::client::Etcd;
use super::{expiry_bound, model_grant, ms, ms_between, note_lateness, random_u32, LEASE_MS_MIN, POLL_MS, TICK_US};
use std::time::{Duration, Instant};

pub struct Probe {
    pub what: &'static str,
    pub id: i64,
    pub key: String,
    pub ttl_s: u64,
    pub sent: Instant,
    pub replied: Instant,
    pub last_seen: Instant,
    pub gone: Option<Instant>,
}

/// Grants a lease of `asked_s`, ties a key to it, and returns the probe.
pub fn probe(etcd: &Etcd, prefix: &str, what: &'static str, asked_s: u64) -> Probe {
    let sent = Instant::now();
    let (id, ttl_s) = etcd.grant(asked_s);
    let replied = Instant::now();
    let key = format!("{prefix}/{what}/{id:x}");
    etcd.put(&key, id).unwrap_or_else(|refused| panic!("put {key}: {}", refused.message));
    Probe { what, id, key, ttl_s, sent, replied, last_seen: Instant::now(), gone: None }
}

/// Polls every `POLL_MS` until every probe's key is gone, bounded by the
/// latest a real expiry may come (`expiry_bound`).
pub fn watch(etcd: &Etcd, probes: &mut [Probe]) {
    let bound = probes.iter().map(|probe| probe.replied + expiry_bound(Duration::from_secs(probe.ttl_s))).max().unwrap();
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

pub fn lease_minimum_and_late_expiry(etcd: &Etcd, failures: &mut Vec<String>) -> Vec<i64> {
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
            failures.push(format!(
                "late expiry: {}'s key outlived its {} s lease by more than {} ms",
                probe.what,
                probe.ttl_s,
                (expiry_bound(ttl) - ttl).as_millis()
            ));
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
        note_lateness(probe.what, late_ms);
        // Never early: counted from the moment the grant was sent, the
        // earliest the server can have started the lease.
        if since_sent_ms < ms(ttl) {
            failures.push(format!("late expiry: {}'s key went {since_sent_ms} ms after a {} s grant", probe.what, probe.ttl_s));
        }
        if since_reply_ms > ms(expiry_bound(ttl)) {
            failures.push(format!(
                "late expiry: {}'s key went {since_reply_ms} ms after a {} s grant: later than etcd's own bound ({} ms)",
                probe.what,
                probe.ttl_s,
                ms(expiry_bound(ttl))
            ));
        }
    }
    lateness
}
