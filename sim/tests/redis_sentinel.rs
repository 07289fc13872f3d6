//! The `redis-split-brain` preset against a real primary (L1), its replica
//! (L2) and a real Redis Sentinel (`scripts/fidelity-sentinel.sh` starts
//! them on loopback and runs this with `--ignored`). The counter stands at
//! 32 on both; A takes the lock and token 33 on L1, replicated (`WAIT`);
//! L1 is cut off from L2 and Sentinel by firewall rules while A's and C's
//! connections to it stay usable (B never reaches L1); Sentinel promotes
//! L2; A keeps renewing its key on L1 alone, so L2's copy runs out and B
//! takes the lock there, its `INCR` drawing 34 from the replicated counter;
//! A releases on L1 and C takes the lock there, drawing 34 from L1's own
//! counter: two primaries, both granting the lock, the same token twice.
//! The partition heals, Sentinel makes L1 a replica of L2, and L1 drops its
//! own data, C's lock key with it. The model's preset must tell the same
//! story: the facts of both are compared, not their durations.
//!
//! The network is real: each process has its own loopback address (L1
//! 127.0.0.2; L2 and Sentinel 127.0.0.3, as the model's Sentinels run
//! beside the replica; A and C 127.0.0.1; B 127.0.0.5), and the script's
//! nftables rules drop the packets of the links that are cut. Nothing is
//! refused: a cut link goes silent, as in a real partition, and each side
//! finds out by its own timeouts (Sentinel by its down-after time).
//!
//! Clients find the primary as Sentinel's clients do: they ask Sentinel
//! (`SENTINEL get-master-addr-by-name`) and keep their connection while it
//! works, as the model's clients keep theirs while their node still answers
//! as a primary; B's one link to L1 goes from its own address (the Redis
//! client cannot choose one), a plain TCP connect that the cut leaves
//! unanswered.

#[allow(dead_code)] // shared by the real-server tests; each uses part of it
#[path = "support/mod.rs"]
mod support;

use fencing_sim::event::Disbelief;
use fencing_sim::history::Recorder;
use fencing_sim::{format_us, presets, run, Actor, Fault, Kind, Scenario, Trace};
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

const SCRIPT: &str = "scripts/fidelity-sentinel.sh";
/// The real run takes every time of the preset halved (the lease 10 s →
/// 5 s, the cut at 1 s → 0.5 s, Sentinel's down-after 2 s → 1 s, the heal
/// at 21 s → 10.5 s): the steps come in the model's order and the run is
/// about 10 s shorter. Not shorter still: the promotion must come inside
/// the lease A's copy on the replica has left, as in the model (3 s into
/// 10 s), and Sentinel adds `SENTINEL_OWN` to its down-after time; a 2 s
/// lease would leave that no room. The offline test checks the order.
const SCALE: u64 = 2;
/// What Sentinel adds of its own to its down-after time before it names
/// the new primary, at most: the ping that finds the primary silent goes
/// out up to a second after the cut (one a second), and Sentinel sees the
/// promoted replica's new role in an INFO it sends once a second (measured
/// here: 1.3–1.8 s). Not a bound the real run checks: if the promotion
/// came later than A's copy ran out, the facts would differ and say so.
const SENTINEL_OWN: Duration = Duration::from_secs(2);
/// Only a bound on a hung server (a command's read timeout, and a
/// connection's): nothing here claims how fast a step is. Each command
/// takes milliseconds even with both cores busy; it must exceed `WAIT`'s
/// below.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long the in-sync check waits for the replica's acknowledgement: a
/// bound, not a claim (the replica usually answers in a millisecond).
const WAIT_MS: u64 = 5_000;
/// How often the run looks at the servers and B and C ask again for a
/// taken lock. A pace, not a bound: the model's workers back off for a
/// random 0.1–1 s; asking more often only lets B and C see the free lock
/// sooner, and no fact depends on how soon.
const RETRY: Duration = Duration::from_millis(20);
/// The longest the demotion may take after the heal. Printed, never
/// compared (the model's Sentinel demotes L1 at the heal): the real
/// Sentinel must first reach L1 again (its link to it was opened during
/// the cut and waits on the kernel's SYN retries, up to 8 s apart, or on
/// Sentinel's own reconnection once the link is 15 s old), sees L1 report
/// itself a primary in its first INFO, waits 4 publish periods (8 s) for a
/// newer configuration to show up, and sends `REPLICAOF` at the next INFO
/// after that (one every 10 s to a replica): about 10–20 s (measured here:
/// 13.7 s). 45 s is twice the slowest of it; a Sentinel that has not
/// demoted L1 by then is broken, not slow.
const DEMOTION_MAX: Duration = Duration::from_secs(45);
/// The lock's renewal and release: the value must still be the worker's own.
const RENEW_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const CAD_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);
const C: Actor = Actor::Worker(2);
const L1: Actor = Actor::LockNode(0);
const L2: Actor = Actor::LockNode(1);

/// The model's story.
fn story() -> Scenario {
    presets::build("redis-split-brain").expect("the redis-split-brain preset")
}

/// When the story's steps happen in the real run: the preset's times,
/// divided by `SCALE`.
struct Times {
    /// The lease each `SET … PX` asks for.
    ttl_ms: u64,
    /// A holder's watchdog renews every third of the lease.
    renew_every: Duration,
    /// L1 cut off from L2 and Sentinel, and back.
    cut: Duration,
    heal: Duration,
    b_starts: Duration,
    c_starts: Duration,
    /// From A's grant to its release: its work before each write.
    a_works: Duration,
    /// How long B waits for an answer from L1 before it asks again.
    request_timeout: Duration,
    /// Sentinel's down-after time, which the script configures.
    down_after_ms: u64,
}

