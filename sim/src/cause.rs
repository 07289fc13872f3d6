//! What causes each preset's story, as a claim that can be checked on the
//! run. A preset that names a cause must show it: in the Redlock and
//! failover stories the damaging write leaves while its writer's own lease
//! or validity still runs, or the story would teach "the client ran late".

use crate::actor::Actor;
use crate::event::{Event, Fate, Kind};
use crate::msg::Msg;
use crate::trace::Trace;

const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);
const C: Actor = Actor::Worker(2);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    FrozenAcrossExpiry,
    LeaseOutlastsPause,
    LockDelayOutlastsPause,
    WatchdogFrozen,
    PausedBetweenCheckAndWrite,
    HeldInNetwork,
    CrashWaitsForExpiry,
    NaiveDelFreesSuccessorsLock,
    FailoverLosesLockAndCounter,
    ClockJumpBreaksMajority,
    TokenDrawnAfterExpiry,
    LeaseSurvivesLeaderCrash,
    PartitionedLeaderCommitsNothing,
    SplitBrainTwoPrimaries,
    VersionCheckRefusesLoser,
    ParentRecreatedResetsSequence,
}

impl Cause {
    /// The claim, in the words the page shows beside the preset.
    pub fn claim(self) -> &'static str {
        match self {
            Cause::FrozenAcrossExpiry => "A was frozen across its lease's expiry and sent its write after B had been granted the lock.",
            Cause::LeaseOutlastsPause => "A's pause ended inside its lease: nobody else was granted the lock while A held it.",
            Cause::LockDelayOutlastsPause => {
                "A's session ran out inside its pause, but the lock-delay kept everyone else out until after A's write had gone: nobody else was granted the lock before it."
            }
            Cause::WatchdogFrozen => "A's watchdog froze with A: no renewal left A during the pause, and the lease expired inside it.",
            Cause::PausedBetweenCheckAndWrite => {
                "A heard \"yes, yours\", froze before writing, and its lease expired in between: the check was already stale."
            }
            Cause::HeldInNetwork => {
                "A never paused: its write left while A's own lease ran and reached the store after B had been granted the lock."
            }
            Cause::CrashWaitsForExpiry => "A crashed holding the lock; nothing released it, and B was granted it only when the lease expired.",
            Cause::NaiveDelFreesSuccessorsLock => "A's plain DEL deleted B's lock, and C was granted the lock while B still believed it held it.",
            Cause::FailoverLosesLockAndCounter => {
                "The promoted replica never saw A's lock or its INCR: B drew A's token again, and the damaging write left while its writer's own lease still ran."
            }
            Cause::ClockJumpBreaksMajority => {
                "B gathered a majority only after L3's clock jumped, and the damaging write left while its writer's own validity still ran."
            }
            Cause::TokenDrawnAfterExpiry => {
                "A froze between its SET being granted and its INCR; its lease expired and B drew a token first, so A's token is the higher one."
            }
            Cause::LeaseSurvivesLeaderCrash => {
                "The leader crashed while A held the lock; A kept its lease through the election, and B's token came after A's."
            }
            Cause::PartitionedLeaderCommitsNothing => {
                "The leader, cut off from both followers while A held the lock, committed nothing (it only renewed A's lease in its own memory) and stepped down; the other two elected a leader, A kept its lease through it, and B's token came after A's."
            }
            Cause::SplitBrainTwoPrimaries => {
                "Sentinel promoted the replica while the old primary, only cut off, still ran: each granted the lock to a different worker with the same token, and the damaging write left while its writer's own lease still ran."
            }
            Cause::VersionCheckRefusesLoser => {
                "No lock at all: a write naming a version that had moved on was refused, and its writer redid its work on the newer data."
            }
            Cause::ParentRecreatedResetsSequence => {
                "A froze across its session's expiry; the server deleted the empty container parent, and B's znode under the recreated parent got a lower sequence number than A's but a higher czxid: fencing on the sequence number would take A's stale write, fencing on the czxid refuses it."
            }
        }
    }

    /// Checks the claim on a run of the preset; says what failed if not.
    pub fn check(self, trace: &Trace) -> Result<(), String> {
        let run = Run(&trace.events);
        let holds = match self {
            Cause::FrozenAcrossExpiry => run.frozen_across_expiry(),
            Cause::LeaseOutlastsPause => run.lease_outlasts_pause(),
            Cause::LockDelayOutlastsPause => run.lock_delay_outlasts_pause(),
            Cause::WatchdogFrozen => run.watchdog_frozen(),
            Cause::PausedBetweenCheckAndWrite => run.paused_between_check_and_write(),
            Cause::HeldInNetwork => run.held_in_network(),
            Cause::CrashWaitsForExpiry => run.crash_waits_for_expiry(),
            Cause::NaiveDelFreesSuccessorsLock => run.naive_del_frees_successors_lock(),
            Cause::FailoverLosesLockAndCounter => run.same_token_twice() && run.damage_inside_own_lease(),
            Cause::ClockJumpBreaksMajority => run.jump_before_second_majority() && run.damage_inside_own_lease(),
            Cause::TokenDrawnAfterExpiry => run.token_drawn_after_expiry(),
            Cause::LeaseSurvivesLeaderCrash => run.lease_survives_leader_crash(),
            Cause::PartitionedLeaderCommitsNothing => run.partitioned_leader_commits_nothing(),
            Cause::SplitBrainTwoPrimaries => run.split_brain_two_primaries() && run.damage_inside_own_lease(),
            Cause::VersionCheckRefusesLoser => run.version_check_refuses_loser(),
            Cause::ParentRecreatedResetsSequence => run.frozen_across_expiry() && run.parent_recreated_resets_sequence(),
        };
        holds.then_some(()).ok_or_else(|| format!("the run does not show its cause: {}", self.claim()))
    }
}

