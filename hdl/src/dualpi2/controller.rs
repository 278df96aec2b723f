//! DualPI2's PI2 controller (spec/dualpi2.md, "Controller"; timing in hdl/DUALPI2-CORE.md), bit-serial.
//!
//! It fires when `now` reaches `next_update` (a tupdate after reset, then every tupdate: `next_update`
//! advances by tupdate at each firing, so the updates keep their schedule), snapshots the queue heads
//! and the parameters, and computes the update one bit per clock, least significant bit first, on shift
//! registers: every adder but two is a one-bit full adder, so that no carry chain is longer than 20 bits
//! and no operand is picked out of a word by a wide multiplexer. Passes (cycles after the firing cycle):
//!
//! ```text
//! 1-40     Age   raw_l = at - ts_l and raw_c = at - ts_c (at = next_update when fired), in place in
//!                the snapshot registers, and raw_c > raw_l
//! 41       Sel   which head is older: qdelay = the larger valid age (0 for an empty queue or a
//!                "negative" age, bit 39 set)
//! 42-107   Mul1  d1 = qdelay - target, d2 = qdelay - last_qdelay (64-bit two's complement, serially),
//!                straight into two carry-save serial x parallel multipliers by alpha_i and beta_i;
//!                delta = alpha_i d1 + beta_i d2 comes out one bit per cycle two cycles later; only its
//!                sign is kept. qdelay is shifted into `at`'s register on the way.
//! 108-173  Mul2  delta again, and at once t = delta + 63 if negative and s = p' + t >> 6 (arithmetic),
//!                in place in p' (bits 0-31), s > cap (serially), any of bits 32-56 of s, and its sign
//! 174-213  Kp    p' saturated to [0, 2^32 - 1] and, without drop_overload, capped at MAX / k, rewritten
//!                serially, and kp = k x p' (40 bits, a 9-bit adder), into the register of raw_l
//! 214      Commit p', kp, the overload flag (kp > MAX), last_qdelay, UPDATES + 1
//! ```
//! A PROB write or a new K runs Kp alone (a *recompute*). The commit cycles are fixed: the results are
//! visible `UPDATE_CYCLES` after the firing cycle and `RECOMPUTE_CYCLES` after a recompute's start.
//!
//! The working copies of p' (`pn`) and of last_qdelay (`lsh`) equal `prob` and `last_qdelay` whenever
//! the controller is idle (both are loaded at the commit and reset together), so a job needs no load
//! from them; every pass that reads them rotates them back into place. `next_update`'s adder and the
//! `due` comparison are 40 bits wide and split into 20-bit halves with the upper half computed for
//! both carries (carry select).

use crate::konst::K;
use crate::serial_delta::SerialDelta;
use aqm_golden::dualpi2::consts::{RECOMPUTE_CYCLES, UPDATE_CYCLES};
use aqm_golden::dualpi2::params::HARDWARE_PARAMS as H;
use rust_hdl::prelude::*;

/// Steps of the passes: Age over the 40-bit times; Mul over 64 bits of delta plus the two pipeline
/// stages in front of it (operand bits, multiplier); Kp over 32 bits of p' and 8 more of k x p'.
const AGE_STEPS: u64 = 40;
const MUL_STEPS: u64 = 66;
const KP_STEPS: u64 = 40;
const _: () = assert!(UPDATE_CYCLES == 1 + AGE_STEPS + 1 + 2 * MUL_STEPS + KP_STEPS + 1);
const _: () = assert!(RECOMPUTE_CYCLES == 1 + KP_STEPS + 1);
// Age and Kp end on the same flag (e39), Mul1 and Mul2 on e65.
const _: () = assert!(AGE_STEPS == 40 && KP_STEPS == AGE_STEPS && MUL_STEPS == 66);

