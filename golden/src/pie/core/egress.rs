//! The dequeue side (`aqm_hdl::pie::egress::PieEgress`): the link model's states, the departure
//! stream, and the delay sample and burst allowance of spec/pie.md, one and two cycles after a
//! departure.

use super::queue::Entry;
use super::regs::Params;
use super::TIME_MASK;
use crate::hw::link::{LinkModel, Start};

const TICKS_MASK: u64 = (1 << 34) - 1;
const RESET_BURST_TICKS: u64 = 2_343_750;

#[derive(Clone, Copy, Debug, Default)]
struct D1 {
    valid: bool,
    dep: u64,
    ts: u64,
    len: u16,
    empty: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Egress {
    pub link: LinkModel,
    d1: D1,
    dq_first: bool,
    dq_stale: bool,
    dq_ns: u64,
    d2_valid: bool,
    d2_dtime: u64,
    qdelay: u64,
    burst: u64,
    pub sent_pkts: u32,
    pub sent_bytes: u64,
    /// Coverage of the last edge: entered Wait, found a stale previous dequeue.
    events: (u64, u64),
}

/// What the rest of the core reads of the dequeue side.
#[derive(Clone, Copy, Debug)]
pub struct DeqView {
    pub qdelay: u64,
    pub burst: u64,
    pub deq_valid: bool,
    pub deq_len: u16,
}

/// Combinational values of this cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Comb {
    pub out_valid: bool,
    pub out_len: u16,
    pub out_ecn: u8,
    pub out_tag: u16,
    pub out_sojourn: u64,
    pub pop: bool,
    head: Entry,
    dep: u64,
    dep_frac: u64,
}

impl Egress {
    pub fn busy(&self) -> bool {
        self.link.in_tx() || self.d1.valid || self.d2_valid
    }

    /// A departure now would leave at exactly the end of the previous transmission.
    pub fn exact_now(&self) -> bool {
        self.link.exact()
    }

    /// Coverage of the last clock edge: (entered Wait, stale gap used).
    pub fn events(&self) -> (u64, u64) {
        self.events
    }

    pub fn link_busy(&self) -> bool {
        self.link.busy()
    }

    pub fn view(&self) -> DeqView {
        DeqView {
            qdelay: self.qdelay,
            burst: self.burst,
            deq_valid: self.d1.valid,
            deq_len: self.d1.len,
        }
    }

    pub fn comb(&self, now40: u64, head: Option<Entry>, out_ready: bool) -> Comb {
        let (dep, dep_frac) = self.link.dep(now40);
        let mut c = Comb {
            dep,
            dep_frac,
            ..Comb::default()
        };
        if let (Some(h), true) = (head, self.link.idle()) {
            c.out_valid = true;
            c.out_len = h.desc.len;
            c.out_ecn = h.desc.ecn;
            c.out_tag = h.desc.tag;
            c.out_sojourn = dep.wrapping_sub(h.ts) & TIME_MASK;
            c.pop = out_ready;
            c.head = h;
        }
        c
    }

    #[allow(clippy::too_many_arguments)]
    pub fn clock(
        &mut self,
        rst: bool,
        now40: u64,
        c: &Comb,
        count: u32,
        p: &Params,
        burst_reset: bool,
        clear_counters: bool,
    ) {
        self.events = (0, 0);
        // The link model.
        let start = c.pop.then_some(Start {
            len: c.head.desc.len,
            dep: c.dep,
            frac: c.dep_frac,
            sends: true,
        });
        self.events.0 = self.link.clock(rst, now40, start, p.link_bt) as u64;

        // The previous dequeue is too old for a 40-bit difference: the next one drains the allowance.
        let age = now40.wrapping_sub(self.dq_ns) & TIME_MASK;
        if !self.dq_first && age >> 38 != 0 {
            self.dq_stale = true;
        }
        // D2: the burst allowance drains by the time between dequeues.
        if self.d2_valid && self.d2_dtime != 0 {
            self.burst = self.burst.saturating_sub(self.d2_dtime);
        }
        if burst_reset {
            self.burst = p.max_burst_ticks;
        }
        // D1: the delay sample and the time since the previous dequeue, in ticks.
        let d1 = self.d1;
        self.d2_valid = d1.valid;
        if d1.valid {
            self.qdelay = if d1.empty {
                0
            } else {
                ((d1.dep >> 6).wrapping_sub(d1.ts >> 6)) & TICKS_MASK
            };
            self.events.1 = self.dq_stale as u64;
            self.d2_dtime = if self.dq_stale {
                TICKS_MASK
            } else if self.dq_first {
                0
            } else {
                ((d1.dep >> 6).wrapping_sub(self.dq_ns >> 6)) & TICKS_MASK
            };
            self.dq_ns = d1.dep;
            self.dq_first = false;
            self.dq_stale = false;
            self.sent_pkts = self.sent_pkts.wrapping_add(1);
            self.sent_bytes = (self.sent_bytes + d1.len as u64) & TIME_MASK;
        }
        // This cycle's departure.
        self.d1.valid = c.pop;
        if c.pop {
            self.d1 = D1 {
                valid: true,
                dep: c.dep,
                ts: c.head.ts,
                len: c.head.desc.len,
                empty: count == 1,
            };
        }

        if clear_counters {
            self.sent_pkts = 0;
            self.sent_bytes = 0;
        }
        if rst {
            self.d1.valid = false;
            self.d2_valid = false;
            self.dq_first = true;
            self.dq_stale = false;
            self.dq_ns = 0;
            self.qdelay = 0;
            self.burst = RESET_BURST_TICKS;
            self.sent_pkts = 0;
            self.sent_bytes = 0;
        }
    }
}
