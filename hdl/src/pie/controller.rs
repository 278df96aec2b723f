//! PIE's PI controller (spec/pie.md, "Controller"), bit-serial.
//!
//! The update runs every 15 ms or so and may take hundreds of cycles, so it is computed one bit per
//! clock, least significant first, on shift registers: every adder but three short ones is a one-bit
//! full adder, no operand is picked out of a word by a wide multiplexer, and no carry chain is longer
//! than 22 bits (the HX8K has no multipliers). An update fires when `now` reaches `next_update` (500 ms
//! after reset, then `tupdate` after each firing), snapshots its inputs, and runs these passes:
//!
//! ```text
//! Scale  68  prob < 10 %, 1 %, ... 0.0001 % (step 3's levels, six serial comparisons against constant
//!            bit streams); qdelay == 0, qdelay_old == 0, qdelay > 250 ms, qdelay < target/2,
//!            qdelay_old < target/2; and at once the gains alpha x K and beta x K (step 3), serially
//!            (K is a constant bit stream, alpha a 6-bit parallel operand), kept from bit 4 on; then
//!            shifted right by the auto-scaling's 0 ... 11 more bits
//! Mul1   66  d1 = qdelay - target and d2 = qdelay - qdelay_old (64-bit two's complement, serially),
//!            straight into two carry-save serial x parallel multipliers by alpha_i and beta_i (34
//!            bits each); delta = alpha_i d1 + beta_i d2 mod 2^64 comes out one bit per cycle two
//!            cycles later (step 4); delta > 2 % (signed)
//! Mul2   66  delta again: the cap at 2 % (step 5), + 2 % above 250 ms (step 6), prob + delta in place
//!            in prob's working copy, 65-bit signed, and whether it saturates (step 7)
//! Decay  56  prob saturated, - prob >> 6 when due (step 8), in place; the flags prob < 20 % and prob
//!            <= 10 % that the ingress uses, and prob == 0 for step 9; prob also into the quotient
//!            register, which shifts right here
//! Div    56  prob / MTU for bytemode, restoring division: the quotient register shifts left, prob's
//!            most significant bit out into the 11-bit remainder, the quotient bit in
//! Commit  1  prob, prob / MTU, the flags and qdelay_old land together; a new measurement cycle
//!            (step 9) strobes `burst_reset` to the egress (burst allowance) and ingress (accumulator)
//! ```
//! The commit happens in the [`UPDATE_CYCLES`]th cycle after the firing cycle. A register write to prob
//! or to the MTU runs Decay (without decay, for the flags) and Div alone ([`RECOMPUTE_CYCLES`]). Prob
//! writes are only taken while the controller is idle; the register file rejects them otherwise.
//!
//! The working copy of prob (`pw`) equals `prob` whenever the controller is idle (it is loaded at the
//! commit and reset together), so a job needs no load from it; qdelay_old is kept only in a register
//! that the passes rotate (it is read nowhere else). `next_update` is kept inverted, so that the `due`
//! comparison adds it to now without an inverter in front of its carry chain; its 40-bit adder and the
//! comparison are split into 22 + 18 bits with the upper part computed for both carries (carry select).

use crate::konst::K;
use crate::serial_delta::SerialDelta;
use aqm_golden::pie::consts::{
    FIRST_UPDATE_NS, GAIN_K, PROB_10PCT, PROB_20PCT, PROB_2PCT, QDELAY_BOOST_TICKS, SCALE_LEVELS,
};
use rust_hdl::prelude::*;

/// The controller's timing, defined once with the golden model (hdl/PIE-CORE.md).
pub use aqm_golden::pie::consts::{RECOMPUTE_CYCLES, UPDATE_CYCLES};

/// Steps of the passes: Scale over prob's 56 bits, then 11 for the gains' auto-scaling; Mul over 64
/// bits of delta plus the two pipeline stages in front of it (operand bits, multiplier); Decay and Div
/// over prob's 56 bits.
const SCALE_STEPS: u64 = 68;
const MUL_STEPS: u64 = 66;
const DEC_STEPS: u64 = 56;
const DIV_STEPS: u64 = 56;
const _: () = assert!(UPDATE_CYCLES == SCALE_STEPS + 2 * MUL_STEPS + DEC_STEPS + DIV_STEPS + 1);
const _: () = assert!(RECOMPUTE_CYCLES == DEC_STEPS + DIV_STEPS + 1);
// The pass ends and windows below are written for these lengths.
const _: () = assert!(SCALE_STEPS == 68 && MUL_STEPS == 66 && DEC_STEPS == 56 && DIV_STEPS == 56);

#[derive(LogicBlock, Default)]
pub struct PieController {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now: Signal<In, Bits<64>>, // ns
    // Inputs sampled when an update fires.
    pub qdelay: Signal<In, Bits<34>>, // ticks, the latest dequeue sample
    pub backlog: Signal<In, Bits<32>>, // bytes
    pub target: Signal<In, Bits<24>>, // ticks
    pub target_half: Signal<In, Bits<24>>, // ticks
    pub alpha: Signal<In, Bits<6>>,   // 1/16 Hz
    pub beta: Signal<In, Bits<6>>,    // 1/16 Hz
    pub tupdate: Signal<In, Bits<32>>, // ns
    pub mtu: Signal<In, Bits<16>>,    // bytes
    // Register writes.
    pub prob_we: Signal<In, Bit>,
    pub prob_wdata: Signal<In, Bits<56>>,
    pub mtu_we: Signal<In, Bit>,
    // State.
    pub prob: Signal<Out, Bits<56>>, // 2^56 - 1 = 100 %
    pub ppb: Signal<Out, Bits<56>>,  // prob / mtu
    pub prob_lt20: Signal<Out, Bit>,
    pub prob_le10: Signal<Out, Bit>,
    /// ticks; valid while idle (the passes rotate it).
    pub qdelay_old: Signal<Out, Bits<34>>,
    pub next_update: Signal<Out, Bits<40>>, // ns, low 40 bits
    /// An update or a recomputation is running.
    pub busy: Signal<Out, Bit>,
    /// Work is due: an update (now >= next_update) or a recomputation.
    pub pending: Signal<Out, Bit>,
    /// Strobe: this update started a new measurement cycle (refill burst, clear accumulator).
    pub burst_reset: Signal<Out, Bit>,

