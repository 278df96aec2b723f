//! Tail drop (Linux `pfifo`): one FIFO with a packet limit; the arriving packet is dropped when it is full.

use super::TimedFifo;
use crate::types::{Admission, Departure, Dropped, Packet};
use crate::Aqm;

/// Parameters of [`TailDrop`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TailDropParams {
    /// Queue limit, packets. Default 1000 (Linux's default `txqueuelen`).
    pub limit: usize,
}

impl Default for TailDropParams {
    fn default() -> Self {
        TailDropParams { limit: 1000 }
    }
}

/// A drop-tail FIFO.
#[derive(Clone, Debug)]
pub struct TailDrop {
    params: TailDropParams,
    fifo: TimedFifo,
}

impl TailDrop {
    pub fn new(params: TailDropParams) -> TailDrop {
        TailDrop {
            params,
            fifo: TimedFifo::default(),
        }
    }
}

impl Aqm for TailDrop {
    fn name(&self) -> String {
        "taildrop".into()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.fifo.admit(self.params.limit, pkt, now_ns)
    }

    fn dequeue(&mut self, now_ns: u64, _drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.fifo.depart(now_ns)
    }

    super::fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testutil::pkt;
    use crate::types::DropReason;

    #[test]
    fn arrival_is_dropped_when_queue_holds_limit_packets() {
        let mut q = TailDrop::new(TailDropParams { limit: 3 });
        for i in 0..3 {
            assert_eq!(q.enqueue(0, pkt(i, 0, 1500)), Admission::Enqueued);
        }
        assert_eq!(
            q.enqueue(0, pkt(3, 0, 1500)),
            Admission::Dropped(DropReason::Overlimit)
        );
        assert_eq!((q.backlog_packets(), q.backlog_bytes()), (3, 4500));
        let mut drops = Vec::new();
        q.dequeue(1, &mut drops).unwrap();
        assert_eq!(q.enqueue(2, pkt(4, 0, 1500)), Admission::Enqueued);
    }

    #[test]
    fn departs_in_arrival_order_with_sojourn_since_enqueue() {
        let mut q = TailDrop::new(TailDropParams::default());
        q.enqueue(100, pkt(1, 0, 100));
        q.enqueue(250, pkt(2, 0, 200));
        let mut drops = Vec::new();
        let a = q.dequeue(1_000, &mut drops).unwrap();
        let b = q.dequeue(2_000, &mut drops).unwrap();
        assert_eq!((a.pkt.id, a.sojourn_ns), (1, 900));
        assert_eq!((b.pkt.id, b.sojourn_ns), (2, 1750));
        assert!(q.dequeue(3_000, &mut drops).is_none());
        assert!(drops.is_empty());
        assert_eq!(q.backlog_bytes(), 0);
    }
}
