//! The egress (`aqm_hdl::dualpi2::egress`): the dequeue FSM (Idle, Decide, Out), the WRR credit, the
//! egress register and the link model.
//!
//! - Idle, `go` (out_ready, link Idle, a head valid): [`pick`] a queue, pop it, take the generator's
//!   next word, latch the head, the queue, whether both heads were valid and the departure time (the
//!   chained one after a drop, else the link model's). Idle without `go`: `chain` = 0, and a request
//!   that finds both heads invalid (link Idle) resets the credit.
//! - Decide: [`decide`] against the byte backlog of this cycle (the popped packet already out of it);
//!   the egress register is loaded at its edge, the departure counters at the next one (the first Out
//!   cycle's), from the registered decision.
//! - Out: `out_valid` until `out_ready`. At the handshake a drop sets `chain`; a send clears it, adds
//!   [`credit_change`] to the credit and starts the link model.

use super::super::decision::{decide, Decision, Head, Rule, Verdict};
use super::super::params::{DualPi2Params, HARDWARE_PARAMS};
use super::super::scheduler::{credit_change, initial_credit, pick};
use super::super::vars::DualPi2Vars;
use super::queue::Entry;
use super::{qi, queue_of, TIME_MASK};
use crate::hw::link::{LinkModel, Start};
use crate::types::{Ecn, QueueId};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum State {
    #[default]
    Idle,
    Decide,
    Out,
}

/// The egress register: what the stream shows in state Out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutReg {
    pub len: u16,
    pub ecn: u8,
    pub tag: u16,
    /// ns, 40 bits.
    pub sojourn: u64,
    pub queue: bool,
    pub drop: bool,
}

#[derive(Clone, Debug)]
pub struct Egress {
    pub state: State,
    chain: bool,
    // Latched at the pick.
    entry: Entry,
    l: bool,
    both: bool,
    /// Departure time, ns (40 bits), and its fraction (/256).
    dep: u64,
    frac: u64,
    pub out: OutReg,
    /// The decision loaded with the egress register.
    pub decision: Option<Decision>,
    /// WRR credit, bytes x %.
    pub credit: i64,
    /// What sending the decided packet adds to the credit, with the weights of the Decide cycle.
    credit_delta: i64,
    /// Set at the Decide edge: at the next edge the counters take the decision from the egress
    /// register (`out`) and `decision`, which hold it until the next Decide.
    counting: bool,
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

impl Default for Egress {
    fn default() -> Self {
        Egress {
            state: State::Idle,
            chain: false,
            entry: Entry::default(),
            l: false,
            both: false,
            dep: 0,
            frac: 0,
            out: OutReg::default(),
            decision: None,
            credit: 0,
            credit_delta: 0,
            counting: false,
            link: LinkModel::default(),
            sent_pkts: [0; 2],
            sent_bytes: [0; 2],
            dropped_aqm: [0; 2],
            marked: [0; 2],
            step_marks: 0,
            overload: 0,
        }
    }
}

/// Combinational values of this cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Comb {
    pub go: bool,
    /// The queue picked and popped this cycle, with its head entry.
    pub pop: Option<(QueueId, Entry)>,
    /// `chain` was set at the pick: the departure time is the previous packet's.
    pub chained: bool,
    /// The pick takes the link model's exact departure time.
    pub exact: bool,
    pub credit_reset: bool,
    pub handshake: bool,
    /// Both heads are valid.
    both: bool,
    dep: u64,
    frac: u64,
}

/// What the egress reads of the rest of the core at the edge.
pub struct Env<'a> {
    pub now40: u64,
    pub params: &'a DualPi2Params,
    pub link_bt: u32,
    /// p' and the K that the controller's kp and overload flag were computed with.
    pub prob: u32,
    pub kp_k: u32,
    /// Bytes in both queues this cycle.
    pub backlog: u64,
    /// The generator's state: after a pick, the word it took, with which the packet is decided (a seed
    /// load at the pick's edge replaces it).
    pub state: u64,
    /// The parameter engine commits MTU or C_PROTECTION at this edge: the new initial credit.
    pub credit_load: Option<i64>,
    pub clear_counters: bool,
}

/// What happened at a clock edge, for coverage.
#[derive(Clone, Copy, Debug, Default)]
pub struct EgressEvents {
    pub decided: Option<(QueueId, Decision)>,
    pub sent: bool,
    pub link_wait: bool,
}

impl Egress {
    pub fn out_valid(&self) -> bool {
        self.state == State::Out
    }