impl Times {
    fn of(scenario: &Scenario) -> Times {
        let (cut_ms, for_ms) = scenario
            .faults
            .iter()
            .find_map(|fault| match fault {
                Fault::Partition { node: L1, from: Some(L2), at_ms, for_ms, .. } => Some((*at_ms, *for_ms)),
                _ => None,
            })
            .expect("the story cuts L1 off from L2");
        assert!(
            scenario.faults.iter().any(|fault| matches!(fault, Fault::Partition { node: B, from: Some(L1), at_ms: 0, .. })),
            "the story keeps B from L1 from the start, as the script's rule does"
        );
        let scaled = |ms: u64| Duration::from_millis(ms / SCALE);
        Times {
            ttl_ms: scenario.ttl_ms / SCALE,
            renew_every: scaled(scenario.ttl_ms / 3),
            cut: scaled(cut_ms),
            heal: scaled(cut_ms + for_ms),
            b_starts: scaled(scenario.start_gap_ms),
            c_starts: scaled(2 * scenario.start_gap_ms),
            a_works: scaled(scenario.work_ms * u64::from(scenario.writes_per_hold)),
            request_timeout: scaled(scenario.request_timeout_ms),
            down_after_ms: scenario.failover_ms / SCALE,
        }
    }
}

fn env(name: &str) -> String {
    support::required_env(name, SCRIPT)
}

fn addr(name: &str) -> SocketAddr {
    env(name).parse().unwrap_or_else(|error| panic!("{name} is not host:port: {error}"))
}

fn connect(addr: SocketAddr) -> redis::RedisResult<redis::Connection> {
    let con = redis::Client::open(format!("redis://{addr}/"))?.get_connection_with_timeout(TIMEOUT)?;
    con.set_read_timeout(Some(TIMEOUT))?;
    con.set_write_timeout(Some(TIMEOUT))?;
    Ok(con)
}

/// `INFO replication`, as (field, value) pairs.
fn replication(con: &mut redis::Connection) -> redis::RedisResult<Vec<(String, String)>> {
    let text: String = redis::cmd("INFO").arg("replication").query(con)?;
    Ok(text.lines().filter_map(|line| line.split_once(':')).map(|(field, value)| (field.to_string(), value.trim().to_string())).collect())
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields.iter().find(|(field, _)| field == name).map(|(_, value)| value.as_str())
}

/// A value no other run uses, as hex.
fn random_hex() -> String {
    format!("{:016x}", support::random_u64())
}

/// A worker's grant: when, on which primary, and its token.
struct Grant {
    t_ms: f64,
    on: SocketAddr,
    token: u64,
}

/// One worker: its lock value, its connection, and what it got.
struct Worker {
    name: char,
    value: String,
    starts: Duration,
    /// The primary it talks to, and its connection there.
    con: Option<(SocketAddr, redis::Connection)>,
    grant: Option<Grant>,
    next_try: Instant,
    next_renewal: Instant,
    refusals: u32,
    /// Where it was first refused, and whose key held the lock there.
    first_refusal: Option<(SocketAddr, Option<char>)>,
    /// B's connect to L1 in progress, and when it began.
    l1_attempt: Option<(socket2::Socket, Instant)>,
    /// B's unanswered attempts at L1.
    unanswered: u32,
    /// Renewals that went through without a line of their own (between
    /// the heal and the demotion), for the demotion's line.
    quiet_renewals: u32,
    /// It no longer believes it holds the lock (released, or refused).
    done: bool,
}

impl Worker {
    fn new(name: char, starts: Duration, start: Instant) -> Worker {
        Worker {
            name,
            value: format!("{name}-{}", random_hex()),
            starts,
            con: None,
            grant: None,
            next_try: start + starts,
            next_renewal: start,
            refusals: 0,
            first_refusal: None,
            l1_attempt: None,
            unanswered: 0,
            quiet_renewals: 0,
            done: false,
        }
    }

    fn holds(&self) -> bool {
        self.grant.is_some() && !self.done
    }
}

/// The real run: the servers, the clock, the timeline, and what was seen.
struct Lab {
    start: Instant,
    lines: Vec<(f64, String, String)>,
    sentinel: redis::Connection,
    master_name: String,
    l1: SocketAddr,
    l2: SocketAddr,
    /// The lab's own connection to L1 (Sentinel's demotion closes it).
    l1_con: Option<redis::Connection>,
    b_host: IpAddr,
    lock: String,
    fence: String,
    times: Times,
    cut_ms: Option<f64>,
    heal_ms: Option<f64>,
    promoted_ms: Option<f64>,
    /// The first answer from L1 as a replica of L2: Sentinel's `REPLICAOF`
    /// has reached it (its link may still be syncing).
    replica_ms: Option<f64>,
    /// L1 a replica of L2 with its link up: its data is L2's now.
    demoted_ms: Option<f64>,
    renew: redis::Script,
    cad: redis::Script,
    /// The run as a history (recordings/redis-split-brain.jsonl): each
    /// grant, renewal and release as the worker saw it answered.
    recorder: Recorder,
}

