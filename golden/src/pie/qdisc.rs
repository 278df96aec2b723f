//! PIE as a queue discipline for the network simulator: the fixed-point functions of this module driven
//! by packet events, with the hardware core's timing rules, so that a run through this model and a run
//! through the Verilated core (clocked around the same events) give the same verdicts.
//!
//! - One random word per arriving packet, from the hardware's generator, seeded per run with
//!   [`run_seed`].
//! - The controller fires 500 ms after the start, then every tupdate after each firing; updates that fell
//!   due before an event run first, at their own time, with the queue as it stood then.
//! - A departure is timestamped when the link asks for the packet; the delay sample is in 64 ns ticks of
//!   the enqueue and departure times, as Linux and the hardware take them.
//! - The burst allowance starts at 150 ms (the hardware's reset value); `max_burst_us` is what a new
//!   measurement cycle refills.

use super::consts::{ns_to_ticks, FIRST_UPDATE_NS};
use super::controller::update;
use super::dequeue::on_dequeue;
use super::enqueue::{decide, QueueView, Verdict};
use super::params::{ParamError, PieParams, DEFAULT_PARAMS};
use super::vars::PieVars;
use crate::aqm::Aqm;
use crate::prng::{XorShift64, DEFAULT_SEED};
use crate::types::{Admission, Departure, DropReason, Dropped, Ecn, MarkReason, Packet, QueueId};
use std::collections::VecDeque;

/// The generator seed of a run with the simulator seed `seed` (never zero).
pub fn run_seed(seed: u64) -> u64 {
    match XorShift64::step(seed ^ DEFAULT_SEED) {
        0 => DEFAULT_SEED,
        s => s,
    }
}

/// Counters like `tc -s qdisc show` gives for pie.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PieStats {
    pub pkts_in: u64,
    pub dropped: u64,
    pub overlimit: u64,
    pub ecn_mark: u64,
    pub maxq: u64,
    pub updates: u64,
}

/// The golden PIE qdisc.
pub struct PieQdisc {
    params: PieParams,
    vars: PieVars,
    rng: XorShift64,
    queue: VecDeque<(Packet, u64)>,
    bytes: u64,
    next_update: u64,
    stats: PieStats,
}

impl PieQdisc {
    /// A qdisc with `params` (checked against the hardware's ranges) whose generator is seeded from the
    /// simulator seed; the clock starts at 0.
    pub fn new(params: PieParams, seed: u64) -> Result<PieQdisc, ParamError> {
        params.validate()?;
        Ok(PieQdisc {
            params,
            vars: PieVars::new(DEFAULT_PARAMS.max_burst_ticks()),
            rng: XorShift64::new(run_seed(seed)).expect("run_seed is never zero"),
            queue: VecDeque::new(),
            bytes: 0,
            next_update: FIRST_UPDATE_NS,
            stats: PieStats::default(),
        })
    }

    pub fn params(&self) -> &PieParams {
        &self.params
    }

    pub fn vars(&self) -> &PieVars {
        &self.vars
    }

    pub fn stats(&self) -> PieStats {
        self.stats
    }

    /// When the controller fires next, ns.
    pub fn next_update(&self) -> u64 {
        self.next_update
    }

    /// Runs every update due at or before `now`.
    fn catch_up(&mut self, now: u64) {
        while self.next_update <= now {
            let report = update(&mut self.vars, &self.params, self.bytes);
            if report.burst_reset {
                self.vars.burst_time = self.params.max_burst_ticks();
            }
            self.next_update += self.params.tupdate_ns();
            self.stats.updates += 1;
        }
    }
}

impl Aqm for PieQdisc {
    fn name(&self) -> String {
        "pie".into()
    }

    fn enqueue(&mut self, now_ns: u64, mut pkt: Packet) -> Admission {
        self.catch_up(now_ns);
        let rnd = self.rng.next_word();
        let q = QueueView {
            packets: self.queue.len() as u32,
            bytes: self.bytes,
        };
        let d = decide(&self.vars, &self.params, q, pkt.len, pkt.ecn, rnd);
        self.vars.accu_prob = d.accu_prob;
        self.stats.pkts_in += 1;
        match d.verdict {
            Verdict::Enqueue | Verdict::Mark => {
                let admission = if d.verdict == Verdict::Mark {
                    pkt.ecn = Ecn::Ce;
                    self.stats.ecn_mark += 1;
                    Admission::Marked(MarkReason::Early)
                } else {
                    Admission::Enqueued
                };
                self.bytes += pkt.len as u64;
                self.queue.push_back((pkt, now_ns));
                self.stats.maxq = self.stats.maxq.max(self.queue.len() as u64);
                admission
            }
            Verdict::EarlyDrop => {
                self.stats.dropped += 1;
                Admission::Dropped(DropReason::Early)
            }
            Verdict::TailDrop => {
                self.stats.dropped += 1;
                self.stats.overlimit += 1;
                Admission::Dropped(DropReason::Overlimit)
            }
        }
    }

    fn dequeue(&mut self, now_ns: u64, _drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.catch_up(now_ns);
        let (pkt, ts) = self.queue.pop_front()?;
        self.bytes -= pkt.len as u64;
        let sojourn_ticks = ns_to_ticks(now_ns) - ns_to_ticks(ts);
        on_dequeue(
            &mut self.vars,
            ns_to_ticks(now_ns),
            sojourn_ticks,
            self.queue.is_empty(),
        );
        Some(Departure {
            pkt,
            sojourn_ns: now_ns - ts,
            mark: None,
            queue: QueueId::Classic,
        })
    }

    fn backlog_packets(&self) -> usize {
        self.queue.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(id: u64) -> Packet {
        Packet {
            id,
            flow: 0,
            len: 1500,
            ecn: Ecn::NotEct,
        }
    }

    #[test]
    fn overload_raises_prob_and_drops_early() {
        let mut q = PieQdisc::new(PieParams::default(), 1).unwrap();
        let mut drops = vec![];
        let (mut early, mut sent) = (0, 0);
        // 2 packets per ms in, 1 out: the queue and its delay grow until PIE pushes back.
        for ms in 0..5_000u64 {
            for k in 0..2 {
                if q.enqueue(ms * 1_000_000 + k * 500_000, pkt(ms * 2 + k))
                    == Admission::Dropped(DropReason::Early)
                {
                    early += 1;
                }
            }
            if q.dequeue(ms * 1_000_000 + 999_000, &mut drops).is_some() {
                sent += 1;
            }
        }
        assert!(q.vars().prob > 0, "prob stayed at zero");
        assert!(early > 1000, "{early} early drops");
        assert_eq!(sent, 5_000);
        // Updates at 500 ms, 515 ms, ... up to the last event at 4999.999 ms.
        assert_eq!(q.stats().updates, 300);
    }

    #[test]
    fn updates_run_at_their_own_time_however_late_the_next_event() {
        let mut q = PieQdisc::new(PieParams::default(), 1).unwrap();
        q.enqueue(0, pkt(0));
        q.dequeue(2_000_000_000, &mut vec![]);
        assert_eq!(q.stats().updates, 101);
        assert_eq!(q.next_update(), 500_000_000 + 101 * 15_000_000);
    }

    #[test]
    fn parameters_outside_the_hardware_ranges_are_refused() {
        let p = PieParams {
            limit: 5000,
            ..PieParams::default()
        };
        assert!(PieQdisc::new(p, 1).is_err());
    }
}
