//! The sentence each event says, rendered from its typed fields: the page
//! narrates these, the command line prints them. Nothing reads them back.

use crate::actor::Actor;
use crate::event::{AcquireFailure, Disbelief, Finish, Kind, Loss, NodeRole};
use crate::format_us;
use crate::scenario::{LockService, Scenario, REDLOCK_NODES, REDLOCK_QUORUM};
use crate::services::Family;

/// The sentence for one event (`t_us` is when it happened).
pub fn narrate(actor: Actor, kind: &Kind, token: Option<u64>, t_us: u64, scenario: &Scenario) -> String {
    let service = scenario.lock_service;
    let words = service.spec().words;
    match *kind {
        Kind::Send { to, body, held_us: 0, .. } => format!("{actor} sent {} to {to}", service.label_of(&body)),
        Kind::Send { to, body, held_us, .. } => {
            format!("{actor} sent {} to {to}; the network holds the packet for {}", service.label_of(&body), format_us(held_us))
        }
        Kind::Receive { from, body, .. } => format!("{actor} received {} from {from}", service.label_of(&body)),
        Kind::Lost { to, body, loss, .. } => lost(to, &service.label_of(&body), loss),
        Kind::Granted { holder, expires_at_us } => granted(actor, holder, token, expires_at_us, service),
        Kind::Denied { holder } => format!("{actor} refused the lock: {holder} holds it"),
        Kind::Waits { waiter, holder } => {
            let (key, number) = (words.key, words.number);
            format!("{actor}: {waiter}'s {key} ({number} {}) waits behind {holder}'s", service.token_words(token.unwrap_or(0)))
        }
        Kind::Renewed { holder, expires_at_us } if service.is_consensus() => {
            format!("{actor} kept {holder}'s {} alive until {}", words.lease, format_us(expires_at_us))
        }
        Kind::Renewed { holder, expires_at_us } => format!("{actor} extended {holder}'s lease until {}", format_us(expires_at_us)),
        Kind::LeaseClamped { holder, ttl_ms, asked_ms } => {
            let bound = if ttl_ms > asked_ms { "shorter" } else { "longer" };
            format!("{actor}: no {} is {bound} than {ttl_ms} ms, so {holder} gets {ttl_ms} ms, not {asked_ms}", words.lease)
        }
        Kind::LeaseLost { holder } => match service.family() {
            Family::RedisFailover => format!("{holder}'s lease did not survive the failover: the lock is free"),
            Family::SingleRedis | Family::Redlock | Family::Consensus | Family::None => {
                format!("{holder}'s lease vanished with {actor}'s memory: the lock is free")
            }
        },
        Kind::Voted { holder } => format!("{actor} set {holder}'s key: one vote of the {REDLOCK_QUORUM} {holder} needs"),
        Kind::Unvoted { holder } => format!("{actor} no longer has {holder}'s key: one vote fewer"),
        Kind::NodeDown { restores_from_us: Some(at_us), .. } => format!(
            "{actor} crashed; it will come back with its last RDB snapshot, taken at {}: the lock and the counter as they were then",
            format_us(at_us)
        ),
        Kind::NodeDown { persists: true, .. } if scenario.redis_persistence == crate::RedisPersistence::AofEverysec => format!(
            "{actor} crashed; every write it acknowledged is in its append-only file (fsync'd each second, but the machine is up and its kernel has the rest)"
        ),
        Kind::NodeDown { persists: true, .. } if service.is_consensus() => {
            format!("{actor} crashed; its log is on disk, and the other members still have every committed change")
        }
        Kind::NodeDown { persists: true, .. } => format!("{actor} crashed; its keys and counter are safe in its fsync'd append-only file"),
        Kind::NodeDown { persists: false, .. } => format!("{actor} crashed: everything it held in memory is gone"),
        Kind::NodeUp { role } => node_up(actor, role),
        Kind::Promoted { kept: Some(holder) } => format!("{actor} was promoted to primary; it had {holder}'s lock from replication"),
        Kind::Promoted { kept: None } => format!("{actor} was promoted to primary; it never saw the old primary's last writes"),
        Kind::Elected { term } => elected(actor, term, service),
        Kind::SteppedDown => stepped_down(actor, scenario),
        Kind::Healed { .. } => format!("{actor} is in the leader's reach again and catches up on what was committed without it"),
        Kind::Demoted { dropped: None } => {
            format!("Sentinel sees {actor} again and makes it a replica of the new primary: it drops its own data for the new primary's")
        }
        Kind::Demoted { dropped: Some(holder) } => format!(
            "Sentinel sees {actor} again and makes it a replica of the new primary: it drops its own data, and {holder}'s lock with it"
        ),
        Kind::ClockJumped { jump_ms } => {
            let direction = if jump_ms >= 0 { "ahead" } else { "back" };
            format!("{actor}'s clock jumped {direction} {}", format_us(jump_ms.unsigned_abs() * 1000))
        }
        Kind::Expired { holder, revision } => expired(actor, holder, revision, t_us, service),
        Kind::Deleted { holder, by, revision } => deleted(actor, holder, by, revision, service),
        Kind::Queued { revision } => {
            format!("{actor} waits for its turn ({} {} {})", words.key, words.number, service.token_words(revision))
        }
        Kind::AcquireFailed { attempt, failure } => {
            format!("{actor} did not get the lock (attempt {attempt}): {}", failure_words(failure, words.lease))
        }
        Kind::GaveUp { attempts: None } => format!("{actor}'s {} expired while it waited: it gives up", words.lease),
        Kind::LostLock { why } => format!("{actor} stops believing it holds the lock: {}", disbelief_words(why, words.lease)),
        Kind::TokenIssued { to } => format!("{actor} counted the fencing token up to {} for {to}", service.token_words(token.unwrap_or(0))),
        Kind::WriteAccepted { writer, zombie, stale_overwrite, replaced, .. } => {
            let of_token = of_token(token, service);
            match replaced {
                Some(old) if stale_overwrite => {
                    format!("Store accepted {writer}'s stale write{of_token}: it overwrote {}'s newer data", old.writer)
                }
                _ if zombie => format!("Store accepted {writer}'s write{of_token}, though {writer} no longer holds the lock"),
                _ => format!("Store accepted {writer}'s write{of_token}"),
            }
        }
        Kind::WriteRejected { writer, refusal, rightful: true, .. } => {
            format!("Store rejected {writer}'s write: {} — yet {writer} holds the lock last", service.refusal_words(refusal))
        }
        Kind::WriteRejected { writer, refusal, .. } => format!("Store rejected {writer}'s write: {}", service.refusal_words(refusal)),
        Kind::Truncated { events_max } => format!("The run stopped after {events_max} events, its bound"),
        Kind::ParentRemoved => format!(
            "{actor}'s container check found the lock's parent znode empty and deleted it: the next lock recreates it, and its sequence numbers start again at 0"
        ),
        // A lock worker's job runner retries a job whose result did not
        // land (`worker::JOB_RETRIES_MAX`).
        Kind::Retry => match service.family() {
            Family::SingleRedis | Family::RedisFailover | Family::Redlock | Family::Consensus => format!(
                "{actor}'s job did not land, so its job runner retries it: {actor} asks for the lock again and will redo the work"
            ),
            // No lock to ask for again: the worker's own words.
            Family::None => worker_sentence(actor, kind, token.map(|token| service.token_words(token)), t_us),
        },
        _ => worker_sentence(actor, kind, token.map(|token| service.token_words(token)), t_us),
    }
}

