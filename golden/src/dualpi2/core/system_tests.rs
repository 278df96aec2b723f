//! The core model, driven as a simulator drives the hardware ([`CoreAqm`]), against the
//! event-level [`DualPi2Qdisc`] on random packet sequences: every verdict, every drop at dequeue and
//! every departure (packet, queue, ECN as it leaves, sojourn, rule) must be the same, and so must the
//! counters, p', the credit and the generator after every event.

use super::*;
use crate::aqm::Aqm;
use crate::dualpi2::consts::MAX_PROB;
use crate::dualpi2::kind::DUALPI2_CORE;
use crate::dualpi2::params::HARDWARE_PARAMS;
use crate::dualpi2::regs::addr;
use crate::dualpi2::DualPi2Qdisc;
use crate::hw::{CoreAqm, CoreParams};
use crate::types::{Ecn, Packet};

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

/// The two models side by side.
struct Pair {
    q: DualPi2Qdisc,
    m: CoreAqm<DualPi2CoreModel>,
    id: u64,
    events: u64,
}

impl Pair {
    fn new(params: DualPi2Params, seed: u64) -> Pair {
        Pair {
            q: DualPi2Qdisc::new(params, seed).unwrap(),
            m: CoreAqm::new(
                &DUALPI2_CORE,
                DualPi2CoreModel::new(),
                &params.register_writes(seed),
            )
            .unwrap(),
            id: 0,
            events: 0,
        }
    }

    fn enqueue(&mut self, t: u64, len: u32, ecn: Ecn) {
        let pkt = Packet {
            id: self.id,
            flow: (self.id % 7) as u32,
            len,
            ecn,
        };
        self.id += 1;
        let a = self.q.enqueue(t, pkt);
        let b = self.m.enqueue(t, pkt);
        assert_eq!(self.m.fault(), None);
        assert_eq!(a, b, "verdict of packet {} at {t} ns", pkt.id);
        self.check(t);
    }

    fn dequeue(&mut self, t: u64) {
        let (mut dq, mut dm) = (vec![], vec![]);
        let a = self.q.dequeue(t, &mut dq);
        let b = self.m.dequeue(t, &mut dm);
        assert_eq!(self.m.fault(), None);
        assert_eq!(dq, dm, "drops of the dequeue at {t} ns");
        assert_eq!(a, b, "departure of the dequeue at {t} ns");
        self.check(t);
    }

    /// p' written at `t`, right after an event at `t` (both models have run the updates due by then).
    fn set_prob(&mut self, t: u64, prob: u32) {
        self.q.set_prob(prob);
        let d = self.m.driver();
        d.advance_to(t).unwrap();
        d.write_reg(addr::PROB, prob).unwrap();
        self.check(t);
    }

    fn check(&mut self, t: u64) {
        self.events += 1;
        let m = self.m.driver().core();
        let mut s = self.q.stats();
        s.l.maxq = 0;
        s.c.maxq = 0;
        assert_eq!(m.stats(), s, "counters after the event at {t} ns");
        assert_eq!(m.prng_state(), self.q.rng_state(), "generator at {t} ns");
        assert_eq!(m.last_qdelay(), self.q.vars().last_qdelay, "at {t} ns");
        assert_eq!(m.next_update(), self.q.next_update() & TIME_MASK);
        for queue in [QueueId::L, QueueId::Classic] {
            let (n, bytes) = self.q.backlog(queue);
            assert_eq!(m.backlog(queue), (n as u32, bytes), "{queue:?} at {t} ns");
        }
        assert_eq!(self.m.backlog_packets(), self.q.backlog_packets());
        assert_eq!(self.m.backlog_bytes(), self.q.backlog_bytes());
    }
}

