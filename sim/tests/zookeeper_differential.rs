//! Differential test against a real ZooKeeper 3.8 (Debian's `zookeeper`):
//! the model's ZooKeeper lock (`engine/src/services/zookeeper.rs`) says that
//!
//! - a session's timeout is granted between 2 and 20 ticks (4 s and 40 s
//!   with the default `tickTime=2000`);
//! - a client frozen by a stop-the-world pause sends no pings, so its
//!   session is expired a timeout after its last contact, at the server's
//!   next tick (up to 2 s later), its ephemeral znode is deleted and only the
//!   next contender's watch fires; the frozen client learns of it when it
//!   runs again;
//! - the znodes' sequence numbers are the model's: each create under the
//!   lock's parent takes the next one; a delete or an expiry takes none
//!   (etcd's revision, by contrast, counts deletes too);
//! - the lock's parent is a container znode (as Curator creates it): once it
//!   is empty the server deletes it at its next container check, and a
//!   recreated parent numbers from 0 again, while each znode's `czxid` (the
//!   model's token) still only grows. The script shortens the check's
//!   interval to 1 s (`-Dznode.container.checkIntervalMs=1000`).
//!
//! The real-server tests are `#[ignore]`d and named `real_*`;
//! `scripts/fidelity-zookeeper.sh` starts a private server, sets
//! `FENCING_LAB_ZOOKEEPER` and runs them. Without that variable they fail:
//! a missing server is never a pass. The frozen client is a real process
//! (this test binary run as `child_frozen_client`) stopped with SIGSTOP and
//! resumed with SIGCONT, as `fencing-lab live` freezes its Redis workers.
//!
//! The client speaks ZooKeeper's wire protocol itself
//! (`zookeeper_differential/client.rs`): no ZooKeeper library is needed.

#[path = "zookeeper_differential/client.rs"]
mod client;
#[allow(dead_code)] // shared by the real-server tests; each uses part of it
#[path = "support/mod.rs"]
mod support;

use client::{Session, EPHEMERAL_SEQUENTIAL, NODE_DELETED, PERSISTENT};
use fencing_sim::history::Recorder;
use fencing_sim::msg::Msg;
use fencing_sim::{presets, run, Actor, Kind, LockService, Scenario, Trace};
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};
use support::required_env;

const SCRIPT: &str = "scripts/fidelity-zookeeper.sh";
const ADDRESS: &str = "FENCING_LAB_ZOOKEEPER";
/// The parent the frozen child creates its znode under.
const CHILD_PARENT: &str = "FENCING_LAB_ZOOKEEPER_PARENT";
const TICK_MS: u64 = 2_000;
/// How late a real server's expiry may come past its tick: the session
/// tracker's thread and the watch notification, on a busy machine.
const LATE_MS_MAX: u64 = 1_000;

/// The preset's GC pause with a third contender who asks after B has
/// released: A's znode, B's, A's expiry, B's release, then C's znode.
fn story() -> Scenario {
    Scenario { workers: 3, start_gap_ms: 7_000, ..presets::build("zookeeper-gc-pause").expect("a preset") }
}

/// The tokens (czxids) the model gives A, B and C.
fn model_tokens(trace: &Trace) -> Vec<u64> {
    (0..3).map(|worker| token_of(trace, worker)).collect()
}

/// The sequence numbers and czxids of the znodes the model creates, in the
/// order it creates them.
fn model_znodes(trace: &Trace) -> Vec<(u64, u64)> {
    let created = |event: &fencing_sim::Event| match event.kind {
        Kind::Send { body: Msg::Created { seq, czxid, .. }, .. } => Some((seq, czxid)),
        _ => None,
    };
    trace.events.iter().filter_map(created).collect()
}

fn token_of(trace: &Trace, worker: u8) -> u64 {
    let acquired = trace.events.iter().find(|event| event.actor == Actor::Worker(worker) && matches!(event.kind, Kind::Acquired { .. }));
    acquired.and_then(|event| event.token).unwrap_or_else(|| panic!("worker {worker} never holds the lock"))
}

