//! The per-packet decision at dequeue (spec/dualpi2.md, "Per-packet decision at dequeue"): a pure
//! function of the state, the packet at the head of its queue, the backlog it leaves behind and one
//! 64-bit random word.
//!
//! The word's low 32 bits are the first draw, its high 32 bits the second; roll(x) = (draw <= x). The
//! decision consumes the word whether or not it needs the draws, so the generator steps once per packet.
//!
//! Two choices the page leaves open, made as Linux's sch_dualpi2 makes them:
//! - The 2*MTU gate compares the backlog of both queues *after* this packet has left its queue, and it
//!   gates only the coupled (PI2) part: the L queue's step marker acts whatever the backlog.
//! - When both parts fire on an L packet, the verdict names the first (the coupled mark); the step
//!   marker cannot mark a packet twice. A packet dropped by the coupled part is not seen by the step
//!   marker.

use super::consts::{coupled_prob, is_overload};
use super::params::DualPi2Params;
use super::vars::DualPi2Vars;
use crate::types::{DropReason, Ecn, MarkReason, QueueId};

/// The packet being decided, as it comes off the head of its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    pub queue: QueueId,
    /// ECN field on arrival.
    pub ecn: Ecn,
    /// Time it spent in the queue, ns.
    pub sojourn_ns: u64,
    /// The L queue held at least min_qlen_step packets when it arrived (see [`super::classify`]).
    pub apply_step: bool,
}

/// The rule that marked or dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// C queue: roll(p') && roll(p'), i.e. p_C = p'^2; a drop if Not-ECT or in overload.
    Classic,
    /// L queue: roll(k p'), the coupled probability p_CL; a drop only for a Not-ECT packet.
    Coupled,
    /// L queue in overload (k p' > 100 %): a mark, or with drop_overload a drop with p'^2.
    Overload,
    /// L queue's native AQM: sojourn above the step threshold; a drop only for a Not-ECT packet.
    Step,
}

impl Rule {
    /// The reason the simulator and the counters report for a drop by this rule.
    pub fn drop_reason(self) -> DropReason {
        match self {
            Rule::Classic => DropReason::Classic,
            Rule::Coupled | Rule::Overload => DropReason::LowLatency,
            Rule::Step => DropReason::Step,
        }
    }

    /// The reason reported for a mark by this rule.
    pub fn mark_reason(self) -> MarkReason {
        match self {
            Rule::Classic => MarkReason::Classic,
            Rule::Coupled | Rule::Overload => MarkReason::Coupled,
            Rule::Step => MarkReason::Step,
        }
    }

    /// Lower-case name, as traces print it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Classic => "classic",
            Rule::Coupled => "coupled",
            Rule::Overload => "overload",
            Rule::Step => "step",
        }
    }
}

/// What happens to the head packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Sent unchanged.
    Pass,
    /// Sent with ECN set to CE.
    Mark(Rule),
    /// Dropped; the scheduler picks again.
    Drop(Rule),
}

/// The verdict and the conditions it was taken under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    /// The backlog was below 2 * MTU: the coupled part did not act.
    pub gated: bool,
    /// The coupled part acted with k p' > 100 % (false when gated).
    pub overload: bool,
}

/// The two 32-bit draws of a random word: (low half, high half).
pub fn draws(rnd: u64) -> (u32, u32) {
    (rnd as u32, (rnd >> 32) as u32)
}

/// roll(x): the draw hits when it is at or below x (inclusive; x may exceed 2^32 - 1, then it always hits).
pub fn roll(draw: u32, x: u64) -> bool {
    draw as u64 <= x
}

