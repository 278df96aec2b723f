//! DOCSIS-PIE (RFC 8034) as a floating-point software reference: the PIE of RFC 8033 as a DOCSIS 3.1 cable
//! modem runs it upstream. It is not a hardware core; the rules are in golden/REFERENCE-AQMS.md.
//!
//! Where it differs from RFC 8033 PIE:
//! - the queueing delay is estimated from the queue's bytes and the *configured* rate (the modem's
//!   maximum sustained rate), not from a measured departure rate, so it belongs behind a shaper of that
//!   rate (the DOCSIS upstream scheduler grants bursts, which makes measured rates useless);
//! - target 10 ms, update every 16 ms, alpha 0.25/s and beta 2.5/s, a 142 ms burst allowance that is
//!   given back only after the queue has been calm for a second (`BURST_RESET_TIMEOUT`);
//! - the drop probability is scaled by the packet size over a 1024-byte mean (at least 64 bytes), so
//!   small packets (ACKs, VoIP) are dropped less;
//! - de-randomisation: the per-packet probabilities are accumulated and no packet is dropped until the
//!   sum reaches 0.85, while a sum of 8.5 forces a drop;
//! - drops only (DOCSIS-PIE does not mark), unless `ecn` is switched on here.

use super::TimedFifo;
use crate::types::{Admission, Departure, DropReason, Dropped, Ecn, MarkReason, Packet};
use crate::Aqm;

/// Parameters of [`DocsisPie`], with RFC 8034's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DocsisPieParams {
    /// The configured (maximum sustained) rate the delay is estimated from, bit/s.
    pub rate_bps: u64,
    /// LATENCY_TARGET, ns. 10 ms.
    pub target_ns: u64,
    /// T_UPDATE, ns. 16 ms.
    pub tupdate_ns: u64,
    /// ALPHA, per second. 0.25.
    pub alpha: f64,
    /// BETA, per second. 2.5.
    pub beta: f64,
    /// MAX_BURST, ns. 142 ms.
    pub max_burst_ns: u64,
    /// BURST_RESET_TIMEOUT, ns. 1 s.
    pub burst_reset_ns: u64,
    /// MEAN_PKTSIZE, bytes. 1024.
    pub mean_pkt: u32,
    /// MIN_PKTSIZE, bytes. 64.
    pub min_pkt: u32,
    /// PROB_LOW: no drop while the accumulated probability is below this. 0.85.
    pub prob_low: f64,
    /// PROB_HIGH: an accumulated probability this high forces a drop. 8.5.
    pub prob_high: f64,
    /// Queue limit, bytes (DOCSIS sizes buffers in bytes). Default: 250 ms at the rate.
    pub limit_bytes: Option<u64>,
    /// Mark ECN-capable packets instead of dropping them (not in RFC 8034). Default off.
    pub ecn: bool,
}

impl DocsisPieParams {
    /// RFC 8034's values for a modem configured at `rate_bps`.
    pub fn at_rate(rate_bps: u64) -> DocsisPieParams {
        DocsisPieParams {
            rate_bps,
            target_ns: 10_000_000,
            tupdate_ns: 16_000_000,
            alpha: 0.25,
            beta: 2.5,
            max_burst_ns: 142_000_000,
            burst_reset_ns: 1_000_000_000,
            mean_pkt: 1024,
            min_pkt: 64,
            prob_low: 0.85,
            prob_high: 8.5,
            limit_bytes: None,
            ecn: false,
        }
    }

    /// The queue limit in force, bytes.
    pub fn limit(&self) -> u64 {
        self.limit_bytes
            .unwrap_or((u128::from(self.rate_bps) * 250 / 8 / 1000) as u64)
            .max(3 * 1514)
    }
}

/// The DOCSIS-PIE controller state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DocsisPieVars {
    pub drop_prob: f64,
    pub qdelay_old_ns: u64,
    pub burst_allowance_ns: u64,
    /// Time the queue has been calm (below half the target with no drop probability), ns.
    pub burst_reset_ns: u64,
    pub accu_prob: f64,
    /// When the next update is due, ns.
    pub next_update_ns: u64,
}

