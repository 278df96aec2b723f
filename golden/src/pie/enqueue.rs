//! The enqueue verdict (spec/pie.md, "Enqueue side"): a pure function of the state, the packet and one
//! 64-bit random word. Steps are numbered as on that page.

use super::consts::*;
use super::params::PieParams;
use super::vars::PieVars;
use crate::types::Ecn;

/// The admission decision of PIE for one packet: the verdict code the hardware cores share.
pub use crate::hw::driver::Verdict;

/// The queue as the arriving packet finds it (the packet itself excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueView {
    pub packets: u32,
    pub bytes: u64,
}

/// The verdict and the accumulator value that follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    pub accu_prob: u64,
    /// The local probability the packet was judged with (0 when a bypass rule decided first).
    pub local_prob: u64,
}

/// The local drop probability of a packet: prob, or in bytemode prob scaled by len / MTU (step 4).
pub fn local_prob(vars: &PieVars, params: &PieParams, len: u32) -> u64 {
    if params.bytemode && len <= params.mtu {
        len as u64 * (vars.prob / params.mtu as u64)
    } else {
        vars.prob
    }
}

/// The part of the decision that depends only on the slowly changing state (prob, delay sample, burst
/// allowance) and the packet. The hardware evaluates it when it accepts the packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prepared {
    /// Step 1 or 2 lets the packet in (burst allowance left, or low delay at low probability).
    pub bypass: bool,
    /// Step 8 would mark rather than drop (ECN on, prob <= 10 %, packet ECN-capable).
    pub ecn_ok: bool,
    /// Step 4.
    pub local_prob: u64,
}

/// Steps 1, 2, 4 and the condition of step 8.
pub fn prepare(vars: &PieVars, params: &PieParams, len: u32, ecn: Ecn) -> Prepared {
    Prepared {
        bypass: vars.burst_time > 0
            || (vars.qdelay < params.target_ticks() / 2 && vars.prob < PROB_20PCT),
        ecn_ok: params.ecn && vars.prob <= PROB_10PCT && ecn.is_ecn_capable(),
        local_prob: local_prob(vars, params, len),
    }
}

/// The rest of the decision, against the live queue and accumulator: steps 0, 3, 5, 6, 7 and 8.
pub fn finish(
    p: Prepared,
    accu_prob: u64,
    queue: QueueView,
    limit: u32,
    mtu: u32,
    rnd: u64,
) -> Decision {
    let verdict = |v: Verdict, accu: u64, lp: u64| Decision {
        verdict: v,
        accu_prob: accu,
        local_prob: lp,
    };
    // 0. The limit comes first; a tail drop clears the accumulator.
    if queue.packets >= limit {
        return verdict(Verdict::TailDrop, 0, 0);
    }
    // 1.-3. Bypass rules.
    if p.bypass || queue.bytes < 2 * mtu as u64 {
        return verdict(Verdict::Enqueue, accu_prob, 0);
    }
    let lp = p.local_prob;
    // 5.
    let mut accu = if lp == 0 {
        0
    } else {
        (accu_prob + lp).min(ACCU_MAX)
    };
    // 6.
    let early = if accu < ACCU_LOW {
        false
    } else if accu >= ACCU_HIGH {
        true
    } else if (rnd >> 8) < lp {
        // 7.
        accu = 0;
        true
    } else {
        false
    };
    if !early {
        return verdict(Verdict::Enqueue, accu, lp);
    }
    // 8. Mark instead of drop while prob is at most 10 %.
    if p.ecn_ok {
        verdict(Verdict::Mark, accu, lp)
    } else {
        verdict(Verdict::EarlyDrop, 0, lp)
    }
}

