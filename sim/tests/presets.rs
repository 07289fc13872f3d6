//! Every preset's outcome, both ways, to the token: one row per run, checked
//! by one helper. These are the numbers the page, the quiz and the command
//! line all show.

use fencing_sim::{presets, run, Actor, Fault, Kind, Scenario, Summary, TokenSource, Trace};

struct Expect {
    preset: &'static str,
    fencing: bool,
    zombie: u32,
    stale: u32,
    rejected: u32,
    rightful: u32,
    accepted: u32,
    violations: u32,
    successor_release: u32,
    /// Work done again by a retried job (`work_redone`).
    redone: u32,
    /// Writer and token of the store's final data.
    last: Option<(char, Option<u64>)>,
}

const fn row(preset: &'static str, fencing: bool, counts: [u32; 8], last: Option<(char, Option<u64>)>) -> Expect {
    let [zombie, stale, rejected, rightful, accepted, violations, successor_release, redone] = counts;
    Expect { preset, fencing, zombie, stale, rejected, rightful, accepted, violations, successor_release, redone, last }
}

/// A zxid's epoch is its high 32 bits: the first zxid of epoch 1.
const ZXID_EPOCH_1: u64 = 1 << 32;

/// [zombie, stale, rejected, rightful rejected, accepted, mutual exclusion violations, successor releases,
/// work redone]. A job whose result did not land (a fenced write refused,
/// the lock lost before the write) is retried, as job runners do
/// (`JOB_RETRIES_MAX`): with fencing on, a refused zombie retries under a
/// newer token, its write lands, and its work is done twice (harmless only
/// if the job is idempotent).
const EXPECTED: &[Expect] = &[
    row("gc-pause", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(33)))),
    row("gc-pause", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(35)))),
    row("lease-x4", false, [0, 0, 0, 0, 2, 0, 0, 0], Some(('B', Some(34)))),
    row("renewal", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(33)))),
    row("renewal", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(35)))),
    row("check-then-write", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(33)))),
    row("check-then-write", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(35)))),
    row("delayed-write", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(33)))),
    row("delayed-write", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(35)))),
    row("holder-crash", false, [0, 0, 0, 0, 1, 0, 0, 0], Some(('B', Some(34)))),
    // A's zombie write lands before anyone newer wrote: fencing cannot tell.
    row("naive-del", true, [2, 0, 0, 0, 3, 2, 2, 0], Some(('C', Some(35)))),
    // The promoted replica lost the last INCR: B gets 33 again, and fencing
    // accepts A's equal token over B's newer data.
    row("redis-failover", true, [2, 1, 0, 0, 4, 1, 0, 0], Some(('B', Some(33)))),
    // Redlock has no token: fencing is unavailable and the overwrite lands.
    row("redlock-clock-jump", true, [2, 1, 0, 0, 4, 1, 0, 0], Some(('B', None))),
    // A's token (34) is drawn after B's (33): the fencing store takes A's
    // stale write and refuses B, the rightful holder, whose job is retried
    // under token 35 (while A still believes: a second overlap).
    row("token-inversion", true, [2, 1, 1, 1, 5, 2, 0, 1], Some(('B', Some(35)))),
    row("consensus-leader-crash", true, [0, 0, 0, 0, 4, 0, 0, 0], Some(('B', Some(34)))),
    // Cut off from its followers, the leader commits nothing; the new one
    // keeps A's lease, as after a crash.
    row("consensus-partitioned-leader", true, [0, 0, 0, 0, 4, 0, 0, 0], Some(('B', Some(34)))),
    // Two primaries, one token (34) each for B and C: fencing accepts equal
    // tokens, so B's writes land on C's newer data. C's lock is dropped at
    // the demotion before its last write: its job is retried under 35.
    row("redis-split-brain", true, [4, 2, 0, 0, 11, 2, 0, 1], Some(('C', Some(35)))),
    row("consensus-gc-pause", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(33)))),
    row("consensus-gc-pause", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(37)))),
    // ZooKeeper: the same story, the znodes' czxids (epoch 1, transactions
    // 2 and 4) as tokens; A's refused job is retried under transaction 8.
    row("zookeeper-gc-pause", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(ZXID_EPOCH_1 + 2)))),
    row("zookeeper-gc-pause", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(ZXID_EPOCH_1 + 8)))),
    // The container parent is deleted at 60 s; B's znode is n-0000000000
    // below A's n-0000000033, but its czxid (transaction 7) is above A's:
    // fencing on the czxid refuses A.
    row("zookeeper-parent-recreated", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(ZXID_EPOCH_1 + 2)))),
    row("zookeeper-parent-recreated", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(ZXID_EPOCH_1 + 10)))),
    // Consul: the session is invalidated at 2 × TTL (20 s), and the 15 s
    // lock-delay keeps B out until 35 s, after A's write at 30 s: nothing is
    // damaged.
    row("consul-lock-delay", false, [0, 0, 0, 0, 2, 0, 0, 0], Some(('B', Some(34)))),
    row("consul-lock-delay", true, [0, 0, 0, 0, 2, 0, 0, 0], Some(('B', Some(34)))),
    // A 40 s pause outlasts 2 × TTL + lock-delay from A's last renewal:
    // LockIndex 33 lands on 34's data.
    row("consul-long-pause", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(33)))),
    row("consul-long-pause", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(35)))),
    // Redisson: the watchdog renewed A's lease at 10 s; frozen 45 s from
    // 12 s, it lets the lease run out at 40 s, and token 33 lands on 34's data.
    row("redisson-gc-pause", false, [1, 1, 0, 0, 2, 1, 0, 0], Some(('A', Some(33)))),
    row("redisson-gc-pause", true, [0, 0, 1, 0, 2, 1, 0, 1], Some(('A', Some(35)))),
    // A 15 s pause ends at 27 s, inside the lease renewed to 40 s.
    row("redisson-short-pause", false, [0, 0, 0, 0, 2, 0, 0, 0], Some(('B', Some(34)))),
    row("redisson-short-pause", true, [0, 0, 0, 0, 2, 0, 0, 0], Some(('B', Some(34)))),
    row("no-lock-version", false, [0, 0, 1, 0, 2, 0, 0, 1], Some(('A', None))),
];

