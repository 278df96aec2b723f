//! The golden PIE core model against the Verilated RTL, cycle by cycle.

use aqm_conformance::lockstep;
use aqm_conformance::model::CoreModel;
use aqm_conformance::stimulus::{busy_setup, Stimulus, StimulusConfig};
use aqm_golden::pie::core::PieCoreModel;
use aqm_verilated::VerilatedPie;
use std::path::PathBuf;

fn check(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) {
    let mut golden = PieCoreModel::new();
    let mut vl = VerilatedPie::new();
    let mut models: Vec<&mut dyn CoreModel> = vec![&mut golden, &mut vl];
    let mut stim = Stimulus::new(seed, cfg);
    let vcd = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.vcd"));
    let t = std::time::Instant::now();
    match lockstep::run(&mut models, &mut stim, cycles, Some(&vcd)) {
        Ok(stats) => eprintln!("{name}: {stats:?} in {:?}", t.elapsed()),
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn overloaded_fast_link() {
    let cfg = StimulusConfig {
        arrival_pct: 10,
        ns_per_cycle: 50_000,
        setup: busy_setup(1_000, 8 << 8, true, false, 1024),
        ..StimulusConfig::default()
    };
    check("vl_overload_fast", 3, cfg, 200_000);
}
