//! What a scenario's persistence, store and release are, and how the page
//! names them (the lock service and its token source are `crate::services`').

use serde::{Deserialize, Serialize};

/// What a Redis node keeps across a restart, as `redis.conf` sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedisPersistence {
    /// Memory only (`save ""`, `appendonly no`): a restart forgets the lock
    /// and the token counter, which starts again from 0.
    #[default]
    None,
    /// RDB snapshots (a default Redis): a restart loads the last snapshot,
    /// so the lock and the counter roll back to it and tokens repeat.
    Rdb,
    /// Append-only file with `appendfsync everysec` (the AOF default): Redis
    /// writes each command to the file before it replies and fsyncs once a
    /// second. A node crash here is a process crash (the machine stays up,
    /// its kernel keeps what was written), so it loses nothing acknowledged,
    /// as a real Redis killed with SIGKILL shows; only a power loss would
    /// lose up to a second, which the model does not simulate. That holds
    /// while the disk keeps up: when an fsync is still running, Redis
    /// postpones its writes to the file (up to 2 s, `aof_delayed_fsync`), and
    /// what it postponed is not yet in the kernel's hands.
    AofEverysec,
    /// Append-only file with `appendfsync always`: every write is on disk
    /// before it is acknowledged, so keys and counter survive.
    FsyncAlways,
}

/// How often the model's RDB snapshot is taken: the `save 60 10000` line of
/// the default `redis.conf` (a quieter instance snapshots only every 5 min
/// or hour, which loses more).
pub const RDB_PERIOD_MS: u64 = 60_000;

impl RedisPersistence {
    pub const ALL: [RedisPersistence; 4] =
        [RedisPersistence::None, RedisPersistence::Rdb, RedisPersistence::AofEverysec, RedisPersistence::FsyncAlways];

    pub fn label(self) -> &'static str {
        match self {
            RedisPersistence::None => "None (memory only)",
            RedisPersistence::Rdb => "RDB snapshot every 60 s",
            RedisPersistence::AofEverysec => "AOF, fsync every second (a process crash loses nothing while the disk keeps up)",
            RedisPersistence::FsyncAlways => "AOF, fsync always",
        }
    }

    /// Whether a restarted node has every write it acknowledged.
    pub fn keeps_every_write(self) -> bool {
        matches!(self, RedisPersistence::AofEverysec | RedisPersistence::FsyncAlways)
    }

    /// How often what the node has reaches its disk, for the mode that
    /// loses what came after (None: nothing does, or every write does).
    pub fn period_us(self) -> Option<u64> {
        match self {
            RedisPersistence::Rdb => Some(RDB_PERIOD_MS * 1000),
            RedisPersistence::None | RedisPersistence::AofEverysec | RedisPersistence::FsyncAlways => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreKind {
    /// A database or object store that can compare a token (or not, when
    /// fencing is off).
    Database,
    /// Optimistic concurrency: a write names the version it read and fails
    /// if the data has moved on. Needs no lock.
    Versioned,
    /// A plain file on NFS: it cannot check anything, so fencing is unavailable.
    NfsFile,
}

impl StoreKind {
    pub const ALL: [StoreKind; 3] = [StoreKind::Database, StoreKind::Versioned, StoreKind::NfsFile];

    pub fn label(self) -> &'static str {
        match self {
            StoreKind::Database => "Database (can check a token)",
            StoreKind::Versioned => "Versioned (write if version unchanged)",
            StoreKind::NfsFile => "Plain file on NFS (cannot check)",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Release {
    /// The Lua script: delete the key only if it still holds my value.
    CompareAndDelete,
    /// A plain `DEL`: deletes whatever lock is there, a successor's included.
    NaiveDel,
}

impl Release {
    pub const ALL: [Release; 2] = [Release::CompareAndDelete, Release::NaiveDel];

    pub fn label(self) -> &'static str {
        match self {
            Release::CompareAndDelete => "Compare-and-delete (Lua script)",
            Release::NaiveDel => "Naive DEL",
        }
    }
}
