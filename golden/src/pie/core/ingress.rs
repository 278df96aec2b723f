//! The verdict pipeline (`aqm_hdl::pie::ingress::PieIngress`): P0 samples the slow state on
//! acceptance (a bytemode packet then holds P0 for its multiplier), P1 has the local probability and
//! takes LIMIT and MTU for the queue checks, P2 takes the random word, and V (P3) decides with
//! [`finish`] against the queue and accumulator as it finds them. The counters count the verdict
//! register, one edge after V; the byte backlog loses a departure's length in its D2.

use super::super::enqueue::{finish, Prepared, QueueView, Verdict};
use super::controller::CtrlOut;
use super::egress::DeqView;
use super::queue::Entry;
use super::regs::Params;
use super::{PieCoreInputs, TIME_MASK};
use crate::hw::Desc;
use crate::pie::consts::{ACCU_HIGH, ACCU_LOW, BYTEMODE_HOLD};

const MASK56: u64 = (1 << 56) - 1;

/// A descriptor in the pipeline.
#[derive(Clone, Copy, Debug, Default)]
struct Stage {
    valid: bool,
    desc: Desc,
    prepared: Prepared,
    rnd: u64,
    /// LIMIT and MTU of the packet's P1 cycle, for V's limit and 2*MTU checks.
    limit: u32,
    mtu: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Ingress {
    p0: Stage,
    bytes0: bool,
    /// The bytemode multiplier's step counter.
    mcnt: u64,
    p1: Stage,
    p2: Stage,
    p3: Stage,
    pub vv: bool,
    pub vtag: u16,
    pub vcode: u8,
    /// The queue's count in V, for MAXQ the edge after.
    vcount: u32,
    /// The length of a departure in its D2 (it leaves the byte backlog at this edge).
    dq2: Option<u16>,
    pub acc: u64,
    pub backlog: u32,
    pub pkts_in: u32,
    pub dropped: u32,
    pub overlimit: u32,
    pub marked: u32,
    pub maxq: u32,
    /// Coverage of the last edge: a bytemode product completed, a random draw decided, a sum on a
    /// threshold.
    events: (u64, u64, u64),
}

/// Combinational values of this cycle.
#[derive(Clone, Copy, Debug)]
pub struct Comb {
    pub in_ready: bool,
    pub rnd_take: bool,
    stall: bool,
}

/// What the pipeline reads of the rest of the core at the clock edge.
pub struct Env<'a> {
    pub params: &'a Params,
    pub ctrl: &'a CtrlOut,
    pub deq: &'a DeqView,
    pub count: u32,
    pub rnd: u64,
    pub clear_counters: bool,
}

impl Ingress {
    /// Coverage of the last clock edge: (bytemode product, decided by the random draw, acc + lp on a
    /// threshold: at 0.85 or 8.5 or less than 2^30 above, where the hardware's comparison turns on the
    /// carry between the halves of its sign chain).
    pub fn events(&self) -> (u64, u64, u64) {
        self.events
    }

    pub fn busy(&self) -> bool {
        self.p0.valid || self.p1.valid || self.p2.valid || self.p3.valid
    }

    pub fn comb(&self, rst: bool) -> Comb {
        let stall = self.p0.valid && self.bytes0 && self.mcnt != BYTEMODE_HOLD - 1;
        Comb {
            in_ready: !rst && !stall,
            rnd_take: self.p1.valid && !rst,
            stall,
        }
    }

