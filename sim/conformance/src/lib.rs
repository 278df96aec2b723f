//! Conformance of the AQM cores: the same per-cycle inputs into every model, every output compared on
//! every cycle.
//!
//! - The models are [`aqm_golden::hw::ClockedCore`]s: the golden cycle models, the rust-hdl simulations
//!   (`aqm_hdl::cores`) and the Verilated cores (`aqm_verilated`).
//! - [`stimulus`]: input sequences: a seeded generator of traffic, register traffic, back-pressure, resets
//!   and time jumps, and proptest strategies over its settings.
//! - [`lockstep`]: runs models side by side, reports the first differing cycle and signal and writes a VCD
//!   of the ports of every model around it.

pub mod lockstep;
pub mod stimulus;
pub mod vcd;
