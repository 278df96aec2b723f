//! A cycle-accurate model of the DualPI2 hardware core (`aqm_hdl::dualpi2::DualPi2Core`), written from
//! its contract, hdl/DUALPI2-CORE.md: `step(inputs) -> outputs` per clock, with the same ports as the
//! PIE core ([`crate::hw::CoreInputs`] / [`crate::hw::CoreOutputs`]) and the same outputs on every cycle
//! as the RTL.
//!
//! It mirrors the RTL block by block: the register file with its parameter engine ([`regs`]), the
//! ingress ([`ingress`]), two descriptor FIFOs ([`queue`]), the show-ahead dequeue with the WRR credit
//! and the link model ([`egress`]), the PI2 controller ([`controller`]) and the random generator. The
//! algorithm is the specification's, computed with the pure functions of [`crate::dualpi2`] (`admit`,
//! `decide`, `pick`, `credit_change`, `update`), not with a copy of the RTL's datapath; where the RTL
//! spreads work over cycles (the controller, the parameter engine) the model computes the result at
//! once and lets it appear in the cycle the contract names.
//!
//! [`driver`] drives a core the way an event simulator does (time held at each event, clocked until
//! `idle`) and puts this model behind the simulator's [`crate::Aqm`] interface, so that it can be
//! checked against the event-level [`super::DualPi2Qdisc`].
//!
//! Power-on state is all zeros, as the RTL's registers; drive `rst` first.

mod controller;
mod egress;
mod ingress;
mod queue;
mod regs;
#[cfg(test)]
mod system_tests;
#[cfg(test)]
mod tests;

pub use super::consts::{
    HW_QUEUE_CAPACITY, PARAM_CYCLES, RECOMPUTE_CYCLES, UPDATE_CYCLES, VERDICT_LATENCY,
};
pub use crate::hw::link::{TX_CYCLES, WAIT_LAG};
pub use ingress::{CODE_ENQUEUE, CODE_TAIL_DROP};
pub use queue::Entry;

use super::classify::{EnqueueVerdict, Limit};
use super::consts::us_to_ns;
use super::decision::{Decision, Rule, Verdict};
use super::params::DualPi2Params;
use super::qdisc::{DualPi2Stats, QueueStats};
use super::regs::{addr, DUALPI2_ID, STATUS_CTRL_BUSY, STATUS_WRITE_ERROR};
use super::scheduler::initial_credit;
use crate::hw::{CoreInputs, CoreOutputs, TIME_MASK};
use crate::prng::{XorShift64, DEFAULT_SEED};
use crate::types::QueueId;
use regs::{Read, Write};

/// Index of a queue in the model's per-queue arrays: C = 0, L = 1 (the `verdict_queue` / `out_queue`
/// bit).
pub(crate) fn qi(q: QueueId) -> usize {
    match q {
        QueueId::Classic => 0,
        QueueId::L => 1,
    }
}

/// Index of a rule in [`DualPi2Coverage::drops`] and [`DualPi2Coverage::marks`].
pub fn rule_index(r: Rule) -> usize {
    match r {
        Rule::Classic => 0,
        Rule::Coupled => 1,
        Rule::Overload => 2,
        Rule::Step => 3,
    }
}

/// Index of a limit in [`DualPi2Coverage::tail_drops`].
pub fn limit_index(l: Limit) -> usize {
    match l {
        Limit::Packets => 0,
        Limit::Bytes => 1,
        Limit::Capacity => 2,
    }
}

