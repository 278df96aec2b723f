//! PIE's PI controller (spec/pie.md, "Controller"), bit-serial.
//!
//! The update runs every 15 ms or so and may take thousands of cycles, so it is computed one bit per clock
//! on 64-bit shift registers: every adder is a single full adder, which keeps this block small (no wide
//! carry chain; the HX8K has no multipliers) and far from the critical path. An update fires when `now`
//! reaches `next_update` (500 ms after reset, then `tupdate` after each firing), snapshots its inputs, and
//! runs a fixed sequence of passes over the bits, least significant first:
//!
//! ```text
//! Scale     64  prob < 10 %, 1 %, ... 0.0001 % (step 3's levels, six serial comparisons at once);
//!               d1 = qdelay - target, d2 = qdelay - qdelay_old (64-bit, as Linux)
//! Gain      55  alpha_i = (alpha x K) >> (4 + shift), beta_i likewise: a serial multi-operand sum of
//!               shifted copies of the constant K, keeping the bits from 4 + shift on (step 3)
//! Mul  34 x 64  alpha_i x d1 and beta_i x d2 mod 2^64, one bit of the gains per pass (step 4)
//! Sum       64  delta = the two products; delta > 2 % (signed)
//! CapBoost  64  step 5 (cap at 2 % while prob >= 10 %) and step 6 (+2 % above 250 ms)
//! Add       64  prob + delta, 65-bit signed; Clamp (1) saturates to [0, 100 %] (step 7)
//! Decay     64  prob -= prob >> 6 when due (step 8); the flags prob < 20 % and prob <= 10 % that the
//!               ingress uses, and prob == 0 for step 9
//! Div       56  prob / MTU for bytemode, restoring division, most significant bit first
//! Commit     1  prob, prob / MTU, the flags and qdelay_old land together; a new measurement cycle
//!               (step 9) strobes `burst_reset` to the egress (burst allowance) and ingress (accumulator)
//! ```
//! The commit happens in the [`UPDATE_CYCLES`]th cycle after the firing cycle. A register write to prob
//! or to the MTU runs Decay (without decay, for the flags) and Div alone ([`RECOMPUTE_CYCLES`]). Prob
//! writes are only taken while the controller is idle; the register file rejects them otherwise.

use crate::konst::K;
use aqm_golden::pie::consts::{
    FIRST_UPDATE_NS, GAIN_K, MAX_PROB, PROB_10PCT, PROB_20PCT, PROB_2PCT, QDELAY_BOOST_TICKS,
    SCALE_LEVELS,
};
use rust_hdl::prelude::*;

