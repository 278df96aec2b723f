//! The AQM cores in rust-hdl.

pub mod desc_queue;
pub mod sim;
