//! The register file with its parameter engine (`aqm_hdl::dualpi2::regs`).
//!
//! `reg_we` in cycle w registers the write; in cycle w+1 it is *taken* and judged ([`Regs::taken`]). An
//! accepted parameter (0x10-0x1C) occupies the parameter engine in cycles w+2 ... w+PARAM_CYCLES-1 and
//! goes into effect, with everything derived from it, in cycle w+PARAM_CYCLES. `reg_re` in cycle r
//! answers in cycle r+1 with the values of cycle r (the core computes the value, [`Regs::clock`] only
//! registers it).

use super::super::consts::PARAM_CYCLES;
use super::super::params::{DualPi2Params, HARDWARE_PARAMS};
use super::super::regs::{addr, find, CONTROL_CLEAR_COUNTERS};
use crate::dualpi2::consts::HW_QUEUE_CAPACITY;
pub use crate::hw::regfront::Read;
use crate::hw::regfront::RegFront;
use crate::hw::CoreInputs;

/// Cycles the engine holds an accepted parameter after the cycle it was taken in: the commit edge is
/// the end of cycle w + PARAM_CYCLES - 1 (taken in w+1, busy from w+2).
const ENGINE_HOLD: u64 = PARAM_CYCLES - 3;
const _: () = assert!(PARAM_CYCLES >= 3);

/// The parameters at power-on, before the first reset: every register zero. The queue capacity is
/// the FIFOs' size, not a register.
const POWER_ON: DualPi2Params = DualPi2Params {
    target_us: 0,
    tupdate_us: 0,
    alpha: 0,
    beta: 0,
    k: 0,
    step_us: 0,
    min_qlen_step: 0,
    ecn_mask: 0,
    drop_overload: false,
    limit: 0,
    mtu: 0,
    c_protection: 0,
    queue_capacity: HW_QUEUE_CAPACITY,
};

/// The write taken this cycle, as judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// No write is taken this cycle.
    None,
    /// Refused: `reg_err` next cycle and STATUS.write_error from then on; nothing else changes.
    Rejected,
    /// A parameter for the engine.
    Param {
        addr: u8,
        value: u32,
    },
    SeedLo(u32),
    /// The generator's new state, {SEED_HI, staged SEED_LO} (never zero).
    Seed(u64),
    /// The recompute strobe with the written p'.
    Prob(u32),
    /// A STATUS write (bit 0: clear write_error).
    Status(u32),
    /// A CONTROL write (bit 0: reset the core next cycle; bit 1: clear the counters at this edge).
    Control(u32),
}

impl Write {
    pub fn prob(self) -> Option<u32> {
        match self {
            Write::Prob(p) => Some(p),
            _ => None,
        }
    }

    pub fn seed(self) -> Option<u64> {
        match self {
            Write::Seed(s) => Some(s),
            _ => None,
        }
    }

    pub fn clear_counters(self) -> bool {
        matches!(self, Write::Control(v) if v & CONTROL_CLEAR_COUNTERS != 0)
    }
}

#[derive(Clone, Debug)]
pub struct Regs {
    /// CONTRACT: one shadow register serves every _LO/_HI pair, as in the PIE core: a _HI read returns
    /// the high half latched by the last _LO read of any pair.
    pub front: RegFront,
    /// The parameter engine: cycles left before its commit edge, the register and the new value.
    engine: Option<(u64, u8, u32)>,
    params: DualPi2Params,
    /// LINK_BYTE_TIME, ns/byte in Q16.8 (the link model's, not a DualPI2 parameter).
    link_bt: u32,
    seed_stage: u32,
}

impl Default for Regs {
    fn default() -> Self {
        Regs {
            front: RegFront::default(),
            engine: None,
            params: POWER_ON,
            link_bt: 0,
            seed_stage: 0,
        }
    }
}

/// The parameter registers, 0x10 (TARGET_US) to 0x1C (LINK_BYTE_TIME).
fn is_param(a: u8) -> bool {
    (addr::TARGET_US..=addr::LINK_BYTE_TIME).contains(&a)
}

impl Regs {
    /// The DualPI2 parameters in effect this cycle.
    pub fn params(&self) -> DualPi2Params {
        self.params
    }

    /// LINK_BYTE_TIME in effect this cycle.
    pub fn link_bt(&self) -> u32 {
        self.link_bt
    }

    /// The parameter engine holds a write (cycles w+2 ... w+PARAM_CYCLES-1).
    pub fn engine_busy(&self) -> bool {
        self.engine.is_some()
    }

    /// A write is being taken this cycle (w+1).
    pub fn taking(&self) -> bool {
        self.front.w_we
    }