#[derive(LogicBlock, Default)]
pub struct DualPi2Controller {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now40: Signal<In, Bits<40>>, // ns
    // The queue heads.
    pub hv_l: Signal<In, Bit>,
    pub ts_l: Signal<In, Bits<40>>, // ns
    pub hv_c: Signal<In, Bit>,
    pub ts_c: Signal<In, Bits<40>>, // ns
    // Parameters in effect.
    pub target_ns: Signal<In, Bits<30>>,
    pub tupdate_ns: Signal<In, Bits<30>>,
    pub alpha_i: Signal<In, Bits<21>>,
    pub beta_i: Signal<In, Bits<21>>,
    pub drop_overload: Signal<In, Bit>,
    pub k: Signal<In, Bits<8>>,
    pub cap: Signal<In, Bits<32>>, // floor((2^32 - 1) / k)
    // A PROB write (taken only while Idle) and a K commit (recompute kp when Idle).
    pub prob_we: Signal<In, Bit>,
    pub prob_wdata: Signal<In, Bits<32>>,
    pub k_commit: Signal<In, Bit>,
    /// A TUPDATE_US commit: the next update falls the new interval from now.
    pub tupdate_commit: Signal<In, Bit>,
    pub commit_ns: Signal<In, Bits<30>>,
    pub clear_counters: Signal<In, Bit>,
    // State.
    pub prob: Signal<Out, Bits<32>>, // p', 2^32 - 1 = 100 %
    pub kp: Signal<Out, Bits<40>>,   // k x p'
    /// k x p' > 100 %.
    pub overload: Signal<Out, Bit>,
    /// min(last_qdelay, 2^32 - 1), ns: what LAST_QDELAY reads (the update works on `lsh`, 40 bits).
    pub last_qdelay: Signal<Out, Bits<32>>,
    pub next_update: Signal<Out, Bits<40>>, // ns
    pub updates: Signal<Out, Bits<32>>,
    pub busy: Signal<Out, Bit>,
    /// Work is due: an update (fire or due) or a recompute (dirty).
    pub pending: Signal<Out, Bit>,

    // The pass running, one-hot (none while idle), and `busy_r` = any of them.
    busy_r: DFF<Bit>,
    s_age: DFF<Bit>,
    s_sel: DFF<Bit>,
    s_mul1: DFF<Bit>,
    s_mul2: DFF<Bit>,
    s_kp: DFF<Bit>,
    s_com: DFF<Bit>,
    /// The step within a pass, and windows of it (registered: set or cleared at a pass's start and
    /// flipped by an equality on the step, so that no comparison sits in front of the datapath).
    bi: DFF<Bits<7>>,
    w40: DFF<Bit>, // bi < 40
    w32: DFF<Bit>, // bi < 32
    w30: DFF<Bit>, // bi < 30
    ge2: DFF<Bit>, // bi >= 2
    ge8: DFF<Bit>, // bi >= 8
    e39: DFF<Bit>, // bi == 39, the last step of Age and Kp
    e65: DFF<Bit>, // bi == 65, the last step of Mul1 and Mul2
    /// Registered pass starts: `into_mul` is high in Sel and in Mul1's last step (the next cycle starts
    /// a Mul pass), `into_kp` in Mul2's last step.
    into_mul: DFF<Bit>,
    into_kp: DFF<Bit>,
    fire_r: DFF<Bit>,
    dirty: DFF<Bit>,
    /// The job is an update (not a recompute).
    upd: DFF<Bit>,
    /// next_update, inverted: the `due` comparison adds it to now40 with no inverter in front of the
    /// carry chain. `armed` is set by the first reset: before it next_update is 0, as at power-on.
    nn: DFF<Bits<40>>,
    armed: DFF<Bit>,
    prob_r: DFF<Bits<32>>,
    kp_r: DFF<Bits<40>>,
    ovl_r: DFF<Bit>,
    last_r: DFF<Bits<32>>,
    updates_r: DFF<Bits<32>>,
    // The snapshot of an update: `at` (then qdelay), the heads (then raw_l / raw_c; raw_l's register
    // collects kp), the parameters.
    at: DFF<Bits<40>>,
    tl: DFF<Bits<40>>,
    tc: DFF<Bits<40>>,
    hvl: DFF<Bit>,
    hvc: DFF<Bit>,
    tgt: DFF<Bits<30>>,
    ga: DFF<Bits<21>>,
    gb: DFF<Bits<21>>,
    dol: DFF<Bit>,
    kl: DFF<Bits<8>>,
    capl: DFF<Bits<32>>,
    /// p' (working copy) and last_qdelay (working copy): see the module docs.
    pn: DFF<Bits<32>>,
    lsh: DFF<Bits<40>>,
    // Age: the borrows of raw_l and raw_c, raw_c > raw_l; Sel: the head to use.
    bl: DFF<Bit>,
    bc: DFF<Bit>,
    gtc: DFF<Bit>,
    use_l: DFF<Bit>,
    use_c: DFF<Bit>,
    /// Mul: delta = alpha_i d1 + beta_i d2, bit-serially (21-bit gains).
    mul: SerialDelta<21, 20>,
    // Mul2: delta's sign; the carries of t and s; s > cap, cap all ones, any of s's bits 32-56.
    neg: DFF<Bit>,
    ct: DFF<Bit>,
    cs: DFF<Bit>,
    gt: DFF<Bit>,
    cones: DFF<Bit>,
    hi_any: DFF<Bit>,
    // Kp: how p' is rewritten (00 as is, 01 zero, 10 all ones, 11 the cap; 01 from bit 32 on, which
    // k x p' reads as zeros), and k x p's running sum.
    mode: DFF<Bits<2>>,
    kpp: DFF<Bits<9>>,
    // Combinational helpers.
    next_val: Signal<Local, Bits<40>>,
    due_lo: Signal<Local, Bits<24>>,
    due_h0: Signal<Local, Bits<19>>,
    due_h1: Signal<Local, Bits<18>>,
    due: Signal<Local, Bit>,
    nx_now: Signal<Local, Bit>,
    nx_x: Signal<Local, Bits<40>>,
    nx_y: Signal<Local, Bits<30>>,
    nx_lo: Signal<Local, Bits<23>>,
    nx_h0: Signal<Local, Bits<18>>,
    nx_h1: Signal<Local, Bits<19>>,
    nx_sum: Signal<Local, Bits<40>>,
    fire_start: Signal<Local, Bit>,
    /// A pass starts: the step counter and its windows restart at step 0.
    restart: Signal<Local, Bit>,
    /// Into a Mul pass: the multipliers and every serial carry start at 0 too.
    last: Signal<Local, Bit>,
    job_prob: Signal<Local, Bit>,
    job_dirty: Signal<Local, Bit>,
    commit: Signal<Local, Bit>,
    at_sh: Signal<Local, Bit>,
    at_in: Signal<Local, Bit>,
    tl_sh: Signal<Local, Bit>,
    tl_in: Signal<Local, Bit>,
    tc_sh: Signal<Local, Bit>,
    op_sh: Signal<Local, Bit>,
    pn_sh: Signal<Local, Bit>,
    pn_in: Signal<Local, Bit>,
    rl: Signal<Local, Bit>,
    rc: Signal<Local, Bit>,
    qb: Signal<Local, Bit>,
    tb: Signal<Local, Bit>,
    lb: Signal<Local, Bit>,
    vl: Signal<Local, Bit>,
    vc: Signal<Local, Bit>,
    pick_c: Signal<Local, Bit>,
    m63: Signal<Local, Bit>,
    tbit: Signal<Local, Bit>,
    pk: Signal<Local, Bit>,
    sbit: Signal<Local, Bit>,
    capped: Signal<Local, Bit>,
    pb: Signal<Local, Bit>,
    kadd: Signal<Local, Bits<9>>,
    ksum: Signal<Local, Bits<9>>,
    first_update: K<30, { H.tupdate_us as u64 * 1000 }>,
    c_age_end: K<7, { AGE_STEPS - 2 }>,
    c_mul_end: K<7, { MUL_STEPS - 2 }>,
    c_ones32: K<32, 0xFFFF_FFFF>,
}

