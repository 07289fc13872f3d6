//! `fencing-lab check` and `fencing-lab convert`: a real incident's history
//! (docs/histories.md) drawn as a timeline and judged by the model's own
//! observer, and the converters from `redis-cli MONITOR` output or an
//! `etcdctl watch -w json` log, and a store's log, into one.

use crate::output::Failure;
use crate::Switch;
use clap::Parser;
use fencing_sim::history::{self, etcd_watch, monitor, HISTORY_BYTES_MAX};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
pub struct CheckArgs {
    /// A history: JSON Lines, a header then one record a line (docs/histories.md), at most 1 MiB.
    file: PathBuf,
    /// Print the whole trace as one JSON object, as `run --json` does.
    #[arg(long)]
    json: bool,
}

#[derive(Parser)]
#[command(group(clap::ArgGroup::new("lock_log").required(true).args(["redis_monitor", "etcd_watch"])))]
pub struct ConvertArgs {
    /// `redis-cli MONITOR` output covering the incident (at most 1 MiB).
    #[arg(long, value_name = "FILE")]
    redis_monitor: Option<PathBuf>,
    /// `etcdctl watch --prefix <lock>/ -w json` output, each line prefixed with the
    /// Unix time it arrived (`<seconds.micros> <json>`), at most 1 MiB.
    #[arg(long, value_name = "FILE", requires = "ttl_ms")]
    etcd_watch: Option<PathBuf>,
    /// The etcd lock sessions' TTL in ms (`etcdctl lock --ttl` × 1000): the watch does not show it.
    #[arg(long, value_name = "MS", requires = "etcd_watch")]
    ttl_ms: Option<u64>,
    /// An etcd lock key (`<lock>/<lease id in hex>`) whose DELETE was its lease running out,
    /// not its owner's release: the watch cannot tell the two apart. Repeatable.
    #[arg(long, value_name = "KEY", requires = "etcd_watch")]
    expired: Vec<String>,
    /// The store's decisions, one a line: `<unix seconds.micros> <writer> <token or -> accepted|refused`.
    #[arg(long, value_name = "FILE")]
    store_log: PathBuf,
    /// Whether the store refused tokens lower than one it had accepted: the logs cannot say.
    #[arg(long)]
    fencing: Switch,
    /// The Redis lock's key.
    #[arg(long, default_value = "lock")]
    lock_key: String,
    /// Where the logs came from, for the history's header ("redis-server 7.0.15 on host-3").
    #[arg(long)]
    source: Option<String>,
}

/// Judges a history: its timeline and verdict (or its trace as JSON).
/// Exits 0 when no write was damaged, 1 when one was (a zombie write or a
/// stale overwrite), 2 when the file cannot be judged.
pub fn check(args: &CheckArgs, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    let bytes = read_bounded(&args.file)?;
    let named = |error: history::HistoryError| format!("{}: {error}", args.file.display());
    let history = history::parse(&bytes).map_err(named)?;
    let judged = history::judge(&history).map_err(named)?;
    let trace = &judged.trace;
    if args.json {
        writeln!(out, "{}", trace.to_json())?;
    } else {
        let provenance = &history.provenance;
        writeln!(out, "History: {} (the store's fencing {})", provenance.source, if history.fencing { "on" } else { "off" })?;
        for (label, text) in [("kernel", &provenance.kernel), ("date", &provenance.date), ("notes", &provenance.notes)] {
            if let Some(text) = text {
                writeln!(out, "  {label}: {text}")?;
            }
        }
        writeln!(out)?;
        crate::print_timeline(out, trace)?;
        // The page says the same words (`real::first_damage`).
        writeln!(out, "first damaging write: {}", fencing_sim::real::first_damage(&judged).as_deref().unwrap_or("none"))?;
    }
    Ok(if judged.damaged() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Writes the history two logs tell, as JSON Lines on stdout.
pub fn convert(args: &ConvertArgs, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    let text = |path: &Path| -> Result<String, String> {
        String::from_utf8(read_bounded(path)?).map_err(|_| format!("{} is not UTF-8 text", path.display()))
    };
    let fencing = matches!(args.fencing, Switch::On);
    let store_log = text(&args.store_log)?;
    let history = match (&args.redis_monitor, &args.etcd_watch) {
        (Some(monitor_log), _) => {
            let source = args.source.clone().unwrap_or_else(|| "redis-cli MONITOR and a store log".to_string());
            let options = monitor::Options { lock_key: args.lock_key.clone(), fencing, source };
            monitor::convert(&text(monitor_log)?, &store_log, &options)
        }
        (None, Some(watch_log)) => {
            let source = args.source.clone().unwrap_or_else(|| "etcdctl watch and a store log".to_string());
            // clap requires --ttl-ms with --etcd-watch; 0 is refused by the converter.
            let options = etcd_watch::Options { ttl_ms: args.ttl_ms.unwrap_or(0), expired: args.expired.clone(), fencing, source };
            etcd_watch::convert(&text(watch_log)?, &store_log, &options)
        }
        (None, None) => return Err("convert needs --redis-monitor FILE or --etcd-watch FILE".to_string().into()),
    };
    write!(out, "{}", history.map_err(|error| error.to_string())?.to_jsonl())?;
    Ok(ExitCode::SUCCESS)
}

/// The file's bytes, refused before it is read whole if it is over
/// `HISTORY_BYTES_MAX` (about ten thousand records).
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    let cannot = |error: std::io::Error| format!("cannot read {}: {error}", path.display());
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(HISTORY_BYTES_MAX as u64 + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() > HISTORY_BYTES_MAX {
        return Err(format!(
            "{} is over {HISTORY_BYTES_MAX} bytes, the limit for a history (about 10,000 records): cut it to the incident's minutes",
            path.display()
        ));
    }
    Ok(bytes)
}
