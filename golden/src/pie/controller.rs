//! The PI controller: one update every tupdate (spec/pie.md, "Controller"). Steps are numbered as on that page.

use super::consts::*;
use super::params::PieParams;
use super::vars::PieVars;

/// What one update computed, for traces and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdateReport {
    /// alpha and beta after auto-scaling (internal units).
    pub alpha_i: u64,
    pub beta_i: u64,
    /// The step added to prob (after the cap and the boost), as a signed 64-bit value.
    pub delta: i64,
    /// prob was clamped at 100 % this update.
    pub saturated_up: bool,
    /// The 63/64 decay was applied.
    pub decayed: bool,
    /// The burst allowance and accumulator were reset (a new measurement cycle).
    pub burst_reset: bool,
}

/// Alpha and beta in internal units, auto-scaled for the current probability (step 3).
pub fn scaled_gains(params: &PieParams, prob: u64) -> (u64, u64) {
    let mut alpha_i = (params.alpha as u64 * GAIN_K) >> 4;
    let mut beta_i = (params.beta as u64 * GAIN_K) >> 4;
    if prob < PROB_10PCT {
        alpha_i >>= 1;
        beta_i >>= 1;
        for level in SCALE_LEVELS {
            if prob >= level {
                break;
            }
            alpha_i >>= 2;
            beta_i >>= 2;
        }
    }
    (alpha_i, beta_i)
}

