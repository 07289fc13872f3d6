//! The store's side of the world: it answers reads and writes, and the
//! observer classifies each accepted write (zombie? stale overwrite?).

use super::World;
use crate::actor::Actor;
use crate::event::Kind;
use crate::msg::Msg;
use crate::observer::{Highlight, Observer};
use crate::store::Verdict;

impl World<'_> {
    pub(super) fn store_request(&mut self, from: Actor, body: Msg) {
        let reply = match body {
            Msg::Read => Msg::ReadReply { version: self.store.version() },
            Msg::Write(request) => {
                let verdict = self.store.write(from, &request);
                self.log_write(from, request, &verdict);
                match verdict {
                    Verdict::Accepted { .. } => Msg::WriteReply { accepted: true, reason: String::new() },
                    Verdict::Rejected { reason } => Msg::WriteReply { accepted: false, reason },
                }
            }
            other => unreachable!("the store never receives {other:?}"),
        };
        self.send(Actor::Store, from, reply);
    }

    fn log_write(&mut self, writer: Actor, request: crate::msg::WriteReq, verdict: &Verdict) {
        let token = request.token;
        let of_token = token.map_or_else(String::new, |token| format!(" (token {token})"));
        match verdict {
            Verdict::Accepted { replaced } => {
                let zombie = self.observer.is_zombie(writer, request.epoch);
                let stale_overwrite = Observer::is_stale_overwrite(request.epoch, *replaced);
                let text = match replaced {
                    Some(old) if stale_overwrite => {
                        self.observer.highlight =
                            Some(Highlight::StaleOverwrite { writer, token, victim: old.writer, victim_token: old.token });
                        format!("Store accepted {writer}'s stale write{of_token}: it overwrote {}'s newer data", old.writer)
                    }
                    _ if zombie => format!("Store accepted {writer}'s write{of_token}, though {writer} no longer holds the lock"),
                    _ => format!("Store accepted {writer}'s write{of_token}"),
                };
                self.log(Actor::Store, Kind::WriteAccepted { writer, zombie, stale_overwrite }, token, text);
            }
            Verdict::Rejected { reason } => {
                if self.observer.highlight.is_none() {
                    self.observer.highlight = Some(Highlight::Rejected { writer, token, reason: reason.clone() });
                }
                let text = format!("Store rejected {writer}'s write: {reason}");
                self.log(Actor::Store, Kind::WriteRejected { writer }, token, text);
            }
        }
    }
}