/// How a run offers packets.
#[derive(Clone, Copy, Debug)]
struct Traffic {
    /// The link asks for a packet every `service_ns` (plus up to 25 % jitter).
    service_ns: u64,
    duration_ns: u64,
    /// Relative weights of the ECN codes Not-ECT, ECT(1), ECT(0), CE.
    ecn_weights: [u32; 4],
    /// Lengths, bytes (inclusive).
    len: (u32, u32),
    /// Probability in 1/256 that a dequeue is followed by a PROB write (a random, mostly high, p').
    prob_writes: u64,
    /// Arrivals at three times the link rate throughout, instead of phases of varying load.
    flood: bool,
}

const MIXED: Traffic = Traffic {
    service_ns: 120 * US,
    duration_ns: 3_000 * MS,
    ecn_weights: [3, 3, 2, 1],
    len: (64, 1514),
    prob_writes: 0,
    flood: false,
};

/// Runs `traffic` through both models with random phases of load (overload, near the link rate, light,
/// silent) and bursts; returns what the core model exercised.
fn run(params: DualPi2Params, traffic: Traffic, seed: u64) -> DualPi2Coverage {
    let mut g = XorShift64::new(seed.wrapping_mul(0x9E37_79B9) | 1).unwrap();
    let mut rnd = |n: u64| g.next_word() % n.max(1);
    let mut pair = Pair::new(params, seed);
    let total: u32 = traffic.ecn_weights.iter().sum();
    let (mut t_arr, mut t_deq) = (0u64, traffic.service_ns);
    let mut phase_end = 0;
    let mut mean_gap = traffic.service_ns;
    while t_arr.min(t_deq) < traffic.duration_ns {
        if t_arr <= t_deq {
            let burst = if rnd(64) == 0 { 1 + rnd(40) } else { 1 };
            for _ in 0..burst {
                let mut w = rnd(total as u64) as u32;
                let mut code = 0;
                while w >= traffic.ecn_weights[code] {
                    w -= traffic.ecn_weights[code];
                    code += 1;
                }
                let (lo, hi) = traffic.len;
                let len = lo + rnd((hi - lo + 1) as u64) as u32;
                pair.enqueue(t_arr, len, Ecn::from_bits(code as u8));
            }
            if t_arr >= phase_end {
                phase_end = t_arr + 20 * MS + rnd(200 * MS);
                let s = traffic.service_ns;
                mean_gap = match if traffic.flood { 9 } else { rnd(5) } {
                    9 => s / 3,
                    0 => s / 2,
                    1 => s * 9 / 10,
                    2 => s * 11 / 10,
                    3 => s * 3,
                    _ => 40 * MS,
                };
            }
            t_arr += 1 + rnd(2 * mean_gap);
        } else {
            pair.dequeue(t_deq);
            if rnd(256) < traffic.prob_writes {
                let p = match rnd(4) {
                    0 => MAX_PROB,
                    1 => MAX_PROB / 2 + 1,
                    2 => rnd(1 << 32) as u32,
                    _ => rnd(1 << 28) as u32,
                };
                pair.set_prob(t_deq, p);
            }
            t_deq += traffic.service_ns + rnd(traffic.service_ns / 4);
        }
    }
    assert!(pair.events > 1_000);
    pair.m.driver().core().coverage
}

#[test]
fn default_parameters_with_every_ecn_code_match_the_qdisc() {
    let mut total = DualPi2Coverage::default();
    for seed in 1..=3 {
        let c = run(HARDWARE_PARAMS, MIXED, seed);
        total.updates += c.updates;
        for k in 0..4 {
            total.marks[k] += c.marks[k];
            total.drops[k] += c.drops[k];
        }
        total.credit_resets += c.credit_resets;
        total.picks_c += c.picks_c;
        total.picks_l += c.picks_l;
        total.gated_decisions += c.gated_decisions;
        for q in 0..2 {
            total.verdicts[q][0] += c.verdicts[q][0];
        }
    }
    let t = total;
    assert!(t.updates > 500, "{t:?}");
    assert!(t.marks_by(Rule::Classic) > 0, "{t:?}");
    assert!(t.marks_by(Rule::Coupled) > 0, "{t:?}");
    assert!(t.marks_by(Rule::Step) > 0, "{t:?}");
    assert!(t.drops_by(Rule::Classic) > 0, "{t:?}");
    assert!(t.credit_resets > 0 && t.gated_decisions > 0, "{t:?}");
    assert!(t.picks_c > 1_000 && t.picks_l > 1_000, "{t:?}");
}

