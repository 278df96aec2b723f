//! A cycle-accurate model of the PIE hardware core (`aqm_hdl::pie::core::PieCore`): `step(inputs) ->
//! outputs` per clock, with the same ports, the same register timing and the same outputs on every cycle.
//!
//! It mirrors the RTL block by block (register file, controller, ingress pipeline, descriptor queue,
//! egress with its link model, random generator), but computes the algorithm with the pure functions of
//! spec/pie.md: the controller update with [`super::controller::update`], the verdict with
//! [`super::enqueue::finish`], so that the RTL is checked against the specification itself and not
//! against a second copy of its own datapath. Where the RTL spreads work over cycles (the bit-serial
//! controller, the bytemode multiplier, the link model's multiplier) the model computes the result at
//! once and lets it appear in the same cycle the RTL's does.
//!
//! Power-on state is all zeros, as the RTL's registers; drive `rst` first.

mod controller;
mod egress;
mod ingress;
mod queue;
mod regs;

pub use super::consts::{
    BYTEMODE_HOLD, RECOMPUTE_CYCLES, TX_CYCLES, UPDATE_CYCLES, VERDICT_LATENCY,
};

use crate::prng::XorShift64;

pub use crate::hw::io::{CoreInputs as PieCoreInputs, CoreOutputs as PieCoreOutputs};
pub use crate::hw::link::WAIT_LAG;
pub use crate::hw::TIME_BITS;
pub(crate) use crate::hw::{time_reached, TIME_MASK};

/// How often the model went through each internal event: what a test run exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PieCoverage {
    pub resets: u64,
    pub soft_resets: u64,
    pub updates: u64,
    /// Updates that started a new measurement cycle (burst allowance refilled).
    pub burst_resets: u64,
    /// Updates that saturated prob at 100 %.
    pub saturations: u64,
    pub recomputes: u64,
    pub bytemode_products: u64,
    pub verdicts: [u64; 4],
    /// Early decisions taken with a random draw (not by the 8.5 rule).
    pub random_drops: u64,
    /// Packets whose acc + lp was on a threshold (0.85 or 8.5, or less than 2^30 above).
    pub threshold_sums: u64,
    pub departures: u64,
    /// Departures at exactly the end of the previous transmission.
    pub exact_departures: u64,
    pub link_waits: u64,
    pub stale_gaps: u64,
    pub rejected_writes: u64,
}

impl PieCoverage {
    /// Every counter by name (verdicts by code), for reports that sum runs.
    pub fn counts(&self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = [
            ("resets", self.resets),
            ("soft_resets", self.soft_resets),
            ("updates", self.updates),
            ("burst_resets", self.burst_resets),
            ("saturations", self.saturations),
            ("recomputes", self.recomputes),
            ("bytemode_products", self.bytemode_products),
            ("random_drops", self.random_drops),
            ("threshold_sums", self.threshold_sums),
            ("departures", self.departures),
            ("exact_departures", self.exact_departures),
            ("link_waits", self.link_waits),
            ("stale_gaps", self.stale_gaps),
            ("rejected_writes", self.rejected_writes),
        ]
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
        for (c, code) in ["enqueued", "marked", "early_drop", "tail_drop"]
            .iter()
            .enumerate()
        {
            v.push((format!("verdicts_{code}"), self.verdicts[c]));
        }
        v
    }
}

/// The PIE core, cycle by cycle.
#[derive(Clone, Debug, Default)]
pub struct PieCoreModel {
    pub coverage: PieCoverage,
    regs: regs::Regs,
    ctrl: controller::Controller,
    ingress: ingress::Ingress,
    queue: queue::Queue,
    egress: egress::Egress,
    prng: u64,
}

impl PieCoreModel {
    /// The core with the bytemode multiplier (`PieCore<PIE_FULL>`), all registers at zero as after
    /// power-on.
    pub fn new() -> PieCoreModel {
        let mut m = PieCoreModel::default();
        m.regs.bytemode_hw = true;
        m
    }

    /// The core without it (`PieCore<PIE_LITE>`): BYTEMODE = 1 is refused.
    pub fn lite() -> PieCoreModel {
        PieCoreModel::default()
    }

    /// Cycles from accepting a descriptor of `len` bytes in this cycle to its verdict, with the parameters
    /// in effect: [`VERDICT_LATENCY`], and [`BYTEMODE_HOLD`] - 1 more for a bytemode packet (its
    /// multiplier holds stage P0).
    pub fn verdict_latency(&self, len: u16) -> u64 {
        if self.regs.params().in_bytes(len) {
            VERDICT_LATENCY + BYTEMODE_HOLD - 1
        } else {
            VERDICT_LATENCY
        }
    }