/// How often the model went through each internal event: what a test run exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DualPi2Coverage {
    /// Cycles with `rst` high.
    pub resets: u64,
    /// Resets by CONTROL bit 0.
    pub soft_resets: u64,
    pub updates: u64,
    /// Updates that clamped p' at 0 or 100 %.
    pub saturations: u64,
    /// Updates that capped p' at MAX / k (drop_overload off).
    pub caps: u64,
    /// Recomputes (PROB writes and K commits).
    pub recomputes: u64,
    pub param_commits: u64,
    pub k_commits: u64,
    pub seed_loads: u64,
    pub counter_clears: u64,
    pub rejected_writes: u64,
    pub unmapped_reads: u64,
    /// Verdicts, `[queue][code]`: queue C = 0, L = 1; enqueued = 0, tail drop = 1.
    pub verdicts: [[u64; 2]; 2],
    /// Tail drops by the limit that hit, by [`limit_index`].
    pub tail_drops: [u64; 3],
    pub picks_l: u64,
    pub picks_c: u64,
    /// Picks after a drop in the same dequeue request (departure time kept).
    pub chained_picks: u64,
    /// Packets sent unchanged.
    pub passes: u64,
    /// Drops at dequeue by rule, by [`rule_index`].
    pub drops: [u64; 4],
    /// CE marks by rule, by [`rule_index`].
    pub marks: [u64; 4],
    /// Decisions taken with k p' > 100 %.
    pub overload_decisions: u64,
    /// Decisions below the 2 MTU gate.
    pub gated_decisions: u64,
    /// Step marks below the 2 MTU gate (which shuts off the coupled part, not the step).
    pub gated_step_marks: u64,
    /// Decisions at the 2 MTU gate's edge: the backlog without the packet is 2 MTU (open) or
    /// 2 MTU - 1 (shut).
    pub gate_edges: u64,
    /// Gate edges within [`FRESH_MTU_CYCLES`] cycles of an MTU commit (the gate reads the new MTU).
    pub fresh_gate_edges: u64,
    /// Cycles in which a request found both queues empty and reset the credit.
    pub credit_resets: u64,
    /// Send handshakes.
    pub departures: u64,
    /// Picks that took the link model's exact departure time.
    pub exact_departures: u64,
    /// Transmissions that entered the link model's Wait.
    pub link_waits: u64,
}

impl DualPi2Coverage {
    /// Every counter by name (arrays by their index's meaning), for reports that sum runs.
    pub fn counts(&self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = [
            ("resets", self.resets),
            ("soft_resets", self.soft_resets),
            ("updates", self.updates),
            ("saturations", self.saturations),
            ("caps", self.caps),
            ("recomputes", self.recomputes),
            ("param_commits", self.param_commits),
            ("k_commits", self.k_commits),
            ("seed_loads", self.seed_loads),
            ("counter_clears", self.counter_clears),
            ("rejected_writes", self.rejected_writes),
            ("unmapped_reads", self.unmapped_reads),
            ("picks_l", self.picks_l),
            ("picks_c", self.picks_c),
            ("chained_picks", self.chained_picks),
            ("passes", self.passes),
            ("overload_decisions", self.overload_decisions),
            ("gated_decisions", self.gated_decisions),
            ("gated_step_marks", self.gated_step_marks),
            ("gate_edges", self.gate_edges),
            ("fresh_gate_edges", self.fresh_gate_edges),
            ("credit_resets", self.credit_resets),
            ("departures", self.departures),
            ("exact_departures", self.exact_departures),
            ("link_waits", self.link_waits),
        ]
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
        for (q, queue) in ["c", "l"].iter().enumerate() {
            for (c, code) in ["enqueued", "tail_drop"].iter().enumerate() {
                v.push((format!("verdicts_{queue}_{code}"), self.verdicts[q][c]));
            }
        }
        for (i, limit) in ["packets", "bytes", "capacity"].iter().enumerate() {
            v.push((format!("tail_drops_{limit}"), self.tail_drops[i]));
        }
        for (i, rule) in ["classic", "coupled", "overload", "step"]
            .iter()
            .enumerate()
        {
            v.push((format!("drops_{rule}"), self.drops[i]));
            v.push((format!("marks_{rule}"), self.marks[i]));
        }
        v
    }

    pub fn drops_by(&self, r: Rule) -> u64 {
        self.drops[rule_index(r)]
    }

