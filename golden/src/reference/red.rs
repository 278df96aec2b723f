//! RED (Floyd & Jacobson 1993) with the count correction, and Adaptive RED (Floyd, Gummadi, Shenker 2001)
//! as an option. Thresholds are in packets, as in the experiments of spec/scenarios.md. Linux's sch_red
//! does the same in fixed point; this model uses f64 in a fixed order, so it is deterministic.

use super::TimedFifo;
use crate::prng::XorShift64;
use crate::types::{Admission, Departure, DropReason, Dropped, MarkReason, Packet};
use crate::Aqm;

/// Adaptive RED adjusts max_p this often, ns.
pub const ADAPT_INTERVAL_NS: u64 = 500_000_000;

/// Parameters of [`Red`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    /// Hard queue limit, packets.
    pub limit: usize,
    /// Average queue below which nothing is dropped, packets.
    pub min_th: f64,
    /// Average queue at or above which every packet is dropped (or marked), packets.
    pub max_th: f64,
    /// Drop probability at max_th (the starting value when adaptive).
    pub max_p: f64,
    /// EWMA weight of the average queue.
    pub w_q: f64,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Adaptive RED: adjust max_p every 500 ms to keep avg in the middle of [min_th, max_th].
    pub adaptive: bool,
    /// Typical small packet, bytes: the idle-time decay counts how many of these the link could have sent.
    pub avpkt: u32,
    /// Link rate used for the idle-time decay, bit/s.
    pub link_rate_bps: u64,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            limit: 1000,
            min_th: 20.0,
            max_th: 60.0,
            max_p: 0.02,
            w_q: 0.002,
            ecn: false,
            adaptive: false,
            avpkt: 1000,
            link_rate_bps: 10_000_000,
        }
    }
}

/// The count-corrected drop probability: p_a = p_b / (1 - count p_b), where `count` is the number of
/// packets enqueued since the last drop. With it the n-th packet after a drop is dropped with probability
/// p_b for every n in 1..=1/p_b, so the gap between drops is uniform instead of geometric.
pub fn corrected_probability(p_b: f64, count: u64) -> f64 {
    let denom = 1.0 - count as f64 * p_b;
    if denom <= p_b {
        1.0
    } else {
        p_b / denom
    }
}

/// A RED queue.
#[derive(Clone, Debug)]
pub struct Red {
    params: RedParams,
    fifo: TimedFifo,
    /// Average queue, packets.
    avg: f64,
    /// Packets enqueued since the last early drop while avg was between the thresholds.
    count: u64,
    /// When the queue last went empty (for the idle-time decay); None while it holds packets.
    idle_since_ns: Option<u64>,
    /// The current max_p (moves when adaptive).
    max_p: f64,
    next_adapt_ns: u64,
    rng: XorShift64,
}

impl Red {
    /// A RED queue whose random draws come from `seed` (a zero seed uses the PRNG's default).
    pub fn new(params: RedParams, seed: u64) -> Red {
        Red {
            params,
            fifo: TimedFifo::default(),
            avg: 0.0,
            count: 0,
            idle_since_ns: Some(0),
            max_p: params.max_p,
            next_adapt_ns: ADAPT_INTERVAL_NS,
            rng: XorShift64::new(seed).unwrap_or_default(),
        }
    }

