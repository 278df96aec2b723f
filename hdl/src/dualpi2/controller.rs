//! DualPI2's PI2 controller (spec/dualpi2.md, "Controller"; timing in hdl/DUALPI2-CORE.md), bit-serial.
//!
//! It fires when `now` reaches `next_update` (a tupdate after reset, then every tupdate: `next_update`
//! advances by tupdate at each firing, so the updates keep their schedule), takes the ages of the two
//! queue heads at the scheduled time, and computes the update one bit per clock, least significant bit
//! first, so that its arithmetic is a handful of full adders instead of 64-bit adders and multiplexers
//! (the HX8K has room for the board only so):
//!
//! ```text
//! fire        qdelay = the larger age of the two heads at `at = next_update` (0 for an empty queue)
//! 0           alpha_i + beta_i
//! 1-64        d1 = qdelay - target and d2 = qdelay - last_qdelay, serially, straight into a
//!             serial x parallel multiplier: delta = alpha_i d1 + beta_i d2 (mod 2^64, exact); only its
//!             sign is kept
//! 65          the sign of delta; the multiplier restarts
//! 66-135      delta again, bit k at step 66 + k, and at once t = delta + 63 if negative and
//!             s = p' + t >> 6 (arithmetic), six bits behind t: delta / 64 truncated toward zero, added
//!             to p'; the low 32 bits of s, whether any of bits 32-62 is set, and its sign
//! 136         saturate to [0, 2^32 - 1]
//! 137         without drop_overload: at most MAX / k
//! 138-177     kp = k x p', serially (40 bits)
//! 178         commit p', kp, the overload flag (kp > MAX), last_qdelay, UPDATES + 1
//! ```
//! A PROB write or a new K runs the kp steps alone (a *recompute*). The commit cycles are fixed:
//! `UPDATE_CYCLES` after the firing cycle and `RECOMPUTE_CYCLES` after a recompute's start.

use crate::konst::K;
use aqm_golden::dualpi2::consts::{RECOMPUTE_CYCLES, UPDATE_CYCLES};
use aqm_golden::dualpi2::params::HARDWARE_PARAMS as H;
use rust_hdl::prelude::*;

/// The step counter's value in the commit cycle of an update and of a recompute.
const UPDATE_COMMIT: u64 = UPDATE_CYCLES - 2;
const RECOMPUTE_COMMIT: u64 = RECOMPUTE_CYCLES - 2;
/// The step that starts the kp pass of an update.
const KP_START: u64 = 137;
const _: () = assert!(UPDATE_COMMIT >= KP_START + 41 && RECOMPUTE_COMMIT >= 40);

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum Pi2State {
    Idle,
    Update,
    Recompute,
}

#[derive(LogicBlock, Default)]
pub struct DualPi2Controller {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now40: Signal<In, Bits<40>>,
    // The queue heads.
    pub hv_l: Signal<In, Bit>,
    pub ts_l: Signal<In, Bits<40>>,
    pub hv_c: Signal<In, Bit>,
    pub ts_c: Signal<In, Bits<40>>,
    // Parameters in effect.
    pub target_ns: Signal<In, Bits<30>>,
    pub tupdate_ns: Signal<In, Bits<30>>,
    pub alpha_i: Signal<In, Bits<21>>,
    pub beta_i: Signal<In, Bits<21>>,
    pub drop_overload: Signal<In, Bit>,
    pub k: Signal<In, Bits<8>>,
    pub cap: Signal<In, Bits<32>>,
    // A PROB write (taken only while Idle) and a K commit (recompute kp when Idle).
    pub prob_we: Signal<In, Bit>,
    pub prob_wdata: Signal<In, Bits<32>>,
    pub k_commit: Signal<In, Bit>,
    /// A TUPDATE_US commit: the next update falls the new interval from now.
    pub tupdate_commit: Signal<In, Bit>,
    pub commit_ns: Signal<In, Bits<30>>,
    pub clear_counters: Signal<In, Bit>,
    // State.
    pub prob: Signal<Out, Bits<32>>,
    pub kp: Signal<Out, Bits<40>>,
    /// k x p' > 100 %.
    pub overload: Signal<Out, Bit>,
    pub last_qdelay: Signal<Out, Bits<40>>,
    pub next_update: Signal<Out, Bits<40>>,
    pub updates: Signal<Out, Bits<32>>,
    pub busy: Signal<Out, Bit>,
    /// Work is due: an update (fire or due) or a recompute (dirty).
    pub pending: Signal<Out, Bit>,

