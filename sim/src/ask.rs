//! An instructor's own predict-then-see question, made from any run: what
//! to ask (one of the kinds the model can answer), an optional prompt, and
//! the run. Options and the key come from the run itself, as for the
//! built-in questions; exactly one option holds (a test says so).
//!
//! In a link a question is the run's ordinary settings plus
//! `ask=owner|write:A:2|stale|token:B|refused|lease`, `prompt=` (plain
//! text, at most `PROMPT_CHARS_MAX`) and `sum=` (a checksum of the rest, so
//! an altered link says so). A set of questions is `set=` with each
//! question's link in base64url, joined by '.'.

use crate::actor::Actor;
use crate::event::{Fate, Kind};
use crate::msg::Msg;
use crate::permalink::{self, Permalink};
use crate::scenario::{Fault, Scenario};
use crate::trace::Trace;
use base64::Engine;

/// A prompt longer than this is cut, with a notice.
pub const PROMPT_CHARS_MAX: usize = 280;
/// A set holds at most this many questions, and its link at most this
/// many characters: what a course page's iframe can carry.
pub const SET_QUESTIONS_MAX: usize = 12;
pub const LINK_CHARS_MAX: usize = 8_000;
/// The leases the "smallest lease" question offers, in seconds, and the
/// seeds each is tried with.
const LEASES_S: [u64; 5] = [5, 10, 20, 40, 80];
const LEASE_SEEDS: u64 = 10;

/// What the question asks about the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Whose data does the store hold at the end?
    Owner,
    /// What happens to worker's n-th write?
    WriteFate { worker: Actor, nth: u8 },
    /// How many writes overwrite newer data?
    StaleCount,
    /// Which token does the worker draw first?
    Token { worker: Actor },
    /// Does the store refuse any write?
    AnyRefused,
    /// What is the smallest of these leases that survives this run's faults?
    SmallestLease,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Custom {
    pub scenario: Scenario,
    pub ask: Ask,
    /// The instructor's words; the default prompt when `None`.
    pub prompt: Option<String>,
}

impl Ask {
    /// Whether the options name kinds rather than points on a scale.
    fn is_categorical(self) -> bool {
        match self {
            Ask::Owner | Ask::WriteFate { .. } | Ask::AnyRefused => true,
            Ask::StaleCount | Ask::Token { .. } | Ask::SmallestLease => false,
        }
    }

    fn to_text(self) -> String {
        match self {
            Ask::Owner => "owner".to_string(),
            Ask::WriteFate { worker, nth } => format!("write:{worker}:{nth}"),
            Ask::StaleCount => "stale".to_string(),
            Ask::Token { worker } => format!("token:{worker}"),
            Ask::AnyRefused => "refused".to_string(),
            Ask::SmallestLease => "lease".to_string(),
        }
    }

    fn parse(text: &str) -> Option<Ask> {
        let parts: Vec<&str> = text.split(':').collect();
        match parts[..] {
            ["owner"] => Some(Ask::Owner),
            ["stale"] => Some(Ask::StaleCount),
            ["refused"] => Some(Ask::AnyRefused),
            ["lease"] => Some(Ask::SmallestLease),
            ["token", worker] => {
                worker.parse().ok().filter(|actor: &Actor| actor.worker_index().is_some()).map(|worker| Ask::Token { worker })
            }
            ["write", worker, nth] => {
                let worker: Actor = worker.parse().ok().filter(|actor: &Actor| actor.worker_index().is_some())?;
                nth.parse().ok().filter(|nth| *nth >= 1).map(|nth| Ask::WriteFate { worker, nth })
            }
            _ => None,
        }
    }
}

