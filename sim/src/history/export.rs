//! A model's trace written as a history: the facts a real incident's logs
//! would hold (grants, renewals, releases, measured pauses, the store's
//! decisions) and nothing the logs could not (messages, beliefs). Checking
//! the result must give the run's own counters and verdict: how `check` is
//! held to the model (`sim/tests/history_check.rs`).

use super::{Entry, History, Line, Provenance, ReleaseHow};
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;
use crate::scenario::{Release, StoreKind};
use crate::trace::Trace;
use crate::Fencing;
use std::collections::HashMap;

/// The trace's history, or the first event a history cannot carry.
pub fn export(trace: &Trace) -> Result<History, String> {
    let scenario = &trace.scenario;
    if scenario.store != StoreKind::Database {
        return Err("a history's store checks tokens or nothing; this run's store checks versions or cannot check".to_string());
    }
    let how = match scenario.release {
        Release::CompareAndDelete => ReleaseHow::IfMine,
        Release::NaiveDel => ReleaseHow::PlainDel,
    };
    let mut entries = Vec::new();
    // Each holder's lease end as the service last set it, and the lock
    // server that set it: with two primaries (a split brain), a copy of the
    // lease that runs out on the other one is not the holder's lease.
    let mut lease_end_us: HashMap<Actor, (u64, Actor)> = HashMap::new();
    for (index, event) in trace.events.iter().enumerate() {
        let t_us = event.t_us;
        match event.kind {
            Kind::Granted { holder, expires_at_us } => {
                // The token is the one the holder goes on with.
                let token = event.token.or_else(|| {
                    trace.events[index..].iter().find(|later| later.actor == holder && matches!(later.kind, Kind::Acquired { .. }))?.token
                });
                lease_end_us.insert(holder, (expires_at_us, event.actor));
                entries.push(Entry::Grant { holder, token, lease_start_us: t_us, lease_end_us: expires_at_us });
            }
            Kind::Renewed { holder, expires_at_us } => {
                lease_end_us.insert(holder, (expires_at_us, event.actor));
                entries.push(Entry::Renewal { holder, at_us: t_us, lease_end_us: expires_at_us });
            }
            // A lease that ends at its end needs no record; one that ends
            // sooner (lost in a failover, dropped by a demoted primary) does.
            Kind::Expired { holder, .. } if lease_end_us.get(&holder).is_some_and(|(_, server)| *server != event.actor) => {}
            // A lease the service ends after its end (ZooKeeper expires a
            // session at its next tick, etcd's lessor at its next check)
            // lasted until then: the history's lease end is that moment,
            // as a recording's is (`Recorder::lease_ends`), and as the
            // model's observer counts it.
            Kind::Expired { holder, .. } if lease_end_us.get(&holder).is_some_and(|(end_us, _)| t_us > *end_us) => {
                lease_end_us.remove(&holder);
                let latest = entries
                    .iter_mut()
                    .rev()
                    .find(|entry| matches!(entry, Entry::Grant { holder: of, .. } | Entry::Renewal { holder: of, .. } if *of == holder));
                if let Some(Entry::Grant { lease_end_us: end, .. } | Entry::Renewal { lease_end_us: end, .. }) = latest {
                    *end = t_us;
                }
            }
            Kind::Expired { holder, .. } | Kind::LeaseLost { holder } | Kind::Demoted { dropped: Some(holder) } => {
                let early = lease_end_us.remove(&holder).is_some_and(|(end_us, _)| t_us < end_us);
                entries.extend(early.then_some(Entry::Expiry { holder, at_us: t_us }));
            }
            Kind::Deleted { holder, .. } => {
                lease_end_us.remove(&holder);
            }
            Kind::Released => entries.push(Entry::Release { worker: event.actor, at_us: t_us, how }),
            Kind::PauseBegan { until_us } => entries.push(Entry::Pause { worker: event.actor, from_us: t_us, to_us: until_us }),
            Kind::Send { body: Msg::Write(request), settled_at: Some(settled), .. } => {
                let decision = trace.events.get(settled as usize).ok_or_else(|| format!("event {index}'s write is settled at no event"))?;
                let accepted = match decision.kind {
                    Kind::WriteAccepted { .. } => true,
                    Kind::WriteRejected { .. } => false,
                    // Lost in the network: the store never saw it.
                    _ => continue,
                };
                entries.push(Entry::Write {
                    writer: event.actor,
                    token: request.token,
                    sent_at_us: t_us,
                    decided_at_us: decision.t_us,
                    accepted,
                });
            }
            Kind::Crashed => return Err(format!("event {index}: {} crashed, and a history has no record of a crash", event.actor)),
            Kind::Truncated { .. } => return Err("the run was cut short at its bound on events".to_string()),
            _ => {}
        }
    }
    // In time order, as the format asks; one moment's records keep the run's order.
    entries.sort_by_key(Entry::at_us);
    let records = entries.into_iter().enumerate().map(|(index, entry)| Line { line: index as u32 + 2, entry }).collect();
    let source = format!(
        "fencing-lab's model: preset {}, seed {}, fencing {}",
        if scenario.preset.is_empty() { "none" } else { &scenario.preset },
        scenario.seed,
        trace.summary.fencing.short()
    );
    let provenance = Provenance { source, ..Provenance::default() };
    Ok(History { provenance, fencing: trace.summary.fencing == Fencing::On, records })
}