#[test]
fn overload_with_drop_overload_on_and_off_matches_the_qdisc() {
    for (drop_overload, seed) in [(true, 11), (false, 12), (true, 13), (false, 14)] {
        let params = DualPi2Params {
            drop_overload,
            ..HARDWARE_PARAMS
        };
        let traffic = Traffic {
            prob_writes: 8,
            duration_ns: 2_000 * MS,
            ..MIXED
        };
        let c = run(params, traffic, seed);
        assert!(c.overload_decisions > 0 && c.recomputes > 0, "{c:?}");
        assert!(c.chained_picks > 0, "{c:?}");
        if drop_overload {
            assert!(c.drops_by(Rule::Overload) > 0, "{c:?}");
        } else {
            assert!(c.caps > 0, "{c:?}");
            assert_eq!(c.drops_by(Rule::Overload), 0, "{c:?}");
        }
        assert!(c.marks_by(Rule::Overload) > 0, "{c:?}");
    }
}

#[test]
fn packet_and_byte_limits_match_the_qdisc() {
    // LIMIT 20 packets; with MTU 200 the byte limit is 20 x 2 x 200 = 8000 bytes.
    for (limit, mtu, seed) in [(20, 1514, 21), (20, 200, 22), (64, 300, 23)] {
        let params = DualPi2Params {
            limit,
            mtu,
            ..HARDWARE_PARAMS
        };
        let c = run(params, MIXED, seed);
        let (packets, bytes) = (
            c.tail_drops[limit_index(Limit::Packets)],
            c.tail_drops[limit_index(Limit::Bytes)],
        );
        assert!(packets > 0, "{c:?}");
        if mtu < 1000 {
            assert!(bytes > 0, "{c:?}");
        }
    }
}

#[test]
fn a_full_queue_drops_its_own_class_like_the_qdisc() {
    // One class floods a slow link: its FIFO of 512 fills while the limit of 1024 is not reached.
    for (weights, seed) in [([0, 1, 0, 0], 31), ([1, 0, 0, 0], 32), ([1, 4, 0, 0], 33)] {
        let traffic = Traffic {
            service_ns: 400 * US,
            duration_ns: 1_500 * MS,
            ecn_weights: weights,
            len: (64, 400),
            prob_writes: 0,
            flood: true,
        };
        let params = DualPi2Params {
            target_us: 1_000_000,
            alpha: 1,
            beta: 1,
            ..HARDWARE_PARAMS
        };
        let c = run(params, traffic, seed);
        assert!(c.tail_drops[limit_index(Limit::Capacity)] > 0, "{c:?}");
    }
}

#[test]
fn random_parameter_sets_match_the_qdisc() {
    let mut g = XorShift64::new(0xD0A1).unwrap();
    let mut pick = |lo: u32, hi: u32| lo + (g.next_word() % (hi - lo + 1) as u64) as u32;
    for seed in 41..=46 {
        let params = DualPi2Params {
            target_us: pick(500, 30_000),
            alpha: pick(1, 400),
            beta: pick(1, 4_000),
            k: pick(1, 8),
            step_us: pick(0, 3_000),
            min_qlen_step: pick(0, 4),
            ecn_mask: pick(1, 3),
            drop_overload: pick(0, 1) == 1,
            limit: pick(10, 1024),
            mtu: pick(64, 2047),
            c_protection: pick(0, 100),
            ..HARDWARE_PARAMS
        };
        let traffic = Traffic {
            service_ns: pick(40, 300) as u64 * US,
            duration_ns: 1_500 * MS,
            ecn_weights: [pick(0, 3), pick(0, 3), pick(0, 3), pick(1, 3)],
            len: (pick(40, 200), pick(300, 2047)),
            prob_writes: pick(0, 4) as u64,
            flood: false,
        };
        run(params, traffic, seed);
    }
}
