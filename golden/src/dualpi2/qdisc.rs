//! DualPI2 as a queue discipline for the network simulator: the fixed-point functions of this module driven
//! by packet events, with the hardware core's event rules, so that a run through this model and a run
//! through the Verilated core (clocked around the same events) give the same verdicts.
//!
//! - Enqueue at `now`: [`admit`] against both queues; an accepted packet is timestamped `now` and keeps
//!   its `apply_step` bit (the hardware stores it in the descriptor).
//! - The controller fires a tupdate after the start, then every tupdate after each firing. Updates that
//!   fell due at or before an event run first, each at its own time, with the head ages as they stood then
//!   (the queues do not change between events); an update due at the time of a dequeue sees the packet
//!   that dequeue then takes.
//! - Dequeue at `now` (the link asks), in this order, looping until a packet is sent or both queues are
//!   empty:
//!   1. [`pick`] a queue from the credit and which queues hold packets; both empty: the credit returns
//!      to its initial value and nothing is sent.
//!   2. Note whether both queues are backlogged, then take the head packet off its queue.
//!   3. Draw one 64-bit word from the generator (for every packet taken off a head, whatever happens to
//!      it).
//!   4. [`decide`] with the backlog of both queues now left and the sojourn `now - timestamp`.
//!   5. Drop: report it in `drops`, leave the credit alone, and go back to 1. Otherwise add
//!      [`credit_change`] (zero unless both were backlogged in 2) and send it, CE-marked if marked.
//! - The generator is the hardware's xorshift64, seeded per run with [`run_seed`].

use super::classify::{admit, EnqueueVerdict, QueueView};
use super::controller::{head_of_queue_delay, update};
use super::decision::{decide, Head, Rule, Verdict};
use super::params::{DualPi2Params, ParamError};
use super::scheduler::{credit_change, initial_credit, pick};
use super::vars::DualPi2Vars;
use crate::aqm::Aqm;
use crate::prng::{XorShift64, DEFAULT_SEED};
use crate::types::{Admission, Departure, DropReason, Dropped, Ecn, Packet, QueueId};
use std::collections::VecDeque;

/// Mixed into the simulator seed (PIE mixes in DEFAULT_SEED) so that DualPI2's draws differ from PIE's
/// for the same seed.
const SEED_SALT: u64 = 0xD1A1_0B12_C0DE_5EED;

/// The generator seed of a run with the simulator seed `seed` (never zero).
pub fn run_seed(seed: u64) -> u64 {
    match XorShift64::step(seed ^ SEED_SALT) {
        0 => DEFAULT_SEED,
        s => s,
    }
}

/// Counters of one queue, like `tc -s qdisc show` gives for dualpi2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Packets accepted into the queue (tc pkts_in_l / pkts_in_c).
    pub pkts_in: u64,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    /// Tail drops at enqueue (overlimit).
    pub dropped_enqueue: u64,
    /// Drops at dequeue by the AQM (coupled, overload and step drops).
    pub dropped_aqm: u64,
    /// Packets sent CE-marked, by any rule.
    pub marked: u64,
    /// Of `marked`, those the step threshold marked.
    pub step_marked: u64,
    /// The longest the queue has been, packets.
    pub maxq: u64,
}

/// Counters of the whole qdisc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DualPi2Stats {
    pub l: QueueStats,
    pub c: QueueStats,
    /// Packets the coupled part judged in overload (k p' > 100 %).
    pub overload: u64,
    /// Controller updates run.
    pub updates: u64,
    /// The most packets both queues held together (tc maxq).
    pub maxq: u64,
    /// p' now (tc prob), 100 % = 2^32 - 1.
    pub prob: u32,
    /// The WRR credit now (tc credit).
    pub credit: i64,
}

impl DualPi2Stats {
    /// The counters of `q`.
    pub fn queue(&self, q: QueueId) -> &QueueStats {
        match q {
            QueueId::L => &self.l,
            QueueId::Classic => &self.c,
        }
    }

