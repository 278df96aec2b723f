//! DualPI2's parameters in effect, and the engine that converts a written parameter into the units the
//! datapath uses (hdl/DUALPI2-CORE.md, "Register file").
//!
//! A parameter write (already range-checked by the register file) starts the engine; `PARAM_CYCLES`
//! cycles after the write's `reg_we` the new value and everything derived from it take effect together.
//! The derived values need a multiplier or a divider, which the HX8K does not have, so the engine
//! computes them serially, one step per cycle, with no carry chain longer than 23 bits:
//!
//! ```text
//! TARGET_US, TUPDATE_US, STEP_US   x 1000                                   20-step multiplication
//! ALPHA, BETA                      floor(floor(g * (2^32 - 1) / 4) / 10^9)  21-step division
//! K                                floor((2^32 - 1) / k), the cap of p'     32-step division
//!                                  without drop_overload
//! LIMIT, MTU                       byte limit = LIMIT x 2 MTU               11-step multiplication
//! MTU, C_PROTECTION                initial credit = MTU x (wc - wl)         11-step multiplication
//!                                  = MTU x (2 wc - 100), signed
//! ```
//! The multiplier is serial-parallel, least significant bit of the multiplier first: a 12-bit signed
//! multiplicand `a` is added into the top of the product register `p`, which shifts right one bit per
//! step (a 13-bit adder). The divider is restoring, one quotient bit per step, with the dividend's low
//! bits and the quotient sharing the register `quo` (it shifts left) and the divisor kept inverted in
//! `dvn`, so that each step is one 23-bit addition `{r, quo[31]} + dvn + 1` and a multiplexer.
//!
//! The gains are divided by 5^9 instead of 10^9 (10^9 = 2^9 x 5^9, and floor(floor(x / a) / b) =
//! floor(x / ab)): with h = g - 1, floor(g (2^32 - 1) / 4) >> 9 = h 2^21 + 2^21 - 1 - (h >> 11) for
//! 1 <= g < 2^20, i.e. the remainder starts at h (below 5^9) and the 21 dividend bits that follow are
//! twelve ones and the complement of h[19:11]; `gain_division_matches_the_golden_conversion` checks
//! this for every gain. The first step computes h in the divider's own adder (r = -1, dvn = g).

use crate::konst::K;
use aqm_golden::dualpi2::consts::{gain_internal, prob_cap, us_to_ns, PARAM_CYCLES};
use aqm_golden::dualpi2::params::HARDWARE_PARAMS as H;
use aqm_golden::dualpi2::scheduler::initial_credit;
use rust_hdl::prelude::*;

/// The engine's step in which the results are committed: they are visible `PARAM_CYCLES` cycles after
/// `reg_we` (the write is judged one cycle after `reg_we` and the engine starts the cycle after that).
const COMMIT_STEP: u64 = PARAM_CYCLES - 3;
/// The longest job: the setup step, then K's 32 division steps.
const _: () = assert!(COMMIT_STEP > 32);

/// The gains' divisor, 10^9 / 2^9, inverted in 22 bits (the divider adds `dvn + 1`).
const GAIN_DIVISOR: u64 = 1_953_125;
const _: () = assert!(GAIN_DIVISOR << 9 == 1_000_000_000);
const GAIN_DVN: u64 = !GAIN_DIVISOR & ((1 << 22) - 1);

