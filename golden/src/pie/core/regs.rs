//! The register file (`aqm_hdl::pie::regs::PieRegs`): a write is taken into a register and applied the
//! next cycle; a read answers the next cycle.

use super::super::consts::{ns_to_ticks, MAX_PROB};
use super::super::params::{PieParams, DEFAULT_PARAMS as D};
use super::super::regs::{addr, find, CAPACITY, PIE_ID};
use super::PieCoreInputs;
use crate::hw::regfront::{Read, RegFront};

/// Parameter registers as the other blocks see them: the PIE parameters, what the RTL derives from
/// them when they are written, and the link model's LINK_BYTE_TIME.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub pie: PieParams,
    pub target_ticks: u64,
    pub tupdate_ns: u64,
    pub max_burst_ticks: u64,
    /// Ns/byte, Q16.8.
    pub link_bt: u32,
}

/// The parameters at power-on, before the first reset: every register zero.
const POWER_ON: PieParams = PieParams {
    target_us: 0,
    tupdate_us: 0,
    alpha: 0,
    beta: 0,
    limit: 0,
    ecn: false,
    bytemode: false,
    mtu: 0,
    max_burst_us: 0,
};

impl Default for Params {
    fn default() -> Self {
        Params {
            pie: POWER_ON,
            target_ticks: 0,
            tupdate_ns: 0,
            max_burst_ticks: 0,
            link_bt: 0,
        }
    }
}

impl Params {
    /// A packet of `len` bytes is scaled by its length (bytemode, at most MTU): the ingress multiplier
    /// then holds stage P0 for it.
    pub fn in_bytes(&self, len: u16) -> bool {
        self.pie.bytemode && (len as u32) <= self.pie.mtu
    }

    pub fn target_half(&self) -> u64 {
        self.target_ticks >> 1
    }
}

/// Strobes from a write being applied this cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Strobes {
    pub prob_we: bool,
    pub prob_wdata: u64,
    pub seed_we: bool,
    pub seed: u64,
    pub mtu_we: bool,
    pub clear_counters: bool,
}

/// Values the read mux shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct Readables {
    pub ctrl_busy: bool,
    pub pkts_in: u32,
    pub sent_pkts: u32,
    pub sent_bytes: u64,
    pub dropped: u32,
    pub overlimit: u32,
    pub marked: u32,
    pub backlog_bytes: u32,
    pub backlog_pkts: u32,
    pub maxq: u32,
    pub qdelay: u64,
    pub acc: u64,
    pub burst: u64,
    pub prob: u64,
    pub prng_state: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Regs {
    /// The core has the bytemode multiplier: BYTEMODE accepts 1.
    pub bytemode_hw: bool,
    pub front: RegFront,
    w_part: u32,
    p: Params,
    seed_stage: u32,
    prob_stage: u32,
}

fn in_range(v: u32, lo: u32, hi: u32) -> bool {
    (lo..=hi).contains(&v)
}

impl Regs {
    pub fn params(&self) -> Params {
        self.p
    }

    /// x * 1000 as the RTL computes it: (x * 1024 - x * 16) when taken, - x * 8 when applied (mod 2^32).
    fn us1000(&self) -> u32 {
        self.w_part.wrapping_sub(self.front.w_data << 3)
    }

    fn wide(&self, stage: u32) -> u64 {
        (self.front.w_data as u64) << 32 | stage as u64
    }

    /// Whether the pending write is accepted, and its strobes.
    fn apply(&self, ctrl_busy: bool) -> (bool, Strobes) {
        let w = self.front.w_data;
        let mut st = Strobes {
            prob_wdata: self.wide(self.prob_stage) & MAX_PROB,
            seed: self.wide(self.seed_stage),
            ..Strobes::default()
        };
        // Parameters are checked against the documented ranges of the register map.
        let ranged = find(self.front.w_addr).and_then(|d| d.range);
        let ok = match self.front.w_addr {
            addr::STATUS => true,
            addr::CONTROL => {
                st.clear_counters = w & 2 != 0;
                true
            }
            addr::BYTEMODE => w <= self.bytemode_hw as u32,
            addr::MTU => {
                let ok = ranged.is_some_and(|(lo, hi)| in_range(w, lo, hi));
                st.mtu_we = ok;
                ok
            }
            _ if ranged.is_some() => ranged.is_some_and(|(lo, hi)| in_range(w, lo, hi)),
            addr::SEED_LO | addr::PROB_LO => true,
            addr::SEED_HI => {
                let ok = st.seed != 0;
                st.seed_we = ok;
                ok
            }
            addr::PROB_HI => {
                let ok = w >> 24 == 0 && !ctrl_busy;
                st.prob_we = ok;
                ok
            }
            _ => false,
        };
        (ok, st)
    }

