//! The event queue: a binary heap ordered by (time, sequence number). The sequence number breaks ties in
//! the order events were scheduled, so a run is the same on every machine. Events are small `Copy` values:
//! scheduling one allocates nothing once the heap has grown.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The link finished sending its packet.
    LinkDone,
    /// The head of flow `.0`'s delay line reaches the receiver, and its ACK the sender.
    Arrive(u32),
    /// Flow `.0`'s retransmission timer may be due.
    Timer(u32),
    /// Long flow `.0` starts.
    Start(u32),
    /// Traffic source `.0` (probe, CBR, short-flow arrivals) fires.
    Source(u32),
    /// Statistics checkpoint `.0`.
    Checkpoint(u32),
    /// The AQM's shaper may let a packet go now.
    Wake,
    /// The downstream port's link finished sending its packet.
    PortDone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    time_ns: u64,
    seq: u64,
    event: Event,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse for earliest first.
        (other.time_ns, other.seq).cmp(&(self.time_ns, self.seq))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Pending events, earliest first.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    popped: u64,
}

impl EventQueue {
    /// A fresh sequence number, for an event that will be scheduled later with [`EventQueue::push_seq`]
    /// (the delay lines stamp packets with it when they enter, so ties keep entry order).
    pub fn take_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    pub fn push(&mut self, time_ns: u64, event: Event) {
        let seq = self.take_seq();
        self.push_seq(time_ns, seq, event);
    }

    pub fn push_seq(&mut self, time_ns: u64, seq: u64, event: Event) {
        self.heap.push(Entry {
            time_ns,
            seq,
            event,
        });
    }

    /// The earliest event, unless it is later than `until_ns`.
    pub fn pop_until(&mut self, until_ns: u64) -> Option<(u64, Event)> {
        if self.heap.peek()?.time_ns > until_ns {
            return None;
        }
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time_ns, e.event))
    }

    /// Events handled so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(20, Event::Timer(1));
        q.push(10, Event::Start(1));
        q.push(10, Event::Start(2));
        q.push(30, Event::LinkDone);
        assert_eq!(q.pop_until(100), Some((10, Event::Start(1))));
        assert_eq!(q.pop_until(100), Some((10, Event::Start(2))));
        assert_eq!(q.pop_until(100), Some((20, Event::Timer(1))));
        assert_eq!(q.pop_until(25), None);
        assert_eq!(q.processed(), 3);
    }
}