impl Lab {
    fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }

    /// µs from the start, and the end of a lease of `ttl_ms` taken then.
    fn lease_from(&self, t_ms: f64) -> (u64, u64) {
        (support::us(t_ms), support::us(t_ms) + self.times.ttl_ms * 1000)
    }

    fn note(&mut self, who: &str, text: String) -> f64 {
        let t_ms = self.now_ms();
        self.lines.push((t_ms, who.to_string(), text));
        t_ms
    }

    fn node(&self, addr: SocketAddr) -> &'static str {
        if addr == self.l1 {
            "L1"
        } else if addr == self.l2 {
            "L2"
        } else {
            "an unknown server"
        }
    }

    fn print_timeline(&self) {
        println!("real primary + replica + Sentinel (redis-server, redis-sentinel), times from A's first request:");
        for (t_ms, who, text) in &self.lines {
            println!("{:>12}  {who:<8} {text}", format_us((t_ms * 1000.0).round() as u64));
        }
    }

    /// A failed bound: the timeline so far, then the failure.
    fn fail(&self, why: String) -> ! {
        self.print_timeline();
        panic!("{why}");
    }

    /// The primary Sentinel names now; the first time it names L2, the
    /// promotion is noted (with what L1 and L2 say of themselves).
    fn master(&mut self) -> SocketAddr {
        let named: (String, u16) = redis::cmd("SENTINEL")
            .arg("get-master-addr-by-name")
            .arg(&self.master_name)
            .query(&mut self.sentinel)
            .expect("SENTINEL get-master-addr-by-name");
        let master = SocketAddr::new(named.0.parse().expect("Sentinel names an IP address"), named.1);
        if master != self.l1 && master != self.l2 {
            self.fail(format!("Sentinel names {master}, neither L1 ({}) nor L2 ({})", self.l1, self.l2));
        }
        if master == self.l2 && self.promoted_ms.is_none() {
            let l2_role = connect(self.l2).and_then(|mut con| replication(&mut con)).ok();
            let l1_role = self.l1_replication();
            let role = |fields: &Option<Vec<(String, String)>>| {
                fields.as_deref().and_then(|fields| field(fields, "role")).unwrap_or("?").to_string()
            };
            let since_cut =
                self.cut_ms.map_or(String::new(), |cut_ms| format!(", {:.1} s after the cut", (self.now_ms() - cut_ms) / 1000.0));
            let t_ms = self.note(
                "Sentinel",
                format!(
                    "names L2 the primary: the replica was promoted{since_cut}; INFO role: L2 {}, L1 {} (nobody told it)",
                    role(&l2_role),
                    role(&l1_role)
                ),
            );
            self.promoted_ms = Some(t_ms);
        }
        master
    }

    /// L1's `INFO replication`, through the lab's connection (opened again
    /// if the demotion closed it).
    fn l1_replication(&mut self) -> Option<Vec<(String, String)>> {
        self.l1_query(replication)
    }

    fn l1_query<T>(&mut self, query: impl Fn(&mut redis::Connection) -> redis::RedisResult<T>) -> Option<T> {
        for _ in 0..2 {
            if self.l1_con.is_none() {
                self.l1_con = connect(self.l1).ok();
            }
            let con = self.l1_con.as_mut()?;
            match query(con) {
                Ok(value) => return Some(value),
                Err(_) => self.l1_con = None,
            }
        }
        None
    }

    /// Whether L1 answers, now, as a replica of L2 (`INFO replication`:
    /// `role:slave` with L2's `master_host` and `master_port`), and if so
    /// whether its link is up. Redis sets the role the moment it runs
    /// `REPLICAOF` (replication.c, `replicaofCommand` → `replicationSetMaster`
    /// sets `server.masterhost`; `INFO` prints `role:slave` whenever
    /// `masterhost` is set, and `master_link_status:up` only once the sync
    /// is done), so the first such answer tells that Sentinel's demotion
    /// has reached L1, in the server's own order: every answer L1 gives
    /// after it comes after the demotion. That first answer is noted.
    fn l1_replica_of_l2(&mut self, asked_because: &str) -> Option<bool> {
        let fields = self.l1_replication().unwrap_or_default();
        let (l2_host, l2_port) = (self.l2.ip().to_string(), self.l2.port().to_string());
        let replica_of_l2 = field(&fields, "role") == Some("slave")
            && field(&fields, "master_host") == Some(l2_host.as_str())
            && field(&fields, "master_port") == Some(l2_port.as_str());
        if !replica_of_l2 {
            return None;
        }
        let link = field(&fields, "master_link_status").unwrap_or("?").to_string();
        if self.replica_ms.is_none() {
            let t_ms = self.note(
                "lab",
                format!("{asked_because}, L1 answers as a replica of L2 (INFO: role slave of {}, link {link}): Sentinel's REPLICAOF has reached it", self.l2),
            );
            self.replica_ms = Some(t_ms);
        }
        Some(link == "up")
    }

    /// A key's value on L1.
    fn l1_get(&mut self, key: &str) -> Option<String> {
        self.l1_query(|con| redis::cmd("GET").arg(key).query::<Option<String>>(con)).flatten()
    }

    /// Whose value L1's lock key holds, if any.
    fn l1_lock(&mut self) -> Option<char> {
        let lock = self.lock.clone();
        self.l1_get(&lock).and_then(|value| value.chars().next())
    }

    fn nft(&mut self, what: &str, file: &str) {
        let rules = std::fs::read_to_string(file).unwrap_or_else(|error| panic!("{file}: {error}"));
        let status = std::process::Command::new("nft").arg("-f").arg(file).status().expect("run nft");
        assert!(status.success(), "nft -f {file} failed ({status}): {rules}");
        let rules: Vec<&str> = rules.lines().map(str::trim).collect();
        self.note("lab", format!("{what}: nft -f {}: {}", file.rsplit('/').next().unwrap_or(file), rules.join("; ")));
    }

    /// One try of a worker's: ask Sentinel for the primary unless its
    /// connection still works, then `SET NX PX` and, if granted, `INCR`.
    fn try_acquire(&mut self, worker: &mut Worker) {
        let who = worker.name.to_string();
        worker.next_try = Instant::now() + RETRY;
        if worker.l1_attempt.is_some() {
            self.b_reach_l1(worker);
            return;
        }
        if worker.con.is_none() {
            let master = self.master();
            if worker.name == 'B' && master == self.l1 {
                self.b_reach_l1(worker);
                return;
            }
            match connect(master) {
                Ok(con) => worker.con = Some((master, con)),
                Err(error) => self.fail(format!("{who} could not connect to {} ({master}): {error}", self.node(master))),
            }
            let unanswered = std::mem::take(&mut worker.unanswered);
            let after = if unanswered > 0 { format!(" (after {unanswered} unanswered tries at L1)") } else { String::new() };
            self.note(&who, format!("Sentinel names {} ({master}): connected{after}", self.node(master)));
        }
        let (on, con) = worker.con.as_mut().expect("a connection");
        let on = *on;
        let set: redis::RedisResult<Option<String>> =
            redis::cmd("SET").arg(&self.lock).arg(&worker.value).arg("NX").arg("PX").arg(self.times.ttl_ms).query(con);
        match set {
            Ok(Some(_)) => {
                let token: u64 = redis::cmd("INCR").arg(&self.fence).query(con).expect("INCR");
                let t_ms = self.note(
                    &who,
                    format!(
                        "SET lock NX PX {} on {}: OK{}; INCR fence: {token}",
                        self.times.ttl_ms,
                        self.node(on),
                        if worker.refusals > 0 { format!(" (after {} refusals)", worker.refusals) } else { String::new() }
                    ),
                );
                worker.grant = Some(Grant { t_ms, on, token });
                let (at_us, end_us) = self.lease_from(t_ms);
                self.recorder.grant(worker_of(worker.name), Some(token), at_us, end_us);
                worker.next_renewal = Instant::now() + self.times.renew_every;
            }
            Ok(None) => {
                worker.refusals += 1;
                if worker.refusals == 1 {
                    let held: Option<String> = redis::cmd("GET").arg(&self.lock).query(con).expect("GET lock");
                    let left_ms: i64 = redis::cmd("PTTL").arg(&self.lock).query(con).expect("PTTL");
                    let holder = held.as_deref().map_or("nobody".to_string(), |value| format!("{}'s key", &value[..1]));
                    self.note(
                        &who,
                        format!(
                            "SET lock NX on {}: nil, {holder} holds it ({left_ms} ms left there); asking again every {} ms",
                            self.node(on),
                            RETRY.as_millis()
                        ),
                    );
                    worker.first_refusal = Some((on, held.as_deref().and_then(|value| value.chars().next())));
                }
            }
            Err(error) => {
                self.note(&who, format!("SET on {}: {error}; asking Sentinel again", self.node(on)));
                worker.con = None;
            }
        }
    }

    /// B's side never reaches L1: a connect from B's own address, which
    /// must go unanswered for the model's request timeout. It runs beside
    /// the other steps (non-blocking), looked at on every round, so that
    /// waiting on it delays no one else's.
    fn b_reach_l1(&mut self, worker: &mut Worker) {
        use socket2::{Domain, Protocol, SockAddr, Socket, Type};
        let Some((socket, began)) = &worker.l1_attempt else {
            let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).expect("a TCP socket");
            socket.bind(&SockAddr::from(SocketAddr::new(self.b_host, 0))).expect("bind to B's address");
            socket.set_nonblocking(true).expect("a non-blocking socket");
            match socket.connect(&SockAddr::from(self.l1)) {
                Err(error) if error.raw_os_error() == Some(nix::errno::Errno::EINPROGRESS as i32) => {}
                Err(error) => self.fail(format!("B's connect to L1 failed with {error}, not a silent wait: the cut is not a partition")),
                Ok(()) => self.fail("B reached L1: the cut does not hold".to_string()),
            }
            worker.l1_attempt = Some((socket, Instant::now()));
            return;
        };
        if let Some(error) = socket.take_error().expect("SO_ERROR") {
            self.fail(format!("B's connect to L1 failed with {error}, not a silent wait: the cut is not a partition"));
        }
        if socket.peer_addr().is_ok() {
            self.fail("B reached L1: the cut does not hold".to_string());
        }
        if began.elapsed() >= self.times.request_timeout {
            worker.l1_attempt = None;
            worker.unanswered += 1;
            if worker.unanswered == 1 {
                self.note(
                    "B",
                    format!(
                        "Sentinel names L1; connect from {} to L1 ({}): no answer within {} ms (B is cut off from L1); asking Sentinel again",
                        self.b_host,
                        self.l1,
                        self.times.request_timeout.as_millis()
                    ),
                );
            }
        }
    }

    /// A holder's watchdog: `PEXPIRE` if the key is still its value. On a
    /// connection that no longer works (Sentinel's demotion closes every
    /// client's), the worker asks Sentinel for the primary and tries there.
    /// Returns the script's answer (1 renewed, 0 not mine).
    fn renew(&mut self, worker: &mut Worker) -> i64 {
        let who = worker.name.to_string();
        for _ in 0..2 {
            if worker.con.is_none() {
                let master = self.master();
                let con = connect(master).unwrap_or_else(|error| self.fail(format!("{who} could not connect to {master}: {error}")));
                worker.con = Some((master, con));
                self.note(&who, format!("Sentinel names {} ({master}): connected", self.node(master)));
            }
            let (on, con) = worker.con.as_mut().expect("a connection");
            let on = *on;
            let renewed: redis::RedisResult<i64> = self.renew.key(&self.lock).arg(&worker.value).arg(self.times.ttl_ms).invoke(con);
            match renewed {
                Ok(renewed) => {
                    worker.next_renewal = Instant::now() + self.times.renew_every;
                    if renewed == 1 {
                        let (at_us, end_us) = self.lease_from(self.now_ms());
                        self.recorder.renewal(worker_of(worker.name), at_us, end_us);
                    }
                    if renewed == 1 && self.heal_ms.is_some() && self.demoted_ms.is_none() {
                        worker.quiet_renewals += 1;
                        return renewed;
                    }
                    let left_ms: i64 = redis::cmd("PTTL").arg(&self.lock).query(con).unwrap_or(-3);
                    let text = if renewed == 1 {
                        format!(
                            "renew (PEXPIRE {} if mine) on {}: 1, its key there runs {left_ms} ms more",
                            self.times.ttl_ms,
                            self.node(on)
                        )
                    } else {
                        format!(
                            "renew (PEXPIRE {} if mine) on {}: 0, not its key: it no longer holds the lock",
                            self.times.ttl_ms,
                            self.node(on)
                        )
                    };
                    self.note(&who, text);
                    return renewed;
                }
                Err(error) => {
                    self.note(&who, format!("renew on {}: {error}; asking Sentinel again", self.node(on)));
                    worker.con = None;
                    // The demotion closes every client's connection to L1:
                    // Sentinel sends `REPLICAOF` and `CLIENT KILL TYPE normal`
                    // in one MULTI/EXEC (sentinel.c, `sentinelSendSlaveOf`),
                    // and a client notices only at its next command, as a
                    // network error (https://redis.io/docs/latest/commands/client-kill/,
                    // "CLIENT KILL and Redis Sentinel"). Ask L1 what it is
                    // now, before the worker tries the primary Sentinel
                    // names: if L1 answers as a replica, the worker's next
                    // answer comes after the demotion in the servers' order,
                    // however late the lab's own look at L1 would have come.
                    if on == self.l1 && self.heal_ms.is_some() {
                        self.l1_replica_of_l2(&format!("{who}'s connection to L1 closed"));
                    }
                }
            }
        }
        self.fail(format!("{who}'s renewal failed on two primaries in a row"));
    }

    /// Compare-and-delete: 1 if the key was the worker's.
    fn release(&mut self, worker: &mut Worker) -> i64 {
        let (on, con) = worker.con.as_mut().expect("a holder has a connection");
        let on = *on;
        let deleted: i64 = self.cad.key(&self.lock).arg(&worker.value).invoke(con).expect("release script");
        let at_us = support::us(self.now_ms());
        self.recorder.release(worker_of(worker.name), at_us);
        self.note(&worker.name.to_string(), format!("release (DEL if mine) on {}: {deleted}", self.node(on)));
        worker.done = true;
        deleted
    }
}