    /// The outputs seen during a cycle with these inputs (before its rising edge).
    pub fn outputs(&self, i: &PieCoreInputs) -> PieCoreOutputs {
        let rst = i.rst || self.regs.front.soft_rst;
        let now40 = i.now & TIME_MASK;
        let ctrl = self.ctrl.outputs(now40);
        // A packet pushed but not yet at the head of the queue (its lag) keeps the core busy.
        let in_transit = self.queue.count() > 0 && self.queue.head().is_none();
        let eg = self.egress.comb(now40, self.queue.head(), i.out_ready);
        let ing = self.ingress.comb(rst);
        PieCoreOutputs {
            in_ready: ing.in_ready,
            verdict_valid: self.ingress.vv,
            verdict_tag: self.ingress.vtag,
            verdict_code: self.ingress.vcode,
            verdict_queue: false,
            out_valid: eg.out_valid,
            out_len: eg.out_len,
            out_ecn: eg.out_ecn,
            out_tag: eg.out_tag,
            out_sojourn: eg.out_sojourn,
            out_queue: false,
            out_drop: false,
            reg_rdata: self.regs.front.rdata,
            reg_rvalid: self.regs.front.rvalid,
            reg_err: self.regs.front.err,
            idle: !(self.ingress.busy()
                || self.egress.busy()
                || in_transit
                || self.ctrl.busy()
                || ctrl.pending
                || self.regs.front.soft_rst),
            next_update: self.ctrl.next_update,
            link_free: self.egress.link.link_free,
            link_busy: self.egress.link_busy(),
        }
    }

    /// One clock cycle: the outputs seen during the cycle, then the state after its rising edge.
    pub fn step(&mut self, i: &PieCoreInputs) -> PieCoreOutputs {
        let rst = i.rst || self.regs.front.soft_rst;
        let now40 = i.now & TIME_MASK;

        // Everything one block reads of another, as it stands before the edge.
        let params = self.regs.params();
        let strobes = self.regs.strobes(self.ctrl.busy());
        let ctrl = self.ctrl.outputs(now40);
        let deq = self.egress.view();
        let count = self.queue.count();
        let backlog = self.ingress.backlog;
        let rnd = XorShift64::step(self.prng);

        let out = self.outputs(i);
        let eg = self.egress.comb(now40, self.queue.head(), i.out_ready);
        let ing = self.ingress.comb(rst);
        let readables = regs::Readables {
            ctrl_busy: self.ctrl.busy(),
            pkts_in: self.ingress.pkts_in,
            sent_pkts: self.egress.sent_pkts,
            sent_bytes: self.egress.sent_bytes,
            dropped: self.ingress.dropped,
            overlimit: self.ingress.overlimit,
            marked: self.ingress.marked,
            backlog_bytes: backlog,
            backlog_pkts: count,
            maxq: self.ingress.maxq,
            qdelay: deq.qdelay,
            acc: self.ingress.acc,
            burst: deq.burst,
            prob: ctrl.prob,
            prng_state: self.prng,
        };

        // Coverage of this cycle's events.
        let cov = &mut self.coverage;
        cov.resets += i.rst as u64;
        cov.soft_resets += (self.regs.front.soft_rst && !i.rst) as u64;
        cov.rejected_writes += self.regs.front.err as u64;
        if self.ingress.vv {
            cov.verdicts[self.ingress.vcode as usize & 3] += 1;
        }
        if eg.pop {
            cov.departures += 1;
            cov.exact_departures += self.egress.exact_now() as u64;
        }

        // The rising edge.
        let push = self.ingress.clock(
            rst,
            i,
            &ing,
            &ingress::Env {
                params: &params,
                ctrl: &ctrl,
                deq: &deq,
                count,
                rnd,
                clear_counters: strobes.clear_counters,
            },
        );
        self.egress.clock(
            rst,
            now40,
            &eg,
            count,
            &params,
            ctrl.burst_reset,
            strobes.clear_counters,
        );
        self.queue.clock(rst, push, eg.pop);
        let ev = self
            .ctrl
            .clock(rst, now40, deq.qdelay, backlog, &params, &strobes);
        let eev = self.egress.events();
        let iev = self.ingress.events();
        let cov = &mut self.coverage;
        cov.updates += ev.fired as u64;
        cov.burst_resets += ev.burst_reset as u64;
        cov.saturations += ev.saturated as u64;
        cov.recomputes += ev.recompute as u64;
        cov.link_waits += eev.0;
        cov.stale_gaps += eev.1;
        cov.bytemode_products += iev.0;
        cov.random_drops += iev.1;
        cov.threshold_sums += iev.2;
        // The generator: reset, else a seed write, else a consumed word.
        self.prng = if rst {
            crate::prng::DEFAULT_SEED
        } else if strobes.seed_we {
            strobes.seed
        } else if ing.rnd_take {
            rnd
        } else {
            self.prng
        };
        self.regs.clock(i, rst, &readables);
        out
    }
}