/// The questions a run can be asked, for the builder's menu.
pub fn asks_for(trace: &Trace) -> Vec<Ask> {
    let mut asks = vec![Ask::Owner, Ask::StaleCount, Ask::AnyRefused];
    for worker in trace.workers() {
        if first_token(trace, worker).is_some() {
            asks.push(Ask::Token { worker });
        }
        for nth in 1..=writes_sent(trace, worker) {
            asks.push(Ask::WriteFate { worker, nth });
        }
    }
    if trace.scenario.faults.iter().any(|fault| matches!(fault, Fault::Pause { .. })) && trace.scenario.lock_service.nodes() > 0 {
        asks.push(Ask::SmallestLease);
    }
    asks
}

impl Custom {
    pub fn prompt(&self) -> String {
        self.prompt.clone().unwrap_or_else(|| default_prompt(self.ask, &self.scenario))
    }

    /// The options in the order learners see them, and which one holds in
    /// the run (`trace` is the run of `self.scenario`). Options that name a
    /// kind (whose data, a write's fate, yes or no) are shuffled by the
    /// question's own link, so no position holds the key across a course's
    /// questions; options that are numbers (counts, tokens, leases) keep
    /// their order, since shuffling a scale only makes it harder to read.
    pub fn options(&self, trace: &Trace) -> (Vec<String>, usize) {
        let (options, key) = self.options_in_order(trace);
        if !self.ask.is_categorical() {
            return (options, key);
        }
        let shown = crate::quiz::shuffled(&self.shuffle_id(), 0, options.len());
        let key = shown.iter().position(|index| *index == key).expect("a permutation holds every index");
        (shown.into_iter().map(|index| options[index].clone()).collect(), key)
    }

    /// The options in their natural order, and the key's index there.
    fn options_in_order(&self, trace: &Trace) -> (Vec<String>, usize) {
        match self.ask {
            Ask::Owner => owner_options(trace),
            Ask::WriteFate { worker, nth } => fate_options(trace, worker, nth),
            Ask::StaleCount => count_options(trace.summary.stale_overwrites),
            Ask::Token { worker } => token_options(trace, worker),
            Ask::AnyRefused => {
                let options = vec!["Yes, the store refuses at least one write".to_string(), "No, it takes every write".to_string()];
                (options, usize::from(trace.summary.rejected_writes == 0))
            }
            Ask::SmallestLease => lease_options(&self.scenario),
        }
    }

    /// What fixes the shuffle: the question as its link reads (the run's
    /// settings and the ask, without the fingerprint, which needs a run).
    fn shuffle_id(&self) -> String {
        let settings = permalink::to_query(&Permalink { scenario: self.scenario.clone(), cursor: None, compare: None });
        format!("{settings}&ask={}", self.ask.to_text())
    }

    /// Why the key is the key, read off the run, for the reveal: the
    /// instructor's question explains itself as the built-in ones do.
    pub fn explain(&self, trace: &Trace) -> String {
        match self.ask {
            Ask::Owner => match last_accepted(trace) {
                Some((writer, token, t_us)) => format!(
                    "{writer}'s write{} was the last one the store accepted, at {}.",
                    token.map_or(String::new(), |token| format!(" with token {token}")),
                    crate::format_us(t_us)
                ),
                None => "The store accepted no write in this run.".to_string(),
            },
            Ask::WriteFate { worker, nth } => explain_fate(trace, worker, nth),
            Ask::StaleCount => format!(
                "The run counts {}: accepted writes that replaced data written under a newer token.",
                crate::count_of(u64::from(trace.summary.stale_overwrites), "stale overwrite", "stale overwrites")
            ),
            Ask::Token { worker } => match trace.events.iter().find(|event| event.actor == worker && matches!(event.kind, Kind::Acquired { .. })) {
                Some(event) => match event.token {
                    Some(token) => format!("{worker} was granted the lock at {} with token {token}.", crate::format_us(event.t_us)),
                    None => format!("{worker} was granted the lock at {}, but this lock service issues no token.", crate::format_us(event.t_us)),
                },
                None => format!("{worker} was never granted the lock in this run, so it drew no token."),
            },
            Ask::AnyRefused => match trace.summary.rejected_writes {
                0 => "The store refused no write in this run: every write that reached it was taken.".to_string(),
                refused => format!("The store refused {}.", crate::count_of(u64::from(refused), "write", "writes")),
            },
            Ask::SmallestLease => format!(
                "Each lease was tried with {LEASE_SEEDS} seeds and these faults; the answer is the smallest with which no write landed late in any of them."
            ),
        }
    }
    /// The question's link: the run's settings and fingerprint, the ask, the
    /// prompt, and a checksum of all of them.
    pub fn to_query(&self) -> String {
        // The run's fingerprint is signed with the rest: a question whose
        // run has changed since it was made is not put to learners.
        let mut query = permalink::to_link(&Permalink { scenario: self.scenario.clone(), cursor: None, compare: None });
        query.push_str(&format!("&ask={}", self.ask.to_text()));
        if let Some(prompt) = &self.prompt {
            query.push_str(&format!("&prompt={}", encode(prompt)));
        }
        let sum = checksum(&query);
        format!("{query}&sum={sum:08x}")
    }
}

