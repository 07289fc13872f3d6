//! The "predict, then see" quiz. Every question names the run that answers
//! it, and every answer key is read off that run by the model itself, so a
//! key can never drift from what the simulator shows. A question about a
//! rate names the fleet that measures it, and its key is read off that
//! fleet's runs.

use crate::actor::Actor;
use crate::event::{Event, Kind};
use crate::fleet::TradeRow;
use crate::permalink::fleet::{FleetLink, LESSON_FLEET, QUADRUPLED_TTLS_MS};
use crate::permalink::{self, Permalink};
use crate::presets;
use crate::scenario::Scenario;
use crate::sweep::Param;
use crate::trace::{Fencing, Trace};

pub mod lease_rate;

const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);
const C: Actor = Actor::Worker(2);

pub struct Question {
    pub id: &'static str,
    /// A few words for the progress list.
    pub topic: &'static str,
    pub prompt: &'static str,
    pub form: Form,
    /// The run that answers the question (for a question about a rate,
    /// one run of the story the fleet counts).
    pub scenario: fn() -> Scenario,
    /// Shown after answering, right or wrong.
    pub lesson: &'static str,
}

pub enum Form {
    /// Exactly one option holds in the question's run.
    Choice(&'static [Choice]),
    /// A whole number read off the run.
    Number { unit: Unit, key: fn(&Trace) -> Option<u64> },
    /// Put the steps in the order the run shows them (listed here shuffled).
    Order(&'static [Step]),
    /// Pick, among the run's writes, the one `key` singles out.
    PickWrite { key: fn(&Event) -> bool },
    /// Exactly one option holds for the rates `fleet` measures at each of
    /// `ttls_ms` (and with fencing at the shortest): `fleet::trade`'s rows.
    Rate { fleet: FleetLink, ttls_ms: &'static [u64], choices: &'static [Choice<[TradeRow]>] },
}

impl Form {
    /// The options' words and why each is right or wrong, for a form with
    /// options (a run's or a trade's).
    pub fn options(&self) -> Option<Vec<(&'static str, &'static str)>> {
        match self {
            Form::Choice(choices) => Some(choices.iter().map(|choice| (choice.text, choice.why)).collect()),
            Form::Rate { choices, .. } => Some(choices.iter().map(|choice| (choice.text, choice.why)).collect()),
            _ => None,
        }
    }
}

/// What answers a question: its run, and for a question about a rate the
/// trade's rows (empty for any other question).
#[derive(Clone, Copy)]
pub struct Evidence<'a> {
    pub trace: &'a Trace,
    pub trade: &'a [TradeRow],
}

impl Evidence<'_> {
    /// The option of `choices` that holds here, by its position.
    pub fn holding(&self, form: &Form) -> Option<usize> {
        match form {
            Form::Choice(choices) => choices.iter().position(|choice| (choice.holds)(self.trace)),
            Form::Rate { choices, .. } => choices.iter().position(|choice| (choice.holds)(self.trade)),
            _ => None,
        }
    }
}

/// What a number counts, in the singular and the plural.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    pub one: &'static str,
    pub many: &'static str,
}

impl Unit {
    /// "1 zombie write", "2 zombie writes".
    pub fn count(self, n: u64) -> String {
        crate::count_of(n, self.one, self.many)
    }

    /// The question's ask: "How many zombie writes?"
    pub fn how_many(self) -> String {
        format!("How many {}?", self.many)
    }
}

/// An option, holding or not on what answers the question: a run, or a
/// trade's rows.
pub struct Choice<Run: ?Sized + 'static = Trace> {
    pub text: &'static str,
    /// Why it is right, or why it is tempting and wrong.
    pub why: &'static str,
    pub holds: fn(&Run) -> bool,
}

