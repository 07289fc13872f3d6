//! Differential test against a real Redis: every command the model's Redis
//! lock nodes receive is replayed on a real `redis-server`, at the model's
//! time scaled down 100× (10 s → 100 ms), and every reply must match the
//! model's. Then the order in which workers got the lock must match too.
//!
//! The test is `#[ignore]`d, so a plain `cargo test` stays offline and says
//! so; `scripts/fidelity.sh` starts a private server, sets
//! `FENCING_LAB_REDIS_URL` and runs it with `--ignored`. Run without that
//! variable, it fails: a missing server is never a pass.
//!
//! The trace carries each message typed (`Msg`), so every command is
//! replayed from the request the model's node received, with a fresh random
//! value standing in for each of the model's lock values, and compared with
//! the reply that names the same request id. Each lock node gets its own
//! keys (`…:lock:L3`, `…:fence:L1`), so Redlock's five masters share one
//! server.
//!
//! Timing: the real server expires keys by its own clock, at millisecond
//! resolution, and this process wakes up a little late. A reply that the model
//! gave within ±2 ms (scaled; widened by how late the process actually was) of
//! an expiry may go either way: such a difference is counted, printed, and
//! the real key is put back into the model's state so later replies stay
//! comparable. Every other difference fails the test.
//!
//! Files under `redis_differential/`: `steps.rs` (the trace read as
//! commands), `shadow.rs` (Redis semantics, re-derived from the replies),
//! `real.rs` (the replay on the real server).

#[path = "redis_differential/real.rs"]
mod real;
#[path = "redis_differential/shadow.rs"]
mod shadow;
#[path = "redis_differential/steps.rs"]
mod steps;
#[allow(dead_code)] // shared by the real-server tests; each uses part of it
#[path = "support/mod.rs"]
mod support;

mod pinned;

use fencing_sim::msg::Msg;
use fencing_sim::scenario::TokenSource;
use fencing_sim::{presets, run, Actor, Fault, Kind, LockService, Scenario, Trace};
use real::{failover_plan, wait_until, Failover, Replay, Scripts};
use std::time::{Duration, Instant};
use steps::{steps, Step};

/// The real server runs this many times faster than the model: 10 s → 100 ms.
const SCALE: u64 = 100;
/// Scaled distance from an expiry within which either reply is accepted,
/// on top of how late this process measurably was (`Late`: before it sent
/// the command and after the reply, the window in which the server ran it;
/// so a busy machine widens the window by exactly what it cost). The 2 ms
/// are Redis's own resolution: `PX` stores the expiry in whole ms of the
/// server's clock and each later command compares it with a whole-ms
/// reading of that clock, each rounding by up to 1 ms.
const TOLERANCE_US: u64 = 2_000;
/// Sleep until this close to a command's time, then spin: `sleep` overshoots.
const SPIN_US: u64 = 300;

