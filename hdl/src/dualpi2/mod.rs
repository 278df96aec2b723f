//! The DualPI2 core (spec/dualpi2.md; cycle contract in hdl/DUALPI2-CORE.md).

pub mod controller;
pub mod core;
pub mod egress;
pub mod ingress;
pub mod params;
pub mod regs;

pub use self::core::DualPi2Core;