    // The pass running, one-hot (none while idle), and `busy_r` = any of them.
    busy_r: DFF<Bit>,
    s_scale: DFF<Bit>,
    s_mul1: DFF<Bit>,
    s_mul2: DFF<Bit>,
    s_dec: DFF<Bit>,
    s_div: DFF<Bit>,
    s_com: DFF<Bit>,
    /// The step within a pass, and windows of it (registered: set or cleared at a pass's start and
    /// flipped by an equality on the step, so that no comparison sits in front of the datapath).
    bi: DFF<Bits<7>>,
    w56: DFF<Bit>,  // bi < 56
    w50: DFF<Bit>,  // bi < 50
    w39: DFF<Bit>,  // bi < 39
    w34: DFF<Bit>,  // bi < 34
    w24: DFF<Bit>,  // bi < 24
    ge2: DFF<Bit>,  // bi >= 2
    ge57: DFF<Bit>, // bi >= 57
    ge58: DFF<Bit>, // bi >= 58
    at56: DFF<Bit>, // bi == 56
    e55: DFF<Bit>,  // bi == 55, the last step of Div
    /// Registered pass starts (high in the last step of the pass before): into Mul1 or Mul2, into
    /// Decay (from Mul2), into Div.
    into_mul: DFF<Bit>,
    into_dec: DFF<Bit>,
    into_div: DFF<Bit>,
    /// The job is an update (not a recompute).
    upd: DFF<Bit>,
    prob_r: DFF<Bits<56>>,
    ppb_r: DFF<Bits<56>>,
    lt20_r: DFF<Bit>,
    le10_r: DFF<Bit>,
    /// next_update, inverted; `armed` is set by the first reset (before it next_update is 0, as at
    /// power-on).
    nn: DFF<Bits<40>>,
    armed: DFF<Bit>,
    dirty: DFF<Bit>,
    fire_r: DFF<Bit>,
    // The snapshot of an update (qdelay, target, target / 2 rotate through the passes).
    qd: DFF<Bits<34>>,
    qold: DFF<Bits<34>>,
    tgt: DFF<Bits<24>>,
    th: DFF<Bits<24>>,
    al: DFF<Bits<6>>,
    be: DFF<Bits<6>>,
    bnz: DFF<Bit>,
    /// The MTU of the job's start, inverted (the divider adds it and 1).
    mtun: DFF<Bits<12>>,
    /// prob (working copy, see the module docs), the quotient, the remainder.
    pw: DFF<Bits<56>>,
    quo: DFF<Bits<56>>,
    rem: DFF<Bits<11>>,
    // Scale: prob < the six levels (borrows), qdelay != 0, qdelay_old != 0, qdelay > 250 ms,
    // qdelay < target/2, qdelay_old < target/2.
    b0: DFF<Bit>,
    b1: DFF<Bit>,
    b2: DFF<Bit>,
    b3: DFF<Bit>,
    b4: DFF<Bit>,
    b5: DFF<Bit>,
    qnz: DFF<Bit>,
    onz: DFF<Bit>,
    boost: DFF<Bit>,
    qlt: DFF<Bit>,
    qolt: DFF<Bit>,
    /// `burst_reset` a cycle ahead: set in Div's last step from the flags Commit reads (nothing
    /// changes them in between), so that the strobe leaves a flip-flop.
    br: DFF<Bit>,
    // The gains: K's bit of the step before, the serial sums of alpha x K and beta x K, the gains
    // (34 bits: (32 x K) >> 4 < 2^34), the auto-scaling shifts left to do.
    kb: DFF<Bit>,
    acc_a: DFF<Bits<6>>,
    acc_b: DFF<Bits<6>>,
    ga: DFF<Bits<34>>,
    gb: DFF<Bits<34>>,
    shc: DFF<Bits<4>>,
    /// Mul: delta = alpha_i d1 + beta_i d2, bit-serially (34-bit gains).
    mul: SerialDelta<34, 33>,
    /// 2 %'s bit of the step before.
    c2b: DFF<Bit>,
    // Mul1: delta > 2 % (unsigned borrow), the cap (step 5). Mul2: the carries of delta' and of
    // prob + delta', any of the sum's bits 56-63, its sign (negative) and whether it is above 100 %.
    gt2: DFF<Bit>,
    cap: DFF<Bit>,
    c1: DFF<Bit>,
    c2: DFF<Bit>,
    anyhi: DFF<Bit>,
    neg: DFF<Bit>,
    over: DFF<Bit>,
    /// Step 8 applies to this update.
    dec: DFF<Bit>,
    // Decay: the borrow of prob - prob >> 6, prob < 20 %, 10 % < prob, prob != 0.
    brd: DFF<Bit>,
    b20: DFF<Bit>,
    b10: DFF<Bit>,
    nz: DFF<Bit>,
    // Combinational helpers.
    now40: Signal<Local, Bits<40>>,
    next_val: Signal<Local, Bits<40>>,
    due_lo: Signal<Local, Bits<24>>,
    due_h0: Signal<Local, Bits<19>>,
    due_h1: Signal<Local, Bits<18>>,
    due: Signal<Local, Bit>,
    nx_y: Signal<Local, Bits<32>>,
    nx_lo: Signal<Local, Bits<23>>,
    nx_h0: Signal<Local, Bits<18>>,
    nx_h1: Signal<Local, Bits<19>>,
    nx_sum: Signal<Local, Bits<40>>,
    job_prob: Signal<Local, Bit>,
    job_fire: Signal<Local, Bit>,
    job_dirty: Signal<Local, Bit>,
    restart: Signal<Local, Bit>,
    rot: Signal<Local, Bit>,
    i6: Signal<Local, Bits<6>>,
    pb: Signal<Local, Bit>,
    qb: Signal<Local, Bit>,
    ob: Signal<Local, Bit>,
    tb: Signal<Local, Bit>,
    hb: Signal<Local, Bit>,
    asum: Signal<Local, Bits<7>>,
    bsum: Signal<Local, Bits<7>>,
    aadd: Signal<Local, Bits<7>>,
    badd: Signal<Local, Bits<7>>,
    sh: Signal<Local, Bits<4>>,
    g_sh: Signal<Local, Bit>,
    g_in_a: Signal<Local, Bit>,
    g_in_b: Signal<Local, Bit>,
    gt2_next: Signal<Local, Bit>,
    dx: Signal<Local, Bit>,
    dy: Signal<Local, Bit>,
    d3: Signal<Local, Bit>,
    sp: Signal<Local, Bit>,
    ssum: Signal<Local, Bit>,
    neg_next: Signal<Local, Bit>,
    over_next: Signal<Local, Bit>,
    p1: Signal<Local, Bit>,
    tap: Signal<Local, Bit>,
    p2: Signal<Local, Bit>,
    pw_sh: Signal<Local, Bit>,
    pw_in: Signal<Local, Bit>,
    rr: Signal<Local, Bits<12>>,
    dsum: Signal<Local, Bits<14>>,
    ge: Signal<Local, Bit>,
    k_gain: K<64, GAIN_K>,
    lvl0: K<64, PROB_10PCT>,
    lvl1: K<64, { SCALE_LEVELS[0] }>,
    lvl2: K<64, { SCALE_LEVELS[1] }>,
    lvl3: K<64, { SCALE_LEVELS[2] }>,
    lvl4: K<64, { SCALE_LEVELS[3] }>,
    lvl5: K<64, { SCALE_LEVELS[4] }>,
    boost_ticks: K<64, QDELAY_BOOST_TICKS>,
    /// 2 % one bit up: its bit of a step is registered and used in the next one.
    prob_2pct_up: K<64, { PROB_2PCT << 1 }>,
    prob_10pct: K<64, PROB_10PCT>,
    prob_20pct: K<64, PROB_20PCT>,
    first_update: K<32, FIRST_UPDATE_NS>,
}

