//! The egress (`aqm_hdl::dualpi2::egress`): a show-ahead dequeue, the WRR credit and the link model.
//!
//! - Every cycle, [`Egress::comb`] shows what a dequeue in this cycle gets: with the link model Idle
//!   and a head valid, [`pick`] a queue by the credit and [`decide`] its head with this cycle's state:
//!   the departure time (the link model's: after a drop, the drop's), the sojourn, the byte
//!   backlog without the head, p', kp and the overload flag, and the generator's next word. No head or
//!   the link busy: nothing is shown.
//! - `out_ready` with a packet shown is a dequeue ([`Comb::deq`]): at the edge the queue pops, the
//!   generator takes its word, the link model records the departure time (after a drop, the next
//!   dequeue, if in the very next cycle, keeps it: a chain of drops), a send adds [`credit_change`] to
//!   the credit and starts the link model; the counters take the decision at the following edge.
//!   `out_ready` with both heads invalid (link Idle) resets the credit.

use super::super::decision::{decide, Decision, Head, Rule, Verdict};
use super::super::params::{DualPi2Params, HARDWARE_PARAMS};
use super::super::scheduler::{credit_change, initial_credit, pick};
use super::super::vars::DualPi2Vars;
use super::queue::Entry;
use super::{qi, TIME_MASK};
use crate::hw::link::{LinkModel, Start};
use crate::types::{Ecn, QueueId};

/// A dequeue, registered for the counters: they count it at the next edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counted {
    queue: QueueId,
    len: u16,
    decision: Decision,
}

#[derive(Clone, Debug, Default)]
pub struct Egress {
    /// The previous cycle's dequeue was a drop, whose departure time the link model gives now (kept
    /// for the coverage counters).
    chain: bool,
    /// WRR credit, bytes x %.
    pub credit: i64,
    counting: Option<Counted>,
    pub link: LinkModel,
    // Counters, indexed by `qi` (C = 0, L = 1).
    pub sent_pkts: [u32; 2],
    /// 40 bits.
    pub sent_bytes: [u64; 2],
    pub dropped_aqm: [u32; 2],
    pub marked: [u32; 2],
    pub step_marks: u32,
    pub overload: u32,
}

/// What the egress reads of the rest of the core, combinationally.
pub struct View<'a> {
    pub now40: u64,
    pub out_ready: bool,
    /// The queue heads, by [`qi`].
    pub heads: [Option<Entry>; 2],
    pub params: &'a DualPi2Params,
    /// p' and the K that the controller's kp and overload flag were computed with.
    pub prob: u32,
    pub kp_k: u32,
    /// Bytes in both queues this cycle (the head included).
    pub backlog: u64,
    /// The generator's next word: the shown packet is decided with it, a dequeue takes it.
    pub word: u64,
}

/// The packet on the egress stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    pub queue: QueueId,
    pub entry: Entry,
    /// ns, 40 bits.
    pub sojourn: u64,
    pub decision: Decision,
    /// The backlog without this packet minus 2 MTU, bytes: the 2 MTU gate is shut below zero.
    pub gate_margin: i64,
}

impl Shown {
    pub fn drop(&self) -> bool {
        matches!(self.decision.verdict, Verdict::Drop(_))
    }

    /// The ECN field it leaves with: CE if marked, else as it arrived.
    pub fn ecn(&self) -> u8 {
        match self.decision.verdict {
            Verdict::Mark(_) => Ecn::Ce.bits(),
            _ => self.entry.desc.ecn,
        }
    }
}

/// Combinational values of this cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Comb {
    pub shown: Option<Shown>,
    /// `out_ready` takes the packet shown.
    pub deq: bool,
    /// `chain` is set: the departure time is the previous packet's.
    pub chained: bool,
    /// The departure time is the link model's exact one.
    pub exact: bool,
    pub credit_reset: bool,
    /// Both heads are valid.
    both: bool,
    dep: u64,
    frac: u64,
}

impl Comb {
    /// The packet dequeued this cycle.
    pub fn taken(&self) -> Option<Shown> {
        self.shown.filter(|_| self.deq)
    }

    /// The queue popped this cycle, with its head entry.
    pub fn pop(&self) -> Option<(QueueId, Entry)> {
        self.taken().map(|s| (s.queue, s.entry))
    }
}

/// What the egress reads of the rest of the core at the edge.
pub struct Env<'a> {
    pub now40: u64,
    pub params: &'a DualPi2Params,
    pub link_bt: u32,
    /// The parameter engine commits MTU or C_PROTECTION at this edge: the new initial credit.
    pub credit_load: Option<i64>,
    pub clear_counters: bool,
}

/// What happened at a clock edge, for coverage.
#[derive(Clone, Copy, Debug, Default)]
pub struct EgressEvents {
    /// The dequeued packet's queue, decision and margin to the 2 MTU gate ([`Shown::gate_margin`]).
    pub decided: Option<(QueueId, Decision, i64)>,
    pub sent: bool,
    pub link_wait: bool,
}