/// The initial credit at reset as a 24-bit two's-complement value.
/// MIN_QLEN_STEP as the engine keeps it: saturated to 10 bits (see `min_qlen_step`).
pub const fn min_qlen_sat(v: u32) -> u64 {
    if v > 1023 {
        1023
    } else {
        v as u64
    }
}

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
    /// The cycle a write is committed: the parameter's bit, one-hot, bit a - 0x10 for address a (the
    /// register file keeps what reads return; with a reset in the cycle, none).
    pub commit_sel: Signal<Out, Bits<13>>,
    // The parameters in effect, converted (and as written where the datapath uses that form: the
    // register file keeps its own copy of every written value for reads).
    pub target_ns: Signal<Out, Bits<30>>,
    pub tupdate_ns: Signal<Out, Bits<30>>,
    pub alpha_i: Signal<Out, Bits<21>>,
    pub beta_i: Signal<Out, Bits<21>>,
    pub k: Signal<Out, Bits<8>>,
    pub cap: Signal<Out, Bits<32>>, // floor((2^32 - 1) / k)
    pub step_ns: Signal<Out, Bits<30>>,
    /// min(MIN_QLEN_STEP, 1023): a queue never holds 1023 packets (512 at most), so the step
    /// condition `L count >= MIN_QLEN_STEP` reads the same with it.
    pub min_qlen_step: Signal<Out, Bits<10>>,
    pub ecn_mask: Signal<Out, Bits<2>>,
    pub drop_overload: Signal<Out, Bit>,
    pub limit: Signal<Out, Bits<11>>,
    pub byte_limit: Signal<Out, Bits<23>>,
    pub mtu: Signal<Out, Bits<11>>,
    /// MTU after this edge, with a commit in it, but not a reset (the ingress keeps the backlog's
    /// distance to 2 MTU a cycle ahead with it, and is reset in the same cycle).
    pub mtu_next: Signal<Out, Bits<11>>,
    /// The byte limit after this edge (not a reset's), for the ingress's accept stage.
    pub byte_limit_next: Signal<Out, Bits<23>>,
    pub wc: Signal<Out, Bits<7>>, // C protection, %
    /// L's weight, 100 - wc, committed with it (the WRR credit's loop reads a register, not a chain).
    pub wl: Signal<Out, Bits<7>>,
    /// The weights after this edge (but for a reset: the queues are empty after it): the egress
    /// keeps each head's weighted length a cycle ahead with them.
    pub wc_next: Signal<Out, Bits<7>>,
    pub wl_next: Signal<Out, Bits<7>>,
    pub init_credit: Signal<Out, Bits<24>>, // signed
    pub link_bt: Signal<Out, Bits<24>>,

    busy_r: DFF<Bit>,
    /// The setup step (the first busy cycle).
    first: DFF<Bit>,
    n: DFF<Bits<6>>,
    /// The register written, one-hot: bit a - 0x10 for address a (0x10 TARGET_US ... 0x1C LINK_BYTE_TIME).
    sel: DFF<Bits<13>>,
    edata: DFF<Bits<32>>,
    // The multiplier: product (its top 12 bits the signed running sum), multiplier bits, multiplicand.
    p: DFF<Bits<32>>,
    mb: DFF<Bits<20>>,
    ma: DFF<Bits<12>>, // signed
    mcnt: DFF<Bits<5>>,
    // The divider: remainder, dividend bits and quotient, inverted divisor.
    r: DFF<Bits<22>>,
    quo: DFF<Bits<32>>,
    dvn: DFF<Bits<22>>,
    dcnt: DFF<Bits<6>>,
    /// MTU: the byte limit, kept while the credit is computed.
    r_bl: DFF<Bits<23>>,
    /// MTU: the step after the byte limit's product, which starts the credit's.
    second: DFF<Bit>,
    // Strobes of the commit cycle, registered a cycle ahead.
    cm: DFF<Bit>,
    k_cm: DFF<Bit>,
    tu_cm: DFF<Bit>,
    cr_cm: DFF<Bit>,
    /// A C_PROTECTION job commits at this edge (set a cycle ahead with `cm`), and L's weight it
    /// commits, 100 - wc, staged with it (for `wc_next` and `wl_next`: a flip-flop of their own, as
    /// `busy_r` and `cm` drive the whole engine and their nets are long).
    w_cm: DFF<Bit>,
    wl_stage: DFF<Bits<7>>,
    /// The engine commits at this edge (busy and `cm`).
    commit_now: Signal<Local, Bit>,
    target_ns_r: DFF<Bits<30>>,
    tupdate_ns_r: DFF<Bits<30>>,
    alpha_i_r: DFF<Bits<21>>,
    beta_i_r: DFF<Bits<21>>,
    k_r: DFF<Bits<8>>,
    cap_r: DFF<Bits<32>>,
    step_ns_r: DFF<Bits<30>>,
    min_qlen_r: DFF<Bits<10>>,
    ecn_mask_r: DFF<Bits<2>>,
    dol_r: DFF<Bit>,
    limit_r: DFF<Bits<11>>,
    byte_limit_r: DFF<Bits<23>>,
    mtu_r: DFF<Bits<11>>,
    wc_r: DFF<Bits<7>>,
    wl_r: DFF<Bits<7>>,
    credit_r: DFF<Bits<24>>,
    link_bt_r: DFF<Bits<24>>,
    // Combinational helpers.
    job_time: Signal<Local, Bit>,
    job_gain: Signal<Local, Bit>,
    job_k: Signal<Local, Bit>,
    job_mtu: Signal<Local, Bit>,
    job_cp: Signal<Local, Bit>,
    addr_off: Signal<Local, Bits<8>>,
    rem2: Signal<Local, Bits<22>>,
    dsum: Signal<Local, Bits<23>>,
    ge: Signal<Local, Bit>,
    macc: Signal<Local, Bits<13>>,
    madd: Signal<Local, Bits<13>>,
    msum: Signal<Local, Bits<13>>,
    wdiff_cur: Signal<Local, Bits<8>>,
    wdiff_new: Signal<Local, Bits<8>>,
    credit: Signal<Local, Bits<24>>,
    /// Complements, each in a signal of its own width (inside a wider expression Verilog would widen
    /// before `~`).
    h_inv: Signal<Local, Bits<9>>,
    k_inv: Signal<Local, Bits<8>>,
    /// 2 wc - 100 sign-extended to the multiplicand's 12 bits.
    ma_cur: Signal<Local, Bits<12>>,
    ma_new: Signal<Local, Bits<12>>,
    c_target_ns: K<30, { us_to_ns(H.target_us) }>,
    c_tupdate_ns: K<30, { us_to_ns(H.tupdate_us) }>,
    c_alpha_i: K<21, { gain_internal(H.alpha) }>,
    c_beta_i: K<21, { gain_internal(H.beta) }>,
    c_k: K<8, { H.k as u64 }>,
    c_cap: K<32, { prob_cap(H.k) as u64 }>,
    c_step_ns: K<30, { us_to_ns(H.step_us) }>,
    c_min_qlen: K<10, { min_qlen_sat(H.min_qlen_step) }>,
    c_ones10: K<10, 1023>,
    c_ecn_mask: K<2, { H.ecn_mask as u64 }>,
    c_limit: K<11, { H.limit as u64 }>,
    c_byte_limit: K<23, { H.limit as u64 * 2 * H.mtu as u64 }>,
    c_mtu: K<11, { H.mtu as u64 }>,
    c_wc: K<7, { H.c_protection as u64 }>,
    c_wl: K<7, { 100 - H.c_protection as u64 }>,
    c_hundred: K<7, 100>,
    c_credit: K<24, RESET_CREDIT>,
    c_gain_dvn: K<22, GAIN_DVN>,
    c_commit_m1: K<6, { COMMIT_STEP - 1 }>,
}

