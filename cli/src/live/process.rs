//! The worker processes: starting them, freezing and thawing them with
//! signals (through `nix`, not a `kill` command), asking the kernel whether
//! one has really stopped, and collecting what they say.

use super::event::{LiveEvent, What, Who};
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long the kernel may take to report a stop: a bound on a hung wait,
/// not a claim (a stop is reported within microseconds, even on a busy
/// machine, as the stopped process need not run for it). The pause itself is
/// timed from the moment the signal was sent, not from this report.
const STOP_TIMEOUT: Duration = Duration::from_secs(1);
/// The most a worker's stderr is kept of.
const STDERR_BYTES_MAX: u64 = 64 * 1024;

/// Sends `signal` to the process `pid`.
pub fn signal(pid: u32, signal: Signal) -> Result<(), String> {
    let target = Pid::from_raw(i32::try_from(pid).map_err(|_| format!("pid {pid} is out of range"))?);
    kill(target, signal).map_err(|error| format!("cannot send {signal} to {pid}: {error}"))
}

/// Waits (bounded) until the kernel reports the child stopped, through
/// `waitpid(WUNTRACED)`: a stop is reported without reaping the child, so
/// `std::process::Child` still waits for its exit later.
pub fn wait_stopped(pid: u32) -> Result<(), String> {
    let target = Pid::from_raw(i32::try_from(pid).map_err(|_| format!("pid {pid} is out of range"))?);
    let deadline = Instant::now() + STOP_TIMEOUT;
    loop {
        match waitpid(target, Some(WaitPidFlag::WUNTRACED | WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::Stopped(_, _)) => return Ok(()),
            Ok(WaitStatus::StillAlive) => {}
            Ok(other) => return Err(format!("worker {pid} ended instead of stopping: {other:?}")),
            Err(error) => return Err(format!("cannot ask the kernel about worker {pid}: {error}")),
        }
        if Instant::now() >= deadline {
            return Err(format!("worker {pid} did not stop within {} ms of SIGSTOP", STOP_TIMEOUT.as_millis()));
        }
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// The workers' pids, for the panic hook: the release profile aborts on a
/// panic, so no destructor would thaw a frozen worker.
static CHILD_PIDS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn child_pids() -> std::sync::MutexGuard<'static, Vec<u32>> {
    CHILD_PIDS.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        for pid in child_pids().drain(..) {
            signal(pid, Signal::SIGCONT).ok();
            signal(pid, Signal::SIGKILL).ok();
        }
        previous(info);
    }));
}

/// What a worker's pipes carry to the collector.
pub enum Message {
    Line(Who, String),
    Closed(Who),
    Stderr(Who, String),
}

/// The worker processes. Dropping it thaws and kills any still running, so
/// no early return leaves a stopped process behind.
#[derive(Default)]
pub struct Children {
    running: Vec<(Who, Child)>,
    stdins: HashMap<Who, ChildStdin>,
}

