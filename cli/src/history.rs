//! `fencing-lab check` and `fencing-lab convert`: a real incident's history
//! (docs/histories.md) drawn as a timeline and judged by the model's own
//! observer, and the converter from `redis-cli MONITOR` output and a
//! store's log into one.

use crate::output::Failure;
use crate::Switch;
use clap::Parser;
use fencing_sim::history::{self, monitor, HISTORY_BYTES_MAX};
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
pub struct ConvertArgs {
    /// `redis-cli MONITOR` output covering the incident (at most 1 MiB).
    #[arg(long, value_name = "FILE")]
    redis_monitor: PathBuf,
    /// The store's decisions, one a line: `<unix seconds.micros> <writer> <token or -> accepted|refused`.
    #[arg(long, value_name = "FILE")]
    store_log: PathBuf,
    /// Whether the store refused tokens lower than one it had accepted: the logs cannot say.
    #[arg(long)]
    fencing: Switch,
    /// The lock's key.
    #[arg(long, default_value = "lock")]
    lock_key: String,
    /// Where the logs came from, for the history's header ("redis-server 7.0.15 on host-3").
    #[arg(long, default_value = "redis-cli MONITOR and a store log")]
    source: String,
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
    let options =
        monitor::Options { lock_key: args.lock_key.clone(), fencing: matches!(args.fencing, Switch::On), source: args.source.clone() };
    let history = monitor::convert(&text(&args.redis_monitor)?, &text(&args.store_log)?, &options).map_err(|error| error.to_string())?;
    write!(out, "{}", history.to_jsonl())?;
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