/// Reads a question from a link's query. Never fails: what it cannot use it
/// ignores and says so; without a usable `ask` there is no question.
pub fn parse(query: &str) -> (Option<Custom>, Vec<String>) {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut notices = Vec::new();
    if query.chars().count() > LINK_CHARS_MAX {
        notices.push(format!("this question's link is longer than {LINK_CHARS_MAX} characters, so it was not read"));
        return (None, notices);
    }
    let (signed, sum) = match query.rsplit_once("&sum=") {
        Some((signed, sum)) => (signed, u32::from_str_radix(sum, 16).ok()),
        None => (query, None),
    };
    if sum != Some(checksum(signed)) {
        notices.push(
            "this question's link was changed after it was made (its checksum does not match): check the question before using it"
                .to_string(),
        );
    }
    let mut ask = None;
    let mut prompt = None;
    let mut rest = Vec::new();
    for pair in signed.split('&') {
        match pair.split_once('=') {
            Some(("ask", value)) => {
                ask = Ask::parse(value).or_else(|| {
                    notices.push(format!("ignored ask={}: not a question the model can answer", shown(value)));
                    None
                })
            }
            Some(("prompt", value)) => prompt = Some(clean_prompt(&permalink::decode(value), &mut notices)),
            _ => rest.push(pair),
        }
    }
    let (link, scenario_notices) = permalink::parse(&rest.join("&"));
    notices.extend(scenario_notices.into_iter().map(|notice| match notice.strip_prefix(permalink::story::CHANGED) {
        // Its prompt and key were written for the run its author saw.
        Some(difference) => format!(
            "this question was made with an earlier version of the simulator, and its run has changed since ({}), so it is not put to learners until its author makes it again in the builder",
            difference.trim_end_matches('.')
        ),
        None => notice,
    }));
    let custom = ask.map(|ask| Custom { scenario: link.scenario, ask, prompt: prompt.filter(|prompt| !prompt.is_empty()) });
    (custom.filter(|custom| applies(custom, &mut notices)), notices)
}

/// A set's link value: each question's link in base64url, joined by '.'.
pub fn set_to_value(questions: &[Custom]) -> String {
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    questions.iter().map(|question| engine.encode(question.to_query())).collect::<Vec<_>>().join(".")
}

/// Reads a set: every question it can, with notices for the rest.
pub fn parse_set(value: &str) -> (Vec<Custom>, Vec<String>) {
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut notices = Vec::new();
    if value.len() > LINK_CHARS_MAX {
        notices.push(format!("this set's link is longer than {LINK_CHARS_MAX} characters, so it was not read"));
        return (Vec::new(), notices);
    }
    let mut questions = Vec::new();
    for (index, piece) in value.split('.').enumerate() {
        if index == SET_QUESTIONS_MAX {
            notices.push(format!("a set holds at most {SET_QUESTIONS_MAX} questions: the rest were ignored"));
            break;
        }
        let decoded = engine.decode(piece).ok().and_then(|bytes| String::from_utf8(bytes).ok());
        let Some(query) = decoded else {
            notices.push(format!("question {} of the set could not be read: its link is damaged", index + 1));
            continue;
        };
        let (question, question_notices) = parse(&query);
        notices.extend(question_notices.into_iter().map(|notice| format!("question {}: {notice}", index + 1)));
        questions.extend(question);
    }
    (questions, notices)
}