/// RFC 8033's scaling of the probability step by the current probability (the same table in RFC 8034).
pub fn scale_step(p: f64, step: f64) -> f64 {
    let div = match p {
        p if p < 0.000_001 => 2048.0,
        p if p < 0.000_01 => 512.0,
        p if p < 0.000_1 => 128.0,
        p if p < 0.001 => 32.0,
        p if p < 0.01 => 8.0,
        p if p < 0.1 => 2.0,
        _ => 1.0,
    };
    step / div
}

/// A DOCSIS-PIE queue.
#[derive(Clone, Debug)]
pub struct DocsisPie {
    params: DocsisPieParams,
    vars: DocsisPieVars,
    fifo: TimedFifo,
    rng: u64,
}

impl DocsisPie {
    pub fn new(params: DocsisPieParams, seed: u64) -> Result<DocsisPie, String> {
        if params.rate_bps == 0 {
            return Err("the configured rate must be more than 0".into());
        }
        if params.tupdate_ns == 0 || params.target_ns == 0 {
            return Err("target and tupdate must be more than 0".into());
        }
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        if !(ok(params.alpha) && ok(params.beta) && ok(params.prob_low) && ok(params.prob_high)) {
            return Err("alpha, beta, prob_low and prob_high must be finite and >= 0".into());
        }
        if params.mean_pkt == 0 {
            return Err("mean_pkt must be more than 0".into());
        }
        Ok(DocsisPie {
            vars: DocsisPieVars {
                burst_allowance_ns: params.max_burst_ns,
                next_update_ns: params.tupdate_ns,
                ..DocsisPieVars::default()
            },
            params,
            fifo: TimedFifo::default(),
            rng: seed ^ 0x646f_6373_6973_0001,
        })
    }

    pub fn vars(&self) -> &DocsisPieVars {
        &self.vars
    }

    /// The queueing delay estimate: queued bytes at the configured rate, ns.
    pub fn qdelay_ns(&self) -> u64 {
        (u128::from(self.fifo.bytes()) * 8_000_000_000 / u128::from(self.params.rate_bps)) as u64
    }

    fn uniform(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The periodic probability update (every T_UPDATE).
    fn update(&mut self) {
        let p = &self.params;
        let v = &mut self.vars;
        let qdelay =
            (u128::from(self.fifo.bytes()) * 8_000_000_000 / u128::from(p.rate_bps)) as u64;
        let s = |ns: u64| ns as f64 * 1e-9;
        let step =
            p.alpha * (s(qdelay) - s(p.target_ns)) + p.beta * (s(qdelay) - s(v.qdelay_old_ns));
        v.drop_prob += scale_step(v.drop_prob, step);
        if qdelay == 0 && v.qdelay_old_ns == 0 {
            v.drop_prob *= 0.98;
        }
        v.drop_prob = v.drop_prob.clamp(0.0, 1.0);
        // The burst allowance runs down, and is given back after a calm second.
        v.burst_allowance_ns = v.burst_allowance_ns.saturating_sub(p.tupdate_ns);
        if v.drop_prob == 0.0 && qdelay < p.target_ns / 2 && v.qdelay_old_ns < p.target_ns / 2 {
            v.burst_reset_ns += p.tupdate_ns;
            if v.burst_reset_ns >= p.burst_reset_ns {
                v.burst_reset_ns = 0;
                v.burst_allowance_ns = p.max_burst_ns;
            }
        } else {
            v.burst_reset_ns = 0;
        }
        v.qdelay_old_ns = qdelay;
    }

    fn catch_up(&mut self, now_ns: u64) {
        while self.vars.next_update_ns <= now_ns {
            self.update();
            self.vars.next_update_ns += self.params.tupdate_ns;
        }
    }

    /// The early-drop decision for a packet of `len` bytes (RFC 8034's `drop_early`).
    fn drop_early(&mut self, len: u32) -> bool {
        let p = self.params;
        let v = self.vars;
        if v.burst_allowance_ns > 0 {
            return false;
        }
        if (v.qdelay_old_ns < p.target_ns / 2 && v.drop_prob < 0.2)
            || self.fifo.bytes() <= 2 * u64::from(p.mean_pkt)
        {
            return false;
        }
        let p1 = (v.drop_prob * f64::from(len.max(p.min_pkt)) / f64::from(p.mean_pkt)).min(1.0);
        if v.drop_prob == 0.0 {
            self.vars.accu_prob = 0.0;
        }
        self.vars.accu_prob += p1;
        if self.vars.accu_prob < p.prob_low {
            return false;
        }
        if self.vars.accu_prob >= p.prob_high || self.uniform() < p1 {
            self.vars.accu_prob = 0.0;
            return true;
        }
        false
    }
}

impl Aqm for DocsisPie {
    fn name(&self) -> String {
        "docsis_pie".into()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.catch_up(now_ns);
        if self.fifo.bytes() + u64::from(pkt.len) > self.params.limit() {
            return Admission::Dropped(DropReason::Overlimit);
        }
        if self.drop_early(pkt.len) {
            if self.params.ecn && pkt.ecn.is_ecn_capable() {
                let mut p = pkt;
                p.ecn = Ecn::Ce;
                self.fifo.push(p, now_ns);
                return Admission::Marked(MarkReason::Early);
            }
            return Admission::Dropped(DropReason::Early);
        }
        self.fifo.push(pkt, now_ns);
        Admission::Enqueued
    }