impl Children {
    /// Starts a worker and a thread per pipe that forwards what it says.
    pub fn spawn(&mut self, who: Who, mut command: Command, sender: &Sender<Message>) -> Result<u32, String> {
        let mut child = command.spawn().map_err(|error| format!("cannot start worker {who}: {error}"))?;
        let pid = child.id();
        child_pids().push(pid);
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        if let Some(stdin) = child.stdin.take() {
            self.stdins.insert(who, stdin);
        }
        self.running.push((who, child));
        let lines = sender.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines.send(Message::Line(who, line)).is_err() {
                    return;
                }
            }
            lines.send(Message::Closed(who)).ok();
        });
        let errors = sender.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            BufReader::new(stderr).take(STDERR_BYTES_MAX).read_to_string(&mut text).ok();
            errors.send(Message::Stderr(who, text)).ok();
        });
        Ok(pid)
    }

    /// Gives a worker waiting at its freeze point the word to go on (a line
    /// on its stdin). A stopped worker reads it once it is thawed.
    pub fn tell_to_go_on(&mut self, who: Who) -> Result<(), String> {
        let stdin = self.stdins.get_mut(&who).ok_or_else(|| format!("worker {who} has no stdin to tell it to go on"))?;
        stdin.write_all(b"go\n").and_then(|()| stdin.flush()).map_err(|error| format!("cannot tell worker {who} to go on: {error}"))
    }

    /// Waits (bounded) for every worker to exit.
    pub fn wait_all(&mut self, deadline: Instant) -> Result<Vec<(Who, ExitStatus)>, String> {
        let mut statuses = Vec::new();
        while !self.running.is_empty() {
            let mut index = 0;
            while index < self.running.len() {
                let (who, child) = &mut self.running[index];
                match child.try_wait() {
                    Ok(Some(status)) => {
                        let (who, pid) = (*who, child.id());
                        child_pids().retain(|known| *known != pid);
                        statuses.push((who, status));
                        self.running.remove(index);
                    }
                    Ok(None) => index += 1,
                    Err(error) => return Err(format!("cannot wait for worker {who}: {error}")),
                }
            }
            if !self.running.is_empty() {
                if Instant::now() >= deadline {
                    let names: Vec<String> = self.running.iter().map(|(who, _)| who.to_string()).collect();
                    return Err(format!("worker {} did not exit in time; killed", names.join(" and ")));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Ok(statuses)
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        for (_, child) in &mut self.running {
            if let Ok(None) = child.try_wait() {
                signal(child.id(), Signal::SIGCONT).ok();
                child.kill().ok();
                child.wait().ok();
            }
            let pid = child.id();
            child_pids().retain(|known| *known != pid);
        }
    }
}

/// Everything the workers said, as it arrives.
pub struct Collector {
    receiver: Receiver<Message>,
    pub events: Vec<LiveEvent>,
    closed: HashSet<Who>,
    stderr: HashMap<Who, String>,
    /// Lines that were not events: a worker bug, shown with the error.
    garbage: Vec<String>,
}

impl Collector {
    pub fn new(receiver: Receiver<Message>) -> Collector {
        Collector { receiver, events: Vec::new(), closed: HashSet::new(), stderr: HashMap::new(), garbage: Vec::new() }
    }

    fn take(&mut self, message: Message) {
        match message {
            Message::Line(who, line) => match serde_json::from_str::<LiveEvent>(&line) {
                Ok(event) if event.worker == who => self.events.push(event),
                _ => self.garbage.push(format!("{who}: {line}")),
            },
            Message::Closed(who) => {
                self.closed.insert(who);
            }
            Message::Stderr(who, text) => {
                self.stderr.insert(who, text);
            }
        }
    }

    /// Takes one message, waiting until `deadline` at most.
    fn pump(&mut self, deadline: Instant) {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.receiver.recv_timeout(left) {
            Ok(message) => self.take(message),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(left),
        }
    }

    /// Keeps collecting until `deadline`.
    pub fn pump_until(&mut self, deadline: Instant) {
        while Instant::now() < deadline {
            self.pump(deadline);
        }
    }

    pub fn find(&self, who: Who, what: impl Fn(&What) -> bool) -> Option<&LiveEvent> {
        self.events.iter().find(|said| said.worker == who && what(&said.what))
    }

    /// Collects until `who` says something `what` accepts (`step` names it
    /// for an error); an error if the worker ends or the deadline passes
    /// first.
    pub fn wait_for(&mut self, who: Who, step: &str, what: impl Fn(&What) -> bool, deadline: Instant) -> Result<LiveEvent, String> {
        loop {
            if let Some(said) = self.find(who, &what) {
                return Ok(said.clone());
            }
            if self.closed.contains(&who) {
                let grace = Instant::now() + Duration::from_secs(2);
                return Err(format!("worker {who} ended before it {step}: {}", self.stderr_of(who, grace)));
            }
            if Instant::now() >= deadline {
                return Err(format!("worker {who} had not {step} in time"));
            }
            self.pump(deadline);
        }
    }

    /// What the worker wrote to stderr (waiting for it until `deadline`).
    pub fn stderr_of(&mut self, who: Who, deadline: Instant) -> String {
        while !self.stderr.contains_key(&who) && Instant::now() < deadline {
            self.pump(deadline);
        }
        let mut text = self.stderr.get(&who).map_or("", |text| text.trim()).to_string();
        if text.is_empty() {
            text = "(it said nothing on stderr)".to_string();
        }
        if !self.garbage.is_empty() {
            text.push_str(&format!("; unexpected output: {}", self.garbage.join(" | ")));
        }
        text
    }
}
