//! The PI2 controller: one update every tupdate (spec/dualpi2.md, "Controller"). Steps are numbered as on
//! that page.

use super::consts::{is_overload, prob_cap, DELTA_SHIFT, MAX_PROB};
use super::params::DualPi2Params;
use super::vars::DualPi2Vars;

/// What one update computed, for traces and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdateReport {
    /// The head-of-queue delay the update used, ns.
    pub qdelay: u64,
    /// alpha_i * (qdelay - target) + beta_i * (qdelay - last_qdelay) (saturated to the i64 range, which
    /// only inputs far beyond the hardware's 40-bit delays can reach).
    pub delta: i64,
    /// p' was clamped at 0 or at 100 % (step 3).
    pub saturated: bool,
    /// p' was capped at MAX / k because drop_overload is off (step 4).
    pub capped: bool,
    /// k * p' > 100 % after the update.
    pub overload: bool,
}

/// Step 1: the larger age of the two head packets at `now`; an empty queue (`None`) counts 0.
pub fn head_of_queue_delay(now: u64, c_head_ts: Option<u64>, l_head_ts: Option<u64>) -> u64 {
    let age = |ts: Option<u64>| ts.map_or(0, |t| now.saturating_sub(t));
    age(c_head_ts).max(age(l_head_ts))
}