/// What a worker notes about itself.
/// `token`: the event's token as the service's sentences name it.
fn worker_sentence(actor: Actor, kind: &Kind, token: Option<String>, t_us: u64) -> String {
    match *kind {
        Kind::Start => format!("{actor} starts and asks for the lock"),
        // A worker's clock is the simulation's: a lease that ran out while the
        // worker was frozen between its SET and its INCR is over already.
        Kind::Acquired { valid_until_us } if valid_until_us <= t_us => match token {
            Some(token) => format!(
                "{actor} gets token {token} and goes on as the holder, though its lease ran out at {} by its own clock",
                format_us(valid_until_us)
            ),
            None => format!("{actor} goes on as the holder, though its validity ran out at {}", format_us(valid_until_us)),
        },
        Kind::Acquired { valid_until_us } => match token {
            Some(token) => format!("{actor} holds the lock with token {token}, until {} by its own clock", format_us(valid_until_us)),
            None => format!(
                "{actor} holds the lock for {} by its own clock; Redlock gives no token",
                format_us(valid_until_us.saturating_sub(t_us))
            ),
        },
        Kind::Backoff { delay_us } => format!("{actor} backs off for {} before trying again", format_us(delay_us)),
        Kind::GaveUp { attempts: Some(attempts) } => format!("{actor} gives up after {attempts} attempts"),
        Kind::Released => format!("{actor} finished its work and releases the lock"),
        Kind::Timeout { waited_ms } => format!("{actor}'s write got no answer within {waited_ms} ms"),
        Kind::ReadVersion { version } => format!("{actor} read the data at version {version} and works on it"),
        Kind::Retry => format!("{actor} re-reads and redoes its work on the newer data"),
        Kind::PauseBegan { until_us } => format!(
            "{actor} froze in a stop-the-world pause of {}: no thread of it runs, timers included",
            format_us(until_us.saturating_sub(t_us))
        ),
        Kind::PauseEnded => {
            format!("{actor} resumed where it stopped: it could see afterwards that time passed, but nothing told it in time")
        }
        Kind::Crashed => format!("{actor} crashed without releasing: only the lease's expiry can free the lock"),
        Kind::Finished { how } => finish_words(actor, how),
        _ => unreachable!("every other kind is narrated above"),
    }
}