    /// The clock edge; returns the descriptor pushed into the queue this cycle, if any.
    pub fn clock(&mut self, rst: bool, i: &PieCoreInputs, c: &Comb, e: &Env) -> Option<Entry> {
        let p = e.params;
        self.events = (0, 0, 0);
        // The counters count last cycle's verdict.
        if self.vv {
            self.pkts_in = self.pkts_in.wrapping_add(1);
            match Verdict::from_code(self.vcode) {
                Verdict::EarlyDrop => self.dropped = self.dropped.wrapping_add(1),
                Verdict::TailDrop => {
                    self.dropped = self.dropped.wrapping_add(1);
                    self.overlimit = self.overlimit.wrapping_add(1);
                }
                Verdict::Mark => self.marked = self.marked.wrapping_add(1),
                Verdict::Enqueue => {}
            }
            if Verdict::from_code(self.vcode).is_enqueued() && self.vcount >= self.maxq {
                self.maxq = (self.vcount + 1) & 0x7FF;
            }
        }
        // V: the verdict of the packet in P3.
        let mut push = None;
        let mut next_acc = self.acc;
        let s3 = self.p3;
        self.vcount = e.count;
        if s3.valid {
            // A departure in the cycle before V (now in D1) still counts against the limit.
            let queue = QueueView {
                packets: e.count + e.deq.deq_valid as u32,
                bytes: self.backlog as u64,
            };
            let d = finish(s3.prepared, self.acc, queue, s3.limit, s3.mtu, s3.rnd);
            let on = |c: u64| (self.acc + d.local_prob).wrapping_sub(c) < 1 << 30;
            if d.local_prob > 0 && (on(ACCU_LOW) || on(ACCU_HIGH)) {
                self.events.2 = 1;
            }
            // A random early decision: the sum was between 0.85 and 8.5 and the draw hit.
            if matches!(d.verdict, Verdict::EarlyDrop | Verdict::Mark) && d.local_prob > 0 {
                let sum = (self.acc + d.local_prob).min(super::super::consts::ACCU_MAX);
                self.events.1 = (sum < super::super::consts::ACCU_HIGH) as u64;
            }
            next_acc = d.accu_prob;
            if d.verdict.is_enqueued() && !rst {
                push = Some(Entry {
                    ts: i.now & TIME_MASK,
                    desc: Desc {
                        ecn: if d.verdict == Verdict::Mark {
                            3
                        } else {
                            s3.desc.ecn
                        },
                        ..s3.desc
                    },
                });
            }
            self.vtag = s3.desc.tag;
            self.vcode = d.verdict.code();
        } else {
            self.vtag = 0;
            self.vcode = 0;
        }
        self.vv = s3.valid;
        self.acc = if e.ctrl.burst_reset { 0 } else { next_acc };
        // Byte backlog: the departure in D2 out, this packet in.
        let deq = self.dq2.map_or(0, u32::from);
        let pushed = push.map_or(0, |x: Entry| x.desc.len as u32);
        self.backlog = self.backlog.wrapping_sub(deq).wrapping_add(pushed);
        self.dq2 = e.deq.deq_valid.then_some(e.deq.deq_len);

        // P3, P2, P1.
        self.p3 = self.p2;
        self.p2 = self.p1;
        if self.p1.valid {
            self.p2.rnd = e.rnd;
        }
        self.p2.limit = p.pie.limit;
        self.p2.mtu = p.pie.mtu;
        self.p1 = self.p0;
        self.p1.valid = self.p0.valid && !c.stall;

        // P0: the multiplier steps while a bytemode packet holds it; else it takes the input.
        if c.stall {
            self.mcnt += 1;
            if self.mcnt == BYTEMODE_HOLD - 1 {
                self.events.0 = 1;
                // The multiplier takes prob/MTU's low 52 bits, one hex digit per cycle: prob/MTU is
                // below 2^50 whenever MTU is in its range (>= 64), that is from the first reset on.
                let lp = &mut self.p0.prepared.local_prob;
                *lp = (*lp & ((1 << 52) - 1)).wrapping_mul(self.p0.desc.len as u64) & MASK56;
            }
        } else {
            let accept = i.in_valid && !rst;
            let in_bytes = p.in_bytes(i.in_len);
            self.p0 = Stage {
                valid: accept,
                desc: i.desc(),
                prepared: Prepared {
                    bypass: e.deq.burst > 0 || (e.deq.qdelay < p.target_half() && e.ctrl.prob_lt20),
                    ecn_ok: p.pie.ecn && e.ctrl.prob_le10 && i.in_ecn & 3 != 0,
                    // The multiplier's operand; the product replaces it when it is ready.
                    local_prob: if in_bytes { e.ctrl.ppb } else { e.ctrl.prob },
                },
                rnd: 0,
                limit: 0,
                mtu: 0,
            };
            self.bytes0 = in_bytes;
            self.mcnt = 0;
        }

        if e.clear_counters {
            self.pkts_in = 0;
            self.dropped = 0;
            self.overlimit = 0;
            self.marked = 0;
            self.maxq = 0;
        }
        if rst {
            self.p0.valid = false;
            self.p1.valid = false;
            self.p2.valid = false;
            self.p3.valid = false;
            self.vv = false;
            self.vtag = 0;
            self.vcode = 0;
            self.acc = 0;
            self.backlog = 0;
            self.dq2 = None;
            self.pkts_in = 0;
            self.dropped = 0;
            self.overlimit = 0;
            self.marked = 0;
            self.maxq = 0;
        }
        push
    }
}