    fn queue_mut(&mut self, q: QueueId) -> &mut QueueStats {
        match q {
            QueueId::L => &mut self.l,
            QueueId::Classic => &mut self.c,
        }
    }
}

/// A queued packet: the descriptor, its enqueue time (ns) and its step bit.
#[derive(Clone, Copy, Debug)]
struct Queued {
    pkt: Packet,
    ts: u64,
    apply_step: bool,
}

/// One of the two FIFOs.
#[derive(Clone, Debug, Default)]
struct Fifo {
    packets: VecDeque<Queued>,
    bytes: u64,
}

/// The golden DualPI2 qdisc.
pub struct DualPi2Qdisc {
    params: DualPi2Params,
    vars: DualPi2Vars,
    rng: XorShift64,
    l: Fifo,
    c: Fifo,
    next_update: u64,
    stats: DualPi2Stats,
}

impl DualPi2Qdisc {
    /// A qdisc with `params` (range-checked) whose generator is seeded from the simulator seed; the clock
    /// starts at 0.
    pub fn new(params: DualPi2Params, seed: u64) -> Result<DualPi2Qdisc, ParamError> {
        params.validate()?;
        Ok(DualPi2Qdisc {
            params,
            vars: DualPi2Vars::new(&params),
            rng: XorShift64::new(run_seed(seed)).expect("run_seed is never zero"),
            l: Fifo::default(),
            c: Fifo::default(),
            next_update: params.tupdate_ns(),
            stats: DualPi2Stats::default(),
        })
    }

    pub fn params(&self) -> &DualPi2Params {
        &self.params
    }

    /// p', the last delay and the credit.
    pub fn vars(&self) -> &DualPi2Vars {
        &self.vars
    }

    /// The counters, with p' and the credit as they are now.
    pub fn stats(&self) -> DualPi2Stats {
        DualPi2Stats {
            prob: self.vars.prob,
            credit: self.vars.credit,
            ..self.stats
        }
    }

    /// When the controller fires next, ns.
    pub fn next_update(&self) -> u64 {
        self.next_update
    }

    /// The generator's state: the last word drawn (or the seed), as the hardware's SEED registers read.
    pub fn rng_state(&self) -> u64 {
        self.rng.state()
    }

    /// Packets and bytes in queue `q`.
    pub fn backlog(&self, q: QueueId) -> (usize, u64) {
        let f = self.fifo(q);
        (f.packets.len(), f.bytes)
    }

    /// The age of queue `q`'s head packet at `now_ns` (0 when empty): tc's delay_l / delay_c.
    pub fn queue_delay(&self, q: QueueId, now_ns: u64) -> u64 {
        self.head_ts(q).map_or(0, |ts| now_ns.saturating_sub(ts))
    }

    /// Sets p' as a write of the PROB register does (no cap applied: the next update applies it).
    pub fn set_prob(&mut self, prob: u32) {
        self.vars.prob = prob;
    }

    fn fifo(&self, q: QueueId) -> &Fifo {
        match q {
            QueueId::L => &self.l,
            QueueId::Classic => &self.c,
        }
    }

    fn fifo_mut(&mut self, q: QueueId) -> &mut Fifo {
        match q {
            QueueId::L => &mut self.l,
            QueueId::Classic => &mut self.c,
        }
    }

    fn head_ts(&self, q: QueueId) -> Option<u64> {
        self.fifo(q).packets.front().map(|p| p.ts)
    }

    fn total_packets(&self) -> usize {
        self.l.packets.len() + self.c.packets.len()
    }

    /// Runs every update due at or before `now`, each at its own time.
    fn catch_up(&mut self, now: u64) {
        while self.next_update <= now {
            let at = self.next_update;
            let qdelay =
                head_of_queue_delay(at, self.head_ts(QueueId::Classic), self.head_ts(QueueId::L));
            update(&mut self.vars, &self.params, qdelay);
            self.next_update += self.params.tupdate_ns();
            self.stats.updates += 1;
        }
    }
}

