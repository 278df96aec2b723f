//! DualPI2 (RFC 9332, the DualQ Coupled AQM) in Linux's fixed-point units, as spec/dualpi2.md describes
//! it.
//!
//! The algorithm is split the way the page is: [`classify::admit`] for each arriving packet (class and
//! limits), [`controller::update`] every tupdate, [`decision::decide`] for each packet taken off a queue
//! head at dequeue, and [`scheduler::pick`] / [`scheduler::credit_change`] between the two queues. All are
//! plain functions of the state in [`vars::DualPi2Vars`] and their inputs (the random word included), so
//! a trace or a test can drive them directly. [`qdisc::DualPi2Qdisc`] runs them on packet events for the
//! simulator, with the hardware core's rules (see its module page for the exact dequeue order), and
//! [`regs`] is the hardware core's register map.
//!
//! Deviations from Linux, each pinned by a test: p' saturates instead of wrapping on a large delay jump;
//! the byte limit counts packet lengths (Linux counts skb truesize); alpha and beta are limited to 20
//! bits; the queues may have a per-queue capacity (the hardware's descriptor memory); a packet marked by
//! the coupled rule is not counted again as a step mark.

pub mod classify;
pub mod consts;
pub mod controller;
pub mod core;
pub mod decision;
pub mod kind;
pub mod params;
pub mod qdisc;
pub mod regs;
pub mod scheduler;
pub mod vars;

pub use classify::{Admit, EnqueueVerdict, Limit, QueueView};
pub use decision::{Decision, Head, Rule, Verdict};
pub use params::DualPi2Params;
pub use qdisc::{run_seed, DualPi2Qdisc, DualPi2Stats, QueueStats};
pub use vars::DualPi2Vars;
