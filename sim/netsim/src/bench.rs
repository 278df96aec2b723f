//! Simulator speed: events and packets per wall-clock second for one run of a scenario.

use crate::registry::{AqmSpec, Registry};
use crate::runner::run_one;
use crate::scenario::Scenario;
use crate::Error;
use std::time::Instant;

/// What one timed run did.
#[derive(Clone, Debug)]
pub struct BenchResult {
    pub scenario: String,
    pub aqm: String,
    pub seed: u64,
    /// How many times each point was run; the figures below are for the fastest repetition.
    pub repeat: u32,
    pub simulated_s: f64,
    pub wall_s: f64,
    pub events: u64,
    pub packets: u64,
}

impl BenchResult {
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall_s
    }

    pub fn packets_per_s(&self) -> f64 {
        self.packets as f64 / self.wall_s
    }

    pub fn report(&self) -> String {
        format!(
            "{} with {} (seed {}, best of {}): {:.0} s simulated in {:.4} s wall, {} events ({:.2} M/s), \
             {} packets ({:.2} M/s), {:.0}x real time",
            self.scenario,
            self.aqm,
            self.seed,
            self.repeat,
            self.simulated_s,
            self.wall_s,
            self.events,
            self.events_per_s() / 1e6,
            self.packets,
            self.packets_per_s() / 1e6,
            self.simulated_s / self.wall_s
        )
    }
}

/// Times every point of `scenario` with `aqm` and `seed` on one thread, `repeat` times, and keeps the
/// fastest repetition of each point (the runs are identical, so the fastest is the least disturbed).
pub fn bench(
    scenario: &Scenario,
    aqm: &AqmSpec,
    seed: u64,
    registry: &Registry,
    repeat: u32,
) -> Result<BenchResult, Error> {
    let repeat = repeat.max(1);
    let mut result = BenchResult {
        scenario: scenario.name.clone(),
        aqm: aqm.to_string(),
        seed,
        repeat,
        simulated_s: 0.0,
        wall_s: 0.0,
        events: 0,
        packets: 0,
    };
    for point in scenario.points() {
        let mut best = f64::INFINITY;
        let mut counts = (0, 0);
        for _ in 0..repeat {
            let start = Instant::now();
            let (m, _) = run_one(&point.spec, registry, aqm, seed)?;
            best = best.min(start.elapsed().as_secs_f64());
            // Identical in every repetition.
            counts = (m.events, m.conservation.generated);
        }
        result.events += counts.0;
        result.packets += counts.1;
        result.wall_s += best;
        result.simulated_s += point.spec.duration_ns as f64 * 1e-9;
    }
    Ok(result)
}