fn of_token(token: Option<u64>, service: LockService) -> String {
    token.map_or_else(String::new, |token| format!(" (token {})", service.token_words(token)))
}

fn lost(to: Actor, label: &str, loss: Loss) -> String {
    match loss {
        Loss::Network => format!("{label} to {to} was lost in the network"),
        Loss::Partition(end) => format!("{label} never reached {to}: {end} was cut off by a partition"),
        Loss::NodeDown(node) => format!("{label} never reached {to}: {node} is down"),
        Loss::NoQuorum(node) => format!("{label} reached {node}, which cannot commit it: no leader with a majority"),
        Loss::Crashed(worker) => format!("{label} reached {worker}, which has crashed: nobody reads it"),
    }
}

fn granted(actor: Actor, holder: Actor, token: Option<u64>, expires_at_us: u64, service: LockService) -> String {
    let words = service.spec().words;
    match service.family() {
        Family::Redlock => format!("{holder} now holds {REDLOCK_QUORUM} of {REDLOCK_NODES} masters: the lock is {holder}'s"),
        Family::Consensus => {
            let (key, number) = (words.key, words.number);
            format!("{actor}: {holder}'s {key} ({number} {}) is first, {holder} holds the lock", service.token_words(token.unwrap_or(0)))
        }
        Family::SingleRedis | Family::RedisFailover | Family::None => {
            format!("{actor} granted the lock to {holder} until {}", format_us(expires_at_us))
        }
    }
}

/// A cut-off leader steps down when the others elect a new one: after
/// each service's own timers (`SessionRules::leader_loss`: etcd's election
/// timeout, ZooKeeper's syncLimit ticks, Consul's scaled heartbeat timeout).
fn stepped_down(actor: Actor, scenario: &Scenario) -> String {
    let how_long = match scenario.lock_service.spec().session {
        Some(rules) => rules.leader_loss.words(scenario.failover_ms),
        None => "an election timeout".to_string(),
    };
    format!("{actor} has not reached a majority of the members for {how_long} and steps down: it commits nothing more")
}

fn elected(actor: Actor, term: u32, service: LockService) -> String {
    let extends = service.spec().session.is_some_and(|rules| rules.election_extends);
    let lease = service.spec().words.lease;
    let given = if extends { "an election timeout plus a full TTL" } else { "a full timeout" };
    format!("{actor} was elected leader (term {term}) and gave every {lease} {given} from now: no {lease} is lost")
}

