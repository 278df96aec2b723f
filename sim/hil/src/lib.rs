//! Hardware in the loop: the Verilated AQM cores as queue disciplines ([`aqm_golden::Aqm`]) of the network
//! simulator.
//!
//! The simulator hands the core ingress descriptors and `now`; the core decides and holds the packets,
//! and gives them back on its egress stream when the link asks. The model is clocked only around events
//! (time is an input), so a 60 s scenario costs a few million cycles, not six billion.
//!
//! - [`driver`]: the ports both cores share, driven by name; the event procedure (updates at their own
//!   time, offer a descriptor, pull one departure) and the register bus; a cycle counter.
//! - [`HwAqm`]: the [`aqm_golden::Aqm`] on top of a driver, generic over a [`CoreKind`] that knows one
//!   core's registers and what its verdict codes and egress beats mean.
//! - [`pie`]: the PIE core ([`PieHw`], the `"pie (hw)"` row of the simulator's tables).
//!
//! A DualPI2 core with the same port names needs only its own [`CoreKind`]: its register writes (from
//! `aqm_golden::dualpi2::regs`, the seed from `aqm_golden::dualpi2::qdisc::run_seed`), verdict codes 0
//! (enqueue) and 3 (tail drop) with the queue bit, and the golden model's reasons for its drops and
//! marks at dequeue (a C drop is `Classic`, an L drop `LowLatency`; a CE departure from C is a
//! `Classic` mark; from L, the MARKED_L and STEP_MARKS counters tell a coupled mark from a step mark
//! from a packet that arrived CE). [`HwAqm`] already takes several beats per dequeue (AQM drops, then
//! the packet sent) and reports the drops to the simulator.

mod adapter;
pub mod driver;
pub mod pie;

pub use adapter::{CoreKind, HwAqm};
pub use driver::{Beat, CoreDriver, VerdictBeat};
pub use pie::PieHw;

/// What can go wrong driving a core.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HilError {
    #[error("{design}: no port {port:?} (the core's port list is not the shared one)")]
    MissingPort { design: String, port: String },
    #[error("register 0x{addr:02X}: the core rejected the write of {value}")]
    Rejected { addr: u8, value: u32 },
    #[error("register 0x{addr:02X}: the core rejected the read")]
    ReadRejected { addr: u8 },
    #[error("{param} = {value}: the core's register {register} rejected it (accepts {accepts})")]
    Param {
        param: &'static str,
        register: &'static str,
        value: u32,
        accepts: String,
    },
    #[error("time went back from {from_ns} ns to {to_ns} ns")]
    TimeWentBack { from_ns: u64, to_ns: u64 },
    #[error("the core at {at_ns} ns (cycle {cycle}): {what}")]
    Core {
        at_ns: u64,
        cycle: u64,
        what: String,
    },
    #[error("{0}")]
    Config(String),
}
