//! The run's one picture in plain words: a short caption for each event the
//! picture marks, and a name for each of its lanes, for a learner who has
//! never seen `SET … NX PX`. The protocol stays in the event's own sentence
//! (`Event::text`), which the page shows as the marker's tooltip and in the
//! details; a caption says what happened to the story ("gets the lock, token
//! 33", "A's lease runs out", "takes A's write: B's newer data is lost").
//!
//! Captions are read off the event's typed fields only (and the service's
//! words: `lease` or `session`), so two runs that did the same thing are
//! captioned the same, and a caption never contradicts the event.

use crate::actor::Actor;
use crate::event::{Event, Kind};
use crate::msg::Msg;
use crate::services::{LockService, Words};
use crate::worksheet::duration;

/// The longest caption, in characters: at the body text's size it still
/// fits a phone's picture on one line (the page's layout assumes it).
pub const CAPTION_CHARS_MAX: usize = 34;

/// A lane's name: "Worker A", "Lock server (Redis)", "Lock server 2
/// (etcd)" where the service has several nodes, "Store".
pub fn lane_name(actor: Actor, service: LockService) -> String {
    match actor {
        Actor::Worker(_) => format!("Worker {actor}"),
        Actor::LockNode(index) if service.nodes() > 1 => format!("Lock server {} ({})", index + 1, server_name(service)),
        Actor::LockNode(_) => format!("Lock server ({})", server_name(service)),
        Actor::Store => "Store".to_string(),
    }
}

/// The product a service runs on, as its makers spell it.
pub fn server_name(service: LockService) -> &'static str {
    match service {
        // Sentinel and Redisson are told by the scenario's line; the lane
        // names the server the lock lives on.
        LockService::SingleRedis | LockService::Redlock | LockService::RedisFailover | LockService::Redisson => "Redis",
        LockService::Consensus => "etcd",
        LockService::ZooKeeper => "ZooKeeper",
        LockService::Consul => "Consul",
        LockService::None => "none",
    }
}

