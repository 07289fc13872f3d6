//! ZooKeeper as Curator runs it (issue 41, finding 1): the lock's parent is
//! a container znode that the server deletes once empty, so the sequence
//! number goes back to 0 under the recreated parent; the token is the
//! znode's `czxid`, which never goes back, not even across a new leader's
//! epoch. Failed on the model whose token was the sequence number.

use fencing_sim::msg::Msg;
use fencing_sim::{presets, run, Actor, Fault, Kind, LockService, Scenario, Trace};

const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);

/// The (sequence number, czxid) of the znode the service created for `worker`.
fn znode(trace: &Trace, worker: Actor) -> (u64, u64) {
    let created = trace.events.iter().find_map(|event| match event.kind {
        Kind::Send { to, body: Msg::Created { seq, czxid, .. }, .. } if to == worker => Some((seq, czxid)),
        _ => None,
    });
    created.unwrap_or_else(|| panic!("{worker} created no znode"))
}

#[test]
fn fencing_on_the_sequence_number_would_take_as_stale_write_fencing_on_the_czxid_refuses_it() {
    let scenario = Scenario { fencing: true, ..presets::build("zookeeper-parent-recreated").unwrap() };
    let trace = run(&scenario).unwrap();
    let ((a_seq, a_czxid), (b_seq, b_czxid)) = (znode(&trace, A), znode(&trace, B));
    // B wrote first; A's write comes after. A store that kept the highest
    // sequence number (B's 0) would accept A's 33: the stale overwrite.
    assert!(a_seq > b_seq, "A n-{a_seq:010}, B n-{b_seq:010}: a sequence-fenced store takes A's write");
    // The czxid orders them: the model's store refuses A.
    assert!(a_czxid < b_czxid);
    assert_eq!((trace.summary.rejected_writes, trace.summary.stale_overwrites), (1, 0), "{:?}", trace.summary);
    assert!(trace.events.iter().any(|event| event.kind == Kind::ParentRemoved), "the parent was deleted");
}

#[test]
fn the_token_is_the_czxid_with_the_epoch_in_its_high_half_and_a_new_leader_keeps_it_growing() {
    // The consensus leader crash, on ZooKeeper: B's znode is created under
    // the new leader's epoch.
    let scenario = Scenario { lock_service: LockService::ZooKeeper, ..presets::build("consensus-leader-crash").unwrap() };
    let trace = run(&scenario).unwrap();
    let ((_, a_czxid), (_, b_czxid)) = (znode(&trace, A), znode(&trace, B));
    assert_eq!(a_czxid >> 32, 1, "A's znode in epoch 1: {a_czxid:#x}");
    assert_eq!(b_czxid >> 32, 2, "B's znode in the new leader's epoch 2: {b_czxid:#x}");
    let acquired: Vec<Option<u64>> =
        trace.events.iter().filter(|event| matches!(event.kind, Kind::Acquired { .. })).map(|event| event.token).collect();
    assert_eq!(acquired, [Some(a_czxid), Some(b_czxid)], "the tokens are the czxids");
}

#[test]
fn a_lost_create_reply_keeps_the_session_and_finds_its_own_znode() {
    // L1's first message to A after 2 ms is the answer to A's create (A's
    // session was granted at about 1 ms): it is lost.
    let lose = Fault::LoseMessage { from: Actor::LockNode(0), at_ms: 2, after_event: None };
    let scenario = Scenario { faults: vec![lose], ..presets::build("zookeeper-gc-pause").unwrap() };
    let trace = run(&scenario).unwrap();
    let sessions =
        trace.events.iter().filter(|event| event.actor == A && matches!(event.kind, Kind::Send { body: Msg::LeaseGrant { .. }, .. }));
    assert_eq!(sessions.count(), 1, "A keeps its one session (Curator's withProtection)");
    let creates: Vec<Msg> = trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            Kind::Send { to, body: body @ Msg::Created { .. }, .. } if to == A => Some(body),
            _ => None,
        })
        .collect();
    assert_eq!(creates.len(), 2, "the create is asked again: {creates:?}");
    assert_eq!(creates[0], creates[1], "and the answer is the znode it already made, not a second one");
}

/// Every sentence that names a ZooKeeper token names it in hex, as the
/// diagram's labels and ZooKeeper itself (`cZxid = 0x100000002`) do: the
/// narration, the wire labels and the verdict (issue 41, finding 6).
#[test]
fn sentences_name_a_czxid_in_hex() {
    for fencing in [false, true] {
        let trace = run(&Scenario { fencing, ..presets::build("zookeeper-gc-pause").unwrap() }).unwrap();
        let decimal =
            |text: &str| text.split(|c: char| !c.is_ascii_digit()).any(|digits| digits.parse::<u64>().is_ok_and(|n| n >= 1 << 32));
        for event in &trace.events {
            let text = trace.text(event);
            assert!(!decimal(&text), "a czxid in decimal: {text}");
        }
        assert!(!decimal(&trace.summary.verdict), "{}", trace.summary.verdict);
        let expected = if fencing {
            "A's stale write was rejected: token 0x100000002 < 0x100000004 already accepted"
        } else {
            "A's stale write (token 0x100000002) overwrote B's newer data (token 0x100000004)"
        };
        assert_eq!(trace.summary.verdict, expected);
        let holds = trace.events.iter().find(|event| matches!(event.kind, Kind::Acquired { .. })).unwrap();
        let text = trace.text(holds);
        assert!(text.contains("with token 0x100000002"), "{text}");
    }
}
