//! DualPI2's fixed-point constants, in Linux's units (spec/dualpi2.md, "Units and defaults").

/// 100 % probability for the base probability p': 2^32 - 1.
pub const MAX_PROB: u32 = u32::MAX;

/// Each update moves p' by delta / 2^6: the internal gains carry 6 extra fraction bits so that small
/// gains keep their precision (Linux's ALPHA_BETA_GRANULARITY).
pub const DELTA_SHIFT: u32 = 6;

/// tc gives alpha and beta in Hz x 2^8; the internal gains are in probability units per ns of delay
/// x 2^6, so the conversion divides by 2^(8 - 6) = 4 (and by 10^9 ns/s).
pub const GAIN_SHIFT: u32 = 8 - DELTA_SHIFT;

pub const NS_PER_SEC: u64 = 1_000_000_000;
pub const NS_PER_US: u64 = 1_000;

/// The WRR weights are percentages: wc + wl = 100.
pub const WEIGHT_TOTAL: u32 = 100;

/// Descriptors each of the hardware's two queues holds (one block-RAM FIFO per queue).
pub const HW_QUEUE_CAPACITY: u32 = 512;

/// The hardware core's timing (hdl/DUALPI2-CORE.md), which its cycle-accurate model and the RTL share.
/// Cycles from accepting a descriptor to its verdict.
pub const VERDICT_LATENCY: u64 = 2;
/// Cycles from the controller's firing cycle to the cycle its results are visible.
pub const UPDATE_CYCLES: u64 = 215;
/// Cycles from the start of a recomputation (PROB write, K change) to the cycle its results are visible.
pub const RECOMPUTE_CYCLES: u64 = 42;
/// Cycles from a parameter write (`reg_we`) to the cycle the new value and what derives from it are in
/// effect.
pub const PARAM_CYCLES: u64 = 40;
/// Width of the hardware's enqueue timestamps (ns, mod 2^40 = about 18 minutes): ages are taken modulo
/// 2^40, which is exact for any packet younger than that.
pub const TIMESTAMP_BITS: u32 = 40;

/// Internal gain of a tc gain `g` (Hz x 256): floor( floor(g * (2^32 - 1) / 4) / 10^9 ).
/// alpha 41 (0.16 Hz) -> 44; beta 819 (3.2 Hz) -> 879.
pub const fn gain_internal(g: u32) -> u64 {
    ((g as u64 * MAX_PROB as u64) >> GAIN_SHIFT) / NS_PER_SEC
}

/// Microseconds (tc's unit) to ns.
pub const fn us_to_ns(us: u32) -> u64 {
    us as u64 * NS_PER_US
}

/// The L queue's coupled probability p_CL = k * p', exact: k < 2^8, so it fits in 40 bits.
pub const fn coupled_prob(k: u32, prob: u32) -> u64 {
    k as u64 * prob as u64
}

/// Overload: k * p' above 100 % (strictly).
pub const fn is_overload(k: u32, prob: u32) -> bool {
    coupled_prob(k, prob) > MAX_PROB as u64
}

/// With drop_overload off, p' is capped at MAX / k (integer division), so that k * p' stays at or
/// below 100 % and overload never starts.
pub const fn prob_cap(k: u32) -> u32 {
    MAX_PROB / k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_gains_convert_as_the_spec_says() {
        assert_eq!(gain_internal(41), 44);
        assert_eq!(gain_internal(819), 879);
        // floor(41 * (2^32 - 1) / 4) = 44023414773 (the .75 is dropped first).
        assert_eq!((41 * MAX_PROB as u64) >> 2, 44_023_414_773);
    }

    #[test]
    fn overload_is_strictly_above_one_hundred_percent() {
        assert!(!is_overload(2, MAX_PROB / 2));
        assert_eq!(coupled_prob(2, MAX_PROB / 2), MAX_PROB as u64 - 1);
        assert!(is_overload(2, MAX_PROB / 2 + 1));
        assert!(!is_overload(1, MAX_PROB));
        assert_eq!(coupled_prob(255, MAX_PROB), 255 * (u32::MAX as u64));
    }

    #[test]
    fn the_cap_keeps_k_times_p_at_or_below_one_hundred_percent() {
        for k in 1..=255 {
            assert!(!is_overload(k, prob_cap(k)), "k = {k}");
            assert!(k == 1 || is_overload(k, prob_cap(k) + 1), "k = {k}");
        }
    }
}