impl Logic for PieController {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy_r, s_scale, s_mul1, s_mul2, s_dec, s_div, s_com, bi, w56, w50, w39,
            w34, w24, ge2, ge57, ge58, at56, e55, into_mul, into_dec, into_div, upd, prob_r, ppb_r,
            lt20_r, le10_r, nn, armed, dirty, fire_r, qd, qold, tgt, th, al, be, bnz, mtun, pw,
            quo, rem, b0, b1, b2, b3, b4, b5, qnz, onz, boost, qlt, qolt, kb, acc_a, acc_b, ga, gb,
            shc, c2b, gt2, cap, c1, c2, anyhi, neg, over, dec, brd, b20, b10, nz, br
        );
        clock!(self, clock, mul);
        self.now40.next = self.now.val().get_bits::<40>(0);
        // due = reached(now40, next_update): bit 39 of now40 + nn + 1, the upper 18 bits computed for
        // both carries out of the lower 22 (carry select). Each "+ 1" is a ones bit appended below both
        // operands (a constant carry into the chain costs a logic level on this part). Before the
        // first reset nn is 0 and this compares with 2^40 - 1: `pending` uses next_update's 0 then.
        self.next_val.next = !self.nn.q.val();
        self.due_lo.next =
            bit_cast::<24, 23>((bit_cast::<23, 22>(self.now40.val().get_bits::<22>(0)) << 1) | 1)
                + bit_cast::<24, 23>(
                    (bit_cast::<23, 22>(self.nn.q.val().get_bits::<22>(0)) << 1) | 1,
                );
        self.due_h0.next = ((bit_cast::<19, 18>(self.now40.val().get_bits::<18>(22)) << 1) | 1)
            + ((bit_cast::<19, 18>(self.nn.q.val().get_bits::<18>(22)) << 1) | 1);
        self.due_h1.next = self.now40.val().get_bits::<18>(22) + self.nn.q.val().get_bits::<18>(22);
        self.due.next = !self.due_h1.val().get_bit(17);
        if self.due_lo.val().get_bit(23) {
            self.due.next = !self.due_h0.val().get_bit(18);
        }
        // next_update = now40 + tupdate (a firing) or + FIRST_UPDATE_NS (reset), carry select.
        self.nx_y.next = self.tupdate.val();
        if self.rst.val() {
            self.nx_y.next = self.first_update.val();
        }
        self.nx_lo.next = bit_cast::<23, 22>(self.now40.val().get_bits::<22>(0))
            + bit_cast::<23, 22>(self.nx_y.val().get_bits::<22>(0));
        self.nx_h0.next = self.now40.val().get_bits::<18>(22)
            + bit_cast::<18, 10>(self.nx_y.val().get_bits::<10>(22));
        self.nx_h1.next = ((bit_cast::<19, 18>(self.now40.val().get_bits::<18>(22)) << 1) | 1)
            + ((bit_cast::<19, 10>(self.nx_y.val().get_bits::<10>(22)) << 1) | 1);
        self.nx_sum.next = (bit_cast::<40, 18>(self.nx_h0.val()) << 22)
            | bit_cast::<40, 22>(self.nx_lo.val().get_bits::<22>(0));
        if self.nx_lo.val().get_bit(22) {
            self.nx_sum.next = (bit_cast::<40, 18>(self.nx_h1.val().get_bits::<18>(1)) << 22)
                | bit_cast::<40, 22>(self.nx_lo.val().get_bits::<22>(0));
        }
        // fire = due of the cycle before; the jobs in priority order.
        self.fire_r.d.next = self.due.val();
        self.job_prob.next = !self.busy_r.q.val() & self.prob_we.val();
        self.job_fire.next = !self.busy_r.q.val() & !self.prob_we.val() & self.fire_r.q.val();
        self.job_dirty.next =
            !self.busy_r.q.val() & !self.prob_we.val() & !self.fire_r.q.val() & self.dirty.q.val();
        if self.rst.val() | self.job_fire.val() {
            self.nn.d.next = !self.nx_sum.val();
        }

        // The step counter and its windows.
        self.restart.next = !self.busy_r.q.val()
            | self.into_mul.q.val()
            | self.into_dec.q.val()
            | self.into_div.q.val();
        self.bi.d.next = self.bi.q.val() + 1;
        if self.bi.q.val() == 55 {
            self.w56.d.next = false;
        }
        if self.bi.q.val() == 49 {
            self.w50.d.next = false;
        }
        if self.bi.q.val() == 38 {
            self.w39.d.next = false;
        }
        if self.bi.q.val() == 33 {
            self.w34.d.next = false;
        }
        if self.bi.q.val() == 23 {
            self.w24.d.next = false;
        }
        if self.bi.q.val() == 1 {
            self.ge2.d.next = true;
        }
        if self.bi.q.val() == 56 {
            self.ge57.d.next = true;
        }
        if self.bi.q.val() == 57 {
            self.ge58.d.next = true;
        }
        self.at56.d.next = self.bi.q.val() == 55;
        self.e55.d.next = self.bi.q.val() == 54;
        self.into_mul.d.next = (self.s_scale.q.val() & (self.bi.q.val() == 66))
            | (self.s_mul1.q.val() & (self.bi.q.val() == 64));
        self.into_dec.d.next = self.s_mul2.q.val() & (self.bi.q.val() == 64);
        self.into_div.d.next = self.s_dec.q.val() & (self.bi.q.val() == 54);
        if self.restart.val() {
            self.bi.d.next = 0.into();
            self.w56.d.next = true;
            self.w50.d.next = true;
            self.w39.d.next = true;
            self.w34.d.next = true;
            self.w24.d.next = true;
            self.ge2.d.next = false;
            self.ge57.d.next = false;
            self.ge58.d.next = false;
            self.at56.d.next = false;
            self.e55.d.next = false;
            self.into_mul.d.next = false;
            self.into_dec.d.next = false;
            self.into_div.d.next = false;
        }
        self.i6.next = self.bi.q.val().get_bits::<6>(0);

        // Operand bits: prob, qdelay, qdelay_old (34 bits), target and target / 2 (24 bits), each 0 once
        // its register has gone round.
        self.pb.next = self.pw.q.val().get_bit(0);
        self.qb.next = self.qd.q.val().get_bit(0) & self.w34.q.val();
        self.ob.next = self.qold.q.val().get_bit(0) & self.w34.q.val();
        self.tb.next = self.tgt.q.val().get_bit(0) & self.w24.q.val();
        self.hb.next = self.th.q.val().get_bit(0) & self.w24.q.val();
        self.rot.next = self.s_scale.q.val() | self.s_mul1.q.val() | self.s_mul2.q.val();
        if self.rot.val() & self.w34.q.val() {
            self.qd.d.next = (self.qd.q.val() >> 1)
                | (bit_cast::<34, 1>(self.qd.q.val().get_bit(0).into()) << 33);
            self.qold.d.next = (self.qold.q.val() >> 1)
                | (bit_cast::<34, 1>(self.qold.q.val().get_bit(0).into()) << 33);
        }
        if self.rot.val() & self.w24.q.val() {
            self.tgt.d.next = (self.tgt.q.val() >> 1)
                | (bit_cast::<24, 1>(self.tgt.q.val().get_bit(0).into()) << 23);
            self.th.d.next = (self.th.q.val() >> 1)
                | (bit_cast::<24, 1>(self.th.q.val().get_bit(0).into()) << 23);
        }

        // Scale: the serial comparisons (a borrow each, least significant bit first).
        if self.s_scale.q.val() & self.w56.q.val() {
            self.b0.d.next = (!self.pb.val() & self.lvl0.val().get_bit(self.i6.val().index()))
                | (!(self.pb.val() ^ self.lvl0.val().get_bit(self.i6.val().index()))
                    & self.b0.q.val());
            self.b1.d.next = (!self.pb.val() & self.lvl1.val().get_bit(self.i6.val().index()))
                | (!(self.pb.val() ^ self.lvl1.val().get_bit(self.i6.val().index()))
                    & self.b1.q.val());
            self.b2.d.next = (!self.pb.val() & self.lvl2.val().get_bit(self.i6.val().index()))
                | (!(self.pb.val() ^ self.lvl2.val().get_bit(self.i6.val().index()))
                    & self.b2.q.val());
            self.b3.d.next = (!self.pb.val() & self.lvl3.val().get_bit(self.i6.val().index()))
                | (!(self.pb.val() ^ self.lvl3.val().get_bit(self.i6.val().index()))
                    & self.b3.q.val());
            self.b4.d.next = (!self.pb.val() & self.lvl4.val().get_bit(self.i6.val().index()))
                | (!(self.pb.val() ^ self.lvl4.val().get_bit(self.i6.val().index()))
                    & self.b4.q.val());
            self.b5.d.next = (!self.pb.val() & self.lvl5.val().get_bit(self.i6.val().index()))
                | (!(self.pb.val() ^ self.lvl5.val().get_bit(self.i6.val().index()))
                    & self.b5.q.val());
        }
        if self.s_scale.q.val() & self.w34.q.val() {
            self.qnz.d.next = self.qnz.q.val() | self.qb.val();
            self.onz.d.next = self.onz.q.val() | self.ob.val();
            self.boost.d.next = (!self.boost_ticks.val().get_bit(self.i6.val().index())
                & self.qb.val())
                | (!(self.boost_ticks.val().get_bit(self.i6.val().index()) ^ self.qb.val())
                    & self.boost.q.val());
            self.qlt.d.next = (!self.qb.val() & self.hb.val())
                | (!(self.qb.val() ^ self.hb.val()) & self.qlt.q.val());
            self.qolt.d.next = (!self.ob.val() & self.hb.val())
                | (!(self.ob.val() ^ self.hb.val()) & self.qolt.q.val());
        }
        // The gains: bit j - 1 of alpha x K out of the serial sum at step j (K's bit a step late),
        // kept from bit 4 on (39 shifts of a 34-bit register), then shifted right by 1 + 2 per level
        // below which prob lies, if below 10 % (steps 57-67).
        self.kb.d.next = self.k_gain.val().get_bit(self.i6.val().index());
        self.aadd.next = 0.into();
        self.badd.next = 0.into();
        if self.kb.q.val() {
            self.aadd.next = bit_cast::<7, 6>(self.al.q.val());
            self.badd.next = bit_cast::<7, 6>(self.be.q.val());
        }
        self.asum.next = bit_cast::<7, 6>(self.acc_a.q.val()) + self.aadd.val();
        self.bsum.next = bit_cast::<7, 6>(self.acc_b.q.val()) + self.badd.val();
        if self.s_scale.q.val() {
            self.acc_a.d.next = self.asum.val().get_bits::<6>(1);
            self.acc_b.d.next = self.bsum.val().get_bits::<6>(1);
        }
        self.sh.next = 0.into();
        if self.b0.q.val() {
            self.sh.next = bit_cast::<4, 1>(self.b0.q.val().into())
                + (bit_cast::<4, 1>(self.b1.q.val().into()) << 1)
                + (bit_cast::<4, 1>(self.b2.q.val().into()) << 1)
                + (bit_cast::<4, 1>(self.b3.q.val().into()) << 1)
                + (bit_cast::<4, 1>(self.b4.q.val().into()) << 1)
                + (bit_cast::<4, 1>(self.b5.q.val().into()) << 1);
        }
        if self.s_scale.q.val() & self.at56.q.val() {
            self.shc.d.next = self.sh.val();
        }
        self.g_sh.next = self.s_scale.q.val()
            & (self.w39.q.val() | (self.ge57.q.val() & self.shc.q.val().any()));
        self.g_in_a.next = self.w39.q.val() & self.asum.val().get_bit(0);
        self.g_in_b.next = self.w39.q.val() & self.bsum.val().get_bit(0);
        if self.g_sh.val() {
            self.ga.d.next =
                (self.ga.q.val() >> 1) | (bit_cast::<34, 1>(self.g_in_a.val().into()) << 33);
            self.gb.d.next =
                (self.gb.q.val() >> 1) | (bit_cast::<34, 1>(self.g_in_b.val().into()) << 33);
        }
        if self.s_scale.q.val() & self.ge57.q.val() & self.shc.q.val().any() {
            self.shc.d.next = self.shc.q.val() - 1;
        }

        // Mul: delta = alpha_i (qdelay - target) + beta_i (qdelay - qdelay_old), bit-serially; every
        // carry and the multipliers start at 0 in each Mul pass.
        self.mul.run.next = self.s_mul1.q.val() | self.s_mul2.q.val();
        self.mul.clear.next = self.into_mul.q.val();
        self.mul.q.next = self.qb.val();
        self.mul.t.next = self.tb.val();
        self.mul.o.next = self.ob.val();
        self.mul.a.next = self.ga.q.val();
        self.mul.b.next = self.gb.q.val();
        // Bit i of delta is at `mul.delta` in step i + 2, with bit i of 2 % in `c2b`.
        self.c2b.d.next = self.prob_2pct_up.val().get_bit(self.i6.val().index());
        // Mul1: delta > 2 % (unsigned); step 5 caps a positive delta above 2 % while prob >= 10 %.
        self.gt2_next.next = (!self.c2b.q.val() & self.mul.delta.val())
            | (!(self.c2b.q.val() ^ self.mul.delta.val()) & self.gt2.q.val());
        if self.s_mul1.q.val() & self.ge2.q.val() {
            self.gt2.d.next = self.gt2_next.val();
        }
        if self.s_mul1.q.val() & self.into_mul.q.val() {
            self.cap.d.next = !self.mul.delta.val() & self.gt2_next.val() & !self.b0.q.val();
        }
        // Mul2: delta' = (2 % if capped, else delta) + 2 % above 250 ms (step 6, mod 2^64), then
        // prob + delta' (65-bit signed) into prob in place (bits 0-55), bits 56-63 any, the sign.
        self.dx.next = self.mul.delta.val();
        if self.cap.q.val() {
            self.dx.next = self.c2b.q.val();
        }
        self.dy.next = self.boost.q.val() & self.c2b.q.val();
        self.d3.next = self.dx.val() ^ self.dy.val() ^ self.c1.q.val();
        self.sp.next = self.pb.val() & self.ge2.q.val() & !self.ge58.q.val();
        self.ssum.next = self.sp.val() ^ self.d3.val() ^ self.c2.q.val();
        self.neg_next.next = self.d3.val() & !self.c2.q.val();
        self.over_next.next = !self.neg_next.val() & (self.anyhi.q.val() | self.ssum.val());
        if self.s_mul2.q.val() & self.ge2.q.val() {
            self.c1.d.next = (self.dx.val() & self.dy.val())
                | (self.dx.val() & self.c1.q.val())
                | (self.dy.val() & self.c1.q.val());
            self.c2.d.next = (self.sp.val() & self.d3.val())
                | (self.sp.val() & self.c2.q.val())
                | (self.d3.val() & self.c2.q.val());
            if self.ge58.q.val() {
                self.anyhi.d.next = self.anyhi.q.val() | self.ssum.val();
            }
        }
        if self.into_dec.q.val() {
            // The last step of Mul2 (bit 63): saturation (step 7) and whether step 8 applies.
            self.neg.d.next = self.neg_next.val();
            self.over.d.next = self.over_next.val();
            self.dec.d.next = self.upd.q.val()
                & !self.qnz.q.val()
                & !self.onz.q.val()
                & !self.bnz.q.val()
                & !self.over_next.val();
        }

        // Decay: p = prob saturated to [0, 100 %]; p - p >> 6 if step 8 applies (bit i + 6 is at
        // place 6 of prob's register while it shifts); the flags.
        self.p1.next = self.over.q.val() | (!self.neg.q.val() & self.pb.val());
        self.tap.next =
            self.dec.q.val() & self.w50.q.val() & !self.neg.q.val() & self.pw.q.val().get_bit(6);
        self.p2.next = self.p1.val() ^ self.tap.val() ^ self.brd.q.val();
        if self.s_dec.q.val() {
            self.brd.d.next = (!self.p1.val() & self.tap.val())
                | (!(self.p1.val() ^ self.tap.val()) & self.brd.q.val());
            self.b20.d.next = (!self.p2.val()
                & self.prob_20pct.val().get_bit(self.i6.val().index()))
                | (!(self.p2.val() ^ self.prob_20pct.val().get_bit(self.i6.val().index()))
                    & self.b20.q.val());
            self.b10.d.next = (!self.prob_10pct.val().get_bit(self.i6.val().index())
                & self.p2.val())
                | (!(self.prob_10pct.val().get_bit(self.i6.val().index()) ^ self.p2.val())
                    & self.b10.q.val());
            self.nz.d.next = self.nz.q.val() | self.p2.val();
            self.quo.d.next =
                (self.quo.q.val() >> 1) | (bit_cast::<56, 1>(self.p2.val().into()) << 55);
        }
        // prob's working copy: loaded by a PROB write, shifted by Scale (rotation), Mul2 and Decay.
        self.pw_sh.next = (self.s_scale.q.val() & self.w56.q.val())
            | (self.s_mul2.q.val() & self.ge2.q.val() & !self.ge58.q.val())
            | self.s_dec.q.val();
        self.pw_in.next = self.p2.val();
        if self.s_scale.q.val() {
            self.pw_in.next = self.pb.val();
        }
        if self.s_mul2.q.val() {
            self.pw_in.next = self.ssum.val();
        }
        if self.job_prob.val() {
            self.pw.d.next = self.prob_wdata.val();
        }
        if self.pw_sh.val() {
            self.pw.d.next =
                (self.pw.q.val() >> 1) | (bit_cast::<56, 1>(self.pw_in.val().into()) << 55);
        }

        // Div: prob / MTU, bit 55 - i of prob into the remainder at step i; rr - mtu is rr + mtun + 1.
        self.rr.next = (bit_cast::<12, 11>(self.rem.q.val()) << 1)
            | bit_cast::<12, 1>(self.quo.q.val().get_bit(55).into());
        self.dsum.next = bit_cast::<14, 13>((bit_cast::<13, 12>(self.rr.val()) << 1) | 1)
            + bit_cast::<14, 13>((bit_cast::<13, 12>(self.mtun.q.val()) << 1) | 1);
        self.ge.next = self.dsum.val().get_bit(13);
        if self.s_div.q.val() {
            self.rem.d.next = self.rr.val().get_bits::<11>(0);
            if self.ge.val() {
                self.rem.d.next = self.dsum.val().get_bits::<11>(1);
            }
            self.quo.d.next = (self.quo.q.val() << 1) | bit_cast::<56, 1>(self.ge.val().into());
        }

        // The passes.
        // From a flip-flop, also in a reset cycle: the ingress and the egress reset what it clears or
        // reloads at the same edge anyway. The reset, a late net with a large fanout, stays off the
        // path to the accumulator's enable (the PIE card's critical path until 2026-12-06), and so
        // does the AND of the flags (from `ctrl.qlt` to the accumulator's enable, 2.4 ns short of a
        // 12 ns clock on the card, 2026-12-07).
        self.burst_reset.next = self.br.q.val();
        if self.job_prob.val() | self.job_dirty.val() | self.job_fire.val() {
            self.busy_r.d.next = true;
            self.mtun.d.next = !self.mtu.val().get_bits::<12>(0);
            self.neg.d.next = false;
            self.over.d.next = false;
            self.dec.d.next = false;
        }
        if self.job_prob.val() | self.job_dirty.val() {
            self.s_dec.d.next = true;
            self.upd.d.next = false;
            self.dirty.d.next = false;
        }
        if self.job_fire.val() {
            // The snapshot.
            self.s_scale.d.next = true;
            self.upd.d.next = true;
            self.dirty.d.next = false;
            self.qd.d.next = self.qdelay.val();
            self.tgt.d.next = self.target.val();
            self.th.d.next = self.target_half.val();
            self.al.d.next = self.alpha.val();
            self.be.d.next = self.beta.val();
            self.bnz.d.next = self.backlog.val().any();
            self.b0.d.next = false;
            self.b1.d.next = false;
            self.b2.d.next = false;
            self.b3.d.next = false;
            self.b4.d.next = false;
            self.b5.d.next = false;
            self.qnz.d.next = false;
            self.onz.d.next = false;
            self.boost.d.next = false;
            self.qlt.d.next = false;
            self.qolt.d.next = false;
            self.kb.d.next = false;
            self.acc_a.d.next = 0.into();
            self.acc_b.d.next = 0.into();
        }
        if self.s_scale.q.val() & self.into_mul.q.val() {
            self.s_scale.d.next = false;
            self.s_mul1.d.next = true;
        }
        if self.s_mul1.q.val() & self.into_mul.q.val() {
            self.s_mul1.d.next = false;
            self.s_mul2.d.next = true;
        }
        if self.into_mul.q.val() {
            // Into a Mul pass: the multipliers and every serial carry start at 0.
            self.gt2.d.next = false;
            self.c1.d.next = false;
            self.c2.d.next = false;
            self.anyhi.d.next = false;
        }
        if self.into_dec.q.val() {
            self.s_mul2.d.next = false;
            self.s_dec.d.next = true;
        }
        if self.into_dec.q.val() | self.job_prob.val() | self.job_dirty.val() {
            self.brd.d.next = false;
            self.b20.d.next = false;
            self.b10.d.next = false;
            self.nz.d.next = false;
        }
        if self.into_div.q.val() {
            self.s_dec.d.next = false;
            self.s_div.d.next = true;
            self.rem.d.next = 0.into();
        }
        self.br.d.next = false;
        if self.s_div.q.val() & self.e55.q.val() {
            self.s_div.d.next = false;
            self.s_com.d.next = true;
            // A new measurement cycle (step 9), strobed at the commit.
            self.br.d.next =
                self.upd.q.val() & self.qlt.q.val() & self.qolt.q.val() & !self.nz.q.val();
        }
        if self.s_com.q.val() {
            self.busy_r.d.next = false;
            self.s_com.d.next = false;
            self.prob_r.d.next = self.pw.q.val();
            self.ppb_r.d.next = self.quo.q.val();
            self.lt20_r.d.next = self.b20.q.val();
            self.le10_r.d.next = !self.b10.q.val();
            if self.upd.q.val() {
                self.qold.d.next = self.qd.q.val();
            }
        }
        if self.mtu_we.val() {
            self.dirty.d.next = true;
        }

        self.prob.next = self.prob_r.q.val();
        self.ppb.next = self.ppb_r.q.val();
        self.prob_lt20.next = self.lt20_r.q.val();
        self.prob_le10.next = self.le10_r.q.val();
        self.qdelay_old.next = self.qold.q.val();
        self.next_update.next = 0.into();
        if self.armed.q.val() {
            self.next_update.next = self.next_val.val();
        }
        self.busy.next = self.busy_r.q.val();
        self.pending.next = !self.now40.val().get_bit(39);
        if self.armed.q.val() {
            self.pending.next = self.dirty.q.val() | self.fire_r.q.val() | self.due.val();
        }
        if self.rst.val() {
            self.armed.d.next = true;
            self.busy_r.d.next = false;
            self.s_scale.d.next = false;
            self.s_mul1.d.next = false;
            self.s_mul2.d.next = false;
            self.s_dec.d.next = false;
            self.s_div.d.next = false;
            self.s_com.d.next = false;
            self.br.d.next = false;
            self.into_mul.d.next = false;
            self.into_dec.d.next = false;
            self.into_div.d.next = false;
            self.prob_r.d.next = 0.into();
            self.pw.d.next = 0.into();
            self.ppb_r.d.next = 0.into();
            self.lt20_r.d.next = true;
            self.le10_r.d.next = true;
            self.qold.d.next = 0.into();
            self.dirty.d.next = false;
            self.fire_r.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_synthesizable() {
        let mut b = PieController::default();
        b.connect_all();
        yosys_validate("pie_controller", &generate_verilog(&b)).unwrap();
    }
}