/// Decide the head packet. `backlog_bytes`: both queues' bytes with this packet already taken off.
pub fn decide(
    vars: &DualPi2Vars,
    params: &DualPi2Params,
    backlog_bytes: u64,
    head: &Head,
    rnd: u64,
) -> Decision {
    let (first, second) = draws(rnd);
    let p = vars.prob as u64;
    let ect = head.ecn.is_ecn_capable();
    // Total backlog below 2 * MTU: the coupled part takes no action.
    let gated = backlog_bytes < 2 * params.mtu as u64;
    let overload = !gated && is_overload(params.k, vars.prob);
    let squared = roll(first, p) && roll(second, p);
    let coupled = if gated {
        Verdict::Pass
    } else {
        match head.queue {
            // Classic: roll(p') && roll(p'); drop if overload or Not-ECT, else mark.
            QueueId::Classic if squared && (overload || !ect) => Verdict::Drop(Rule::Classic),
            QueueId::Classic if squared => Verdict::Mark(Rule::Classic),
            QueueId::Classic => Verdict::Pass,
            // L in overload: drop with p'^2 when drop_overload, else (and otherwise) mark.
            QueueId::L if overload && params.drop_overload && squared => {
                Verdict::Drop(Rule::Overload)
            }
            QueueId::L if overload => Verdict::Mark(Rule::Overload),
            // L: roll(k p') with the first draw; drop if Not-ECT, else mark.
            QueueId::L if roll(first, coupled_prob(params.k, vars.prob)) => {
                if ect {
                    Verdict::Mark(Rule::Coupled)
                } else {
                    Verdict::Drop(Rule::Coupled)
                }
            }
            QueueId::L => Verdict::Pass,
        }
    };
    // The L queue's native AQM, for L packets still here: sojourn strictly above the threshold.
    let step = head.queue == QueueId::L
        && head.apply_step
        && head.sojourn_ns > params.step_ns()
        && !matches!(coupled, Verdict::Drop(_));
    let verdict = match coupled {
        Verdict::Pass if step && !ect => Verdict::Drop(Rule::Step),
        Verdict::Pass if step => Verdict::Mark(Rule::Step),
        v => v,
    };
    Decision {
        verdict,
        gated,
        overload,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dualpi2::consts::MAX_PROB;

    const P: DualPi2Params = super::super::params::DEFAULT_PARAMS;
    const BIG: u64 = 100_000;
    const MS: u64 = 1_000_000;

    fn vars(prob: u32) -> DualPi2Vars {
        DualPi2Vars {
            prob,
            ..DualPi2Vars::new(&P)
        }
    }

    fn head(queue: QueueId, ecn: Ecn) -> Head {
        Head {
            queue,
            ecn,
            sojourn_ns: 0,
            apply_step: true,
        }
    }

    fn word(first: u32, second: u32) -> u64 {
        (second as u64) << 32 | first as u64
    }

    fn run(prob: u32, p: &DualPi2Params, h: Head, rnd: u64) -> Verdict {
        decide(&vars(prob), p, BIG, &h, rnd).verdict
    }

    #[test]
    fn draws_are_the_low_half_then_the_high_half() {
        assert_eq!(draws(0x1111_2222_3333_4444), (0x3333_4444, 0x1111_2222));
    }

    #[test]
    fn roll_is_inclusive_and_always_hits_above_max() {
        assert!(roll(7, 7));
        assert!(!roll(8, 7));
        assert!(roll(u32::MAX, MAX_PROB as u64));
        assert!(roll(u32::MAX, 1 << 33));
        assert!(!roll(0x8000_0000, 0));
        assert!(roll(0, 0));
    }

    #[test]
    fn backlog_below_two_mtu_takes_no_coupled_action() {
        let h = head(QueueId::Classic, Ecn::NotEct);
        let v = vars(MAX_PROB);
        let d = decide(&v, &P, 2 * 1514 - 1, &h, 0);
        assert_eq!(d.verdict, Verdict::Pass);
        assert!(d.gated && !d.overload);
        let d = decide(&v, &P, 2 * 1514, &h, 0);
        assert_eq!(d.verdict, Verdict::Drop(Rule::Classic));
        assert!(!d.gated && d.overload);
    }

    #[test]
    fn step_marker_acts_whatever_the_backlog() {
        let h = Head {
            sojourn_ns: 2 * MS,
            ..head(QueueId::L, Ecn::Ect1)
        };
        let d = decide(&vars(0), &P, 0, &h, u64::MAX);
        assert_eq!(d.verdict, Verdict::Mark(Rule::Step));
        assert!(d.gated);
    }

    #[test]
    fn classic_needs_both_draws_to_hit() {
        let p = 1000;
        let h = head(QueueId::Classic, Ecn::Ect0);
        assert_eq!(
            run(p, &P, h, word(1000, 1000)),
            Verdict::Mark(Rule::Classic)
        );
        assert_eq!(run(p, &P, h, word(1000, 1001)), Verdict::Pass);
        assert_eq!(run(p, &P, h, word(1001, 0)), Verdict::Pass);
    }

    #[test]
    fn classic_not_ect_is_dropped_and_ecn_capable_is_marked() {
        let w = word(5, 5);
        assert_eq!(
            run(10, &P, head(QueueId::Classic, Ecn::NotEct), w),
            Verdict::Drop(Rule::Classic)
        );
        for ecn in [Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
            assert_eq!(
                run(10, &P, head(QueueId::Classic, ecn), w),
                Verdict::Mark(Rule::Classic),
                "{ecn}"
            );
        }
    }

    #[test]
    fn classic_ecn_packets_are_dropped_in_overload() {
        let p = MAX_PROB / 2 + 1;
        assert_eq!(
            run(p, &P, head(QueueId::Classic, Ecn::Ect0), word(0, 0)),
            Verdict::Drop(Rule::Classic)
        );
        assert_eq!(
            run(p, &P, head(QueueId::Classic, Ecn::Ect0), word(0, u32::MAX)),
            Verdict::Pass
        );
    }

    #[test]
    fn classic_square_law_over_many_words() {
        // p' = 10 %: p_C = 1 %.
        let p = MAX_PROB / 10;
        let h = head(QueueId::Classic, Ecn::NotEct);
        let mut g = crate::prng::XorShift64::default();
        let n = 200_000;
        let drops = (0..n)
            .filter(|_| run(p, &P, h, g.next_word()) != Verdict::Pass)
            .count();
        let rate = drops as f64 / n as f64;
        assert!((rate - 0.01).abs() < 0.001, "{rate}");
    }

    #[test]
    fn l_coupled_roll_uses_k_times_p_and_the_first_draw_only() {
        let p = 1000;
        let h = head(QueueId::L, Ecn::Ect1);
        for second in [0, u32::MAX] {
            assert_eq!(
                run(p, &P, h, word(2000, second)),
                Verdict::Mark(Rule::Coupled)
            );
            assert_eq!(run(p, &P, h, word(2001, second)), Verdict::Pass);
        }
        let k5 = DualPi2Params { k: 5, ..P };
        assert_eq!(run(p, &k5, h, word(5000, 0)), Verdict::Mark(Rule::Coupled));
        assert_eq!(run(p, &k5, h, word(5001, 0)), Verdict::Pass);
    }

    #[test]
    fn l_not_ect_is_dropped_by_the_coupled_roll() {
        // Not reachable through classification by ECN mask, but the rule is the spec's.
        assert_eq!(
            run(1000, &P, head(QueueId::L, Ecn::NotEct), word(0, 0)),
            Verdict::Drop(Rule::Coupled)
        );
    }

    #[test]
    fn k_times_p_equal_to_max_is_not_overload_and_always_marks() {
        let p3 = DualPi2Params { k: 3, ..P };
        let prob = MAX_PROB / 3; // 3 * (MAX / 3) = MAX exactly
        let d = decide(
            &vars(prob),
            &p3,
            BIG,
            &head(QueueId::L, Ecn::Ect1),
            u64::MAX,
        );
        assert!(!d.overload);
        assert_eq!(d.verdict, Verdict::Mark(Rule::Coupled));
    }

    #[test]
    fn overload_with_drop_overload_drops_l_packets_with_p_squared() {
        let prob = MAX_PROB / 2 + 1;
        let h = head(QueueId::L, Ecn::Ect1);
        let d = decide(&vars(prob), &P, BIG, &h, word(prob, prob));
        assert!(d.overload);
        assert_eq!(d.verdict, Verdict::Drop(Rule::Overload));
        // Either draw missing: a mark, never a pass.
        assert_eq!(
            run(prob, &P, h, word(prob + 1, 0)),
            Verdict::Mark(Rule::Overload)
        );
        assert_eq!(
            run(prob, &P, h, word(0, prob + 1)),
            Verdict::Mark(Rule::Overload)
        );
    }

    #[test]
    fn overload_without_drop_overload_marks_every_l_packet() {
        let off = DualPi2Params {
            drop_overload: false,
            ..P
        };
        let prob = MAX_PROB; // only reachable by a register or trace write: the controller caps it
        let h = head(QueueId::L, Ecn::Ect1);
        for rnd in [0, u64::MAX, 0x1234_5678_9abc_def0] {
            assert_eq!(run(prob, &off, h, rnd), Verdict::Mark(Rule::Overload));
        }
    }

    #[test]
    fn overload_turns_l_marks_into_drops_only_with_drop_overload() {
        let mut g = crate::prng::XorShift64::default();
        let prob = (MAX_PROB as u64 * 7 / 10) as u32; // k p' = 140 %, p'^2 = 49 %
        let h = head(QueueId::L, Ecn::Ect1);
        let off = DualPi2Params {
            drop_overload: false,
            ..P
        };
        let (mut on_drops, mut off_drops) = (0, 0);
        for _ in 0..10_000 {
            let w = g.next_word();
            on_drops += matches!(run(prob, &P, h, w), Verdict::Drop(_)) as u32;
            off_drops += matches!(run(prob, &off, h, w), Verdict::Drop(_)) as u32;
        }
        assert!((4_600..5_200).contains(&on_drops), "{on_drops}");
        assert_eq!(off_drops, 0);
    }

    #[test]
    fn step_one_ms_passes_and_one_point_001_ms_marks() {
        let at = |sojourn_ns| {
            let h = Head {
                sojourn_ns,
                ..head(QueueId::L, Ecn::Ect1)
            };
            run(0, &P, h, u64::MAX)
        };
        assert_eq!(at(MS), Verdict::Pass);
        assert_eq!(at(MS + 1_000), Verdict::Mark(Rule::Step));
        assert_eq!(at(MS + 1), Verdict::Mark(Rule::Step));
    }

    #[test]
    fn step_drops_a_not_ect_l_packet() {
        let h = Head {
            sojourn_ns: 2 * MS,
            ..head(QueueId::L, Ecn::NotEct)
        };
        assert_eq!(run(0, &P, h, u64::MAX), Verdict::Drop(Rule::Step));
    }

    #[test]
    fn step_needs_the_enqueue_time_queue_length_condition() {
        let h = Head {
            sojourn_ns: 2 * MS,
            apply_step: false,
            ..head(QueueId::L, Ecn::Ect1)
        };
        assert_eq!(run(0, &P, h, u64::MAX), Verdict::Pass);
    }

    #[test]
    fn step_never_touches_classic_packets() {
        let h = Head {
            sojourn_ns: 100 * MS,
            ..head(QueueId::Classic, Ecn::Ect0)
        };
        assert_eq!(run(0, &P, h, u64::MAX), Verdict::Pass);
    }

    #[test]
    fn a_coupled_mark_stays_the_reason_when_the_step_also_fires() {
        let h = Head {
            sojourn_ns: 2 * MS,
            ..head(QueueId::L, Ecn::Ect1)
        };
        assert_eq!(run(1000, &P, h, word(0, 0)), Verdict::Mark(Rule::Coupled));
    }

    #[test]
    fn an_overload_drop_is_not_seen_by_the_step_marker() {
        let h = Head {
            sojourn_ns: 2 * MS,
            ..head(QueueId::L, Ecn::Ect1)
        };
        assert_eq!(run(MAX_PROB, &P, h, 0), Verdict::Drop(Rule::Overload));
    }

    #[test]
    fn step_threshold_follows_its_parameter() {
        let p = DualPi2Params { step_us: 0, ..P };
        let h = Head {
            sojourn_ns: 1,
            ..head(QueueId::L, Ecn::Ce)
        };
        assert_eq!(run(0, &p, h, u64::MAX), Verdict::Mark(Rule::Step));
        let h0 = Head { sojourn_ns: 0, ..h };
        assert_eq!(run(0, &p, h0, u64::MAX), Verdict::Pass);
    }

    #[test]
    fn rules_map_to_the_shared_reasons() {
        assert_eq!(Rule::Classic.drop_reason(), DropReason::Classic);
        assert_eq!(Rule::Overload.drop_reason(), DropReason::LowLatency);
        assert_eq!(Rule::Coupled.drop_reason(), DropReason::LowLatency);
        assert_eq!(Rule::Step.drop_reason(), DropReason::Step);
        assert_eq!(Rule::Overload.mark_reason(), MarkReason::Coupled);
        assert_eq!(Rule::Step.mark_reason(), MarkReason::Step);
    }
}