/// Which primary granted a lock: the one Sentinel replaced, or its replacement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Primary {
    Old,
    New,
}

/// The facts both sides must share.
#[derive(Debug, PartialEq, Eq)]
struct Facts {
    /// Each worker's token, in the order drawn.
    tokens: Vec<(char, u64)>,
    /// A's key reached the replica: the new primary refused B while its
    /// copy of A's key ran (it expired there; it was not lost).
    b_refused_by_a_replicated_key: bool,
    /// The grants between the promotion and the demotion, with the primary
    /// that made each: two primaries granting the lock.
    granted_between_promotion_and_demotion: Vec<(char, Primary)>,
    /// B was granted the lock while A still held it on the old primary.
    b_granted_while_a_held_the_old_primary: bool,
    /// Whose lock the old primary dropped when Sentinel demoted it.
    dropped_at_demotion: Option<char>,
    /// C's renewal after the demotion was refused: its key is gone. In the
    /// real run "after" is in the servers' order: the renewal was sent after
    /// L1 had answered as a replica of L2.
    c_renewal_refused_after_demotion: bool,
}

/// The worker a letter names: 'A' is worker 0.
fn worker_of(name: char) -> Actor {
    Actor::Worker(u8::try_from(u32::from(name).saturating_sub(u32::from('A'))).unwrap_or(0))
}