#[cfg(test)]
mod update_tests {
    use super::*;
    use crate::sim::{clock_edge, settle};
    use aqm_golden::pie::consts::{MAX_PROB, PROB_10PCT, PROB_20PCT};
    use aqm_golden::pie::controller::update;
    use aqm_golden::pie::{PieParams, PieVars};
    use aqm_golden::prng::XorShift64;

    struct Case {
        prob: u64,
        qdelay: u64,
        qdelay_old: u64,
        backlog: u32,
        target_us: u32,
        alpha: u32,
        beta: u32,
        mtu: u32,
    }

    fn cycle(c: &mut PieController) {
        settle(c);
        clock_edge(c, |c| &mut c.clock);
    }

    /// Loads qdelay_old through one update and prob through a register write, then runs the update under
    /// test and compares what it commits with the specification's function.
    fn run(c: &mut PieController, k: &Case) {
        let p = PieParams {
            target_us: k.target_us,
            alpha: k.alpha,
            beta: k.beta,
            mtu: k.mtu,
            ..PieParams::default()
        };
        c.rst.next = true;
        c.now.next = 0.into();
        cycle(c);
        c.rst.next = false;
        c.target.next = p.target_ticks().to_bits();
        c.target_half.next = (p.target_ticks() / 2).to_bits();
        c.alpha.next = (k.alpha as u64).to_bits();
        c.beta.next = (k.beta as u64).to_bits();
        c.mtu.next = (k.mtu as u64).to_bits();
        c.tupdate.next = 1_000_000u64.to_bits();
        c.now.next = FIRST_UPDATE_NS.to_bits();
        c.qdelay.next = k.qdelay_old.to_bits();
        cycle(c);
        c.now.next = 0.into();
        for _ in 0..UPDATE_CYCLES + 2 {
            cycle(c);
        }
        assert_eq!(c.qdelay_old.val().to_u64(), k.qdelay_old);
        c.prob_we.next = true;
        c.prob_wdata.next = k.prob.to_bits();
        cycle(c);
        c.prob_we.next = false;
        for _ in 0..RECOMPUTE_CYCLES + 2 {
            cycle(c);
        }
        assert_eq!(c.prob.val().to_u64(), k.prob);
        // The update under test.
        c.qdelay.next = k.qdelay.to_bits();
        c.backlog.next = (k.backlog as u64).to_bits();
        c.now.next = (FIRST_UPDATE_NS + 2_000_000).to_bits();
        let mut burst_reset = false;
        for _ in 0..UPDATE_CYCLES + 2 {
            settle(c);
            burst_reset |= c.burst_reset.val();
            clock_edge(c, |c| &mut c.clock);
        }
        let mut v = PieVars {
            prob: k.prob,
            qdelay: k.qdelay,
            qdelay_old: k.qdelay_old,
            ..PieVars::new(0)
        };
        let r = update(&mut v, &p, k.backlog as u64);
        let what = format!(
            "prob {:#x} qdelay {} old {} backlog {} target {} alpha {} beta {} mtu {}",
            k.prob, k.qdelay, k.qdelay_old, k.backlog, k.target_us, k.alpha, k.beta, k.mtu
        );
        assert_eq!(c.prob.val().to_u64(), v.prob, "prob after {what}");
        assert_eq!(
            c.ppb.val().to_u64(),
            v.prob / k.mtu as u64,
            "prob/mtu after {what}"
        );
        assert_eq!(c.prob_lt20.val(), v.prob < PROB_20PCT, "{what}");
        assert_eq!(c.prob_le10.val(), v.prob <= PROB_10PCT, "{what}");
        assert_eq!(c.qdelay_old.val().to_u64(), k.qdelay, "{what}");
        assert_eq!(burst_reset, r.burst_reset, "burst reset after {what}");
    }