/// Replays one scenario's lock commands; returns the failures.
fn replay(con: &mut redis::Connection, scripts: &Scripts, what: &str, scenario: &Scenario, trace: &Trace) -> Vec<String> {
    let steps = steps(trace);
    let plan = failover_plan(scenario, &steps);
    let mut replay = Replay::new(con, scripts, what, scenario);
    let mut crashed_at_us: Option<u64> = None;
    let start = Instant::now();
    for step in &steps {
        if crashed_at_us.is_some() && matches!(plan, Failover::SkipAfterCrash) {
            replay.skipped += 1;
            continue;
        }
        let late_us = wait_until(start, step.t_us() / SCALE);
        replay.late_us_max = replay.late_us_max.max(late_us);
        match *step {
            Step::Command { .. } => replay.command(step, start, late_us),
            Step::ClockJump { t_us, node, jump_ms } => {
                let jump_scaled_ms = jump_ms / SCALE as i64;
                let lock = replay.lock_key(node);
                let _: i64 = scripts.jump.key(&lock).arg(jump_scaled_ms).invoke(replay.con).expect("jump script");
                replay.shadows[usize::from(node)].jump(t_us, jump_ms);
                println!("  note: L{}'s clock jump of {jump_ms} ms is emulated by moving its key's expiry {jump_scaled_ms} ms", node + 1);
                if replay.redlock {
                    replay.recount_majority();
                }
            }
            Step::NodeDown { node, persists: true, .. } => {
                println!("  note: L{} crashed and keeps its data on disk: its keys stay as they are", node + 1);
            }
            Step::NodeDown { t_us, node, persists: false } => match (&plan, node) {
                (Failover::NotApplicable, _) | (_, 1..) => {
                    // A Redis without persistence restarts empty: counter 0.
                    replay.reset_node(node, 0);
                    println!("  note: L{} crashed: its keys are wiped, as the model wipes its memory", node + 1);
                }
                (Failover::FreshReplica, 0) => {
                    crashed_at_us = Some(t_us);
                    println!(
                        "  note: L1 crashed at {}: one real server cannot lose data the way the model's crash does; \
                         the model's replica never received a snapshot (every L1 command came less than the \
                         {} ms replication lag before the crash), so the promoted L2 is replayed on fresh keys",
                        fencing_sim::format_us(t_us),
                        scenario.replication_lag_ms
                    );
                }
                (Failover::SkipAfterCrash, 0) => {
                    crashed_at_us = Some(t_us);
                    println!(
                        "  note: L1 crashed at {}: one real server cannot lose data the way the model's crash does, \
                         so the commands after it are skipped",
                        fencing_sim::format_us(t_us)
                    );
                }
            },
        }
    }
    let elapsed = start.elapsed();
    let model_grants: Vec<u8> = trace
        .events
        .iter()
        .filter(|event| !matches!(plan, Failover::SkipAfterCrash) || crashed_at_us.is_none_or(|crash_us| event.t_us < crash_us))
        .filter_map(|event| match event.kind {
            Kind::Granted { holder: Actor::Worker(worker), .. } => Some(worker),
            _ => None,
        })
        .collect();
    let names = support::names;
    println!(
        "{what}: {} commands: {} identical ({} of them near an expiry), {} timing-tolerated, {} skipped; \
         grants real [{}] model [{}]; {:.1} ms scaled run, at most {} µs behind schedule",
        replay.identical as usize + replay.tolerated.len() + replay.failures.len(),
        replay.identical,
        replay.near_expiry_identical,
        replay.tolerated.len(),
        replay.skipped,
        names(&replay.real_grants),
        names(&model_grants),
        elapsed.as_secs_f64() * 1000.0,
        replay.late_us_max,
    );
    support::check_grants(what, "server", &replay.real_grants, &model_grants, !replay.tolerated.is_empty(), &mut replay.failures);
    replay.clean_up();
    replay.failures
}

/// A Redis story one real server can replay. A failover partitioned apart
/// (two primaries at once, as in redis-split-brain) cannot be: one server
/// has one state. scripts/fidelity-sentinel.sh replays that one on a real
/// primary, replica and Sentinel instead.
fn is_redis(scenario: &Scenario) -> bool {
    let split = scenario.lock_service == LockService::RedisFailover
        && scenario.faults.iter().any(|fault| matches!(fault, fencing_sim::Fault::Partition { .. }));
    matches!(scenario.lock_service, LockService::SingleRedis | LockService::RedisFailover | LockService::Redlock) && !split
}

/// The presets whose lock service is Redis, fencing off and on; and each
/// single-Redis one with fencing on again with its token drawn by the atomic
/// acquire script (the lesson's recommendation), so the script is replayed
/// for real too.
fn redis_scenarios() -> Vec<(String, Scenario)> {
    let mut scenarios: Vec<(String, Scenario)> = pinned::pinned_runs().into_iter().filter(|(_, scenario)| is_redis(scenario)).collect();
    let atomic: Vec<(String, Scenario)> = scenarios
        .iter()
        .filter(|(_, scenario)| scenario.lock_service == LockService::SingleRedis && scenario.fencing)
        .map(|(name, scenario)| {
            (format!("{name} token_source=atomic_script"), Scenario { token_source: TokenSource::AtomicScript, ..scenario.clone() })
        })
        .collect();
    scenarios.extend(atomic);
    for (name, scenario) in &scenarios {
        // A node clock that runs at another rate cannot be had on one server.
        assert!(
            !scenario.faults.iter().any(|fault| matches!(fault, Fault::ClockDrift { .. })),
            "{name}: clock drift cannot be replayed on a real server"
        );
    }
    scenarios
}

