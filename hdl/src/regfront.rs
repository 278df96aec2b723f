//! The front of every core's register file: the bus, the write staging, the registers all cores have at
//! the same addresses (ID, STATUS, CONTROL and CAPACITY, `aqm_golden::hw::regs::common_addr`), the write
//! error (pulse and sticky bit) and the read data register.
//!
//! A core's own register block instantiates it, judges the staged write (`w_we`, `w_addr`, `w_data`, the
//! cycle after `reg_we`) into `ok` in that same cycle, and answers a read with `core_rdata` /
//! `core_mapped` combinationally in the `re` cycle. `rdata` and `rvalid` follow one cycle after `re`;
//! `err` pulses one cycle after a rejected write is judged or an unmapped address is
//! read. A write to STATUS or CONTROL is taken here whatever `ok` says.
//!
//! It holds the generator's 64-bit seed written as two registers ([`SeedStage`]), whose addresses the
//! core decides; beside it, [`InRange`], a write's range check.

use crate::arith::const_cmp;
use crate::konst::K;
use rust_hdl::prelude::*;

/// The register bus as the blocks inside a core see it: the core's `reg_*` ports, passed down with
/// `RegBus::link`.
#[derive(LogicInterface, Default)]
pub struct RegBus {
    pub addr: Signal<In, Bits<8>>,
    pub wdata: Signal<In, Bits<32>>,
    pub we: Signal<In, Bit>,
    pub re: Signal<In, Bit>,
    /// With `rvalid`, the cycle after `re`.
    pub rdata: Signal<Out, Bits<32>>,
    pub rvalid: Signal<Out, Bit>,
    /// Pulses the cycle after a rejected access.
    pub err: Signal<Out, Bit>,
}

/// `ID`: what the ID register reads; `CAPACITY`: what CAPACITY reads; `SEED_HI`: the core's SEED_HI
/// address.
#[derive(LogicBlock, Default)]
pub struct RegFront<const ID: u64, const CAPACITY: u64, const SEED_HI: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub bus: RegBus,
    /// STATUS bit 1 (what is busy is the core's to say).
    pub busy: Signal<In, Bit>,
    // The staged write, for the core to judge.
    pub w_we: Signal<Out, Bit>,
    pub w_addr: Signal<Out, Bits<8>>,
    pub w_data: Signal<Out, Bits<32>>,
    /// The core accepts the staged write (read only while `w_we`).
    pub ok: Signal<In, Bit>,
    // The core's read mux, for `bus.addr` in a `bus.re` cycle.
    pub core_rdata: Signal<In, Bits<32>>,
    pub core_mapped: Signal<In, Bit>,
    // CONTROL's strobes.
    pub clear_counters: Signal<Out, Bit>,
    /// CONTROL.reset: the cycle after the write is judged.
    pub soft_reset: Signal<Out, Bit>,
    /// What `soft_reset` is in the next cycle (for the core's copies of it, [`crate::reset`]).
    pub soft_reset_next: Signal<Out, Bit>,
    /// The generator's seed ([`SeedStage`]): the staged write is SEED_LO's and taken this cycle (the
    /// core's own address decides), SEED_HI's write of `w_data` may be taken, the staged write is
    /// SEED_HI's and loads the seed (from flip-flops: for a judgement that says the same), and the seed
    /// it loads.
    pub seed_lo_we: Signal<In, Bit>,
    pub seed_hi_ok: Signal<Out, Bit>,
    pub seed_we: Signal<Out, Bit>,
    pub seed: Signal<Out, Bits<64>>,

    we: DFF<Bit>,
    addr: DFF<Bits<8>>,
    data: DFF<Bits<32>>,
    err_sticky: DFF<Bit>,
    rdata: DFF<Bits<32>>,
    rvalid: DFF<Bit>,
    err: DFF<Bit>,
    soft_rst: DFF<Bit>,
    /// The staged write is CONTROL's: decoded from the bus as the front stages it, so that CONTROL's
    /// strobes (the soft reset's copies, every counter's clear) come from flip-flops, not from the staged
    /// address's decoder (on the PIE card that decoder's path into the ingress's counters was 0.6 ns
    /// short of 12 ns on a seed).
    ctl_w: DFF<Bit>,
    accepted: Signal<Local, Bit>,
    mapped: Signal<Local, Bit>,
    id: K<32, ID>,
    capacity: K<32, CAPACITY>,
    seeds: SeedStage<SEED_HI>,
}