    #[test]
    fn bit_serial_update_equals_the_specification() {
        let mut c = PieController::default();
        c.connect_all();
        let edge_prob = [
            0,
            1,
            MAX_PROB,
            MAX_PROB - 1,
            PROB_10PCT,
            PROB_10PCT - 1,
            PROB_20PCT,
            64_000,
        ];
        let edge_delay = [
            0,
            1,
            117_186,
            117_187,
            234_375,
            QDELAY_BOOST_TICKS,
            QDELAY_BOOST_TICKS + 1,
            (1 << 34) - 1,
        ];
        let mut g = XorShift64::new(7).unwrap();
        for n in 0..24u64 {
            let mut r = || g.next_word();
            let k = Case {
                prob: if n < 8 {
                    edge_prob[n as usize]
                } else {
                    (r() & MAX_PROB) >> (r() % 56)
                },
                qdelay: if n < 16 {
                    edge_delay[(n % 8) as usize]
                } else {
                    (r() % (1 << 34)) >> (r() % 30)
                },
                qdelay_old: if n % 3 == 0 {
                    0
                } else {
                    (r() % (1 << 34)) >> (r() % 30)
                },
                backlog: if n % 2 == 0 { 0 } else { r() as u32 },
                target_us: [1, 15_000, 1_000_000][(n % 3) as usize],
                alpha: [0, 2, 32, (r() % 33) as u32][(n % 4) as usize],
                beta: [20, 0, 32, (r() % 33) as u32][(n % 4) as usize],
                mtu: [64, 1514, 2047][(n % 3) as usize],
            };
            run(&mut c, &k);
        }
    }
}