/// Steps 2-4: one controller update with the head-of-queue delay `qdelay` (ns).
pub fn update(vars: &mut DualPi2Vars, params: &DualPi2Params, qdelay: u64) -> UpdateReport {
    // 2. Exact arithmetic: with the hardware's ranges (delays below 2^40 ns, gains below 2^21) this is
    //    the spec's signed 64-bit delta, bit for bit.
    let d = |a: u64, b: u64| a as i128 - b as i128;
    let delta = d(qdelay, params.target_ns()) * params.alpha_i() as i128
        + d(qdelay, vars.last_qdelay) * params.beta_i() as i128;
    vars.last_qdelay = qdelay;
    // 3. delta / 64, truncating toward zero (Rust's integer division does), then saturate.
    let sum = vars.prob as i128 + delta / (1 << DELTA_SHIFT);
    let saturated = !(0..=MAX_PROB as i128).contains(&sum);
    vars.prob = sum.clamp(0, MAX_PROB as i128) as u32;
    // 4. Without drop_overload, keep k p' at or below 100 %.
    let capped = !params.drop_overload && vars.prob > prob_cap(params.k);
    if capped {
        vars.prob = prob_cap(params.k);
    }
    UpdateReport {
        qdelay,
        delta: delta.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        saturated,
        capped,
        overload: is_overload(params.k, vars.prob),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: DualPi2Params = super::super::params::DEFAULT_PARAMS;
    const MS: u64 = 1_000_000;

    fn vars() -> DualPi2Vars {
        DualPi2Vars::new(&P)
    }

    #[test]
    fn worked_example_from_the_spec() {
        let mut v = vars();
        let r = update(&mut v, &P, 5 * MS);
        assert_eq!(r.delta, 3_955_000_000);
        assert_eq!(r.delta / 64, 61_796_875);
        assert_eq!(v.prob, 0x03AE_F20B);
        assert_eq!(v.last_qdelay, 5 * MS);
        assert!(!r.saturated && !r.capped && !r.overload);
    }

    #[test]
    fn head_of_queue_delay_is_the_older_head_and_empty_counts_zero() {
        assert_eq!(head_of_queue_delay(100, Some(90), Some(40)), 60);
        assert_eq!(head_of_queue_delay(100, Some(40), Some(90)), 60);
        assert_eq!(head_of_queue_delay(100, None, Some(90)), 10);
        assert_eq!(head_of_queue_delay(100, Some(70), None), 30);
        assert_eq!(head_of_queue_delay(100, None, None), 0);
    }

    #[test]
    fn delta_divides_by_64_truncating_toward_zero() {
        // qdelay = target, last = target - 1: delta = +879, p' += 13 (879 / 64 = 13.7).
        let mut v = vars();
        v.last_qdelay = P.target_ns() - 1;
        let r = update(&mut v, &P, P.target_ns());
        assert_eq!(r.delta, 879);
        assert_eq!(v.prob, 13);
        // The same step downwards: -879 / 64 = -13 (not -14).
        let mut v = vars();
        v.prob = 100;
        v.last_qdelay = P.target_ns() + 1;
        let r = update(&mut v, &P, P.target_ns());
        assert_eq!(r.delta, -879);
        assert_eq!(v.prob, 87);
        // -923 / 64 = -14.4 -> -14.
        let mut v = vars();
        v.prob = 100;
        v.last_qdelay = P.target_ns();
        let r = update(&mut v, &P, P.target_ns() - 1);
        assert_eq!(r.delta, -44 - 879);
        assert_eq!(v.prob, 100 - 14);
        // |delta| < 64 moves nothing.
        let mut v = vars();
        v.prob = 100;
        v.last_qdelay = P.target_ns() + 1;
        let r = update(&mut v, &P, P.target_ns() + 1);
        assert_eq!(r.delta, 44);
        assert_eq!(v.prob, 100);
    }

    #[test]
    fn prob_saturates_at_zero() {
        let mut v = vars();
        v.prob = 1000;
        let r = update(&mut v, &P, 0);
        assert!(r.delta < 0 && r.saturated);
        assert_eq!(v.prob, 0);
    }

    #[test]
    fn a_large_delay_jump_saturates_instead_of_wrapping() {
        // Linux adds delta / 64 into a u32 and wraps on a jump of ~313 ms or more: 15 ms -> 400 ms.
        let mut v = vars();
        v.last_qdelay = 15 * MS;
        let r = update(&mut v, &P, 400 * MS);
        let step = (385 * MS * 44 + 385 * MS * 879) / 64;
        assert!(step > MAX_PROB as u64, "{step}");
        assert!(r.saturated);
        assert_eq!(v.prob, MAX_PROB);
        assert!(r.overload);
    }

    #[test]
    fn without_drop_overload_prob_is_capped_at_max_over_k() {
        let p = DualPi2Params {
            drop_overload: false,
            ..P
        };
        let mut v = vars();
        v.last_qdelay = 15 * MS;
        let r = update(&mut v, &p, 400 * MS);
        assert!(r.capped && !r.overload);
        assert_eq!(v.prob, MAX_PROB / 2);
        let p3 = DualPi2Params { k: 3, ..p };
        let mut v = vars();
        v.prob = MAX_PROB / 2;
        update(&mut v, &p3, P.target_ns());
        assert_eq!(v.prob, MAX_PROB / 3);
        // Below the cap nothing changes.
        let mut v = vars();
        let r = update(&mut v, &p, 5 * MS);
        assert!(!r.capped);
        assert_eq!(v.prob, 0x03AE_F20B);
    }

    #[test]
    fn with_drop_overload_prob_may_exceed_max_over_k() {
        let mut v = vars();
        v.prob = MAX_PROB / 2;
        let r = update(&mut v, &P, 20 * MS);
        assert!(v.prob > MAX_PROB / 2);
        assert!(r.overload && !r.capped);
    }

    #[test]
    fn delay_at_target_and_steady_keeps_prob() {
        let mut v = vars();
        v.prob = 12345;
        v.last_qdelay = P.target_ns();
        let r = update(&mut v, &P, P.target_ns());
        assert_eq!(r.delta, 0);
        assert_eq!(v.prob, 12345);
    }

    #[test]
    fn absurd_delays_saturate_without_overflow() {
        let p = DualPi2Params {
            alpha: range_max(),
            beta: range_max(),
            ..P
        };
        let mut v = vars();
        let r = update(&mut v, &p, u64::MAX);
        assert_eq!(r.delta, i64::MAX);
        assert_eq!(v.prob, MAX_PROB);
        let r = update(&mut v, &p, 0);
        assert_eq!(r.delta, i64::MIN);
        assert_eq!(v.prob, 0);
    }

    fn range_max() -> u32 {
        super::super::params::range::GAIN.1
    }
}