/// The controller's timing, defined once with the golden model (hdl/PIE-CORE.md).
pub use aqm_golden::pie::consts::{RECOMPUTE_CYCLES, UPDATE_CYCLES};

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum CtrlState {
    Idle,
    Scale,
    Gain,
    Mul,
    Sum,
    CapBoost,
    Add,
    Clamp,
    Decay,
    Div,
    Commit,
}

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
    pub qdelay_old: Signal<Out, Bits<34>>,  // ticks
    pub next_update: Signal<Out, Bits<40>>, // ns, low 40 bits
    /// An update or a recomputation is running.
    pub busy: Signal<Out, Bit>,
    /// Work is due: an update (now >= next_update) or a recomputation.
    pub pending: Signal<Out, Bit>,
    /// Strobe: this update started a new measurement cycle (refill burst, clear accumulator).
    pub burst_reset: Signal<Out, Bit>,

    state: DFF<CtrlState>,
    bi: DFF<Bits<7>>,
    pass: DFF<Bits<6>>,
    prob_r: DFF<Bits<56>>,
    ppb_r: DFF<Bits<56>>,
    lt20_r: DFF<Bit>,
    le10_r: DFF<Bit>,
    qold_r: DFF<Bits<34>>,
    next_r: DFF<Bits<40>>,
    dirty: DFF<Bit>,
    fire_r: DFF<Bit>,
    upd: DFF<Bit>,
    decay_en: DFF<Bit>,
    qd: DFF<Bits<34>>,
    bnz: DFF<Bit>,
    tgt: DFF<Bits<24>>,
    al: DFF<Bits<6>>,
    be: DFF<Bits<6>>,
    mtu_l: DFF<Bits<16>>,
    qlt: DFF<Bit>,
    qolt: DFF<Bit>,
    boost: DFF<Bit>,
    qz: DFF<Bit>,
    qoz: DFF<Bit>,
    b0: DFF<Bit>,
    b1: DFF<Bit>,
    b2: DFF<Bit>,
    b3: DFF<Bit>,
    b4: DFF<Bit>,
    b5: DFF<Bit>,
    r1: DFF<Bits<64>>,
    r2: DFF<Bits<64>>,
    a: DFF<Bits<64>>,
    b: DFF<Bits<64>>,
    ga: DFF<Bits<40>>,
    gb: DFF<Bits<40>>,
    gca: DFF<Bits<3>>,
    gcb: DFF<Bits<3>>,
    c1: DFF<Bit>,
    c2: DFF<Bit>,
    pd1: DFF<Bit>,
    pd2: DFF<Bit>,
    bc: DFF<Bit>,
    dsign: DFF<Bit>,
    c64: DFF<Bit>,
    anyhi: DFF<Bit>,
    b20: DFF<Bit>,
    b10: DFF<Bit>,
    nz: DFF<Bit>,
    rem: DFF<Bits<12>>,
    quo: DFF<Bits<56>>,
    // Combinational helpers.
    now40: Signal<Local, Bits<40>>,
    prob64: Signal<Local, Bits<64>>,
    qd64: Signal<Local, Bits<64>>,
    tgt64: Signal<Local, Bits<64>>,
    qold64: Signal<Local, Bits<64>>,
    fire_diff: Signal<Local, Bits<40>>,
    i6: Signal<Local, Bits<6>>,
    p_i: Signal<Local, Bit>,
    x: Signal<Local, Bit>,
    y: Signal<Local, Bit>,
    s: Signal<Local, Bit>,
    x2: Signal<Local, Bit>,
    y2: Signal<Local, Bit>,
    s2: Signal<Local, Bit>,
    cout: Signal<Local, Bit>,
    cout2: Signal<Local, Bit>,
    r1_sh: Signal<Local, Bit>,
    r1_in: Signal<Local, Bit>,
    r2_sh: Signal<Local, Bit>,
    r2_in: Signal<Local, Bit>,
    a_sh: Signal<Local, Bit>,
    b_sh: Signal<Local, Bit>,
    start_decay: Signal<Local, Bit>,
    lt_step0: Signal<Local, Bit>,
    lt_step1: Signal<Local, Bit>,
    lt_step2: Signal<Local, Bit>,
    lt_step3: Signal<Local, Bit>,
    lt_step4: Signal<Local, Bit>,
    lt_step5: Signal<Local, Bit>,
    c2_i: Signal<Local, Bit>,
    sh: Signal<Local, Bits<5>>,
    n: Signal<Local, Bits<7>>,
    k1: Signal<Local, Bits<6>>,
    k2: Signal<Local, Bits<6>>,
    k3: Signal<Local, Bits<6>>,
    k4: Signal<Local, Bits<6>>,
    k5: Signal<Local, Bits<6>>,
    kb0: Signal<Local, Bit>,
    kb1: Signal<Local, Bit>,
    kb2: Signal<Local, Bit>,
    kb3: Signal<Local, Bit>,
    kb4: Signal<Local, Bit>,
    kb5: Signal<Local, Bit>,
    suma: Signal<Local, Bits<4>>,
    sumb: Signal<Local, Bits<4>>,
    cap: Signal<Local, Bit>,
    neg: Signal<Local, Bit>,
    over: Signal<Local, Bit>,
    didx: Signal<Local, Bits<6>>,
    rr: Signal<Local, Bits<12>>,
    k_gain: K<64, GAIN_K>,
    lvl0: K<64, PROB_10PCT>,
    lvl1: K<64, { SCALE_LEVELS[0] }>,
    lvl2: K<64, { SCALE_LEVELS[1] }>,
    lvl3: K<64, { SCALE_LEVELS[2] }>,
    lvl4: K<64, { SCALE_LEVELS[3] }>,
    lvl5: K<64, { SCALE_LEVELS[4] }>,
    prob_2pct: K<64, PROB_2PCT>,
    prob_10pct: K<64, PROB_10PCT>,
    prob_20pct: K<64, PROB_20PCT>,
    max_prob: K<64, MAX_PROB>,
    boost_ticks: K<34, QDELAY_BOOST_TICKS>,
    first_update: K<40, FIRST_UPDATE_NS>,
}