/// The caption of an event the picture marks, or None for one it draws
/// without words (an arrival, a grant told by its holder's lane, chatter).
pub fn caption(event: &Event, service: LockService) -> Option<String> {
    let Words { lease, .. } = service.spec().words;
    let token = |event: &Event| event.token.map(|token| service.token_words(token));
    let with_token = |event: &Event| token(event).map_or(String::new(), |token| format!(" ({token})"));
    let words = match &event.kind {
        Kind::Acquired { .. } => match token(event) {
            Some(token) => format!("gets the lock, token {token}"),
            None => "gets the lock".to_string(),
        },
        Kind::LostLock { .. } => "learns it lost the lock".to_string(),
        Kind::PauseBegan { until_us } => format!("freezes for {}", duration(until_us.saturating_sub(event.t_us) / 1_000)),
        Kind::PauseEnded => "wakes up".to_string(),
        Kind::Crashed | Kind::NodeDown { .. } => "crashes".to_string(),
        Kind::NodeUp { .. } => "back up".to_string(),
        Kind::Send { body: Msg::Write(_), .. } => match token(event) {
            Some(token) => format!("writes, token {token}"),
            None => "writes".to_string(),
        },
        Kind::Lost { body: Msg::Write(_), .. } => "its write is lost".to_string(),
        Kind::Expired { holder, .. } => format!("{holder}'s {lease} runs out"),
        Kind::Deleted { holder, by, .. } if holder == by => format!("{by} lets the lock go"),
        Kind::Deleted { holder, by, .. } => format!("{by} deletes {holder}'s lock"),
        Kind::LeaseLost { holder } => format!("{holder}'s {lease} is lost"),
        Kind::WriteAccepted { writer, stale_overwrite: true, .. } => format!("takes {writer}'s old write{}", with_token(event)),
        Kind::WriteAccepted { writer, zombie: true, .. } => format!("takes {writer}'s write{}: no lock", with_token(event)),
        Kind::WriteAccepted { writer, .. } => format!("takes {writer}'s write{}", with_token(event)),
        Kind::WriteRejected { writer, rightful: true, .. } => format!("refuses {writer}, who holds the lock"),
        Kind::WriteRejected { writer, .. } => format!("refuses {writer}'s write{}", with_token(event)),
        Kind::Promoted { .. } => "replica made primary".to_string(),
        Kind::Demoted { .. } => "demoted, drops its data".to_string(),
        Kind::Elected { .. } => "leads now".to_string(),
        Kind::SteppedDown => "steps down".to_string(),
        Kind::Healed { .. } => "back in reach".to_string(),
        Kind::ClockJumped { jump_ms } if *jump_ms >= 0 => format!("clock jumps {} ahead", duration(jump_ms.unsigned_abs())),
        Kind::ClockJumped { jump_ms } => format!("clock jumps {} back", duration(jump_ms.unsigned_abs())),
        Kind::GaveUp { .. } => "gives up".to_string(),
        Kind::Timeout { .. } => "no answer in time".to_string(),
        Kind::Truncated { .. } => "run cut short here".to_string(),
        Kind::ParentRemoved => "parent znode deleted".to_string(),
        Kind::LeaseClamped { ttl_ms, .. } => format!("{lease} set to {}", duration(*ttl_ms)),
        _ => return None,
    };
    debug_assert!(words.chars().count() <= CAPTION_CHARS_MAX, "caption too long for a phone: {words:?}");
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{presets, run};

    fn captions(scenario: &crate::Scenario) -> Vec<(Actor, String)> {
        let trace = run(scenario).expect("the preset runs");
        trace.events.iter().filter_map(|event| Some((event.actor, caption(event, scenario.lock_service)?))).collect()
    }

    /// The classic run, in the picture's words: the whole story, no protocol.
    #[test]
    fn the_classic_run_is_told_in_plain_words() {
        let said = captions(&presets::classic());
        let has = |actor: Actor, words: &str| said.iter().any(|(by, caption)| *by == actor && caption == words);
        assert!(has(Actor::Worker(0), "gets the lock, token 33"), "{said:?}");
        assert!(has(Actor::Worker(0), "freezes for 15 s"), "{said:?}");
        assert!(has(Actor::LockNode(0), "A's lease runs out"), "{said:?}");
        assert!(has(Actor::Worker(1), "gets the lock, token 34"), "{said:?}");
        assert!(has(Actor::Store, "takes B's write (34)"), "{said:?}");
        assert!(has(Actor::Store, "takes A's old write (33)"), "{said:?}");
        for (_, caption) in &said {
            assert!(!caption.contains("SET") && !caption.contains("NX") && !caption.contains("PX"), "protocol text in {caption:?}");
        }
    }

    /// With fencing on, the same write is refused, in the same words.
    #[test]
    fn the_fenced_run_says_the_store_refuses() {
        let said = captions(&crate::Scenario { fencing: true, ..presets::classic() });
        assert!(said.iter().any(|(by, caption)| *by == Actor::Store && caption == "refuses A's write (33)"), "{said:?}");
    }

    /// Every preset's captions fit a phone's line (the page lays them out
    /// on that promise), fencing on and off.
    #[test]
    fn every_caption_fits_a_phone() {
        for preset in presets::PRESETS {
            for fencing in [false, true] {
                let scenario = crate::Scenario { fencing, ..presets::build(preset.id).expect("a preset") };
                for (_, caption) in captions(&scenario) {
                    assert!(caption.chars().count() <= CAPTION_CHARS_MAX, "{}: {caption:?} is too long", preset.id);
                }
            }
        }
    }

    #[test]
    fn lanes_are_named_for_a_newcomer() {
        assert_eq!(lane_name(Actor::Worker(0), LockService::SingleRedis), "Worker A");
        assert_eq!(lane_name(Actor::LockNode(0), LockService::SingleRedis), "Lock server (Redis)");
        assert_eq!(lane_name(Actor::LockNode(1), LockService::Consensus), "Lock server 2 (etcd)");
        assert_eq!(lane_name(Actor::Store, LockService::Consensus), "Store");
    }
}
