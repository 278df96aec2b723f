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
                if self.n.q.val() == 24 {
                    if self.acc.q.val().get_bit(63) {
                        self.acc.d.next = self.acc.q.val() + 63;
                    }
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
