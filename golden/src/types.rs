//! Packet, verdict and departure types shared by every AQM model, the simulators and the hardware harness.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The two ECN bits of the IP header (RFC 3168, RFC 9331).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ecn {
    /// 0b00: the transport does not support ECN.
    NotEct = 0,
    /// 0b01: ECT(1), the L4S identifier.
    Ect1 = 1,
    /// 0b10: ECT(0), classic ECN.
    Ect0 = 2,
    /// 0b11: congestion experienced.
    Ce = 3,
}

impl Ecn {
    /// The code point as the 2-bit field value.
    pub fn bits(self) -> u8 {
        self as u8
    }

    /// The code point of a 2-bit field value; only the low two bits are used.
    pub fn from_bits(bits: u8) -> Ecn {
        match bits & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// ECT(0), ECT(1) or CE: a CE mark may replace a drop.
    pub fn is_ecn_capable(self) -> bool {
        self != Ecn::NotEct
    }
}

impl fmt::Display for Ecn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ecn::NotEct => "not-ect",
            Ecn::Ect1 => "ect1",
            Ecn::Ect0 => "ect0",
            Ecn::Ce => "ce",
        })
    }
}

/// What an AQM sees of a packet: a descriptor, never the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packet {
    /// Opaque identifier the caller uses to match verdicts and departures to packets.
    pub id: u64,
    /// Flow identifier (stands in for the 5-tuple; FQ-CoDel hashes it).
    pub flow: u32,
    /// Length in bytes, as Linux's `skb->len` / `qdisc_pkt_len`.
    pub len: u32,
    /// ECN code point on arrival (or after marking, on departure).
    pub ecn: Ecn,
}

/// IP-header fields some classifiers read besides the flow (CAKE's tins and host isolation). They travel
/// beside the [`Packet`] descriptor, through [`crate::Aqm::enqueue_with_header`], so that the descriptor
/// (and every adapter and hardware path built on it) is unchanged; `Header::default()` is a best-effort
/// packet between host 0 and host 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Header {
    /// The 6-bit DiffServ code point (the ToS byte >> 2).
    pub dscp: u8,
    /// Source host (stands in for the source address).
    pub src_host: u32,
    /// Destination host (stands in for the destination address).
    pub dst_host: u32,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DropReason {
    /// The queue was at its packet or byte limit when the packet arrived (tail drop, `overlimit`).
    Overlimit,
    /// A probabilistic drop at enqueue (PIE, RED between the thresholds).
    Early,
    /// RED's forced drop (average queue at or above max_th).
    Forced,
    /// CoDel's control law (also CAKE's COBALT) dropped the packet at dequeue.
    Codel,
    /// FQ-CoDel's (and CAKE's) over-limit drop from the fattest flow.
    FqOverlimit,
    /// DualPI2: a Classic packet dropped at dequeue (p_C = p'^2, or overload).
    Classic,
    /// DualPI2: an L packet dropped at dequeue (Not-ECT in L, or overload with drop_overload).
    LowLatency,
    /// DualPI2: the L queue's step threshold hit a Not-ECT packet.
    Step,
    /// CAKE: COBALT's BLUE half dropped the packet at dequeue. (COBALT's CoDel half reports
    /// [`DropReason::Codel`], and CAKE's over-limit drop from the longest queue
    /// [`DropReason::FqOverlimit`], so that the simulator's tables keep their columns.)
    Blue,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DropReason::Overlimit => "overlimit",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::Codel => "codel",
            DropReason::FqOverlimit => "fq-overlimit",
            DropReason::Classic => "classic",
            DropReason::LowLatency => "l",
            DropReason::Step => "step",
            DropReason::Blue => "blue",
        })
    }
}

/// Why a packet was CE-marked instead of dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MarkReason {
    /// PIE / RED probabilistic mark at enqueue.
    Early,
    /// RED's forced mark (average at or above max_th).
    Forced,
    /// CoDel (and FQ-CoDel, and CAKE's COBALT) mark at dequeue.
    Codel,
    /// DualPI2: Classic ECN packet marked with p_C = p'^2.
    Classic,
    /// DualPI2: L packet marked by the coupled probability k p'.
    Coupled,
    /// DualPI2: L packet marked by the native step threshold.
    Step,
    /// FQ-CoDel: an ECT packet whose sojourn exceeded `ce_threshold` (DCTCP-style marking).
    CeThreshold,
}

impl fmt::Display for MarkReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MarkReason::Early => "early",
            MarkReason::Forced => "forced",
            MarkReason::Codel => "codel",
            MarkReason::Classic => "classic",
            MarkReason::Coupled => "coupled",
            MarkReason::Step => "step",
            MarkReason::CeThreshold => "ce-threshold",
        })
    }
}

/// The admission decision for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Admission {
    /// Queued unchanged.
    Enqueued,
    /// Queued with its ECN field set to CE.
    Marked(MarkReason),
    /// Not queued.
    Dropped(DropReason),
}

/// Which queue of the AQM a packet went through (DualPI2 has two; the others one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum QueueId {
    /// The only queue of a single-queue AQM, or DualPI2's Classic queue.
    Classic = 0,
    /// DualPI2's Low-latency (L4S) queue.
    L = 1,
}

/// A packet leaving the AQM towards the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Departure {
    /// The packet, with its ECN field as it leaves (CE if marked anywhere).
    pub pkt: Packet,
    /// Time spent in the queue, ns.
    pub sojourn_ns: u64,
    /// Set when this AQM marked the packet at dequeue (marks at enqueue are reported by `Admission`).
    pub mark: Option<MarkReason>,
    /// The queue it left from.
    pub queue: QueueId,
}

/// A packet the AQM dropped at dequeue while looking for one to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    pub pkt: Packet,
    pub reason: DropReason,
    /// Time it had spent in the queue, ns.
    pub sojourn_ns: u64,
    pub queue: QueueId,
}