/// Questions about a run's events, each answered by scanning them.
struct Run<'a>(&'a [Event]);

impl Run<'_> {
    fn first(&self, wanted: impl Fn(&Event) -> bool) -> Option<&Event> {
        self.0.iter().find(|event| wanted(event))
    }

    fn time(&self, wanted: impl Fn(&Event) -> bool) -> Option<u64> {
        self.first(wanted).map(|event| event.t_us)
    }

    fn pause_of(&self, worker: Actor) -> Option<(u64, u64)> {
        let began = self.time(|event| event.actor == worker && matches!(event.kind, Kind::PauseBegan { .. }))?;
        let ended = self.time(|event| event.actor == worker && event.kind == Kind::PauseEnded)?;
        Some((began, ended))
    }

    fn expired(&self, holder: Actor) -> Option<u64> {
        self.time(|event| matches!(event.kind, Kind::Expired { holder: expired, .. } if expired == holder))
    }

    fn granted(&self, holder: Actor) -> Option<u64> {
        self.time(|event| matches!(event.kind, Kind::Granted { holder: granted, .. } if granted == holder))
    }

    fn write_sends(&self, writer: Actor) -> impl Iterator<Item = &Event> {
        self.0.iter().filter(move |event| event.actor == writer && matches!(event.kind, Kind::Send { body: Msg::Write(_), .. }))
    }

    fn frozen_across_expiry(&self) -> bool {
        let (Some((began, ended)), Some(expired), Some(b_granted)) = (self.pause_of(A), self.expired(A), self.granted(B)) else {
            return false;
        };
        let late_write = self.write_sends(A).any(|send| send.t_us >= ended && send.t_us > b_granted);
        began < expired && expired <= ended && late_write
    }

    /// ZooKeeper: the parent was deleted before B's create, and B's znode
    /// numbers lower than A's by sequence, higher by `czxid`.
    fn parent_recreated_resets_sequence(&self) -> bool {
        let created = |worker: Actor| {
            self.0.iter().find_map(|event| match event.kind {
                Kind::Send { to, body: Msg::Created { seq, czxid, .. }, .. } if to == worker => Some((event.t_us, seq, czxid)),
                _ => None,
            })
        };
        let (Some(removed), Some((_, a_seq, a_czxid)), Some((b_at, b_seq, b_czxid))) =
            (self.time(|event| event.kind == Kind::ParentRemoved), created(A), created(B))
        else {
            return false;
        };
        removed < b_at && b_seq < a_seq && b_czxid > a_czxid
    }

    fn lease_outlasts_pause(&self) -> bool {
        let Some((_, ended)) = self.pause_of(A) else { return false };
        let others_granted_before =
            self.0.iter().any(|event| matches!(event.kind, Kind::Granted { holder, .. } if holder != A) && event.t_us < ended);
        !others_granted_before && self.expired(A).is_none_or(|expired| expired > ended)
    }

    fn lock_delay_outlasts_pause(&self) -> bool {
        let (Some((began, ended)), Some(expired)) = (self.pause_of(A), self.expired(A)) else { return false };
        let Some(write_us) = self.write_sends(A).map(|send| send.t_us).find(|t_us| *t_us >= ended) else { return false };
        let others_granted_before =
            self.0.iter().any(|event| matches!(event.kind, Kind::Granted { holder, .. } if holder != A) && event.t_us <= write_us);
        (began..=ended).contains(&expired) && !others_granted_before
    }

    fn watchdog_frozen(&self) -> bool {
        let (Some((began, ended)), Some(expired)) = (self.pause_of(A), self.expired(A)) else { return false };
        let renewed_in_pause = self.0.iter().any(|event| {
            event.actor == A && matches!(event.kind, Kind::Send { body: Msg::Renew { .. }, .. }) && (began..ended).contains(&event.t_us)
        });
        !renewed_in_pause && (began..=ended).contains(&expired)
    }

    fn paused_between_check_and_write(&self) -> bool {
        let yes = self.time(|event| event.actor == A && matches!(event.kind, Kind::Receive { body: Msg::CheckReply { mine: true }, .. }));
        let (Some(yes), Some((began, ended)), Some(expired)) = (yes, self.pause_of(A), self.expired(A)) else { return false };
        yes <= began && (began..=ended).contains(&expired) && self.write_sends(A).any(|send| send.t_us >= ended)
    }

    fn held_in_network(&self) -> bool {
        let Some(b_granted) = self.granted(B) else { return false };
        let Some(valid_until_us) = self.valid_until(A) else { return false };
        let held =
            self.first(|event| event.actor == A && matches!(event.kind, Kind::Send { body: Msg::Write(_), held_us, .. } if held_us > 0));
        let arrived_late = held.is_some_and(|send| {
            let Kind::Send { msg, .. } = send.kind else { return false };
            send.t_us < valid_until_us
                && self.time(|event| matches!(event.kind, Kind::Receive { msg: got, .. } if got == msg)).is_some_and(|at| at > b_granted)
        });
        self.pause_of(A).is_none() && arrived_late
    }

    fn crash_waits_for_expiry(&self) -> bool {
        let crashed = self.time(|event| event.actor == A && event.kind == Kind::Crashed);
        let (Some(crashed), Some(expired), Some(b_granted)) = (crashed, self.expired(A), self.granted(B)) else { return false };
        crashed < expired && expired <= b_granted
    }

    fn naive_del_frees_successors_lock(&self) -> bool {
        let deleted = self.time(|event| matches!(event.kind, Kind::Deleted { holder: B, by: A, .. }));
        let c_holds = self.time(|event| event.actor == C && matches!(event.kind, Kind::Acquired { .. }));
        let b_stops = self.time(|event| event.actor == B && matches!(event.kind, Kind::Released | Kind::LostLock { .. }));
        matches!((deleted, c_holds, b_stops), (Some(deleted), Some(c), Some(b)) if deleted <= c && c < b)
    }

    /// The worker's own view of its lease at its latest acquisition.
    fn valid_until(&self, worker: Actor) -> Option<u64> {
        self.0.iter().rev().find_map(|event| match event.kind {
            Kind::Acquired { valid_until_us } if event.actor == worker => Some(valid_until_us),
            _ => None,
        })
    }

    /// The first write that overwrote newer data left while its writer's
    /// own lease (or Redlock validity), by its own clock, still ran.
    fn damage_inside_own_lease(&self) -> bool {
        let damaging = self.first(|event| matches!(event.kind, Kind::Send { fate: Some(Fate::StaleOverwrite), .. }));
        damaging.is_some_and(|send| {
            let acquired = self.0[..send.index as usize].iter().rev().find_map(|event| match event.kind {
                Kind::Acquired { valid_until_us } if event.actor == send.actor => Some(valid_until_us),
                _ => None,
            });
            acquired.is_some_and(|valid_until_us| send.t_us < valid_until_us)
        })
    }

    fn tokens_acquired(&self, worker: Actor) -> Option<u64> {
        self.first(|event| event.actor == worker && matches!(event.kind, Kind::Acquired { .. })).and_then(|event| event.token)
    }

    fn same_token_twice(&self) -> bool {
        matches!((self.tokens_acquired(A), self.tokens_acquired(B)), (Some(a), Some(b)) if a == b)
    }

    fn jump_before_second_majority(&self) -> bool {
        let jumped = self.time(|event| matches!(event.kind, Kind::ClockJumped { .. }));
        matches!((jumped, self.granted(A), self.granted(B)), (Some(jumped), Some(a), Some(b)) if a < jumped && jumped < b)
    }

    fn token_drawn_after_expiry(&self) -> bool {
        let incr_sent = self.time(|event| event.actor == A && matches!(event.kind, Kind::Send { body: Msg::Incr, .. }));
        let (Some(a_granted), Some(expired), Some(incr_sent)) = (self.granted(A), self.expired(A), incr_sent) else { return false };
        let inverted = matches!((self.tokens_acquired(A), self.tokens_acquired(B)), (Some(a), Some(b)) if a > b);
        a_granted < expired && expired <= incr_sent && inverted
    }

    fn lease_survives_leader_crash(&self) -> bool {
        let leader_down = self.time(|event| event.actor == Actor::LockNode(0) && matches!(event.kind, Kind::NodeDown { .. }));
        let elected = self.time(|event| matches!(event.kind, Kind::Elected { .. }));
        let a_released = self.time(|event| event.actor == A && event.kind == Kind::Released);
        let lost = self.first(|event| matches!(event.kind, Kind::Expired { holder: A, .. } | Kind::LeaseLost { holder: A }));
        let ordered = matches!((self.granted(A), leader_down, elected, a_released), (Some(a), Some(down), Some(elected), Some(released)) if a < down && down < elected && elected < released);
        let grows = matches!((self.tokens_acquired(A), self.tokens_acquired(B)), (Some(a), Some(b)) if a < b);
        ordered && grows && lost.is_none_or(|event| event.t_us > a_released.unwrap_or(u64::MAX))
    }

    fn partitioned_leader_commits_nothing(&self) -> bool {
        let l1 = Actor::LockNode(0);
        let stepped_down = self.time(|event| event.actor == l1 && event.kind == Kind::SteppedDown);
        let elected = self.first(|event| matches!(event.kind, Kind::Elected { .. }));
        let committed_after = |since: u64| {
            self.0.iter().any(|event| {
                event.actor == l1
                    && event.t_us >= since
                    && matches!(
                        event.kind,
                        Kind::Granted { .. } | Kind::Renewed { .. } | Kind::Expired { .. } | Kind::Deleted { .. } | Kind::Waits { .. }
                    )
            })
        };
        let a_released = self.time(|event| event.actor == A && event.kind == Kind::Released);
        let lost = self.first(|event| matches!(event.kind, Kind::Expired { holder: A, .. } | Kind::LeaseLost { holder: A }));
        let grows = matches!((self.tokens_acquired(A), self.tokens_acquired(B)), (Some(a), Some(b)) if a < b);
        let (Some(stepped_down), Some(elected), Some(released)) = (stepped_down, elected, a_released) else { return false };
        elected.actor != l1
            && stepped_down <= elected.t_us
            && elected.t_us < released
            && !committed_after(stepped_down)
            && grows
            && lost.is_none_or(|event| event.t_us > released)
    }

    /// Two nodes granted the lock to two workers after a promotion of the
    /// replica that left the old primary running, with one token for both.
    fn split_brain_two_primaries(&self) -> bool {
        let (l1, l2) = (Actor::LockNode(0), Actor::LockNode(1));
        let Some(promoted) = self.time(|event| event.actor == l2 && matches!(event.kind, Kind::Promoted { .. })) else { return false };
        let l1_crashed = self.0.iter().any(|event| event.actor == l1 && matches!(event.kind, Kind::NodeDown { .. }));
        let granted_by = |node: Actor| {
            self.0.iter().find_map(|event| match event.kind {
                Kind::Granted { holder, .. } if event.actor == node && event.t_us > promoted => Some(holder),
                _ => None,
            })
        };
        let (Some(on_l1), Some(on_l2)) = (granted_by(l1), granted_by(l2)) else { return false };
        let same_token = matches!((self.tokens_acquired(on_l1), self.tokens_acquired(on_l2)), (Some(one), Some(other)) if one == other);
        !l1_crashed && on_l1 != on_l2 && same_token
    }

    fn version_check_refuses_loser(&self) -> bool {
        let refused =
            self.first(|event| matches!(event.kind, Kind::WriteRejected { refusal: crate::msg::Refusal::StaleVersion { .. }, .. }));
        refused.is_some_and(|refused| {
            let Kind::WriteRejected { writer, .. } = refused.kind else { return false };
            self.0[refused.index as usize..]
                .iter()
                .any(|event| matches!(event.kind, Kind::WriteAccepted { writer: later, .. } if later == writer))
        })
    }
}