impl Egress {
    /// Nothing waits for the next edge: no decision to count.
    pub fn quiet(&self) -> bool {
        self.counting.is_none()
    }

    pub fn comb(&self, v: &View) -> Comb {
        let [head_c, head_l] = v.heads;
        let link_idle = self.link.idle();
        let (dep, frac) = self.link.dep(v.now40);
        let shown = if link_idle {
            pick(self.credit, head_l.is_some(), head_c.is_some()).and_then(|q| {
                let h = v.heads[qi(q)]?;
                let sojourn = dep.wrapping_sub(h.ts) & TIME_MASK;
                let head = Head {
                    queue: q,
                    ecn: Ecn::from_bits(h.desc.ecn),
                    sojourn_ns: sojourn,
                    apply_step: h.apply_step,
                };
                let vars = DualPi2Vars {
                    prob: v.prob,
                    last_qdelay: 0,
                    credit: self.credit,
                };
                // CONTRACT: "the effective K" of a decision is read as "K through kp and the overload
                // flag": decide with the K they were computed with, which lags the effective K from a
                // K commit until its recompute (RECOMPUTE_CYCLES later, or more if the controller is
                // busy).
                let params = DualPi2Params {
                    k: v.kp_k,
                    ..*v.params
                };
                let backlog = v.backlog - h.desc.len as u64;
                Some(Shown {
                    queue: q,
                    entry: h,
                    sojourn,
                    decision: decide(&vars, &params, backlog, &head, v.word),
                    gate_margin: backlog as i64 - 2 * params.mtu as i64,
                })
            })
        } else {
            None
        };
        Comb {
            shown,
            deq: v.out_ready && shown.is_some(),
            chained: self.chain,
            exact: !self.chain && self.link.exact(),
            credit_reset: v.out_ready && link_idle && head_c.is_none() && head_l.is_none(),
            both: head_c.is_some() && head_l.is_some(),
            dep,
            frac,
        }
    }

    pub fn clock(&mut self, rst: bool, c: &Comb, e: &Env) -> EgressEvents {
        let mut ev = EgressEvents::default();
        let mut start = None;
        // The previous edge's dequeue reaches the counters.
        if let Some(Counted {
            queue,
            len,
            decision: d,
        }) = self.counting.take()
        {
            let n = qi(queue);
            self.overload = self.overload.wrapping_add(d.overload as u32);
            match d.verdict {
                Verdict::Drop(_) => self.dropped_aqm[n] = self.dropped_aqm[n].wrapping_add(1),
                _ => {
                    self.sent_pkts[n] = self.sent_pkts[n].wrapping_add(1);
                    self.sent_bytes[n] = (self.sent_bytes[n] + len as u64) & TIME_MASK;
                }
            }
            if let Verdict::Mark(rule) = d.verdict {
                self.marked[n] = self.marked[n].wrapping_add(1);
                self.step_marks = self.step_marks.wrapping_add((rule == Rule::Step) as u32);
            }
        }
        self.chain = false;
        match c.taken() {
            Some(s) => {
                // Sent or dropped, the dequeue's departure time goes into link_free; only a send
                // occupies the link.
                start = Some(Start {
                    len: s.entry.desc.len,
                    dep: c.dep,
                    frac: c.frac,
                    sends: !s.drop(),
                });
                self.counting = Some(Counted {
                    queue: s.queue,
                    len: s.entry.desc.len,
                    decision: s.decision,
                });
                if s.drop() {
                    self.chain = true;
                } else {
                    self.credit +=
                        credit_change(e.params, s.queue, c.both, s.entry.desc.len as u32);
                    ev.sent = true;
                }
                ev.decided = Some((s.queue, s.decision, s.gate_margin));
            }
            // CONTRACT: only here (and at reset) is the credit loaded with the initial credit: MTU and
            // C_PROTECTION commits leave it alone. A request while a descriptor is pushed but not yet
            // at the head also resets it (the heads decide, not the counts).
            None if c.credit_reset => self.credit = initial_credit(e.params),
            None => {}
        }
        ev.link_wait = self.link.clock(rst, e.now40, start, e.link_bt);
        // New weights restart the WRR (this wins over a send or an empty request at the same edge).
        if let Some(c) = e.credit_load {
            self.credit = c;
        }
        if e.clear_counters {
            self.sent_pkts = [0; 2];
            self.sent_bytes = [0; 2];
            self.dropped_aqm = [0; 2];
            self.marked = [0; 2];
            self.step_marks = 0;
            self.overload = 0;
        }
        if rst {
            *self = Egress {
                credit: initial_credit(&HARDWARE_PARAMS),
                ..Egress::default()
            };
            return EgressEvents::default();
        }
        ev
    }
}
