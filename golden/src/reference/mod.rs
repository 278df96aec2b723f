//! Software reference AQMs (tail drop, RED, CoDel, FQ-CoDel, CAKE, DOCSIS-PIE): see spec/reference-aqms.md
//! and golden/REFERENCE-AQMS.md.
//!
//! Each one implements [`crate::Aqm`] so that the network simulator can put it in front of the link like
//! the fixed-point PIE and DualPI2 models. These run in software only; they follow their RFCs and the
//! Linux v6.12 defaults, in floating point where Linux uses fixed point (noted where it matters).

pub mod cake;
pub mod codel;
pub mod docsis_pie;
pub mod fq_codel;
pub mod red;
pub mod shaper;
pub mod taildrop;

pub use cake::{Cake, CakeParams};
pub use codel::{Codel, CodelParams};
pub use docsis_pie::{DocsisPie, DocsisPieParams};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use red::{Red, RedParams};
pub use shaper::{TokenBucket, TokenBucketParams};
pub use taildrop::{TailDrop, TailDropParams};

use crate::types::{Admission, Departure, DropReason, Dropped, Packet, QueueId};
use std::collections::VecDeque;

/// Ethernet MTU as Linux's `psched_mtu()` reports it (1500 + 14 bytes of header), bytes.
pub const MTU: u32 = 1514;

/// A FIFO of packets with their enqueue timestamps and a byte count: the queue under every reference AQM.
#[derive(Clone, Debug, Default)]
pub(crate) struct TimedFifo {
    q: VecDeque<(Packet, u64)>,
    bytes: u64,
}

impl TimedFifo {
    pub(crate) fn len(&self) -> usize {
        self.q.len()
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    pub(crate) fn push(&mut self, pkt: Packet, now_ns: u64) {
        self.bytes += u64::from(pkt.len);
        self.q.push_back((pkt, now_ns));
    }

    /// The head packet and its enqueue time.
    pub(crate) fn pop(&mut self) -> Option<(Packet, u64)> {
        let head = self.q.pop_front()?;
        self.bytes -= u64::from(head.0.len);
        Some(head)
    }

    /// Enqueues `pkt` unless the FIFO already holds `limit` packets (then a tail drop).
    pub(crate) fn admit(&mut self, limit: usize, pkt: Packet, now_ns: u64) -> Admission {
        if self.len() >= limit {
            return Admission::Dropped(DropReason::Overlimit);
        }
        self.push(pkt, now_ns);
        Admission::Enqueued
    }

    /// The head packet as an unmarked departure from the single (classic) queue.
    pub(crate) fn depart(&mut self, now_ns: u64) -> Option<Departure> {
        let (pkt, enq) = self.pop()?;
        Some(Departure {
            pkt,
            sojourn_ns: now_ns - enq,
            mark: None,
            queue: QueueId::Classic,
        })
    }
}

/// The verdict on an arrival `id` after an enqueue that may have pushed packets out: dropped (over the
/// limit) when it is among them, and then taken out of `pushed_out`, since the enqueue reports it itself.
pub(crate) fn arrival_verdict(pushed_out: &mut Vec<Dropped>, id: u64) -> Admission {
    match pushed_out.iter().position(|d| d.pkt.id == id) {
        Some(pos) => {
            pushed_out.remove(pos);
            Admission::Dropped(DropReason::FqOverlimit)
        }
        None => Admission::Enqueued,
    }
}

/// The two backlog methods of [`crate::Aqm`] for an AQM whose whole queue is its `fifo` field.
macro_rules! fifo_backlog {
    () => {
        fn backlog_packets(&self) -> usize {
            self.fifo.len()
        }

        fn backlog_bytes(&self) -> u64 {
            self.fifo.bytes()
        }
    };
}
use fifo_backlog;

/// Test drivers shared by the reference AQMs' unit tests.
#[cfg(test)]
pub(crate) mod testutil {
    use crate::types::{Departure, Dropped, Ecn, Packet};
    use crate::Aqm;

    pub(crate) fn pkt(id: u64, flow: u32, len: u32) -> Packet {
        Packet {
            id,
            flow,
            len,
            ecn: Ecn::NotEct,
        }
    }

    /// What a link of `rate_bps` that pulls from `aqm` whenever it is free saw between arrivals.
    #[derive(Default)]
    pub(crate) struct LinkLog {
        pub departures: Vec<(u64, Departure)>,
        pub drops: Vec<(u64, Dropped)>,
    }

    /// Feeds `arrivals` (time-ordered `(ns, packet)`) into `aqm` in front of a link of `rate_bps` and runs
    /// until `end_ns`, recording every departure and every dequeue drop with its time.
    pub(crate) fn run_link(
        aqm: &mut dyn Aqm,
        arrivals: &[(u64, Packet)],
        rate_bps: u64,
        end_ns: u64,
    ) -> LinkLog {
        let mut log = LinkLog::default();
        let mut drops = Vec::new();
        let mut link_free_at = 0u64;
        let mut next = 0usize;
        loop {
            // The link pulls at link_free_at unless an arrival comes first (or at the same time: arrivals
            // are handled first so that a packet arriving at an idle link is sent at once).
            let arrival_at = arrivals.get(next).map(|a| a.0);
            match arrival_at {
                Some(t) if t <= link_free_at || aqm.backlog_packets() == 0 => {
                    if t > end_ns {
                        break;
                    }
                    let _ = aqm.enqueue(t, arrivals[next].1);
                    next += 1;
                    link_free_at = link_free_at.max(t);
                }
                _ => {
                    let now = link_free_at;
                    if now > end_ns || aqm.backlog_packets() == 0 {
                        break;
                    }
                    let d = aqm.dequeue(now, &mut drops);
                    log.drops.extend(drops.drain(..).map(|x| (now, x)));
                    if let Some(d) = d {
                        link_free_at = now + u64::from(d.pkt.len) * 8 * 1_000_000_000 / rate_bps;
                        log.departures.push((now, d));
                    }
                }
            }
        }
        log
    }
}
