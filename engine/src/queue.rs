//! The discrete-event queue: ordered by (time, sequence number), so two
//! events at the same microsecond run in the order they were scheduled and
//! every run is reproducible.
//!
//! Items live in a slab; the heap orders small keys that name their slot, so
//! keeping the order moves 16 bytes at a time, not whole items. A key packs
//! time, sequence number and slot into one `u128`, so each step of keeping
//! the order is one comparison.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// No scenario needs more pending events than this; more means a bug.
pub const QUEUE_MAX: usize = 100_000;

/// Room for a typical run's pending items without growing.
const CAPACITY: usize = 16;

/// When (high 64 bits), in which order (the next 32) and which slot (the
/// low 32): compared as a whole, earliest first.
type Key = Reverse<u128>;

fn key(at_us: u64, seq: u32, slot: u32) -> Key {
    Reverse((u128::from(at_us) << 64) | (u128::from(seq) << 32) | u128::from(slot))
}

pub struct Queue<T> {
    heap: BinaryHeap<Key>,
    slots: Vec<Option<T>>,
    free: Vec<u32>,
    seq: u32,
    /// When the latest item popped was due: the run's now. Nothing may be
    /// queued before it, and pops never go back past it.
    now_us: u64,
}

impl<T> Queue<T> {
    pub fn new() -> Queue<T> {
        let (heap, slots, free) = (BinaryHeap::with_capacity(CAPACITY), Vec::with_capacity(CAPACITY), Vec::with_capacity(CAPACITY));
        Queue { heap, slots, free, seq: 0, now_us: 0 }
    }

    pub fn push(&mut self, at_us: u64, item: T) {
        assert!(self.heap.len() < QUEUE_MAX, "event queue overflow: more than {QUEUE_MAX} pending events");
        crate::invariant!(at_us >= self.now_us, "an item queued for {at_us} µs, before now ({} µs)", self.now_us);
        // A run pushes at most a few million items: the sequence never wraps.
        self.seq = self.seq.checked_add(1).expect("fewer than 2^32 items per run");
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(item);
                slot
            }
            None => {
                self.slots.push(Some(item));
                (self.slots.len() - 1) as u32
            }
        };
        self.heap.push(key(at_us, self.seq, slot));
        crate::invariant!(self.heap.len() + self.free.len() == self.slots.len(), "the queue lost track of a slot");
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn pop(&mut self) -> Option<(u64, T)> {
        let Reverse(key) = self.heap.pop()?;
        let (at_us, slot) = ((key >> 64) as u64, key as u32);
        let item = self.slots[slot as usize].take().expect("a queued slot holds its item");
        self.free.push(slot);
        // The clock never goes backwards: the earliest item is never before the last one.
        crate::invariant!(at_us >= self.now_us, "the queue went back in time: {} -> {at_us} µs", self.now_us);
        self.now_us = at_us;
        crate::invariant!(self.heap.len() + self.free.len() == self.slots.len(), "the queue lost track of a slot");
        Some((at_us, item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_fifo() {
        let mut queue = Queue::new();
        queue.push(5, "late");
        queue.push(1, "first");
        queue.push(1, "second");
        assert_eq!(queue.pop(), Some((1, "first")));
        queue.push(1, "third");
        assert_eq!(queue.pop(), Some((1, "second")));
        assert_eq!(queue.pop(), Some((1, "third")));
        assert_eq!(queue.pop(), Some((5, "late")));
        assert_eq!(queue.pop(), None);
    }

    #[test]
    #[should_panic(expected = "an item queued for 1 µs, before now (5 µs)")]
    fn nothing_is_queued_in_the_past() {
        let mut queue = Queue::new();
        queue.push(5, "now");
        queue.pop();
        queue.push(1, "the past");
    }
}