impl<const ID: u64, const CAPACITY: u64, const SEED_HI: u64> Logic
    for RegFront<ID, CAPACITY, SEED_HI>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, we, addr, data, err_sticky, rdata, rvalid, err, soft_rst, ctl_w);
        self.we.d.next = self.bus.we.val();
        self.ctl_w.d.next = self.bus.we.val() & (self.bus.addr.val() == 2);
        self.addr.d.next = self.bus.addr.val();
        self.data.d.next = self.bus.wdata.val();
        self.w_we.next = self.we.q.val();
        self.w_addr.next = self.addr.q.val();
        self.w_data.next = self.data.q.val();

        self.clear_counters.next = false;
        self.soft_rst.d.next = false;
        if self.ctl_w.q.val() {
            self.soft_rst.d.next = self.data.q.val().get_bit(0);
            self.clear_counters.next = self.data.q.val().get_bit(1);
        }
        self.err.d.next = false;
        self.accepted.next = self.ok.val();
        if self.we.q.val() {
            match self.addr.q.val().index() {
                1 => {
                    // STATUS: write 1 to clear write_error.
                    self.accepted.next = true;
                    if self.data.q.val().get_bit(0) {
                        self.err_sticky.d.next = false;
                    }
                }
                2 => {
                    // CONTROL (its strobes from `ctl_w`, above)
                    self.accepted.next = true;
                }
                _ => {}
            }
            if !self.accepted.val() {
                self.err.d.next = true;
                self.err_sticky.d.next = true;
            }
        }

        self.rvalid.d.next = self.bus.re.val();
        self.mapped.next = true;
        if self.bus.re.val() {
            match self.bus.addr.val().index() {
                0 => {
                    self.rdata.d.next = self.id.val();
                }
                1 => {
                    self.rdata.d.next = (bit_cast::<32, 1>(self.busy.val().into()) << 1)
                        | bit_cast::<32, 1>(self.err_sticky.q.val().into());
                }
                2 => {
                    self.rdata.d.next = 0.into();
                }
                3 => {
                    self.rdata.d.next = self.capacity.val();
                }
                _ => {
                    self.rdata.d.next = self.core_rdata.val();
                    self.mapped.next = self.core_mapped.val();
                }
            }
            if !self.mapped.val() {
                self.err.d.next = true;
            }
        }

        self.bus.rdata.next = self.rdata.q.val();
        self.bus.rvalid.next = self.rvalid.q.val();
        self.bus.err.next = self.err.q.val();
        self.soft_reset.next = self.soft_rst.q.val();
        self.seeds.clock.next = self.clock.val();
        self.seeds.rst.next = self.rst.val();
        self.seeds.wdata.next = self.bus.wdata.val();
        self.seeds.addr.next = self.bus.addr.val();
        self.seeds.we.next = self.bus.we.val();
        self.seeds.w_data.next = self.data.q.val();
        self.seeds.lo_we.next = self.seed_lo_we.val();
        self.seed_hi_ok.next = self.seeds.hi_ok.val();
        self.seed_we.next = self.seeds.hi_we.val();
        self.seed.next = self.seeds.seed.val();

        if self.rst.val() {
            self.we.d.next = false;
            self.ctl_w.d.next = false;
            self.err_sticky.d.next = false;
            self.rdata.d.next = 0.into();
            self.rvalid.d.next = false;
            self.err.d.next = false;
            self.soft_rst.d.next = false;
            self.clear_counters.next = false;
        }
        self.soft_reset_next.next = self.soft_rst.d.val();
    }
}

