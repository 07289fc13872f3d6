//! How each kind of event looks: a glyph (shape, never colour alone), a CSS
//! class (colour), and a few words for the diagram, all read off the event's
//! typed fields. Glyphs are ones every common system font has; emoji vanish
//! without an emoji font.

use fencing_sim::services::Words;
use fencing_sim::{Event, Kind, LockService};

pub fn icon(event: &Event) -> &'static str {
    match event.kind {
        Kind::WriteAccepted { stale_overwrite: true, .. } => "☠",
        Kind::WriteAccepted { zombie: true, .. } => "⚠",
        Kind::WriteAccepted { .. } => "✓",
        Kind::WriteRejected { rightful: true, .. } => "!",
        Kind::WriteRejected { .. } => "✗",
        Kind::PauseBegan { .. } => "‖",
        Kind::PauseEnded => "▶",
        Kind::Granted { .. } | Kind::Acquired { .. } | Kind::Voted { .. } | Kind::Elected { .. } | Kind::Promoted { .. } => "◆",
        Kind::Expired { .. }
        | Kind::Deleted { .. }
        | Kind::LostLock { .. }
        | Kind::LeaseLost { .. }
        | Kind::Unvoted { .. }
        | Kind::SteppedDown
        | Kind::Demoted { .. } => "◇",
        Kind::Crashed | Kind::NodeDown { .. } => "✱",
        Kind::Send { .. } => "→",
        Kind::Receive { .. } => "←",
        Kind::Lost { .. } => "✗",
        _ => "•",
    }
}

/// The colour family of an event.
pub fn class(event: &Event) -> &'static str {
    match event.kind {
        Kind::WriteAccepted { stale_overwrite: true, .. } | Kind::WriteAccepted { zombie: true, .. } => "zombie",
        Kind::WriteAccepted { .. } => "accepted",
        Kind::WriteRejected { rightful: true, .. } => "rightful",
        Kind::WriteRejected { .. } => "rejected",
        Kind::PauseBegan { .. } | Kind::PauseEnded => "pause",
        Kind::Expired { .. }
        | Kind::Deleted { .. }
        | Kind::LostLock { .. }
        | Kind::LeaseLost { .. }
        | Kind::Crashed
        | Kind::SteppedDown
        | Kind::Demoted { .. }
        | Kind::NodeDown { .. } => "expired",
        Kind::Granted { .. } | Kind::Acquired { .. } | Kind::Elected { .. } | Kind::Promoted { .. } => "granted",
        Kind::Send { .. } | Kind::Receive { .. } | Kind::Lost { .. } => "message",
        _ => "plain",
    }
}

/// A few words for the diagram beside the lane, or None for no marker, in
/// the service's words (`lease` or `session`, `key` or `znode`; a
/// ZooKeeper czxid in hex, as the model's sentences write it).
pub fn short(event: &Event, service: LockService) -> Option<String> {
    let Words { lease, key, .. } = service.spec().words;
    let token = event.token.map_or(String::new(), |token| format!(" {}", service.token_words(token)));
    let words = match &event.kind {
        Kind::Granted { holder, .. } => format!("granted to {holder}{token}"),
        Kind::Expired { holder, .. } => format!("{holder}'s {lease} expired"),
        Kind::Deleted { holder, by, .. } if holder == by => format!("{by} released"),
        Kind::Deleted { holder, by, .. } => format!("{by} deleted {holder}'s lock"),
        Kind::LeaseLost { holder } => format!("{holder}'s {lease} lost"),
        Kind::LeaseClamped { ttl_ms, asked_ms, .. } if ttl_ms > asked_ms => format!("{lease} raised to {ttl_ms} ms"),
        Kind::LeaseClamped { ttl_ms, .. } => format!("{lease} cut to {ttl_ms} ms"),
        Kind::TokenIssued { to } => format!("token{token} to {to}"),
        Kind::Voted { holder } => format!("vote for {holder}"),
        Kind::Unvoted { holder } => format!("{holder}'s vote gone"),
        Kind::Waits { waiter, .. } => format!("{waiter} waits"),
        Kind::Acquired { .. } => {
            event.token.map_or("holds the lock".to_string(), |token| format!("holds the lock, token {}", service.token_words(token)))
        }
        Kind::Queued { revision } => format!("waits, {key} {revision}"),
        Kind::LostLock { .. } => "learns it lost the lock".to_string(),
        Kind::Released => "releases".to_string(),
        Kind::PauseBegan { .. } => "GC pause: frozen".to_string(),
        Kind::PauseEnded => "resumes, not told in time".to_string(),
        Kind::Crashed | Kind::NodeDown { .. } => "crashed".to_string(),
        Kind::NodeUp { .. } => "back up".to_string(),
        Kind::SteppedDown => "steps down".to_string(),
        Kind::Healed { .. } => "back in reach".to_string(),
        Kind::Demoted { .. } => "demoted to replica".to_string(),
        Kind::Promoted { .. } => "promoted to primary".to_string(),
        Kind::Elected { term } => format!("leads (term {term})"),
        Kind::ClockJumped { jump_ms } => format!("clock jumps {jump_ms:+} ms"),
        Kind::WriteAccepted { writer, stale_overwrite: true, .. } => format!("{writer}{token} overwrote newer data"),
        Kind::WriteAccepted { writer, zombie: true, .. } => format!("{writer}{token} accepted (zombie)"),
        Kind::WriteAccepted { writer, .. } => format!("{writer}{token} accepted"),
        Kind::WriteRejected { writer, rightful: true, .. } => format!("{writer}{token} refused, though it holds the lock"),
        Kind::WriteRejected { writer, .. } => format!("{writer}{token} rejected"),
        Kind::ReadVersion { version } => format!("read v{version}"),
        Kind::GaveUp { .. } => "gives up".to_string(),
        Kind::Timeout { .. } => "no answer".to_string(),
        Kind::Truncated { .. } => "run cut short".to_string(),
        Kind::ParentRemoved => "parent znode deleted".to_string(),
        _ => return None,
    };
    Some(words)
}

/// A stable name for tests and styles: what kind of write this was.
pub fn kind_name(event: &Event) -> &'static str {
    match event.kind {
        Kind::WriteAccepted { stale_overwrite: true, .. } => "stale-overwrite",
        Kind::WriteAccepted { zombie: true, .. } => "zombie-write",
        Kind::WriteAccepted { .. } => "accepted-write",
        Kind::WriteRejected { rightful: true, .. } => "rightful-rejected-write",
        Kind::WriteRejected { .. } => "rejected-write",
        _ => "event",
    }
}

/// Events that change the story: grants, expiries, pauses, writes, crashes.
/// Playback lingers on them, and fast playback speaks only them.
pub fn is_key(event: &Event) -> bool {
    !matches!(
        event.kind,
        Kind::Send { .. }
            | Kind::Receive { .. }
            | Kind::Backoff { .. }
            | Kind::AcquireFailed { .. }
            | Kind::Denied { .. }
            | Kind::TokenIssued { .. }
            | Kind::Renewed { .. }
            | Kind::Start
    )
}