    pub fn marks_by(&self, r: Rule) -> u64 {
        self.marks[rule_index(r)]
    }
}

/// A decision this many cycles or fewer after an MTU commit counts as fresh: the first decisions under
/// the new MTU, where a gate that reads MTU through a register of its own would still see the old one.
pub const FRESH_MTU_CYCLES: u32 = 4;

/// The DualPI2 core, cycle by cycle.
#[derive(Clone, Debug, Default)]
pub struct DualPi2CoreModel {
    pub coverage: DualPi2Coverage,
    regs: regs::Regs,
    ctrl: controller::Controller,
    ingress: ingress::Ingress,
    /// The C and L queues, by [`qi`].
    queues: [queue::Queue; 2],
    egress: egress::Egress,
    prng: u64,
    /// Cycles since the parameter engine last committed MTU, for [`DualPi2Coverage::fresh_gate_edges`].
    since_mtu_commit: u32,
}

/// Everything combinational in one cycle.
struct Comb {
    rst: bool,
    now40: u64,
    params: DualPi2Params,
    write: Write,
    /// The parameter the engine commits at this edge.
    commit: Option<(u8, u32)>,
    heads: [Option<Entry>; 2],
    counts: [u32; 2],
    eg: egress::Comb,
    /// The generator's next word.
    word: u64,
    out: CoreOutputs,
}

impl DualPi2CoreModel {
    /// The core with all registers at zero, as after power-on.
    pub fn new() -> DualPi2CoreModel {
        DualPi2CoreModel::default()
    }

    fn comb(&self, i: &CoreInputs) -> Comb {
        let rst = i.rst || self.regs.front.soft_rst;
        let now40 = i.now & TIME_MASK;
        let params = self.regs.params();
        let write = self.regs.taken(self.ctrl.busy());
        let heads = [self.queues[0].head(), self.queues[1].head()];
        let backlog = self.ingress.bytes[0] + self.ingress.bytes[1];
        let word = XorShift64::step(self.prng);
        let eg = self.egress.comb(&egress::View {
            now40,
            out_ready: i.out_ready,
            heads,
            params: &params,
            prob: self.ctrl.prob,
            kp_k: self.ctrl.kp_k,
            backlog,
            word,
        });
        let due = self.ctrl.due(now40);
        // CONTRACT: `idle` is exactly the contract's list. It does not cover the one-cycle pulses of
        // verdict_valid (a tail drop's verdict comes out with `idle` high), reg_rvalid and reg_err, so
        // the edge after an idle cycle may still end such a pulse.
        let idle = !rst
            && !self.ingress.busy()
            && !self.ingress.pushed
            && !self.ingress.pushed2
            && !self.ingress.pushed3
            && self.egress.quiet()
            && !eg.deq
            && !self.egress.link.in_tx()
            && !self.ctrl.busy()
            && !self.ctrl.fire
            && !due
            && !self.ctrl.dirty
            && write.prob().is_none()
            && !self.regs.engine_busy()
            && !self.regs.taking();
        let e = &self.egress;
        let shown = eg.shown;
        let g = &self.ingress;
        let out = CoreOutputs {
            in_ready: !rst,
            verdict_valid: g.vv,
            verdict_tag: g.vtag,
            verdict_code: g.vcode,
            verdict_queue: g.vqueue,
            out_valid: shown.is_some(),
            out_len: shown.map_or(0, |s| s.entry.desc.len),
            out_ecn: shown.map_or(0, |s| s.ecn()),
            out_tag: shown.map_or(0, |s| s.entry.desc.tag),
            out_sojourn: shown.map_or(0, |s| s.sojourn),
            out_queue: shown.is_some_and(|s| s.queue == QueueId::L),
            out_drop: shown.is_some_and(|s| s.drop()),
            reg_rdata: self.regs.front.rdata,
            reg_rvalid: self.regs.front.rvalid,
            reg_err: self.regs.front.err,
            idle,
            next_update: self.ctrl.next_update,
            link_free: e.link.link_free,
            link_busy: e.link.busy(),
        };
        Comb {
            rst,
            now40,
            params,
            write,
            commit: self.regs.committing(),
            heads,
            counts: [self.queues[0].count(), self.queues[1].count()],
            eg,
            word,
            out,
        }
    }