fn applies(custom: &Custom, notices: &mut Vec<String>) -> bool {
    let workers = custom.scenario.workers;
    let fits = match custom.ask {
        Ask::WriteFate { worker, nth } => {
            worker.worker_index().is_some_and(|index| index < workers) && nth <= custom.scenario.writes_per_hold
        }
        Ask::Token { worker } => worker.worker_index().is_some_and(|index| index < workers),
        _ => true,
    };
    if !fits {
        notices.push("the question asks about a worker or a write this run does not have, so it was not shown".to_string());
    }
    fits
}

fn clean_prompt(prompt: &str, notices: &mut Vec<String>) -> String {
    // Plain text: control characters go, and the page never renders it as HTML.
    let cleaned: String = prompt.chars().filter(|c| !c.is_control() || *c == '\n').collect();
    if cleaned.chars().count() > PROMPT_CHARS_MAX {
        notices.push(format!("the question's text was longer than {PROMPT_CHARS_MAX} characters and was cut"));
        return cleaned.chars().take(PROMPT_CHARS_MAX).collect::<String>() + "…";
    }
    cleaned
}

fn default_prompt(ask: Ask, scenario: &Scenario) -> String {
    // The faults are part of the question: without the pause, "it is
    // refused" could not be predicted.
    let setting = crate::worksheet::setting_words(scenario);
    match ask {
        Ask::Owner => format!("{setting}. Whose data does the store hold at the end?"),
        Ask::WriteFate { worker, nth } => format!("{setting}. What happens to {worker}'s write number {nth}?"),
        Ask::StaleCount => format!("{setting}. How many writes overwrite newer data?"),
        Ask::Token { worker } => format!("{setting}. Which fencing token does {worker} draw?"),
        Ask::AnyRefused => format!("{setting}. Does the store refuse any write?"),
        Ask::SmallestLease => format!("{setting}, same faults. What is the smallest of these leases with which no write lands late?"),
    }
}

fn owner_options(trace: &Trace) -> (Vec<String>, usize) {
    let mut options: Vec<String> = trace.workers().iter().map(|worker| format!("{worker}'s data")).collect();
    options.push("Nobody's: no write lands".to_string());
    let key = trace.summary.final_store.and_then(|datum| datum.writer.worker_index()).map_or(options.len() - 1, usize::from);
    (options, key)
}

fn fate_options(trace: &Trace, worker: Actor, nth: u8) -> (Vec<String>, usize) {
    let options = ["It is accepted", "It is accepted, over newer data", "It is refused", "It never reaches the store, or is never sent"];
    let fate = trace.events.iter().find_map(|event| match event.kind {
        Kind::Send { body: Msg::Write(request), fate, .. } if event.actor == worker && request.nth == nth => Some(fate),
        _ => None,
    });
    let key = match fate.flatten() {
        Some(Fate::Accepted | Fate::Zombie) => 0,
        Some(Fate::StaleOverwrite) => 1,
        Some(Fate::Rejected | Fate::RightfulRejected) => 2,
        Some(Fate::Lost) | None => 3,
    };
    (options.map(String::from).to_vec(), key)
}

fn count_options(count: u32) -> (Vec<String>, usize) {
    let options = ["None", "One", "Two", "Three or more"];
    (options.map(String::from).to_vec(), (count as usize).min(3))
}

