//! Both cores with their queues' heads at the block RAMs' outputs (`aqm_hdl::head_queue::Heads::Ram`,
//! what the DualPI2 line card builds) against the golden model and the Verilated RTL (heads in
//! flip-flops), every output compared on every cycle: the two head forms keep one timing contract.

mod common;

use aqm_conformance::lockstep::Beside;
use aqm_conformance::stimulus::{config_strategy, dualpi2_config_strategy, StimulusConfig};
use aqm_golden::dualpi2::core::DualPi2CoreModel;
use aqm_golden::pie::core::PieCoreModel;
use proptest::prelude::*;

fn pie(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) {
    common::check::<PieCoreModel>(Beside::RamHeadsAndVerilator, name, seed, cfg, cycles);
}

fn dualpi2(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) {
    common::check::<DualPi2CoreModel>(Beside::RamHeadsAndVerilator, name, seed, cfg, cycles);
}

#[test]
fn pie_ecn_marking_regime() {
    pie("ram_heads_pie_ecn", 12, common::pie_ecn_regime(), 20_000);
}

#[test]
fn dualpi2_mixed_traffic() {
    dualpi2(
        "ram_heads_d2_mixed",
        31,
        common::dualpi2_mixed_regime(),
        30_000,
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_pie_stimulus_agrees(seed in any::<u64>(), cfg in config_strategy()) {
        pie("ram_heads_pie_prop", seed, cfg, 12_000);
    }

    #[test]
    fn any_dualpi2_stimulus_agrees(seed in any::<u64>(), cfg in dualpi2_config_strategy()) {
        dualpi2("ram_heads_d2_prop", seed, cfg, 12_000);
    }
}