    /// The outputs of a cycle with these inputs, without its rising edge.
    pub fn outputs(&self, i: &CoreInputs) -> CoreOutputs {
        self.comb(i).out
    }

    /// The answer to a read of `a` in a cycle at `now40` (`None`: unmapped).
    fn read(&self, a: u8, now40: u64) -> Option<Read> {
        let v = |value: u32| {
            Some(Read {
                value,
                shadow: None,
            })
        };
        // A _LO half; the _HI half goes to the shadow register.
        let split = |x: u64| {
            Some(Read {
                value: x as u32,
                shadow: Some((x >> 32) as u32),
            })
        };
        let delay = |q: usize| {
            self.queues[q].head().map_or(0, |h| {
                (now40.wrapping_sub(h.ts) & TIME_MASK).min(u32::MAX as u64) as u32
            })
        };
        let (g, e, c) = (&self.ingress, &self.egress, &self.ctrl);
        match a {
            addr::ID => v(DUALPI2_ID),
            addr::STATUS => {
                let busy = c.busy() || self.regs.engine_busy();
                let err = self.regs.front.err_sticky;
                v(if err { STATUS_WRITE_ERROR } else { 0 }
                    | if busy { STATUS_CTRL_BUSY } else { 0 })
            }
            addr::CONTROL => v(0),
            addr::CAPACITY => v(HW_QUEUE_CAPACITY),
            addr::TARGET_US..=addr::LINK_BYTE_TIME => v(self.regs.param(a)),
            addr::SEED_LO => split(self.prng),
            addr::SEED_HI | addr::SENT_BYTES_L_HI | addr::SENT_BYTES_C_HI => {
                v(self.regs.front.shadow)
            }
            addr::PROB => v(c.prob),
            addr::PKTS_IN_L => v(g.pkts_in[1]),
            addr::PKTS_IN_C => v(g.pkts_in[0]),
            addr::SENT_PKTS_L => v(e.sent_pkts[1]),
            addr::SENT_PKTS_C => v(e.sent_pkts[0]),
            addr::SENT_BYTES_L_LO => split(e.sent_bytes[1]),
            addr::SENT_BYTES_C_LO => split(e.sent_bytes[0]),
            addr::DROPPED_ENQ_L => v(g.dropped_enq[1]),
            addr::DROPPED_ENQ_C => v(g.dropped_enq[0]),
            addr::DROPPED_AQM_L => v(e.dropped_aqm[1]),
            addr::DROPPED_AQM_C => v(e.dropped_aqm[0]),
            addr::MARKED_L => v(e.marked[1]),
            addr::MARKED_C => v(e.marked[0]),
            addr::STEP_MARKS => v(e.step_marks),
            addr::OVERLOAD => v(e.overload),
            addr::BACKLOG_BYTES_L => v(g.bytes[1] as u32),
            addr::BACKLOG_BYTES_C => v(g.bytes[0] as u32),
            addr::BACKLOG_PKTS_L => v(self.queues[1].count()),
            addr::BACKLOG_PKTS_C => v(self.queues[0].count()),
            addr::MAXQ => v(g.maxq),
            addr::DELAY_L => v(delay(1)),
            addr::DELAY_C => v(delay(0)),
            addr::LAST_QDELAY => v(c.last_qdelay.min(u32::MAX as u64) as u32),
            // Two's complement, 32 bits (the credit stays within +-100 x 65535).
            addr::CREDIT => v(e.credit as i32 as u32),
            addr::UPDATES => v(c.updates),
            _ => None,
        }
    }

