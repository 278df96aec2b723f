//! DualPI2's parameters in effect, and the engine that converts a written parameter into the units the
//! datapath uses (hdl/DUALPI2-CORE.md, "Register file").
//!
//! A parameter write (already range-checked by the register file) starts the engine; `PARAM_CYCLES`
//! cycles after the write's `reg_we` the new value and everything derived from it take effect together.
//! The derived values need a multiplier or a divider, which the HX8K does not have, so the engine
//! computes them serially:
//!
//! ```text
//! TARGET_US, TUPDATE_US, STEP_US   x 1000                                            12-step multiplication
//! ALPHA, BETA                      floor(floor(g * (2^32 - 1) / 4) / 10^9)          21-step division
//! K                                floor((2^32 - 1) / k), the cap of p' without     32-step division
//!                                  drop_overload
//! LIMIT, MTU                       byte limit = LIMIT x 2 MTU                       12-step multiplication
//! MTU, C_PROTECTION                initial credit = MTU x (wc - wl) = MTU x (2 wc - 100), signed
//! ```
//! The division is restoring, one quotient bit per cycle; the multiplication is shift-add, one bit of
//! the multiplier per cycle, most significant first.

use crate::konst::K;
use aqm_golden::dualpi2::consts::{gain_internal, prob_cap, us_to_ns, PARAM_CYCLES};
use aqm_golden::dualpi2::params::HARDWARE_PARAMS as H;
use aqm_golden::dualpi2::scheduler::initial_credit;
use rust_hdl::prelude::*;

/// The engine's step in which the results are committed: they are visible `PARAM_CYCLES` cycles after
/// `reg_we` (the write is judged one cycle after `reg_we` and the engine starts the cycle after that).
const COMMIT_STEP: u64 = PARAM_CYCLES - 3;

/// The initial credit at reset as a 24-bit two's-complement value.
const RESET_CREDIT: u64 = (initial_credit(&H) as u64) & ((1 << 24) - 1);

#[derive(LogicBlock, Default)]
pub struct DualPi2Params {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// A checked parameter write, for one cycle; ignored while `busy`.
    pub start: Signal<In, Bit>,
    pub addr: Signal<In, Bits<8>>,
    pub data: Signal<In, Bits<32>>,
    /// A conversion is running (the register file rejects parameter writes meanwhile).
    pub busy: Signal<Out, Bit>,
    /// The cycle a K write is committed: the controller recomputes k x p'.
    pub k_commit: Signal<Out, Bit>,
    /// The cycle a TUPDATE_US write is committed, with the new interval: the controller re-arms.
    pub tupdate_commit: Signal<Out, Bit>,
    pub commit_ns: Signal<Out, Bits<30>>,
    /// The cycle an MTU or C_PROTECTION write is committed: the credit restarts from the new initial
    /// credit.
    pub credit_commit: Signal<Out, Bit>,
    pub commit_credit: Signal<Out, Bits<24>>,
    // The parameters in effect, as written (for reads) and converted.
    pub target_us: Signal<Out, Bits<20>>,
    pub target_ns: Signal<Out, Bits<30>>,
    pub tupdate_us: Signal<Out, Bits<20>>,
    pub tupdate_ns: Signal<Out, Bits<30>>,
    pub alpha: Signal<Out, Bits<20>>,
    pub alpha_i: Signal<Out, Bits<21>>,
    pub beta: Signal<Out, Bits<20>>,
    pub beta_i: Signal<Out, Bits<21>>,
    pub k: Signal<Out, Bits<8>>,
    pub cap: Signal<Out, Bits<32>>, // floor((2^32 - 1) / k)
    pub step_us: Signal<Out, Bits<20>>,
    pub step_ns: Signal<Out, Bits<30>>,
    pub min_qlen_step: Signal<Out, Bits<32>>,
    pub ecn_mask: Signal<Out, Bits<2>>,
    pub drop_overload: Signal<Out, Bit>,
    pub limit: Signal<Out, Bits<11>>,
    pub byte_limit: Signal<Out, Bits<23>>,
    pub mtu: Signal<Out, Bits<11>>,
    pub wc: Signal<Out, Bits<7>>,           // C protection, %
    pub init_credit: Signal<Out, Bits<24>>, // signed
    pub link_bt: Signal<Out, Bits<24>>,

