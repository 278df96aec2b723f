//! The ingress (`aqm_hdl::dualpi2::ingress`), II = 1: cycle a accepts a descriptor and classifies it
//! with the ECN_MASK of that cycle; cycle a+1 (stage V) judges it with [`admit`] against the live
//! queue counts and byte backlogs and pushes it; cycle a+2 shows the verdict. The byte backlogs of
//! both queues live here: they follow the pushes of stage V and the pops of the egress.

use super::super::classify::{admit, Admit, EnqueueVerdict, QueueView};
use super::super::params::DualPi2Params;
use super::queue::Entry;
use super::{qi, TIME_MASK};
use crate::hw::{CoreInputs, Desc};
use crate::types::{Ecn, QueueId};

/// Verdict codes on the `verdict_code` port.
pub const CODE_ENQUEUE: u8 = 0;
pub const CODE_TAIL_DROP: u8 = 3;

/// MAXQ is 11 bits.
const MAXQ_MASK: u32 = 0x7FF;

/// The descriptor in stage V.
#[derive(Clone, Copy, Debug, Default)]
struct Stage {
    valid: bool,
    desc: Desc,
    /// The ECN_MASK it was classified with (cycle a), which fixes its class: stage V calls `admit`
    /// with it, which classifies exactly as the RTL's registered class bit.
    mask: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Ingress {
    v: Stage,
    /// Stage V pushed an entry at the last edge (it is not at the head yet).
    pub pushed: bool,
    /// ... or at the edge before (it is in the queue's next-entry register from the next cycle on).
    pub pushed2: bool,
    /// ... or at the edge before that (it is in the queue's head register from the next cycle on).
    pub pushed3: bool,
    pub vv: bool,
    pub vtag: u16,
    pub vcode: u8,
    pub vqueue: bool,
    /// Counters and backlogs, indexed by [`qi`] (C = 0, L = 1).
    pub pkts_in: [u32; 2],
    pub dropped_enq: [u32; 2],
    pub maxq: u32,
    /// Bytes queued, per queue.
    pub bytes: [u64; 2],
    /// The judgement of the last edge, for coverage.
    pub last: Option<Admit>,
}

/// What stage V reads of the rest of the core at the edge.
pub struct Env<'a> {
    pub now40: u64,
    pub params: &'a DualPi2Params,
    /// The C and L queues' counts this cycle.
    pub counts: [u32; 2],
    /// The packet the egress pops this cycle: its queue and length.
    pub popped: Option<(QueueId, u16)>,
    pub clear_counters: bool,
}

impl Ingress {
    /// A descriptor is in stage V.
    pub fn busy(&self) -> bool {
        self.v.valid
    }

    /// The rising edge; returns the entry pushed this cycle and its queue.
    pub fn clock(&mut self, rst: bool, i: &CoreInputs, e: &Env) -> Option<(QueueId, Entry)> {
        let mut push = None;
        self.last = None;
        // Stage V.
        let s = self.v;
        if s.valid {
            let view = QueueView {
                c_packets: e.counts[0],
                l_packets: e.counts[1],
                bytes: self.bytes[0] + self.bytes[1],
            };
            let params = DualPi2Params {
                ecn_mask: s.mask,
                ..*e.params
            };
            let a = admit(&params, view, s.desc.len as u32, Ecn::from_bits(s.desc.ecn));
            let q = qi(a.queue);
            match a.verdict {
                EnqueueVerdict::Enqueue { apply_step } => {
                    self.pkts_in[q] = self.pkts_in[q].wrapping_add(1);
                    self.maxq = self.maxq.max((e.counts[0] + e.counts[1] + 1) & MAXQ_MASK);
                    push = Some((
                        a.queue,
                        Entry {
                            ts: e.now40 & TIME_MASK,
                            desc: s.desc,
                            apply_step,
                        },
                    ));
                    self.vcode = CODE_ENQUEUE;
                }
                EnqueueVerdict::Overlimit(_) => {
                    self.dropped_enq[q] = self.dropped_enq[q].wrapping_add(1);
                    self.vcode = CODE_TAIL_DROP;
                }
            }
            self.vtag = s.desc.tag;
            self.vqueue = a.queue == QueueId::L;
            self.last = Some(a);
        } else {
            self.vtag = 0;
            self.vcode = 0;
            self.vqueue = false;
        }
        self.vv = s.valid;
        self.pushed3 = self.pushed2;
        self.pushed2 = self.pushed;
        self.pushed = push.is_some();
        // The byte backlogs: this cycle's push in, this cycle's pop out.
        if let Some((q, en)) = push {
            self.bytes[qi(q)] += en.desc.len as u64;
        }
        if let Some((q, len)) = e.popped {
            let b = &mut self.bytes[qi(q)];
            *b = b.wrapping_sub(len as u64);
        }

        // Cycle a: accept and classify with this cycle's ECN_MASK.
        self.v = Stage {
            valid: i.in_valid && !rst,
            desc: i.desc(),
            mask: e.params.ecn_mask,
        };

        if e.clear_counters {
            self.pkts_in = [0; 2];
            self.dropped_enq = [0; 2];
            self.maxq = 0;
        }
        if rst {
            *self = Ingress::default();
            return None;
        }
        push
    }
}