/// `t_us` is when it happened: a lock-delay runs from then.
fn expired(actor: Actor, holder: Actor, revision: Option<u64>, t_us: u64, service: LockService) -> String {
    let words = service.spec().words;
    let expired_key = match service.family() {
        Family::Redlock => return format!("{holder} no longer holds a majority of masters: the lock is free"),
        Family::SingleRedis | Family::RedisFailover | Family::Consensus | Family::None => revision,
    };
    match expired_key {
        Some(revision) => {
            let (lease, revoker, dropped, counter) = (words.lease, words.revoker, words.dropped, words.counter);
            let delay_ms = service.spec().session.map_or(0, |rules| rules.lock_delay_ms);
            let delayed = match delay_ms {
                0 => String::new(),
                _ => format!(
                    "; its lock-delay of {} keeps everyone out until {}",
                    format_us(delay_ms * 1000),
                    format_us(t_us + delay_ms * 1000)
                ),
            };
            let revision = service.token_words(revision);
            format!("{actor}: {holder}'s {lease} ran out; {revoker} revoked it and {dropped} ({counter} {revision}){delayed}")
        }
        None => format!("{actor}: {holder}'s lease expired, the lock is free"),
    }
}

fn deleted(actor: Actor, holder: Actor, by: Actor, revision: Option<u64>, service: LockService) -> String {
    let deleted_key = match service.family() {
        Family::Redlock if by == holder => return format!("{holder} released its masters: the lock is free"),
        Family::Redlock => return format!("{by}'s plain DEL broke {holder}'s majority: the lock is free while {holder} still works"),
        Family::SingleRedis | Family::RedisFailover | Family::Consensus | Family::None => revision,
    };
    match deleted_key {
        Some(revision) => format!("{actor}: {by} released the lock ({} {})", service.spec().words.counter, service.token_words(revision)),
        None if by == holder => format!("{by} released the lock"),
        None => format!("{by}'s plain DEL deleted {holder}'s lock: the lock is free while {holder} still works"),
    }
}

fn node_up(actor: Actor, role: NodeRole) -> String {
    match role {
        NodeRole::Serving => format!("{actor} is back and answers again"),
        NodeRole::Replica => format!("{actor} is back as a replica nobody asks"),
        NodeRole::Follower => format!("{actor} is back as a follower and catches up from the leader"),
    }
}

fn failure_words(failure: AcquireFailure, lease: &str) -> String {
    match failure {
        AcquireFailure::Taken => "someone holds it".to_string(),
        AcquireFailure::NoAnswer { waited_ms } => format!("no answer within {waited_ms} ms"),
        AcquireFailure::LeaseGone => format!("its {lease} was gone"),
        AcquireFailure::LockDelay => "nobody holds it, but a lock-delay is in effect".to_string(),
        AcquireFailure::Minority { yes } => format!("only {yes} of {REDLOCK_NODES} masters agreed in time"),
    }
}

fn disbelief_words(why: Disbelief, lease: &str) -> String {
    match why {
        Disbelief::CheckSaysNo => "its lease check says the lock is no longer its own: it skips the write".to_string(),
        Disbelief::CheckNoAnswer => "its lease check got no answer: it skips the write".to_string(),
        Disbelief::RenewalRefused => format!("its renewal was refused: the {lease} had already expired"),
        Disbelief::StoreRefused => "the store refused its write: someone newer holds the lock".to_string(),
        Disbelief::ValidityOver => "its validity time has run out by its own clock: it skips the write".to_string(),
    }
}

fn finish_words(actor: Actor, how: Finish) -> String {
    match how {
        Finish::Released => format!("{actor} is done: the lock was released"),
        Finish::NothingToRelease => format!("{actor} is done: the lock was no longer its own, so it deleted nothing"),
        Finish::ReleaseSentToAll => {
            format!("{actor} is done: its release went to every master, and each deleted its key only where the key was still {actor}'s")
        }
        Finish::ReleaseNoAnswer => format!("{actor}'s release got no answer; it is done"),
        Finish::ConditionalWriteLanded => format!("{actor} is done: its conditional write landed"),
    }
}
