//! The one-line verdict on a run (or on a run so far), its tone, and a line
//! for every red counter the verdict does not already explain. The page's
//! banner, the command line and the JSON summary all say exactly this.

use crate::actor::Actor;
use crate::event::Tally;
use crate::observer::Highlights;
use crate::scenario::LockService;
use crate::store::Datum;
use serde::Serialize;

/// How the run (so far) went for the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// Nothing has gone wrong yet, and the run is not over.
    Pending,
    /// One holder at a time; no write was damaged.
    Safe,
    /// A stale write came and the store refused it.
    Protected,
    /// The lock failed to keep workers apart, but no newer data was lost.
    Exposed,
    /// The rightful holder was refused: lost liveness, not protection.
    LostLiveness,
    /// Newer data was overwritten by a stale write.
    Damaged,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub tone: Tone,
    pub text: String,
    /// One line for each red counter the text does not already explain.
    pub notes: Vec<String>,
}

/// The verdict for these counters and highlights; `finished` when the run
/// is over (otherwise it speaks of "so far"). `service` names the tokens
/// as its sentences do (`LockService::token_words`: ZooKeeper's in hex).
pub fn verdict(tally: &Tally, highlights: &Highlights, finished: bool, fencing_on: bool, service: LockService) -> Verdict {
    let (tone, topic, text) = headline(tally, highlights, finished, service);
    let notes = notes(tone, topic, tally, highlights, fencing_on, service);
    Verdict { tone, text, notes }
}

/// The verdict at a moment of an unfinished run. While no write has been
/// damaged or let through yet, the headline says what is happening now,
/// which is what a learner scrubbing the run is looking at: two workers
/// who both believe they hold the lock, or a holder whose lease is gone
/// but who does not know it. `believers` are the workers who believe they
/// hold the lock at that moment, each with whether its lease still stands;
/// `lease_on_one_node`, whether a lease is one node's (with several nodes,
/// one node dropping a key is not the lease running out).
pub fn at_moment(so_far: Verdict, believers: &[(Actor, bool)], lease_on_one_node: bool) -> Verdict {
    let quiet = so_far.tone == Tone::Pending || (so_far.tone == Tone::Exposed && so_far.text.contains("each believed they held the lock"));
    if !quiet {
        return so_far;
    }
    let text = match believers {
        [(first, _), (second, _), ..] => format!("{first} and {second} both believe they hold the lock right now: no write damaged yet"),
        [(holder, false)] if lease_on_one_node => {
            format!("{holder}'s lease has run out, but {holder} still believes it holds the lock: no write damaged yet")
        }
        _ => return so_far,
    };
    Verdict { tone: Tone::Exposed, text, ..so_far }
}

/// Which highlight the headline tells, so the notes do not repeat it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Topic {
    StaleOverwrite,
    Rightful,
    SuccessorRelease,
    Zombie,
    Rejected,
    Overlap,
    Nothing,
}

fn headline(tally: &Tally, highlights: &Highlights, finished: bool, service: LockService) -> (Tone, Topic, String) {
    let of_token = |token: Option<u64>| token.map_or_else(String::new, |token| format!(" (token {})", service.token_words(token)));
    if let Some((written, replaced)) = highlights.stale_overwrite {
        let victim = replaced.map_or_else(|| "newer".to_string(), |old| format!("{}'s newer", old.writer));
        let victim_token = replaced.map_or_else(String::new, |old| of_token(old.token));
        let text = format!("{}'s stale write{} overwrote {victim} data{victim_token}", written.writer, of_token(written.token));
        return (Tone::Damaged, Topic::StaleOverwrite, text);
    }
    if let Some((writer, _, refusal)) = highlights.rightful_rejected {
        let refusal = service.refusal_words(refusal);
        return (Tone::LostLiveness, Topic::Rightful, format!("{writer}, the rightful holder, was refused: {refusal}"));
    }
    if let Some((by, holder)) = highlights.successor_release {
        let zombies = count(tally.zombie_writes, "zombie write", "zombie writes");
        let text = format!("{by}'s plain DEL deleted {holder}'s lock, so another worker got it while {holder} still worked: {zombies}");
        return (Tone::Exposed, Topic::SuccessorRelease, text);
    }
    if let Some(Datum { writer, .. }) = highlights.zombie {
        let text = format!("{writer} wrote after losing the lock, before anyone newer had written: nothing could tell");
        return (Tone::Exposed, Topic::Zombie, text);
    }
    if let Some((writer, _, refusal)) = highlights.rejected {
        let refusal = service.refusal_words(refusal);
        return (Tone::Protected, Topic::Rejected, format!("{writer}'s stale write was rejected: {refusal}"));
    }
    if let Some((newcomer, believer)) = highlights.overlap {
        let text = format!("{believer} and {newcomer} each believed they held the lock, but no write was damaged");
        return (Tone::Exposed, Topic::Overlap, text);
    }
    if finished {
        (Tone::Safe, Topic::Nothing, "One holder at a time: no write was damaged".to_string())
    } else {
        (Tone::Pending, Topic::Nothing, "So far one holder at a time: no write damaged".to_string())
    }
}

/// A line for every red counter the headline does not tell.
fn notes(tone: Tone, topic: Topic, tally: &Tally, highlights: &Highlights, fencing_on: bool, service: LockService) -> Vec<String> {
    let mut notes = Vec::new();
    if tally.stale_overwrites > 1 {
        notes.push(format!("{} in all overwrote newer data.", count(tally.stale_overwrites, "stale write", "stale writes")));
    }
    if let Some((writer, _, refusal)) = highlights.rightful_rejected.filter(|_| topic != Topic::Rightful) {
        let refusal = service.refusal_words(refusal);
        notes.push(format!("{writer}, the rightful holder, was refused ({refusal}): lost liveness, not protection."));
    }
    if let Some((by, holder)) = highlights.successor_release.filter(|_| topic != Topic::SuccessorRelease) {
        notes.push(format!("{by}'s plain DEL deleted {holder}'s lock while {holder} still held it."));
    }
    if tally.lock_lost_by_successor_release > 1 {
        let deletions = count(tally.lock_lost_by_successor_release, "plain DEL", "plain DELs");
        notes.push(format!(
            "In all, {deletions} deleted a lock that belonged to someone else: each freed worker's DEL frees the next one's lock."
        ));
    }
    if tally.zombie_writes > 0 && !matches!(topic, Topic::Zombie | Topic::SuccessorRelease) {
        let zombies = count(tally.zombie_writes, "zombie write", "zombie writes");
        notes.push(format!("{zombies}: the store accepted a write from a worker after the lock had passed to another."));
    }
    if let Some((newcomer, believer)) = highlights.overlap.filter(|_| topic != Topic::Overlap) {
        notes.push(overlap_note(newcomer, believer, tone, fencing_on));
    }
    if let Some(worker) = highlights.redone {
        notes.push(format!(
            "{worker}'s job was retried after its result did not land, so its work was done twice: harmless only if the job is idempotent."
        ));
    }
    notes
}

fn overlap_note(newcomer: Actor, believer: Actor, tone: Tone, fencing_on: bool) -> String {
    let tail = match tone {
        Tone::Protected if fencing_on => "; the store's token check kept the data safe",
        Tone::Protected => "; the store's check kept the data safe",
        _ => "",
    };
    format!("{believer} still believed it held the lock when {newcomer} took it — two holders at once{tail}.")
}

/// "1 zombie write", "2 zombie writes".
pub fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