/// From A's last contact with the service (its znode's creation) to the
/// expiry of its session, in the model (ms).
fn model_expiry_after_last_contact_ms(trace: &Trace) -> u64 {
    let created = trace.events.iter().find(|event| matches!(event.kind, Kind::Granted { holder: Actor::Worker(0), .. }));
    let expired = trace.events.iter().find(|event| matches!(event.kind, Kind::Expired { holder: Actor::Worker(0), .. }));
    let (created, expired) = (created.expect("A's znode"), expired.expect("A's expiry"));
    (expired.t_us - created.t_us) / 1000
}

/// The timeout the model grants a session asked for `asked_ms`.
fn model_granted_ms(asked_ms: u64) -> u64 {
    let scenario = Scenario { ttl_ms: asked_ms, faults: Vec::new(), ..presets::build("zookeeper-gc-pause").expect("a preset") };
    let trace = run(&scenario).expect("a valid scenario");
    let clamped = trace.events.iter().find_map(|event| match event.kind {
        Kind::LeaseClamped { ttl_ms, .. } => Some(ttl_ms),
        _ => None,
    });
    clamped.unwrap_or(asked_ms)
}

#[test]
fn the_story_the_real_test_replays_is_the_models() {
    let trace = run(&story()).unwrap();
    assert_eq!(trace.scenario.lock_service, LockService::ZooKeeper);
    // A 33, B 34; A's expiry and B's release take no number, so C gets 35.
    let sequence: Vec<u64> = model_znodes(&trace).iter().map(|(seq, _)| *seq).collect();
    assert_eq!(sequence, [33, 34, 35]);
    // The tokens are the czxids, which every transaction moves.
    let tokens = model_tokens(&trace);
    assert!(tokens.windows(2).all(|pair| pair[0] < pair[1]), "{tokens:?}");
    // A's 10 s session, created at about 3 ms, is expired at the 12 s tick.
    let after_ms = model_expiry_after_last_contact_ms(&trace);
    assert!((10_000..=10_000 + TICK_MS).contains(&after_ms), "{after_ms}");
    // A hears that its session is gone only when it runs again.
    let resumed = trace.events.iter().position(|event| event.actor == Actor::Worker(0) && event.kind == Kind::PauseEnded).unwrap();
    let told = trace.events.iter().position(|event| {
        event.actor == Actor::Worker(0) && matches!(event.kind, Kind::Receive { body: Msg::RenewReply { ok: false }, .. })
    });
    assert!(told.is_some_and(|told| told > resumed), "A learns of its expiry after it resumes");
    assert_eq!((model_granted_ms(1_000), model_granted_ms(10_000), model_granted_ms(60_000)), (4_000, 10_000, 40_000));
}

#[test]
#[ignore = "needs a real ZooKeeper: run scripts/fidelity-zookeeper.sh"]
fn real_zookeeper_grants_session_timeouts_as_the_model_does() {
    let address = required_env(ADDRESS, SCRIPT);
    for asked_ms in [1_000u64, 3_999, 10_000, 40_000, 60_000] {
        let session = Session::connect(&address, i32::try_from(asked_ms).unwrap()).unwrap_or_else(|error| panic!("connect: {error:?}"));
        let real_ms = u64::try_from(session.timeout_ms).unwrap();
        println!("asked {asked_ms:>6} ms: real ZooKeeper grants {real_ms:>6} ms, the model {:>6} ms", model_granted_ms(asked_ms));
        assert_eq!(real_ms, model_granted_ms(asked_ms), "asked {asked_ms} ms");
        session.close().ok();
    }
}

