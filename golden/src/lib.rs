//! Software models of the project's AQMs.
//!
//! - [`pie`] and [`dualpi2`]: the fixed-point algorithms of `spec/pie.md` and `spec/dualpi2.md` as pure
//!   functions, plus cycle-accurate models of the hardware cores that the RTL is checked against.
//! - [`reference`]: tail drop, RED, CoDel, FQ-CoDel, CAKE and DOCSIS-PIE for comparison in the network
//!   simulator.
//! - [`hw`]: what the cycle-accurate core models share (ports, queue, link model, the register-map row
//!   with its tc option) and each core's kind.
//! - [`params`]: the parameter range check both cores use; [`units`]: tc's durations, rates and sizes.
//! - [`prng`]: the hardware's random generator, bit for bit.
//! - [`trace`]: the controller trace format and its replayer.
//! - [`aqm`] and [`types`]: the interface every model offers to the simulator.

pub mod aqm;
pub mod dualpi2;
pub mod hw;
pub mod params;
pub mod pie;
pub mod prng;
pub mod reference;
pub mod text;
pub mod trace;
pub mod types;
pub mod units;

pub use aqm::Aqm;
pub use types::{
    Admission, Departure, DropReason, Dropped, Ecn, Header, MarkReason, Packet, QueueId,
};
