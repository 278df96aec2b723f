//! What the cycle-accurate models of the hardware cores share: the cores' ports, their 40-bit time, the
//! block-RAM descriptor queue and the link model. Both cores (`aqm_hdl::pie::PieCore`,
//! `aqm_hdl::dualpi2::DualPi2Core`) have the same ports and use the same queue and link model, so their
//! models do too.

pub mod adapter;
pub mod bench;
pub mod clocked;
pub mod driver;
pub mod io;
pub mod kind;
pub mod link;
pub mod queue;
pub mod rate;
pub mod regcheck;
pub mod regfront;
pub mod regs;

pub use adapter::CoreAqm;
pub use clocked::ClockedCore;
pub use driver::{Beat, DriverError, EventDriver, Streamed, Verdict, VerdictBeat};
pub use io::{CoreInputs, CoreOutputs, Desc};
pub use kind::{by_id, by_name, names, CoreKind, CoreParams, RegWrite, CORES};
pub use rate::{packet_rates, PacketRates};
pub use regcheck::{check_register_map, RegMapError, RegMapReport};

/// Accepted values of an on/off register (ECN, BYTEMODE, DROP_OVERLOAD).
pub const FLAG_RANGE: (u32, u32) = (0, 1);

/// Width of the cores' internal time: `now` modulo 2^40 ns (about 18 minutes).
pub const TIME_BITS: u32 = 40;
/// `now` modulo 2^40.
pub const TIME_MASK: u64 = (1 << TIME_BITS) - 1;

/// `a >= b` for 40-bit times that are less than 2^39 ns apart.
pub fn time_reached(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) & TIME_MASK) >> (TIME_BITS - 1) == 0
}