fn token_options(trace: &Trace, worker: Actor) -> (Vec<String>, usize) {
    let mut tokens: Vec<u64> = trace.workers().into_iter().filter_map(|other| first_token(trace, other)).collect();
    tokens.sort_unstable();
    tokens.dedup();
    let mut options: Vec<String> = tokens.iter().map(|token| format!("Token {token}")).collect();
    options.push("No token at all".to_string());
    let key = first_token(trace, worker).and_then(|token| tokens.iter().position(|known| *known == token)).unwrap_or(options.len() - 1);
    (options, key)
}

/// The smallest of `LEASES_S` with which no write lands late (no zombie
/// write) for any of `LEASE_SEEDS` seeds; the last option when none.
fn lease_options(scenario: &Scenario) -> (Vec<String>, usize) {
    let survives = |ttl_s: u64| {
        (0..LEASE_SEEDS).all(|seed| {
            let tried = Scenario { ttl_ms: ttl_s * 1000, seed: scenario.seed.wrapping_add(seed), ..scenario.clone() };
            crate::run_counts(&tried).is_ok_and(|counts| counts.tally.zombie_writes == 0)
        })
    };
    let mut options: Vec<String> = LEASES_S.iter().map(|ttl_s| format!("{ttl_s} s")).collect();
    options.push(format!("None of these: even {} s is not enough", LEASES_S[LEASES_S.len() - 1]));
    let key = LEASES_S.iter().position(|ttl_s| survives(*ttl_s)).unwrap_or(LEASES_S.len());
    (options, key)
}

/// The store's last accepted write: its writer, token and time.
fn last_accepted(trace: &Trace) -> Option<(Actor, Option<u64>, u64)> {
    trace.events.iter().rev().find_map(|event| match event.kind {
        Kind::WriteAccepted { writer, .. } => Some((writer, event.token, event.t_us)),
        _ => None,
    })
}

/// What became of `worker`'s `nth` write, in a sentence.
fn explain_fate(trace: &Trace, worker: Actor, nth: u8) -> String {
    let sent = trace.events.iter().find_map(|event| match event.kind {
        Kind::Send { body: Msg::Write(request), fate, .. } if event.actor == worker && request.nth == nth => Some((event.t_us, fate)),
        _ => None,
    });
    let Some((t_us, fate)) = sent else {
        return format!("{worker} never sent a write number {nth} in this run.");
    };
    let at = crate::format_us(t_us);
    match fate {
        Some(Fate::Accepted) => format!("{worker} sent it at {at}, and the store accepted it."),
        Some(Fate::Zombie) => format!("{worker} sent it at {at}, after the lock had gone to another worker, and the store accepted it."),
        Some(Fate::StaleOverwrite) => format!("{worker} sent it at {at}, and the store accepted it over data written under a newer token."),
        Some(Fate::Rejected) => format!("{worker} sent it at {at}; the store refused it, having already accepted a newer token."),
        Some(Fate::RightfulRejected) => format!(
            "{worker} sent it at {at}, holding the lock, and the store still refused it: it had seen a higher token, so the tokens were out of order."
        ),
        Some(Fate::Lost) | None => format!("{worker} sent it at {at}, but it never reached the store."),
    }
}

fn first_token(trace: &Trace, worker: Actor) -> Option<u64> {
    trace.events.iter().find(|event| event.actor == worker && matches!(event.kind, Kind::Acquired { .. })).and_then(|event| event.token)
}

fn writes_sent(trace: &Trace, worker: Actor) -> u8 {
    let sent = trace.events.iter().filter(|event| event.actor == worker && matches!(event.kind, Kind::Send { body: Msg::Write(_), .. }));
    sent.count().min(usize::from(trace.scenario.writes_per_hold)) as u8
}

/// FNV-1a over the link: enough to notice an edited link, not a signature.
fn checksum(text: &str) -> u32 {
    crate::fnv1a32(text.as_bytes())
}

/// Percent-encoding for a prompt in a link: unreserved characters stay.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => char::from(byte).to_string(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

fn shown(text: &str) -> String {
    text.chars().take(40).filter(|c| !c.is_control()).collect()
}

#[cfg(test)]
mod tests;