/// The generator's seed, written as SEED_LO then SEED_HI (at address `HI`), for every core: SEED_LO's
/// word waits here, and SEED_HI's write loads `seed` = {its word, SEED_LO's} only when that is not zero
/// (zero is a fixed point of xorshift). The judgement reads two flip-flops, not a 64-input OR: `wnz`,
/// whether the bus's data is not zero as the front stages the write, and `lo_nz`, the same for the word
/// SEED_LO left; and the load (`hi_we`) one more, `hi_w`, the write's address decoded as it is staged, so
/// that the 64 (or 128) loading flip-flops hang off one LUT of flip-flops (on the ECP5 the PIE core's
/// longest path ran from the staged address through the decoder into the generator's state, 9.6 ns).
#[derive(LogicBlock, Default)]
pub struct SeedStage<const HI: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// The bus's write: its data, address and strobe, as the front stages it.
    pub wdata: Signal<In, Bits<32>>,
    pub addr: Signal<In, Bits<8>>,
    pub we: Signal<In, Bit>,
    /// The front's staged write (`w_data`) is SEED_LO's and is taken this cycle.
    pub lo_we: Signal<In, Bit>,
    pub w_data: Signal<In, Bits<32>>,
    /// A write of `w_data` to SEED_HI would make a seed that is not zero.
    pub hi_ok: Signal<Out, Bit>,
    /// The staged write is SEED_HI's and is taken (`hi_ok`): load `seed`.
    pub hi_we: Signal<Out, Bit>,
    /// The seed a write of `w_data` to SEED_HI loads.
    pub seed: Signal<Out, Bits<64>>,
    lo: DFF<Bits<32>>,
    lo_nz: DFF<Bit>,
    wnz: DFF<Bit>,
    hi_w: DFF<Bit>,
    hi_addr: K<8, HI>,
}

impl<const HI: u64> Logic for SeedStage<HI> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lo, lo_nz, wnz, hi_w);
        self.wnz.d.next = self.wdata.val().any();
        self.hi_w.d.next = self.we.val() & (self.addr.val() == self.hi_addr.val());
        if self.lo_we.val() {
            self.lo.d.next = self.w_data.val();
            self.lo_nz.d.next = self.wnz.q.val();
        }
        self.hi_ok.next = self.wnz.q.val() | self.lo_nz.q.val();
        self.hi_we.next = self.hi_w.q.val() & self.hi_ok.val();
        self.seed.next =
            (bit_cast::<64, 32>(self.w_data.val()) << 32) | bit_cast::<64, 32>(self.lo.q.val());
        if self.rst.val() {
            self.lo.d.next = 0.into();
            self.lo_nz.d.next = false;
            self.hi_w.d.next = false;
        }
    }
}

/// `LO <= x <= HI` for a 32-bit `x` and constant bounds, as plain logic: no adder, so no carry chain
/// (Yosys turns a `<=` against a constant into one carry per bit; this is a balanced tree of and/or
/// terms, `arith::const_cmp`, and a bound of the form 2^k - 1 becomes "the bits above k are zero").
/// The rust-hdl simulation compares the numbers.
#[derive(LogicBlock, Default)]
pub struct InRange<const LO: u64, const HI: u64> {
    pub x: Signal<In, Bits<32>>,
    pub ok: Signal<Out, Bit>,
}

impl<const LO: u64, const HI: u64> InRange<LO, HI> {
    const BOUNDS: () = assert!(LO <= HI && HI <= u32::MAX as u64);
}

impl<const LO: u64, const HI: u64> Logic for InRange<LO, HI> {
    fn update(&mut self) {
        #[allow(clippy::let_unit_value)]
        let _ = Self::BOUNDS;
        let x = self.x.val().index() as u64;
        self.ok.next = x >= LO && x <= HI;
    }

    fn connect(&mut self) {
        self.ok.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "always @(*) ok = {} & {};\n",
            const_cmp("x", false, LO, 31),
            const_cmp("x", true, HI, 31)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::tests::{body, prove};

    macro_rules! in_range {
        ($(($lo:expr, $hi:expr)),*) => {$(
            prove(
                "in_range",
                "input [31:0] x",
                &body(InRange::<{ $lo }, { $hi }>::default().hdl()),
                &format!("ok == (x >= 32'd{} && x <= 32'd{})", { let l: u64 = $lo; l }, { let h: u64 = $hi; h }),
            );
        )*};
    }

    /// The register files' range checks, at the bounds they use and at the edges of the word.
    #[test]
    fn the_range_checks_verilog_is_the_range_for_every_input() {
        use aqm_golden::dualpi2::params::range;
        in_range!(
            (range::TARGET_US.0 as u64, range::TARGET_US.1 as u64),
            (range::GAIN.0 as u64, range::GAIN.1 as u64),
            (range::MTU.0 as u64, range::MTU.1 as u64),
            (range::C_PROTECTION.0 as u64, range::C_PROTECTION.1 as u64),
            (range::MIN_QLEN_STEP.0 as u64, range::MIN_QLEN_STEP.1 as u64),
            (0, 0),
            (1, 1),
            (0x7FFF_FFFF, 0x8000_0000),
            (0x1234_5678, 0xFFFF_FFFE)
        );
    }
}