    /// The parameter the engine commits at this cycle's edge (in effect from the next cycle).
    pub fn committing(&self) -> Option<(u8, u32)> {
        match self.engine {
            Some((0, a, v)) => Some((a, v)),
            _ => None,
        }
    }

    /// The effective value of parameter register `a` (0 for any other address).
    pub fn param(&self, a: u8) -> u32 {
        let p = &self.params;
        match a {
            addr::TARGET_US => p.target_us,
            addr::TUPDATE_US => p.tupdate_us,
            addr::ALPHA => p.alpha,
            addr::BETA => p.beta,
            addr::K => p.k,
            addr::STEP_US => p.step_us,
            addr::MIN_QLEN_STEP => p.min_qlen_step,
            addr::ECN_MASK => p.ecn_mask,
            addr::DROP_OVERLOAD => p.drop_overload as u32,
            addr::LIMIT => p.limit,
            addr::MTU => p.mtu,
            addr::C_PROTECTION => p.c_protection,
            addr::LINK_BYTE_TIME => self.link_bt,
            _ => 0,
        }
    }

    fn set_param(&mut self, a: u8, v: u32) {
        let p = &mut self.params;
        match a {
            addr::TARGET_US => p.target_us = v,
            addr::TUPDATE_US => p.tupdate_us = v,
            addr::ALPHA => p.alpha = v,
            addr::BETA => p.beta = v,
            addr::K => p.k = v,
            addr::STEP_US => p.step_us = v,
            addr::MIN_QLEN_STEP => p.min_qlen_step = v,
            addr::ECN_MASK => p.ecn_mask = v,
            addr::DROP_OVERLOAD => p.drop_overload = v != 0,
            addr::LIMIT => p.limit = v,
            addr::MTU => p.mtu = v,
            addr::C_PROTECTION => p.c_protection = v,
            addr::LINK_BYTE_TIME => self.link_bt = v,
            _ => {}
        }
    }

    /// The write taken this cycle, judged with the controller's `busy` of this cycle.
    pub fn taken(&self, ctrl_busy: bool) -> Write {
        if !self.front.w_we {
            return Write::None;
        }
        let (a, w) = (self.front.w_addr, self.front.w_data);
        match a {
            _ if is_param(a) => {
                let in_range = find(a)
                    .and_then(|d| d.range)
                    .is_some_and(|(lo, hi)| (lo..=hi).contains(&w));
                if in_range && !self.engine_busy() {
                    Write::Param { addr: a, value: w }
                } else {
                    Write::Rejected
                }
            }
            addr::SEED_LO => Write::SeedLo(w),
            addr::SEED_HI => match (w as u64) << 32 | self.seed_stage as u64 {
                0 => Write::Rejected,
                s => Write::Seed(s),
            },
            addr::PROB if !ctrl_busy => Write::Prob(w),
            // CONTRACT: STATUS and CONTROL accept any value; the bits without a meaning are ignored.
            addr::STATUS => Write::Status(w),
            addr::CONTROL => Write::Control(w),
            _ => Write::Rejected,
        }
    }

    /// The rising edge. `write` is [`Regs::taken`] of this cycle, `read` the answer to this cycle's
    /// `reg_re` (`None`: unmapped). Returns the parameter committed at this edge, if any.
    pub fn clock(
        &mut self,
        i: &CoreInputs,
        rst: bool,
        write: Write,
        read: Option<Read>,
    ) -> Option<(u8, u32)> {
        // The engine: commit at the end of its last busy cycle.
        let committed = self.committing();
        self.engine = match self.engine {
            Some((0, a, v)) => {
                self.set_param(a, v);
                None
            }
            Some((n, a, v)) => Some((n - 1, a, v)),
            None => None,
        };
        self.front.end_pulses();
        match write {
            Write::None | Write::Prob(_) | Write::Seed(_) => {}
            Write::Rejected => self.front.reject(),
            Write::Param { addr, value } => self.engine = Some((ENGINE_HOLD, addr, value)),
            Write::SeedLo(v) => self.seed_stage = v,
            Write::Status(v) => self.front.status(v),
            Write::Control(v) => self.front.control(v),
        }
        self.front.stage(i);
        // CONTRACT: reg_rdata keeps its last value while reg_rvalid is low (as the PIE core's does).
        self.front.answer(i.reg_re, read);
        // CONTRACT: a write with reg_we in a reset cycle, or taken in one (reg_we in w+1 of a CONTROL
        // reset), and a read with reg_re in a reset cycle are lost: no effect, no reg_err, no reg_rvalid.
        if rst {
            *self = Regs {
                params: HARDWARE_PARAMS,
                ..Regs::default()
            };
            return None;
        }
        committed
    }
}
