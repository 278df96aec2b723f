//! PIE's fixed-point constants, in Linux's units (spec/pie.md, "Units").

/// 100 % probability: 2^56 - 1.
pub const MAX_PROB: u64 = (1 << 56) - 1;

/// Controller time unit: Linux's psched tick, 2^6 ns = 64 ns.
pub const TICK_SHIFT: u32 = 6;

/// Ticks per second: 10^9 / 64.
pub const TICKS_PER_SEC: u64 = 15_625_000;

/// Gain scale: K = MAX_PROB / ticks per second (integer) = 4611686018; alpha_i = (alpha * K) >> 4.
pub const GAIN_K: u64 = MAX_PROB / TICKS_PER_SEC;

/// 10 %, compared with prob for gain auto-scaling, the 2 % step cap and the ECN rule.
pub const PROB_10PCT: u64 = MAX_PROB / 10;
/// 20 %, the low-delay bypass stays on below it.
pub const PROB_20PCT: u64 = MAX_PROB / 5;
/// 2 % = (MAX/100) * 2: the largest upward step above 10 %, and the 250 ms boost.
pub const PROB_2PCT: u64 = (MAX_PROB / 100) * 2;
/// Derandomisation: no drop while the accumulator is below 0.85 ...
pub const ACCU_LOW: u64 = (MAX_PROB / 100) * 85;
/// ... and a drop without a random draw once it reaches 8.5.
pub const ACCU_HIGH: u64 = (MAX_PROB / 2) * 17;

/// The derandomisation accumulator saturates here, at 8.5. Any cap at or above ACCU_HIGH gives the same
/// verdicts as Linux's unbounded u64 sum, since from 8.5 on every packet is an early drop or mark until
/// something clears the accumulator; only the ACCU register's value differs (it reads at most 8.5). At
/// 8.5 exactly, "saturated" and "at or above 8.5" are one comparison, which the hardware's one-packet-
/// per-clock accumulator loop needs (hdl/src/pie/ingress.rs), and acc + lp stays below 2^60.
pub const ACCU_MAX: u64 = ACCU_HIGH;

/// Gain auto-scaling levels MAX/100 .. MAX/10^6: below each, alpha and beta are shifted right by 2 more.
pub const SCALE_LEVELS: [u64; 5] = [
    MAX_PROB / 100,
    MAX_PROB / 1_000,
    MAX_PROB / 10_000,
    MAX_PROB / 100_000,
    MAX_PROB / 1_000_000,
];

/// qdelay above 250 ms (strictly) adds 2 % per update: 250 ms in ticks.
pub const QDELAY_BOOST_TICKS: u64 = 250_000_000 >> TICK_SHIFT;

/// The first controller update fires 500 ms after reset.
pub const FIRST_UPDATE_NS: u64 = 500_000_000;

/// The hardware core's timing (hdl/PIE-CORE.md), which its cycle-accurate model and the RTL share.
/// Cycles from accepting a descriptor to its verdict.
pub const VERDICT_LATENCY: u64 = 5;
/// Cycles a bytemode packet (len <= MTU) holds ingress stage P0: 13 multiplier steps (one hex digit
/// of prob/MTU each), 1 to move on. The ingress accepts one descriptor per clock otherwise.
pub const BYTEMODE_HOLD: u64 = 14;
/// Cycles from the controller's firing cycle to the commit cycle of a periodic update.
pub const UPDATE_CYCLES: u64 = 313;
/// Cycles from the start to the commit cycle of a recomputation after a prob or MTU write.
pub const RECOMPUTE_CYCLES: u64 = 113;
/// Cycles the link model spends in Tx after a departure (both cores share the link model).
pub use crate::hw::link::TX_CYCLES;

/// Nanoseconds to psched ticks, truncating, as Linux's PSCHED_NS2TICKS.
pub const fn ns_to_ticks(ns: u64) -> u64 {
    ns >> TICK_SHIFT
}

/// Microseconds (tc's unit) to ticks: (us * 1000) >> 6, as Linux converts target and tupdate.
pub const fn us_to_ticks(us: u64) -> u64 {
    ns_to_ticks(us * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_spec_units() {
        assert_eq!(MAX_PROB, 72_057_594_037_927_935);
        assert_eq!(GAIN_K, 4_611_686_018);
        assert_eq!((2 * GAIN_K) >> 4, 576_460_752);
        assert_eq!(us_to_ticks(15_000), 234_375);
        assert_eq!(us_to_ticks(15_000) / 2, 117_187);
        assert_eq!(QDELAY_BOOST_TICKS, 3_906_250);
        assert_eq!(us_to_ticks(150_000), 2_343_750);
    }
}