#[test]
#[ignore = "needs a real ZooKeeper: run scripts/fidelity-zookeeper.sh"]
fn real_zookeeper_expires_a_frozen_client_and_numbers_znodes_as_the_model_does() {
    let address = required_env(ADDRESS, SCRIPT);
    let trace = run(&story()).unwrap();
    let tokens = model_tokens(&trace);
    let offset = trace.scenario.first_token;
    // The run as a history (recordings/zookeeper-gc-pause.jsonl), its times
    // in µs from here.
    let start = Instant::now();
    let us = |at: Instant| u64::try_from(at.saturating_duration_since(start).as_micros()).unwrap_or(u64::MAX);
    let session_us = 10_000 * 1000;
    let mut recorder = Recorder::new(
        support::provenance(
            format!("ZooKeeper {} (standalone, tickTime {TICK_MS} ms), sim/tests/zookeeper_differential.rs", server_version(&address)),
            "scripts/fidelity-zookeeper.sh: A (a separate process) opens a 10 s session and creates its ephemeral sequential \
             znode, then is frozen with SIGSTOP; B queues behind it and watches A's znode; ZooKeeper expires A's session and \
             deletes its znode (A's lease ends there); B holds, releases; C holds; A is thawed with SIGCONT and told its session \
             expired. Tokens are the znodes' sequence numbers + the preset's first token, as the check compares them; no store \
             (fencing off: nothing written)"
                .to_string(),
        ),
        false,
    );
    // The model's run: the preset with three workers and a 7 s start gap,
    // which no link carries (a link has no start gap): no `model` then.
    recorder.held_to(&trace.scenario);
    let parent = format!("/fencing-lab-{:016x}", support::random_u64());
    // Idle through the story: a session long enough not to need pings.
    let mut admin = Session::connect(&address, 40_000).expect("a session");
    admin.create(&parent, PERSISTENT).expect("the lock's parent");

    // A: a separate process holding a 10 s session and the first znode, then frozen.
    let (mut child, mut child_out) = spawn_frozen_client(&address, &parent);
    let a_path = read_child_line(&mut child_out, "created ");
    let a_created = Instant::now();
    stop(&child, "-STOP");
    let stopped = Instant::now();

    // B queues behind A and watches A's znode, pinging as a client does.
    let mut b = Session::connect(&address, 10_000).expect("B's session");
    let b_path = b.create(&format!("{parent}/n-"), EPHEMERAL_SEQUENTIAL).expect("B's znode");
    b.exists(&a_path, true).expect("A's znode is there to watch");
    let event = b.next_event(stopped + Duration::from_secs(30));
    let expired_after_ms = u64::try_from(stopped.elapsed().as_millis()).unwrap();
    let expiry_seen = Instant::now();
    assert_eq!(event, Some((NODE_DELETED, a_path.clone())), "B's watch on A's znode fires when A's session expires");
    let model_ms = model_expiry_after_last_contact_ms(&trace);
    println!("A frozen: the real ZooKeeper expired its session {expired_after_ms} ms after its last contact; the model, {model_ms} ms");
    // Both within a timeout and a tick of the last contact.
    assert!((10_000..=10_000 + TICK_MS + LATE_MS_MAX).contains(&expired_after_ms), "real expiry after {expired_after_ms} ms");
    let lowest = b.children(&parent).expect("the lock's children").into_iter().min().expect("B's znode");
    assert_eq!(format!("{parent}/{lowest}"), b_path, "B's znode is the lowest now: B holds the lock");
    let b_holds = Instant::now();
    b.delete(&b_path).expect("B releases");
    let b_released = Instant::now();
    b.close().ok();

    let mut c = Session::connect(&address, 10_000).expect("C's session");
    let c_path = c.create(&format!("{parent}/n-"), EPHEMERAL_SEQUENTIAL).expect("C's znode");
    let c_holds = Instant::now();
    let real: Vec<u64> = [&a_path, &b_path, &c_path].iter().map(|path| sequence_of(path) + offset).collect();
    let model: Vec<u64> = model_znodes(&trace).iter().map(|(seq, _)| *seq).collect();
    println!("sequence numbers (+ {offset}): real A B C = {real:?}, model = {model:?}; the model's tokens (czxids) = {tokens:x?}");
    assert_eq!(real, model, "the znodes' sequence numbers are the model's");
    // The parent's child version counts the deletes as well (3 creates, 2
    // deletes): it is not where the number comes from.
    let cversion = admin.exists(&parent, false).expect("the parent").cversion;
    println!("the parent's child version: {cversion} (3 creates and 2 deletes)");
    assert_eq!(cversion, 5, "ZooKeeper's child version counts creates and deletes");

    // A runs again: its first contact finds the session gone.
    stop(&child, "-CONT");
    let resumed = Instant::now();
    let said = read_child_line(&mut child_out, "reconnect: timeout ");
    assert_eq!(said, "0", "a resumed client is told its session expired (timeout 0 on reconnecting)");
    assert!(child.wait().expect("the child exits").success(), "the frozen client's process ends cleanly");
    c.delete(&c_path).ok();
    let c_released = Instant::now();
    c.close().ok();
    admin.delete(&parent).ok();

    // A's lease is its session: it ends when ZooKeeper expires it, as B's
    // watch saw (the server deletes the znode, then tells the watcher).
    let [a_token, b_token, c_token] = [real[0], real[1], real[2]];
    let (a_id, b_id, c_id) = (Actor::Worker(0), Actor::Worker(1), Actor::Worker(2));
    recorder.grant(a_id, Some(a_token), us(a_created), us(expiry_seen));
    recorder.pause(a_id, us(stopped), us(resumed));
    recorder.grant(b_id, Some(b_token), us(b_holds), us(b_holds) + session_us);
    recorder.release(b_id, us(b_released));
    recorder.grant(c_id, Some(c_token), us(c_holds), us(c_holds) + session_us);
    recorder.release(c_id, us(c_released));
    support::record_or_compare("zookeeper-gc-pause.jsonl", &recorder.finish().expect("a short run"));
}

