//! The front both cores' register files share (`aqm_hdl::regfront::RegFront`): the staged write, the
//! write error (pulse and sticky bit), CONTROL's reset strobe and the read data register, with the
//! shadow register a _LO read fills for the _HI read (one for every _LO/_HI pair, in both cores). What
//! a write or read means is the core's; how it is answered is here.

use super::CoreInputs;
use crate::pie::regs::{CONTROL_RESET, STATUS_WRITE_ERROR};

/// A read answered this cycle: the value, and what the shadow register latches (reading a _LO half).
#[derive(Clone, Copy, Debug)]
pub struct Read {
    pub value: u32,
    pub shadow: Option<u32>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct RegFront {
    /// The write staged from `reg_we`, `reg_addr`, `reg_wdata` of the previous cycle: taken and judged
    /// this cycle.
    pub w_we: bool,
    pub w_addr: u8,
    pub w_data: u32,
    /// The high half latched by the last _LO read.
    pub shadow: u32,
    /// STATUS.write_error.
    pub err_sticky: bool,
    pub rdata: u32,
    pub rvalid: bool,
    pub err: bool,
    /// CONTROL bit 0 was taken last cycle: this cycle is a reset cycle.
    pub soft_rst: bool,
}

impl RegFront {
    /// The start of the rising edge: last cycle's pulses end.
    pub fn end_pulses(&mut self) {
        self.soft_rst = false;
        self.err = false;
    }

    /// The staged write was refused: `reg_err` next cycle and STATUS.write_error from then on.
    pub fn reject(&mut self) {
        self.err = true;
        self.err_sticky = true;
    }

    /// A STATUS write (bit 0 clears write_error).
    pub fn status(&mut self, v: u32) {
        if v & STATUS_WRITE_ERROR != 0 {
            self.err_sticky = false;
        }
    }

    /// A CONTROL write (bit 0: the next cycle is a reset cycle).
    pub fn control(&mut self, v: u32) {
        self.soft_rst = v & CONTROL_RESET != 0;
    }

    /// Stages this cycle's write, for the next cycle to judge.
    pub fn stage(&mut self, i: &CoreInputs) {
        self.w_we = i.reg_we;
        self.w_addr = i.reg_addr;
        self.w_data = i.reg_wdata;
    }

    /// Answers this cycle's `reg_re` with `read` (`None`: the address is unmapped, which reads 0 with
    /// `reg_err` and leaves the sticky flag alone). `reg_rdata` keeps its last value while `reg_rvalid`
    /// is low.
    pub fn answer(&mut self, re: bool, read: Option<Read>) {
        self.rvalid = re;
        if !re {
            return;
        }
        match read {
            Some(r) => {
                self.rdata = r.value;
                if let Some(s) = r.shadow {
                    self.shadow = s;
                }
            }
            None => {
                self.rdata = 0;
                self.err = true;
            }
        }
    }
}
