//! Golden model, rust-hdl simulation and Verilated RTL of the DualPI2 core on the same inputs, every
//! output compared on every cycle: directed runs and property-based stimuli, over 100,000 cycles.

mod common;

use aqm_conformance::lockstep::Beside;
use aqm_conformance::stimulus::{dualpi2_config_strategy, dualpi2_setup, StimulusConfig};
use aqm_golden::dualpi2::core::{DualPi2CoreModel, DualPi2Coverage};
use aqm_golden::dualpi2::decision::Rule;
use aqm_golden::dualpi2::regs::addr;
use proptest::prelude::*;

fn check(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) -> DualPi2Coverage {
    common::check::<DualPi2CoreModel>(Beside::RustHdlAndVerilator, name, seed, cfg, cycles).1
}

#[test]
fn mixed_traffic_with_overload_and_register_traffic() {
    let mut setup = dualpi2_setup(1_000, 500, 7 << 8, 1024, 1, true, 2, 200);
    setup.push((addr::C_PROTECTION, 25));
    let cfg = StimulusConfig {
        ns_per_cycle: 1_000,
        arrival_pct: 8,
        max_burst: 4,
        // About 0.2 arrivals per cycle against 0.25 dequeues: the queues build up (and the coupled
        // rules act) between the bursts of requests.
        ready_pct: 25,
        reg_pct: 2,
        setup,
        force_prob_every: 5_000,
        force_prob_max: u32::MAX as u64,
        core: &aqm_golden::dualpi2::kind::DUALPI2_CORE,
        ..StimulusConfig::default()
    };
    let c = check("three_d2_mixed", 31, cfg, 40_000);
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