/// Decide one arriving packet: [`prepare`] then [`finish`] on the same state.
pub fn decide(
    vars: &PieVars,
    params: &PieParams,
    queue: QueueView,
    len: u32,
    ecn: Ecn,
    rnd: u64,
) -> Decision {
    let p = prepare(vars, params, len, ecn);
    finish(p, vars.accu_prob, queue, params.limit, params.mtu, rnd)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG_QUEUE: QueueView = QueueView {
        packets: 10,
        bytes: 15_000,
    };

    /// A state past every bypass rule: no burst allowance, delay at target.
    fn busy(prob: u64) -> PieVars {
        let mut v = PieVars::new(0);
        v.prob = prob;
        v.qdelay = PieParams::default().target_ticks();
        v
    }

    fn run(v: &PieVars, p: &PieParams, q: QueueView, ecn: Ecn, rnd: u64) -> Decision {
        decide(v, p, q, 1500, ecn, rnd)
    }

    #[test]
    fn tail_drop_at_limit_comes_first_and_clears_accumulator() {
        let mut v = PieVars::new(1000); // burst allowance would otherwise let it in
        v.accu_prob = 99;
        let p = PieParams {
            limit: 10,
            ..PieParams::default()
        };
        let d = run(&v, &p, BIG_QUEUE, Ecn::Ect0, 0);
        assert_eq!(d.verdict, Verdict::TailDrop);
        assert_eq!(d.accu_prob, 0);
        let d = run(
            &v,
            &p,
            QueueView {
                packets: 9,
                ..BIG_QUEUE
            },
            Ecn::Ect0,
            0,
        );
        assert_eq!(d.verdict, Verdict::Enqueue);
    }

    #[test]
    fn burst_allowance_suppresses_early_drop() {
        let mut v = busy(MAX_PROB);
        v.burst_time = 1;
        v.accu_prob = ACCU_HIGH;
        let d = run(&v, &PieParams::default(), BIG_QUEUE, Ecn::NotEct, 0);
        assert_eq!(d.verdict, Verdict::Enqueue);
        assert_eq!(d.accu_prob, ACCU_HIGH);
    }

    #[test]
    fn low_delay_and_low_prob_bypass() {
        let p = PieParams::default();
        let mut v = busy(PROB_20PCT - 1);
        v.accu_prob = ACCU_HIGH;
        v.qdelay = p.target_ticks() / 2 - 1;
        assert_eq!(
            run(&v, &p, BIG_QUEUE, Ecn::NotEct, 0).verdict,
            Verdict::Enqueue
        );
        // Either condition failing disables the bypass.
        v.qdelay = p.target_ticks() / 2;
        assert_eq!(
            run(&v, &p, BIG_QUEUE, Ecn::NotEct, 0).verdict,
            Verdict::EarlyDrop
        );
        v.qdelay = 0;
        v.prob = PROB_20PCT;
        assert_eq!(
            run(&v, &p, BIG_QUEUE, Ecn::NotEct, 0).verdict,
            Verdict::EarlyDrop
        );
    }

    #[test]
    fn backlog_below_two_mtu_bypasses() {
        let p = PieParams::default();
        let mut v = busy(MAX_PROB);
        v.accu_prob = ACCU_HIGH;
        let q = QueueView {
            packets: 2,
            bytes: 2 * 1514 - 1,
        };
        assert_eq!(run(&v, &p, q, Ecn::NotEct, 0).verdict, Verdict::Enqueue);
        let q = QueueView {
            packets: 2,
            bytes: 2 * 1514,
        };
        assert_eq!(run(&v, &p, q, Ecn::NotEct, 0).verdict, Verdict::EarlyDrop);
    }

    #[test]
    fn bytemode_scales_probability_by_length_up_to_one_mtu() {
        let p = PieParams {
            bytemode: true,
            ..PieParams::default()
        };
        let v = busy(MAX_PROB / 2);
        assert_eq!(local_prob(&v, &p, 100), 100 * ((MAX_PROB / 2) / 1514));
        assert_eq!(local_prob(&v, &p, 1514), 1514 * ((MAX_PROB / 2) / 1514));
        assert_eq!(local_prob(&v, &p, 1515), MAX_PROB / 2);
        let p = PieParams::default();
        assert_eq!(local_prob(&v, &p, 100), MAX_PROB / 2);
    }

    #[test]
    fn zero_local_probability_clears_accumulator() {
        let mut v = busy(0);
        v.qdelay = PieParams::default().target_ticks(); // no low-delay bypass
        v.accu_prob = ACCU_LOW + 5;
        let d = run(&v, &PieParams::default(), BIG_QUEUE, Ecn::NotEct, 0);
        assert_eq!(d.verdict, Verdict::Enqueue);
        assert_eq!(d.accu_prob, 0);
    }

    #[test]
    fn accumulator_below_085_never_drops() {
        let v = busy(ACCU_LOW - 1);
        let d = run(&v, &PieParams::default(), BIG_QUEUE, Ecn::NotEct, 0);
        assert_eq!(d.verdict, Verdict::Enqueue);
        assert_eq!(d.accu_prob, ACCU_LOW - 1);
    }

    #[test]
    fn accumulator_at_85_drops_without_a_draw() {
        let mut v = busy(1000);
        v.accu_prob = ACCU_HIGH - 1000;
        // A random word that would never drop: rnd >> 8 is far above local_prob.
        let d = run(&v, &PieParams::default(), BIG_QUEUE, Ecn::NotEct, u64::MAX);
        assert_eq!(d.verdict, Verdict::EarlyDrop);
        assert_eq!(d.accu_prob, 0);
    }

    #[test]
    fn random_draw_compares_the_top_56_bits_strictly() {
        let lp = PROB_10PCT;
        let mut v = busy(lp);
        v.accu_prob = ACCU_LOW;
        let p = PieParams::default();
        let d = run(&v, &p, BIG_QUEUE, Ecn::NotEct, (lp - 1) << 8 | 0xff);
        assert_eq!(d.verdict, Verdict::EarlyDrop);
        assert_eq!(d.accu_prob, 0);
        let d = run(&v, &p, BIG_QUEUE, Ecn::NotEct, lp << 8);
        assert_eq!(d.verdict, Verdict::Enqueue);
        assert_eq!(d.accu_prob, ACCU_LOW + lp);
    }

    #[test]
    fn accumulator_saturates_at_eight_and_a_half() {
        let mut v = busy(MAX_PROB / 20);
        v.accu_prob = ACCU_MAX - 3;
        let p = PieParams {
            ecn: true,
            ..PieParams::default()
        };
        let d = run(&v, &p, BIG_QUEUE, Ecn::Ect0, u64::MAX);
        assert_eq!(d.verdict, Verdict::Mark);
        assert_eq!(d.accu_prob, ACCU_MAX);
    }

    #[test]
    fn ecn_marks_instead_of_dropping_up_to_ten_percent_inclusive() {
        let p = PieParams {
            ecn: true,
            ..PieParams::default()
        };
        let mut v = busy(PROB_10PCT);
        v.accu_prob = ACCU_HIGH;
        for ecn in [Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
            let d = run(&v, &p, BIG_QUEUE, ecn, u64::MAX);
            assert_eq!(d.verdict, Verdict::Mark, "{ecn}");
            // A mark from the >= 8.5 rule keeps the accumulator.
            assert!(d.accu_prob >= ACCU_HIGH);
        }
        assert_eq!(
            run(&v, &p, BIG_QUEUE, Ecn::NotEct, u64::MAX).verdict,
            Verdict::EarlyDrop
        );
        v.prob = PROB_10PCT + 1;
        assert_eq!(
            run(&v, &p, BIG_QUEUE, Ecn::Ect0, u64::MAX).verdict,
            Verdict::EarlyDrop
        );
        let off = PieParams::default();
        v.prob = PROB_10PCT;
        assert_eq!(
            run(&v, &off, BIG_QUEUE, Ecn::Ect0, u64::MAX).verdict,
            Verdict::EarlyDrop
        );
    }

    #[test]
    fn random_mark_clears_accumulator() {
        let p = PieParams {
            ecn: true,
            ..PieParams::default()
        };
        let mut v = busy(PROB_10PCT);
        v.accu_prob = ACCU_LOW;
        let d = run(&v, &p, BIG_QUEUE, Ecn::Ect1, 0);
        assert_eq!(d.verdict, Verdict::Mark);
        assert_eq!(d.accu_prob, 0);
    }

    #[test]
    fn derandomisation_spaces_drops() {
        // At a constant 1 % with random words that never hit, drops come only from the 8.5 rule. With the
        // truncated constants 850 * (MAX/100) falls just short of (MAX/2) * 17, so every 851st packet drops.
        let p = PieParams::default();
        let mut v = busy(MAX_PROB / 100);
        let mut drops = vec![];
        for i in 0..3000 {
            let d = run(&v, &p, BIG_QUEUE, Ecn::NotEct, u64::MAX);
            v.accu_prob = d.accu_prob;
            if d.verdict == Verdict::EarlyDrop {
                drops.push(i);
            }
        }
        assert_eq!(drops, vec![850, 1701, 2552]);
    }
}
