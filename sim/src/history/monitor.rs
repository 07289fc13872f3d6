//! A history from two real logs: `redis-cli MONITOR` output for the lock,
//! and a store's log of its decisions.
//!
//! MONITOR prints every command the server runs, one line each:
//! `1733400000.123456 [0 127.0.0.1:52000] "SET" "lock" "A:33" "NX" "PX" "10000"`
//! — Unix seconds with microseconds, the database and the client's address
//! (`lua` for a command a script ran), then each argument quoted, with `\"`,
//! `\\`, `\n`, `\r`, `\t`, `\a`, `\b` and `\xHH` escapes. The format is
//! documented at https://redis.io/docs/latest/commands/monitor/ and written
//! by `replicationFeedMonitors` in Redis's src/replication.c (the escapes
//! are `sdscatrepr`'s, src/sds.c).
//!
//! MONITOR shows commands, never replies: whether a `SET … NX` took the lock
//! is not printed. The converter replays the lock key itself (set if absent
//! or past its deadline, renewed by `PEXPIRE`/`EXPIRE`, deleted by `DEL`),
//! and reads who holds it and under which token from the lock's value,
//! written `<worker>:<token>` (or `<worker>` with no token), the convention
//! `docs/histories.md` asks the lock's clients to follow.
//!
//! The store's log has one decision a line: `<unix seconds.micros> <writer>
//! <token or -> accepted|refused`. It gives one time, the decision's; the
//! write's send is taken to be the same moment.

use super::{Entry, History, HistoryError, Line, Provenance, ReleaseHow, RECORDS_MAX};
use crate::actor::Actor;
use std::collections::HashMap;

/// What the converter needs besides the two logs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The lock's key (`lock` in the lab's stories).
    pub lock_key: String,
    /// Whether the store refuses a lower token: the logs cannot say.
    pub fencing: bool,
    /// Where the logs came from ("redis-server 7.0.15 on …").
    pub source: String,
}

/// One MONITOR line, read: when, which client, and the arguments.
struct Command {
    t_us: u64,
    /// `lua` for a command a script ran.
    client: String,
    args: Vec<String>,
}

/// The lock key as the server holds it: whose, which token, until when.
#[derive(Clone, Copy)]
struct Held {
    holder: Actor,
    deadline_us: u64,
}

/// The history the two logs tell, or every line that could not be read.
pub fn convert(monitor: &str, store_log: &str, options: &Options) -> Result<History, HistoryError> {
    let mut problems = Vec::new();
    let commands: Vec<(u32, Command)> = numbered(monitor)
        .filter_map(|(line, text)| {
            read_command(text)
                .map_err(|problem| problems.push(format!("MONITOR line {line}: {problem}")))
                .ok()
                .flatten()
                .map(|command| (line, command))
        })
        .collect();
    let decisions = store_decisions(store_log, &mut problems);
    if !problems.is_empty() {
        problems.truncate(super::PROBLEMS_MAX);
        return Err(HistoryError { problems });
    }
    let zero_us = commands.iter().map(|(_, command)| command.t_us).chain(decisions.iter().map(|(_, t_us, _)| *t_us)).min().unwrap_or(0);
    let entries = replay(&commands, &options.lock_key, zero_us)?;
    let provenance = Provenance {
        source: options.source.clone(),
        notes: Some(format!(
            "converted by fencing-lab convert from redis-cli MONITOR output (lock key {:?}) and a store log",
            options.lock_key
        )),
        time_zero_unix_us: Some(zero_us),
        ..Provenance::default()
    };
    assemble(entries, decisions, zero_us, provenance, options.fencing)
}

/// The store log's decisions with their lines and Unix times in µs; a line
/// that cannot be read adds a problem instead. `#` starts a comment line.
pub(super) fn store_decisions(store_log: &str, problems: &mut Vec<String>) -> Vec<(u32, u64, Entry)> {
    numbered(store_log)
        .filter(|(_, text)| !text.starts_with('#'))
        .filter_map(|(line, text)| {
            read_decision(text)
                .map_err(|problem| problems.push(format!("store log line {line}: {problem}")))
                .ok()
                .map(|(t_us, entry)| (line, t_us, entry))
        })
        .collect()
}

/// The lock's records (times already from `zero_us`) and the store's
/// decisions (Unix µs, each at or after `zero_us`) as one history, in time
/// order, within the format's limits.
pub(super) fn assemble(
    mut entries: Vec<Entry>,
    decisions: Vec<(u32, u64, Entry)>,
    zero_us: u64,
    provenance: Provenance,
    fencing: bool,
) -> Result<History, HistoryError> {
    for (_, t_us, entry) in decisions {
        let at_us = t_us.saturating_sub(zero_us);
        if let Entry::Write { writer, token, accepted, .. } = entry {
            entries.push(Entry::Write { writer, token, sent_at_us: at_us, decided_at_us: at_us, accepted });
        }
    }
    if entries.len() > RECORDS_MAX {
        return Err(HistoryError::one(format!("the logs make {} records, over the limit of {RECORDS_MAX}", entries.len())));
    }
    let latest_us = |entry: &Entry| match *entry {
        Entry::Grant { lease_end_us, .. } | Entry::Renewal { lease_end_us, .. } => lease_end_us,
        other => other.at_us(),
    };
    if entries.iter().any(|entry| latest_us(entry) > super::TIME_US_MAX) {
        return Err(HistoryError::one("the logs span more than a year: cut them to the incident".to_string()));
    }
    // Stable: the lock's records come before the store's at one moment.
    entries.sort_by_key(Entry::at_us);
    let records = entries.into_iter().enumerate().map(|(index, entry)| Line { line: index as u32 + 2, entry }).collect();
    Ok(History { provenance, fencing, records })
}

