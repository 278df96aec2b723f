//! The PI2 controller (`aqm_hdl::dualpi2::controller`): the RTL spreads an update over UPDATE_CYCLES and
//! a recompute over RECOMPUTE_CYCLES; this model computes either with the specification's functions
//! when it starts and commits the result at the edge that makes it visible in the cycle the contract
//! names (start cycle + UPDATE_CYCLES or + RECOMPUTE_CYCLES).

use super::super::consts::{coupled_prob, is_overload, RECOMPUTE_CYCLES, UPDATE_CYCLES};
use super::super::controller::update;
use super::super::params::{DualPi2Params, HARDWARE_PARAMS};
use super::super::vars::DualPi2Vars;
use super::queue::Entry;
use crate::hw::{time_reached, TIME_BITS, TIME_MASK};

const _: () = assert!(UPDATE_CYCLES >= 2 && RECOMPUTE_CYCLES >= 2);

/// What a job commits: p' and the K that kp and the overload flag are computed with; for an update,
/// also the new last_qdelay.
#[derive(Clone, Copy, Debug)]
struct Commit {
    prob: u32,
    k: u32,
    last_qdelay: Option<u64>,
}

#[derive(Clone, Debug, Default)]
pub struct Controller {
    /// Cycles left before the commit edge, and what it commits; `None` while Idle.
    job: Option<(u64, Commit)>,
    /// p', 2^32 - 1 = 100 %.
    pub prob: u32,
    /// k x p' (40 bits), as the egress compares it.
    pub kp: u64,
    /// The K that `kp` and `overload` were computed with (the RTL keeps only their results).
    pub kp_k: u32,
    /// kp > MAX.
    pub overload: bool,
    /// ns (40 bits).
    pub last_qdelay: u64,
    /// ns (40 bits).
    pub next_update: u64,
    /// A K commit asks for a recompute.
    pub dirty: bool,
    /// `due` of the previous cycle.
    pub fire: bool,
    pub updates: u32,
}

/// What happened at a clock edge, for coverage.
#[derive(Clone, Copy, Debug, Default)]
pub struct CtrlEvents {
    pub fired: bool,
    pub recompute: bool,
    pub saturated: bool,
    pub capped: bool,
}

/// What the controller reads of the rest of the core at the edge.
pub struct Env<'a> {
    pub now40: u64,
    /// The heads of the C and L queues this cycle.
    pub head_c: Option<Entry>,
    pub head_l: Option<Entry>,
    /// The effective parameters of this cycle.
    pub params: &'a DualPi2Params,
    /// The PROB write strobe of this cycle, with the written p'.
    pub prob_we: Option<u32>,
    /// The parameter engine commits K at this edge.
    pub k_commit: bool,
    /// The parameter engine commits TUPDATE_US at this edge: the new interval, ns.
    pub tupdate_commit: Option<u64>,
    pub clear_counters: bool,
}

/// The age of a head packet at `at` (mod 2^40; 0 if that is "negative", bit 39 set); 0 for none.
fn age(at: u64, head: Option<Entry>) -> u64 {
    head.map_or(0, |h| {
        let a = at.wrapping_sub(h.ts) & TIME_MASK;
        if a >> (TIME_BITS - 1) != 0 {
            0
        } else {
            a
        }
    })
}

impl Controller {
    /// Not Idle: a job runs.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// now40 has reached next_update.
    pub fn due(&self, now40: u64) -> bool {
        time_reached(now40, self.next_update)
    }

    fn start(&mut self, cycles: u64, c: Commit) {
        self.job = Some((cycles - 2, c));
    }

    pub fn clock(&mut self, rst: bool, e: &Env) -> CtrlEvents {
        let mut ev = CtrlEvents::default();
        let fire = self.fire;
        self.fire = self.due(e.now40);
        match self.job {
            None => {
                let k = e.params.k;
                if let Some(prob) = e.prob_we {
                    ev.recompute = true;
                    let c = Commit {
                        prob,
                        k,
                        last_qdelay: None,
                    };
                    self.start(RECOMPUTE_CYCLES, c);
                } else if self.dirty {
                    ev.recompute = true;
                    let c = Commit {
                        prob: self.prob,
                        k,
                        last_qdelay: None,
                    };
                    self.start(RECOMPUTE_CYCLES, c);
                    self.dirty = false;
                } else if fire {
                    // The snapshot: the due time, both heads, the parameters, p' and last_qdelay.
                    let at = self.next_update;
                    let qdelay = age(at, e.head_c).max(age(at, e.head_l));
                    let mut vars = DualPi2Vars {
                        prob: self.prob,
                        last_qdelay: self.last_qdelay,
                        credit: 0,
                    };
                    // CONTRACT: before the first reset K is 0 and the cap MAX / K is undefined; the
                    // model caps with K = 1 then (no RTL behaviour is specified before `rst`).
                    let params = DualPi2Params {
                        k: k.max(1),
                        ..*e.params
                    };
                    let r = update(&mut vars, &params, qdelay);
                    ev.fired = true;
                    ev.saturated = r.saturated;
                    ev.capped = r.capped;
                    // CONTRACT: kp and the overload flag of an update use the K of the snapshot (a K
                    // committed meanwhile sets `dirty` and gets its own recompute), and next_update
                    // moves on by the tupdate of the firing cycle (unless a TUPDATE commit re-arms it
                    // at the same edge, below).
                    let c = Commit {
                        prob: vars.prob,
                        k,
                        last_qdelay: Some(vars.last_qdelay),
                    };
                    self.start(UPDATE_CYCLES, c);
                    self.next_update = (at + e.params.tupdate_ns()) & TIME_MASK;
                }
            }
            Some((0, c)) => {
                self.prob = c.prob;
                self.kp_k = c.k;
                self.kp = coupled_prob(c.k, c.prob);
                self.overload = is_overload(c.k, c.prob);
                if let Some(q) = c.last_qdelay {
                    self.last_qdelay = q;
                    self.updates = self.updates.wrapping_add(1);
                }
                self.job = None;
            }
            Some((n, c)) => self.job = Some((n - 1, c)),
        }
        // CONTRACT: a K commit at the edge where a dirty recompute starts sets `dirty` again (set wins
        // over clear), so the newest K always gets its recompute.
        if e.k_commit {
            self.dirty = true;
        }
        // A TUPDATE commit re-arms the controller: the next update falls the new interval from now.
        if let Some(ns) = e.tupdate_commit {
            self.next_update = (e.now40 + ns) & TIME_MASK;
        }
        if e.clear_counters {
            self.updates = 0;
        }
        if rst {
            *self = Controller {
                kp_k: HARDWARE_PARAMS.k,
                next_update: (e.now40 + HARDWARE_PARAMS.tupdate_ns()) & TIME_MASK,
                ..Controller::default()
            };
            return CtrlEvents::default();
        }
        ev
    }
}
