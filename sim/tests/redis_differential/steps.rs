//! The model's trace, read as the commands its Redis lock nodes received:
//! each request is the typed `Msg` the event carries, and its reply is the
//! node's message that names the same request id.

use fencing_sim::msg::Msg;
use fencing_sim::{Actor, Kind, Trace};

/// Something on the model's timeline that the real server must see.
#[derive(Clone, Debug)]
pub enum Step {
    /// `request` from worker `from` reached node `node`, which answered `model`.
    Command {
        index: u32,
        t_us: u64,
        node: u8,
        from: u8,
        request: Msg,
        model: Msg,
    },
    ClockJump {
        t_us: u64,
        node: u8,
        jump_ms: i64,
    },
    /// `persists`: the node keeps its data across the crash.
    NodeDown {
        t_us: u64,
        node: u8,
        persists: bool,
    },
}

impl Step {
    pub fn t_us(&self) -> u64 {
        match *self {
            Step::Command { t_us, .. } | Step::ClockJump { t_us, .. } | Step::NodeDown { t_us, .. } => t_us,
        }
    }
}

/// The lock-service steps of a trace, in order.
pub fn steps(trace: &Trace) -> Vec<Step> {
    let events = &trace.events;
    let mut steps = Vec::new();
    for (position, event) in events.iter().enumerate() {
        match (event.kind, event.actor) {
            (Kind::Receive { from: Actor::Worker(from), req, body, .. }, Actor::LockNode(node)) => {
                assert_request(&body);
                let reply = events[position + 1..].iter().find_map(|later| match later.kind {
                    Kind::Send { to, req: answers, body, .. } | Kind::Lost { to, req: answers, body, .. }
                        if later.actor == event.actor && to == Actor::Worker(from) && answers == req =>
                    {
                        Some(body)
                    }
                    _ => None,
                });
                let model =
                    reply.unwrap_or_else(|| panic!("L{} never answered {} (request {req}, event {})", node + 1, body.label(), event.index));
                steps.push(Step::Command { index: event.index, t_us: event.t_us, node, from, request: body, model });
            }
            (Kind::ClockJumped { jump_ms }, Actor::LockNode(node)) => steps.push(Step::ClockJump { t_us: event.t_us, node, jump_ms }),
            (Kind::NodeDown { persists, .. }, Actor::LockNode(node)) => steps.push(Step::NodeDown { t_us: event.t_us, node, persists }),
            _ => {}
        }
    }
    steps
}

/// The Redis commands this test can replay; anything else is a model change
/// the test must learn about.
fn assert_request(body: &Msg) {
    assert!(
        matches!(
            body,
            Msg::SetNx { .. }
                | Msg::Incr
                | Msg::AcquireScript { .. }
                | Msg::Renew { .. }
                | Msg::Check { .. }
                | Msg::ReleaseCad { .. }
                | Msg::Del
        ),
        "{body:?} is no Redis lock command: teach tests/redis_differential/ about it"
    );
}

/// The lock value a request names, if any.
pub fn value_of(request: &Msg) -> Option<u64> {
    match *request {
        Msg::SetNx { value, .. }
        | Msg::AcquireScript { value, .. }
        | Msg::Renew { value, .. }
        | Msg::Check { value }
        | Msg::ReleaseCad { value } => Some(value),
        _ => None,
    }
}