#[test]
#[ignore = "needs a real redis-server: scripts/fidelity.sh starts one and runs this with --ignored"]
fn a_real_redis_answers_every_lock_command_as_the_model_does() {
    let url = support::required_env("FENCING_LAB_REDIS_URL", "scripts/fidelity.sh");
    let client = redis::Client::open(url.as_str()).unwrap_or_else(|error| panic!("bad FENCING_LAB_REDIS_URL {url:?}: {error}"));
    let mut con = client.get_connection_with_timeout(Duration::from_secs(5)).expect("connect to the real Redis");
    con.set_read_timeout(Some(Duration::from_secs(5))).expect("read timeout");
    let version: String = redis::cmd("INFO").arg("server").query(&mut con).expect("INFO");
    let version = version.lines().find(|line| line.starts_with("redis_version:")).unwrap_or("redis_version:?").trim();
    println!("redis_differential: {version}, time scaled 1/{SCALE}, tolerance ±{} ms around an expiry", TOLERANCE_US / 1000);
    let scripts = Scripts::load(&mut con);
    let scenarios = redis_scenarios();
    let count = |wanted: fn(&Scenario) -> bool| presets::PRESETS.iter().filter(|preset| wanted(&(preset.build)())).count();
    let (redis_presets, single) = (count(is_redis), count(|scenario| scenario.lock_service == LockService::SingleRedis));
    assert_eq!(scenarios.len(), redis_presets * 2 + single, "every Redis preset twice, and the single-Redis ones atomically too");
    let mut failures = Vec::new();
    let mut commands = 0;
    for (what, scenario) in &scenarios {
        let trace = run(scenario).unwrap_or_else(|error| panic!("{what}: {error}"));
        assert!(!trace.summary.truncated, "{what} hit its event bound");
        commands += steps(&trace).iter().filter(|step| matches!(step, Step::Command { .. })).count();
        failures.extend(replay(&mut con, &scripts, what, scenario, &trace));
    }
    println!("redis_differential: {} scenarios, {commands} lock commands replayed", scenarios.len());
    assert!(failures.is_empty(), "the real Redis disagreed with the model:\n{}", failures.join("\n"));
}

/// The offline half: the steps read from a trace are what the story says.
#[test]
fn the_classic_trace_reads_as_redis_commands() {
    let trace = run(&presets::classic()).unwrap();
    let classic = steps(&trace);
    let Step::Command { request: Msg::SetNx { ttl_ms: 10_000, .. }, model: Msg::SetReply { ok: true }, from: 0, .. } = classic[0] else {
        panic!("A's SET first: {:?}", classic[0]);
    };
    assert!(matches!(classic[1], Step::Command { request: Msg::Incr, model: Msg::IncrReply { value: 33 }, .. }));
    let tokens: Vec<u64> = classic
        .iter()
        .filter_map(|step| match step {
            Step::Command { model: Msg::IncrReply { value }, .. } => Some(*value),
            _ => None,
        })
        .collect();
    assert_eq!(tokens, vec![33, 34]);
    for (name, scenario) in redis_scenarios() {
        let trace = run(&scenario).unwrap();
        let atomic = scenario.token_source == TokenSource::AtomicScript;
        let requests: Vec<Msg> =
            steps(&trace).iter().filter_map(|step| if let Step::Command { request, .. } = step { Some(*request) } else { None }).collect();
        assert!(!requests.is_empty(), "{name}");
        // The atomic variants ask with the script and never INCR apart.
        assert_eq!(atomic, requests.iter().any(|request| matches!(request, Msg::AcquireScript { .. })), "{name}");
        assert!(!atomic || !requests.contains(&Msg::Incr), "{name}");
    }
}
