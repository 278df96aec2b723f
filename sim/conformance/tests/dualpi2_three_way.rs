//! Golden model, rust-hdl simulation and Verilated RTL of the DualPI2 core on the same inputs, every
//! output compared on every cycle: directed runs and property-based stimuli, over 100,000 cycles.

mod common;

use aqm_conformance::lockstep::Beside;
use aqm_conformance::stimulus::{dualpi2_config_strategy, StimulusConfig};
use aqm_golden::dualpi2::core::{DualPi2CoreModel, DualPi2Coverage};
use aqm_golden::dualpi2::decision::Rule;
use proptest::prelude::*;

fn check(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) -> DualPi2Coverage {
    common::check::<DualPi2CoreModel>(Beside::RustHdlAndVerilator, name, seed, cfg, cycles).1
}

#[test]
fn mixed_traffic_with_overload_and_register_traffic() {
    let c = check("three_d2_mixed", 31, common::dualpi2_mixed_regime(), 40_000);
    assert!(
        c.updates > 10 && c.picks_l > 100 && c.picks_c > 100,
        "{c:?}"
    );
    assert!(
        c.marks_by(Rule::Coupled) > 0 && c.drops_by(Rule::Classic) > 0 && c.param_commits > 10,
        "{c:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_stimulus_agrees_in_all_three_models(seed in any::<u64>(), cfg in dualpi2_config_strategy()) {
        check("three_d2_prop", seed, cfg, 12_000);
    }
}