impl Logic for DualPi2Controller {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy_r, s_age, s_sel, s_mul1, s_mul2, s_kp, s_com, bi, w40, w32, w30, ge2,
            ge8, e39, e65, into_mul, into_kp, fire_r, dirty, upd, nn, armed, prob_r, kp_r, ovl_r,
            last_r, updates_r, at, tl, tc, hvl, hvc, tgt, ga, gb, dol, kl, capl, pn, lsh, bl, bc,
            gtc, use_l, use_c, neg, ct, cs, gt, cones, hi_any, mode, kpp
        );
        clock!(self, clock, mul);
        // due = reached(now40, next_update): bit 39 of now40 + nn + 1, the upper 18 bits computed for
        // both carries out of the lower 22 (carry select). Each "+ 1" is a ones bit appended below both
        // operands (a constant carry into the chain costs a logic level on this part).
        self.next_val.next = !self.nn.q.val();
        self.due_lo.next =
            bit_cast::<24, 23>((bit_cast::<23, 22>(self.now40.val().get_bits::<22>(0)) << 1) | 1)
                + bit_cast::<24, 23>(
                    (bit_cast::<23, 22>(self.nn.q.val().get_bits::<22>(0)) << 1) | 1,
                );
        self.due_h0.next = ((bit_cast::<19, 18>(self.now40.val().get_bits::<18>(22)) << 1) | 1)
            + ((bit_cast::<19, 18>(self.nn.q.val().get_bits::<18>(22)) << 1) | 1);
        self.due_h1.next = self.now40.val().get_bits::<18>(22) + self.nn.q.val().get_bits::<18>(22);
        // (Before the first reset nn is 0, so this compares with 2^40 - 1, not with next_update's 0;
        // no output shows it: `idle` is low in a reset cycle and the reset clears `fire`.)
        self.due.next = !self.due_h1.val().get_bit(17);
        if self.due_lo.val().get_bit(23) {
            self.due.next = !self.due_h0.val().get_bit(18);
        }
        self.fire_r.d.next = self.due.val();
        if self.k_commit.val() {
            self.dirty.d.next = true;
        }
        // next_update's one adder: now40 + the first interval (reset), now40 + the committed interval
        // (TUPDATE commit), or next_update + tupdate (a firing), in that priority.
        self.nx_now.next = self.rst.val() | self.tupdate_commit.val();
        self.nx_x.next = self.next_val.val();
        if self.nx_now.val() {
            self.nx_x.next = self.now40.val();
        }
        self.nx_y.next = self.tupdate_ns.val();
        if self.tupdate_commit.val() {
            self.nx_y.next = self.commit_ns.val();
        }
        if self.rst.val() {
            self.nx_y.next = self.first_update.val();
        }
        self.nx_lo.next = bit_cast::<23, 22>(self.nx_x.val().get_bits::<22>(0))
            + bit_cast::<23, 22>(self.nx_y.val().get_bits::<22>(0));
        self.nx_h0.next = self.nx_x.val().get_bits::<18>(22)
            + bit_cast::<18, 8>(self.nx_y.val().get_bits::<8>(22));
        self.nx_h1.next = ((bit_cast::<19, 18>(self.nx_x.val().get_bits::<18>(22)) << 1) | 1)
            + ((bit_cast::<19, 8>(self.nx_y.val().get_bits::<8>(22)) << 1) | 1);
        self.nx_sum.next = (bit_cast::<40, 18>(self.nx_h0.val()) << 22)
            | bit_cast::<40, 22>(self.nx_lo.val().get_bits::<22>(0));
        if self.nx_lo.val().get_bit(22) {
            self.nx_sum.next = (bit_cast::<40, 18>(self.nx_h1.val().get_bits::<18>(1)) << 22)
                | bit_cast::<40, 22>(self.nx_lo.val().get_bits::<22>(0));
        }
        self.fire_start.next =
            !self.busy_r.q.val() & !self.prob_we.val() & !self.dirty.q.val() & self.fire_r.q.val();
        if self.nx_now.val() | self.fire_start.val() {
            self.nn.d.next = !self.nx_sum.val();
        }

        // Age: raw = at - ts, serially.
        self.rl.next = self.at.q.val().get_bit(0) ^ self.tl.q.val().get_bit(0) ^ self.bl.q.val();
        self.rc.next = self.at.q.val().get_bit(0) ^ self.tc.q.val().get_bit(0) ^ self.bc.q.val();
        // Sel: the older valid head.
        self.vl.next = self.hvl.q.val() & !self.tl.q.val().get_bit(39);
        self.vc.next = self.hvc.q.val() & !self.tc.q.val().get_bit(39);
        self.pick_c.next = self.vc.val() & (!self.vl.val() | self.gtc.q.val());

        // Mul, stage 0: the operand bits (qdelay from the chosen head in Mul1, from `at` in Mul2) and
        // the serial subtractions.
        self.qb.next = self.at.q.val().get_bit(0);
        if self.s_mul1.q.val() {
            self.qb.next = (self.use_c.q.val() & self.tc.q.val().get_bit(0))
                | (self.use_l.q.val() & self.tl.q.val().get_bit(0));
        }
        self.qb.next = self.qb.val() & self.w40.q.val();
        self.tb.next = self.tgt.q.val().get_bit(0) & self.w30.q.val();
        self.lb.next = self.lsh.q.val().get_bit(0) & self.w40.q.val();
        // Mul2: bit i of delta is at `mul.delta` in step i + 2; t = delta + 63 (if negative) and
        // bit i - 6 of s = p' + (t >> 6).
        self.m63.next = self.neg.q.val() & self.ge2.q.val() & !self.ge8.q.val();
        self.tbit.next = self.mul.delta.val() ^ self.m63.val() ^ self.ct.q.val();
        self.pk.next = self.pn.q.val().get_bit(0) & self.ge8.q.val() & self.w40.q.val();
        self.sbit.next = self.pk.val() ^ self.tbit.val() ^ self.cs.q.val();
        // The saturated, capped p': MAX / k if above it without drop_overload, else 0 if negative,
        // all ones if above 2^32 - 1, else as is.
        self.capped.next = !self.dol.q.val()
            & !self.sbit.val()
            & ((self.hi_any.q.val() & !self.cones.q.val())
                | (!self.hi_any.q.val() & self.gt.q.val()));
        // Kp: p's bit k rewritten by `mode`, and k x p' serially.
        self.pb.next = self.pn.q.val().get_bit(0);
        if self.mode.q.val().get_bit(1) {
            self.pb.next = true;
            if self.mode.q.val().get_bit(0) {
                self.pb.next = self.capl.q.val().get_bit(0);
            }
        } else if self.mode.q.val().get_bit(0) {
            self.pb.next = false;
        }
        self.kadd.next = 0.into();
        if self.pb.val() {
            self.kadd.next = bit_cast::<9, 8>(self.kl.q.val());
        }
        self.ksum.next = self.kpp.q.val() + self.kadd.val();

        // The shift registers: one shift enable and one bit shifted in each, whatever the pass.
        self.at_sh.next =
            self.s_age.q.val() | ((self.s_mul1.q.val() | self.s_mul2.q.val()) & self.w40.q.val());
        self.at_in.next = self.at.q.val().get_bit(0);
        if self.s_mul1.q.val() {
            self.at_in.next = self.qb.val();
        }
        self.tl_sh.next =
            self.s_age.q.val() | (self.s_mul1.q.val() & self.w40.q.val()) | self.s_kp.q.val();
        self.tl_in.next = self.rl.val();
        if self.s_kp.q.val() {
            self.tl_in.next = self.ksum.val().get_bit(0);
        }
        self.tc_sh.next = self.s_age.q.val() | (self.s_mul1.q.val() & self.w40.q.val());
        self.op_sh.next = self.s_mul1.q.val() | self.s_mul2.q.val();
        self.pn_sh.next = (self.s_mul2.q.val() & self.ge8.q.val() & self.w40.q.val())
            | (self.s_kp.q.val() & self.w32.q.val());
        self.pn_in.next = self.sbit.val();
        if self.s_kp.q.val() {
            self.pn_in.next = self.pb.val();
        }
        self.job_prob.next = !self.busy_r.q.val() & self.prob_we.val();
        self.job_dirty.next = !self.busy_r.q.val() & !self.prob_we.val() & self.dirty.q.val();
        self.commit.next = self.s_com.q.val();
        if self.fire_start.val() {
            self.at.d.next = self.next_val.val();
            self.tl.d.next = self.ts_l.val();
            self.tc.d.next = self.ts_c.val();
            self.tgt.d.next = self.target_ns.val();
            self.capl.d.next = self.cap.val();
        }
        if self.at_sh.val() {
            self.at.d.next =
                (self.at.q.val() >> 1) | (bit_cast::<40, 1>(self.at_in.val().into()) << 39);
        }
        if self.tl_sh.val() {
            self.tl.d.next =
                (self.tl.q.val() >> 1) | (bit_cast::<40, 1>(self.tl_in.val().into()) << 39);
        }
        if self.tc_sh.val() {
            self.tc.d.next =
                (self.tc.q.val() >> 1) | (bit_cast::<40, 1>(self.rc.val().into()) << 39);
        }
        if self.op_sh.val() & self.w30.q.val() {
            self.tgt.d.next = (self.tgt.q.val() >> 1)
                | (bit_cast::<30, 1>(self.tgt.q.val().get_bit(0).into()) << 29);
        }
        if self.op_sh.val() & self.w40.q.val() {
            self.lsh.d.next = (self.lsh.q.val() >> 1)
                | (bit_cast::<40, 1>(self.lsh.q.val().get_bit(0).into()) << 39);
        }
        if self.commit.val() & self.upd.q.val() {
            self.lsh.d.next = self.at.q.val();
        }
        if self.job_prob.val() {
            self.pn.d.next = self.prob_wdata.val();
        }
        if self.pn_sh.val() {
            self.pn.d.next =
                (self.pn.q.val() >> 1) | (bit_cast::<32, 1>(self.pn_in.val().into()) << 31);
            self.capl.d.next = (self.capl.q.val() >> 1)
                | (bit_cast::<32, 1>(self.capl.q.val().get_bit(0).into()) << 31);
        }

        // The passes.
        self.bi.d.next = self.bi.q.val() + 1;
        self.restart.next = !self.busy_r.q.val() | self.into_kp.q.val();
        if !self.busy_r.q.val() {
            self.kl.d.next = self.k.val();
            self.kpp.d.next = 0.into();
            self.mode.d.next = 0.into();
            if self.job_prob.val() | self.job_dirty.val() {
                self.busy_r.d.next = true;
                self.s_kp.d.next = true;
                self.upd.d.next = false;
            }
            if self.job_dirty.val() {
                self.dirty.d.next = self.k_commit.val();
            }
            if self.fire_start.val() {
                // The snapshot (the shift registers' part above).
                self.busy_r.d.next = true;
                self.s_age.d.next = true;
                self.upd.d.next = true;
                self.hvl.d.next = self.hv_l.val();
                self.hvc.d.next = self.hv_c.val();
                self.ga.d.next = self.alpha_i.val();
                self.gb.d.next = self.beta_i.val();
                self.dol.d.next = self.drop_overload.val();
                self.bl.d.next = false;
                self.bc.d.next = false;
                self.gtc.d.next = false;
            }
        }
        if self.s_age.q.val() {
            self.bl.d.next = (!self.at.q.val().get_bit(0) & self.tl.q.val().get_bit(0))
                | (!(self.at.q.val().get_bit(0) ^ self.tl.q.val().get_bit(0)) & self.bl.q.val());
            self.bc.d.next = (!self.at.q.val().get_bit(0) & self.tc.q.val().get_bit(0))
                | (!(self.at.q.val().get_bit(0) ^ self.tc.q.val().get_bit(0)) & self.bc.q.val());
            self.gtc.d.next = (!self.rl.val() & self.rc.val())
                | (!(self.rl.val() ^ self.rc.val()) & self.gtc.q.val());
            if self.e39.q.val() {
                self.s_age.d.next = false;
                self.s_sel.d.next = true;
            }
        }
        self.into_mul.d.next = (self.s_age.q.val() & self.e39.q.val())
            | (self.s_mul1.q.val() & (self.bi.q.val() == self.c_mul_end.val()));
        self.into_kp.d.next = self.s_mul2.q.val() & (self.bi.q.val() == self.c_mul_end.val());
        self.last.next = self.into_mul.q.val();
        // Mul's stages 1 and 2, the multipliers and delta's adder: they run every step of Mul1 and
        // Mul2, and start at 0 in each.
        self.mul.run.next = self.op_sh.val();
        self.mul.clear.next = self.last.val();
        self.mul.q.next = self.qb.val();
        self.mul.t.next = self.tb.val();
        self.mul.o.next = self.lb.val();
        self.mul.a.next = self.ga.q.val();
        self.mul.b.next = self.gb.q.val();
        if self.s_sel.q.val() {
            self.use_c.d.next = self.pick_c.val();
            self.use_l.d.next = self.vl.val() & !self.pick_c.val();
            self.s_sel.d.next = false;
            self.s_mul1.d.next = true;
        }
        if self.s_mul1.q.val() & self.e65.q.val() {
            // delta's sign: bit 63, at `mul.delta` in the last step.
            self.neg.d.next = self.mul.delta.val();
            self.s_mul1.d.next = false;
            self.s_mul2.d.next = true;
        }
        if self.s_mul2.q.val() {
            if self.ge2.q.val() {
                self.ct.d.next = (self.mul.delta.val() & self.m63.val())
                    | ((self.mul.delta.val() ^ self.m63.val()) & self.ct.q.val());
            }
            if self.ge8.q.val() {
                self.cs.d.next = (self.pk.val() & self.tbit.val())
                    | ((self.pk.val() ^ self.tbit.val()) & self.cs.q.val());
                if self.w40.q.val() {
                    // s bits 0-31 go into p' in place (above) and are compared with the cap.
                    self.gt.d.next = (self.sbit.val() & !self.capl.q.val().get_bit(0))
                        | (!(self.sbit.val() ^ self.capl.q.val().get_bit(0)) & self.gt.q.val());
                    self.cones.d.next = self.cones.q.val() & self.capl.q.val().get_bit(0);
                } else {
                    // s bits 32-56; bit 57 (the last step) is the sign.
                    self.hi_any.d.next = self.hi_any.q.val() | self.sbit.val();
                }
            }
            if self.e65.q.val() {
                self.mode.d.next = 0.into();
                if self.capped.val() {
                    self.mode.d.next = 3.into();
                } else if self.sbit.val() {
                    self.mode.d.next = 1.into();
                } else if self.hi_any.q.val() {
                    self.mode.d.next = 2.into();
                }
                self.kpp.d.next = 0.into();
                self.s_mul2.d.next = false;
                self.s_kp.d.next = true;
            }
        }
        if self.s_kp.q.val() {
            self.kpp.d.next = self.ksum.val() >> 1;
            if self.bi.q.val() == 31 {
                self.mode.d.next = 1.into();
            }
            if self.e39.q.val() {
                self.s_kp.d.next = false;
                self.s_com.d.next = true;
            }
        }
        if self.commit.val() {
            self.busy_r.d.next = false;
            self.s_com.d.next = false;
            self.prob_r.d.next = self.pn.q.val();
            self.kp_r.d.next = self.tl.q.val();
            self.ovl_r.d.next = self.tl.q.val().get_bits::<8>(32).any();
            if self.upd.q.val() {
                self.last_r.d.next = self.at.q.val().get_bits::<32>(0);
                if self.at.q.val().get_bits::<8>(32).any() {
                    self.last_r.d.next = self.c_ones32.val();
                }
                self.updates_r.d.next = self.updates_r.q.val() + 1;
            }
        }
        self.e39.d.next = self.bi.q.val() == self.c_age_end.val();
        self.e65.d.next = self.bi.q.val() == self.c_mul_end.val();
        if self.bi.q.val() == 39 {
            self.w40.d.next = false;
        }
        if self.bi.q.val() == 31 {
            self.w32.d.next = false;
        }
        if self.bi.q.val() == 29 {
            self.w30.d.next = false;
        }
        if self.bi.q.val() == 1 {
            self.ge2.d.next = true;
        }
        if self.bi.q.val() == 7 {
            self.ge8.d.next = true;
        }
        if self.restart.val() | self.last.val() {
            self.bi.d.next = 0.into();
            self.w40.d.next = true;
            self.w32.d.next = true;
            self.w30.d.next = true;
            self.ge2.d.next = false;
            self.ge8.d.next = false;
            self.e39.d.next = false;
            self.e65.d.next = false;
        }
        if self.last.val() {
            self.ct.d.next = false;
            self.cs.d.next = false;
            self.gt.d.next = false;
            self.cones.d.next = true;
            self.hi_any.d.next = false;
        }

        self.prob.next = self.prob_r.q.val();
        self.kp.next = self.kp_r.q.val();
        self.overload.next = self.ovl_r.q.val();
        self.last_qdelay.next = self.last_r.q.val();
        self.next_update.next = 0.into();
        if self.armed.q.val() {
            self.next_update.next = self.next_val.val();
        }
        self.updates.next = self.updates_r.q.val();
        self.busy.next = self.busy_r.q.val();
        self.pending.next = self.fire_r.q.val() | self.due.val() | self.dirty.q.val();

        if self.clear_counters.val() {
            self.updates_r.d.next = 0.into();
        }
        if self.rst.val() {
            self.armed.d.next = true;
            self.busy_r.d.next = false;
            self.s_age.d.next = false;
            self.s_sel.d.next = false;
            self.s_mul1.d.next = false;
            self.s_mul2.d.next = false;
            self.s_kp.d.next = false;
            self.s_com.d.next = false;
            self.into_mul.d.next = false;
            self.into_kp.d.next = false;
            self.fire_r.d.next = false;
            self.dirty.d.next = false;
            self.prob_r.d.next = 0.into();
            self.pn.d.next = 0.into();
            self.kp_r.d.next = 0.into();
            self.ovl_r.d.next = false;
            self.last_r.d.next = 0.into();
            self.lsh.d.next = 0.into();
            self.updates_r.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{clock_edge, settle};
    use aqm_golden::dualpi2::consts::{
        coupled_prob, gain_internal, is_overload, prob_cap, MAX_PROB,
    };
    use aqm_golden::dualpi2::controller::update;
    use aqm_golden::dualpi2::params::DualPi2Params as P;
    use aqm_golden::dualpi2::vars::DualPi2Vars;
    use aqm_golden::prng::XorShift64;

    const T40: u64 = (1 << 40) - 1;

    fn cycle(c: &mut DualPi2Controller) {
        settle(c);
        clock_edge(c, |c| &mut c.clock);
    }

    fn params(c: &mut DualPi2Controller, p: &P) {
        c.target_ns.next = p.target_ns().to_bits();
        c.tupdate_ns.next = p.tupdate_ns().to_bits();
        c.alpha_i.next = gain_internal(p.alpha).to_bits();
        c.beta_i.next = gain_internal(p.beta).to_bits();
        c.drop_overload.next = p.drop_overload;
        c.k.next = (p.k as u64).to_bits();
        c.cap.next = (prob_cap(p.k) as u64).to_bits();
    }

    /// Fires an update with the heads aged `age_l` / `age_c` (None = empty) and checks its timing;
    /// returns (p', last_qdelay) after it.
    fn fire(c: &mut DualPi2Controller, age_l: Option<u64>, age_c: Option<u64>) -> (u32, u64) {
        settle(c);
        let at = c.next_update.val().to_u64();
        let updates = c.updates.val().to_u64();
        c.now40.next = at.to_bits();
        c.hv_l.next = age_l.is_some();
        c.ts_l.next = (at.wrapping_sub(age_l.unwrap_or(0)) & T40).to_bits();
        c.hv_c.next = age_c.is_some();
        c.ts_c.next = (at.wrapping_sub(age_c.unwrap_or(0)) & T40).to_bits();
        cycle(c); // due
        settle(c);
        assert!(!c.busy.val() && c.pending.val());
        cycle(c); // the firing cycle
        for k in 1..UPDATE_CYCLES {
            settle(c);
            assert!(c.busy.val(), "busy {k} cycles after firing");
            assert_eq!(c.updates.val().to_u64(), updates, "committed early ({k})");
            clock_edge(c, |c| &mut c.clock);
        }
        settle(c);
        assert!(!c.busy.val());
        assert_eq!(c.updates.val().to_u64(), updates + 1);
        assert_eq!(
            c.next_update.val().to_u64(),
            at + c.tupdate_ns.val().to_u64()
        );
        let last = c.last_qdelay.val().to_u64();
        assert!(last <= u32::MAX as u64);
        (c.prob.val().to_u32(), last)
    }

    /// What LAST_QDELAY reads of a last_qdelay.
    fn sat32(q: u64) -> u64 {
        q.min(u32::MAX as u64)
    }

    fn write_prob(c: &mut DualPi2Controller, p: u32) {
        c.prob_we.next = true;
        c.prob_wdata.next = (p as u64).to_bits();
        cycle(c);
        c.prob_we.next = false;
        for _ in 1..RECOMPUTE_CYCLES {
            settle(c);
            assert!(c.busy.val());
            clock_edge(c, |c| &mut c.clock);
        }
        settle(c);
        assert!(!c.busy.val());
        assert_eq!(c.prob.val().to_u32(), p);
    }

    fn check_kp(c: &DualPi2Controller, p: &P) {
        let prob = c.prob.val().to_u32();
        assert_eq!(c.kp.val().to_u64(), coupled_prob(p.k, prob), "kp");
        assert_eq!(c.overload.val(), is_overload(p.k, prob), "overload");
    }

    fn fresh(p: &P) -> Box<DualPi2Controller> {
        let mut c = Box::<DualPi2Controller>::default();
        c.connect_all();
        params(&mut c, p);
        c.rst.next = true;
        cycle(c.as_mut());
        c.rst.next = false;
        c
    }

    #[test]
    fn the_worked_example_of_the_spec() {
        let p = P::hardware();
        let mut c = fresh(&p);
        let (prob, last) = fire(c.as_mut(), Some(5_000_000), None);
        assert_eq!(prob, 0x03AE_F20B);
        assert_eq!(last, 5_000_000);
        check_kp(&c, &p);
    }

    /// Against the golden update, with edge and random delays, gains, probabilities and caps.
    #[test]
    fn updates_equal_the_specification() {
        let mut rng = XorShift64::new(99).unwrap();
        let mut r = move |n: u64| rng.next_word() % n;
        let delays = [
            0,
            1,
            63,
            64,
            15_000_000,
            16_000_000,
            400_000_000,
            (1 << 39) - 1,
        ];
        let probs = [0, 1, MAX_PROB / 2, MAX_PROB - 1, MAX_PROB];
        for case in 0..24 {
            let p = P {
                target_us: [1, 15_000, 1_000_000][case % 3],
                alpha: [1, 41, 0xF_FFFF][(case / 3) % 3],
                beta: [819, 1, 0xF_FFFF][(case / 9) % 3],
                k: [1, 2, 255][case % 3],
                drop_overload: case % 2 == 0,
                ..P::hardware()
            };
            let mut c = fresh(&p);
            for _ in 0..40 {
                let pick = |r: &mut dyn FnMut(u64) -> u64| {
                    if r(2) == 0 {
                        delays[r(delays.len() as u64) as usize]
                    } else {
                        r(1 << 30)
                    }
                };
                let q0 = pick(&mut r);
                let q1 = pick(&mut r);
                let p0 = if r(2) == 0 {
                    probs[r(probs.len() as u64) as usize]
                } else {
                    r(1 << 32) as u32
                };
                // A first update leaves last_qdelay = q0 (in L or C, the other empty or younger).
                let (_, last) = if r(2) == 0 {
                    fire(&mut c, Some(q0), Some(q0 / 2))
                } else {
                    fire(&mut c, None, Some(q0))
                };
                assert_eq!(last, sat32(q0));
                write_prob(&mut c, p0);
                check_kp(&c, &p);
                let mut v = DualPi2Vars::new(&p);
                v.prob = p0;
                v.last_qdelay = q0;
                update(&mut v, &p, q1);
                let (prob, last) = fire(&mut c, Some(q1 / 3), Some(q1));
                assert_eq!(
                    (prob, last),
                    (v.prob, sat32(q1)),
                    "case {case}: p0 {p0} q0 {q0} q1 {q1}"
                );
                check_kp(&c, &p);
            }
        }
    }

    #[test]
    fn a_k_commit_recomputes_kp_when_idle() {
        let p = P::hardware();
        let mut c = fresh(&p);
        write_prob(&mut c, 3_000_000_000);
        assert!(c.overload.val());
        let p5 = P { k: 1, ..p };
        params(&mut c, &p5);
        c.k_commit.next = true;
        cycle(c.as_mut());
        c.k_commit.next = false;
        settle(c.as_mut());
        assert!(c.pending.val());
        cycle(c.as_mut()); // starts the recompute
        for _ in 1..RECOMPUTE_CYCLES {
            cycle(c.as_mut());
        }
        settle(c.as_mut());
        check_kp(&c, &p5);
        assert!(!c.overload.val());
    }
}
