//! Conformance of the AQM cores: the same per-cycle inputs into every model, every output compared on
//! every cycle.
//!
//! - [`model`]: the [`CoreModel`](model::CoreModel) trait and its implementations (golden model, rust-hdl
//!   simulation; the Verilated model lives in `aqm-verilated` and implements the same trait).
//! - [`stimulus`]: input sequences: a seeded generator of traffic, register traffic, back-pressure, resets
//!   and time jumps, and proptest strategies over its settings.
//! - [`lockstep`]: runs models side by side, reports the first differing cycle and signal and writes a VCD
//!   of the ports of every model around it.

pub mod lockstep;
pub mod model;
pub mod stimulus;
pub mod vcd;