    /// The average queue, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The current max_p.
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// A uniform draw in [0, 1) with 53 bits.
    fn uniform(&mut self) -> f64 {
        (self.rng.next_word() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Adaptive RED's periodic step, for every 500 ms boundary up to `now_ns`.
    fn adapt(&mut self, now_ns: u64) {
        let span = self.params.max_th - self.params.min_th;
        let (low, high) = (
            self.params.min_th + 0.4 * span,
            self.params.min_th + 0.6 * span,
        );
        while now_ns >= self.next_adapt_ns {
            if self.avg > high && self.max_p <= 0.5 {
                self.max_p += (self.max_p / 4.0).min(0.01);
            } else if self.avg < low && self.max_p >= 0.01 {
                self.max_p *= 0.9;
            }
            self.next_adapt_ns += ADAPT_INTERVAL_NS;
        }
    }

    /// Step 1: update avg on an arrival that sees `q` packets queued.
    fn update_avg(&mut self, now_ns: u64, q: usize) {
        match self.idle_since_ns {
            Some(since) if q == 0 => {
                // m = how many small packets the link could have sent while the queue was idle. The idle
                // period stays open until a packet is actually queued (an arrival dropped by RED leaves
                // the queue idle), and what was decayed now is not decayed again.
                let small_pkt_ns = (u64::from(self.params.avpkt) * 8_000_000_000
                    / self.params.link_rate_bps.max(1))
                .max(1);
                let m = (now_ns - since) / small_pkt_ns;
                self.avg *= (1.0 - self.params.w_q).powf(m as f64);
                self.idle_since_ns = Some(since + m * small_pkt_ns);
            }
            _ => self.avg = (1.0 - self.params.w_q) * self.avg + self.params.w_q * q as f64,
        }
    }

    fn reject(&self, pkt: &Packet, drop: DropReason, mark: MarkReason) -> Admission {
        if self.params.ecn && pkt.ecn.is_ecn_capable() {
            Admission::Marked(mark)
        } else {
            Admission::Dropped(drop)
        }
    }
}

impl Aqm for Red {
    fn name(&self) -> String {
        if self.params.adaptive { "ared" } else { "red" }.into()
    }

    fn enqueue(&mut self, now_ns: u64, mut pkt: Packet) -> Admission {
        if self.params.adaptive {
            self.adapt(now_ns);
        }
        self.update_avg(now_ns, self.fifo.len());
        let verdict = if self.avg < self.params.min_th {
            self.count = 0;
            Admission::Enqueued
        } else if self.avg >= self.params.max_th {
            self.count = 0;
            self.reject(&pkt, DropReason::Forced, MarkReason::Forced)
        } else {
            let p_b = self.max_p * (self.avg - self.params.min_th)
                / (self.params.max_th - self.params.min_th);
            let p_a = corrected_probability(p_b, self.count);
            if self.uniform() < p_a {
                self.count = 0;
                self.reject(&pkt, DropReason::Early, MarkReason::Early)
            } else {
                self.count += 1;
                Admission::Enqueued
            }
        };
        if matches!(verdict, Admission::Dropped(_)) {
            return verdict;
        }
        if self.fifo.len() >= self.params.limit {
            return Admission::Dropped(DropReason::Overlimit);
        }
        if matches!(verdict, Admission::Marked(_)) {
            pkt.ecn = crate::types::Ecn::Ce;
        }
        self.idle_since_ns = None;
        self.fifo.push(pkt, now_ns);
        verdict
    }

    fn dequeue(&mut self, now_ns: u64, _drops: &mut Vec<Dropped>) -> Option<Departure> {
        if self.params.adaptive {
            self.adapt(now_ns);
        }
        let departure = self.fifo.depart(now_ns)?;
        if self.fifo.len() == 0 {
            self.idle_since_ns = Some(now_ns);
        }
        Some(departure)
    }

    super::fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testutil::pkt;
    use crate::types::Ecn;

    #[test]
    fn count_correction_makes_the_gap_between_drops_uniform() {
        // p_b = 1/20: gaps must be uniform on 1..=20 (each with probability 1/20), never longer.
        let p_b = 0.05;
        let mut rng = XorShift64::new(7).unwrap();
        let mut hist = [0u64; 22];
        let (mut count, mut gap, mut drops) = (0u64, 0usize, 0u64);
        while drops < 100_000 {
            gap += 1;
            let u = (rng.next_word() >> 11) as f64 / (1u64 << 53) as f64;
            if u < corrected_probability(p_b, count) {
                hist[gap.min(21)] += 1;
                drops += 1;
                count = 0;
                gap = 0;
            } else {
                count += 1;
            }
        }
        assert_eq!(hist[21], 0, "a gap longer than 1/p_b");
        for (n, &h) in hist.iter().enumerate().take(21).skip(1) {
            let frac = h as f64 / drops as f64;
            assert!((frac - 0.05).abs() < 0.005, "gap {n}: {frac}");
        }
    }

    #[test]
    fn corrected_probability_reaches_one_at_count_one_over_pb() {
        assert_eq!(corrected_probability(0.1, 0), 0.1);
        assert!((corrected_probability(0.1, 5) - 0.2).abs() < 1e-12);
        assert_eq!(corrected_probability(0.1, 9), 1.0);
        assert_eq!(corrected_probability(0.1, 50), 1.0);
    }

    #[test]
    fn average_is_an_ewma_of_the_queue_seen_by_arrivals() {
        let mut red = Red::new(RedParams::default(), 1);
        let w = 0.002;
        let mut expect = 0.0;
        for i in 0..15u64 {
            red.enqueue(i, pkt(i, 0, 1500));
            // The first arrival finds an idle queue (decay of a zero average); later ones see i packets.
            if i > 0 {
                expect = (1.0 - w) * expect + w * i as f64;
            }
            assert!((red.avg() - expect).abs() < 1e-12);
        }
    }

    #[test]
    fn idle_time_decays_the_average_by_the_small_packets_the_link_could_have_sent() {
        let params = RedParams {
            link_rate_bps: 8_000_000, // avpkt 1000 B: one small packet per ms
            max_p: 0.0,
            ..RedParams::default()
        };
        let mut red = Red::new(params, 1);
        red.avg = 30.0;
        red.idle_since_ns = None;
        red.enqueue(0, pkt(0, 0, 1500));
        let before = red.avg();
        let mut drops = Vec::new();
        red.dequeue(1_000_000, &mut drops).unwrap();
        // 250 ms idle = 250 small packets.
        red.enqueue(251_000_000, pkt(1, 0, 1500));
        let expect = before * (1.0 - 0.002f64).powi(250);
        assert!(
            (red.avg() - expect).abs() < 1e-9,
            "{} vs {expect}",
            red.avg()
        );
    }

    #[test]
    fn an_arrival_dropped_at_an_idle_queue_keeps_the_idle_period_open() {
        let params = RedParams {
            link_rate_bps: 8_000_000, // one small packet per ms
            ..RedParams::default()
        };
        let mut red = Red::new(params, 1);
        red.avg = 100.0; // far above max_th: the arrival is dropped
        red.idle_since_ns = Some(0);
        assert_eq!(
            red.enqueue(10_000_000, pkt(0, 0, 1500)),
            Admission::Dropped(DropReason::Forced)
        );
        red.enqueue(20_000_000, pkt(1, 0, 1500));
        // Decayed over the whole 20 ms idle period (20 small packets), not just the first 10 ms.
        let expect = 100.0 * (1.0 - 0.002f64).powi(20);
        assert!(
            (red.avg() - expect).abs() < 1e-9,
            "{} vs {expect}",
            red.avg()
        );
    }

    #[test]
    fn no_early_drop_below_min_th_and_forced_drop_at_max_th() {
        let params = RedParams {
            w_q: 0.0,
            ..RedParams::default()
        };
        let mut red = Red::new(params, 1);
        red.idle_since_ns = None;
        red.avg = 19.9;
        assert_eq!(red.enqueue(0, pkt(0, 0, 1500)), Admission::Enqueued);
        red.avg = 60.0;
        assert_eq!(
            red.enqueue(0, pkt(1, 0, 1500)),
            Admission::Dropped(DropReason::Forced)
        );
    }

    #[test]
    fn ecn_capable_packets_are_marked_instead_of_dropped() {
        let params = RedParams {
            ecn: true,
            w_q: 0.0,
            ..RedParams::default()
        };
        let mut red = Red::new(params, 1);
        red.idle_since_ns = None;
        red.avg = 70.0;
        let mut p = pkt(0, 0, 1500);
        p.ecn = Ecn::Ect0;
        assert_eq!(red.enqueue(0, p), Admission::Marked(MarkReason::Forced));
        assert_eq!(
            red.enqueue(0, pkt(1, 0, 1500)),
            Admission::Dropped(DropReason::Forced)
        );
        let mut drops = Vec::new();
        assert_eq!(red.dequeue(1, &mut drops).unwrap().pkt.ecn, Ecn::Ce);
    }

    #[test]
    fn early_drop_rate_between_thresholds_is_about_p_b() {
        let params = RedParams {
            w_q: 0.0,
            ..RedParams::default()
        };
        let mut red = Red::new(params, 3);
        red.idle_since_ns = None;
        red.avg = 40.0; // p_b = 0.02 * 0.5 = 1 %
        let n = 100_000;
        let mut dropped = 0;
        for i in 0..n {
            if red.enqueue(0, pkt(i, 0, 1500)) == Admission::Dropped(DropReason::Early) {
                dropped += 1;
            }
            let mut drops = Vec::new();
            red.dequeue(0, &mut drops);
            red.idle_since_ns = None;
        }
        // Uniform gaps on 1..=100 have mean 50.5: the drop rate is 1/50.5, about twice p_b.
        let rate = dropped as f64 / n as f64;
        assert!((rate - 1.0 / 50.5).abs() < 0.002, "{rate}");
    }

    #[test]
    fn adaptive_red_raises_max_p_above_the_band_and_lowers_it_below() {
        let params = RedParams {
            adaptive: true,
            w_q: 0.0,
            ..RedParams::default()
        };
        let mut red = Red::new(params, 1);
        red.idle_since_ns = None;
        red.avg = 55.0; // above 20 + 0.6 * 40 = 44
        red.enqueue(ADAPT_INTERVAL_NS, pkt(0, 0, 1500));
        assert!((red.max_p() - 0.025).abs() < 1e-12, "{}", red.max_p());
        red.avg = 25.0; // below 20 + 0.4 * 40 = 36
        red.enqueue(2 * ADAPT_INTERVAL_NS, pkt(1, 0, 1500));
        assert!((red.max_p() - 0.0225).abs() < 1e-12, "{}", red.max_p());
        red.avg = 40.0; // inside the band: unchanged
        red.enqueue(3 * ADAPT_INTERVAL_NS, pkt(2, 0, 1500));
        assert!((red.max_p() - 0.0225).abs() < 1e-12);
    }
}
