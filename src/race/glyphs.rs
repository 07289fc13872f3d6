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

/// Natively (`cargo test -p fencing-lab-web --lib`): the glyphs and words
/// are read off typed events, with no browser involved.
#[cfg(test)]
mod tests {
    use super::*;
    use fencing_sim::{presets, run, Scenario};

    fn events_of(scenario: &Scenario) -> Vec<Event> {
        run(scenario).expect("a preset runs").events
    }

    #[test]
    fn the_zombie_write_looks_like_one_and_the_fenced_refusal_like_a_refusal() {
        let unfenced = events_of(&presets::classic());
        let zombie = unfenced.iter().find(|event| kind_name(event) == "stale-overwrite").expect("the classic run's stale overwrite");
        assert_eq!((icon(zombie), class(zombie)), ("☠", "zombie"));
        assert!(short(zombie, LockService::SingleRedis).is_some_and(|words| words.ends_with("overwrote newer data")), "{zombie:?}");
        assert!(is_key(zombie));
        let fenced = events_of(&Scenario { fencing: true, ..presets::classic() });
        assert!(fenced.iter().all(|event| kind_name(event) != "stale-overwrite"), "fencing refuses the zombie");
        let refused = fenced.iter().find(|event| kind_name(event) == "rejected-write").expect("the fenced run's refusal");
        assert_eq!((icon(refused), class(refused)), ("✗", "rejected"));
        assert!(short(refused, LockService::SingleRedis).is_some_and(|words| words.ends_with(" 33 rejected")), "{refused:?}");
    }

    #[test]
    fn messages_are_not_key_events_and_have_no_marker_words() {
        let events = events_of(&presets::classic());
        let send = events.iter().find(|event| matches!(event.kind, Kind::Send { .. })).expect("a send");
        assert_eq!((icon(send), class(send), kind_name(send)), ("→", "message", "event"));
        assert!(!is_key(send));
        assert_eq!(short(send, LockService::SingleRedis), None, "an arrow's label is the message's, not a marker's");
    }

    /// A ZooKeeper token is a czxid, written in hex as the model's sentences
    /// write it; Redis's `INCR` counter is a plain number.
    #[test]
    fn a_zookeeper_token_is_written_in_hex_and_a_redis_one_in_decimal() {
        let zookeeper = presets::build("zookeeper-gc-pause").expect("a preset");
        let service = zookeeper.lock_service;
        let granted = events_of(&zookeeper)
            .into_iter()
            .find(|event| matches!(event.kind, Kind::Acquired { .. }) && event.token.is_some())
            .expect("a holder with a token");
        let words = short(&granted, service).expect("words for a grant");
        assert!(words.starts_with("holds the lock, token 0x"), "{words}");
        let redis = events_of(&presets::classic()).into_iter().find(|event| matches!(event.kind, Kind::Granted { .. })).expect("a grant");
        let words = short(&redis, LockService::SingleRedis).expect("words for a grant");
        assert!(words.starts_with("granted to ") && !words.contains("0x"), "{words}");
    }

    /// Every event of every preset has a glyph from the list above (never
    /// an emoji) and a colour family the style sheet knows.
    #[test]
    fn every_presets_events_get_a_known_glyph_and_class() {
        const GLYPHS: [&str; 14] = ["☠", "⚠", "✓", "!", "✗", "‖", "▶", "◆", "◇", "✱", "→", "←", "•", "✗"];
        const CLASSES: [&str; 9] = ["zombie", "accepted", "rightful", "rejected", "pause", "expired", "granted", "message", "plain"];
        for preset in presets::PRESETS {
            for event in events_of(&(preset.build)()) {
                assert!(GLYPHS.contains(&icon(&event)), "{}: {:?}", preset.id, event.kind);
                assert!(CLASSES.contains(&class(&event)), "{}: {:?}", preset.id, event.kind);
            }
        }
    }
}