impl Logic for DualPi2Params {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            busy_r,
            first,
            n,
            sel,
            edata,
            p,
            mb,
            ma,
            mcnt,
            r,
            quo,
            dvn,
            dcnt,
            r_bl,
            second,
            cm,
            k_cm,
            tu_cm,
            cr_cm,
            w_cm,
            wl_stage,
            target_ns_r,
            tupdate_ns_r,
            alpha_i_r,
            beta_i_r,
            k_r,
            cap_r,
            step_ns_r,
            min_qlen_r,
            ecn_mask_r,
            dol_r,
            limit_r,
            byte_limit_r,
            mtu_r,
            wc_r,
            wl_r,
            credit_r,
            link_bt_r
        );
        self.job_time.next =
            self.sel.q.val().get_bit(0) | self.sel.q.val().get_bit(1) | self.sel.q.val().get_bit(5);
        self.job_gain.next = self.sel.q.val().get_bit(2) | self.sel.q.val().get_bit(3);
        self.job_k.next = self.sel.q.val().get_bit(4);
        self.job_mtu.next = self.sel.q.val().get_bit(10);
        self.job_cp.next = self.sel.q.val().get_bit(11);
        self.addr_off.next = self.addr.val() - 16;
        // The divider's step: {r, quo[31]} - divisor, its carry out the quotient bit.
        self.rem2.next = (bit_cast::<22, 21>(self.r.q.val().get_bits::<21>(0)) << 1)
            | bit_cast::<22, 1>(self.quo.q.val().get_bit(31).into());
        self.dsum.next =
            bit_cast::<23, 22>(self.rem2.val()) + bit_cast::<23, 22>(self.dvn.q.val()) + 1;
        self.ge.next = self.dsum.val().get_bit(22);
        // The multiplier's step: the signed top of p plus the multiplicand if the multiplier bit is set.
        self.macc.next = bit_cast::<13, 12>(self.p.q.val().get_bits::<12>(20))
            | (bit_cast::<13, 1>(self.p.q.val().get_bit(31).into()) << 12);
        self.madd.next = 0.into();
        if self.mb.q.val().get_bit(0) {
            self.madd.next = bit_cast::<13, 12>(self.ma.q.val())
                | (bit_cast::<13, 1>(self.ma.q.val().get_bit(11).into()) << 12);
        }
        self.msum.next = self.macc.val() + self.madd.val();
        // 2 wc - 100 (signed, -100 ... 100) for the current C protection (MTU job) or the written one.
        self.wdiff_cur.next = (bit_cast::<8, 7>(self.wc_r.q.val()) << 1) - 100;
        self.wdiff_new.next = (self.edata.q.val().get_bits::<8>(0) << 1) - 100;
        self.ma_cur.next = bit_cast::<12, 8>(self.wdiff_cur.val());
        if self.wdiff_cur.val().get_bit(7) {
            self.ma_cur.next = bit_cast::<12, 8>(self.wdiff_cur.val()) | 0xF00_u64.to_bits();
        }
        self.ma_new.next = bit_cast::<12, 8>(self.wdiff_new.val());
        if self.wdiff_new.val().get_bit(7) {
            self.ma_new.next = bit_cast::<12, 8>(self.wdiff_new.val()) | 0xF00_u64.to_bits();
        }
        self.h_inv.next = !self.dsum.val().get_bits::<9>(11);
        self.k_inv.next = !self.edata.q.val().get_bits::<8>(0);
        // The credit: an 11-step signed product is p >> 9, sign-extended to 24 bits.
        self.credit.next = bit_cast::<24, 23>(self.p.q.val().get_bits::<23>(9))
            | (bit_cast::<24, 1>(self.p.q.val().get_bit(31).into()) << 23);
        self.commit_ns.next = self.p.q.val().get_bits::<30>(0);
        self.commit_credit.next = self.credit.val();

        if self.start.val() & !self.busy_r.q.val() {
            self.busy_r.d.next = true;
            self.first.d.next = true;
            self.n.d.next = 0.into();
            self.sel.d.next = 0.into();
            if self.addr_off.val() < 13 {
                self.sel.d.next = bits::<13>(1) << self.addr_off.val().get_bits::<4>(0);
            }
            self.edata.d.next = self.data.val();
            // The setup step's adder gives r = -2 + dvn + 1: g - 1 for a gain, 0 for K.
            self.r.d.next = 0x3F_FFFF_u64.into();
            self.quo.d.next = 0x7FFF_FFFF_u64.into();
            self.dvn.d.next = bit_cast::<22, 20>(self.data.val().get_bits::<20>(0));
            if self.addr.val() == 20 {
                self.dvn.d.next = 1.into();
            }
            self.dcnt.d.next = 0.into();
            self.mcnt.d.next = 0.into();
        }

        self.cm.d.next = false;
        self.k_cm.d.next = false;
        self.tu_cm.d.next = false;
        self.cr_cm.d.next = false;
        self.w_cm.d.next = false;
        if self.busy_r.q.val() {
            self.n.d.next = self.n.q.val() + 1;
            self.first.d.next = false;
            if self.first.q.val() {
                // Setup: the remainder h = g - 1 (for K 0), the dividend bits below twelve ones, the
                // divisor; the multiplier's operands (product 0) and its step count.
                self.r.d.next = self.dsum.val().get_bits::<22>(0);
                self.quo.d.next = (self.quo.q.val() & 0xFFF0_07FF_u64.to_bits())
                    | 0x8000_0000_u64.to_bits()
                    | (bit_cast::<32, 9>(self.h_inv.val()) << 11);
                self.dvn.d.next = self.c_gain_dvn.val();
                self.dcnt.d.next = 0.into();
                if self.job_gain.val() {
                    self.dcnt.d.next = 21.into();
                }
                if self.job_k.val() {
                    self.dvn.d.next = 0x3F_FF00_u64.to_bits() | bit_cast::<22, 8>(self.k_inv.val());
                    self.dcnt.d.next = 32.into();
                }
                self.p.d.next = 0.into();
                self.mcnt.d.next = 11.into();
                self.mb.d.next = bit_cast::<20, 11>(self.mtu_r.q.val());
                self.ma.d.next = bit_cast::<12, 11>(self.edata.q.val().get_bits::<11>(0));
                if self.job_time.val() {
                    self.mcnt.d.next = 20.into();
                    self.mb.d.next = self.edata.q.val().get_bits::<20>(0);
                    self.ma.d.next = 1000.into();
                }
                if self.job_mtu.val() {
                    // MTU: the byte limit first (LIMIT x MTU, doubled at the end), then the credit.
                    self.mb.d.next = bit_cast::<20, 11>(self.edata.q.val().get_bits::<11>(0));
                    self.ma.d.next = bit_cast::<12, 11>(self.limit_r.q.val());
                }
                if self.job_cp.val() {
                    // C_PROTECTION: MTU x (2 wc - 100).
                    self.ma.d.next = self.ma_new.val();
                }
            }
            if self.dcnt.q.val().any() {
                self.dcnt.d.next = self.dcnt.q.val() - 1;
                self.quo.d.next = (self.quo.q.val() << 1) | bit_cast::<32, 1>(self.ge.val().into());
                self.r.d.next = self.rem2.val();
                if self.ge.val() {
                    self.r.d.next = self.dsum.val().get_bits::<22>(0);
                }
            }
            if self.mcnt.q.val().any() {
                self.mcnt.d.next = self.mcnt.q.val() - 1;
                self.mb.d.next = self.mb.q.val() >> 1;
                self.p.d.next = (bit_cast::<32, 13>(self.msum.val()) << 19)
                    | bit_cast::<32, 19>(self.p.q.val().get_bits::<19>(1));
            }
            self.second.d.next = self.job_mtu.val() & (self.n.q.val() == 11);
            if self.second.q.val() {
                // MTU: the byte limit is done (steps 1-11); now the credit, MTU x (2 wc - 100).
                self.r_bl.d.next = self.p.q.val().get_bits::<23>(8);
                self.p.d.next = 0.into();
                self.mcnt.d.next = 11.into();
                self.mb.d.next = bit_cast::<20, 11>(self.edata.q.val().get_bits::<11>(0));
                self.ma.d.next = self.ma_cur.val();
            }
            if self.n.q.val() == self.c_commit_m1.val() {
                self.cm.d.next = true;
                self.k_cm.d.next = self.job_k.val();
                self.tu_cm.d.next = self.sel.q.val().get_bit(1);
                self.cr_cm.d.next = self.job_mtu.val() | self.job_cp.val();
                self.w_cm.d.next = self.job_cp.val();
                self.wl_stage.d.next = self.c_hundred.val() - self.edata.q.val().get_bits::<7>(0);
            }
            if self.cm.q.val() {
                self.busy_r.d.next = false;
                if self.sel.q.val().get_bit(0) {
                    self.target_ns_r.d.next = self.commit_ns.val();
                }
                if self.sel.q.val().get_bit(1) {
                    self.tupdate_ns_r.d.next = self.commit_ns.val();
                }
                if self.sel.q.val().get_bit(2) {
                    self.alpha_i_r.d.next = self.quo.q.val().get_bits::<21>(0);
                }
                if self.sel.q.val().get_bit(3) {
                    self.beta_i_r.d.next = self.quo.q.val().get_bits::<21>(0);
                }
                if self.sel.q.val().get_bit(4) {
                    self.k_r.d.next = self.edata.q.val().get_bits::<8>(0);
                    self.cap_r.d.next = self.quo.q.val();
                }
                if self.sel.q.val().get_bit(5) {
                    self.step_ns_r.d.next = self.commit_ns.val();
                }
                if self.sel.q.val().get_bit(6) {
                    self.min_qlen_r.d.next = self.edata.q.val().get_bits::<10>(0);
                    if self.edata.q.val().get_bits::<22>(10).any() {
                        self.min_qlen_r.d.next = self.c_ones10.val();
                    }
                }
                if self.sel.q.val().get_bit(7) {
                    self.ecn_mask_r.d.next = self.edata.q.val().get_bits::<2>(0);
                }
                if self.sel.q.val().get_bit(8) {
                    self.dol_r.d.next = self.edata.q.val().get_bit(0);
                }
                if self.sel.q.val().get_bit(9) {
                    self.limit_r.d.next = self.edata.q.val().get_bits::<11>(0);
                    self.byte_limit_r.d.next = self.p.q.val().get_bits::<23>(8);
                }
                if self.sel.q.val().get_bit(10) {
                    self.mtu_r.d.next = self.edata.q.val().get_bits::<11>(0);
                    self.byte_limit_r.d.next = self.r_bl.q.val();
                    self.credit_r.d.next = self.credit.val();
                }
                if self.sel.q.val().get_bit(11) {
                    self.wc_r.d.next = self.edata.q.val().get_bits::<7>(0);
                    self.wl_r.d.next = self.wl_stage.q.val();
                    self.credit_r.d.next = self.credit.val();
                }
                if self.sel.q.val().get_bit(12) {
                    self.link_bt_r.d.next = self.edata.q.val().get_bits::<24>(0);
                }
            }
        }

        self.busy.next = self.busy_r.q.val();
        self.commit_sel.next = 0.into();
        if self.cm.q.val() & !self.rst.val() {
            self.commit_sel.next = self.sel.q.val();
        }
        // The strobes into the controller and the egress come straight from their flip-flops: in a
        // reset cycle both blocks are reset too (copies of the same reset), and their resets win over
        // what a strobe would load (next_update, dirty; the credit and pend). Gated with the reset, the
        // tupdate strobe's path began at the reset's copy (ECP5 DualPI2 core, 11.6 ns into next_update).
        self.k_commit.next = self.k_cm.q.val();
        self.tupdate_commit.next = self.tu_cm.q.val();
        self.credit_commit.next = self.cr_cm.q.val();
        self.target_ns.next = self.target_ns_r.q.val();
        self.tupdate_ns.next = self.tupdate_ns_r.q.val();
        self.alpha_i.next = self.alpha_i_r.q.val();
        self.beta_i.next = self.beta_i_r.q.val();
        self.k.next = self.k_r.q.val();
        self.cap.next = self.cap_r.q.val();
        self.step_ns.next = self.step_ns_r.q.val();
        self.min_qlen_step.next = self.min_qlen_r.q.val();
        self.ecn_mask.next = self.ecn_mask_r.q.val();
        self.drop_overload.next = self.dol_r.q.val();
        self.limit.next = self.limit_r.q.val();
        self.byte_limit.next = self.byte_limit_r.q.val();
        self.mtu.next = self.mtu_r.q.val();
        self.wc.next = self.wc_r.q.val();
        self.wl.next = self.wl_r.q.val();
        self.init_credit.next = self.credit_r.q.val();
        self.link_bt.next = self.link_bt_r.q.val();

        if self.rst.val() {
            // No job and no commit strobe out of a reset cycle.
            self.busy_r.d.next = false;
            self.cm.d.next = false;
            self.k_cm.d.next = false;
            self.tu_cm.d.next = false;
            self.cr_cm.d.next = false;
            self.w_cm.d.next = false;
            self.first.d.next = false;
            self.second.d.next = false;
            self.n.d.next = 0.into();
            self.dcnt.d.next = 0.into();
            self.mcnt.d.next = 0.into();
            self.target_ns_r.d.next = self.c_target_ns.val();
            self.tupdate_ns_r.d.next = self.c_tupdate_ns.val();
            self.alpha_i_r.d.next = self.c_alpha_i.val();
            self.beta_i_r.d.next = self.c_beta_i.val();
            self.k_r.d.next = self.c_k.val();
            self.cap_r.d.next = self.c_cap.val();
            self.step_ns_r.d.next = self.c_step_ns.val();
            self.min_qlen_r.d.next = self.c_min_qlen.val();
            self.ecn_mask_r.d.next = self.c_ecn_mask.val();
            self.dol_r.d.next = true;
            self.limit_r.d.next = self.c_limit.val();
            self.byte_limit_r.d.next = self.c_byte_limit.val();
            self.mtu_r.d.next = self.c_mtu.val();
            self.wc_r.d.next = self.c_wc.val();
            self.wl_r.d.next = self.c_wl.val();
            self.credit_r.d.next = self.c_credit.val();
            self.link_bt_r.d.next = 0.into();
        }
        // MTU, the byte limit and the weights after this edge, from the commit's condition and the
        // values it commits, not from their registers' input logic and its reset: in a reset cycle no
        // one reads them (the ingress's accept stage and gap, the queues and the egress are reset in
        // the same cycle; the queues are empty after it). MTU's and the byte limit's take the
        // condition in full, busy and `cm`, so that they equal the registers' inputs in every state
        // but a reset, reachable or not (the GAP proof's induction starts anywhere); the weights'
        // take `w_cm`, equal to it in every reachable state (the unit tests and conformance check
        // them cycle by cycle).
        self.commit_now.next = self.busy_r.q.val() & self.cm.q.val();
        self.mtu_next.next = self.mtu_r.q.val();
        self.byte_limit_next.next = self.byte_limit_r.q.val();
        if self.commit_now.val() & self.sel.q.val().get_bit(9) {
            self.byte_limit_next.next = self.p.q.val().get_bits::<23>(8);
        }
        if self.commit_now.val() & self.sel.q.val().get_bit(10) {
            self.mtu_next.next = self.edata.q.val().get_bits::<11>(0);
            self.byte_limit_next.next = self.r_bl.q.val();
        }
        self.wc_next.next = self.wc_r.q.val();
        self.wl_next.next = self.wl_r.q.val();
        if self.w_cm.q.val() {
            self.wc_next.next = self.edata.q.val().get_bits::<7>(0);
            self.wl_next.next = self.wl_stage.q.val();
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
            // The values after the edge that the ingress and the egress read a cycle ahead.
            let next = (
                e.wc_next.val(),
                e.wl_next.val(),
                e.mtu_next.val(),
                e.byte_limit_next.val(),
            );
            clock_edge(e, |e| &mut e.clock);
            settle(e);
            let now = (e.wc.val(), e.wl.val(), e.mtu.val(), e.byte_limit.val());
            assert_eq!(now, next, "weights, MTU, byte limit after cycle {c}");
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
            e.wl.val().to_u64(),
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

    /// The divider's identity for the gains (module docs): restoring division of {h, 2^21 - 1 - (h >> 11)}
    /// by 5^9, h = g - 1, equals the golden conversion for every gain the register file accepts.
    #[test]
    fn gain_division_matches_the_golden_conversion() {
        for g in 1..1u64 << 20 {
            let h = g - 1;
            let dividend = h << 21 | (((1 << 21) - 1) ^ (h >> 11));
            assert!(h < GAIN_DIVISOR);
            assert_eq!(dividend / GAIN_DIVISOR, gain_internal(g as u32), "g {g}");
        }
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
        assert_eq!(e.wl.val().to_u64(), 100 - H.c_protection as u64);
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
            assert_eq!(e.wc.val().to_u64(), wc as u64, "wc {wc}");
            assert_eq!(e.wl.val().to_u64(), 100 - wc as u64, "wl, wc {wc}");
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
