//! The golden PIE core model against the rust-hdl simulation of the RTL, cycle by cycle.

use aqm_conformance::lockstep;
use aqm_conformance::model::{CoreModel, RustHdlPie};
use aqm_conformance::stimulus::{busy_setup, Stimulus, StimulusConfig};
use aqm_golden::pie::core::PieCoreModel;
use std::path::PathBuf;

fn vcd(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.vcd"))
}

fn check(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) {
    let mut golden = PieCoreModel::new();
    let mut rtl = RustHdlPie::default();
    let mut models: Vec<&mut dyn CoreModel> = vec![&mut golden, &mut rtl];
    let mut stim = Stimulus::new(seed, cfg);
    match lockstep::run(&mut models, &mut stim, cycles, Some(&vcd(name))) {
        Ok(stats) => eprintln!("{name}: {stats:?}"),
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn quiet_link_default_parameters() {
    check("quiet", 1, StimulusConfig::default(), 20_000);
}

#[test]
fn overloaded_slow_link_with_ecn() {
    let cfg = StimulusConfig {
        arrival_pct: 20,
        setup: busy_setup(1_000, 3200 << 8, true, false, 200),
        ..StimulusConfig::default()
    };
    check("overload_ecn", 2, cfg, 30_000);
}