impl Aqm for DualPi2Qdisc {
    fn name(&self) -> String {
        "dualpi2".into()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.catch_up(now_ns);
        let view = QueueView {
            l_packets: self.l.packets.len() as u32,
            c_packets: self.c.packets.len() as u32,
            bytes: self.l.bytes + self.c.bytes,
        };
        let a = admit(&self.params, view, pkt.len, pkt.ecn);
        match a.verdict {
            EnqueueVerdict::Overlimit(_) => {
                self.stats.queue_mut(a.queue).dropped_enqueue += 1;
                Admission::Dropped(DropReason::Overlimit)
            }
            EnqueueVerdict::Enqueue { apply_step } => {
                let f = self.fifo_mut(a.queue);
                f.packets.push_back(Queued {
                    pkt,
                    ts: now_ns,
                    apply_step,
                });
                f.bytes += pkt.len as u64;
                let own = f.packets.len() as u64;
                let total = self.total_packets() as u64;
                let s = self.stats.queue_mut(a.queue);
                s.pkts_in += 1;
                s.maxq = s.maxq.max(own);
                self.stats.maxq = self.stats.maxq.max(total);
                Admission::Enqueued
            }
        }
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.catch_up(now_ns);
        loop {
            let l_backlogged = !self.l.packets.is_empty();
            let c_backlogged = !self.c.packets.is_empty();
            // 1.
            let Some(queue) = pick(self.vars.credit, l_backlogged, c_backlogged) else {
                self.vars.credit = initial_credit(&self.params);
                return None;
            };
            // 2.
            let both_backlogged = l_backlogged && c_backlogged;
            let f = self.fifo_mut(queue);
            let q = f
                .packets
                .pop_front()
                .expect("pick chose a backlogged queue");
            f.bytes -= q.pkt.len as u64;
            // 3.
            let rnd = self.rng.next_word();
            // 4.
            let sojourn_ns = now_ns - q.ts;
            let head = Head {
                queue,
                ecn: q.pkt.ecn,
                sojourn_ns,
                apply_step: q.apply_step,
            };
            let backlog = self.l.bytes + self.c.bytes;
            let d = decide(&self.vars, &self.params, backlog, &head, rnd);
            self.stats.overload += d.overload as u64;
            // 5.
            let mut pkt = q.pkt;
            let mark = match d.verdict {
                Verdict::Drop(rule) => {
                    self.stats.queue_mut(queue).dropped_aqm += 1;
                    drops.push(Dropped {
                        pkt,
                        reason: rule.drop_reason(),
                        sojourn_ns,
                        queue,
                    });
                    continue;
                }
                Verdict::Pass => None,
                Verdict::Mark(rule) => {
                    pkt.ecn = Ecn::Ce;
                    let s = self.stats.queue_mut(queue);
                    s.marked += 1;
                    s.step_marked += (rule == Rule::Step) as u64;
                    Some(rule.mark_reason())
                }
            };
            self.vars.credit += credit_change(&self.params, queue, both_backlogged, pkt.len);
            let s = self.stats.queue_mut(queue);
            s.sent_pkts += 1;
            s.sent_bytes += pkt.len as u64;
            return Some(Departure {
                pkt,
                sojourn_ns,
                mark,
                queue,
            });
        }
    }

    fn backlog_packets(&self) -> usize {
        self.total_packets()
    }