    fn dequeue(&mut self, now_ns: u64, _drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.catch_up(now_ns);
        self.fifo.depart(now_ns)
    }

    super::fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testutil::pkt;

    const MS: u64 = 1_000_000;

    fn q(rate: u64) -> DocsisPie {
        DocsisPie::new(DocsisPieParams::at_rate(rate), 1).unwrap()
    }

    /// 8 Mbit/s, 30 packets of `len` bytes queued (40 ms of delay), the burst allowance spent and the
    /// drop probability held at `prob` (no update is due).
    fn held_at(prob: f64, len: u32) -> DocsisPie {
        let mut a = q(8_000_000);
        for i in 0..30 {
            a.enqueue(0, pkt(i, 0, len));
        }
        a.vars.burst_allowance_ns = 0;
        a.vars.drop_prob = prob;
        a.vars.qdelay_old_ns = 40 * MS;
        a.vars.next_update_ns = u64::MAX;
        a
    }

    #[test]
    fn the_delay_estimate_comes_from_the_configured_rate_not_the_departures() {
        let mut a = q(10_000_000);
        for i in 0..10 {
            a.enqueue(0, pkt(i, 0, 1250));
        }
        // 12500 bytes at 10 Mbit/s: 10 ms, however fast or slow the link drains it.
        assert_eq!(a.qdelay_ns(), 10 * MS);
        let mut drops = Vec::new();
        a.dequeue(0, &mut drops);
        assert_eq!(a.qdelay_ns(), 9 * MS);
    }

    #[test]
    fn rfc_8034_defaults_differ_from_rfc_8033() {
        let p = DocsisPieParams::at_rate(1);
        // RFC 8033: 15 ms target, 15 ms update, alpha 0.125, beta 1.25, 150 ms burst.
        assert_eq!((p.target_ns, p.tupdate_ns), (10 * MS, 16 * MS));
        assert_eq!((p.alpha, p.beta), (0.25, 2.5));
        assert_eq!(p.max_burst_ns, 142 * MS);
        assert_eq!((p.mean_pkt, p.prob_low, p.prob_high), (1024, 0.85, 8.5));
    }

