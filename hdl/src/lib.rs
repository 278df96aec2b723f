//! The AQM cores in rust-hdl.

pub mod desc_queue;
pub mod emit;
pub mod konst;
pub mod pie;
pub mod prng;
pub mod sim;