    /// Strobes of this cycle (none during reset: the core ignores them then).
    pub fn strobes(&self, ctrl_busy: bool) -> Strobes {
        if self.front.w_we {
            self.apply(ctrl_busy).1
        } else {
            Strobes::default()
        }
    }

    pub fn clock(&mut self, i: &PieCoreInputs, rst: bool, r: &Readables) {
        let mut next = self.clone();
        next.front.stage(i);
        next.w_part = (i.reg_wdata << 10).wrapping_sub(i.reg_wdata << 4);
        next.front.end_pulses();
        if self.front.w_we {
            let w = self.front.w_data;
            let (ok, _) = self.apply(r.ctrl_busy);
            if ok {
                let p = &mut next.p;
                match self.front.w_addr {
                    addr::STATUS => next.front.status(w),
                    addr::CONTROL => next.front.control(w),
                    addr::TARGET_US => {
                        p.pie.target_us = w;
                        p.target_ticks = ((self.us1000() >> 6) & 0xFF_FFFF) as u64;
                    }
                    addr::TUPDATE_US => {
                        p.pie.tupdate_us = w;
                        p.tupdate_ns = self.us1000() as u64;
                    }
                    addr::ALPHA => p.pie.alpha = w & 63,
                    addr::BETA => p.pie.beta = w & 63,
                    addr::LIMIT => p.pie.limit = w & 0x7FF,
                    addr::ECN => p.pie.ecn = w & 1 != 0,
                    addr::BYTEMODE => p.pie.bytemode = w & 1 != 0,
                    addr::MTU => p.pie.mtu = w & 0xFFFF,
                    addr::MAX_BURST_US => {
                        p.pie.max_burst_us = w;
                        p.max_burst_ticks = (self.us1000() >> 6) as u64;
                    }
                    addr::LINK_BYTE_TIME => p.link_bt = w & 0xFF_FFFF,
                    addr::SEED_LO => next.seed_stage = w,
                    addr::PROB_LO => next.prob_stage = w,
                    _ => {}
                }
            } else {
                next.front.reject();
            }
        }
        let read = if i.reg_re {
            // A _LO read latches the high half into the shadow register, which the _HI read returns.
            let mut shadow = None;
            let mut lo = |v: u64| {
                shadow = Some((v >> 32) as u32);
                v as u32
            };
            let mut mapped = true;
            let value = match i.reg_addr {
                addr::ID => PIE_ID,
                addr::STATUS => (r.ctrl_busy as u32) << 1 | self.front.err_sticky as u32,
                addr::CONTROL => 0,
                addr::CAPACITY => CAPACITY,
                addr::TARGET_US => self.p.pie.target_us,
                addr::TUPDATE_US => self.p.pie.tupdate_us,
                addr::ALPHA => self.p.pie.alpha,
                addr::BETA => self.p.pie.beta,
                addr::LIMIT => self.p.pie.limit,
                addr::ECN => self.p.pie.ecn as u32,
                addr::BYTEMODE => self.p.pie.bytemode as u32,
                addr::MTU => self.p.pie.mtu,
                addr::MAX_BURST_US => self.p.pie.max_burst_us,
                addr::LINK_BYTE_TIME => self.p.link_bt,
                addr::SEED_LO => lo(r.prng_state),
                addr::PROB_LO => lo(r.prob),
                addr::SENT_BYTES_LO => lo(r.sent_bytes),
                addr::ACCU_LO => lo(r.acc),
                addr::SEED_HI | addr::PROB_HI | addr::SENT_BYTES_HI | addr::ACCU_HI => {
                    self.front.shadow
                }
                addr::PKTS_IN => r.pkts_in,
                addr::SENT_PKTS => r.sent_pkts,
                addr::DROPPED => r.dropped,
                addr::OVERLIMIT => r.overlimit,
                addr::ECN_MARK => r.marked,
                addr::BACKLOG_BYTES => r.backlog_bytes,
                addr::BACKLOG_PKTS => r.backlog_pkts,
                addr::MAXQ => r.maxq,
                addr::QDELAY => r.qdelay.min(u32::MAX as u64) as u32,
                addr::BURST => r.burst as u32,
                _ => {
                    mapped = false;
                    0
                }
            };
            mapped.then_some(Read { value, shadow })
        } else {
            None
        };
        next.front.answer(i.reg_re, read);
        if rst {
            next.front = RegFront::default();
            next.p = Params {
                pie: D,
                target_ticks: ns_to_ticks(D.target_us as u64 * 1000),
                tupdate_ns: D.tupdate_us as u64 * 1000,
                max_burst_ticks: ns_to_ticks(D.max_burst_us as u64 * 1000),
                link_bt: 0,
            };
            next.seed_stage = 0;
            next.prob_stage = 0;
        }
        *self = next;
    }
}