fn letter(actor: Actor) -> char {
    actor.to_string().chars().next().unwrap_or('?')
}

fn model_facts(trace: &Trace) -> Facts {
    let events = &trace.events;
    let (promoted_us, new) = events
        .iter()
        .find_map(|event| matches!(event.kind, Kind::Promoted { .. }).then_some((event.t_us, event.actor)))
        .expect("the story promotes the replica");
    let (demoted_us, dropped) = events
        .iter()
        .find_map(|event| match event.kind {
            Kind::Demoted { dropped } => Some((event.t_us, dropped)),
            _ => None,
        })
        .expect("the story demotes the old primary");
    // The tokens drawn until the demotion. After it, the model's C, whose
    // lock was dropped before its last write, retries its job as a job
    // runner does (issue 41, finding 5) and draws another; the real check's
    // workers stop at the demotion.
    let tokens = events
        .iter()
        .filter(|event| matches!(event.kind, Kind::Acquired { .. }) && event.t_us <= demoted_us)
        .map(|event| (letter(event.actor), event.token.expect("a Redis grant has a token")))
        .collect();
    let granted: Vec<(u64, Actor, Actor)> = events
        .iter()
        .filter_map(|event| match event.kind {
            Kind::Granted { holder, .. } => Some((event.t_us, event.actor, holder)),
            _ => None,
        })
        .collect();
    let b_granted_us = granted.iter().find(|(_, _, holder)| *holder == B).map(|(t_us, _, _)| *t_us).expect("B is granted");
    // A's lease on the old primary at B's grant: granted or renewed there
    // until after it, and neither deleted nor expired there before it.
    let a_held_old =
        events.iter().filter(|event| event.actor == L1 && event.t_us < b_granted_us).fold(false, |held, event| match event.kind {
            Kind::Granted { holder: A, expires_at_us } | Kind::Renewed { holder: A, expires_at_us } => expires_at_us > b_granted_us,
            Kind::Deleted { holder: A, .. } | Kind::Expired { holder: A, .. } | Kind::LeaseLost { holder: A } => false,
            _ => held,
        });
    Facts {
        tokens,
        b_refused_by_a_replicated_key: events.iter().any(|event| {
            event.actor == new && event.t_us > promoted_us && event.t_us < b_granted_us && event.kind == Kind::Denied { holder: A }
        }),
        granted_between_promotion_and_demotion: granted
            .iter()
            .filter(|(t_us, _, _)| (promoted_us..demoted_us).contains(t_us))
            .map(|(_, node, holder)| (letter(*holder), if *node == new { Primary::New } else { Primary::Old }))
            .collect(),
        b_granted_while_a_held_the_old_primary: a_held_old,
        dropped_at_demotion: dropped.map(letter),
        c_renewal_refused_after_demotion: events
            .iter()
            .any(|event| event.actor == C && event.t_us > demoted_us && event.kind == Kind::LostLock { why: Disbelief::RenewalRefused }),
    }
}

/// The model's side, as lines for the report: the lock service's and the
/// workers' view of the lock (each node's first refusal and first lost
/// request only), with the partition's start and end from the scenario.
fn model_timeline(scenario: &Scenario, trace: &Trace) -> Vec<String> {
    let mut lines: Vec<(u64, String)> = Vec::new();
    for fault in &scenario.faults {
        if let Fault::Partition { node, at_ms, for_ms, from: Some(from), .. } = fault {
            let (start_us, end_us) = (at_ms * 1000, (at_ms + for_ms) * 1000);
            lines.push((start_us, format!("{:>12}  {:<8} {node} cut off from {from} (partition)", format_us(start_us), "fault")));
            if end_us <= trace.events.last().map_or(0, |event| event.t_us) {
                lines.push((
                    end_us,
                    format!("{:>12}  {:<8} {node} and {from} in reach again (partition healed)", format_us(end_us), "fault"),
                ));
            }
        }
    }
    let mut first_seen: Vec<(Actor, &str)> = Vec::new();
    for event in &trace.events {
        let once = match event.kind {
            Kind::Denied { .. } => Some("denied"),
            Kind::Lost { .. } => Some("lost"),
            _ => None,
        };
        let shown = match once {
            Some(what) if first_seen.contains(&(event.actor, what)) => false,
            Some(what) => {
                first_seen.push((event.actor, what));
                true
            }
            None => matches!(
                event.kind,
                Kind::Granted { .. }
                    | Kind::TokenIssued { .. }
                    | Kind::Acquired { .. }
                    | Kind::Promoted { .. }
                    | Kind::Renewed { .. }
                    | Kind::Expired { .. }
                    | Kind::Deleted { .. }
                    | Kind::Demoted { .. }
                    | Kind::LostLock { .. }
            ),
        };
        if shown {
            lines.push((event.t_us, format!("{:>12}  {:<8} {}", format_us(event.t_us), event.actor.to_string(), trace.text(event))));
        }
    }
    // Stable: a fault's line comes before the events at its time.
    lines.sort_by_key(|(t_us, _)| *t_us);
    lines.into_iter().map(|(_, line)| line).collect()
}

