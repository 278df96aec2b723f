//! The golden PIE core model against the Verilated RTL, cycle by cycle: directed regimes with coverage
//! checks, then property-based stimuli. Together well over 1,000,000 cycles.

mod common;

use aqm_conformance::lockstep::{Beside, RunStats};
use aqm_conformance::stimulus::{busy_setup, config_strategy, tuned_setup, StimulusConfig};
use aqm_golden::pie::consts::MAX_PROB;
use aqm_golden::pie::core::{PieCoreModel, PieCoverage};
use proptest::prelude::*;

fn check(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) -> (RunStats, PieCoverage) {
    common::check::<PieCoreModel>(Beside::Verilator, name, seed, cfg, cycles)
}

#[test]
fn overload_on_a_fast_link_drops_early_and_at_the_limit() {
    let cfg = StimulusConfig {
        ns_per_cycle: 50_000,
        setup: busy_setup(1_000, 8 << 8, false, false, 1024),
        ..StimulusConfig::default()
    };
    let (s, c) = check("vl_overload", 3, cfg, 200_000);
    assert!(
        c.updates > 30 && c.verdicts[2] > 100 && c.verdicts[3] > 100,
        "{s:?} {c:?}"
    );
    assert!(
        c.random_drops > 0 && c.link_waits > 1000 && c.exact_departures > 100,
        "{c:?}"
    );
}

#[test]
fn traffic_through_the_wrap_of_the_40_bit_time() {
    // 1.2 s in all: arrivals, departures, link times and controller updates (the first 500 ms after the
    // reset, then one per TUPDATE) on both sides of the wrap. Updates that stopped at the
    // wrap would leave 4.
    let (s, c) = check("vl_wrap", 5, common::pie_wrap_regime(), 60_000);
    assert!(
        c.updates >= 11 && c.verdicts[0] > 1000 && c.exact_departures > 100,
        "{s:?} {c:?}"
    );
}

#[test]
fn ecn_marks_while_prob_is_low() {
    let (s, c) = check("vl_ecn", 4, common::pie_ecn_regime(), 300_000);
    assert!(
        c.verdicts[1] > 100 && c.recomputes > 10 && c.random_drops > 100,
        "{s:?} {c:?}"
    );
}

#[test]
fn bytemode_stalls_and_scales_by_length() {
    let cfg = StimulusConfig {
        ns_per_cycle: 20_000,
        edge_len_pct: 30,
        setup: tuned_setup(busy_setup(1_000, 16 << 8, true, true, 600), 2_000, 10_000),
        force_prob_every: 5_000,
        force_prob_max: MAX_PROB / 4,
        ..StimulusConfig::default()
    };
    let (s, c) = check("vl_bytemode", 5, cfg, 200_000);
    assert!(
        c.bytemode_products > 1000 && (c.verdicts[1] + c.verdicts[2]) > 50,
        "{s:?} {c:?}"
    );
}

#[test]
fn board_speed_time_with_jumps_and_resets() {
    let cfg = StimulusConfig {
        ns_per_cycle: 10,
        // Jumps up to 250 s: within the core's limit of 2^38 ns per cycle, past its 274 s horizon for the
        // time between dequeues after two of them.
        jump_every: 300,
        max_jump_ns: 250_000_000_000,
        reset_every: 30_000,
        reg_pct: 3,
        setup: busy_setup(100, 0, true, false, 100),
        ..StimulusConfig::default()
    };
    let (s, c) = check("vl_board", 6, cfg, 200_000);
    assert!(
        c.resets > 3 && c.soft_resets > 0 && c.stale_gaps > 0,
        "{s:?} {c:?}"
    );
    assert!(c.burst_resets > 0 && c.rejected_writes > 10, "{s:?} {c:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_stimulus_agrees(seed in any::<u64>(), cfg in config_strategy()) {
        check("vl_prop", seed, cfg, 10_000);
    }
}
