//! PIE's PI controller (spec/pie.md, "Controller"), multi-cycle and without multipliers.
//!
//! An update fires when `now` reaches `next_update` (500 ms after reset, then `tupdate` after each firing),
//! snapshots its inputs, and walks a fixed sequence of states that reuse shift-add datapaths:
//!
//! ```text
//! Scale  6   gain auto-scaling: compare prob with 10 %, 1 %, ... 0.0001 % in turn -> shift count
//! Gain   6   alpha x K and beta x K, one bit of the 6-bit gain per cycle
//! Shift 15   >> (4 + shift count), one bit per cycle
//! Prep   1   qdelay - target, qdelay - qdelay_old (64-bit, wrapping, as Linux)
//! Mul   34   alpha_i x d1 and beta_i x d2, one bit of the 34-bit gains per cycle (mod 2^64)
//! Sum, Cap, Boost, Add1, Add2, Decay, Check   1 each: steps 4-9 of the spec
//! Div   56   prob / MTU for bytemode, restoring division, one quotient bit per cycle
//! Commit 1   prob, prob/MTU and qdelay_old land together; a new measurement cycle refills the burst
//!            allowance and clears the accumulator (strobes to the egress and ingress blocks)
//! ```
//! The commit lands at the end of the 126th cycle after the firing cycle ([`UPDATE_CYCLES`]). A register
//! write to prob or the MTU schedules the division alone ([`DIV_JOB_CYCLES`]); prob writes are only taken
//! while the controller is idle (the register file rejects them otherwise).

use crate::konst::K;
use aqm_golden::pie::consts::{
    FIRST_UPDATE_NS, GAIN_K, MAX_PROB, PROB_10PCT, PROB_2PCT, QDELAY_BOOST_TICKS, SCALE_LEVELS,
};
use rust_hdl::prelude::*;

/// Cycles from the firing cycle to the commit cycle of a periodic update (the commit is visible one
/// cycle later).
pub const UPDATE_CYCLES: u64 = 126;
/// Cycles from the start cycle to the commit cycle of a prob / MTU recomputation.
pub const DIV_JOB_CYCLES: u64 = 57;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum CtrlState {
    Idle,
    Scale,
    Gain,
    Shift,
    Prep,
    Mul,
    Sum,
    Cap,
    Boost,
    Add1,
    Add2,
    Decay,
    Check,
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
    pub alpha: Signal<In, Bits<6>>,   // 1/16 Hz
    pub beta: Signal<In, Bits<6>>,    // 1/16 Hz
    pub tupdate: Signal<In, Bits<32>>, // ns
    pub mtu: Signal<In, Bits<16>>,    // bytes
    // Register writes.
    pub prob_we: Signal<In, Bit>,
    pub prob_wdata: Signal<In, Bits<64>>,
    pub mtu_we: Signal<In, Bit>,
    // State.
    pub prob: Signal<Out, Bits<64>>, // 2^56 - 1 = 100 %
    pub ppb: Signal<Out, Bits<64>>,  // prob / mtu
    pub qdelay_old: Signal<Out, Bits<34>>, // ticks
    pub next_update: Signal<Out, Bits<64>>, // ns
    /// An update or a recomputation is running.
    pub busy: Signal<Out, Bit>,
    /// Work is due: an update (now >= next_update) or a recomputation.
    pub pending: Signal<Out, Bit>,
    /// Strobe: this update started a new measurement cycle (refill burst, clear accumulator).
    pub burst_reset: Signal<Out, Bit>,

    state: DFF<CtrlState>,
    cnt: DFF<Bits<6>>,
    prob_r: DFF<Bits<64>>,
    ppb_r: DFF<Bits<64>>,
    qold_r: DFF<Bits<34>>,
    next_r: DFF<Bits<64>>,
    dirty: DFF<Bit>,
    div_only: DFF<Bit>,
    qd: DFF<Bits<34>>,
    bnz: DFF<Bit>,
    p: DFF<Bits<64>>,
    qold_l: DFF<Bits<34>>,
    target_l: DFF<Bits<24>>,
    mtu_l: DFF<Bits<16>>,
    am: DFF<Bits<6>>,
    bm: DFF<Bits<6>>,
    kk: DFF<Bits<40>>,
    ga: DFF<Bits<40>>,
    gb: DFF<Bits<40>>,
    sh: DFF<Bits<4>>,
    scaling: DFF<Bit>,
    d1: DFF<Bits<64>>,
    d2: DFF<Bits<64>>,
    da: DFF<Bits<64>>,
    db: DFF<Bits<64>>,
    delta: DFF<Bits<64>>,
    sum66: DFF<Bits<66>>,
    np: DFF<Bits<64>>,
    sat_up: DFF<Bit>,
    brst: DFF<Bit>,
    nd: DFF<Bits<64>>,
    rem: DFF<Bits<12>>,
    quo: DFF<Bits<64>>,
    lvl: Signal<Local, Bits<64>>,
    rr: Signal<Local, Bits<12>>,
    sext: Signal<Local, Bits<66>>,
    k_gain: K<40, GAIN_K>,
    lvl0: K<64, PROB_10PCT>,
    lvl1: K<64, { SCALE_LEVELS[0] }>,
    lvl2: K<64, { SCALE_LEVELS[1] }>,
    lvl3: K<64, { SCALE_LEVELS[2] }>,
    lvl4: K<64, { SCALE_LEVELS[3] }>,
    lvl5: K<64, { SCALE_LEVELS[4] }>,
    prob_2pct: K<64, PROB_2PCT>,
    max_prob: K<66, MAX_PROB>,
    max_prob64: K<64, MAX_PROB>,
    boost_ticks: K<34, QDELAY_BOOST_TICKS>,
    first_update: K<64, FIRST_UPDATE_NS>,
    sign_ext: K<66, 3>,
}