/// The server's version as it reports it: the first line of the `srvr`
/// four-letter word ("Zookeeper version: 3.8.0-…, built on …"), whitelisted
/// by scripts/fidelity-zookeeper.sh; "?" if it does not answer.
fn server_version(address: &str) -> String {
    use std::io::{Read, Write};
    let mut text = String::new();
    if let Ok(mut stream) = std::net::TcpStream::connect(address) {
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
        if stream.write_all(b"srvr").is_ok() {
            // At most a few lines: bounded by the read's limit.
            stream.take(4096).read_to_string(&mut text).ok();
        }
    }
    let line = text.lines().next().unwrap_or("");
    let version = line.strip_prefix("Zookeeper version: ").unwrap_or("?");
    let version = version.split(',').next().unwrap_or("?").trim();
    // Debian's build leaves its git placeholder unexpanded: "3.8.0-${mvngit.commit.id}".
    version.strip_suffix("-${mvngit.commit.id}").unwrap_or(version).to_string()
}

#[test]
fn the_model_numbers_from_0_under_a_recreated_parent_and_its_czxid_still_grows() {
    let trace = run(&presets::build("zookeeper-parent-recreated").expect("a preset")).unwrap();
    let znodes = model_znodes(&trace);
    assert_eq!(znodes.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(), [33, 0], "A's n-…33, then B's n-…0 under the new parent");
    assert!(znodes[0].1 < znodes[1].1, "the czxid grows: {znodes:x?}");
}

