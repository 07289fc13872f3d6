//! The replay of a story on the real etcd, step by step at the model's speed.

use super::client::{b64, Etcd};
use super::shadow::{Revoked, Shadow};
use super::steps::{steps, Command, Reply, Step};
use super::support::{self, letter};
use super::{expiry_bound, ms, ms_between, note_lateness, random_u32, POLL_MS};
use fencing_sim::{Actor, Kind, Scenario, Trace};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A real lease standing in for one of the model's.
#[derive(Clone, Debug)]
pub struct RealLease {
    pub id: i64,
    pub ttl: Duration,
    pub key: Option<String>,
    /// Around the latest grant or keep-alive that etcd accepted: the lease
    /// ends between `sent + ttl` and `replied + ttl`.
    pub sent: Instant,
    pub replied: Instant,
    /// Released by its worker: its key going is no expiry.
    pub released: bool,
    /// The last poll that still saw the key, and the first that did not.
    pub last_seen: Option<Instant>,
    pub gone: Option<Instant>,
}

impl RealLease {
    pub fn watched(&self, now: Instant) -> bool {
        self.key.is_some() && !self.released && self.gone.is_none() && now >= self.sent + self.ttl
    }
}

/// A key's create revision: the token its worker fences with.
#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub worker: u8,
    pub model: u64,
    pub real: u64,
}

/// How late a lease's key went after the lease ran out.
#[derive(Clone, Copy, Debug)]
pub struct Expiry {
    pub worker: u8,
    pub model_late_ms: i64,
    /// At most this late: measured from the latest keep-alive's reply.
    pub real_late_ms: i64,
}

/// What one story's replay found.
pub struct Replayed {
    pub failures: Vec<String>,
    /// Each put's create revision, in order.
    pub tokens: Vec<Token>,
    pub expiries: Vec<Expiry>,
}

pub struct Replay<'a> {
    pub etcd: &'a Etcd,
    pub what: String,
    pub prefix: String,
    /// Real revision = model revision + offset.
    pub offset: i64,
    pub shadow: Shadow,
    pub real_leases: HashMap<u64, RealLease>,
    pub start: Instant,
    /// How much later than the model the story runs, after real ticks that
    /// came later than the model's.
    pub shift: Duration,
    pub next_poll: Instant,
    /// Each put's create revision, model and real, in order.
    pub tokens: Vec<Token>,
    pub real_grants: Vec<u8>,
    pub expiries: Vec<Expiry>,
    pub identical: u32,
    pub tolerated: Vec<String>,
    pub failures: Vec<String>,
    pub late_ms_max: i64,
}

impl Replay<'_> {
    pub fn at(&self, t_us: u64) -> Instant {
        self.start + self.shift + Duration::from_micros(t_us)
    }

    pub fn key_of(&self, id: i64) -> String {
        format!("{}/{id:x}", self.prefix)
    }

    pub fn real(&self, lease: u64) -> &RealLease {
        self.real_leases.get(&lease).unwrap_or_else(|| panic!("{}: model lease {lease:x} was never granted", self.what))
    }

    /// Polls, every `POLL_MS`, the keys whose leases have run out.
    pub fn poll(&mut self) {
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
    pub fn wait_until(&mut self, target: Instant) {
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
    pub fn revoked(&mut self, revoked: &Revoked) {
        let worker = revoked.lease.worker;
        let model_late_ms = ((revoked.tick_us - revoked.lease.expires_us) / 1000) as i64;
        let lease = self.real(revoked.lease.id).clone();
        if lease.key.is_none() || lease.released {
            return;
        }
        let deadline = lease.replied + expiry_bound(lease.ttl);
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
        note_lateness(&format!("{}: {who}'s lease", self.what), real_late_ms);
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

    pub fn execute(&mut self, from: u8, command: &Command, model: &Reply) -> Reply {
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
                let ttl_s = self
                    .etcd
                    .keep_alive(id)
                    .unwrap_or_else(|refused| panic!("{}: keep-alive: {} {}", self.what, refused.status, refused.message));
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

    pub fn command(&mut self, step: &Step) {
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

    pub fn ready(&mut self, step: &Step) {
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
pub fn replay(etcd: &Etcd, what: &str, scenario: &Scenario, trace: &Trace) -> Replayed {
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
    let names = support::names;
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
    support::check_grants(what, "etcd", &replay.real_grants, &model_grants, !replay.tolerated.is_empty(), &mut replay.failures);
    // Leave nothing behind: revoke what is left (its keys go with it).
    for lease in replay.real_leases.values() {
        let _ = etcd.revoke(lease.id);
    }
    Replayed { failures: replay.failures, tokens: replay.tokens, expiries: replay.expiries }
}
