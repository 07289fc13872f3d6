//! The `redis-failover` preset against a real primary and replica
//! (`scripts/fidelity-failover.sh` starts them and runs this with
//! `--ignored`): the counter stands at 32 on both; the replica is cut off;
//! A's `SET NX` and `INCR` (→ 33) reach the primary only; the primary is
//! killed; the replica is promoted; B's `SET NX` succeeds (the lock key was
//! lost) and B's `INCR` returns 33 again: the same token issued twice, while
//! A's lease, by A's own clock, still runs. The model's preset must tell the
//! same story.
//!
//! How the replica misses A's writes, deterministically: the primary is
//! given a password (`CONFIG SET requirepass`) and the replica's link is
//! killed (`CLIENT KILL TYPE replica`). The replica cannot authenticate, so
//! every reconnection fails (PSYNC: NOAUTH) and nothing A writes reaches it;
//! `WAIT 1 100` returning 0 proves it. Stopping the replica (SIGSTOP) or
//! blocking it (`DEBUG SLEEP`) would not do: the primary's bytes wait in the
//! kernel's socket buffers and the replica applies them once it runs again,
//! even after the primary is dead. `CLIENT PAUSE` on the primary would hold
//! A's commands instead of the replication. In the model the loss comes
//! from the primary dying within its replication lag; here the lag is made
//! unbounded; what the replica holds at the promotion is the same.

#[allow(dead_code)] // shared by the real-server tests; each uses part of it
#[path = "support/mod.rs"]
mod support;

use fencing_sim::history::Recorder;
use fencing_sim::{presets, run, Actor, Kind, Trace};
use std::time::{Duration, Instant};

/// Only a bound on a hung server: nothing here claims how fast a step is.
/// Each step takes milliseconds even with both cores busy; 10 s fails a
/// hung server quickly and no loaded machine (a command's read timeout
/// is this too, so it must exceed `WAIT`'s below).
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long the in-sync check waits for the replica's acknowledgement: a
/// bound, not a claim (the replica usually answers in a millisecond).
const WAIT_MS: u64 = 5_000;
const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);

/// What the real run did, in order, for the report.
struct Timeline {
    start: Instant,
    lines: Vec<(f64, &'static str, String)>,
}

impl Timeline {
    fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }

    fn note(&mut self, who: &'static str, text: String) -> f64 {
        let t_ms = self.now_ms();
        self.lines.push((t_ms, who, text));
        t_ms
    }
}

fn connect(url: &str) -> redis::Connection {
    let client = redis::Client::open(url).unwrap_or_else(|error| panic!("bad URL {url:?}: {error}"));
    let con = client.get_connection_with_timeout(TIMEOUT).unwrap_or_else(|error| panic!("connect to {url}: {error}"));
    con.set_read_timeout(Some(TIMEOUT)).expect("read timeout");
    con.set_write_timeout(Some(TIMEOUT)).expect("write timeout");
    con
}

/// One `field:value` line of `INFO section`.
fn info(con: &mut redis::Connection, section: &str, field: &str) -> Option<String> {
    let text: String = redis::cmd("INFO").arg(section).query(con).expect("INFO");
    text.lines().find_map(|line| line.strip_prefix(&format!("{field}:")).map(|value| value.trim().to_string()))
}