    state: DFF<Pi2State>,
    n: DFF<Bits<8>>,
    fire_r: DFF<Bit>,
    dirty: DFF<Bit>,
    next_r: DFF<Bits<40>>,
    prob_r: DFF<Bits<32>>,
    kp_r: DFF<Bits<40>>,
    ovl_r: DFF<Bit>,
    last_r: DFF<Bits<40>>,
    updates_r: DFF<Bits<32>>,
    qd: DFF<Bits<40>>,
    tgt: DFF<Bits<30>>,
    ga: DFF<Bits<21>>,
    gb: DFF<Bits<21>>,
    gs: DFF<Bits<22>>,
    dol: DFF<Bit>,
    kl: DFF<Bits<8>>,
    capl: DFF<Bits<32>>,
    // The serial datapath.
    br1: DFF<Bit>,
    br2: DFF<Bit>,
    mp: DFF<Bits<23>>,
    d63: DFF<Bit>,
    neg: DFF<Bit>,
    ct: DFF<Bit>,
    cs: DFF<Bit>,
    t63: DFF<Bit>,
    hi_any: DFF<Bit>,
    sgn: DFF<Bit>,
    /// The operand bits of the next step: delay, target, last delay, p'.
    qb_r: DFF<Bit>,
    tb_r: DFF<Bit>,
    lb_r: DFF<Bit>,
    pb_r: DFF<Bit>,
    pn: DFF<Bits<32>>,
    kon: DFF<Bit>,
    ki: DFF<Bits<6>>,
    kpp: DFF<Bits<9>>,
    kacc: DFF<Bits<40>>,
    due: Signal<Local, Bits<40>>,
    raw_l: Signal<Local, Bits<40>>,
    raw_c: Signal<Local, Bits<40>>,
    age_l: Signal<Local, Bits<40>>,
    age_c: Signal<Local, Bits<40>>,
    ix: Signal<Local, Bits<8>>,
    nm65: Signal<Local, Bits<8>>,
    nm71: Signal<Local, Bits<8>>,
    ix6: Signal<Local, Bits<6>>,
    ip6: Signal<Local, Bits<6>>,
    qb: Signal<Local, Bit>,
    tb: Signal<Local, Bit>,
    lb: Signal<Local, Bit>,
    d1b: Signal<Local, Bit>,
    d2b: Signal<Local, Bit>,
    addend: Signal<Local, Bits<23>>,
    msum: Signal<Local, Bits<23>>,
    db: Signal<Local, Bit>,
    mb: Signal<Local, Bit>,
    tbit: Signal<Local, Bit>,
    u: Signal<Local, Bit>,
    pb: Signal<Local, Bit>,
    sb: Signal<Local, Bit>,
    kpb: Signal<Local, Bit>,
    ksum: Signal<Local, Bits<9>>,
    qd64: Signal<Local, Bits<64>>,
    tgt64: Signal<Local, Bits<64>>,
    last64: Signal<Local, Bits<64>>,
    prob64: Signal<Local, Bits<64>>,
    pn64: Signal<Local, Bits<64>>,
    first_update: K<40, { H.tupdate_us as u64 * 1000 }>,
    c_update_commit: K<8, UPDATE_COMMIT>,
    c_recompute_commit: K<8, RECOMPUTE_COMMIT>,
    c_kp_start: K<8, KP_START>,
}

