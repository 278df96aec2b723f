//! PIE (RFC 8033) in Linux's fixed-point units, as spec/pie.md describes it.
//!
//! The algorithm is split the way the page is: [`controller::update`] every tupdate,
//! [`dequeue::on_dequeue`] for each departing packet, and [`enqueue::decide`] for each arriving one. All
//! three are plain functions of the state in [`vars::PieVars`], so a trace can drive them directly.

pub mod consts;
pub mod controller;
pub mod core;
pub mod dequeue;
pub mod enqueue;
pub mod kind;
pub mod params;
pub mod qdisc;
pub mod regs;
pub mod vars;

pub use enqueue::{Decision, Prepared, QueueView, Verdict};
pub use params::PieParams;
pub use qdisc::PieQdisc;
pub use vars::PieVars;
