//! The line cards' host tool: talks the protocol of `aqm_protocol` over a serial port or to a Verilated
//! board top, with the PIE or the DualPI2 core (HELLO says which), sets parameters with tc-like words,
//! shows counters like `tc -s`, and streams descriptor traces with a bit-exact check against the golden
//! model of the core, among them the trace of a network simulator run, at the simulator's pace.

pub mod board_core;
pub mod client;
pub mod sim_trace;
pub mod stream;
pub mod tc;
pub mod transport;
pub mod writes;
