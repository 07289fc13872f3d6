//! Where a command's results go, and how it ends when they cannot get there.
//! Every result is written through a checked `Write` (never `println!`,
//! which panics on a closed pipe or a full disk), so the command ends with a
//! status: a reader that closed the pipe early (`| head -1`) got what it
//! wanted, and the command ends quietly as SIGPIPE would have ended it; any
//! other write error (a full disk) is said on stderr, with status 2.

use std::io::{self, Write};
use std::process::ExitCode;

/// The status a shell reports for a process ended by SIGPIPE (128 + 13).
pub const CLOSED_PIPE_STATUS: u8 = 141;
/// A refusal, or output that could not be written.
pub const FAILURE_STATUS: u8 = 2;

/// Why a command stopped short.
#[derive(Debug)]
pub enum Failure {
    /// What was asked cannot or will not be done: the reason, for stderr.
    Refused(String),
    /// The results could not be written.
    Output(io::Error),
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Refused(message)
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Failure {
        Failure::Output(error)
    }
}

/// The exit status of a command's result, with its last words on stderr.
pub fn finish(result: Result<ExitCode, Failure>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(Failure::Refused(message)) => {
            say(&format!("fencing-lab: {message}"));
            ExitCode::from(FAILURE_STATUS)
        }
        Err(Failure::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(CLOSED_PIPE_STATUS),
        Err(Failure::Output(error)) => {
            say(&format!("fencing-lab: cannot write the results: {error}"));
            ExitCode::from(FAILURE_STATUS)
        }
    }
}

/// One line on stderr (a message, a notice, progress). A stderr that cannot
/// be written loses the line rather than ending the command: the results on
/// stdout are what matters.
pub fn say(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}