/// Polls (bounded) until `field` reads `want`.
fn wait_for_info(con: &mut redis::Connection, section: &str, field: &str, want: &str) {
    let deadline = Instant::now() + TIMEOUT;
    while info(con, section, field).as_deref() != Some(want) {
        assert!(Instant::now() < deadline, "INFO {section} {field} never became {want}: {:?}", info(con, section, field));
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn env(name: &str) -> String {
    support::required_env(name, "scripts/fidelity-failover.sh")
}

/// A value no other run uses, as hex.
fn random_hex() -> String {
    format!("{:016x}", support::random_u64())
}

/// The facts both sides must share.
#[derive(Debug, PartialEq, Eq)]
struct Facts {
    /// Each worker's token, in the order drawn.
    tokens: Vec<(char, u64)>,
    /// The lock key did not survive the promotion.
    lock_lost: bool,
    /// B was granted the lock while A's lease, by A's own clock, still ran.
    b_granted_inside_a_lease: bool,
}

fn model_facts(trace: &Trace) -> Facts {
    let letter = |actor: Actor| actor.to_string().chars().next().unwrap_or('?');
    let tokens = trace
        .events
        .iter()
        .filter(|event| matches!(event.kind, Kind::Acquired { .. }))
        .map(|event| (letter(event.actor), event.token.expect("a Redis grant has a token")))
        .collect();
    let grant = |worker: Actor| {
        trace.events.iter().find_map(|event| match event.kind {
            Kind::Granted { holder, expires_at_us } if holder == worker => Some((event.t_us, expires_at_us)),
            _ => None,
        })
    };
    let (a_grant, b_grant) = (grant(A).expect("A is granted"), grant(B).expect("B is granted"));
    Facts {
        tokens,
        lock_lost: trace.events.iter().any(|event| event.kind == Kind::LeaseLost { holder: A }),
        b_granted_inside_a_lease: b_grant.0 < a_grant.1,
    }
}

/// The model's side, as lines for the report: the lock service's and the
/// workers' view of the lock, up to B's grant.
fn model_timeline(trace: &Trace) -> Vec<String> {
    support::model_lines(trace, |kind| {
        matches!(
            kind,
            Kind::Granted { .. }
                | Kind::Acquired { .. }
                | Kind::NodeDown { .. }
                | Kind::NodeUp { .. }
                | Kind::LeaseLost { .. }
                | Kind::TokenIssued { .. }
        )
    })
}

fn failover_preset() -> fencing_sim::Scenario {
    presets::build("redis-failover").expect("the redis-failover preset")
}

#[test]
#[ignore = "needs a real primary and replica: scripts/fidelity-failover.sh starts them and runs this with --ignored"]
fn a_real_failover_hands_out_the_same_token_twice() {
    let (primary_url, replica_url) = (env("FENCING_LAB_REDIS_PRIMARY_URL"), env("FENCING_LAB_REDIS_REPLICA_URL"));
    let primary_pid: i32 = env("FENCING_LAB_REDIS_PRIMARY_PID").parse().expect("FENCING_LAB_REDIS_PRIMARY_PID is a pid");
    let scenario = failover_preset();
    let model = run(&scenario).expect("the preset runs");
    let prefix = format!("fencing-lab:failover:{}:", random_hex());
    let (lock, fence) = (format!("{prefix}lock"), format!("{prefix}fence"));
    let mut real = Timeline { start: Instant::now(), lines: Vec::new() };

    // 1. The counter at first_token − 1 on both, the replica in sync.
    let mut primary = connect(&primary_url);
    let mut replica = connect(&replica_url);
    let version = info(&mut primary, "server", "redis_version").unwrap_or_else(|| "?".to_string());
    redis::cmd("SET").arg(&fence).arg(scenario.first_token - 1).exec(&mut primary).expect("SET fence");
    let acked: i64 = redis::cmd("WAIT").arg(1).arg(WAIT_MS).query(&mut primary).expect("WAIT");
    let on_replica: Option<u64> = redis::cmd("GET").arg(&fence).query(&mut replica).expect("GET fence");
    assert_eq!((acked, on_replica), (1, Some(scenario.first_token - 1)), "the replica is not in sync");
    real.note(
        "lab",
        format!("counter at {} on the primary and on the replica (WAIT 1: {acked} replica in sync)", scenario.first_token - 1),
    );

    // 2. The replica cut off (see the module's comment for why this way).
    let password = random_hex();
    redis::cmd("CONFIG").arg("SET").arg("requirepass").arg(&password).exec(&mut primary).expect("CONFIG SET requirepass");
    let killed: i64 = redis::cmd("CLIENT").arg("KILL").arg("TYPE").arg("replica").query(&mut primary).expect("CLIENT KILL");
    assert_eq!(killed, 1, "one replica link to cut");
    wait_for_info(&mut replica, "replication", "master_link_status", "down");
    real.note("lab", "the replica's link is cut and cannot come back (the primary now wants a password)".to_string());

    // 3. A takes the lock and its token on the primary alone.
    let with_password = primary_url.replacen("redis://", &format!("redis://:{password}@"), 1);
    let mut a = connect(&with_password);
    let a_value = format!("A-{}", random_hex());
    let ok: Option<String> =
        redis::cmd("SET").arg(&lock).arg(&a_value).arg("NX").arg("PX").arg(scenario.ttl_ms).query(&mut a).expect("SET NX");
    assert!(ok.is_some(), "A's SET NX on a fresh primary");
    let a_granted_ms = real
        .note("A", format!("SET lock NX PX {} on the primary: OK (A's lease runs {} ms by A's clock)", scenario.ttl_ms, scenario.ttl_ms));
    let a_token: u64 = redis::cmd("INCR").arg(&fence).query(&mut a).expect("INCR");
    real.note("A", format!("INCR fence on the primary: {a_token}"));
    // No timing in this proof: the cut-off replica cannot authenticate, so
    // no wait however long would see it acknowledge; 100 ms keeps it short.
    let acked: i64 = redis::cmd("WAIT").arg(1).arg(100).query(&mut a).expect("WAIT");
    assert_eq!(acked, 0, "a replica acknowledged A's writes: it was not cut off");
    real.note("lab", "WAIT 1 100 on the primary: 0 replicas have A's SET and INCR".to_string());

    // 4. The primary dies with them.
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(primary_pid), nix::sys::signal::Signal::SIGKILL).expect("SIGKILL the primary");
    let deadline = Instant::now() + TIMEOUT;
    while redis::cmd("PING").query::<String>(&mut a).is_ok() {
        assert!(Instant::now() < deadline, "the primary still answers after SIGKILL");
        std::thread::sleep(Duration::from_millis(5));
    }
    real.note("lab", format!("primary killed (SIGKILL, pid {primary_pid})"));

    // 5. The replica promoted.
    redis::cmd("REPLICAOF").arg("NO").arg("ONE").exec(&mut replica).expect("REPLICAOF NO ONE");
    wait_for_info(&mut replica, "replication", "role", "master");
    real.note("lab", "replica promoted (REPLICAOF NO ONE): role master".to_string());

    // 6. B asks the new primary.
    let mut b = connect(&replica_url);
    let promoted_ms = real.now_ms();
    let held: Option<String> = redis::cmd("GET").arg(&lock).query(&mut b).expect("GET lock");
    real.note("B", format!("GET lock on the new primary: {}", held.as_deref().unwrap_or("nil (the lock key was lost)")));
    let b_value = format!("B-{}", random_hex());
    let ok: Option<String> =
        redis::cmd("SET").arg(&lock).arg(&b_value).arg("NX").arg("PX").arg(scenario.ttl_ms).query(&mut b).expect("SET NX");
    let b_granted_ms =
        real.note("B", format!("SET lock NX PX {} on the new primary: {}", scenario.ttl_ms, if ok.is_some() { "OK" } else { "nil" }));
    let b_token: u64 = redis::cmd("INCR").arg(&fence).query(&mut b).expect("INCR");
    real.note(
        "B",
        format!(
            "INCR fence on the new primary: {b_token} (A's lease has {:.0} ms left by A's clock)",
            scenario.ttl_ms as f64 - (b_granted_ms - a_granted_ms)
        ),
    );
    redis::cmd("DEL").arg(&lock).arg(&fence).exec(&mut b).expect("DEL the run's keys");

    let real_facts = Facts {
        tokens: vec![('A', a_token), ('B', b_token)],
        lock_lost: held.is_none() && ok.is_some(),
        // Real time between A's grant and B's, against A's 10 s lease: the
        // steps between take milliseconds, so only a machine stalled for
        // seconds could make this false, and then the story really differs.
        b_granted_inside_a_lease: ok.is_some() && b_granted_ms - a_granted_ms < scenario.ttl_ms as f64,
    };
    let model_facts = model_facts(&model);

    // The run as a history (recordings/redis-failover.jsonl): A's grant
    // and token on the primary, its lease lost with the key at the
    // promotion (the new primary has no lock key: the GET above), B's grant
    // and token on the new primary. No store: this check writes nothing.
    let mut recorder = Recorder::new(
        support::provenance(
            format!("redis-server {version} (a primary and its replica), sim/tests/redis_failover.rs"),
            format!(
                "scripts/fidelity-failover.sh: the replica cut off, A's SET NX PX {} and INCR on the primary alone, the primary \
                 SIGKILLed, the replica promoted (REPLICAOF NO ONE), B's SET NX and INCR there; no store (fencing off: nothing written)",
                scenario.ttl_ms
            ),
        ),
        false,
    );
    // The model's run this one is held to: the preset as it is.
    assert!(recorder.held_to(&scenario), "the redis-failover preset's link reads back as the preset");
    let ttl_us = scenario.ttl_ms * 1000;
    recorder.grant(A, Some(a_token), support::us(a_granted_ms), support::us(a_granted_ms) + ttl_us);
    if held.is_none() {
        recorder.expiry(A, support::us(promoted_ms));
    }
    if ok.is_some() {
        recorder.grant(B, Some(b_token), support::us(b_granted_ms), support::us(b_granted_ms) + ttl_us);
    }
    let recording = recorder.finish().expect("a short run");
    println!("real primary + replica (redis-server), times from the start of the check:");
    for (t_ms, who, text) in &real.lines {
        println!("{:>12}  {who:<6} {text}", fencing_sim::format_us((t_ms * 1000.0).round() as u64));
    }
    println!("\nmodel, preset redis-failover (seed {}), the lock service's side:", scenario.seed);
    for line in model_timeline(&model) {
        println!("{line}");
    }
    println!("\n{:<42} {:<22} model", "", "real");
    let tokens = |facts: &Facts| facts.tokens.iter().map(|(who, token)| format!("{who}:{token}")).collect::<Vec<_>>().join(" ");
    println!("{:<42} {:<22} {}", "tokens drawn", tokens(&real_facts), tokens(&model_facts));
    println!("{:<42} {:<22} {}", "lock key lost in the failover", real_facts.lock_lost, model_facts.lock_lost);
    println!(
        "{:<42} {:<22} {}",
        "B granted while A's lease still ran", real_facts.b_granted_inside_a_lease, model_facts.b_granted_inside_a_lease
    );
    assert_eq!(real_facts, model_facts, "the real failover and the model's differ");
    assert_eq!(real_facts.tokens, vec![('A', scenario.first_token), ('B', scenario.first_token)], "the same token twice");
    println!("agree: the same token ({}) issued twice, as the model says", scenario.first_token);
    support::record_or_compare("redis-failover.jsonl", &recording);
}

/// The offline half: the model's failover has the facts the real check
/// compares, so a change in the model that loses them fails here first.
#[test]
fn the_models_failover_hands_out_one_token_twice_inside_a_live_lease() {
    let scenario = failover_preset();
    let facts = model_facts(&run(&scenario).unwrap());
    assert_eq!(
        facts,
        Facts { tokens: vec![('A', scenario.first_token), ('B', scenario.first_token)], lock_lost: true, b_granted_inside_a_lease: true }
    );
}