    /// One clock cycle: the outputs seen during the cycle, then the state after its rising edge.
    pub fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        let c = self.comb(i);
        let rst = c.rst;
        let read = if i.reg_re {
            self.read(i.reg_addr, c.now40)
        } else {
            None
        };
        let clear = c.write.clear_counters();
        let k_commit = matches!(c.commit, Some((addr::K, _)));
        let tupdate_commit = match c.commit {
            Some((addr::TUPDATE_US, us)) => Some(us_to_ns(us)),
            _ => None,
        };
        let credit_load = match c.commit {
            Some((addr::MTU, mtu)) => Some(initial_credit(&DualPi2Params { mtu, ..c.params })),
            Some((addr::C_PROTECTION, wc)) => Some(initial_credit(&DualPi2Params {
                c_protection: wc,
                ..c.params
            })),
            _ => None,
        };

        // The rising edge.
        let push = self.ingress.clock(
            rst,
            i,
            &ingress::Env {
                now40: c.now40,
                params: &c.params,
                counts: c.counts,
                popped: c.eg.pop().map(|(q, h)| (q, h.desc.len)),
                clear_counters: clear,
            },
        );
        let eev = self.egress.clock(
            rst,
            &c.eg,
            &egress::Env {
                now40: c.now40,
                params: &c.params,
                link_bt: self.regs.link_bt(),
                credit_load,
                clear_counters: clear,
            },
        );
        for (n, q) in self.queues.iter_mut().enumerate() {
            let push = push.filter(|(pq, _)| qi(*pq) == n).map(|(_, e)| e);
            let pop = c.eg.pop().is_some_and(|(pq, _)| qi(pq) == n);
            q.clock(rst, push, pop);
        }
        let cev = self.ctrl.clock(
            rst,
            &controller::Env {
                now40: c.now40,
                head_c: c.heads[0],
                head_l: c.heads[1],
                params: &c.params,
                prob_we: c.write.prob(),
                k_commit,
                tupdate_commit,
                clear_counters: clear,
            },
        );
        // The generator: reset, else a seed load, else a consumed word.
        self.prng = if rst {
            DEFAULT_SEED
        } else if let Some(s) = c.write.seed() {
            s
        } else if c.eg.pop().is_some() {
            c.word
        } else {
            self.prng
        };
        let committed = self.regs.clock(i, rst, c.write, read);

