//! The live run's Redis: connecting, the run's keys, the scripts the workers
//! run, and reading the stores back.

use std::time::Duration;

/// How long connecting or one command may take before giving up on it: a
/// bound on a hung server, not a claim. The model's request timeout is set
/// to it too (live/model.rs), so no run's story depends on a reply's speed.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);
const START_REDIS: &str = r#"redis-server --port 6379 --save "" --appendonly no"#;

/// Release only a lock that is still ours: a plain `DEL` would delete a
/// successor's lock (design.md: "What real lock services did").
pub const CAD_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/// The fenced store: KEYS[1] keeps the highest token accepted, KEYS[2] the
/// data. A write is accepted iff its token is at least the highest (equal
/// is accepted, so one holder may write several times), as the model's
/// store does. Returns {1 or 0, the highest token now, the data before}.
pub const FENCED_WRITE_LUA: &str = "local highest = tonumber(redis.call('get', KEYS[1]) or '0') \
    local token = tonumber(ARGV[1]) \
    local previous = redis.call('get', KEYS[2]) \
    if token < highest then return {0, highest, previous} end \
    redis.call('set', KEYS[1], ARGV[1]) \
    redis.call('set', KEYS[2], ARGV[2]) \
    return {1, token, previous}";

/// The run's keys, all under one prefix.
pub struct Keys {
    pub lock: String,
    pub fence: String,
    pub data: String,
    pub data_fenced: String,
    pub highest: String,
}

impl Keys {
    pub fn new(prefix: &str) -> Keys {
        Keys {
            lock: format!("{prefix}lock"),
            fence: format!("{prefix}fence"),
            data: format!("{prefix}data"),
            data_fenced: format!("{prefix}data_fenced"),
            highest: format!("{prefix}highest"),
        }
    }

    fn all(&self) -> [&str; 5] {
        [&self.lock, &self.fence, &self.data, &self.data_fenced, &self.highest]
    }
}

/// A connection with bounded connect, read and write times, checked by PING.
pub fn connect(url: &str) -> Result<redis::Connection, String> {
    let how_to = format!("start one with:  {START_REDIS}\n  (or point --redis at another: redis://HOST:PORT/)");
    let client = redis::Client::open(url).map_err(|error| format!("bad Redis URL {url:?}: {error}"))?;
    let unreachable = |error: redis::RedisError| format!("cannot connect to Redis at {url}: {error}\n  {how_to}");
    let mut con = client.get_connection_with_timeout(COMMAND_TIMEOUT).map_err(unreachable)?;
    con.set_read_timeout(Some(COMMAND_TIMEOUT)).map_err(unreachable)?;
    con.set_write_timeout(Some(COMMAND_TIMEOUT)).map_err(unreachable)?;
    redis::cmd("PING").query::<String>(&mut con).map_err(unreachable)?;
    Ok(con)
}

pub fn version(con: &mut redis::Connection) -> String {
    let info: String = redis::cmd("INFO").arg("server").query(con).unwrap_or_default();
    info.lines().find_map(|line| line.strip_prefix("redis_version:")).unwrap_or("?").trim().to_string()
}

/// Fresh keys, and a counter whose first `INCR` gives `first_token`.
pub fn reset(con: &mut redis::Connection, keys: &Keys, first_token: u64) -> Result<(), String> {
    let failed = |error: redis::RedisError| format!("cannot reset the run's keys: {error}");
    redis::cmd("DEL").arg(&keys.all()[..]).exec(con).map_err(failed)?;
    redis::cmd("SET").arg(&keys.fence).arg(first_token - 1).exec(con).map_err(failed)
}

/// What each store holds at the end: (plain, fenced).
pub fn read_finals(con: &mut redis::Connection, keys: &Keys) -> Result<(Option<String>, Option<String>), String> {
    redis::cmd("MGET").arg(&keys.data).arg(&keys.data_fenced).query(con).map_err(|error| format!("cannot read the stores back: {error}"))
}

/// Deletes the run's keys; a failure is only worth a warning (the prefix is
/// unique to the run).
pub fn delete(con: &mut redis::Connection, keys: &Keys, prefix: &str) {
    if let Err(error) = redis::cmd("DEL").arg(&keys.all()[..]).exec(con) {
        crate::output::say(&format!("fencing-lab live: could not delete the run's keys {prefix}*: {error}"));
    }
}
