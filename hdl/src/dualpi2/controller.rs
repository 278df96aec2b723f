//! DualPI2's PI2 controller (spec/dualpi2.md, "Controller"; timing in hdl/DUALPI2-CORE.md).
//!
//! It fires when `now` reaches `next_update` (a tupdate after reset, then every tupdate: `next_update`
//! advances by tupdate at each firing, so the updates keep their schedule), snapshots the two queue heads
//! at the scheduled time, and computes over the following cycles, one short step per cycle:
//!
//! ```text
//! fire      ages of the two heads at `at = next_update` (0 for an empty queue)
//! step 0    qdelay = the larger age
//! step 1    d1 = qdelay - target, d2 = qdelay - last_qdelay (41-bit signed)
//! step 2    d12 = d1 + d2
//! 3-23      delta = alpha_i x d1 + beta_i x d2: Horner over the 21 gain bits, most significant first,
//!           acc = 2 acc + {0, d1, d2, d12}[alpha_i bit, beta_i bit]
//! 24        delta + 63 if negative (so that the shift below truncates toward zero)
//! 25        p' + delta / 64
//! 26        saturate to [0, 2^32 - 1]
//! 27        without drop_overload: at most MAX / k
//! 28-35     kp = k x p', shift-add over the 8 bits of k
//! 38        commit p', kp, the overload flag (kp > MAX), last_qdelay, UPDATES + 1
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
    n: DFF<Bits<6>>,
    fire_r: DFF<Bit>,
    dirty: DFF<Bit>,
    next_r: DFF<Bits<40>>,
    prob_r: DFF<Bits<32>>,
    kp_r: DFF<Bits<40>>,
    ovl_r: DFF<Bit>,
    last_r: DFF<Bits<40>>,
    updates_r: DFF<Bits<32>>,
    age_l: DFF<Bits<40>>,
    age_c: DFF<Bits<40>>,
    qd: DFF<Bits<40>>,
    tgt: DFF<Bits<30>>,
    ga: DFF<Bits<21>>,
    gb: DFF<Bits<21>>,
    dol: DFF<Bit>,
    kl: DFF<Bits<8>>,
    capl: DFF<Bits<32>>,
    d1: DFF<Bits<64>>,
    d2: DFF<Bits<64>>,
    d12: DFF<Bits<64>>,
    acc: DFF<Bits<64>>,
    pn: DFF<Bits<32>>,
    kacc: DFF<Bits<40>>,
    kcnt: DFF<Bits<4>>,
    due: Signal<Local, Bits<40>>,
    raw_l: Signal<Local, Bits<40>>,
    raw_c: Signal<Local, Bits<40>>,
    sel: Signal<Local, Bits<64>>,
    qd64: Signal<Local, Bits<64>>,
    sx: Signal<Local, Bits<64>>,
    sign6: K<64, 0xFC00_0000_0000_0000>,
    first_update: K<40, { H.tupdate_us as u64 * 1000 }>,
    c_update_commit: K<6, UPDATE_COMMIT>,
    c_recompute_commit: K<6, RECOMPUTE_COMMIT>,
}