/// Whose lock value this is: its worker's letter, or "no lock key".
fn whose(holder: Option<char>) -> String {
    holder.map_or("no lock key".to_string(), |holder| format!("{holder}'s key"))
}

#[test]
#[ignore = "needs a real primary, replica and Sentinel: scripts/fidelity-sentinel.sh starts them and runs this with --ignored"]
fn a_real_sentinel_split_brain_grants_one_token_on_two_primaries() {
    let scenario = story();
    let (l1, l2, sentinel_addr) =
        (addr("FENCING_LAB_SENTINEL_PRIMARY"), addr("FENCING_LAB_SENTINEL_REPLICA"), addr("FENCING_LAB_SENTINEL_ADDR"));
    let (cut_file, heal_file) = (env("FENCING_LAB_SENTINEL_CUT"), env("FENCING_LAB_SENTINEL_HEAL"));
    let b_host: IpAddr = env("FENCING_LAB_SENTINEL_B_HOST").parse().expect("FENCING_LAB_SENTINEL_B_HOST is an IP address");
    let prefix = format!("fencing-lab:sentinel:{}:", random_hex());
    let mut sentinel = connect(sentinel_addr).unwrap_or_else(|error| panic!("connect to Sentinel at {sentinel_addr}: {error}"));
    let version_of = |con: &mut redis::Connection| {
        let text: String = redis::cmd("INFO").arg("server").query(con).unwrap_or_default();
        text.lines().find_map(|line| line.strip_prefix("redis_version:")).unwrap_or("?").trim().to_string()
    };
    let sentinel_version = version_of(&mut sentinel);
    let server_version = version_of(&mut connect(l1).expect("connect to L1"));
    let mut lab = Lab {
        start: Instant::now(),
        lines: Vec::new(),
        sentinel,
        master_name: env("FENCING_LAB_SENTINEL_MASTER"),
        l1,
        l2,
        l1_con: None,
        b_host,
        lock: format!("{prefix}lock"),
        fence: format!("{prefix}fence"),
        times: Times::of(&scenario),
        cut_ms: None,
        heal_ms: None,
        promoted_ms: None,
        replica_ms: None,
        demoted_ms: None,
        renew: redis::Script::new(RENEW_LUA),
        cad: redis::Script::new(CAD_LUA),
        recorder: Recorder::new(
            support::provenance(
                format!(
                    "redis-server {server_version} (a primary and its replica) and redis-sentinel {sentinel_version}, sim/tests/redis_sentinel.rs"
                ),
                format!(
                    "scripts/fidelity-sentinel.sh: the redis-split-brain preset at half its times (leases of {} ms); L1 cut off from L2 \
                     and Sentinel by nftables, Sentinel promotes L2, B granted there and C on L1 with the same token, the heal, L1 \
                     made a replica of L2 and C's key dropped; the lease holders as each worker's SET NX, renewal (PEXPIRE if mine) \
                     and release (DEL if mine) were answered; no store (fencing off: nothing written)",
                    scenario.ttl_ms / SCALE
                ),
            ),
            false,
        ),
    };

    // The model's run this one is held to: the preset at its own times (the
    // real run takes them halved, SCALE; the header's notes say so), its
    // workers running their jobs once, as this check's do (the model's job
    // runner would retry C's job after its key is dropped).
    let held = Scenario { job_retries_max: 0, ..scenario.clone() };
    assert!(lab.recorder.held_to(&held), "the redis-split-brain preset's link reads back as the preset");

    // Sentinel's down-after time is the model's failover time at this scale.
    let fields: Vec<String> = redis::cmd("SENTINEL").arg("master").arg(&lab.master_name).query(&mut lab.sentinel).expect("SENTINEL master");
    let down_after_ms = fields.iter().position(|name| name == "down-after-milliseconds").and_then(|at| fields.get(at + 1));
    assert_eq!(
        down_after_ms.and_then(|ms| ms.parse::<u64>().ok()),
        Some(lab.times.down_after_ms),
        "Sentinel's down-after-milliseconds must be the model's failover_ms / {SCALE} (see {SCRIPT})"
    );
    assert_eq!(lab.master(), l1, "Sentinel names L1 the primary at the start");

    // 1. The counter at first_token − 1 on both, the replica in sync.
    let mut setup = connect(l1).expect("connect to L1");
    let mut on_l2 = connect(l2).expect("connect to L2");
    redis::cmd("SET").arg(&lab.fence).arg(scenario.first_token - 1).exec(&mut setup).expect("SET fence");
    let acked: i64 = redis::cmd("WAIT").arg(1).arg(WAIT_MS).query(&mut setup).expect("WAIT");
    let on_replica: Option<u64> = redis::cmd("GET").arg(&lab.fence).query(&mut on_l2).expect("GET fence");
    assert_eq!((acked, on_replica), (1, Some(scenario.first_token - 1)), "the replica is not in sync");
    drop(setup);
    lab.start = Instant::now();
    let start = lab.start;
    lab.note("lab", format!("counter at {} on L1 ({l1}) and on its replica L2 ({l2}) (WAIT 1: {acked})", scenario.first_token - 1));

    // 2. A takes the lock and its token on L1; both writes reach L2.
    let mut a = Worker::new('A', Duration::ZERO, start);
    let mut b = Worker::new('B', lab.times.b_starts, start);
    let mut c = Worker::new('C', lab.times.c_starts, start);
    lab.try_acquire(&mut a);
    assert_eq!(a.grant.as_ref().map(|grant| grant.on), Some(l1), "A's SET NX on a fresh L1");
    let acked: i64 = redis::cmd("WAIT").arg(1).arg(WAIT_MS).query(&mut a.con.as_mut().expect("A's connection").1).expect("WAIT");
    let l2_lock: Option<String> = redis::cmd("GET").arg(&lab.lock).query(&mut on_l2).expect("GET lock on L2");
    let l2_fence: Option<u64> = redis::cmd("GET").arg(&lab.fence).query(&mut on_l2).expect("GET fence on L2");
    drop(on_l2);
    assert!(
        acked == 1 && l2_lock.as_deref() == Some(a.value.as_str()) && l2_fence == Some(scenario.first_token),
        "A's writes did not reach the replica: WAIT {acked}, lock {l2_lock:?}, fence {l2_fence:?}"
    );
    lab.note("A", format!("WAIT 1 on L1: {acked}; on L2 the lock key is A's and the fence {}", scenario.first_token));
    let a_releases_at = start + lab.times.a_works;

    // 3. The rest, step by step: the cut and the heal at their times, the
    // promotion and the demotion when Sentinel makes them, the workers'
    // tries, renewals and releases when they are due.
    let mut showed_l1_alone = false;
    let mut a_held_old_at_b = false;
    let mut l1_before_heal = None;
    let mut l1_after_demotion = None;
    let mut c_refused_after_demotion = false;
    loop {
        let now = Instant::now();
        if lab.cut_ms.is_none() && now >= start + lab.times.cut {
            lab.nft("L1 cut off from L2 and Sentinel", &cut_file);
            lab.cut_ms = Some(lab.now_ms());
        }
        if lab.heal_ms.is_none() && now >= start + lab.times.heal {
            // The partition (10 s) is the bound on the promotion: down-after
            // (1 s) and SENTINEL_OWN are a third of it; a Sentinel that has
            // not promoted L2 by the heal never will in this story.
            if lab.promoted_ms.is_none() {
                lab.fail("Sentinel did not promote L2 during the partition".to_string());
            }
            l1_before_heal = lab.l1_lock();
            lab.nft("the partition heals", &heal_file);
            lab.heal_ms = Some(lab.now_ms());
        }
        if lab.cut_ms.is_some() && lab.promoted_ms.is_none() {
            lab.master();
        }
        if let (Some(heal_ms), None) = (lab.heal_ms, lab.demoted_ms) {
            if lab.l1_replica_of_l2("after the heal") == Some(true) {
                let after_s = (lab.now_ms() - heal_ms) / 1000.0;
                let t_ms = lab.note(
                    "Sentinel",
                    format!(
                        "has made L1 a replica of L2 (INFO: role slave of {l2}, link up), {after_s:.1} s after the heal; \
                         meanwhile both primaries went on: B renewed on L2 {} times, C on L1 {} times",
                        b.quiet_renewals, c.quiet_renewals
                    ),
                );
                lab.demoted_ms = Some(t_ms);
                l1_after_demotion = lab.l1_lock();
                let fence = lab.fence.clone();
                let l1_fence = lab.l1_get(&fence);
                lab.note(
                    "lab",
                    format!(
                        "L1's lock key: {} before the heal, {} now (L2's data); L1's fence: {}",
                        whose(l1_before_heal),
                        whose(l1_after_demotion),
                        l1_fence.as_deref().unwrap_or("nil")
                    ),
                );
            } else if now >= start + lab.times.heal + DEMOTION_MAX {
                lab.fail(format!("Sentinel did not make L1 a replica of L2 within {} s of the heal", DEMOTION_MAX.as_secs()));
            }
        }

        // A renews on L1 until its work is done, then releases.
        if a.holds() && now >= a_releases_at {
            lab.release(&mut a);
        } else if a.holds() && now >= a.next_renewal {
            lab.renew(&mut a);
            if lab.cut_ms.is_some() && !showed_l1_alone {
                // The proof that L1 is cut off from its replica, as in
                // redis_failover.rs: no timing in it, 100 ms keeps it short.
                showed_l1_alone = true;
                let acked: i64 = redis::cmd("WAIT").arg(1).arg(100).query(&mut a.con.as_mut().expect("A's connection").1).expect("WAIT");
                lab.note("A", format!("WAIT 1 100 on L1: {acked} replicas have A's renewal"));
            }
        }
        // B and C ask until granted, then renew.
        for worker in [&mut b, &mut c] {
            if worker.grant.is_none() && now >= start + worker.starts && now >= worker.next_try {
                lab.try_acquire(worker);
                if worker.name == 'B' && worker.grant.is_some() {
                    a_held_old_at_b = a.holds() && lab.l1_lock() == Some('A');
                    let state = if a_held_old_at_b { "A's: A still holds the lock there" } else { "not A's" };
                    lab.note("lab", format!("L1's lock key at B's grant: {state}"));
                }
            } else if worker.holds() && now >= worker.next_renewal && lab.renew(worker) == 0 {
                worker.done = true;
                // After the demotion in the servers' order, not the lab's:
                // L1 had answered as a replica of L2 before this refusal
                // (the lab's look, or the look `renew` takes when the
                // demotion closes the worker's connection, before it
                // retries on the primary Sentinel names). When the lab
                // itself notices is a matter of polling: C's renewal may
                // come between Sentinel's REPLICAOF and the end of L1's
                // sync, and is refused there all the same.
                c_refused_after_demotion |= worker.name == 'C' && lab.replica_ms.is_some();
            }
        }
        // The model's C learns it lost the lock at its first renewal after
        // the demotion; the run ends there.
        if lab.demoted_ms.is_some() && c.done {
            break;
        }
        if b.done && c.done {
            lab.fail("B and C both lost the lock before the demotion".to_string());
        }
        std::thread::sleep(RETRY);
    }
    // B's work (halved) would end before the real Sentinel's demotion,
    // which comes seconds after the heal where the model's comes at once:
    // B holds the lock until after it, so the steps keep the model's order.
    if b.holds() {
        lab.release(&mut b);
    }
    let mut cleanup = connect(l2).expect("connect to L2");
    redis::cmd("DEL").arg(&lab.lock).arg(&lab.fence).exec(&mut cleanup).expect("DEL the run's keys");

    let (promoted_ms, demoted_ms) = (lab.promoted_ms.expect("promoted"), lab.demoted_ms.expect("demoted"));
    // The old primary's lock key, dropped when Sentinel made it a replica.
    if let Some(holder) = l1_before_heal.filter(|holder| Some(*holder) != l1_after_demotion) {
        lab.recorder.expiry(worker_of(holder), support::us(demoted_ms));
    }
    let mut grants: Vec<(f64, char, SocketAddr, u64)> = [&a, &b, &c]
        .into_iter()
        .filter_map(|worker| worker.grant.as_ref().map(|grant| (grant.t_ms, worker.name, grant.on, grant.token)))
        .collect();
    grants.sort_by(|x, y| x.0.total_cmp(&y.0));
    let real = Facts {
        tokens: grants.iter().map(|(_, name, _, token)| (*name, *token)).collect(),
        b_refused_by_a_replicated_key: b.first_refusal == Some((l2, Some('A'))),
        granted_between_promotion_and_demotion: grants
            .iter()
            .filter(|(t_ms, ..)| (promoted_ms..demoted_ms).contains(t_ms))
            .map(|(_, name, on, _)| (*name, if *on == l2 { Primary::New } else { Primary::Old }))
            .collect(),
        b_granted_while_a_held_the_old_primary: a_held_old_at_b,
        dropped_at_demotion: l1_before_heal.filter(|holder| Some(*holder) != l1_after_demotion),
        c_renewal_refused_after_demotion: c_refused_after_demotion,
    };

    let model = run(&scenario).expect("the preset runs");
    let model_facts = model_facts(&model);
    lab.print_timeline();
    println!(
        "\nmodel, preset {} (seed {}), at the model's times (the real run halves them), the lock service's side:",
        scenario.preset, scenario.seed
    );
    for line in model_timeline(&scenario, &model) {
        println!("{line}");
    }
    let tokens = |facts: &Facts| facts.tokens.iter().map(|(who, token)| format!("{who}:{token}")).collect::<Vec<_>>().join(" ");
    let grants = |facts: &Facts| {
        let primary = |primary: &Primary| if *primary == Primary::New { "new" } else { "old" };
        facts
            .granted_between_promotion_and_demotion
            .iter()
            .map(|(who, on)| format!("{who} on {}", primary(on)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let dropped = |facts: &Facts| facts.dropped_at_demotion.map_or("nothing".to_string(), |holder| format!("{holder}'s lock"));
    let model_us = |what: fn(&Kind) -> bool| model.events.iter().find(|event| what(&event.kind)).map_or(0, |event| event.t_us);
    let (model_promoted_us, model_demoted_us) =
        (model_us(|kind| matches!(kind, Kind::Promoted { .. })), model_us(|kind| matches!(kind, Kind::Demoted { .. })));
    let (cut_ms, heal_ms) = (lab.cut_ms.expect("cut"), lab.heal_ms.expect("healed"));
    // The model's durations at the real run's scale.
    let model_s = |from_ms: f64, to_us: u64| (to_us as f64 / 1000.0 - from_ms) / 1000.0 / SCALE as f64;
    let (model_cut_ms, model_heal_ms) = (lab.times.cut.as_millis() as f64 * SCALE as f64, lab.times.heal.as_millis() as f64 * SCALE as f64);
    println!("\n{:<62} {:<26} model", "", "real");
    println!("{:<62} {:<26} {}", "tokens drawn", tokens(&real), tokens(&model_facts));
    println!(
        "{:<62} {:<26} {}",
        "A's key replicated: the new primary refused B first",
        real.b_refused_by_a_replicated_key,
        model_facts.b_refused_by_a_replicated_key
    );
    println!("{:<62} {:<26} {}", "granted between the promotion and the demotion", grants(&real), grants(&model_facts));
    println!(
        "{:<62} {:<26} {}",
        "B granted while A still held the lock on the old primary",
        real.b_granted_while_a_held_the_old_primary,
        model_facts.b_granted_while_a_held_the_old_primary
    );
    println!("{:<62} {:<26} {}", "the old primary's key dropped at the demotion", dropped(&real), dropped(&model_facts));
    println!(
        "{:<62} {:<26} {}",
        "C's renewal after the demotion refused", real.c_renewal_refused_after_demotion, model_facts.c_renewal_refused_after_demotion
    );
    let durations = [
        ("promotion after the cut (halved for the model; not compared)", promoted_ms - cut_ms, model_s(model_cut_ms, model_promoted_us)),
        ("demotion after the heal (halved for the model; not compared)", demoted_ms - heal_ms, model_s(model_heal_ms, model_demoted_us)),
    ];
    for (what, real_ms, model_s) in durations {
        println!("{what:<62} {:<26} {model_s:.1} s", format!("{:.1} s", real_ms / 1000.0));
    }
    assert_eq!(real, model_facts, "the real split brain and the model's differ");
    assert_eq!(
        real.tokens,
        vec![('A', scenario.first_token), ('B', scenario.first_token + 1), ('C', scenario.first_token + 1)],
        "one token on two primaries"
    );
    println!(
        "agree: two primaries granted the lock with the same token ({}) until Sentinel demoted the old one, as the model says",
        scenario.first_token + 1
    );
    let recording = lab.recorder.clone().finish().expect("a short run");
    support::record_or_compare("redis-split-brain.jsonl", &recording);
}

/// The offline half: the model's split brain has the facts the real check
/// compares, so a change in the model that loses them fails here first.
#[test]
fn the_models_split_brain_grants_one_token_on_two_primaries_until_the_demotion() {
    let scenario = story();
    let facts = model_facts(&run(&scenario).unwrap());
    let (first, next) = (scenario.first_token, scenario.first_token + 1);
    assert_eq!(
        facts,
        Facts {
            tokens: vec![('A', first), ('B', next), ('C', next)],
            b_refused_by_a_replicated_key: true,
            granted_between_promotion_and_demotion: vec![('B', Primary::New), ('C', Primary::Old)],
            b_granted_while_a_held_the_old_primary: true,
            dropped_at_demotion: Some('C'),
            c_renewal_refused_after_demotion: true,
        }
    );
    // The real run's times are the model's halved: its steps must come in
    // the model's order at that scale, Sentinel's own time included.
    let times = Times::of(&scenario);
    let (down_after, ttl) = (Duration::from_millis(times.down_after_ms), Duration::from_millis(times.ttl_ms));
    assert!(times.c_starts < times.cut + down_after, "C asks before any promotion, so Sentinel names it L1, as the model's C asks L1");
    assert!(times.cut + down_after + SENTINEL_OWN < ttl, "the promotion comes before A's copy on L2 runs out (A took it at 0)");
    assert!(ttl < times.a_works, "B's grant (when A's copy runs out) comes before A's release on L1");
    assert!(times.a_works + times.renew_every < times.heal, "C is granted and renews on L1 before the heal");
}