impl Logic for PieController {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, bi, pass, prob_r, ppb_r, lt20_r, le10_r, qold_r, next_r, dirty,
            fire_r, upd, decay_en, qd, bnz, tgt, al, be, mtu_l, qlt, qolt, boost, qz, qoz, b0, b1,
            b2, b3, b4, b5, r1, r2, a, b, ga, gb, gca, gcb, c1, c2, pd1, pd2, bc, dsign, c64,
            anyhi, b20, b10, nz, rem, quo
        );
        self.burst_reset.next = false;
        self.now40.next = self.now.val().get_bits::<40>(0);
        // now >= next_update, modulo 2^40, registered: an update fires the cycle after it is due.
        self.fire_diff.next = self.now40.val() - self.next_r.q.val();
        self.fire_r.d.next = !self.fire_diff.val().get_bit(39);
        self.i6.next = self.bi.q.val().get_bits::<6>(0);
        // Zero-extended copies, so that a 6-bit index always selects a defined bit.
        self.prob64.next = bit_cast::<64, 56>(self.prob_r.q.val());
        self.qd64.next = bit_cast::<64, 34>(self.qd.q.val());
        self.tgt64.next = bit_cast::<64, 24>(self.tgt.q.val());
        self.qold64.next = bit_cast::<64, 34>(self.qold_r.q.val());
        self.p_i.next = self.prob64.val().get_bit(self.i6.val().index());
        self.c2_i.next = self.prob_2pct.val().get_bit(self.i6.val().index());
        self.lt_step0.next = (!self.p_i.val() & self.lvl0.val().get_bit(self.i6.val().index()))
            | (!(self.p_i.val() ^ self.lvl0.val().get_bit(self.i6.val().index()))
                & self.b0.q.val());
        self.lt_step1.next = (!self.p_i.val() & self.lvl1.val().get_bit(self.i6.val().index()))
            | (!(self.p_i.val() ^ self.lvl1.val().get_bit(self.i6.val().index()))
                & self.b1.q.val());
        self.lt_step2.next = (!self.p_i.val() & self.lvl2.val().get_bit(self.i6.val().index()))
            | (!(self.p_i.val() ^ self.lvl2.val().get_bit(self.i6.val().index()))
                & self.b2.q.val());
        self.lt_step3.next = (!self.p_i.val() & self.lvl3.val().get_bit(self.i6.val().index()))
            | (!(self.p_i.val() ^ self.lvl3.val().get_bit(self.i6.val().index()))
                & self.b3.q.val());
        self.lt_step4.next = (!self.p_i.val() & self.lvl4.val().get_bit(self.i6.val().index()))
            | (!(self.p_i.val() ^ self.lvl4.val().get_bit(self.i6.val().index()))
                & self.b4.q.val());
        self.lt_step5.next = (!self.p_i.val() & self.lvl5.val().get_bit(self.i6.val().index()))
            | (!(self.p_i.val() ^ self.lvl5.val().get_bit(self.i6.val().index()))
                & self.b5.q.val());
        self.x.next = false;
        self.y.next = false;
        self.x2.next = false;
        self.y2.next = false;
        self.start_decay.next = false;
        // Gain auto-scaling from the Scale pass: 1 + 2 per level below which prob lies, if below 10 %.
        self.sh.next = 0.into();
        if self.b0.q.val() {
            self.sh.next = bit_cast::<5, 1>(self.b0.q.val().into())
                + (bit_cast::<5, 1>(self.b1.q.val().into()) << 1)
                + (bit_cast::<5, 1>(self.b2.q.val().into()) << 1)
                + (bit_cast::<5, 1>(self.b3.q.val().into()) << 1)
                + (bit_cast::<5, 1>(self.b4.q.val().into()) << 1)
                + (bit_cast::<5, 1>(self.b5.q.val().into()) << 1);
        }
        self.n.next = bit_cast::<7, 5>(self.sh.val()) + 4;
        self.k1.next = self.i6.val() - 1;
        self.k2.next = self.i6.val() - 2;
        self.k3.next = self.i6.val() - 3;
        self.k4.next = self.i6.val() - 4;
        self.k5.next = self.i6.val() - 5;
        self.kb0.next = self.k_gain.val().get_bit(self.i6.val().index());
        self.kb1.next = (self.i6.val() >= 1) & self.k_gain.val().get_bit(self.k1.val().index());
        self.kb2.next = (self.i6.val() >= 2) & self.k_gain.val().get_bit(self.k2.val().index());
        self.kb3.next = (self.i6.val() >= 3) & self.k_gain.val().get_bit(self.k3.val().index());
        self.kb4.next = (self.i6.val() >= 4) & self.k_gain.val().get_bit(self.k4.val().index());
        self.kb5.next = (self.i6.val() >= 5) & self.k_gain.val().get_bit(self.k5.val().index());
        self.suma.next = bit_cast::<4, 3>(self.gca.q.val())
            + bit_cast::<4, 1>((self.al.q.val().get_bit(0) & self.kb0.val()).into())
            + bit_cast::<4, 1>((self.al.q.val().get_bit(1) & self.kb1.val()).into())
            + bit_cast::<4, 1>((self.al.q.val().get_bit(2) & self.kb2.val()).into())
            + bit_cast::<4, 1>((self.al.q.val().get_bit(3) & self.kb3.val()).into())
            + bit_cast::<4, 1>((self.al.q.val().get_bit(4) & self.kb4.val()).into())
            + bit_cast::<4, 1>((self.al.q.val().get_bit(5) & self.kb5.val()).into());
        self.sumb.next = bit_cast::<4, 3>(self.gcb.q.val())
            + bit_cast::<4, 1>((self.be.q.val().get_bit(0) & self.kb0.val()).into())
            + bit_cast::<4, 1>((self.be.q.val().get_bit(1) & self.kb1.val()).into())
            + bit_cast::<4, 1>((self.be.q.val().get_bit(2) & self.kb2.val()).into())
            + bit_cast::<4, 1>((self.be.q.val().get_bit(3) & self.kb3.val()).into())
            + bit_cast::<4, 1>((self.be.q.val().get_bit(4) & self.kb4.val()).into())
            + bit_cast::<4, 1>((self.be.q.val().get_bit(5) & self.kb5.val()).into());
        self.cap.next = !self.dsign.q.val() & self.bc.q.val() & !self.b0.q.val();
        self.neg.next = self.dsign.q.val() ^ self.c64.q.val();
        self.over.next = !self.neg.val() & self.anyhi.q.val();
        self.didx.next = 55_u64 - self.i6.val();
        self.rr.next = (self.rem.q.val() << 1)
            | bit_cast::<12, 1>(self.r2.q.val().get_bit(self.didx.val().index()).into());
        self.bi.d.next = self.bi.q.val() + 1;
        // Operands of the serial adders for this pass (selected before the adders: in Verilog the
        // combinational block runs top to bottom, so a value must be assigned before it is read).
        match self.state.q.val() {
            CtrlState::Scale => {
                self.x.next = self.qd64.val().get_bit(self.i6.val().index());
                self.y.next = !self.tgt64.val().get_bit(self.i6.val().index());
                self.x2.next = self.qd64.val().get_bit(self.i6.val().index());
                self.y2.next = !self.qold64.val().get_bit(self.i6.val().index());
            }
            CtrlState::Mul => {
                self.x.next = self.a.q.val().get_bit(0);
                self.y.next = self.ga.q.val().get_bit(0) & self.r1.q.val().get_bit(0);
                self.x2.next = self.b.q.val().get_bit(0);
                self.y2.next = self.gb.q.val().get_bit(0) & self.r2.q.val().get_bit(0);
            }
            CtrlState::Sum => {
                self.x.next = self.a.q.val().get_bit(0);
                self.y.next = self.b.q.val().get_bit(0);
            }
            CtrlState::CapBoost => {
                self.x.next = self.r1.q.val().get_bit(0);
                if self.cap.val() {
                    self.x.next = self.c2_i.val();
                }
                self.y.next = self.boost.q.val() & self.c2_i.val();
            }
            CtrlState::Add => {
                self.x.next = self.p_i.val();
                self.y.next = self.r1.q.val().get_bit(0);
            }
            CtrlState::Decay => {
                // prob - (prob >> 6) = prob + !(prob >> 6) + 1; bit i + 6 sits at position 6.
                self.x.next = self.r2.q.val().get_bit(0);
                self.y.next =
                    !(self.decay_en.q.val() & (self.bi.q.val() < 58) & self.r2.q.val().get_bit(6));
            }
            _ => {}
        }
        // One serial adder (x + y + carry; a subtraction is x + !y with the carry starting at 1) and
        // uniform shift registers: each pass chooses the operand bits, the shift enables and the bits
        // shifted in, so every register bit is a plain shift / load / hold multiplexer.
        self.s.next = self.x.val() ^ self.y.val() ^ self.c1.q.val();
        self.cout.next = (self.x.val() & self.y.val())
            | (self.x.val() & self.c1.q.val())
            | (self.y.val() & self.c1.q.val());
        self.s2.next = self.x2.val() ^ self.y2.val() ^ self.c2.q.val();
        self.cout2.next = (self.x2.val() & self.y2.val())
            | (self.x2.val() & self.c2.q.val())
            | (self.y2.val() & self.c2.q.val());
        self.c1.d.next = self.cout.val();
        self.c2.d.next = self.cout2.val();
        self.r1_sh.next = false;
        self.r1_in.next = false;
        self.r2_sh.next = false;
        self.r2_in.next = false;
        self.a_sh.next = false;
        self.b_sh.next = false;

        match self.state.q.val() {
            CtrlState::Idle => {
                self.bi.d.next = 0.into();
                if self.prob_we.val() {
                    self.r2.d.next = bit_cast::<64, 56>(self.prob_wdata.val());
                    self.upd.d.next = false;
                    self.decay_en.d.next = false;
                    self.mtu_l.d.next = self.mtu.val();
                    self.start_decay.next = true;
                } else if self.fire_r.q.val() {
                    self.qd.d.next = self.qdelay.val();
                    self.bnz.d.next = self.backlog.val().any();
                    self.tgt.d.next = self.target.val();
                    self.al.d.next = self.alpha.val();
                    self.be.d.next = self.beta.val();
                    self.mtu_l.d.next = self.mtu.val();
                    self.qlt.d.next =
                        self.qdelay.val() < bit_cast::<34, 24>(self.target_half.val());
                    self.qolt.d.next =
                        self.qold_r.q.val() < bit_cast::<34, 24>(self.target_half.val());
                    self.boost.d.next = self.qdelay.val() > self.boost_ticks.val();
                    self.qz.d.next = !self.qdelay.val().any();
                    self.qoz.d.next = !self.qold_r.q.val().any();
                    self.next_r.d.next = self.now40.val() + bit_cast::<40, 32>(self.tupdate.val());
                    self.dirty.d.next = false;
                    self.upd.d.next = true;
                    self.b0.d.next = false;
                    self.b1.d.next = false;
                    self.b2.d.next = false;
                    self.b3.d.next = false;
                    self.b4.d.next = false;
                    self.b5.d.next = false;
                    // Scale subtracts: carries start at 1.
                    self.c1.d.next = true;
                    self.c2.d.next = true;
                    self.state.d.next = CtrlState::Scale;
                } else if self.dirty.q.val() {
                    self.r2.d.next = bit_cast::<64, 56>(self.prob_r.q.val());
                    self.upd.d.next = false;
                    self.decay_en.d.next = false;
                    self.mtu_l.d.next = self.mtu.val();
                    self.dirty.d.next = false;
                    self.start_decay.next = true;
                }
            }
            CtrlState::Scale => {
                // Six comparisons prob < level at once (a borrow bit each); d1 = qdelay - target into r1
                // and d2 = qdelay - qdelay_old into r2.
                self.b0.d.next = self.lt_step0.val();
                self.b1.d.next = self.lt_step1.val();
                self.b2.d.next = self.lt_step2.val();
                self.b3.d.next = self.lt_step3.val();
                self.b4.d.next = self.lt_step4.val();
                self.b5.d.next = self.lt_step5.val();
                self.r1_sh.next = true;
                self.r1_in.next = self.s.val();
                self.r2_sh.next = true;
                self.r2_in.next = self.s2.val();
                if self.bi.q.val() == 63 {
                    self.bi.d.next = 0.into();
                    self.gca.d.next = 0.into();
                    self.gcb.d.next = 0.into();
                    self.ga.d.next = 0.into();
                    self.gb.d.next = 0.into();
                    self.state.d.next = CtrlState::Gain;
                }
            }
            CtrlState::Gain => {
                // Bit bi of alpha x K (and beta x K); bits n .. n+39 are kept: (x K) >> n.
                self.gca.d.next = self.suma.val().get_bits::<3>(1);
                self.gcb.d.next = self.sumb.val().get_bits::<3>(1);
                if (self.bi.q.val() >= self.n.val()) & (self.bi.q.val() < (self.n.val() + 40)) {
                    self.ga.d.next = (self.ga.q.val() >> 1)
                        | (bit_cast::<40, 1>(self.suma.val().get_bit(0).into()) << 39);
                    self.gb.d.next = (self.gb.q.val() >> 1)
                        | (bit_cast::<40, 1>(self.sumb.val().get_bit(0).into()) << 39);
                }
                if self.bi.q.val() == 54 {
                    self.bi.d.next = 0.into();
                    self.pass.d.next = 0.into();
                    self.a.d.next = 0.into();
                    self.b.d.next = 0.into();
                    self.c1.d.next = false;
                    self.c2.d.next = false;
                    self.pd1.d.next = false;
                    self.pd2.d.next = false;
                    self.state.d.next = CtrlState::Mul;
                }
            }
            CtrlState::Mul => {
                // a += gain bit ? d1 : 0, and d1 <<= 1 (fed back one bit late), per pass.
                self.a_sh.next = true;
                self.b_sh.next = true;
                self.r1_sh.next = true;
                self.r1_in.next = self.pd1.q.val();
                self.r2_sh.next = true;
                self.r2_in.next = self.pd2.q.val();
                self.pd1.d.next = self.r1.q.val().get_bit(0);
                self.pd2.d.next = self.r2.q.val().get_bit(0);
                if self.bi.q.val() == 63 {
                    self.bi.d.next = 0.into();
                    self.c1.d.next = false;
                    self.c2.d.next = false;
                    self.pd1.d.next = false;
                    self.pd2.d.next = false;
                    self.ga.d.next = self.ga.q.val() >> 1;
                    self.gb.d.next = self.gb.q.val() >> 1;
                    self.pass.d.next = self.pass.q.val() + 1;
                    if self.pass.q.val() == 33 {
                        self.bc.d.next = false;
                        self.state.d.next = CtrlState::Sum;
                    }
                }
            }
            CtrlState::Sum => {
                // delta = a + b into r1; borrow of 2 % - delta (delta above 2 %, unsigned).
                self.a_sh.next = true;
                self.b_sh.next = true;
                self.r1_sh.next = true;
                self.r1_in.next = self.s.val();
                self.bc.d.next = (!self.c2_i.val() & self.s.val())
                    | (!(self.c2_i.val() ^ self.s.val()) & self.bc.q.val());
                if self.bi.q.val() == 63 {
                    self.dsign.d.next = self.s.val();
                    self.bi.d.next = 0.into();
                    self.c1.d.next = false;
                    self.state.d.next = CtrlState::CapBoost;
                }
            }
            CtrlState::CapBoost => {
                // Step 5: delta = 2 % if capped; step 6: + 2 % above 250 ms.
                self.r1_sh.next = true;
                self.r1_in.next = self.s.val();
                if self.bi.q.val() == 63 {
                    self.bi.d.next = 0.into();
                    self.c1.d.next = false;
                    self.anyhi.d.next = false;
                    self.state.d.next = CtrlState::Add;
                }
            }
            CtrlState::Add => {
                // Step 7: prob + delta into r2; bits 56..63 of the sum and the sign decide saturation.
                self.r1_sh.next = true;
                self.r2_sh.next = true;
                self.r2_in.next = self.s.val();
                if self.bi.q.val() >= 56 {
                    self.anyhi.d.next = self.anyhi.q.val() | self.s.val();
                }
                if self.bi.q.val() == 63 {
                    self.c64.d.next = self.cout.val();
                    self.dsign.d.next = self.y.val();
                    self.state.d.next = CtrlState::Clamp;
                }
            }
            CtrlState::Clamp => {
                if self.neg.val() {
                    self.r2.d.next = 0.into();
                } else if self.over.val() {
                    self.r2.d.next = self.max_prob.val();
                }
                self.decay_en.d.next =
                    self.qz.q.val() & self.qoz.q.val() & !self.bnz.q.val() & !self.over.val();
                self.start_decay.next = true;
            }
            CtrlState::Decay => {
                // Step 8 (operands above).
                self.r2_sh.next = true;
                self.r2_in.next = self.s.val();
                // The flags of the new prob: < 20 % (borrow of prob - 20 %), > 10 % (of 10 % - prob).
                self.b20.d.next = (!self.s.val()
                    & self.prob_20pct.val().get_bit(self.i6.val().index()))
                    | (!(self.s.val() ^ self.prob_20pct.val().get_bit(self.i6.val().index()))
                        & self.b20.q.val());
                self.b10.d.next = (!self.prob_10pct.val().get_bit(self.i6.val().index())
                    & self.s.val())
                    | (!(self.prob_10pct.val().get_bit(self.i6.val().index()) ^ self.s.val())
                        & self.b10.q.val());
                self.nz.d.next = self.nz.q.val() | self.s.val();
                if self.bi.q.val() == 63 {
                    self.bi.d.next = 0.into();
                    self.rem.d.next = 0.into();
                    self.quo.d.next = 0.into();
                    self.state.d.next = CtrlState::Div;
                }
            }
            CtrlState::Div => {
                // prob / MTU, bit 55 - bi of prob per cycle.
                if self.rr.val() >= bit_cast::<12, 16>(self.mtu_l.q.val()) {
                    self.rem.d.next = self.rr.val() - bit_cast::<12, 16>(self.mtu_l.q.val());
                    self.quo.d.next = (self.quo.q.val() << 1) | 1;
                } else {
                    self.rem.d.next = self.rr.val();
                    self.quo.d.next = self.quo.q.val() << 1;
                }
                if self.bi.q.val() == 55 {
                    self.state.d.next = CtrlState::Commit;
                }
            }
            CtrlState::Commit => {
                self.prob_r.d.next = self.r2.q.val().get_bits::<56>(0);
                self.ppb_r.d.next = self.quo.q.val();
                self.lt20_r.d.next = self.b20.q.val();
                self.le10_r.d.next = !self.b10.q.val();
                if self.upd.q.val() {
                    self.qold_r.d.next = self.qd.q.val();
                    self.burst_reset.next = self.qlt.q.val() & self.qolt.q.val() & !self.nz.q.val();
                }
                self.state.d.next = CtrlState::Idle;
            }
            _ => {
                self.state.d.next = CtrlState::Idle;
            }
        }
        if self.start_decay.val() {
            // Into the Decay pass (a subtraction: carry 1) with fresh flags.
            self.bi.d.next = 0.into();
            self.c1.d.next = true;
            self.b20.d.next = false;
            self.b10.d.next = false;
            self.nz.d.next = false;
            self.state.d.next = CtrlState::Decay;
        }
        if self.r1_sh.val() {
            self.r1.d.next =
                (self.r1.q.val() >> 1) | (bit_cast::<64, 1>(self.r1_in.val().into()) << 63);
        }
        if self.r2_sh.val() {
            self.r2.d.next =
                (self.r2.q.val() >> 1) | (bit_cast::<64, 1>(self.r2_in.val().into()) << 63);
        }
        if self.a_sh.val() {
            self.a.d.next = (self.a.q.val() >> 1) | (bit_cast::<64, 1>(self.s.val().into()) << 63);
        }
        if self.b_sh.val() {
            self.b.d.next = (self.b.q.val() >> 1) | (bit_cast::<64, 1>(self.s2.val().into()) << 63);
        }
        if self.mtu_we.val() {
            self.dirty.d.next = true;
        }
        self.prob.next = self.prob_r.q.val();
        self.ppb.next = self.ppb_r.q.val();
        self.prob_lt20.next = self.lt20_r.q.val();
        self.prob_le10.next = self.le10_r.q.val();
        self.qdelay_old.next = self.qold_r.q.val();
        self.next_update.next = self.next_r.q.val();
        self.busy.next = self.state.q.val() != CtrlState::Idle;
        self.pending.next =
            self.dirty.q.val() | self.fire_r.q.val() | !self.fire_diff.val().get_bit(39);
        if self.rst.val() {
            self.state.d.next = CtrlState::Idle;
            self.prob_r.d.next = 0.into();
            self.ppb_r.d.next = 0.into();
            self.lt20_r.d.next = true;
            self.le10_r.d.next = true;
            self.qold_r.d.next = 0.into();
            self.next_r.d.next = self.now40.val() + self.first_update.val();
            self.dirty.d.next = false;
            self.fire_r.d.next = false;
            self.burst_reset.next = false;
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
    use aqm_golden::pie::consts::{PROB_10PCT, PROB_20PCT};
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
