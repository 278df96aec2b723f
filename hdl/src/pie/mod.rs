//! The PIE core: see `core.rs` for the block diagram.

pub mod controller;
pub mod core;
pub mod egress;
pub mod ingress;
pub mod regs;