    pub fn comb(
        &self,
        now40: u64,
        out_ready: bool,
        head_c: Option<Entry>,
        head_l: Option<Entry>,
    ) -> Comb {
        let idle = self.state == State::Idle;
        let link_idle = self.link.idle();
        let any = head_c.is_some() || head_l.is_some();
        let go = idle && out_ready && link_idle && any;
        let pop = if go {
            pick(self.credit, head_l.is_some(), head_c.is_some()).and_then(|q| {
                let h = if q == QueueId::L { head_l } else { head_c };
                h.map(|h| (q, h))
            })
        } else {
            None
        };
        let (dep, frac) = if self.chain {
            (self.dep, self.frac)
        } else {
            self.link.dep(now40)
        };
        Comb {
            go,
            pop,
            chained: self.chain,
            exact: !self.chain && self.link.exact(),
            credit_reset: idle && !go && out_ready && link_idle && !any,
            handshake: self.state == State::Out && out_ready,
            both: head_c.is_some() && head_l.is_some(),
            dep,
            frac,
        }
    }

    pub fn clock(&mut self, rst: bool, c: &Comb, e: &Env) -> EgressEvents {
        let mut ev = EgressEvents::default();
        let mut start = None;
        // The previous edge's decision reaches the counters (the first Out cycle).
        if std::mem::take(&mut self.counting) {
            if let Some(d) = self.decision {
                let (n, o) = (qi(queue_of(self.out.queue)), self.out);
                self.overload = self.overload.wrapping_add(d.overload as u32);
                if o.drop {
                    self.dropped_aqm[n] = self.dropped_aqm[n].wrapping_add(1);
                } else {
                    self.sent_pkts[n] = self.sent_pkts[n].wrapping_add(1);
                    self.sent_bytes[n] = (self.sent_bytes[n] + o.len as u64) & TIME_MASK;
                }
                if let Verdict::Mark(rule) = d.verdict {
                    self.marked[n] = self.marked[n].wrapping_add(1);
                    self.step_marks = self.step_marks.wrapping_add((rule == Rule::Step) as u32);
                }
            }
        }
        match self.state {
            State::Idle => {
                if let Some((q, h)) = c.pop {
                    self.entry = h;
                    self.l = q == QueueId::L;
                    self.both = c.both;
                    self.dep = c.dep;
                    self.frac = c.frac;
                    self.state = State::Decide;
                } else {
                    self.chain = false;
                    // CONTRACT: only here (and at reset) is the credit loaded with the initial credit:
                    // MTU and C_PROTECTION commits leave it alone. A request while a descriptor is
                    // pushed but not yet at the head also resets it (the heads decide, not the counts).
                    if c.credit_reset {
                        self.credit = initial_credit(e.params);
                    }
                }
            }
            State::Decide => {
                let q = queue_of(self.l);
                let h = self.entry;
                let sojourn = self.dep.wrapping_sub(h.ts) & TIME_MASK;
                let head = Head {
                    queue: q,
                    ecn: Ecn::from_bits(h.desc.ecn),
                    sojourn_ns: sojourn,
                    apply_step: h.apply_step,
                };
                let vars = DualPi2Vars {
                    prob: e.prob,
                    last_qdelay: 0,
                    credit: self.credit,
                };
                // CONTRACT: "the effective K" of Decide is read as "K through kp and the overload flag":
                // decide with the K they were computed with, which lags the effective K from a K
                // commit until its recompute (RECOMPUTE_CYCLES later, or more if the controller is
                // busy).
                let params = DualPi2Params {
                    k: e.kp_k,
                    ..*e.params
                };
                let d = decide(&vars, &params, e.backlog, &head, e.state);
                let (drop, ecn) = match d.verdict {
                    Verdict::Drop(_) => (true, h.desc.ecn),
                    Verdict::Pass => (false, h.desc.ecn),
                    Verdict::Mark(_) => (false, Ecn::Ce.bits()),
                };
                self.counting = true;
                self.out = OutReg {
                    len: h.desc.len,
                    ecn,
                    tag: h.desc.tag,
                    sojourn,
                    queue: self.l,
                    drop,
                };
                self.credit_delta = credit_change(e.params, q, self.both, h.desc.len as u32);
                self.decision = Some(d);
                ev.decided = Some((q, d));
                self.state = State::Out;
            }
            State::Out => {
                if c.handshake {
                    if self.out.drop {
                        self.chain = true;
                    } else {
                        self.chain = false;
                        self.credit += self.credit_delta;
                        start = Some(Start {
                            len: self.entry.desc.len,
                            dep: self.dep,
                            frac: self.frac,
                        });
                        ev.sent = true;
                    }
                    self.state = State::Idle;
                }
            }
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
