//! A core model is anything that takes one cycle's inputs and gives that cycle's outputs.

use aqm_golden::hw::{CoreInputs, CoreOutputs};
use aqm_golden::pie::core::PieCoreModel;
use aqm_hdl::dualpi2::DualPi2Core;
use aqm_hdl::pie::core::{PieCore, PIE_FULL};
use aqm_hdl::sim::{clock_edge, settle};
use rust_hdl::prelude::*;

/// One clock cycle at a time: the outputs during the cycle, then the rising edge.
pub trait CoreModel {
    /// Short name for reports ("golden", "rust-hdl", "verilator").
    fn name(&self) -> &'static str;
    fn step(&mut self, inputs: &CoreInputs) -> CoreOutputs;
}

impl CoreModel for aqm_golden::dualpi2::core::DualPi2CoreModel {
    fn name(&self) -> &'static str {
        "golden"
    }
    fn step(&mut self, inputs: &CoreInputs) -> CoreOutputs {
        aqm_golden::dualpi2::core::DualPi2CoreModel::step(self, inputs)
    }
}

impl CoreModel for PieCoreModel {
    fn name(&self) -> &'static str {
        "golden"
    }
    fn step(&mut self, inputs: &CoreInputs) -> CoreOutputs {
        PieCoreModel::step(self, inputs)
    }
}

/// A rust-hdl simulation of a core, driven without the threaded simulator: `$name` over the block `$core`
/// (both cores have the same ports).
macro_rules! rust_hdl_model {
    ($(#[$doc:meta])* $name:ident, $core:ty) => {
        $(#[$doc])*
        pub struct $name {
            core: Box<$core>,
        }

        impl Default for $name {
            fn default() -> Self {
                let mut core = Box::<$core>::default();
                core.connect_all();
                $name { core }
            }
        }

        impl CoreModel for $name {
            fn name(&self) -> &'static str {
                "rust-hdl"
            }

            fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
                let c = &mut self.core;
                c.rst.next = i.rst;
                c.now.next = i.now.to_bits();
                c.in_valid.next = i.in_valid;
                c.in_len.next = (i.in_len as u64).to_bits();
                c.in_ecn.next = (i.in_ecn as u64 & 3).to_bits();
                c.in_tag.next = (i.in_tag as u64).to_bits();
                c.out_ready.next = i.out_ready;
                c.reg_addr.next = (i.reg_addr as u64).to_bits();
                c.reg_wdata.next = (i.reg_wdata as u64).to_bits();
                c.reg_we.next = i.reg_we;
                c.reg_re.next = i.reg_re;
                settle(c.as_mut());
                let o = CoreOutputs {
                    in_ready: c.in_ready.val(),
                    verdict_valid: c.verdict_valid.val(),
                    verdict_tag: c.verdict_tag.val().to_u16(),
                    verdict_code: c.verdict_code.val().to_u8(),
                    verdict_queue: c.verdict_queue.val(),
                    out_valid: c.out_valid.val(),
                    out_len: c.out_len.val().to_u16(),
                    out_ecn: c.out_ecn.val().to_u8(),
                    out_tag: c.out_tag.val().to_u16(),
                    out_sojourn: c.out_sojourn.val().to_u64(),
                    out_queue: c.out_queue.val(),
                    out_drop: c.out_drop.val(),
                    reg_rdata: c.reg_rdata.val().to_u32(),
                    reg_rvalid: c.reg_rvalid.val(),
                    reg_err: c.reg_err.val(),
                    idle: c.idle.val(),
                    next_update: c.next_update.val().to_u64(),
                    link_free: c.link_free.val().to_u64(),
                    link_busy: c.link_busy.val(),
                };
                clock_edge(c.as_mut(), |c| &mut c.clock);
                o
            }
        }
    };
}

rust_hdl_model!(
    /// The rust-hdl simulation of the PIE core (with bytemode).
    RustHdlPie,
    PieCore<PIE_FULL>
);
rust_hdl_model!(
    /// The rust-hdl simulation of the DualPI2 core.
    RustHdlDualPi2,
    DualPi2Core
);

impl CoreModel for aqm_verilated::VerilatedCore {
    fn name(&self) -> &'static str {
        "verilator"
    }
    fn step(&mut self, inputs: &CoreInputs) -> CoreOutputs {
        aqm_verilated::VerilatedCore::step(self, inputs)
    }
}