    #[test]
    fn one_update_moves_the_probability_by_alpha_and_beta_scaled_by_the_probability() {
        let mut a = q(8_000_000);
        // 30 kB at 8 Mbit/s = 30 ms of queue.
        for i in 0..20 {
            a.enqueue(0, pkt(i, 0, 1500));
        }
        a.catch_up(16 * MS);
        // From p = 0 the step is divided by 2048 (RFC 8033's table, kept by RFC 8034).
        let step = 0.25 * (0.030 - 0.010) + 2.5 * 0.030;
        assert!(
            (a.vars().drop_prob - step / 2048.0).abs() < 1e-12,
            "{}",
            a.vars().drop_prob
        );
        assert_eq!(a.vars().qdelay_old_ns, 30 * MS);
    }

    #[test]
    fn no_drop_during_the_burst_allowance_and_it_returns_after_a_calm_second() {
        let mut a = q(8_000_000);
        a.vars.drop_prob = 1.0;
        a.vars.qdelay_old_ns = 50 * MS;
        for i in 0..30 {
            assert_eq!(a.enqueue(0, pkt(i, 0, 1500)), Admission::Enqueued);
        }
        a.vars.burst_allowance_ns = 0;
        a.vars.accu_prob = 8.0;
        assert_eq!(
            a.enqueue(0, pkt(99, 0, 1500)),
            Admission::Dropped(DropReason::Early)
        );
        // Empty and calm: after a second with p = 0 the allowance is back.
        let mut drops = Vec::new();
        while a.dequeue(0, &mut drops).is_some() {}
        a.vars.drop_prob = 0.0;
        a.vars.qdelay_old_ns = 0;
        a.catch_up(900 * MS);
        assert_eq!(a.vars().burst_allowance_ns, 0);
        a.catch_up(1_100 * MS);
        let b = a.vars().burst_allowance_ns;
        assert!(b > 0 && b <= 142 * MS, "{b}");
    }

    #[test]
    fn derandomisation_holds_drops_until_the_accumulated_probability_reaches_0_85() {
        let mut a = held_at(0.25, 1024);
        // 0.25, 0.5, 0.75 accumulated: never a drop; the fourth packet may be dropped.
        for i in 0..3 {
            assert_eq!(a.enqueue(0, pkt(100 + i, 0, 1024)), Admission::Enqueued);
        }
        assert!((a.vars().accu_prob - 0.75).abs() < 1e-12);
        let mut drops = 0;
        for i in 0..10_000 {
            if a.enqueue(0, pkt(200 + i, 0, 1024)) != Admission::Enqueued {
                drops += 1;
            } else {
                let mut d = Vec::new();
                a.dequeue(0, &mut d);
            }
            // Never more than 8.5 accumulated without a drop.
            assert!(a.vars().accu_prob < 8.5);
        }
        // Mean gap between drops: at least 0.85/0.25 packets.
        assert!(drops < 10_000 / 3 && drops > 1_000, "{drops}");
    }

    #[test]
    fn small_packets_are_dropped_less_than_large_ones() {
        let rate = |len: u32| {
            let mut a = held_at(0.1, 1500);
            let mut d = Vec::new();
            let n = (0..20_000)
                .filter(|&i| {
                    let r = a.enqueue(0, pkt(100 + i, 0, len));
                    a.dequeue(0, &mut d);
                    r != Admission::Enqueued
                })
                .count();
            n as f64 / 20_000.0
        };
        let (small, large) = (rate(64), rate(1500));
        assert!(small < large / 5.0, "{small} vs {large}");
    }

    #[test]
    fn the_probability_decays_when_the_queue_stays_empty() {
        let mut a = q(8_000_000);
        a.vars.drop_prob = 0.5;
        a.catch_up(16 * MS * 10);
        assert!(a.vars().drop_prob < 0.5 * 0.98f64.powi(9));
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(DocsisPie::new(DocsisPieParams::at_rate(0), 1).is_err());
        let mut p = DocsisPieParams::at_rate(1_000_000);
        p.alpha = f64::NAN;
        assert!(DocsisPie::new(p, 1).is_err());
    }
}