/// Non-blank lines with their 1-based numbers.
pub(super) fn numbered(text: &str) -> impl Iterator<Item = (u32, &str)> {
    text.lines().enumerate().map(|(index, line)| (index as u32 + 1, line.trim())).filter(|(_, line)| !line.is_empty())
}

/// `1733400000.123456`: Unix seconds and microseconds, as µs.
pub(super) fn read_time(text: &str) -> Result<u64, String> {
    let bad = || format!("{:?} is not a time in Unix seconds with six decimals (1733400000.123456)", super::short(text));
    let (seconds, micros) = text.split_once('.').ok_or_else(bad)?;
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit());
    if !all_digits(seconds) || !all_digits(micros) || micros.len() != 6 {
        return Err(bad());
    }
    let seconds: u64 = seconds.parse().map_err(|_| bad())?;
    let micros: u64 = micros.parse().map_err(|_| bad())?;
    seconds.checked_mul(1_000_000).and_then(|us| us.checked_add(micros)).ok_or_else(bad)
}

/// A MONITOR line; `None` for redis-cli's own first line, `OK`.
fn read_command(text: &str) -> Result<Option<Command>, String> {
    if text == "OK" {
        return Ok(None);
    }
    let (time, rest) = text.split_once(' ').ok_or("expected `<time> [<db> <client>] \"COMMAND\" …`")?;
    let t_us = read_time(time)?;
    let rest = rest.strip_prefix('[').ok_or("expected `[<db> <client>]` after the time")?;
    let (inside, rest) = rest.split_once(']').ok_or("the `[<db> <client>]` part is not closed")?;
    let (_db, client) = inside.split_once(' ').ok_or("expected `[<db> <client>]`")?;
    let args = read_args(rest)?;
    if args.is_empty() {
        return Err("no command after the client".to_string());
    }
    Ok(Some(Command { t_us, client: client.to_string(), args }))
}

/// The quoted arguments, unescaped as `sdscatrepr` escaped them.
fn read_args(text: &str) -> Result<Vec<String>, String> {
    let mut args = Vec::new();
    let mut chars = text.trim().chars();
    // Each turn reads one argument or ends: bounded by the line's length.
    loop {
        match chars.next() {
            None => return Ok(args),
            Some(' ') => continue,
            Some('"') => {}
            Some(other) => return Err(format!("expected a quoted argument, found {other:?}")),
        }
        let mut bytes = Vec::new();
        loop {
            match chars.next().ok_or("an argument's quote is not closed (a cut line?)")? {
                '"' => break,
                '\\' => match chars.next().ok_or("a line ends inside an escape")? {
                    'n' => bytes.push(b'\n'),
                    'r' => bytes.push(b'\r'),
                    't' => bytes.push(b'\t'),
                    'a' => bytes.push(0x07),
                    'b' => bytes.push(0x08),
                    'x' => {
                        let hex: String = chars.by_ref().take(2).collect();
                        bytes.push(u8::from_str_radix(&hex, 16).map_err(|_| format!("\\x{hex} is not a byte"))?);
                    }
                    other => bytes.extend(other.to_string().bytes()),
                },
                other => bytes.extend(other.to_string().bytes()),
            }
        }
        args.push(String::from_utf8_lossy(&bytes).into_owned());
    }
}

/// `A:33` (worker A, token 33) or `A` (no token).
fn read_value(value: &str) -> Result<(Actor, Option<u64>), String> {
    let (worker, token) = match value.split_once(':') {
        Some((worker, token)) => {
            (worker, Some(token.parse::<u64>().map_err(|_| format!("the lock's value {value:?} is not `<worker>:<token>`"))?))
        }
        None => (value, None),
    };
    match worker.parse::<Actor>() {
        Ok(actor) if actor.worker_index().is_some() => Ok((actor, token)),
        _ => Err(format!("the lock's value {:?} does not name a worker (write it `<worker>:<token>`, as `A:33`)", super::short(value))),
    }
}

/// `1733400015.000100 A 33 accepted`.
fn read_decision(text: &str) -> Result<(u64, Entry), String> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [time, writer, token, decision] = parts[..] else {
        return Err("expected `<unix seconds.micros> <writer> <token or -> accepted|refused`".to_string());
    };
    let t_us = read_time(time)?;
    let writer = writer
        .parse::<Actor>()
        .ok()
        .filter(|actor| actor.worker_index().is_some())
        .ok_or_else(|| format!("{:?} is not a worker", super::short(writer)))?;
    let token = match token {
        "-" => None,
        digits => Some(digits.parse::<u64>().map_err(|_| format!("{:?} is not a token", super::short(digits)))?),
    };
    let accepted = match decision {
        "accepted" => true,
        "refused" => false,
        other => return Err(format!("{:?} is neither accepted nor refused", super::short(other))),
    };
    Ok((t_us, Entry::Write { writer, token, sent_at_us: t_us, decided_at_us: t_us, accepted }))
}

