//! The controller (`aqm_hdl::pie::controller::PieController`): the bit-serial RTL commits each update a
//! fixed number of cycles after it fires; this model computes the update with the specification's
//! function when it fires and commits it in the same cycle the RTL does.

use super::super::consts::{
    FIRST_UPDATE_NS, MAX_PROB, PROB_10PCT, PROB_20PCT, RECOMPUTE_CYCLES, UPDATE_CYCLES,
};
use super::super::controller::update;
use super::super::params::PieParams;
use super::super::vars::PieVars;
use super::regs::{Params, Strobes};
use super::{time_reached, TIME_MASK};

/// What a job will commit.
#[derive(Clone, Copy, Debug, Default)]
struct Commit {
    prob: u64,
    ppb: u64,
    /// For a periodic update: the new qdelay_old and whether a new measurement cycle starts.
    update: Option<(u64, bool)>,
}

#[derive(Clone, Debug, Default)]
pub struct Controller {
    /// Cycles left until the commit cycle; `None` while idle.
    job: Option<(u64, Commit)>,
    pub prob: u64,
    ppb: u64,
    lt20: bool,
    le10: bool,
    qdelay_old: u64,
    pub next_update: u64,
    dirty: bool,
    /// now >= next_update, as it stood last cycle: an update fires the cycle after it is due.
    fire: bool,
}

/// What happened at a clock edge, for coverage.
#[derive(Clone, Copy, Debug, Default)]
pub struct CtrlEvents {
    pub fired: bool,
    pub burst_reset: bool,
    pub saturated: bool,
    pub recompute: bool,
}

/// What the other blocks see of the controller this cycle.
#[derive(Clone, Copy, Debug)]
pub struct CtrlOut {
    pub prob: u64,
    pub ppb: u64,
    pub prob_lt20: bool,
    pub prob_le10: bool,
    pub pending: bool,
    pub burst_reset: bool,
}

impl Controller {
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    pub fn outputs(&self, now40: u64) -> CtrlOut {
        let burst_reset = match self.job {
            Some((0, c)) => matches!(c.update, Some((_, true))),
            _ => false,
        };
        CtrlOut {
            prob: self.prob,
            ppb: self.ppb,
            prob_lt20: self.lt20,
            prob_le10: self.le10,
            pending: self.dirty || self.fire || time_reached(now40, self.next_update),
            burst_reset,
        }
    }

    /// A new probability with the values derived from it. The RTL's restoring division gives all ones for
    /// an MTU of zero, which only the power-on state (before the first reset) can have.
    fn derived(prob: u64, mtu: u32) -> Commit {
        Commit {
            prob,
            ppb: prob.checked_div(mtu as u64).unwrap_or(MAX_PROB),
            update: None,
        }
    }

    pub fn clock(
        &mut self,
        rst: bool,
        now40: u64,
        qdelay: u64,
        backlog: u32,
        p: &Params,
        st: &Strobes,
    ) -> CtrlEvents {
        let mut ev = CtrlEvents::default();
        let fire = self.fire;
        self.fire = time_reached(now40, self.next_update);
        match self.job {
            None => {
                if st.prob_we {
                    ev.recompute = !rst;
                    self.job = Some((
                        RECOMPUTE_CYCLES - 1,
                        Self::derived(st.prob_wdata, p.pie.mtu),
                    ));
                } else if fire {
                    let mut vars = PieVars {
                        prob: self.prob,
                        qdelay,
                        qdelay_old: self.qdelay_old,
                        ..PieVars::new(0)
                    };
                    let params = PieParams {
                        target_us: p.pie.target_us,
                        alpha: p.pie.alpha,
                        beta: p.pie.beta,
                        ..PieParams::default()
                    };
                    debug_assert_eq!(params.target_ticks(), p.target_ticks);
                    let report = update(&mut vars, &params, backlog as u64);
                    ev.fired = !rst;
                    ev.burst_reset = !rst && report.burst_reset;
                    ev.saturated = !rst && report.saturated_up;
                    let mut c = Self::derived(vars.prob, p.pie.mtu);
                    c.update = Some((qdelay, report.burst_reset));
                    self.job = Some((UPDATE_CYCLES - 1, c));
                    self.next_update = (now40 + p.tupdate_ns) & TIME_MASK;
                    self.dirty = false;
                } else if self.dirty {
                    ev.recompute = !rst;
                    self.job = Some((RECOMPUTE_CYCLES - 1, Self::derived(self.prob, p.pie.mtu)));
                    self.dirty = false;
                }
            }
            Some((0, c)) => {
                self.prob = c.prob;
                self.ppb = c.ppb;
                self.lt20 = c.prob < PROB_20PCT;
                self.le10 = c.prob <= PROB_10PCT;
                if let Some((qd, _)) = c.update {
                    self.qdelay_old = qd;
                }
                self.job = None;
            }
            Some((n, c)) => self.job = Some((n - 1, c)),
        }
        if st.mtu_we {
            self.dirty = true;
        }
        debug_assert!(self.prob <= MAX_PROB);
        if rst {
            *self = Controller {
                lt20: true,
                le10: true,
                next_update: (now40 + FIRST_UPDATE_NS) & TIME_MASK,
                ..Controller::default()
            };
        }
        ev
    }
}
