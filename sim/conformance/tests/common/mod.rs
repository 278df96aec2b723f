//! What the conformance tests share: one lock-step run of a core's golden model beside its other models,
//! and the regimes more than one test runs.

// Each test binary uses its part of this module.
#![allow(dead_code)]

use aqm_conformance::lockstep::{agree, Beside, RunStats};
use aqm_conformance::stimulus::{busy_setup, dualpi2_setup, tuned_setup, StimulusConfig};
use aqm_golden::dualpi2::core::{DualPi2CoreModel, DualPi2Coverage};
use aqm_golden::dualpi2::regs::addr;
use aqm_golden::hw::ClockedCore;
use aqm_golden::pie::consts::MAX_PROB;
use aqm_golden::pie::core::{PieCoreModel, PieCoverage};
use std::path::Path;

/// A golden core model out of power-on, and what it counted.
pub trait Golden: ClockedCore {
    type Coverage;
    fn new() -> Self;
    fn into_coverage(self) -> Self::Coverage;
}

impl Golden for PieCoreModel {
    type Coverage = PieCoverage;
    fn new() -> Self {
        PieCoreModel::new()
    }
    fn into_coverage(self) -> PieCoverage {
        self.coverage
    }
}

impl Golden for DualPi2CoreModel {
    type Coverage = DualPi2Coverage;
    fn new() -> Self {
        DualPi2CoreModel::new()
    }
    fn into_coverage(self) -> DualPi2Coverage {
        self.coverage
    }
}

/// `cycles` cycles of the stimulus `(seed, cfg)` on a fresh golden model `M` beside `beside`; panics
/// with the first mismatch (its waveform in cargo's test tmpdir, `<name>.vcd`); prints the run's
/// statistics and the model's coverage, and returns them.
pub fn check<M: Golden>(
    beside: Beside,
    name: &str,
    seed: u64,
    cfg: StimulusConfig,
    cycles: u64,
) -> (RunStats, M::Coverage) {
    let mut golden = M::new();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let stats = agree(&mut golden, beside, name, (seed, cfg), cycles, dir)
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{name}: {stats:?}\n  {:?}", golden.coverage());
    (stats, golden.into_coverage())
}

/// PIE, ECN marking while prob is low: the link model off and out_ready at 25 % serve about as fast as
/// packets come; updates are rare so that the forced probabilities hold for a while. Every register is
/// read in turn every 5,000 cycles.
pub fn pie_ecn_regime() -> StimulusConfig {
    StimulusConfig {
        ns_per_cycle: 20_000,
        arrival_pct: 6,
        ready_pct: 25,
        reg_pct: 0,
        sweep_every: 5_000,
        reset_every: 0,
        setup: tuned_setup(busy_setup(1_000_000, 0, true, false, 1024), 1_000, 0),
        force_prob_every: 3_000,
        force_prob_max: MAX_PROB / 10,
        ..StimulusConfig::default()
    }
}

/// PIE through the wrap of the 40-bit time: 700 ms before now reaches 2^41 (bits 0-39 wrap to 0, bit 40
/// of the input is set throughout), no jumps, resets or random register traffic (every register read in
/// turn every 5,000 cycles).
pub fn pie_wrap_regime() -> StimulusConfig {
    StimulusConfig {
        ns_per_cycle: 20_000,
        jump_every: 0,
        reset_every: 0,
        reg_pct: 0,
        sweep_every: 5_000,
        start_ns: (1u64 << 41) - 700_000_000,
        setup: busy_setup(1_000, 8 << 8, false, false, 1024),
        ..StimulusConfig::default()
    }
}

/// DualPI2, mixed traffic with overload and register traffic: about 0.2 arrivals per cycle against 0.25
/// dequeues, so the queues build up (and the coupled rules act) between the bursts of requests.
pub fn dualpi2_mixed_regime() -> StimulusConfig {
    let mut setup = dualpi2_setup(1_000, 500, 7 << 8, 1024, 1, true, 2, 200);
    setup.push((addr::C_PROTECTION, 25));
    StimulusConfig {
        ns_per_cycle: 1_000,
        arrival_pct: 8,
        max_burst: 4,
        ready_pct: 25,
        reg_pct: 2,
        setup,
        force_prob_every: 5_000,
        force_prob_max: u32::MAX as u64,
        core: &aqm_golden::dualpi2::kind::DUALPI2_CORE,
        ..StimulusConfig::default()
    }
}