impl Logic for DualPi2Controller {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, n, fire_r, dirty, next_r, prob_r, kp_r, ovl_r, last_r, updates_r,
            age_l, age_c, qd, tgt, ga, gb, dol, kl, capl, d1, d2, d12, acc, pn, kacc, kcnt
        );
        self.due.next = self.now40.val() - self.next_r.q.val();
        self.fire_r.d.next = !self.due.val().get_bit(39);
        if self.k_commit.val() {
            self.dirty.d.next = true;
        }
        self.raw_l.next = self.next_r.q.val() - self.ts_l.val();
        self.raw_c.next = self.next_r.q.val() - self.ts_c.val();
        self.qd64.next = bit_cast::<64, 40>(self.qd.q.val());
        self.sel.next = 0.into();
        self.sx.next = 0.into();

        // kp = 2 kp + (k bit ? p : 0), while kcnt runs.
        if self.kcnt.q.val().any() {
            self.kcnt.d.next = self.kcnt.q.val() - 1;
            self.kl.d.next = self.kl.q.val() << 1;
            if self.kl.q.val().get_bit(7) {
                self.kacc.d.next = (self.kacc.q.val() << 1) + bit_cast::<40, 32>(self.pn.q.val());
            } else {
                self.kacc.d.next = self.kacc.q.val() << 1;
            }
        }

        match self.state.q.val() {
            Pi2State::Idle => {
                self.n.d.next = 0.into();
                self.kl.d.next = self.k.val();
                self.capl.d.next = self.cap.val();
                self.kacc.d.next = 0.into();
                if self.prob_we.val() {
                    self.state.d.next = Pi2State::Recompute;
                    self.pn.d.next = self.prob_wdata.val();
                    self.kcnt.d.next = 8.into();
                } else if self.dirty.q.val() {
                    self.state.d.next = Pi2State::Recompute;
                    self.pn.d.next = self.prob_r.q.val();
                    self.kcnt.d.next = 8.into();
                    self.dirty.d.next = self.k_commit.val();
                } else if self.fire_r.q.val() {
                    self.state.d.next = Pi2State::Update;
                    self.next_r.d.next =
                        self.next_r.q.val() + bit_cast::<40, 30>(self.tupdate_ns.val());
                    self.age_l.d.next = 0.into();
                    if self.hv_l.val() & !self.raw_l.val().get_bit(39) {
                        self.age_l.d.next = self.raw_l.val();
                    }
                    self.age_c.d.next = 0.into();
                    if self.hv_c.val() & !self.raw_c.val().get_bit(39) {
                        self.age_c.d.next = self.raw_c.val();
                    }
                    self.tgt.d.next = self.target_ns.val();
                    self.ga.d.next = self.alpha_i.val();
                    self.gb.d.next = self.beta_i.val();
                    self.dol.d.next = self.drop_overload.val();
                    self.acc.d.next = 0.into();
                }
            }
            Pi2State::Update => {
                self.n.d.next = self.n.q.val() + 1;
                if self.n.q.val() == 0 {
                    self.qd.d.next = self.age_l.q.val();
                    if self.age_c.q.val() > self.age_l.q.val() {
                        self.qd.d.next = self.age_c.q.val();
                    }
                }
                if self.n.q.val() == 1 {
                    self.d1.d.next = self.qd64.val() - bit_cast::<64, 30>(self.tgt.q.val());
                    self.d2.d.next = self.qd64.val() - bit_cast::<64, 40>(self.last_r.q.val());
                }
                if self.n.q.val() == 2 {
                    self.d12.d.next = self.d1.q.val() + self.d2.q.val();
                }
                if (self.n.q.val() >= 3) & (self.n.q.val() < 24) {
                    if self.ga.q.val().get_bit(20) & self.gb.q.val().get_bit(20) {
                        self.sel.next = self.d12.q.val();
                    } else if self.ga.q.val().get_bit(20) {
                        self.sel.next = self.d1.q.val();
                    } else if self.gb.q.val().get_bit(20) {
                        self.sel.next = self.d2.q.val();
                    }
                    self.acc.d.next = (self.acc.q.val() << 1) + self.sel.val();
                    self.ga.d.next = self.ga.q.val() << 1;
                    self.gb.d.next = self.gb.q.val() << 1;
                }
                if (self.n.q.val() == 24) & self.acc.q.val().get_bit(63) {
                    self.acc.d.next = self.acc.q.val() + 63;
                }
                if self.n.q.val() == 25 {
                    // p' + delta / 64 with an arithmetic shift (acc is 64-bit two's complement).
                    self.sx.next = self.acc.q.val() >> 6;
                    if self.acc.q.val().get_bit(63) {
                        self.sx.next = (self.acc.q.val() >> 6) | self.sign6.val();
                    }
                    self.acc.d.next = bit_cast::<64, 32>(self.prob_r.q.val()) + self.sx.val();
                }
                if self.n.q.val() == 26 {
                    self.pn.d.next = self.acc.q.val().get_bits::<32>(0);
                    if self.acc.q.val().get_bits::<32>(32).any() {
                        self.pn.d.next = 0xFFFF_FFFF_u64.into();
                    }
                    if self.acc.q.val().get_bit(63) {
                        self.pn.d.next = 0.into();
                    }
                }
                if self.n.q.val() == 27 {
                    if !self.dol.q.val() & (self.pn.q.val() > self.capl.q.val()) {
                        self.pn.d.next = self.capl.q.val();
                    }
                    self.kacc.d.next = 0.into();
                    self.kcnt.d.next = 8.into();
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
            self.kcnt.d.next = 0.into();
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