pub struct Step {
    pub text: &'static str,
    /// When the run shows it.
    pub at: fn(&Trace) -> Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Choice(usize),
    Number(u64),
    /// Indices into the listed steps, in the order the learner put them.
    Order(Vec<usize>),
    /// The event index of the picked write.
    Write(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marked {
    pub correct: bool,
    /// The right answer in words.
    pub key: String,
}

impl Question {
    pub fn run(&self) -> Trace {
        crate::run(&(self.scenario)()).expect("every question's scenario is valid (tested)")
    }

    /// The trade a question about a rate reads its key off: the rows
    /// shipped with the question (`lease_rate::ROWS`, the same runs made
    /// natively when the rows were written, and checked against a fresh
    /// run by a test), so a learner can check at once instead of waiting
    /// for the fleets. Empty for any other question.
    pub fn trade(&self) -> &'static [TradeRow] {
        match &self.form {
            Form::Rate { .. } => lease_rate::ROWS,
            _ => &[],
        }
    }

    /// The trade run afresh: what `trade` ships, for the test that keeps
    /// the two equal and for the command that rewrites the shipped rows.
    pub fn trade_run(&self) -> Vec<TradeRow> {
        match &self.form {
            Form::Rate { fleet, ttls_ms, .. } => {
                crate::fleet::trade(&fleet.scenario(), ttls_ms, false).expect("every rate question's fleet is valid (tested)")
            }
            _ => Vec::new(),
        }
    }

    /// The positions a learner sees the options in at `attempt` (0 for a
    /// first visit; the page counts one more each time the quiz is started
    /// over): position → the option's index in `Form::options`. Empty for a
    /// form without options. The same question and attempt always give the
    /// same order, so a link, a course package and a screenshot agree.
    pub fn shown(&self, attempt: u32) -> Vec<usize> {
        self.form.options().map_or_else(Vec::new, |options| shuffled(self.id, attempt, options.len()))
    }

    /// The query that opens this question's run in the race view.
    pub fn run_link(&self) -> String {
        permalink::to_query(&Permalink { scenario: (self.scenario)(), cursor: None, compare: None })
    }

    /// The fleet view's query for a question about a rate.
    pub fn fleet_link(&self) -> Option<String> {
        match &self.form {
            Form::Rate { fleet, .. } => Some(format!("view=fleet&{}", permalink::fleet::to_query(fleet))),
            _ => None,
        }
    }

    pub fn mark(&self, evidence: Evidence, answer: &Answer) -> Marked {
        let (key, trace) = (self.key_words(evidence), evidence.trace);
        let correct = match (&self.form, answer) {
            (Form::Choice(_) | Form::Rate { .. }, Answer::Choice(index)) => evidence.holding(&self.form) == Some(*index),
            (Form::Number { key, .. }, Answer::Number(value)) => key(trace) == Some(*value),
            (Form::Order(steps), Answer::Order(order)) => *order == order_key(steps, trace),
            (Form::PickWrite { key }, Answer::Write(index)) => {
                trace.events.get(*index as usize).is_some_and(|event| is_write(event) && key(event))
            }
            _ => false,
        };
        Marked { correct, key }
    }

    /// The right response as a report writes it (a choice's position as
    /// shown at `attempt`, a listed write's position, a number, positions
    /// joined by "[,]" for an order): an LMS's correct-response pattern and
    /// an Open edX problem's key. None when the run does not single one out.
    pub fn key_response(&self, evidence: Evidence, attempt: u32) -> Option<String> {
        let trace = evidence.trace;
        match &self.form {
            Form::Choice(_) | Form::Rate { .. } => {
                let key = evidence.holding(&self.form)?;
                self.shown(attempt).iter().position(|index| *index == key).map(|position| position.to_string())
            }
            Form::Number { key, .. } => key(trace).map(|value| value.to_string()),
            Form::Order(steps) => Some(order_key(steps, trace).iter().map(usize::to_string).collect::<Vec<_>>().join("[,]")),
            Form::PickWrite { key } => writes(trace).iter().position(|(event, _)| key(event)).map(|index| index.to_string()),
        }
    }

    /// The right answer in words, read off the run.
    pub fn key_words(&self, evidence: Evidence) -> String {
        let trace = evidence.trace;
        match &self.form {
            Form::Choice(_) | Form::Rate { .. } => {
                let options = self.form.options().unwrap_or_default();
                evidence.holding(&self.form).and_then(|index| options.get(index)).map_or("—".into(), |(text, _)| (*text).into())
            }
            Form::Number { unit, key } => key(trace).map_or("—".into(), |value| unit.count(value)),
            Form::Order(steps) => order_key(steps, trace).iter().map(|index| steps[*index].text).collect::<Vec<_>>().join(" → "),
            Form::PickWrite { key } => writes(trace).into_iter().find(|(event, _)| key(event)).map_or("—".into(), |(_, label)| label),
        }
    }
}

/// The writes the store saw, with labels that do not give away their fate.
pub fn writes(trace: &Trace) -> Vec<(&Event, String)> {
    trace
        .events
        .iter()
        .filter(|event| is_write(event))
        .map(|event| {
            let writer = match event.kind {
                Kind::WriteAccepted { writer, .. } | Kind::WriteRejected { writer, .. } => writer,
                _ => unreachable!("filtered to writes"),
            };
            let token = event.token.map_or(String::new(), |token| format!(" with token {token}"));
            (event, format!("{writer}'s write{token}, arriving at {}", crate::format_us(event.t_us)))
        })
        .collect()
}

fn is_write(event: &Event) -> bool {
    matches!(event.kind, Kind::WriteAccepted { .. } | Kind::WriteRejected { .. })
}

/// Step indices sorted by when the run shows each step.
fn order_key(steps: &[Step], trace: &Trace) -> Vec<usize> {
    let mut order: Vec<usize> = (0..steps.len()).collect();
    order.sort_by_key(|index| (steps[*index].at)(trace).unwrap_or(u64::MAX));
    order
}

fn first(trace: &Trace, wanted: impl Fn(&Event) -> bool) -> Option<&Event> {
    trace.events.iter().find(|event| wanted(event))
}

fn acquired_at(trace: &Trace, worker: Actor) -> Option<u64> {
    first(trace, |event| event.actor == worker && matches!(event.kind, Kind::Acquired { .. })).map(|event| event.t_us)
}

fn wrote(trace: &Trace, worker: Actor) -> bool {
    trace
        .events
        .iter()
        .any(|event| matches!(event.kind, Kind::WriteAccepted { writer, .. } | Kind::WriteRejected { writer, .. } if writer == worker))
}

/// The zombie rates per 10,000 jobs at a trade's shortest lease and at four
/// times it, both without fencing.
fn quadrupled(trade: &[TradeRow]) -> Option<(f64, f64)> {
    crate::fleet::Quadrupled::of(trade).map(|rows| (rows.short.zombie_rate.per_10k, rows.long.zombie_rate.per_10k))
}

fn preset(id: &str) -> Scenario {
    presets::build(id).expect("quiz presets exist")
}

fn with_pause(scenario: Scenario, pause_ms: u64) -> Scenario {
    Param::PauseMs.apply(&scenario, pause_ms)
}

fn fenced(scenario: Scenario) -> Scenario {
    Scenario { fencing: true, ..scenario }
}

/// The explorer's shortest schedule breaking the fenced GC-pause design with
/// a token from a separate INCR (computed, not written down).
fn separate_incr_counterexample() -> Scenario {
    let design = fenced(presets::classic());
    match crate::explore::explore(&design, crate::property::Property::NoStaleOverwrite, 1) {
        Ok(crate::explore::Outcome::Counterexample(found)) => found.scenario,
        _ => design,
    }
}

/// That same schedule on the design with the atomic script and a durable
/// counter.
fn atomic_script_same_freeze() -> Scenario {
    Scenario {
        token_source: crate::scenario::TokenSource::AtomicScript,
        redis_persistence: crate::scenario::RedisPersistence::FsyncAlways,
        ..separate_incr_counterexample()
    }
}

fn nfs_fenced() -> Scenario {
    Scenario { store: crate::scenario::StoreKind::NfsFile, fencing: true, ..presets::classic() }
}

/// A permutation of `0..options` drawn from `id` and `attempt` alone:
/// position → index. Options are listed in a fixed order in the source (an
/// author tends to put the key in the same place); the learner sees them in
/// this order instead, so no position, and no habit of the author's, holds
/// the key. A quiz-wide test keeps the keys' positions balanced.
pub fn shuffled(id: &str, attempt: u32, options: usize) -> Vec<usize> {
    let mut state = u64::from(crate::fnv1a32(format!("{id}#{attempt}").as_bytes()));
    let mut order: Vec<usize> = (0..options).collect();
    // Fisher–Yates, one draw per option: bounded by the option count.
    for last in (1..options).rev() {
        state = splitmix64(state);
        let pick = (state % (last as u64 + 1)) as usize;
        order.swap(last, pick);
    }
    debug_assert!({
        let mut sorted = order.clone();
        sorted.sort_unstable();
        sorted == (0..options).collect::<Vec<_>>()
    });
    order
}

/// SplitMix64's step: every bit of the state moves every bit of the output,
/// so ids that differ in a letter shuffle unrelatedly.
fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub const QUESTIONS: &[Question] = &[
    Question {
        id: "gc-pause",
        topic: "A GC pause outlives the lease",
        prompt: "Worker A takes a lock in Redis with a 10 s lease, then freezes in a 15 s stop-the-world garbage collection. \
                 The lease runs out while A is frozen, and Worker B takes the lock. A wakes up and writes to the shared store, which takes any write it is sent. What happens?",
        form: Form::Choice(&[
            Choice {
                text: "A checks the clock on waking, sees that its lease has run out, and drops the write.",
                why: "A could notice the pause afterwards by comparing clocks, but nothing in its code looks between waking and writing: the write goes out as if no time had passed.",
                holds: |trace| !wrote(trace, A),
            },
            Choice {
                text: "A's write goes through and replaces B's newer data.",
                why: "A wakes still believing it holds the lock and sends its write; a store that takes any write replaces B's data with A's older result.",
                holds: |trace| trace.summary.stale_overwrites > 0,
            },
            Choice {
                text: "The store refuses A's write, because A's token 33 is older than B's token 34.",
                why: "Only a store that checks tokens can refuse it, and this one takes any write: the token travels with the write and nothing reads it.",
                holds: |trace| trace.summary.rejected_writes > 0,
            },
            Choice {
                text: "Redis sees the lease expire and stops A's process before it can write anything.",
                why: "Redis keeps a key with an expiry. It has no way to reach into a client's process, let alone stop it.",
                holds: |trace| trace.events.iter().any(|event| event.actor == A && event.kind == Kind::Crashed),
            },
        ]),
        scenario: presets::classic,
        lesson: "The lock service can take a lease back; it cannot stop a paused process from acting on it. Only the resource, checking the token at the moment of the write, can refuse the zombie.",
    },
    Question {
        id: "lease-x4",
        topic: "A four times longer lease",
        prompt: "The team quadruples the lease to 40 s. A takes the lock and works for 30 s; then, just before writing, \
                 it freezes in the same 15 s pause that broke the 10 s lease. There is no fencing. What happens?",
        form: Form::Choice(&[
            Choice {
                text: "Nothing goes wrong: a 15 s pause fits comfortably inside a 40 s lease, with time to spare.",
                why: "The lease counts from the grant, not from the pause: 30 s of work and 15 s of pause is 45 s, and the lease ends at 40 s, in the middle of the pause.",
                holds: |trace| trace.summary.zombie_writes == 0,
            },
            Choice {
                text: "The lease runs out mid-pause, and A's write lands after B has the lock.",
                why: "30 s of work plus 15 s of pause outlasts the 40 s lease: B is granted the lock while A is frozen, and the store takes A's late write. The longer lease made this rarer, not impossible.",
                holds: |trace| trace.summary.zombie_writes > 0,
            },
            Choice {
                text: "B takes the lock when the 40 s are up, and the store refuses A's late write.",
                why: "The first half is right, but a store with no fencing refuses nothing: it has no token to compare.",
                holds: |trace| trace.summary.rejected_writes > 0,
            },
        ]),
        scenario: || Scenario { work_ms: 30_000, ..preset("lease-x4") },
        lesson: "Tuning the lease picks a probability; it does not build a guarantee. A fencing token has no such parameter.",
    },
    Question {
        id: "lease-rate",
        topic: "How rare is rarer?",
        prompt: "Eight workers run 200 ms jobs back to back for a simulated day in CPU-throttled containers, their pauses drawn from an illustrative shape (its tail is assumed, not measured): most pauses are short, a few are very long. \
                 With a 10 s lease and no fencing, some pauses outlast the lease and the store takes zombie writes. The team quadruples the lease to 40 s. \
                 Under this pause shape, what happens to the zombie writes per 10,000 jobs?",
        form: Form::Rate {
            fleet: LESSON_FLEET,
            ttls_ms: &QUADRUPLED_TTLS_MS,
            choices: &[
                Choice {
                    text: "They stop: in a whole simulated day, no pause outlasts a 40 s lease.",
                    why: "This shape's tail reaches past 40 s: over enough jobs some pause outlasts the longer lease too, and the fleet counts them.",
                    holds: |trade| quadrupled(trade).is_some_and(|(_, long)| long == 0.0),
                },
                Choice {
                    text: "They fall, but not to zero.",
                    why: "Fewer pauses last 40 s than 10 s, so fewer zombies; the tail still reaches past 40 s, and every genuine crash now keeps everyone waiting about 40 s instead of about 10 s.",
                    holds: |trade| quadrupled(trade).is_some_and(|(short, long)| 0.0 < long && long < short),
                },
                Choice {
                    text: "They stay about where they were: the lease length hardly matters to zombie writes.",
                    why: "It does matter: a zombie needs a pause longer than the lease, and fewer pauses outlast 40 s than 10 s.",
                    holds: |trade| quadrupled(trade).is_some_and(|(short, long)| long > 0.0 && long >= short),
                },
            ],
        },
        scenario: || with_pause(preset("lease-x4"), 45_000),
        lesson: "Under this pause shape, the longer lease bought a lower rate, not zero, and paid for it in recovery time; with pauses that never outlast the lease it would reach zero, but no one can promise that bound. Fencing kept stale overwrites at zero with the short lease.",
    },
    Question {
        id: "renewal",
        topic: "Watchdog renewal against a long pause",
        prompt: "A runs a watchdog that renews its 10 s lease every 3.3 s. After 5 s of work, A freezes for 15 s just before writing. Without fencing, what happens?",
        form: Form::Choice(&[
            Choice {
                text: "The watchdog keeps renewing the lease, so B keeps waiting and nothing goes wrong.",
                why: "The watchdog is a thread of the same process: a stop-the-world pause freezes it too, so no renewal is sent while A is frozen.",
                holds: |trace| trace.summary.stale_overwrites == 0 && trace.summary.zombie_writes == 0,
            },
            Choice {
                text: "The watchdog freezes with A; B takes over, and A's write lands on B's data.",
                why: "No renewal goes out while A is frozen, so the lease runs out and B takes the lock. When A resumes, its first renewal is refused, but the write it was about to send goes out at the same moment.",
                holds: |trace| trace.summary.stale_overwrites > 0,
            },
            Choice {
                text: "When A wakes, its watchdog's renewal is refused, A learns that it lost the lock, and it cancels the write.",
                why: "The renewal and the write leave together when A resumes: the refusal comes back after the write has already gone.",
                holds: |trace| !wrote(trace, A),
            },
        ]),
        scenario: || preset("renewal"),
        lesson: "Renewal protects against pauses shorter than the rest of the lease, and against nothing longer.",
    },
    Question {
        id: "check-then-write",
        topic: "Checking the lease right before writing",
        prompt: "A asks the lock service \"is the lock still mine?\" right before writing, hears yes, and then freezes for 15 s before the write goes out. \
                 With no fencing, how many zombie writes does the store accept?",
        form: Form::Number { unit: Unit { one: "zombie write", many: "zombie writes" }, key: |trace| Some(u64::from(trace.summary.zombie_writes)) },
        scenario: || preset("check-then-write"),
        lesson: "A check and a write are two steps; a pause can always fall between them. Only a check done by the store, as part of the write, closes the gap.",
    },
    Question {
        id: "idempotent",
        topic: "Idempotent writes versus fencing",
        prompt: "A's write is idempotent: applying it twice has the same effect as once. In the GC-pause story, does that protect B's data from A's zombie write?",
        form: Form::Choice(&[
            Choice {
                text: "Yes: applying a write a second time is harmless, so A's late write does no damage.",
                why: "A's write is not a repeat of B's. It carries a different, older value, and idempotency says nothing about which value should win.",
                holds: |trace| trace.summary.stale_overwrites == 0,
            },
            Choice {
                text: "No: A's older value still replaces B's newer one.",
                why: "Idempotency makes retries of the same write safe; A's write is another write. Fencing, not idempotency, makes stale writes fail.",
                holds: |trace| trace.summary.stale_overwrites > 0,
            },
            Choice {
                text: "Yes: the store recognises A's write as a duplicate of one it has seen, and drops it.",
                why: "The store keeps no list of writes it has seen, and A's write is not a duplicate of B's: it carries another value.",
                holds: |trace| trace.summary.rejected_writes > 0,
            },
        ]),
        scenario: presets::classic,
        lesson: "A zombie writing an old value idempotently is still writing the wrong value.",
    },
    Question {
        id: "set-nx-token",
        topic: "Is a random lock value a fencing token?",
        prompt: "Redlock, like a bare SET NX, identifies the holder with a random value rather than a counter. The store has fencing switched on. \
                 A clock jump lets B take the lock while A still works. Does the store stop A's stale write?",
        form: Form::Choice(&[
            Choice {
                text: "Yes: the store compares A's lock value with B's and refuses the older of the two.",
                why: "Two random values have no order: the store cannot tell which one is newer, so there is nothing to compare.",
                holds: |trace| trace.summary.rejected_writes > 0,
            },
            Choice {
                text: "No: a random value has no order, so A's write lands.",
                why: "A random value is good for a safe release (only the owner deletes its lock), not for fencing: with nothing to order, fencing is unavailable.",
                holds: |trace| matches!(trace.summary.fencing, Fencing::Unavailable(_)) && trace.summary.stale_overwrites > 0,
            },
            Choice {
                text: "There is no stale write: Redlock takes A's lock back on every master before B is granted it.",
                why: "No master can reach into A's process: A still believes it holds the lock, and it writes.",
                holds: |trace| !wrote(trace, A),
            },
        ]),
        scenario: || fenced(preset("redlock-clock-jump")),
        lesson: "Fencing needs a number that only grows with every grant: an INCR counter, a ZooKeeper czxid, an etcd revision.",
    },
    Question {
        id: "redlock",
        topic: "Redlock under a clock jump",
        prompt: "A holds 3 of 5 Redlock masters. One of those masters' clock jumps 10 s ahead, so its copy of A's key expires at once, and B gathers a majority too. \
                 How many mutual exclusion violations (two workers believing they hold the lock at once) does the run count?",
        form: Form::Number { unit: Unit { one: "mutual exclusion violation", many: "mutual exclusion violations" }, key: |trace| Some(u64::from(trace.summary.mutual_exclusion_violations)) },
        scenario: || preset("redlock-clock-jump"),
        lesson: "Redlock's safety rests on clocks behaving; when one jumps, two clients can each hold a majority's blessing.",
    },
    Question {
        id: "naive-del",
        topic: "A plain DEL after the lease expired",
        prompt: "A pauses past its lease and releases with a plain DEL instead of the compare-and-delete script. Put what happens in order.",
        form: Form::Order(&[
            Step {
                text: "C takes the lock while B is still working",
                at: |trace| acquired_at(trace, C),
            },
            Step {
                text: "A's lease expires while A is frozen",
                at: |trace| first(trace, |event| matches!(event.kind, Kind::Expired { holder: A, .. })).map(|event| event.t_us),
            },
            Step {
                text: "A wakes up and its plain DEL deletes B's lock",
                at: |trace| first(trace, |event| matches!(event.kind, Kind::Deleted { holder: B, by: A, .. })).map(|event| event.t_us),
            },
            Step { text: "B takes the lock", at: |trace| acquired_at(trace, B) },
        ]),
        scenario: || preset("naive-del"),
        lesson: "Release must check ownership atomically: delete the key only if it still holds my value. A plain DEL frees whoever's lock is there.",
    },
    Question {
        id: "nfs",
        topic: "A store that cannot check",
        prompt: "The shared resource is a plain file on NFS. The code \"has fencing on\": it sends its token with every write. \
                 A's zombie write (token 33) arrives after B's (token 34). Whose data is in the file at the end?",
        form: Form::Choice(&[
            Choice {
                text: "B's: the file system sees that token 33 is older than 34 and refuses A's write.",
                why: "Refusing needs a resource that can compare: a token column, a conditional write, a version check. A plain file write takes whatever arrives.",
                holds: |trace| trace.summary.final_store.is_some_and(|datum| datum.writer == B),
            },
            Choice {
                text: "A's: the later write wins.",
                why: "A plain file cannot compare tokens, so fencing is unavailable: the last write to arrive is the one the file keeps. Say so, and choose another resource or another approach.",
                holds: |trace| trace.summary.final_store.is_some_and(|datum| datum.writer == A),
            },
            Choice {
                text: "Neither: NFS sees two writers with different tokens and rejects both writes.",
                why: "NFS has no idea what a token is: to the file system, both are ordinary writes, and it takes both.",
                holds: |trace| trace.summary.final_store.is_none(),
            },
        ]),
        scenario: nfs_fenced,
        lesson: "Fencing is a property of the resource. If the resource cannot check, there is no fencing, whatever the client sends.",
    },
    Question {
        id: "crash",
        topic: "A holder crashes",
        prompt: "A takes a 10 s lease and crashes 1 s later without releasing. How many whole seconds after the crash does B get the lock?",
        form: Form::Number {
            unit: Unit { one: "second", many: "seconds" },
            key: |trace| {
                let crash = first(trace, |event| event.actor == A && event.kind == Kind::Crashed)?.t_us;
                Some((acquired_at(trace, B)? - crash) / 1_000_000)
            },
        },
        scenario: || preset("holder-crash"),
        lesson: "The lease is what restores liveness after a crash; its length is also how long everyone waits. Another reason a longer lease is not free.",
    },
    Question {
        id: "no-lock",
        topic: "Do you need a lock at all?",
        prompt: "No lock at all: each worker reads the data with its version and writes \"only if the version is still the one I read\". \
                 A reads and freezes for 15 s; meanwhile B reads and writes. What happens to A's write?",
        form: Form::Choice(&[
            Choice {
                text: "It overwrites B's data: with no lock and no lease, nothing can stop a late write from landing.",
                why: "The version check stops it: B's write moved the version on, so A's condition no longer holds.",
                holds: |trace| trace.summary.rejected_writes == 0,
            },
            Choice {
                text: "It is refused; A rereads, redoes its work, and writes on top of B's.",
                why: "Optimistic concurrency needs no lock and no lease: no update is lost. The price is that A does its work twice.",
                holds: |trace| trace.summary.rejected_writes > 0 && trace.summary.accepted_writes == 2 && trace.summary.work_redone == 1,
            },
            Choice {
                text: "It is refused, and A's job is simply lost: a version check has no way to retry the work.",
                why: "The refusal tells A that the data moved on; A reads again and redoes its job, as a job runner does with a failed attempt.",
                holds: |trace| trace.summary.rejected_writes > 0 && trace.summary.work_redone == 0,
            },
        ]),
        scenario: || preset("no-lock-version"),
        lesson: "A conditional write loses no update, but a refused writer redoes its work, so any effect outside the store must be safe to repeat. Reaching for it (or partitioning the work) before a lock is the senior answer.",
    },
    Question {
        id: "separate-incr",
        topic: "Is a token from a separate INCR safe?",
        prompt: "Fencing is on, and each worker takes the lock with SET NX, then draws its token with INCR in a second round trip. \
                 The explorer tries every pause of each worker before each of its messages. Can a pause make the store take a stale write?",
        form: Form::Choice(&[
            Choice {
                text: "No: with fencing on, the store refuses every token lower than one it has seen, so nothing stale can land.",
                why: "Only if the tokens are in grant order. Here they are not: a token drawn after the grant can be newer than a successor's.",
                holds: |trace| trace.summary.stale_overwrites == 0,
            },
            Choice {
                text: "Yes: a worker frozen between SET and INCR draws a newer token than its successor.",
                why: "The explorer's shortest schedule: A freezes with its SET granted, its lease runs out, B draws 33, A wakes and draws 34, and the store takes A's stale write.",
                holds: |trace| trace.summary.stale_overwrites > 0 && trace.events.iter().any(|event| matches!(event.kind, Kind::PauseBegan { .. })),
            },
            Choice {
                text: "Only if Redis crashes and restarts without its counter, and hands out the same token twice.",
                why: "A Redis restart without persistence is another way to lose the order, but here no node crashed: one pause was enough.",
                holds: |trace| trace.events.iter().any(|event| matches!(event.kind, Kind::NodeDown { .. })),
            },
        ]),
        scenario: separate_incr_counterexample,
        lesson: "Fencing is only as good as the order of its tokens. Draw the token atomically with the grant: one Lua script, or a consensus lock's revision.",
    },
    Question {
        id: "atomic-script",
        topic: "The same freeze, with one Lua script",
        prompt: "Now one Lua script sets the lock and draws the token in a single step, on a Redis that keeps its counter on disk. \
                 A freezes just as long, before its second message (with one script, that is its write). What does the store do with A's write?",
        form: Form::Choice(&[
            Choice {
                text: "It takes it: the freeze still lets A draw the newer of the two tokens after B.",
                why: "A's token now comes with its grant, before the freeze, so B's token is the newer one.",
                holds: |trace| trace.summary.stale_overwrites > 0,
            },
            Choice {
                text: "It refuses it: B's token is newer.",
                why: "A's token came with its grant, before the freeze, so B drew the next number. This freeze can no longer invert the tokens; the verdict table lists the faults that still break this design.",
                holds: |trace| trace.summary.stale_overwrites == 0 && trace.summary.rejected_writes > 0,
            },
            Choice {
                text: "Nothing: A never writes, because the script notices the freeze and cancels A's lock.",
                why: "A script runs inside Redis; it cannot see or stop a paused client. A still writes, and the store decides.",
                holds: |trace| !wrote(trace, A),
            },
        ]),
        scenario: atomic_script_same_freeze,
        lesson: "One atomic step for the grant and the token, a counter that survives restarts, and a store that checks: each is needed, none is enough alone.",
    },
    Question {
        id: "pick-rejected",
        topic: "Which write does the store refuse?",
        prompt: "Fencing is on in the GC-pause story. Which write does the store refuse?",
        form: Form::PickWrite { key: |event| matches!(event.kind, Kind::WriteRejected { .. }) },
        scenario: || fenced(presets::classic()),
        lesson: "The store remembers the highest token it accepted (34) and refuses anything lower, no matter when it arrives.",
    },
];

pub fn find(id: &str) -> Option<(usize, &'static Question)> {
    QUESTIONS.iter().enumerate().find(|(_, question)| question.id == id)
}

/// The questions' ids alone, evaluated when the crate is compiled: a page
/// that only checks a link's `quiz=` (the race's build) links these strings
/// and none of the questions' runs or words.
pub const IDS: [&str; QUESTIONS.len()] = {
    let mut ids = [""; QUESTIONS.len()];
    let mut index = 0;
    while index < QUESTIONS.len() {
        ids[index] = QUESTIONS[index].id;
        index += 1;
    }
    ids
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A question's trade, as shipped with it.
    fn trade_of(question: &Question) -> &'static [TradeRow] {
        question.trade()
    }

