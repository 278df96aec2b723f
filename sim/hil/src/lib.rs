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
//!
//! A DualPI2 core with the same port names needs only its own [`CoreKind`]: its register writes
//! (`aqm_golden::dualpi2::core::driver::register_writes`) and one dequeue request on the empty core
//! after them (it loads the WRR credit from the configured parameters), verdict codes 0 (enqueue) and 3
//! (tail drop) with the queue bit, and the golden model's reasons for its drops and marks at dequeue (a
//! C drop is `Classic`, an L drop `LowLatency`; a CE departure from C is a `Classic` mark; from L, the
//! MARKED_L and STEP_MARKS counters tell a coupled mark from a step mark from a packet that arrived
//! CE). [`HwAqm`] already takes several beats per dequeue (AQM drops, then the packet sent) and reports
//! the drops to the simulator.
//!
//! [`EventDriver`]: aqm_golden::dualpi2::core::driver::EventDriver

mod adapter;
mod clocked;
pub mod pie;

pub use adapter::{CoreKind, HwAqm};
pub use aqm_golden::dualpi2::core::driver::{Beat, DriverError, EventDriver, VerdictBeat};
pub use clocked::Verilated;
pub use pie::PieHw;

/// The driver of a Verilated core.
pub type Driver = EventDriver<Verilated>;
