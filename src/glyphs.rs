//! How each kind of event looks: a glyph (shape, never colour alone), a CSS
//! class (colour), and a few words for the diagram. Glyphs are ones every
//! common system font has; emoji vanish without an emoji font.

use fencing_sim::{Event, Kind};

pub fn icon(event: &Event) -> &'static str {
    match event.kind {
        Kind::WriteAccepted { stale_overwrite: true, .. } => "☠",
        Kind::WriteAccepted { zombie: true, .. } => "⚠",
        Kind::WriteAccepted { .. } => "✓",
        Kind::WriteRejected { .. } => "✗",
        Kind::PauseBegan { .. } => "‖",
        Kind::PauseEnded => "▶",
        Kind::Granted { .. } | Kind::Acquired { .. } | Kind::Voted { .. } => "◆",
        Kind::Expired { .. } | Kind::Deleted { .. } | Kind::LostLock { .. } | Kind::LeaseLost { .. } | Kind::Unvoted { .. } => "◇",
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
        Kind::WriteRejected { .. } => "rejected",
        Kind::PauseBegan { .. } | Kind::PauseEnded => "pause",
        Kind::Expired { .. }
        | Kind::Deleted { .. }
        | Kind::LostLock { .. }
        | Kind::LeaseLost { .. }
        | Kind::Crashed
        | Kind::NodeDown { .. } => "expired",
        Kind::Granted { .. } | Kind::Acquired { .. } => "granted",
        Kind::Send { .. } | Kind::Receive { .. } | Kind::Lost { .. } => "message",
        _ => "plain",
    }
}

/// A few words for the diagram beside the lane, or None for no marker.
pub fn short(event: &Event) -> Option<String> {
    let token = event.token.map_or(String::new(), |token| format!(" {token}"));
    let words = match &event.kind {
        Kind::Granted { holder, .. } => format!("granted to {holder}{token}"),
        Kind::Expired { holder, .. } => format!("{holder}'s lease expired"),
        Kind::Deleted { holder, by, .. } if holder == by => format!("{by} released"),
        Kind::Deleted { holder, by, .. } => format!("{by} deleted {holder}'s lock"),
        Kind::LeaseLost { holder } => format!("{holder}'s lease lost"),
        Kind::TokenIssued { .. } => format!("token{token}"),
        Kind::Voted { holder } => format!("vote for {holder}"),
        Kind::Unvoted { holder } => format!("{holder}'s vote gone"),
        Kind::Acquired { .. } => format!("holds the lock{token}"),
        Kind::Queued { .. } => format!("waits{token}"),
        Kind::LostLock { .. } => "learns it lost the lock".to_string(),
        Kind::Released => "releases".to_string(),
        Kind::PauseBegan { .. } => "GC pause: frozen".to_string(),
        Kind::PauseEnded => "resumes, unaware".to_string(),
        Kind::Crashed => "crashed".to_string(),
        Kind::NodeDown { .. } => "crashed".to_string(),
        Kind::NodeUp { .. } => "back up".to_string(),
        Kind::ClockJumped { jump_ms } => format!("clock jumps {jump_ms:+} ms"),
        Kind::WriteAccepted { writer, stale_overwrite: true, .. } => format!("{writer}{token} overwrote newer data"),
        Kind::WriteAccepted { writer, zombie: true, .. } => format!("{writer}{token} accepted (zombie)"),
        Kind::WriteAccepted { writer, .. } => format!("{writer}{token} accepted"),
        Kind::WriteRejected { writer, .. } => format!("{writer}{token} rejected"),
        Kind::ReadVersion { version } => format!("read v{version}"),
        Kind::GaveUp { .. } => "gives up".to_string(),
        Kind::Timeout { .. } => "no answer".to_string(),
        Kind::Truncated { .. } => "run cut short".to_string(),
        _ => return None,
    };
    Some(words)
}
