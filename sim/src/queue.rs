//! The discrete-event queue: ordered by (time, sequence number), so two
//! events at the same microsecond run in the order they were scheduled and
//! every run is reproducible.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// No scenario needs more pending events than this; more means a bug.
pub const QUEUE_MAX: usize = 100_000;

struct Entry<T> {
    at_us: u64,
    seq: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.at_us, self.seq) == (other.at_us, other.seq)
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at_us, other.seq).cmp(&(self.at_us, self.seq))
    }
}

pub struct Queue<T> {
    heap: BinaryHeap<Entry<T>>,
    seq: u64,
}

impl<T> Queue<T> {
    pub fn new() -> Queue<T> {
        Queue { heap: BinaryHeap::new(), seq: 0 }
    }

    pub fn push(&mut self, at_us: u64, item: T) {
        assert!(self.heap.len() < QUEUE_MAX, "event queue overflow: more than {QUEUE_MAX} pending events");
        self.seq += 1;
        self.heap.push(Entry { at_us, seq: self.seq, item });
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn pop(&mut self) -> Option<(u64, T)> {
        self.heap.pop().map(|entry| (entry.at_us, entry.item))
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
        assert_eq!(queue.pop(), Some((1, "second")));
        assert_eq!(queue.pop(), Some((5, "late")));
        assert_eq!(queue.pop(), None);
    }
}