fn scenario(preset: &str, fencing: bool) -> Scenario {
    let preset = presets::find(preset).unwrap_or_else(|| panic!("no preset {preset}"));
    Scenario { fencing, ..(preset.build)() }
}

fn counts(summary: &Summary) -> [u32; 8] {
    [
        summary.zombie_writes,
        summary.stale_overwrites,
        summary.rejected_writes,
        summary.rightful_writes_rejected,
        summary.accepted_writes,
        summary.mutual_exclusion_violations,
        summary.lock_lost_by_successor_release,
        summary.work_redone,
    ]
}

#[test]
fn every_preset_has_its_expected_outcome() {
    for expect in EXPECTED {
        let trace = run(&scenario(expect.preset, expect.fencing)).unwrap();
        let summary = &trace.summary;
        let what = format!("{} fencing={}", expect.preset, expect.fencing);
        let wanted = [
            expect.zombie,
            expect.stale,
            expect.rejected,
            expect.rightful,
            expect.accepted,
            expect.violations,
            expect.successor_release,
            expect.redone,
        ];
        assert_eq!(
            counts(summary),
            wanted,
            "{what}: [zombie, stale, rejected, rightful, accepted, violations, successor releases, redone]"
        );
        let last = summary.final_store.map(|datum| (datum.writer.to_string().chars().next().unwrap(), datum.token));
        assert_eq!(last, expect.last, "{what}: final store");
        assert!(!summary.truncated, "{what} hit its event bound");
    }
}

#[test]
fn every_preset_shows_the_cause_it_names_fencing_off_and_on() {
    for preset in presets::PRESETS {
        for fencing in [false, true] {
            let trace = run(&scenario(preset.id, fencing)).unwrap();
            if let Err(problem) = preset.cause.check(&trace) {
                panic!("{} fencing={fencing}: {problem}", preset.id);
            }
        }
    }
}

#[test]
fn the_summary_only_run_says_exactly_what_the_full_run_says() {
    for preset in presets::PRESETS {
        for fencing in [false, true] {
            let scenario = scenario(preset.id, fencing);
            assert_eq!(fencing_sim::run_summary(&scenario).unwrap(), run(&scenario).unwrap().summary, "{} fencing={fencing}", preset.id);
        }
    }
}

#[test]
fn the_atomic_script_closes_the_token_inversion() {
    for seed in 0..200 {
        let scenario = Scenario { seed, token_source: TokenSource::AtomicScript, ..scenario("token-inversion", true) };
        let summary = run(&scenario).unwrap().summary;
        assert_eq!((summary.stale_overwrites, summary.rightful_writes_rejected), (0, 0), "seed {seed}");
        assert_eq!(summary.rejected_writes, 1, "seed {seed}: A's stale write is refused instead");
    }
    for seed in 0..200 {
        let summary = run(&Scenario { seed, ..scenario("token-inversion", true) }).unwrap().summary;
        assert!(summary.stale_overwrites >= 1, "seed {seed}: the separate INCR inverts the tokens");
    }
}