impl Logic for PieController {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, cnt, prob_r, ppb_r, qold_r, next_r, dirty, div_only, qd, bnz, p,
            qold_l, target_l, mtu_l, am, bm, kk, ga, gb, sh, scaling, d1, d2, da, db, delta, sum66,
            np, sat_up, brst, nd, rem, quo
        );
        self.burst_reset.next = false;
        self.lvl.next = self.lvl0.val();
        self.rr.next = (self.rem.q.val() << 1) | bit_cast::<12, 1>(self.nd.q.val().get_bit(63).into());
        self.sext.next = bit_cast::<66, 64>(self.delta.q.val());
        if self.delta.q.val().get_bit(63) {
            self.sext.next = bit_cast::<66, 64>(self.delta.q.val()) | (self.sign_ext.val() << 64);
        }
        match self.state.q.val() {
            CtrlState::Idle => {
                if self.prob_we.val() {
                    self.prob_r.d.next = self.prob_wdata.val();
                    self.dirty.d.next = true;
                } else if self.now.val() >= self.next_r.q.val() {
                    self.qd.d.next = self.qdelay.val();
                    self.bnz.d.next = self.backlog.val().any();
                    self.p.d.next = self.prob_r.q.val();
                    self.qold_l.d.next = self.qold_r.q.val();
                    self.target_l.d.next = self.target.val();
                    self.mtu_l.d.next = self.mtu.val();
                    self.am.d.next = self.alpha.val();
                    self.bm.d.next = self.beta.val();
                    self.kk.d.next = self.k_gain.val();
                    self.ga.d.next = 0.into();
                    self.gb.d.next = 0.into();
                    self.sh.d.next = 0.into();
                    self.scaling.d.next = true;
                    self.cnt.d.next = 0.into();
                    self.next_r.d.next = self.now.val() + bit_cast::<64, 32>(self.tupdate.val());
                    self.dirty.d.next = false;
                    self.div_only.d.next = false;
                    self.state.d.next = CtrlState::Scale;
                } else if self.dirty.q.val() {
                    self.np.d.next = self.prob_r.q.val();
                    self.mtu_l.d.next = self.mtu.val();
                    self.nd.d.next = self.prob_r.q.val() << 8;
                    self.rem.d.next = 0.into();
                    self.quo.d.next = 0.into();
                    self.cnt.d.next = 0.into();
                    self.dirty.d.next = false;
                    self.div_only.d.next = true;
                    self.state.d.next = CtrlState::Div;
                }
            }
            CtrlState::Scale => {
                match self.cnt.q.val().index() {
                    0 => {
                        self.lvl.next = self.lvl0.val();
                    }
                    1 => {
                        self.lvl.next = self.lvl1.val();
                    }
                    2 => {
                        self.lvl.next = self.lvl2.val();
                    }
                    3 => {
                        self.lvl.next = self.lvl3.val();
                    }
                    4 => {
                        self.lvl.next = self.lvl4.val();
                    }
                    _ => {
                        self.lvl.next = self.lvl5.val();
                    }
                }
                if self.scaling.q.val() & (self.p.q.val() < self.lvl.val()) {
                    if self.cnt.q.val().any() {
                        self.sh.d.next = self.sh.q.val() + 2;
                    } else {
                        self.sh.d.next = self.sh.q.val() + 1;
                    }
                } else {
                    self.scaling.d.next = false;
                }
                self.cnt.d.next = self.cnt.q.val() + 1;
                if self.cnt.q.val() == 5 {
                    self.cnt.d.next = 0.into();
                    self.state.d.next = CtrlState::Gain;
                }
            }
            CtrlState::Gain => {
                if self.am.q.val().get_bit(0) {
                    self.ga.d.next = self.ga.q.val() + self.kk.q.val();
                }
                if self.bm.q.val().get_bit(0) {
                    self.gb.d.next = self.gb.q.val() + self.kk.q.val();
                }
                self.kk.d.next = self.kk.q.val() << 1;
                self.am.d.next = self.am.q.val() >> 1;
                self.bm.d.next = self.bm.q.val() >> 1;
                self.cnt.d.next = self.cnt.q.val() + 1;
                if self.cnt.q.val() == 5 {
                    self.cnt.d.next = 0.into();
                    self.state.d.next = CtrlState::Shift;
                }
            }
            CtrlState::Shift => {
                if self.cnt.q.val() < (bit_cast::<6, 4>(self.sh.q.val()) + 4) {
                    self.ga.d.next = self.ga.q.val() >> 1;
                    self.gb.d.next = self.gb.q.val() >> 1;
                }
                self.cnt.d.next = self.cnt.q.val() + 1;
                if self.cnt.q.val() == 14 {
                    self.state.d.next = CtrlState::Prep;
                }
            }
            CtrlState::Prep => {
                self.d1.d.next =
                    bit_cast::<64, 34>(self.qd.q.val()) - bit_cast::<64, 24>(self.target_l.q.val());
                self.d2.d.next =
                    bit_cast::<64, 34>(self.qd.q.val()) - bit_cast::<64, 34>(self.qold_l.q.val());
                self.da.d.next = 0.into();
                self.db.d.next = 0.into();
                self.cnt.d.next = 0.into();
                self.state.d.next = CtrlState::Mul;
            }
            CtrlState::Mul => {
                if self.ga.q.val().get_bit(0) {
                    self.da.d.next = self.da.q.val() + self.d1.q.val();
                }
                if self.gb.q.val().get_bit(0) {
                    self.db.d.next = self.db.q.val() + self.d2.q.val();
                }
                self.d1.d.next = self.d1.q.val() << 1;
                self.d2.d.next = self.d2.q.val() << 1;
                self.ga.d.next = self.ga.q.val() >> 1;
                self.gb.d.next = self.gb.q.val() >> 1;
                self.cnt.d.next = self.cnt.q.val() + 1;
                if self.cnt.q.val() == 33 {
                    self.state.d.next = CtrlState::Sum;
                }
            }
            CtrlState::Sum => {
                self.delta.d.next = self.da.q.val() + self.db.q.val();
                self.state.d.next = CtrlState::Cap;
            }
            CtrlState::Cap => {
                // Step 5: delta > 2 % (signed) while prob >= 10 %.
                if !self.delta.q.val().get_bit(63)
                    & (self.delta.q.val() > self.prob_2pct.val())
                    & (self.p.q.val() >= self.lvl0.val())
                {
                    self.delta.d.next = self.prob_2pct.val();
                }
                self.state.d.next = CtrlState::Boost;
            }
            CtrlState::Boost => {
                // Step 6.
                if self.qd.q.val() > self.boost_ticks.val() {
                    self.delta.d.next = self.delta.q.val() + self.prob_2pct.val();
                }
                self.state.d.next = CtrlState::Add1;
            }
            CtrlState::Add1 => {
                // Step 7: prob + delta in 66 bits, signed.
                self.sum66.d.next = self.sext.val() + bit_cast::<66, 64>(self.p.q.val());
                self.state.d.next = CtrlState::Add2;
            }
            CtrlState::Add2 => {
                self.sat_up.d.next = false;
                if self.sum66.q.val().get_bit(65) {
                    self.np.d.next = 0.into();
                } else if self.sum66.q.val() > self.max_prob.val() {
                    self.np.d.next = self.max_prob64.val();
                    self.sat_up.d.next = true;
                } else {
                    self.np.d.next = bit_cast::<64, 66>(self.sum66.q.val());
                }
                self.state.d.next = CtrlState::Decay;
            }
            CtrlState::Decay => {
                // Step 8.
                if !self.qd.q.val().any()
                    & !self.qold_l.q.val().any()
                    & !self.bnz.q.val()
                    & !self.sat_up.q.val()
                {
                    self.np.d.next = self.np.q.val() - (self.np.q.val() >> 6);
                }
                self.state.d.next = CtrlState::Check;
            }
            CtrlState::Check => {
                // Step 9.
                self.brst.d.next = (self.qd.q.val()
                    < bit_cast::<34, 24>(self.target_l.q.val() >> 1))
                    & (self.qold_l.q.val() < bit_cast::<34, 24>(self.target_l.q.val() >> 1))
                    & !self.np.q.val().any();
                self.nd.d.next = self.np.q.val() << 8;
                self.rem.d.next = 0.into();
                self.quo.d.next = 0.into();
                self.cnt.d.next = 0.into();
                self.state.d.next = CtrlState::Div;
            }
            CtrlState::Div => {
                self.nd.d.next = self.nd.q.val() << 1;
                if self.rr.val() >= bit_cast::<12, 16>(self.mtu_l.q.val()) {
                    self.rem.d.next = self.rr.val() - bit_cast::<12, 16>(self.mtu_l.q.val());
                    self.quo.d.next = (self.quo.q.val() << 1) | 1;
                } else {
                    self.rem.d.next = self.rr.val();
                    self.quo.d.next = self.quo.q.val() << 1;
                }
                self.cnt.d.next = self.cnt.q.val() + 1;
                if self.cnt.q.val() == 55 {
                    self.state.d.next = CtrlState::Commit;
                }
            }
            CtrlState::Commit => {
                self.ppb_r.d.next = self.quo.q.val();
                if !self.div_only.q.val() {
                    self.prob_r.d.next = self.np.q.val();
                    self.qold_r.d.next = self.qd.q.val();
                    self.burst_reset.next = self.brst.q.val();
                }
                self.state.d.next = CtrlState::Idle;
            }
            _ => {
                self.state.d.next = CtrlState::Idle;
            }
        }
        if self.mtu_we.val() {
            self.dirty.d.next = true;
        }
        self.prob.next = self.prob_r.q.val();
        self.ppb.next = self.ppb_r.q.val();
        self.qdelay_old.next = self.qold_r.q.val();
        self.next_update.next = self.next_r.q.val();
        self.busy.next = self.state.q.val() != CtrlState::Idle;
        self.pending.next = self.dirty.q.val() | (self.now.val() >= self.next_r.q.val());
        if self.rst.val() {
            self.state.d.next = CtrlState::Idle;
            self.prob_r.d.next = 0.into();
            self.ppb_r.d.next = 0.into();
            self.qold_r.d.next = 0.into();
            self.next_r.d.next = self.now.val() + self.first_update.val();
            self.dirty.d.next = false;
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