/// One controller update. `backlog_bytes` is the queue's byte backlog at the moment of the update.
pub fn update(vars: &mut PieVars, params: &PieParams, backlog_bytes: u64) -> UpdateReport {
    let target = params.target_ticks();
    // 1. qdelay is the latest dequeue sample.
    let qdelay = vars.qdelay;
    let qdelay_old = vars.qdelay_old;
    // 2.
    let no_decay = qdelay == 0 && backlog_bytes != 0;
    // 3.
    let (alpha_i, beta_i) = scaled_gains(params, vars.prob);
    // 4. Linux's arithmetic: u64 products of tick differences, wrapping, read as s64.
    let mut delta = alpha_i
        .wrapping_mul(qdelay.wrapping_sub(target))
        .wrapping_add(beta_i.wrapping_mul(qdelay.wrapping_sub(qdelay_old)))
        as i64;
    // 5. Upward steps are capped at 2 % once prob is at 10 % or more.
    if delta > PROB_2PCT as i64 && vars.prob >= PROB_10PCT {
        delta = PROB_2PCT as i64;
    }
    // 6. A queue above 250 ms pushes prob up by a further 2 %.
    if qdelay > QDELAY_BOOST_TICKS {
        delta = delta.wrapping_add(PROB_2PCT as i64);
    }
    // 7. Saturate to [0, MAX_PROB] (deviation from Linux, which lets prob exceed MAX_PROB).
    let sum = vars.prob as i128 + delta as i128;
    let saturated_up = sum > MAX_PROB as i128;
    vars.prob = sum.clamp(0, MAX_PROB as i128) as u64;
    // 8. Decay after two updates with an empty queue.
    let decayed = qdelay == 0 && qdelay_old == 0 && !no_decay && !saturated_up;
    if decayed {
        vars.prob -= vars.prob >> 6;
    }
    // 9. A new measurement cycle after two quiet updates at zero probability.
    let burst_reset = qdelay < target / 2 && qdelay_old < target / 2 && vars.prob == 0;
    if burst_reset {
        vars.burst_time = params.max_burst_ticks();
        vars.accu_prob = 0;
    }
    vars.qdelay_old = qdelay;
    UpdateReport {
        alpha_i,
        beta_i,
        delta,
        saturated_up,
        decayed,
        burst_reset,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> PieVars {
        PieVars::new(PieParams::default().max_burst_ticks())
    }

    /// State at prob 64000 and parameters without gains: only the decay can move prob.
    fn decaying() -> (PieVars, PieParams) {
        let mut v = vars();
        v.prob = 64_000;
        let p = PieParams {
            alpha: 0,
            beta: 0,
            ..PieParams::default()
        };
        (v, p)
    }

    #[test]
    fn worked_example_from_the_spec() {
        let mut v = vars();
        v.qdelay = 78_125; // 5 ms
        let r = update(&mut v, &PieParams::default(), 10_000);
        assert_eq!(r.alpha_i, 281_474);
        assert_eq!(r.beta_i, 2_814_749);
        // The spec's decimal rendering (175,921,640,625) has a typo; its hex value is the right one.
        assert_eq!(r.delta, 0x28_F5C3_F965);
        assert_eq!(r.delta, 175_921_953_125);
        assert_eq!(v.prob, 0x0000_0028_F5C3_F965);
    }

    #[test]
    fn gains_shift_by_one_then_two_per_level_while_prob_is_low() {
        let p = PieParams::default();
        let a = (2 * GAIN_K) >> 4;
        let b = (20 * GAIN_K) >> 4;
        assert_eq!(scaled_gains(&p, PROB_10PCT), (a, b));
        assert_eq!(scaled_gains(&p, PROB_10PCT - 1), (a >> 1, b >> 1));
        assert_eq!(scaled_gains(&p, MAX_PROB / 100), (a >> 1, b >> 1));
        assert_eq!(
            scaled_gains(&p, MAX_PROB / 100 - 1),
            ((a >> 1) >> 2, (b >> 1) >> 2)
        );
        assert_eq!(
            scaled_gains(&p, MAX_PROB / 1_000_000),
            ((a >> 1) >> 8, (b >> 1) >> 8)
        );
        assert_eq!(scaled_gains(&p, 0), ((a >> 1) >> 10, (b >> 1) >> 10));
    }

    #[test]
    fn gain_shifts_truncate_step_by_step() {
        // alpha = 3: ((3K >> 4) >> 1 >> 2 ...) differs from 3K >> 15 in the last bit for some inputs; the
        // model must apply the shifts in turn.
        let p = PieParams {
            alpha: 3,
            beta: 7,
            ..PieParams::default()
        };
        let (a, b) = scaled_gains(&p, 0);
        let mut ea = (3 * GAIN_K) >> 4;
        let mut eb = (7 * GAIN_K) >> 4;
        ea >>= 1;
        eb >>= 1;
        for _ in 0..5 {
            ea >>= 2;
            eb >>= 2;
        }
        assert_eq!((a, b), (ea, eb));
    }

    #[test]
    fn upward_step_capped_at_two_percent_above_ten_percent() {
        let mut v = vars();
        v.prob = PROB_10PCT;
        v.qdelay = 1_000_000; // 64 ms, far above target
        let r = update(&mut v, &PieParams::default(), 100_000);
        assert_eq!(r.delta, PROB_2PCT as i64);
        assert_eq!(v.prob, PROB_10PCT + PROB_2PCT);
    }

    #[test]
    fn upward_step_not_capped_below_ten_percent() {
        let mut v = vars();
        v.prob = PROB_10PCT - 1;
        v.qdelay = 1_000_000;
        let r = update(&mut v, &PieParams::default(), 100_000);
        assert!(r.delta > PROB_2PCT as i64);
    }

    #[test]
    fn downward_step_never_capped() {
        let mut v = vars();
        v.prob = MAX_PROB / 2;
        v.qdelay = 1;
        v.qdelay_old = 2_000_000;
        let r = update(&mut v, &PieParams::default(), 100_000);
        assert!(r.delta < -(PROB_2PCT as i64));
    }

    #[test]
    fn delay_above_250ms_adds_two_percent_after_the_cap() {
        let mut v = vars();
        v.prob = MAX_PROB / 2;
        v.qdelay = QDELAY_BOOST_TICKS + 1;
        v.qdelay_old = QDELAY_BOOST_TICKS + 1;
        let r = update(&mut v, &PieParams::default(), 100_000);
        assert_eq!(r.delta, 2 * PROB_2PCT as i64);
        // Exactly 250 ms does not boost.
        let mut w = vars();
        w.prob = MAX_PROB / 2;
        w.qdelay = QDELAY_BOOST_TICKS;
        w.qdelay_old = QDELAY_BOOST_TICKS;
        let r = update(&mut w, &PieParams::default(), 100_000);
        assert_eq!(r.delta, PROB_2PCT as i64);
    }

    #[test]
    fn prob_saturates_at_one_hundred_percent_and_skips_decay() {
        let mut v = vars();
        v.prob = MAX_PROB - 5;
        v.qdelay = QDELAY_BOOST_TICKS * 2;
        let r = update(&mut v, &PieParams::default(), 100_000);
        assert!(r.saturated_up);
        assert_eq!(v.prob, MAX_PROB);
    }

    #[test]
    fn prob_saturates_at_zero() {
        let mut v = vars();
        v.prob = 10;
        v.qdelay = 1;
        let r = update(&mut v, &PieParams::default(), 3000);
        assert!(r.delta < -10);
        assert_eq!(v.prob, 0);
    }

    #[test]
    fn decay_after_two_empty_updates_with_empty_queue() {
        let (mut v, p) = decaying();
        let r = update(&mut v, &p, 0);
        assert!(r.decayed);
        assert_eq!(v.prob, 64_000 - 1000);
    }

    #[test]
    fn no_decay_while_backlog_is_not_zero() {
        let (mut v, p) = decaying();
        let r = update(&mut v, &p, 1500);
        assert!(!r.decayed);
        assert_eq!(v.prob, 64_000);
    }

    #[test]
    fn no_decay_unless_previous_qdelay_was_zero_too() {
        let (mut v, p) = decaying();
        v.qdelay_old = 1;
        let r = update(&mut v, &p, 0);
        assert!(!r.decayed);
    }

    #[test]
    fn burst_allowance_and_accumulator_reset_after_two_quiet_updates_at_zero_prob() {
        let mut v = vars();
        v.burst_time = 0;
        v.accu_prob = 12345;
        v.qdelay = 117_186;
        v.qdelay_old = 117_186;
        let r = update(&mut v, &PieParams::default(), 0);
        assert!(r.burst_reset);
        assert_eq!(v.burst_time, 2_343_750);
        assert_eq!(v.accu_prob, 0);
        assert_eq!(v.qdelay_old, 117_186);
    }

    #[test]
    fn no_burst_reset_at_half_target() {
        let mut v = vars();
        v.burst_time = 0;
        v.qdelay = 117_187; // exactly target/2 is not below it
        v.qdelay_old = 0;
        let p = PieParams {
            alpha: 0,
            beta: 0,
            ..PieParams::default()
        };
        let r = update(&mut v, &p, 0);
        assert!(!r.burst_reset);
        assert_eq!(v.burst_time, 0);
    }

    #[test]
    fn delta_uses_wrapping_64_bit_arithmetic() {
        // A qdelay far beyond anything real makes the products wrap; the model follows Linux's u64 math.
        let mut v = vars();
        v.prob = PROB_10PCT;
        v.qdelay = 1 << 40;
        let p = PieParams {
            alpha: 32,
            beta: 32,
            ..PieParams::default()
        };
        let (a, b) = scaled_gains(&p, v.prob);
        let expect = a
            .wrapping_mul((1u64 << 40).wrapping_sub(p.target_ticks()))
            .wrapping_add(b.wrapping_mul(1 << 40)) as i64;
        let r = update(&mut v, &p, 1);
        let capped = if expect > PROB_2PCT as i64 {
            PROB_2PCT as i64
        } else {
            expect
        };
        assert_eq!(r.delta, capped.wrapping_add(PROB_2PCT as i64));
    }
}