#[test]
fn every_preset_is_tested() {
    for preset in presets::PRESETS {
        assert!(EXPECTED.iter().any(|expect| expect.preset == preset.id), "{} has no expected outcome", preset.id);
    }
}

fn first(trace: &Trace, actor: Actor, wanted: impl Fn(&Kind) -> bool) -> Option<&fencing_sim::Event> {
    trace.events.iter().find(|event| event.actor == actor && wanted(&event.kind))
}

#[test]
fn a_quadrupled_lease_survives_15_s_but_not_45_s() {
    let mut scenario = scenario("lease-x4", false);
    assert_eq!(run(&scenario).unwrap().summary.zombie_writes, 0);
    for fault in &mut scenario.faults {
        if let Fault::Pause { pause_ms, .. } = fault {
            *pause_ms = 45_000;
        }
    }
    let summary = run(&scenario).unwrap().summary;
    assert_eq!((summary.zombie_writes, summary.stale_overwrites), (1, 1));
}

#[test]
fn a_crashed_holder_frees_the_lock_only_at_expiry() {
    let trace = run(&scenario("holder-crash", false)).unwrap();
    let crash = first(&trace, Actor::Worker(0), |kind| *kind == Kind::Crashed).unwrap();
    assert_eq!(crash.t_us, 1_000_000);
    assert!(first(&trace, Actor::Worker(0), |kind| matches!(kind, Kind::WriteAccepted { .. })).is_none());
    let b_holds = first(&trace, Actor::Worker(1), |kind| matches!(kind, Kind::Acquired { .. })).unwrap();
    assert!(b_holds.t_us > 10_000_000, "B must wait out A's lease: {}", b_holds.t_us);
}

#[test]
fn the_naive_del_lets_a_third_worker_in_while_b_works() {
    let trace = run(&scenario("naive-del", false)).unwrap();
    let deleted =
        first(&trace, Actor::LockNode(0), |kind| matches!(kind, Kind::Deleted { holder: Actor::Worker(1), by: Actor::Worker(0), .. }));
    let deleted = deleted.expect("A's DEL deletes B's lock");
    let c_holds = first(&trace, Actor::Worker(2), |kind| matches!(kind, Kind::Acquired { .. })).unwrap();
    let b_released = first(&trace, Actor::Worker(1), |kind| *kind == Kind::Released).unwrap();
    assert!(deleted.t_us < c_holds.t_us && c_holds.t_us < b_released.t_us, "C holds while B still works");
}

#[test]
fn consensus_tokens_grow_with_gaps_and_expiry_waits_for_the_tick() {
    let trace = run(&scenario("consensus-gc-pause", true)).unwrap();
    let expired = first(&trace, Actor::LockNode(0), |kind| matches!(kind, Kind::Expired { .. })).unwrap();
    assert_eq!(expired.t_us % 500_000, 0, "revoked on a 500 ms tick");
    let granted: Vec<u64> =
        trace.events.iter().filter(|event| matches!(event.kind, Kind::Granted { .. })).filter_map(|event| event.token).collect();
    // A's refused job is retried: its new key comes after the deletes of
    // A's expired key (35) and of B's released one (36).
    assert_eq!(granted, vec![33, 34, 37]);
    let text: Vec<String> = trace.events.iter().map(|event| trace.text(event)).collect();
    assert!(text.iter().any(|line| line.contains("(revision 35)")), "the expiry used a revision");
}

#[test]
fn the_failover_hands_out_the_same_token_twice() {
    let trace = run(&scenario("redis-failover", true)).unwrap();
    let tokens: Vec<Option<u64>> =
        trace.events.iter().filter(|event| matches!(event.kind, Kind::Acquired { .. })).map(|event| event.token).collect();
    assert_eq!(tokens, vec![Some(33), Some(33)]);
}

#[test]
fn fencing_is_reported_unavailable_where_it_is() {
    let nfs = Scenario { store: fencing_sim::StoreKind::NfsFile, ..scenario("gc-pause", true) };
    let summary = run(&nfs).unwrap().summary;
    assert!(matches!(summary.fencing, fencing_sim::Fencing::Unavailable(_)));
    assert_eq!(summary.stale_overwrites, 1, "a file on NFS cannot refuse the zombie");
    let redlock = run(&scenario("redlock-clock-jump", true)).unwrap().summary;
    assert!(matches!(redlock.fencing, fencing_sim::Fencing::Unavailable(ref why) if why.contains("random")));
}