    busy_r: DFF<Bit>,
    n: DFF<Bits<6>>,
    eaddr: DFF<Bits<8>>,
    edata: DFF<Bits<32>>,
    dv_rem: DFF<Bits<32>>,
    dv_q: DFF<Bits<32>>,
    dv_cnt: DFF<Bits<6>>,
    mu_acc: DFF<Bits<32>>,
    mu_a: DFF<Bits<20>>,
    mu_b: DFF<Bits<12>>,
    mu_cnt: DFF<Bits<4>>,
    mu_neg: DFF<Bit>,
    r_bl: DFF<Bits<23>>,
    target_us_r: DFF<Bits<20>>,
    target_ns_r: DFF<Bits<30>>,
    tupdate_us_r: DFF<Bits<20>>,
    tupdate_ns_r: DFF<Bits<30>>,
    alpha_r: DFF<Bits<20>>,
    alpha_i_r: DFF<Bits<21>>,
    beta_r: DFF<Bits<20>>,
    beta_i_r: DFF<Bits<21>>,
    k_r: DFF<Bits<8>>,
    cap_r: DFF<Bits<32>>,
    step_us_r: DFF<Bits<20>>,
    step_ns_r: DFF<Bits<30>>,
    min_qlen_r: DFF<Bits<32>>,
    ecn_mask_r: DFF<Bits<2>>,
    dol_r: DFF<Bit>,
    limit_r: DFF<Bits<11>>,
    byte_limit_r: DFF<Bits<23>>,
    mtu_r: DFF<Bits<11>>,
    wc_r: DFF<Bits<7>>,
    credit_r: DFF<Bits<24>>,
    link_bt_r: DFF<Bits<24>>,
    // Combinational helpers.
    gain_hi: Signal<Local, Bits<20>>,
    gain_lo: Signal<Local, Bits<32>>,
    rem2: Signal<Local, Bits<32>>,
    num_idx: Signal<Local, Bits<6>>,
    num_bit: Signal<Local, Bit>,
    gain64: Signal<Local, Bits<64>>,
    divisor: Signal<Local, Bits<32>>,
    cr_val: Signal<Local, Bits<24>>,
    mu_lo: Signal<Local, Bits<24>>,
    wdiff: Signal<Local, Bits<8>>,
    wneg: Signal<Local, Bits<8>>,
    c_target_us: K<20, { H.target_us as u64 }>,
    c_target_ns: K<30, { us_to_ns(H.target_us) }>,
    c_tupdate_us: K<20, { H.tupdate_us as u64 }>,
    c_tupdate_ns: K<30, { us_to_ns(H.tupdate_us) }>,
    c_alpha: K<20, { H.alpha as u64 }>,
    c_alpha_i: K<21, { gain_internal(H.alpha) }>,
    c_beta: K<20, { H.beta as u64 }>,
    c_beta_i: K<21, { gain_internal(H.beta) }>,
    c_k: K<8, { H.k as u64 }>,
    c_cap: K<32, { prob_cap(H.k) as u64 }>,
    c_step_us: K<20, { H.step_us as u64 }>,
    c_step_ns: K<30, { us_to_ns(H.step_us) }>,
    c_min_qlen: K<32, { H.min_qlen_step as u64 }>,
    c_ecn_mask: K<2, { H.ecn_mask as u64 }>,
    c_limit: K<11, { H.limit as u64 }>,
    c_byte_limit: K<23, { H.limit as u64 * 2 * H.mtu as u64 }>,
    c_mtu: K<11, { H.mtu as u64 }>,
    c_wc: K<7, { H.c_protection as u64 }>,
    c_credit: K<24, RESET_CREDIT>,
    c_billion: K<32, 1_000_000_000>,
    c_hundred: K<8, 100>,
    c_commit: K<6, COMMIT_STEP>,
}