    /// The shipped rows are the fleets' own: a fresh native run of the same
    /// fleets gives the same rows, bit for bit. `UPDATE_GOLDEN=1` rewrites
    /// them when a change to the model is meant to move them.
    #[test]
    fn the_shipped_trade_is_the_fleets() {
        let (_, question) = find("lease-rate").unwrap();
        let fresh = question.trade_run();
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/quiz/lease_rate.rs");
            let old = std::fs::read_to_string(path).unwrap();
            let head = &old[..old.find("pub const ROWS").expect("the rows' constant")];
            let rate =
                |rate: crate::fleet::Rate| format!("Rate {{ per_10k: {:?}, low: {:?}, high: {:?} }}", rate.per_10k, rate.low, rate.high);
            let rows: String = fresh
                .iter()
                .map(|row| {
                    format!(
                        "    TradeRow {{\n        ttl_ms: {},\n        fencing: {},\n        renewal: {},\n        jobs: {},\n        zombie_rate: {},\n        stale_rate: {},\n        crash_wait_us: {},\n    }},\n",
                        row.ttl_ms, row.fencing, row.renewal, row.jobs, rate(row.zombie_rate), rate(row.stale_rate), row.crash_wait_us
                    )
                })
                .collect();
            let head = head.replace("use crate::fleet::TradeRow;", "use crate::fleet::{Rate, TradeRow};");
            std::fs::write(path, format!("{head}pub const ROWS: &[TradeRow] = &[\n{rows}];\n")).unwrap();
        }
        assert_eq!(question.trade(), &fresh[..], "the shipped rows are stale: rewrite them with UPDATE_GOLDEN=1");
    }

    /// Where each multiple-choice key is shown at `attempt`, over the quiz.
    fn key_positions(attempt: u32) -> Vec<(&'static str, usize, usize)> {
        QUESTIONS
            .iter()
            .filter(|question| question.form.options().is_some())
            .map(|question| {
                let trace = question.run();
                let evidence = Evidence { trace: &trace, trade: trade_of(question) };
                let key: usize = question.key_response(evidence, attempt).unwrap().parse().unwrap();
                (question.id, key, question.form.options().unwrap().len())
            })
            .collect()
    }

    /// No position holds the key often enough to be learned: at the first
    /// attempt no position holds more than 40 % of the keys, and over ten
    /// attempts none holds more than its fair share by much.
    #[test]
    fn no_position_gives_the_key_away() {
        let first = key_positions(0);
        assert!(first.len() >= 10, "the quiz has {} multiple-choice questions", first.len());
        for position in 0..4 {
            let holding: Vec<&str> = first.iter().filter(|(_, key, _)| *key == position).map(|(id, _, _)| *id).collect();
            assert!(
                holding.len() * 10 <= first.len() * 4,
                "position {position} holds {} of {} keys: {holding:?}",
                holding.len(),
                first.len()
            );
        }
        let mut counts = [0usize; 4];
        let mut total = 0;
        for attempt in 0..10 {
            for (_, key, _) in key_positions(attempt) {
                counts[key] += 1;
                total += 1;
            }
        }
        assert!(counts.iter().all(|count| count * 100 <= total * 45), "keys by position over ten attempts: {counts:?} of {total}");
    }

    /// The key is not told by its length, by being the only option that
    /// names the lesson's concept, or by the prompt repeating it.
    #[test]
    fn no_key_is_given_away_by_its_words() {
        let mut longest = Vec::new();
        for question in QUESTIONS {
            let Some(options) = question.form.options() else { continue };
            let trace = question.run();
            let key = Evidence { trace: &trace, trade: trade_of(question) }.holding(&question.form).unwrap();
            let key_text = options[key].0;
            if options.iter().all(|(text, _)| text.len() <= key_text.len()) {
                longest.push(question.id);
            }
            for concept in ["token", "fenc", "lease", "version", "counter"] {
                let names = |text: &str| text.to_lowercase().contains(concept);
                if names(key_text) {
                    let others = options.iter().enumerate().filter(|(index, (text, _))| *index != key && names(text)).count();
                    assert!(others > 0, "{}: only the key names {concept:?}", question.id);
                }
            }
            // No run of four words of the key stands in the prompt.
            let words: Vec<String> =
                key_text.split_whitespace().map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).collect();
            let prompt = question.prompt.to_lowercase();
            for run in words.windows(4) {
                assert!(!prompt.contains(&run.join(" ")), "{}: the prompt says {:?}", question.id, run.join(" "));
            }
        }
        let choices = QUESTIONS.iter().filter(|question| question.form.options().is_some()).count();
        assert!(longest.len() * 3 <= choices, "the key is the longest option in {} of {choices} questions: {longest:?}", longest.len());
    }

    #[test]
    fn the_shown_order_is_a_permutation_fixed_by_id_and_attempt() {
        for options in 1..=6 {
            for attempt in 0..5 {
                let order = shuffled("gc-pause", attempt, options);
                let mut sorted = order.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..options).collect::<Vec<_>>());
                assert_eq!(order, shuffled("gc-pause", attempt, options), "deterministic");
            }
        }
        // Attempts differ: a learner who starts over meets another order.
        let orders: std::collections::BTreeSet<Vec<usize>> = (0..8).map(|attempt| shuffled("gc-pause", attempt, 4)).collect();
        assert!(orders.len() > 3, "{orders:?}");
        assert_eq!(shuffled("x", 0, 0), Vec::<usize>::new());
    }

    /// Every key is read off the model's run, and is unambiguous there.
    #[test]
    fn every_question_has_exactly_one_key_in_its_run() {
        for question in QUESTIONS {
            let trace = question.run();
            match &question.form {
                Form::Choice(choices) => {
                    let holding: Vec<&str> = choices.iter().filter(|choice| (choice.holds)(&trace)).map(|choice| choice.text).collect();
                    assert_eq!(holding.len(), 1, "{}: options that hold: {holding:?}", question.id);
                }
                Form::Number { key, .. } => assert!(key(&trace).is_some(), "{}", question.id),
                Form::Order(steps) => {
                    let mut times: Vec<u64> =
                        steps.iter().map(|step| (step.at)(&trace).unwrap_or_else(|| panic!("{}: {}", question.id, step.text))).collect();
                    assert_ne!(order_key(steps, &trace), (0..steps.len()).collect::<Vec<_>>(), "{}: listed already in order", question.id);
                    times.sort_unstable();
                    times.dedup();
                    assert_eq!(times.len(), steps.len(), "{}: steps at the same moment", question.id);
                }
                Form::PickWrite { key } => {
                    let picked = writes(&trace).iter().filter(|(event, _)| key(event)).count();
                    assert_eq!(picked, 1, "{}", question.id);
                    assert!(writes(&trace).len() > 1, "{}: a pick needs a choice", question.id);
                }
                Form::Rate { choices, .. } => {
                    let trade = trade_of(question);
                    let holding: Vec<&str> = choices.iter().filter(|choice| (choice.holds)(trade)).map(|choice| choice.text).collect();
                    assert_eq!(holding.len(), 1, "{}: options that hold: {holding:?}", question.id);
                }
            }
        }
    }

    /// The key marks as right and something else marks as wrong.
    #[test]
    fn marking_agrees_with_the_key() {
        for question in QUESTIONS {
            let trace = question.run();
            let evidence = Evidence { trace: &trace, trade: trade_of(question) };
            let (right, wrong) = match &question.form {
                Form::Choice(_) | Form::Rate { .. } => {
                    let right = evidence.holding(&question.form).unwrap();
                    let options = question.form.options().unwrap().len();
                    (Answer::Choice(right), Answer::Choice((right + 1) % options))
                }
                Form::Number { key, .. } => {
                    let value = key(&trace).unwrap();
                    (Answer::Number(value), Answer::Number(value + 1))
                }
                Form::Order(steps) => {
                    let right = order_key(steps, &trace);
                    let mut wrong = right.clone();
                    wrong.swap(0, 1);
                    (Answer::Order(right), Answer::Order(wrong))
                }
                Form::PickWrite { key } => {
                    let all = writes(&trace);
                    let right = all.iter().find(|(event, _)| key(event)).unwrap().0.index;
                    let wrong = all.iter().find(|(event, _)| !key(event)).unwrap().0.index;
                    (Answer::Write(right), Answer::Write(wrong))
                }
            };
            assert!(question.mark(evidence, &right).correct, "{}", question.id);
            assert!(!question.mark(evidence, &wrong).correct, "{}", question.id);
            assert_ne!(question.key_words(evidence), "—", "{}", question.id);
        }
    }

    #[test]
    fn the_keys_are_the_numbers_the_lesson_quotes() {
        let key = |id: &str| {
            let (_, question) = find(id).unwrap();
            question.key_words(Evidence { trace: &question.run(), trade: trade_of(question) })
        };
        assert_eq!(key("check-then-write"), "1 zombie write");
        assert_eq!(key("crash"), "9 seconds");
        assert_eq!(key("redlock"), "1 mutual exclusion violation");
        assert!(key("pick-rejected").starts_with("A's write with token 33"));
        assert_eq!(
            key("naive-del"),
            "A's lease expires while A is frozen → B takes the lock → A wakes up and its plain DEL deletes B's lock → C takes the lock while B is still working"
        );
        assert_eq!(QUESTIONS[0].id, "gc-pause", "the seed's question comes first");
        assert_eq!(key("lease-rate"), "They fall, but not to zero.");
        assert_eq!(QUESTIONS.len(), 15);
    }

    /// The rate question and the lesson's figure compare one fleet: the
    /// sentence the reveal shows is the lesson's, read off the same rows.
    #[test]
    fn the_rate_question_reads_the_lessons_fleet() {
        let (_, question) = find("lease-rate").unwrap();
        let Form::Rate { fleet, ttls_ms, .. } = question.form else { panic!("lease-rate is a rate question") };
        assert_eq!((fleet, ttls_ms), (LESSON_FLEET, &QUADRUPLED_TTLS_MS[..]));
        // The prompt's words are this fleet's: eight workers, 200 ms jobs, a
        // day, throttled containers, 10 s then 40 s.
        assert!(question.prompt.starts_with("Eight workers run 200 ms jobs back to back for a simulated day in CPU-throttled containers"));
        assert_eq!(
            (fleet.workers, fleet.work_ms, fleet.span_ms, fleet.pauses),
            (8, 200, 86_400_000, crate::pauses::PauseShape::ThrottledContainer)
        );
        assert!(question.prompt.contains("10 s lease") && question.prompt.contains("to 40 s") && ttls_ms == [10_000, 40_000]);
        assert!(question.prompt.contains("Under this pause shape"), "the rate belongs to the shape");
        let sentence = crate::fleet::quadrupling(trade_of(question)).expect("the trade has both leases and fencing");
        assert!(sentence.starts_with("Quadrupling the lease cut zombie writes from "), "{sentence}");
        assert_eq!(question.fleet_link().as_deref(), Some("view=fleet&seed=1&workers=8"));
    }
}
