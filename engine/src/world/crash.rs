//! Lock nodes that die and come back: a crash (with or without the node's
//! data) and the restart. What a crash or a return means beyond the node —
//! a lost primary or leader, a replica that resynchronises, Redlock's
//! majority — is its family's (`family/`).

use super::{Due, World};
use crate::actor::Actor;
use crate::event::Kind;

impl World<'_> {
    pub(super) fn node_crash(&mut self, node: u8, down_ms: u64) {
        let actor = Actor::LockNode(node);
        let was_serving = self.serving(node);
        let slot = &mut self.nodes[usize::from(node)];
        if slot.down {
            return;
        }
        slot.down = true;
        let crash = self.cluster.machine(node).crash(self.now_us, self.scenario.redis_persistence);
        self.log(actor, Kind::NodeDown { persists: crash.persists, restores_from_us: crash.restores_from_us }, None);
        self.node_crashed(node, crash.lost, was_serving);
        self.queue.push(self.now_us + down_ms * 1000, Due::NodeRestart { node });
    }

    pub(super) fn node_restart(&mut self, node: u8) {
        self.nodes[usize::from(node)].down = false;
        self.node_restarted(node);
    }

    /// How long after its leader is lost the service has a new one, by the
    /// service's own timers (`LockService::leader_loss_ms`: etcd's election
    /// timeout, ZooKeeper's `syncLimit` × `tickTime`, Consul's Raft
    /// heartbeat timeout; Sentinel's `failover_ms`).
    pub(super) fn leader_loss_ms(&self) -> u64 {
        self.scenario.lock_service.leader_loss_ms(self.scenario.failover_ms)
    }
}
