//! PIE's parameters in tc's units, with the ranges the hardware register file accepts.

use super::consts::{ns_to_ticks, us_to_ticks};
use crate::params::check;
pub use crate::params::ParamError;

/// A parameter set, as `tc qdisc ... pie` takes it. Every field is in the register file's unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieParams {
    /// Target queueing delay, us.
    pub target_us: u32,
    /// Controller update interval, us.
    pub tupdate_us: u32,
    /// Proportional gain, 1/16 Hz (tc's `alpha`).
    pub alpha: u32,
    /// Derivative gain, 1/16 Hz (tc's `beta`).
    pub beta: u32,
    /// Queue limit, packets.
    pub limit: u32,
    /// Mark ECN-capable packets instead of dropping them while prob <= 10 %.
    pub ecn: bool,
    /// Scale the drop probability by packet size (packets up to one MTU).
    pub bytemode: bool,
    /// MTU used by the 2*MTU bypass and by bytemode, bytes.
    pub mtu: u32,
    /// Burst allowance granted after a quiet period, us.
    pub max_burst_us: u32,
}

/// Linux's defaults (spec/pie.md); also the register file's reset values.
pub const DEFAULT_PARAMS: PieParams = PieParams {
    target_us: 15_000,
    tupdate_us: 15_000,
    alpha: 2,
    beta: 20,
    limit: 1000,
    ecn: false,
    bytemode: false,
    mtu: 1514,
    max_burst_us: 150_000,
};

impl Default for PieParams {
    fn default() -> Self {
        DEFAULT_PARAMS
    }
}

/// Accepted range of each numeric parameter (inclusive); the register file rejects anything else.
pub mod range {
    pub const TARGET_US: (u32, u32) = (1, 1_000_000);
    pub const TUPDATE_US: (u32, u32) = (100, 1_000_000);
    pub const GAIN: (u32, u32) = (0, 32);
    /// Up to the hardware FIFO's depth.
    pub const LIMIT: (u32, u32) = (1, 1024);
    pub const MTU: (u32, u32) = (64, 2047);
    pub const MAX_BURST_US: (u32, u32) = (0, 1_000_000);
}

impl PieParams {
    /// All fields within the ranges the hardware accepts.
    pub fn validate(&self) -> Result<(), ParamError> {
        check("target_us", self.target_us, range::TARGET_US)?;
        check("tupdate_us", self.tupdate_us, range::TUPDATE_US)?;
        check("alpha", self.alpha, range::GAIN)?;
        check("beta", self.beta, range::GAIN)?;
        check("limit", self.limit, range::LIMIT)?;
        check("mtu", self.mtu, range::MTU)?;
        check("max_burst_us", self.max_burst_us, range::MAX_BURST_US)
    }

    /// Target in ticks.
    pub fn target_ticks(&self) -> u64 {
        us_to_ticks(self.target_us as u64)
    }

    /// Update interval in ns.
    pub fn tupdate_ns(&self) -> u64 {
        self.tupdate_us as u64 * 1000
    }

    /// Burst allowance in ticks.
    pub fn max_burst_ticks(&self) -> u64 {
        ns_to_ticks(self.max_burst_us as u64 * 1000)
    }
}
