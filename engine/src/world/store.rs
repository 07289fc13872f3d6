//! The store's side of the world: it answers reads and writes, and the
//! observer classifies each write (zombie? stale overwrite? a refusal of
//! the rightful holder?).

use super::World;
use crate::actor::Actor;
use crate::event::Kind;
use crate::history::History;
use crate::msg::{Msg, WriteReq};
use crate::store::Verdict;

impl World<'_> {
    pub(super) fn store_request(&mut self, msg: u32, from: Actor, req: u32, body: Msg) {
        crate::invariant!(from.worker_index().is_some(), "the store was asked by {from:?}, not a worker");
        let reply = match body {
            Msg::Read => Msg::ReadReply { version: self.store.version() },
            Msg::Write(request) => {
                let verdict = self.store.write(from, &request);
                self.log_write(msg, from, request, verdict);
                Msg::WriteReply { refusal: verdict.refusal() }
            }
            other => unreachable!("the store never receives {}", other.label()),
        };
        self.send(Actor::Store, from, req, reply);
    }

    fn log_write(&mut self, msg: u32, writer: Actor, request: WriteReq, verdict: Verdict) {
        let highest_token = self.store.highest_token();
        // The highest token counts every token the store took.
        let counted = matches!(verdict, Verdict::Rejected { .. }) || request.token <= highest_token;
        crate::invariant!(counted, "the store took token {:?} above its highest {highest_token:?}", request.token);
        let kind = match verdict {
            Verdict::Accepted { replaced, replaced_epoch } => Kind::WriteAccepted {
                msg,
                writer,
                zombie: self.history.is_zombie(writer, request.epoch),
                stale_overwrite: History::is_stale_overwrite(request.epoch, replaced_epoch),
                replaced,
                highest_token,
            },
            Verdict::Rejected { refusal } => {
                let rightful = self.history.is_rightful(writer, request.epoch);
                Kind::WriteRejected { msg, writer, refusal, rightful, highest_token }
            }
        };
        self.log_verdict(kind, request.token);
    }
}