impl Logic for DualPi2Controller {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, n, fire_r, dirty, next_r, prob_r, kp_r, ovl_r, last_r, updates_r,
            qd, tgt, ga, gb, gs, dol, kl, capl, br1, br2, mp, d63, neg, ct, cs, t63, hi_any, sgn,
            qb_r, tb_r, lb_r, pb_r, pn, kon, ki, kpp, kacc
        );
        self.due.next = self.now40.val() - self.next_r.q.val();
        self.fire_r.d.next = !self.due.val().get_bit(39);
        if self.k_commit.val() {
            self.dirty.d.next = true;
        }
        self.raw_l.next = self.next_r.q.val() - self.ts_l.val();
        self.raw_c.next = self.next_r.q.val() - self.ts_c.val();
        self.qd64.next = bit_cast::<64, 40>(self.qd.q.val());
        self.tgt64.next = bit_cast::<64, 30>(self.tgt.q.val());
        self.last64.next = bit_cast::<64, 40>(self.last_r.q.val());
        self.prob64.next = bit_cast::<64, 32>(self.prob_r.q.val());
        self.pn64.next = bit_cast::<64, 32>(self.pn.q.val());

        self.age_l.next = 0.into();
        if self.hv_l.val() & !self.raw_l.val().get_bit(39) {
            self.age_l.next = self.raw_l.val();
        }
        self.age_c.next = 0.into();
        if self.hv_c.val() & !self.raw_c.val().get_bit(39) {
            self.age_c.next = self.raw_c.val();
        }

        // The operand bits of step n are selected a step ahead, into registers, so that the bit
        // selection (a 64-way multiplexer on the step counter) is not in front of the adders: the
        // multiplier's bit i = n - 1 in the sign pass (steps 1-64), n - 66 in the second (66-129); p's
        // bit n - 72 in the second pass (72-135). The operands hold still from step 0 on.
        // (Slices of expressions are not Verilog: the differences go through signals first.)
        self.nm65.next = self.n.q.val() - 65;
        self.nm71.next = self.n.q.val() - 71;
        self.ix.next = self.n.q.val();
        if self.n.q.val() >= 65 {
            self.ix.next = self.nm65.val();
        }
        self.ix6.next = self.ix.val().get_bits::<6>(0);
        self.ip6.next = self.nm71.val().get_bits::<6>(0);
        self.qb_r.d.next = self.qd64.val().get_bit(self.ix6.val().index());
        self.tb_r.d.next = self.tgt64.val().get_bit(self.ix6.val().index());
        self.lb_r.d.next = self.last64.val().get_bit(self.ix6.val().index());
        self.pb_r.d.next = self.prob64.val().get_bit(self.ip6.val().index());
        self.qb.next = self.qb_r.q.val();
        self.tb.next = self.tb_r.q.val();
        self.lb.next = self.lb_r.q.val();
        self.d1b.next = self.qb.val() ^ self.tb.val() ^ self.br1.q.val();
        self.d2b.next = self.qb.val() ^ self.lb.val() ^ self.br2.q.val();
        self.addend.next = 0.into();
        if self.d1b.val() & self.d2b.val() {
            self.addend.next = bit_cast::<23, 22>(self.gs.q.val());
        } else if self.d1b.val() {
            self.addend.next = bit_cast::<23, 21>(self.ga.q.val());
        } else if self.d2b.val() {
            self.addend.next = bit_cast::<23, 21>(self.gb.q.val());
        }
        self.msum.next = self.mp.q.val() + self.addend.val();

        // Pass 2, step n = k + 66: bit k of t = delta + 63 (if negative), bit k - 6 of s = p' + t >> 6.
        // (The step ranges are compared with n itself: no subtraction in front of the enables.)
        self.db.next = self.msum.val().get_bit(0);
        self.mb.next = self.neg.q.val() & (self.n.q.val() < 72);
        self.tbit.next = self.db.val() ^ self.mb.val() ^ self.ct.q.val();
        self.u.next = self.tbit.val();
        if self.n.q.val() >= 130 {
            self.u.next = self.t63.q.val();
        }
        self.pb.next = self.pb_r.q.val();
        self.sb.next = self.pb.val() ^ self.u.val() ^ self.cs.q.val();

        // The kp pass: bit ki of k x pn.
        self.kpb.next = self.pn64.val().get_bit(self.ki.q.val().index());
        self.ksum.next = self.kpp.q.val();
        if self.kpb.val() {
            self.ksum.next = self.kpp.q.val() + bit_cast::<9, 8>(self.kl.q.val());
        }
        if self.kon.q.val() {
            self.kacc.d.next = (self.kacc.q.val() >> 1)
                | (bit_cast::<40, 1>(self.ksum.val().get_bit(0).into()) << 39);
            self.kpp.d.next = self.ksum.val() >> 1;
            self.ki.d.next = self.ki.q.val() + 1;
            if self.ki.q.val() == 39 {
                self.kon.d.next = false;
            }
        }

        match self.state.q.val() {
            Pi2State::Idle => {
                self.n.d.next = 0.into();
                self.kl.d.next = self.k.val();
                self.capl.d.next = self.cap.val();
                self.ki.d.next = 0.into();
                self.kpp.d.next = 0.into();
                if self.prob_we.val() {
                    self.state.d.next = Pi2State::Recompute;
                    self.pn.d.next = self.prob_wdata.val();
                    self.kon.d.next = true;
                } else if self.dirty.q.val() {
                    self.state.d.next = Pi2State::Recompute;
                    self.pn.d.next = self.prob_r.q.val();
                    self.kon.d.next = true;
                    self.dirty.d.next = self.k_commit.val();
                } else if self.fire_r.q.val() {
                    self.state.d.next = Pi2State::Update;
                    self.next_r.d.next =
                        self.next_r.q.val() + bit_cast::<40, 30>(self.tupdate_ns.val());
                    self.qd.d.next = self.age_l.val();
                    if self.age_c.val() > self.age_l.val() {
                        self.qd.d.next = self.age_c.val();
                    }
                    self.tgt.d.next = self.target_ns.val();
                    self.ga.d.next = self.alpha_i.val();
                    self.gb.d.next = self.beta_i.val();
                    self.dol.d.next = self.drop_overload.val();
                }
            }
            Pi2State::Update => {
                self.n.d.next = self.n.q.val() + 1;
                if (self.n.q.val() == 0) | (self.n.q.val() == 65) {
                    self.gs.d.next =
                        bit_cast::<22, 21>(self.ga.q.val()) + bit_cast::<22, 21>(self.gb.q.val());
                    self.mp.d.next = 0.into();
                    self.br1.d.next = false;
                    self.br2.d.next = false;
                }
                if ((self.n.q.val() >= 1) & (self.n.q.val() <= 64))
                    | ((self.n.q.val() >= 66) & (self.n.q.val() < 130))
                {
                    self.br1.d.next = (!self.qb.val() & self.tb.val())
                        | (!(self.qb.val() ^ self.tb.val()) & self.br1.q.val());
                    self.br2.d.next = (!self.qb.val() & self.lb.val())
                        | (!(self.qb.val() ^ self.lb.val()) & self.br2.q.val());
                    self.mp.d.next = self.msum.val() >> 1;
                    self.d63.d.next = self.msum.val().get_bit(0);
                }
                if self.n.q.val() == 65 {
                    self.neg.d.next = self.d63.q.val();
                    self.ct.d.next = false;
                    self.cs.d.next = false;
                    self.hi_any.d.next = false;
                }
                if (self.n.q.val() >= 66) & (self.n.q.val() <= 135) {
                    if self.n.q.val() < 130 {
                        self.ct.d.next = (self.db.val() & self.mb.val())
                            | ((self.db.val() ^ self.mb.val()) & self.ct.q.val());
                    }
                    if self.n.q.val() == 129 {
                        self.t63.d.next = self.tbit.val();
                    }
                    if self.n.q.val() >= 72 {
                        self.cs.d.next = (self.pb.val() & self.u.val())
                            | ((self.pb.val() ^ self.u.val()) & self.cs.q.val());
                        if self.n.q.val() < 104 {
                            self.pn.d.next = (self.pn.q.val() >> 1)
                                | (bit_cast::<32, 1>(self.sb.val().into()) << 31);
                        } else if self.n.q.val() < 135 {
                            self.hi_any.d.next = self.hi_any.q.val() | self.sb.val();
                        } else {
                            self.sgn.d.next = self.sb.val();
                        }
                    }
                }
                if self.n.q.val() == 136 {
                    if self.hi_any.q.val() {
                        self.pn.d.next = 0xFFFF_FFFF_u64.into();
                    }
                    if self.sgn.q.val() {
                        self.pn.d.next = 0.into();
                    }
                }
                if self.n.q.val() == self.c_kp_start.val() {
                    if !self.dol.q.val() & (self.pn.q.val() > self.capl.q.val()) {
                        self.pn.d.next = self.capl.q.val();
                    }
                    self.kon.d.next = true;
                    self.ki.d.next = 0.into();
                    self.kpp.d.next = 0.into();
                }
                if self.n.q.val() == self.c_update_commit.val() {
                    self.state.d.next = Pi2State::Idle;
                    self.prob_r.d.next = self.pn.q.val();
                    self.kp_r.d.next = self.kacc.q.val();
                    self.ovl_r.d.next = self.kacc.q.val().get_bits::<8>(32).any();
                    self.last_r.d.next = self.qd.q.val();
                    self.updates_r.d.next = self.updates_r.q.val() + 1;
                }
            }
            Pi2State::Recompute => {
                self.n.d.next = self.n.q.val() + 1;
                if self.n.q.val() == self.c_recompute_commit.val() {
                    self.state.d.next = Pi2State::Idle;
                    self.prob_r.d.next = self.pn.q.val();
                    self.kp_r.d.next = self.kacc.q.val();
                    self.ovl_r.d.next = self.kacc.q.val().get_bits::<8>(32).any();
                }
            }
            _ => {
                self.state.d.next = Pi2State::Idle;
            }
        }

        self.prob.next = self.prob_r.q.val();
        self.kp.next = self.kp_r.q.val();
        self.overload.next = self.ovl_r.q.val();
        self.last_qdelay.next = self.last_r.q.val();
        self.next_update.next = self.next_r.q.val();
        self.updates.next = self.updates_r.q.val();
        self.busy.next = self.state.q.val() != Pi2State::Idle;
        self.pending.next = self.fire_r.q.val() | !self.due.val().get_bit(39) | self.dirty.q.val();

        if self.tupdate_commit.val() {
            self.next_r.d.next = self.now40.val() + bit_cast::<40, 30>(self.commit_ns.val());
        }
        if self.clear_counters.val() {
            self.updates_r.d.next = 0.into();
        }
        if self.rst.val() {
            self.state.d.next = Pi2State::Idle;
            self.n.d.next = 0.into();
            self.fire_r.d.next = false;
            self.dirty.d.next = false;
            self.next_r.d.next = self.now40.val() + self.first_update.val();
            self.prob_r.d.next = 0.into();
            self.kp_r.d.next = 0.into();
            self.ovl_r.d.next = false;
            self.last_r.d.next = 0.into();
            self.updates_r.d.next = 0.into();
            self.kon.d.next = false;
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
        (c.prob.val().to_u32(), c.last_qdelay.val().to_u64())
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
                assert_eq!(last, q0);
                write_prob(&mut c, p0);
                check_kp(&c, &p);
                let mut v = DualPi2Vars::new(&p);
                v.prob = p0;
                v.last_qdelay = q0;
                update(&mut v, &p, q1);
                let (prob, last) = fire(&mut c, Some(q1 / 3), Some(q1));
                assert_eq!(
                    (prob, last),
                    (v.prob, q1),
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
