//! Golden model, rust-hdl simulation and Verilated RTL of the PIE core on the same inputs, every output
//! compared on every cycle: a directed overload run and property-based stimuli, over 100,000 cycles.

mod common;

use aqm_conformance::lockstep::Beside;
use aqm_conformance::stimulus::{busy_setup, config_strategy, tuned_setup, StimulusConfig};
use aqm_golden::pie::consts::MAX_PROB;
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
