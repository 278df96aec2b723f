//! The line card's host tool: talks the protocol of `aqm_protocol` over a serial port or to the
//! Verilated board top, sets parameters with tc-like words, shows counters like `tc -s`, and streams
//! descriptor traces with a bit-exact check against the golden model, among them the trace of a network
//! simulator run, at the simulator's pace.

pub mod client;
pub mod sim_trace;
pub mod stream;
pub mod tc;
pub mod transport;