#[test]
#[ignore = "needs a real ZooKeeper: run scripts/fidelity-zookeeper.sh"]
fn real_zookeeper_deletes_an_empty_container_parent_and_numbers_from_0_again() {
    let address = required_env(ADDRESS, SCRIPT);
    let parent = format!("/fencing-lab-container-{:016x}", support::random_u64());
    let mut admin = Session::connect(&address, 40_000).expect("a session");
    let lock = |admin: &mut Session| {
        // Curator: the parent as a container if it is missing, then the
        // lock's znode; the czxid from the znode's Stat.
        match admin.create_container(&parent) {
            Ok(_) | Err(client::Failure::Code(NODE_EXISTS)) => {}
            Err(failure) => panic!("the container parent: {failure:?}"),
        }
        let path = admin.create(&format!("{parent}/n-"), EPHEMERAL_SEQUENTIAL).expect("a lock znode");
        let czxid = admin.exists(&path, false).expect("its stat").czxid;
        (path, czxid)
    };
    let (a_path, a_czxid) = lock(&mut admin);
    let (b_path, b_czxid) = lock(&mut admin);
    admin.delete(&a_path).expect("A releases");
    admin.delete(&b_path).expect("B releases");
    // The empty container goes at a container check (every second here).
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut gone_after_ms = None;
    let emptied = Instant::now();
    while Instant::now() < deadline {
        if let Err(client::Failure::Code(NO_NODE)) = admin.exists(&parent, false) {
            gone_after_ms = Some(emptied.elapsed().as_millis());
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let gone_after_ms = gone_after_ms.expect("the server deletes the empty container parent");
    let (c_path, c_czxid) = lock(&mut admin);
    let real: Vec<(u64, i64)> =
        [(&a_path, a_czxid), (&b_path, b_czxid), (&c_path, c_czxid)].iter().map(|(path, czxid)| (sequence_of(path), *czxid)).collect();
    let model = model_znodes(&run(&presets::build("zookeeper-parent-recreated").expect("a preset")).unwrap());
    println!("the empty container parent was deleted {gone_after_ms} ms after it emptied");
    println!(
        "real ZooKeeper (sequence number, czxid): A {:?}, B {:?}, then after the parent was recreated C {:?}",
        real[0], real[1], real[2]
    );
    println!("the model's preset zookeeper-parent-recreated: A {:?}, then after the parent was recreated B {:?}", model[0], model[1]);
    let hex = |(seq, czxid): (u64, i64)| format!("n-{seq:010} czxid {czxid:#x}");
    println!(
        "side by side: real {} → {} | model {} → {}",
        hex(real[1]),
        hex(real[2]),
        hex((model[0].0, model[0].1 as i64)),
        hex((model[1].0, model[1].1 as i64))
    );
    assert_eq!((real[0].0, real[1].0, real[2].0), (0, 1, 0), "a recreated parent numbers from 0 again");
    assert!(real[0].1 < real[1].1 && real[1].1 < real[2].1, "the czxid only grows");
    assert!(model[1].0 < model[0].0 && model[0].1 < model[1].1, "the model: the sequence number goes back, the czxid grows");
    admin.delete(&c_path).ok();
    admin.close().ok();
}

/// `KeeperException.Code`: NONODE and NODEEXISTS.
const NO_NODE: i32 = -101;
const NODE_EXISTS: i32 = -110;

/// The frozen client A, run by the test above as a separate process (this
/// same test binary): it opens a 10 s session, creates its znode, says so,
/// and pings every third of the timeout; when a ping fails it reconnects
/// and prints the timeout the server answers.
#[test]
#[ignore = "a child process of real_zookeeper_expires_a_frozen_client_and_numbers_znodes_as_the_model_does"]
fn child_frozen_client() {
    let address = required_env(ADDRESS, SCRIPT);
    let parent = required_env(CHILD_PARENT, SCRIPT);
    let mut session = Session::connect(&address, 10_000).expect("A's session");
    let path = session.create(&format!("{parent}/n-"), EPHEMERAL_SEQUENTIAL).expect("A's znode");
    say(&format!("created {path}"));
    let ping_every = Duration::from_millis(u64::try_from(session.timeout_ms / 3).unwrap());
    // Bounded: the parent resumes it within a minute.
    for _ in 0..100 {
        std::thread::sleep(ping_every);
        if session.ping().is_err() {
            let timeout_ms = Session::reconnect(&address, session.id, session.password()).unwrap_or(-1);
            say(&format!("reconnect: timeout {timeout_ms}"));
            return;
        }
    }
    panic!("the session never expired");
}

/// A line for the parent, straight to the process's stdout: the test
/// harness may capture `println!`, which then never reaches the pipe.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "zk-child: {line}").and_then(|()| out.flush()).expect("the parent's pipe");
}

fn spawn_frozen_client(address: &str, parent: &str) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["child_frozen_client", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(ADDRESS, address)
        .env(CHILD_PARENT, parent)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the frozen client's process");
    let out = BufReader::new(child.stdout.take().expect("its stdout"));
    (child, out)
}

/// What follows `zk-child: <prefix>` in the child's next line that says it.
fn read_child_line(out: &mut BufReader<ChildStdout>, prefix: &str) -> String {
    let wanted = format!("zk-child: {prefix}");
    for _ in 0..100 {
        let mut line = String::new();
        if out.read_line(&mut line).expect("the child's output") == 0 {
            break;
        }
        // The harness may have begun the line ("test child_frozen_client ... ").
        if let Some((_, rest)) = line.trim_end().split_once(&wanted) {
            return rest.to_string();
        }
    }
    panic!("the frozen client never said '{wanted}…'");
}

fn stop(child: &Child, signal: &str) {
    let status = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("kill");
    assert!(status.success(), "kill {signal}");
}

/// The sequence number a sequential znode's name ends in (10 digits).
fn sequence_of(path: &str) -> u64 {
    let digits = &path[path.len() - 10..];
    digits.parse().unwrap_or_else(|_| panic!("no sequence number in {path}"))
}
