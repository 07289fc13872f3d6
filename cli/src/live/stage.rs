//! The choreography: two worker processes, one frozen at an exact step of
//! its recipe for an exact time.

use super::event::{Clock, FreezePoint, LiveEvent, What, Who};
use super::process::{self, Children, Collector};
use super::{Plan, BACKOFF_MS_MAX};
use nix::sys::signal::Signal;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a worker may take to connect and take a free lock: a bound on a
/// hung worker, not a claim (it takes milliseconds; nothing is compared with
/// it). The model is given the real start times and pause length measured,
/// so a busy machine that starts B late changes both runs alike.
const SETUP_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts A and waits for it at its freeze point; freezes it (SIGSTOP, and
/// the kernel's word that it stopped); starts B; thaws A (SIGCONT) after
/// exactly the pause; collects every line until both are done, and returns
/// them sorted by time. Whatever goes
/// wrong, `Children`'s drop thaws and kills what is left.
pub fn stage(plan: &Plan, prefix: &str) -> Result<Vec<LiveEvent>, String> {
    let clock = Clock::starting_now();
    let exe = std::env::current_exe().map_err(|error| format!("cannot find this program to start the workers: {error}"))?;
    let worker = |who: Who, freeze_at: Option<FreezePoint>| {
        let mut command = Command::new(&exe);
        command
            .args(["live-worker", "--name", &who.to_string(), "--redis", &plan.redis, "--prefix", prefix])
            .args(["--ttl-ms", &plan.ttl_ms.to_string(), "--work-ms", &plan.work_ms.to_string()])
            .args(["--writes", &plan.writes.to_string(), "--attempts-max", &plan.attempts_max.to_string()])
            .args(["--start-unix-us", &clock.start_unix_us.to_string()])
            .stdin(if freeze_at.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a Ctrl-C meant for the lab does not
            // reach a frozen worker as a pending signal, and if the lab dies
            // anyway, the group is orphaned with a stopped member, so the
            // kernel sends it SIGHUP and SIGCONT: nothing stays frozen.
            .process_group(0);
        if let Some(point) = freeze_at {
            command.args(["--freeze-at", point.name()]);
        }
        command
    };
    let (sender, receiver) = mpsc::channel();
    let mut collector = Collector::new(receiver);
    let mut children = Children::default();

    let a_pid = children.spawn(Who::A, worker(Who::A, Some(plan.freeze_at)), &sender)?;
    let step = match plan.freeze_at {
        FreezePoint::Granted => "taken the lock (SET NX OK)",
        FreezePoint::Acquired => "drawn its token",
    };
    let at_point = move |what: &What| match plan.freeze_at {
        FreezePoint::Granted => matches!(what, What::Granted { .. }),
        FreezePoint::Acquired => matches!(what, What::Acquired { .. }),
    };
    collector.wait_for(Who::A, step, at_point, Instant::now() + SETUP_TIMEOUT)?;
    // A now waits for the lab's word at its freeze point. The time is taken
    // as the signal goes: the lab's line then sorts before anything A does
    // after it.
    let stopped_at = Instant::now();
    let stop_t_ms = clock.now_ms();
    process::signal(a_pid, Signal::SIGSTOP)?;
    process::wait_stopped(a_pid)?;
    // Read by A only once it is thawed.
    children.tell_to_go_on(Who::A)?;
    collector.events.push(LiveEvent::new(stop_t_ms, Who::Lab, What::Stopped { pid: a_pid }));
    crate::output::say(&format!("live: A reached its freeze point ({step}); frozen with SIGSTOP (pid {a_pid})"));

    children.spawn(Who::B, worker(Who::B, None), &sender)?;
    drop(sender);
    crate::output::say(&format!("live: started B; A stays frozen for {} ms", plan.pause_ms));
    // A stays frozen for exactly the pause, as the model's pause fault does,
    // whether or not B is done by then.
    collector.pump_until(stopped_at + Duration::from_millis(plan.pause_ms));
    let resume_t_ms = clock.now_ms();
    process::signal(a_pid, Signal::SIGCONT)?;
    let paused_ms = ((resume_t_ms - stop_t_ms) * 1000.0).round() / 1000.0;
    collector.events.push(LiveEvent::new(resume_t_ms, Who::Lab, What::Resumed { pid: a_pid, paused_ms }));
    let b_done = collector.find(Who::B, |what| matches!(what, What::Released { .. })).is_some();
    crate::output::say(&format!(
        "live: thawed A with SIGCONT after {paused_ms:.1} ms; B was {}done by then",
        if b_done { "" } else { "not " }
    ));

    let deadline = Instant::now() + SETUP_TIMEOUT + Duration::from_millis(u64::from(plan.attempts_max) * BACKOFF_MS_MAX);
    for who in [Who::A, Who::B] {
        collector.wait_for(who, "released the lock", |what| matches!(what, What::Released { .. }), deadline)?;
    }
    for (who, status) in children.wait_all(deadline)? {
        if !status.success() {
            return Err(format!("worker {who} exited with {status}: {}", collector.stderr_of(who, deadline)));
        }
    }
    let mut events = collector.events;
    events.sort_by(|one, other| one.t_ms.total_cmp(&other.t_ms));
    Ok(events)
}
