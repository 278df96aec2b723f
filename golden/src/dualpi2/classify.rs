//! Classification and the enqueue limits (spec/dualpi2.md, "Classification at enqueue"): a pure function
//! of the parameters, the two queues as the arriving packet finds them, and the packet.
//!
//! The rules, in order:
//! 1. (ECN & ecn_mask) != 0 -> L queue, else C queue.
//! 2. Both queues together hold `limit` packets or more -> drop (Linux's `qlen >= limit`).
//! 3. The bytes of both queues plus this packet exceed limit * 2 * MTU -> drop (Linux's
//!    `memory_used + truesize > memory_limit`, with the packet length standing for its truesize).
//! 4. The packet's own queue holds `queue_capacity` packets -> drop (the hardware's descriptor memory;
//!    unbounded in the software model).
//! 5. Otherwise it is queued; an L packet remembers whether the L queue held at least min_qlen_step
//!    packets (itself excluded), which decides whether the step marker may act on it at dequeue.
//!
//! All three drops are tail drops (`overlimit`), counted for the packet's class.

use super::params::DualPi2Params;
use crate::types::{Ecn, QueueId};

/// The queue a packet goes to.
pub fn classify(ecn: Ecn, ecn_mask: u32) -> QueueId {
    if ecn.bits() as u32 & ecn_mask != 0 {
        QueueId::L
    } else {
        QueueId::Classic
    }
}

/// Both queues as an arriving packet finds them (the packet itself excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueView {
    pub l_packets: u32,
    pub c_packets: u32,
    /// Bytes in both queues together.
    pub bytes: u64,
}

/// Which limit turned a packet away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// Rule 2: the packet limit of both queues.
    Packets,
    /// Rule 3: the byte limit of both queues.
    Bytes,
    /// Rule 4: the packet's queue is full.
    Capacity,
}

/// What happens to an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnqueueVerdict {
    /// Queued; `apply_step`: the step marker may act on it (always false in the C queue).
    Enqueue { apply_step: bool },
    /// Tail-dropped.
    Overlimit(Limit),
}

/// The classification and the verdict of one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Admit {
    pub queue: QueueId,
    pub verdict: EnqueueVerdict,
}

/// Rules 1-5 for a packet of `len` bytes with ECN field `ecn`.
pub fn admit(params: &DualPi2Params, view: QueueView, len: u32, ecn: Ecn) -> Admit {
    // 1.
    let queue = classify(ecn, params.ecn_mask);
    let own = match queue {
        QueueId::L => view.l_packets,
        QueueId::Classic => view.c_packets,
    };
    let verdict = if view.l_packets as u64 + view.c_packets as u64 >= params.limit as u64 {
        // 2.
        EnqueueVerdict::Overlimit(Limit::Packets)
    } else if view.bytes + len as u64 > params.byte_limit() {
        // 3.
        EnqueueVerdict::Overlimit(Limit::Bytes)
    } else if own >= params.queue_capacity {
        // 4.
        EnqueueVerdict::Overlimit(Limit::Capacity)
    } else {
        // 5.
        EnqueueVerdict::Enqueue {
            apply_step: queue == QueueId::L && view.l_packets >= params.min_qlen_step,
        }
    };
    Admit { queue, verdict }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: DualPi2Params = super::super::params::DEFAULT_PARAMS;
    const ALL: [Ecn; 4] = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce];

    fn queues(mask: u32) -> Vec<QueueId> {
        ALL.iter().map(|&e| classify(e, mask)).collect()
    }

    #[test]
    fn mask_1_sends_ect1_and_ce_to_l() {
        use QueueId::*;
        assert_eq!(queues(1), [Classic, L, Classic, L]);
    }

    #[test]
    fn mask_2_sends_ect0_and_ce_to_l() {
        use QueueId::*;
        assert_eq!(queues(2), [Classic, Classic, L, L]);
    }

    #[test]
    fn mask_3_sends_any_ect_to_l() {
        use QueueId::*;
        assert_eq!(queues(3), [Classic, L, L, L]);
    }

    #[test]
    fn not_ect_never_reaches_l() {
        for mask in 1..=3 {
            assert_eq!(classify(Ecn::NotEct, mask), QueueId::Classic);
        }
    }

    #[test]
    fn packet_limit_counts_both_queues() {
        let p = DualPi2Params { limit: 10, ..P };
        let full = QueueView {
            l_packets: 4,
            c_packets: 6,
            bytes: 15_000,
        };
        for ecn in ALL {
            assert_eq!(
                admit(&p, full, 1500, ecn).verdict,
                EnqueueVerdict::Overlimit(Limit::Packets)
            );
        }
        let room = QueueView {
            l_packets: 3,
            ..full
        };
        assert!(matches!(
            admit(&p, room, 1500, Ecn::Ect1).verdict,
            EnqueueVerdict::Enqueue { .. }
        ));
    }

    #[test]
    fn byte_limit_is_limit_times_two_mtu_including_the_packet() {
        let p = DualPi2Params { limit: 10, ..P };
        let limit = 10 * 2 * 1514;
        let view = QueueView {
            l_packets: 1,
            c_packets: 1,
            bytes: limit - 1500,
        };
        assert!(matches!(
            admit(&p, view, 1500, Ecn::NotEct).verdict,
            EnqueueVerdict::Enqueue { .. }
        ));
        assert_eq!(
            admit(&p, view, 1501, Ecn::NotEct).verdict,
            EnqueueVerdict::Overlimit(Limit::Bytes)
        );
    }

    #[test]
    fn a_full_queue_drops_only_its_own_class() {
        let p = DualPi2Params::hardware();
        let view = QueueView {
            l_packets: 512,
            c_packets: 100,
            bytes: 612 * 1500,
        };
        let l = admit(&p, view, 1500, Ecn::Ect1);
        assert_eq!(l.queue, QueueId::L);
        assert_eq!(l.verdict, EnqueueVerdict::Overlimit(Limit::Capacity));
        let c = admit(&p, view, 1500, Ecn::NotEct);
        assert_eq!(c.queue, QueueId::Classic);
        assert!(matches!(c.verdict, EnqueueVerdict::Enqueue { .. }));
    }

    #[test]
    fn packet_limit_comes_before_the_queue_capacity() {
        let p = DualPi2Params::hardware();
        let view = QueueView {
            l_packets: 512,
            c_packets: 512,
            bytes: 1024 * 1500,
        };
        assert_eq!(
            admit(&p, view, 1500, Ecn::Ect1).verdict,
            EnqueueVerdict::Overlimit(Limit::Packets)
        );
    }

    #[test]
    fn step_applies_to_l_packets_that_found_min_qlen_step_packets() {
        let p = DualPi2Params {
            min_qlen_step: 3,
            ..P
        };
        let view = |l| QueueView {
            l_packets: l,
            c_packets: 50,
            bytes: 0,
        };
        let step = |l, ecn| match admit(&p, view(l), 1500, ecn).verdict {
            EnqueueVerdict::Enqueue { apply_step } => apply_step,
            v => panic!("{v:?}"),
        };
        assert!(!step(2, Ecn::Ect1));
        assert!(step(3, Ecn::Ect1));
        assert!(!step(3, Ecn::NotEct));
        // The default 0 applies it to every L packet, even into an empty queue.
        let d = admit(&P, view(0), 1500, Ecn::Ce).verdict;
        assert_eq!(d, EnqueueVerdict::Enqueue { apply_step: true });
    }
}
