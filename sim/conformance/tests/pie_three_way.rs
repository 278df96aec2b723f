//! Golden model, rust-hdl simulation and Verilated RTL of the PIE core on the same inputs, every output
//! compared on every cycle: a directed overload run and property-based stimuli, over 100,000 cycles.

mod common;

use aqm_conformance::lockstep::Beside;
use aqm_conformance::stimulus::{busy_setup, config_strategy, tuned_setup, StimulusConfig};
use aqm_golden::pie::consts::{ACCU_LOW, MAX_PROB};
use aqm_golden::pie::core::{PieCoreModel, PieCoverage};
use proptest::prelude::*;

fn check(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) -> PieCoverage {
    common::check::<PieCoreModel>(Beside::RustHdlAndVerilator, name, seed, cfg, cycles).1
}

#[test]
fn overload_with_ecn_bytemode_and_forced_probabilities() {
    let cfg = StimulusConfig {
        ns_per_cycle: 30_000,
        edge_len_pct: 20,
        setup: tuned_setup(busy_setup(1_000, 24 << 8, true, true, 300), 2_000, 20_000),
        force_prob_every: 4_000,
        force_prob_max: MAX_PROB / 8,
        ..StimulusConfig::default()
    };
    let c = check("three_overload", 11, cfg, 30_000);
    assert!(
        c.updates > 5 && c.verdicts[2] > 0 && c.verdicts[3] > 0 && c.bytemode_products > 100,
        "{c:?}"
    );
}

/// The accumulator's sums land on 0.85 and just around it: forced probabilities that divide 0.85
/// exactly (5, 17 and 85 packets reach it; below 0.85 nothing is decided, so a run of packets that
/// are not bypassed sums exactly), each also one above and one below, in packet mode without ECN:
/// the ECN regime's traffic, which keeps the queue above half the target so that the packets are
/// not bypassed. The hardware compares the sums as the signs of carry-select chains, which turn on
/// the carry between their halves here (random probabilities do not land within 2^30 of a
/// threshold; 8.5 is reached only through a run of misses of the draw, and its chains are the same
/// block).
#[test]
fn accumulator_sums_land_on_the_thresholds() {
    let mut force_probs = vec![];
    for k in [5, 17, 85] {
        let p = ACCU_LOW / k;
        assert_eq!(p * k, ACCU_LOW);
        force_probs.extend([p, p + 1, p - 1]);
    }
    let cfg = StimulusConfig {
        setup: tuned_setup(busy_setup(1_000_000, 0, false, false, 1024), 1_000, 0),
        force_prob_every: 2_000,
        force_probs,
        ..common::pie_ecn_regime()
    };
    let c = check("three_thresholds", 13, cfg, 30_000);
    assert!(c.threshold_sums > 20 && c.verdicts[2] > 10, "{c:?}");
}

#[test]
fn ecn_marking_regime() {
    let c = check("three_ecn", 12, common::pie_ecn_regime(), 30_000);
    assert!(c.verdicts[1] > 10 && c.recomputes > 3, "{c:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_stimulus_agrees_in_all_three_models(seed in any::<u64>(), cfg in config_strategy()) {
        check("three_prop", seed, cfg, 12_000);
    }
}