        // Coverage of this cycle's events.
        let since_mtu_commit = self.since_mtu_commit;
        self.since_mtu_commit = match c.commit {
            Some((addr::MTU, _)) => 0,
            _ => since_mtu_commit.saturating_add(1),
        };
        let cov = &mut self.coverage;
        cov.resets += i.rst as u64;
        cov.soft_resets += (rst && !i.rst) as u64;
        if rst {
            return c.out;
        }
        cov.rejected_writes += (c.write == Write::Rejected) as u64;
        cov.unmapped_reads += (i.reg_re && read.is_none()) as u64;
        cov.seed_loads += c.write.seed().is_some() as u64;
        cov.counter_clears += clear as u64;
        cov.param_commits += committed.is_some() as u64;
        cov.k_commits += k_commit as u64;
        if let Some(a) = self.ingress.last {
            let code = match a.verdict {
                EnqueueVerdict::Enqueue { .. } => 0,
                EnqueueVerdict::Overlimit(l) => {
                    cov.tail_drops[limit_index(l)] += 1;
                    1
                }
            };
            cov.verdicts[qi(a.queue)][code] += 1;
        }
        if let Some((q, _)) = c.eg.pop() {
            match q {
                QueueId::L => cov.picks_l += 1,
                QueueId::Classic => cov.picks_c += 1,
            }
            cov.chained_picks += c.eg.chained as u64;
            cov.exact_departures += c.eg.exact as u64;
        }
        cov.credit_resets += c.eg.credit_reset as u64;
        if let Some((_, d, margin)) = eev.decided {
            match d.verdict {
                Verdict::Pass => cov.passes += 1,
                Verdict::Mark(r) => cov.marks[rule_index(r)] += 1,
                Verdict::Drop(r) => cov.drops[rule_index(r)] += 1,
            }
            cov.overload_decisions += d.overload as u64;
            cov.gated_decisions += d.gated as u64;
            cov.gated_step_marks += (d.gated && d.verdict == Verdict::Mark(Rule::Step)) as u64;
            let edge = margin == 0 || margin == -1;
            cov.gate_edges += edge as u64;
            cov.fresh_gate_edges += (edge && since_mtu_commit < FRESH_MTU_CYCLES) as u64;
        }
        cov.departures += eev.sent as u64;
        cov.link_waits += eev.link_wait as u64;
        cov.updates += cev.fired as u64;
        cov.recomputes += cev.recompute as u64;
        cov.saturations += cev.saturated as u64;
        cov.caps += cev.capped as u64;
        c.out
    }

    /// The DualPI2 parameters in effect (the queue capacity is the FIFOs' 512).
    pub fn params(&self) -> DualPi2Params {
        self.regs.params()
    }

    /// LINK_BYTE_TIME in effect, ns/byte Q16.8.
    pub fn link_byte_time(&self) -> u32 {
        self.regs.link_bt()
    }

    /// p', 2^32 - 1 = 100 %.
    pub fn prob(&self) -> u32 {
        self.ctrl.prob
    }

    /// The controller's kp = k x p' (40 bits).
    pub fn kp(&self) -> u64 {
        self.ctrl.kp
    }

    /// The controller's overload flag, kp > MAX.
    pub fn overload_flag(&self) -> bool {
        self.ctrl.overload
    }

    /// ns.
    pub fn last_qdelay(&self) -> u64 {
        self.ctrl.last_qdelay
    }

    /// ns, 40 bits.
    pub fn next_update(&self) -> u64 {
        self.ctrl.next_update
    }

    /// A K commit waits for its recompute.
    pub fn dirty(&self) -> bool {
        self.ctrl.dirty
    }

    pub fn controller_busy(&self) -> bool {
        self.ctrl.busy()
    }

    pub fn param_engine_busy(&self) -> bool {
        self.regs.engine_busy()
    }

    /// The WRR credit, bytes x %.
    pub fn credit(&self) -> i64 {
        self.egress.credit
    }

    /// The generator's state (the last word consumed, or the seed).
    pub fn prng_state(&self) -> u64 {
        self.prng
    }

    /// Packets (the count, with a push of the last cycle) and bytes in queue `q`.
    pub fn backlog(&self, q: QueueId) -> (u32, u64) {
        let n = qi(q);
        (self.queues[n].count(), self.ingress.bytes[n])
    }

    /// The decision behind the packet on the egress stream in a cycle with these inputs, while
    /// `out_valid` is high.
    pub fn egress_decision(&self, i: &CoreInputs) -> Option<Decision> {
        self.comb(i).eg.shown.map(|s| s.decision)
    }

    /// The counters in the qdisc's form (per-queue maxq, which the core does not keep, is 0), with p'
    /// and the credit as they are now.
    pub fn stats(&self) -> DualPi2Stats {
        let (g, e) = (&self.ingress, &self.egress);
        let queue = |n: usize| QueueStats {
            pkts_in: g.pkts_in[n] as u64,
            sent_pkts: e.sent_pkts[n] as u64,
            sent_bytes: e.sent_bytes[n],
            dropped_enqueue: g.dropped_enq[n] as u64,
            dropped_aqm: e.dropped_aqm[n] as u64,
            marked: e.marked[n] as u64,
            step_marked: if n == 1 { e.step_marks as u64 } else { 0 },
            maxq: 0,
        };
        DualPi2Stats {
            l: queue(1),
            c: queue(0),
            overload: e.overload as u64,
            updates: self.ctrl.updates as u64,
            maxq: g.maxq as u64,
            prob: self.ctrl.prob,
            credit: e.credit,
        }
    }
}
