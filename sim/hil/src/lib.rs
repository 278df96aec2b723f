//! Hardware in the loop: the Verilated AQM cores as queue disciplines ([`aqm_golden::Aqm`]) of the network
//! simulator.
//!
//! The simulator hands the core ingress descriptors and `now`; the core decides and holds the packets,
//! and gives them back on its egress stream when the link asks. The model is clocked only around events
//! (time is an input), so a 60 s scenario costs about ten million cycles, not six billion.
//!
//! - The event discipline (updates at their own time, offer a descriptor, pull one departure, the
//!   register bus, a cycle counter) is the golden models' [`EventDriver`]; [`Verilated`] puts a
//!   Verilated core behind it, so the RTL is driven exactly as the cycle-accurate models are.
//! - [`HwAqm`]: the [`aqm_golden::Aqm`] on top of the driver, generic over a [`CoreKind`] that knows one
//!   core's registers and what its verdict codes and egress beats mean.
//! - [`pie`]: the PIE core ([`PieHw`], the `"pie (hw)"` row of the simulator's tables).
//! - [`dualpi2`]: the DualPI2 core ([`DualPi2Hw`], `"dualpi2 (hw)"`): AQM drops and marks happen at
//!   dequeue, so one dequeue may take several egress beats; the reasons the ports do not carry come
//!   from the classification and the core's mark counters.
//!
//! [`EventDriver`]: aqm_golden::dualpi2::core::driver::EventDriver

mod adapter;
mod clocked;
pub mod dualpi2;
pub mod pie;

pub use adapter::{CoreKind, HwAqm};
pub use aqm_golden::dualpi2::core::driver::{Beat, DriverError, EventDriver, VerdictBeat};
pub use clocked::Verilated;
pub use dualpi2::DualPi2Hw;
pub use pie::PieHw;

/// The driver of a Verilated core.
pub type Driver = EventDriver<Verilated>;