impl Logic for DualPi2Params {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            busy_r,
            n,
            eaddr,
            edata,
            dv_rem,
            dv_q,
            dv_cnt,
            mu_acc,
            mu_a,
            mu_b,
            mu_cnt,
            mu_neg,
            r_bl,
            target_us_r,
            target_ns_r,
            tupdate_us_r,
            tupdate_ns_r,
            alpha_r,
            alpha_i_r,
            beta_r,
            beta_i_r,
            k_r,
            cap_r,
            step_us_r,
            step_ns_r,
            min_qlen_r,
            ecn_mask_r,
            dol_r,
            limit_r,
            byte_limit_r,
            mtu_r,
            wc_r,
            credit_r,
            link_bt_r
        );
        // floor(g * (2^32 - 1) / 4) = {g - 1, 2^32 - g} >> 2 for g >= 1 (no 52-bit subtraction).
        self.gain_hi.next = self.edata.q.val().get_bits::<20>(0) - 1;
        self.gain_lo.next = !self.edata.q.val() + 1;
        // The dividend's bits, most significant first: all ones for K; for a gain, bits 20..0 of
        // {gain_hi, gain_lo} >> 2, i.e. gain_lo[dv_cnt + 1] while dv_cnt counts 21 down to 1.
        self.num_idx.next = bit_cast::<6, 6>(self.dv_cnt.q.val()) + 1;
        self.gain64.next = bit_cast::<64, 32>(self.gain_lo.val());
        self.num_bit.next = self.gain64.val().get_bit(self.num_idx.val().index());
        self.divisor.next = self.c_billion.val();
        if self.eaddr.q.val() == 20 {
            self.num_bit.next = true;
            self.divisor.next = bit_cast::<32, 8>(self.edata.q.val().get_bits::<8>(0));
        }
        self.rem2.next = (self.dv_rem.q.val() << 1) | bit_cast::<32, 1>(self.num_bit.val().into());
        // 2 wc - 100 for the written C protection (C_PROTECTION job) or the current one (MTU job).
        self.wdiff.next = (bit_cast::<8, 7>(self.wc_r.q.val()) << 1) - 100;
        // Negated in its own 8-bit signal: inside a wider expression Verilog would widen before `~`.
        self.wneg.next = !self.wdiff.val() + 1;
        self.k_commit.next = false;
        self.tupdate_commit.next = false;
        self.credit_commit.next = false;
        // Results: a x 1000 or the byte limit or the credit's magnitude in mu_acc, the credit negated
        // when wc < 50.
        self.commit_ns.next = self.mu_acc.q.val().get_bits::<30>(0);
        self.mu_lo.next = self.mu_acc.q.val().get_bits::<24>(0);
        self.cr_val.next = self.mu_lo.val();
        if self.mu_neg.q.val() {
            self.cr_val.next = !self.mu_lo.val() + 1;
        }
        self.commit_credit.next = self.cr_val.val();

        if self.start.val() & !self.busy_r.q.val() {
            self.busy_r.d.next = true;
            self.n.d.next = 0.into();
            self.eaddr.d.next = self.addr.val();
            self.edata.d.next = self.data.val();
        }

        if self.busy_r.q.val() {
            self.n.d.next = self.n.q.val() + 1;
            // The divider and the multiplier step whenever they have work.
            if self.dv_cnt.q.val().any() {
                self.dv_cnt.d.next = self.dv_cnt.q.val() - 1;
                if self.rem2.val() >= self.divisor.val() {
                    self.dv_rem.d.next = self.rem2.val() - self.divisor.val();
                    self.dv_q.d.next = (self.dv_q.q.val() << 1) + 1;
                } else {
                    self.dv_rem.d.next = self.rem2.val();
                    self.dv_q.d.next = self.dv_q.q.val() << 1;
                }
            }
            if self.mu_cnt.q.val().any() {
                self.mu_b.d.next = self.mu_b.q.val() << 1;
                self.mu_cnt.d.next = self.mu_cnt.q.val() - 1;
                if self.mu_b.q.val().get_bit(11) {
                    self.mu_acc.d.next =
                        (self.mu_acc.q.val() << 1) + bit_cast::<32, 20>(self.mu_a.q.val());
                } else {
                    self.mu_acc.d.next = self.mu_acc.q.val() << 1;
                }
            }
            if self.n.q.val() == 0 {
                // Set up the job of this address: the times x 1000, by default.
                self.dv_q.d.next = 0.into();
                self.mu_acc.d.next = 0.into();
                self.mu_cnt.d.next = 12.into();
                self.mu_neg.d.next = false;
                self.mu_a.d.next = self.edata.q.val().get_bits::<20>(0);
                self.mu_b.d.next = 1000.into();
                if (self.eaddr.q.val() == 18) | (self.eaddr.q.val() == 19) {
                    // ALPHA, BETA: 21 quotient bits of {gain_hi, gain_lo} >> 2 over 10^9 (the
                    // quotient is below 2^21, so the division starts at bit 21).
                    self.dv_rem.d.next = (bit_cast::<32, 20>(self.gain_hi.val()) << 9)
                        | bit_cast::<32, 9>(self.gain_lo.val().get_bits::<9>(23));
                    self.dv_cnt.d.next = 21.into();
                }
                if self.eaddr.q.val() == 20 {
                    // K: (2^32 - 1) / k.
                    self.dv_rem.d.next = 0.into();
                    self.dv_cnt.d.next = 32.into();
                }
                if self.eaddr.q.val() == 25 {
                    // LIMIT: the byte limit, LIMIT x 2 MTU.
                    self.mu_b.d.next = bit_cast::<12, 11>(self.mtu_r.q.val()) << 1;
                }
                if self.eaddr.q.val() == 26 {
                    // MTU: the byte limit first, then the initial credit.
                    self.mu_a.d.next = bit_cast::<20, 11>(self.limit_r.q.val());
                    self.mu_b.d.next =
                        bit_cast::<12, 11>(self.edata.q.val().get_bits::<11>(0)) << 1;
                }
                if self.eaddr.q.val() == 27 {
                    // C_PROTECTION: MTU x |2 wc - 100|, negated when wc < 50.
                    self.mu_a.d.next = bit_cast::<20, 11>(self.mtu_r.q.val());
                    self.mu_b.d.next =
                        bit_cast::<12, 8>((self.edata.q.val().get_bits::<8>(0) << 1) - 100);
                    self.mu_neg.d.next = self.edata.q.val() < 50;
                    if self.edata.q.val() < 50 {
                        self.mu_b.d.next = bit_cast::<12, 8>(
                            self.c_hundred.val() - (self.edata.q.val().get_bits::<8>(0) << 1),
                        );
                    }
                }
            }
            if self.n.q.val() == 13 {
                // The first product is done (steps 1-12).
                self.r_bl.d.next = self.mu_acc.q.val().get_bits::<23>(0);
                if self.eaddr.q.val() == 26 {
                    // MTU: now the credit, MTU x |2 wc - 100| with the current wc.
                    self.mu_acc.d.next = 0.into();
                    self.mu_cnt.d.next = 12.into();
                    self.mu_a.d.next = bit_cast::<20, 11>(self.edata.q.val().get_bits::<11>(0));
                    self.mu_b.d.next = bit_cast::<12, 8>(self.wdiff.val());
                    self.mu_neg.d.next = self.wdiff.val().get_bit(7);
                    if self.wdiff.val().get_bit(7) {
                        self.mu_b.d.next = bit_cast::<12, 8>(self.wneg.val());
                    }
                }
            }
            if self.n.q.val() == self.c_commit.val() {
                self.busy_r.d.next = false;
                match self.eaddr.q.val().index() {
                    16 => {
                        self.target_us_r.d.next = self.edata.q.val().get_bits::<20>(0);
                        self.target_ns_r.d.next = self.commit_ns.val();
                    }
                    17 => {
                        self.tupdate_us_r.d.next = self.edata.q.val().get_bits::<20>(0);
                        self.tupdate_ns_r.d.next = self.commit_ns.val();
                        self.tupdate_commit.next = true;
                    }
                    18 => {
                        self.alpha_r.d.next = self.edata.q.val().get_bits::<20>(0);
                        self.alpha_i_r.d.next = self.dv_q.q.val().get_bits::<21>(0);
                    }
                    19 => {
                        self.beta_r.d.next = self.edata.q.val().get_bits::<20>(0);
                        self.beta_i_r.d.next = self.dv_q.q.val().get_bits::<21>(0);
                    }
                    20 => {
                        self.k_r.d.next = self.edata.q.val().get_bits::<8>(0);
                        self.cap_r.d.next = self.dv_q.q.val();
                        self.k_commit.next = true;
                    }
                    21 => {
                        self.step_us_r.d.next = self.edata.q.val().get_bits::<20>(0);
                        self.step_ns_r.d.next = self.commit_ns.val();
                    }
                    22 => {
                        self.min_qlen_r.d.next = self.edata.q.val();
                    }
                    23 => {
                        self.ecn_mask_r.d.next = self.edata.q.val().get_bits::<2>(0);
                    }
                    24 => {
                        self.dol_r.d.next = self.edata.q.val().get_bit(0);
                    }
                    25 => {
                        self.limit_r.d.next = self.edata.q.val().get_bits::<11>(0);
                        self.byte_limit_r.d.next = self.mu_acc.q.val().get_bits::<23>(0);
                    }
                    26 => {
                        self.mtu_r.d.next = self.edata.q.val().get_bits::<11>(0);
                        self.byte_limit_r.d.next = self.r_bl.q.val();
                        self.credit_r.d.next = self.cr_val.val();
                        self.credit_commit.next = true;
                    }
                    27 => {
                        self.wc_r.d.next = self.edata.q.val().get_bits::<7>(0);
                        self.credit_r.d.next = self.cr_val.val();
                        self.credit_commit.next = true;
                    }
                    28 => {
                        self.link_bt_r.d.next = self.edata.q.val().get_bits::<24>(0);
                    }
                    _ => {}
                }
            }
        }

        self.busy.next = self.busy_r.q.val();
        self.target_us.next = self.target_us_r.q.val();
        self.target_ns.next = self.target_ns_r.q.val();
        self.tupdate_us.next = self.tupdate_us_r.q.val();
        self.tupdate_ns.next = self.tupdate_ns_r.q.val();
        self.alpha.next = self.alpha_r.q.val();
        self.alpha_i.next = self.alpha_i_r.q.val();
        self.beta.next = self.beta_r.q.val();
        self.beta_i.next = self.beta_i_r.q.val();
        self.k.next = self.k_r.q.val();
        self.cap.next = self.cap_r.q.val();
        self.step_us.next = self.step_us_r.q.val();
        self.step_ns.next = self.step_ns_r.q.val();
        self.min_qlen_step.next = self.min_qlen_r.q.val();
        self.ecn_mask.next = self.ecn_mask_r.q.val();
        self.drop_overload.next = self.dol_r.q.val();
        self.limit.next = self.limit_r.q.val();
        self.byte_limit.next = self.byte_limit_r.q.val();
        self.mtu.next = self.mtu_r.q.val();
        self.wc.next = self.wc_r.q.val();
        self.init_credit.next = self.credit_r.q.val();
        self.link_bt.next = self.link_bt_r.q.val();

        if self.rst.val() {
            self.busy_r.d.next = false;
            self.n.d.next = 0.into();
            self.dv_cnt.d.next = 0.into();
            self.mu_cnt.d.next = 0.into();
            self.target_us_r.d.next = self.c_target_us.val();
            self.target_ns_r.d.next = self.c_target_ns.val();
            self.tupdate_us_r.d.next = self.c_tupdate_us.val();
            self.tupdate_ns_r.d.next = self.c_tupdate_ns.val();
            self.alpha_r.d.next = self.c_alpha.val();
            self.alpha_i_r.d.next = self.c_alpha_i.val();
            self.beta_r.d.next = self.c_beta.val();
            self.beta_i_r.d.next = self.c_beta_i.val();
            self.k_r.d.next = self.c_k.val();
            self.cap_r.d.next = self.c_cap.val();
            self.step_us_r.d.next = self.c_step_us.val();
            self.step_ns_r.d.next = self.c_step_ns.val();
            self.min_qlen_r.d.next = self.c_min_qlen.val();
            self.ecn_mask_r.d.next = self.c_ecn_mask.val();
            self.dol_r.d.next = true;
            self.limit_r.d.next = self.c_limit.val();
            self.byte_limit_r.d.next = self.c_byte_limit.val();
            self.mtu_r.d.next = self.c_mtu.val();
            self.wc_r.d.next = self.c_wc.val();
            self.credit_r.d.next = self.c_credit.val();
            self.link_bt_r.d.next = 0.into();
            self.k_commit.next = false;
            self.tupdate_commit.next = false;
            self.credit_commit.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{clock_edge, settle};
    use aqm_golden::dualpi2::params::DualPi2Params as P;
    use aqm_golden::dualpi2::regs::addr;
    use aqm_golden::prng::XorShift64;

    fn cycle(e: &mut DualPi2Params) {
        settle(e);
        clock_edge(e, |e| &mut e.clock);
    }

    /// Resets, then writes `value` to `a` (the write judged in cycle 0, as the register file does) and
    /// returns the engine after the commit, checking that nothing changed before it.
    fn write(e: &mut DualPi2Params, a: u8, value: u32) {
        e.rst.next = true;
        cycle(e);
        e.rst.next = false;
        let before = snapshot(e);
        e.start.next = true;
        e.addr.next = (a as u64).to_bits();
        e.data.next = (value as u64).to_bits();
        cycle(e);
        e.start.next = false;
        // reg_we was one cycle before the start, so the commit is visible PARAM_CYCLES - 1 cycles after it.
        for c in 1..PARAM_CYCLES - 1 {
            settle(e);
            assert!(e.busy.val(), "busy in cycle {c}");
            assert_eq!(snapshot(e), before, "parameter changed early, cycle {c}");
            clock_edge(e, |e| &mut e.clock);
        }
        settle(e);
        assert!(!e.busy.val());
    }

    fn snapshot(e: &DualPi2Params) -> Vec<u64> {
        vec![
            e.target_ns.val().to_u64(),
            e.tupdate_ns.val().to_u64(),
            e.step_ns.val().to_u64(),
            e.alpha_i.val().to_u64(),
            e.beta_i.val().to_u64(),
            e.k.val().to_u64(),
            e.cap.val().to_u64(),
            e.limit.val().to_u64(),
            e.byte_limit.val().to_u64(),
            e.mtu.val().to_u64(),
            e.wc.val().to_u64(),
            e.init_credit.val().to_u64(),
            e.min_qlen_step.val().to_u64(),
            e.ecn_mask.val().to_u64(),
            e.drop_overload.val() as u64,
            e.link_bt.val().to_u64(),
        ]
    }

    fn credit24(p: &P) -> u64 {
        initial_credit(p) as u64 & ((1 << 24) - 1)
    }

    #[test]
    fn reset_values_are_the_hardware_preset() {
        let mut e = DualPi2Params::default();
        e.connect_all();
        e.rst.next = true;
        cycle(&mut e);
        e.rst.next = false;
        settle(&mut e);
        assert_eq!(e.alpha_i.val().to_u64(), 44);
        assert_eq!(e.beta_i.val().to_u64(), 879);
        assert_eq!(e.cap.val().to_u64(), prob_cap(2) as u64);
        assert_eq!(e.byte_limit.val().to_u64(), H.byte_limit());
        assert_eq!(e.init_credit.val().to_u64(), credit24(&H));
        assert_eq!(e.target_ns.val().to_u64(), H.target_ns());
    }

    #[test]
    fn conversions_equal_the_golden_functions() {
        let mut e = DualPi2Params::default();
        e.connect_all();
        let mut rng = XorShift64::new(7).unwrap();
        let mut r = |lo: u32, hi: u32| lo + (rng.next_word() % (hi as u64 - lo as u64 + 1)) as u32;
        let gains = [
            1,
            2,
            41,
            819,
            1000,
            4095,
            0xF_FFFF,
            r(1, 0xF_FFFF),
            r(1, 0xF_FFFF),
        ];
        for g in gains {
            write(&mut e, addr::ALPHA, g);
            assert_eq!(e.alpha_i.val().to_u64(), gain_internal(g), "alpha {g}");
            assert_eq!(e.alpha.val().to_u64(), g as u64);
            write(&mut e, addr::BETA, g);
            assert_eq!(e.beta_i.val().to_u64(), gain_internal(g), "beta {g}");
        }
        for k in [1, 2, 3, 7, 100, 254, 255, r(1, 255)] {
            write(&mut e, addr::K, k);
            assert_eq!(e.cap.val().to_u64(), prob_cap(k) as u64, "k {k}");
            assert_eq!(e.k.val().to_u64(), k as u64);
        }
        for us in [0, 1, 100, 15_000, 999_999, 1_000_000, r(0, 1_000_000)] {
            write(&mut e, addr::STEP_US, us);
            assert_eq!(e.step_ns.val().to_u64(), us as u64 * 1000, "step {us}");
            if us >= 100 {
                write(&mut e, addr::TUPDATE_US, us);
                assert_eq!(e.tupdate_ns.val().to_u64(), us as u64 * 1000);
                write(&mut e, addr::TARGET_US, us);
                assert_eq!(e.target_ns.val().to_u64(), us as u64 * 1000);
            }
        }
        for limit in [1, 2, 1000, 1024, r(1, 1024)] {
            write(&mut e, addr::LIMIT, limit);
            let p = P { limit, ..H };
            assert_eq!(e.byte_limit.val().to_u64(), p.byte_limit(), "limit {limit}");
        }
        for mtu in [64, 1500, 1514, 2047, r(64, 2047)] {
            write(&mut e, addr::MTU, mtu);
            let p = P { mtu, ..H };
            assert_eq!(e.byte_limit.val().to_u64(), p.byte_limit(), "mtu {mtu}");
            assert_eq!(e.init_credit.val().to_u64(), credit24(&p), "mtu {mtu}");
        }
        for wc in [0, 1, 10, 49, 50, 51, 99, 100, r(0, 100)] {
            write(&mut e, addr::C_PROTECTION, wc);
            let p = P {
                c_protection: wc,
                ..H
            };
            assert_eq!(e.init_credit.val().to_u64(), credit24(&p), "wc {wc}");
        }
    }

    #[test]
    fn a_k_commit_is_signalled_in_the_commit_cycle() {
        let mut e = DualPi2Params::default();
        e.connect_all();
        e.rst.next = true;
        cycle(&mut e);
        e.rst.next = false;
        e.start.next = true;
        e.addr.next = (addr::K as u64).to_bits();
        e.data.next = 5u64.to_bits();
        let mut commits = vec![];
        for c in 0..PARAM_CYCLES + 5 {
            settle(&mut e);
            if e.k_commit.val() {
                commits.push(c);
                assert_eq!(e.k.val().to_u64(), 2, "the new K shows the cycle after");
            }
            clock_edge(&mut e, |e| &mut e.clock);
            e.start.next = false;
        }
        assert_eq!(commits, vec![PARAM_CYCLES - 2]);
        settle(&mut e);
        assert_eq!(e.k.val().to_u64(), 5);
    }
}