    fn backlog_bytes(&self) -> u64 {
        self.l.bytes + self.c.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dualpi2::consts::MAX_PROB;
    use crate::dualpi2::params::DEFAULT_PARAMS;
    use crate::types::MarkReason;

    const MS: u64 = 1_000_000;

    fn pkt(id: u64, ecn: Ecn) -> Packet {
        Packet {
            id,
            flow: 0,
            len: 1500,
            ecn,
        }
    }

    fn qdisc(params: DualPi2Params) -> DualPi2Qdisc {
        DualPi2Qdisc::new(params, 1).unwrap()
    }

    #[test]
    fn updates_run_at_their_own_time_however_late_the_next_event() {
        let mut q = qdisc(DEFAULT_PARAMS);
        q.enqueue(0, pkt(0, Ecn::NotEct));
        q.dequeue(100 * MS, &mut vec![]);
        // At 16, 32, 48, 64, 80 and 96 ms, each with the head's age then.
        assert_eq!(q.stats().updates, 6);
        assert_eq!(q.next_update(), 112 * MS);
        assert_eq!(q.vars().last_qdelay, 96 * MS);
    }

    #[test]
    fn update_takes_the_older_head_of_the_two_queues() {
        let mut q = qdisc(DEFAULT_PARAMS);
        q.enqueue(0, pkt(0, Ecn::NotEct));
        q.enqueue(10 * MS, pkt(1, Ecn::Ect1));
        q.enqueue(17 * MS, pkt(2, Ecn::Ect1));
        assert_eq!(q.vars().last_qdelay, 16 * MS);
        let mut v = DualPi2Vars::new(&DEFAULT_PARAMS);
        update(&mut v, &DEFAULT_PARAMS, 16 * MS);
        assert_eq!(q.vars().prob, v.prob);
        assert_eq!(q.queue_delay(QueueId::L, 17 * MS), 7 * MS);
        assert_eq!(q.queue_delay(QueueId::Classic, 17 * MS), 17 * MS);
    }

    #[test]
    fn an_update_due_at_a_dequeue_runs_before_it() {
        let mut q = qdisc(DEFAULT_PARAMS);
        q.enqueue(5 * MS, pkt(0, Ecn::NotEct));
        q.dequeue(16 * MS, &mut vec![]).unwrap();
        // The update at 16 ms saw the packet the dequeue at 16 ms then took (11 ms old).
        assert_eq!(q.stats().updates, 1);
        assert_eq!(q.vars().last_qdelay, 11 * MS);
        q.enqueue(40 * MS, pkt(1, Ecn::NotEct));
        assert_eq!(q.vars().last_qdelay, 0);
    }

    #[test]
    fn one_random_word_per_packet_taken_off_a_head() {
        let mut q = qdisc(DEFAULT_PARAMS);
        for i in 0..10 {
            q.enqueue(0, pkt(i, Ecn::NotEct));
        }
        // p' = 100 % drops every Classic packet while 2 MTU (3028 bytes) remain behind it: packets 0-6.
        q.set_prob(MAX_PROB);
        let mut drops = vec![];
        let d = q.dequeue(0, &mut drops).unwrap();
        assert_eq!(drops.len(), 7);
        assert_eq!(d.pkt.id, 7);
        assert!(drops.iter().all(|x| x.reason == DropReason::Classic));
        let mut expect = XorShift64::new(run_seed(1)).unwrap();
        for _ in 0..8 {
            expect.next_word();
        }
        assert_eq!(q.rng_state(), expect.state());
        // Gated packets, which need no draw, still consume their word.
        for id in [8, 9] {
            assert_eq!(q.dequeue(0, &mut drops).unwrap().pkt.id, id);
            expect.next_word();
            assert_eq!(q.rng_state(), expect.state());
        }
        // An empty dequeue draws nothing.
        assert!(q.dequeue(0, &mut drops).is_none());
        assert_eq!(q.rng_state(), expect.state());
    }

    #[test]
    fn c_gets_ten_percent_of_the_packets_when_both_queues_are_saturated() {
        let mut q = qdisc(DEFAULT_PARAMS);
        for i in 0..1000 {
            q.enqueue(0, pkt(2 * i, Ecn::Ect1));
            q.enqueue(0, pkt(2 * i + 1, Ecn::NotEct));
        }
        let mut c = 0;
        for _ in 0..1000 {
            let d = q.dequeue(0, &mut vec![]).unwrap();
            assert_eq!(d.mark, None);
            c += (d.queue == QueueId::Classic) as u32;
        }
        // 9 L then 1 C, from the initial credit of -121120.
        assert_eq!(c, 100);
        assert_eq!(q.stats().c.sent_bytes, 100 * 1500);
    }

    #[test]
    fn dropped_packets_leave_the_credit_alone_and_empty_queues_reset_it() {
        // p' = 100 % without drop_overload: every C packet is dropped, every L packet marked.
        let p = DualPi2Params {
            drop_overload: false,
            ..DEFAULT_PARAMS
        };
        let mut q = qdisc(p);
        for i in 0..20 {
            q.enqueue(0, pkt(i, Ecn::Ect1));
        }
        for i in 20..25 {
            q.enqueue(0, pkt(i, Ecn::NotEct));
        }
        q.set_prob(MAX_PROB);
        let mut drops = vec![];
        for _ in 0..9 {
            let d = q.dequeue(0, &mut drops).unwrap();
            assert_eq!(d.queue, QueueId::L);
            assert_eq!(d.mark, Some(MarkReason::Coupled));
            assert_eq!(d.pkt.ecn, Ecn::Ce);
        }
        assert_eq!(q.vars().credit, -121_120 + 9 * 15_000);
        // The credit now favours C: all five C packets are dropped, then L is sent without a change (C
        // was empty when it was picked).
        let d = q.dequeue(0, &mut drops).unwrap();
        assert_eq!(drops.len(), 5);
        assert_eq!(d.queue, QueueId::L);
        assert_eq!(q.vars().credit, -121_120 + 9 * 15_000);
        assert_eq!(q.stats().c.dropped_aqm, 5);
        assert_eq!(q.stats().credit, -121_120 + 9 * 15_000);
        assert_eq!(q.stats().prob, MAX_PROB);
        while q.dequeue(0, &mut drops).is_some() {}
        assert_eq!(q.vars().credit, -121_120);
    }

    #[test]
    fn the_last_packet_of_a_queue_moves_the_credit_if_the_other_waits() {
        let mut q = qdisc(DEFAULT_PARAMS);
        q.enqueue(0, pkt(0, Ecn::Ect1));
        q.enqueue(0, pkt(1, Ecn::NotEct));
        let d = q.dequeue(0, &mut vec![]).unwrap();
        assert_eq!(d.queue, QueueId::L);
        assert_eq!(q.vars().credit, -121_120 + 15_000);
        let d = q.dequeue(0, &mut vec![]).unwrap();
        assert_eq!(d.queue, QueueId::Classic);
        assert_eq!(q.vars().credit, -121_120 + 15_000);
    }

    #[test]
    fn step_one_ms_passes_and_one_point_001_ms_marks() {
        let mut q = qdisc(DEFAULT_PARAMS);
        q.enqueue(0, pkt(0, Ecn::Ect1));
        q.enqueue(0, pkt(1, Ecn::Ect1));
        let d = q.dequeue(MS, &mut vec![]).unwrap();
        assert_eq!((d.mark, d.pkt.ecn, d.sojourn_ns), (None, Ecn::Ect1, MS));
        let d = q.dequeue(MS + 1_000, &mut vec![]).unwrap();
        assert_eq!(d.mark, Some(MarkReason::Step));
        assert_eq!(d.pkt.ecn, Ecn::Ce);
        assert_eq!(d.queue, QueueId::L);
        let s = q.stats().l;
        assert_eq!((s.sent_pkts, s.marked, s.step_marked), (2, 1, 1));
    }

    #[test]
    fn min_qlen_step_is_judged_at_enqueue() {
        let p = DualPi2Params {
            min_qlen_step: 1,
            ..DEFAULT_PARAMS
        };
        let mut q = qdisc(p);
        q.enqueue(0, pkt(0, Ecn::Ect1)); // found the L queue empty
        q.enqueue(0, pkt(1, Ecn::Ect1)); // found one packet
        assert_eq!(q.dequeue(5 * MS, &mut vec![]).unwrap().mark, None);
        assert_eq!(
            q.dequeue(5 * MS, &mut vec![]).unwrap().mark,
            Some(MarkReason::Step)
        );
    }

    #[test]
    fn packet_limit_counts_both_queues() {
        let p = DualPi2Params {
            limit: 10,
            ..DEFAULT_PARAMS
        };
        let mut q = qdisc(p);
        for i in 0..10 {
            let ecn = if i % 2 == 0 { Ecn::Ect1 } else { Ecn::NotEct };
            assert_eq!(q.enqueue(0, pkt(i, ecn)), Admission::Enqueued);
        }
        assert_eq!(
            q.enqueue(0, pkt(10, Ecn::Ect1)),
            Admission::Dropped(DropReason::Overlimit)
        );
        assert_eq!(
            q.enqueue(0, pkt(11, Ecn::NotEct)),
            Admission::Dropped(DropReason::Overlimit)
        );
        let s = q.stats();
        assert_eq!((s.l.dropped_enqueue, s.c.dropped_enqueue), (1, 1));
        assert_eq!(s.maxq, 10);
        assert_eq!((s.l.maxq, s.c.maxq), (5, 5));
    }

    #[test]
    fn hardware_queues_hold_512_descriptors_each() {
        let mut q = qdisc(DualPi2Params::hardware());
        for i in 0..512 {
            assert_eq!(q.enqueue(0, pkt(i, Ecn::Ect1)), Admission::Enqueued);
        }
        assert_eq!(
            q.enqueue(0, pkt(512, Ecn::Ect1)),
            Admission::Dropped(DropReason::Overlimit)
        );
        for i in 513..1025 {
            assert_eq!(q.enqueue(0, pkt(i, Ecn::NotEct)), Admission::Enqueued);
        }
        assert_eq!(
            q.enqueue(0, pkt(1025, Ecn::NotEct)),
            Admission::Dropped(DropReason::Overlimit)
        );
        assert_eq!(q.backlog(QueueId::L), (512, 512 * 1500));
        assert_eq!(q.backlog_packets(), 1024);
    }

    /// Unresponsive L traffic at twice the link rate for `secs`: (AQM drops, enqueue drops, marks).
    fn overload_run(params: DualPi2Params, secs: u64) -> (u64, u64, u64) {
        let mut q = qdisc(params);
        let mut drops = vec![];
        let mut id = 0;
        for ms in 0..secs * 1000 {
            for k in 0..2 {
                q.enqueue(ms * MS + k * MS / 2, pkt(id, Ecn::Ect1));
                id += 1;
            }
            q.dequeue(ms * MS + MS - 1, &mut drops);
        }
        let s = q.stats().l;
        assert!(drops
            .iter()
            .all(|d| d.reason == DropReason::LowLatency && d.queue == QueueId::L));
        (s.dropped_aqm, s.dropped_enqueue, s.marked)
    }

    #[test]
    fn overload_turns_l_marks_into_drops_when_drop_overload_is_on() {
        let p = DualPi2Params {
            limit: 1000,
            ..DEFAULT_PARAMS
        };
        let (aqm, tail, marked) = overload_run(p, 4);
        assert!(aqm > 500, "{aqm} AQM drops");
        assert!(marked > 1000, "{marked} marks");
        assert_eq!(tail, 0);
    }

    #[test]
    fn without_drop_overload_l_is_only_marked_and_the_queue_overflows() {
        let p = DualPi2Params {
            limit: 1000,
            drop_overload: false,
            ..DEFAULT_PARAMS
        };
        let (aqm, tail, marked) = overload_run(p, 4);
        assert_eq!(aqm, 0);
        assert!(tail > 1000, "{tail} tail drops");
        assert!(marked > 3000, "{marked} marks");
    }

    #[test]
    fn parameters_outside_their_ranges_are_refused() {
        let p = DualPi2Params {
            k: 0,
            ..DEFAULT_PARAMS
        };
        assert_eq!(DualPi2Qdisc::new(p, 1).err().unwrap().name, "k");
    }

    #[test]
    fn run_seed_is_never_zero_and_differs_from_pie() {
        for s in [0, 1, 2, u64::MAX, SEED_SALT] {
            assert_ne!(run_seed(s), 0);
            assert_ne!(run_seed(s), crate::pie::qdisc::run_seed(s));
        }
        assert_ne!(run_seed(1), run_seed(2));
    }
}