/// The lock key replayed from the commands that touch it.
fn replay(commands: &[(u32, Command)], key: &str, zero_us: u64) -> Result<Vec<Entry>, HistoryError> {
    let mut entries = Vec::new();
    let mut held: Option<Held> = None;
    // Which worker each client is, learned from its SETs: a plain DEL names no value.
    let mut worker_of: HashMap<&str, Actor> = HashMap::new();
    for (line, command) in commands {
        let at_us = command.t_us - zero_us;
        let problem = |text: String| HistoryError::one(format!("MONITOR line {line}: {text}"));
        let name = command.args[0].to_ascii_uppercase();
        if command.args.get(1).map(String::as_str) != Some(key) {
            continue;
        }
        // Past its deadline the key is gone (`keyIsExpired`, src/db.c: `now > when`).
        held = held.filter(|lock| command.t_us <= lock.deadline_us);
        match name.as_str() {
            "SET" => {
                let rest = command.args.get(3..).unwrap_or_default();
                let options: Vec<String> = rest.iter().map(|arg| arg.to_ascii_uppercase()).collect();
                let nx = options.iter().any(|option| option == "NX");
                let ttl_us = ttl_us(&options, rest).map_err(problem)?;
                let value = command.args.get(2).ok_or_else(|| problem("SET without a value".to_string()))?;
                let (holder, token) = read_value(value).map_err(problem)?;
                if command.client != "lua" {
                    worker_of.insert(&command.client, holder);
                }
                if nx && held.is_some() {
                    continue;
                }
                held = Some(Held { holder, deadline_us: command.t_us.saturating_add(ttl_us) });
                entries.push(Entry::Grant { holder, token, lease_start_us: at_us, lease_end_us: at_us.saturating_add(ttl_us) });
            }
            "PEXPIRE" | "EXPIRE" => {
                let scale = if name == "EXPIRE" { 1_000_000 } else { 1_000 };
                let amount = command.args.get(2).and_then(|amount| amount.parse::<u64>().ok());
                let ttl_us =
                    amount.and_then(|amount| amount.checked_mul(scale)).ok_or_else(|| problem(format!("{name} needs a whole number")))?;
                if let Some(lock) = held.as_mut() {
                    lock.deadline_us = command.t_us.saturating_add(ttl_us);
                    entries.push(Entry::Renewal { holder: lock.holder, at_us, lease_end_us: at_us.saturating_add(ttl_us) });
                }
            }
            "DEL" | "UNLINK" if command.client == "lua" => {
                // A script deletes the key only after comparing its value: the holder's own release.
                if let Some(lock) = held.take() {
                    entries.push(Entry::Release { worker: lock.holder, at_us, how: ReleaseHow::IfMine });
                }
            }
            "DEL" | "UNLINK" => {
                let worker = worker_of.get(command.client.as_str()).copied().ok_or_else(|| {
                    problem(format!(
                        "a plain {name} from {}, a client that never set the lock, so no worker is known for it",
                        command.client
                    ))
                })?;
                held = None;
                entries.push(Entry::Release { worker, at_us, how: ReleaseHow::PlainDel });
            }
            _ => {}
        }
    }
    Ok(entries)
}

/// A SET's lease: `PX <ms>` or `EX <s>`. A lock without one is not a lease.
fn ttl_us(options: &[String], args: &[String]) -> Result<u64, String> {
    let position = options
        .iter()
        .position(|option| option == "PX" || option == "EX")
        .ok_or("a SET of the lock with no PX or EX: a lease lock needs an expiry")?;
    let scale = if options[position] == "EX" { 1_000_000 } else { 1_000 };
    args.get(position + 1)
        .and_then(|amount| amount.parse::<u64>().ok())
        .and_then(|amount| amount.checked_mul(scale))
        .filter(|ttl_us| *ttl_us <= super::TIME_US_MAX)
        .ok_or_else(|| format!("{} needs a whole number of at most a year", options[position]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_unescape_as_sdscatrepr_escaped_them() {
        let args = read_args(r#""SET" "a\"b\\c\x41\n" "x y""#).expect("quoted arguments");
        assert_eq!(args, vec!["SET".to_string(), "a\"b\\cA\n".to_string(), "x y".to_string()]);
        assert!(read_args(r#""SET" "open"#).is_err());
        assert!(read_args("SET").is_err());
    }

    #[test]
    fn times_need_six_decimals() {
        assert_eq!(read_time("1733400000.123456"), Ok(1_733_400_000_123_456));
        for bad in ["1733400000", "1733400000.12", "-1.000000", "99999999999999999999.000000"] {
            assert!(read_time(bad).is_err(), "{bad}");
        }
    }
}
