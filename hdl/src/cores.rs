//! The rust-hdl cores as [`ClockedCore`]s: each core's block simulated one cycle at a time without the
//! threaded simulator, so that the conformance harness and the register map check drive it as they drive
//! the golden model and the Verilated RTL.

use crate::dualpi2::DualPi2Core;
use crate::emit::{emit_as, Emitted};
use crate::head_queue::{Heads, HEAD_RAM, HEAD_REG};
use crate::pie::core::{PieCore, PIE_FULL};
use crate::sim::{clock_edge, settle};
use aqm_golden::dualpi2::kind::DUALPI2_CORE;
use aqm_golden::hw::{ClockedCore, CoreInputs, CoreKind, CoreOutputs};
use aqm_golden::pie::kind::PIE_CORE;
use rust_hdl::prelude::*;

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

        impl $name {
            /// Drives the inputs and settles the design.
            fn settle(&mut self, i: &CoreInputs) -> CoreOutputs {
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
                o
            }
        }

        impl ClockedCore for $name {
            fn model_name(&self) -> &'static str {
                "rust-hdl"
            }

            fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
                self.settle(i)
            }

            fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
                let o = self.settle(i);
                clock_edge(self.core.as_mut(), |c| &mut c.clock);
                o
            }
        }
    };
}

rust_hdl_model!(
    /// The rust-hdl simulation of the PIE core (with bytemode), its queue's head in flip-flops.
    RustHdlPie,
    PieCore<PIE_FULL, HEAD_REG>
);
rust_hdl_model!(
    /// The same with the queue's head at its block RAM's output.
    RustHdlPieRamHead,
    PieCore<PIE_FULL, HEAD_RAM>
);
rust_hdl_model!(
    /// The rust-hdl simulation of the DualPI2 core, its queues' heads in flip-flops.
    RustHdlDualPi2,
    DualPi2Core<HEAD_REG>
);
rust_hdl_model!(
    /// The same with the queues' heads at their block RAMs' outputs.
    RustHdlDualPi2RamHeads,
    DualPi2Core<HEAD_RAM>
);

/// One core's HDL: its kind (everything the harnesses know of it), its Verilog and its rust-hdl
/// simulation, each in both head forms ([`Heads`], one timing contract). The form with the heads in
/// flip-flops is the core's Verilog ([`HdlCore::emitted`]: `aqm-emit`, the Verilator binding, the
/// formal proofs, the ECP5 builds); the HX8K line cards build the other (bsp's board tops).
pub struct HdlCore {
    pub kind: &'static dyn CoreKind,
    /// The block in a head form emitted under a module name (see [`HdlCore::emitted`]).
    pub emit: fn(&str, Heads) -> Emitted,
    /// The block in a head form simulated one cycle at a time, out of power-on.
    pub simulate: fn(Heads) -> Box<dyn ClockedCore + Send>,
}

impl HdlCore {
    /// The design's name: `<core>_core` (the Verilator binding and `aqm-emit` use it).
    pub fn design(&self) -> String {
        format!("{}_core", self.kind.name())
    }

    /// The core's Verilog, its heads in flip-flops, as `module <design>`, its submodules
    /// `<design>$...`.
    pub fn emitted(&self) -> Emitted {
        self.emitted_in(Heads::Registers)
    }

    /// The core's Verilog in the head form `heads`, as [`HdlCore::emitted`].
    pub fn emitted_in(&self, heads: Heads) -> Emitted {
        (self.emit)(&self.design(), heads)
    }
}

/// Every core's HDL, in the order of [`aqm_golden::hw::CORES`] (a test checks it).
pub static HDL_CORES: &[HdlCore] = &[
    HdlCore {
        kind: &PIE_CORE,
        emit: |m, h| match h {
            Heads::Registers => emit_as(PieCore::<PIE_FULL, HEAD_REG>::default(), m),
            Heads::Ram => emit_as(PieCore::<PIE_FULL, HEAD_RAM>::default(), m),
        },
        simulate: |h| match h {
            Heads::Registers => Box::<RustHdlPie>::default(),
            Heads::Ram => Box::<RustHdlPieRamHead>::default(),
        },
    },
    HdlCore {
        kind: &DUALPI2_CORE,
        emit: |m, h| match h {
            Heads::Registers => emit_as(DualPi2Core::<HEAD_REG>::default(), m),
            Heads::Ram => emit_as(DualPi2Core::<HEAD_RAM>::default(), m),
        },
        simulate: |h| match h {
            Heads::Registers => Box::<RustHdlDualPi2>::default(),
            Heads::Ram => Box::<RustHdlDualPi2RamHeads>::default(),
        },
    },
];

/// The HDL of `kind`'s core.
pub fn hdl_core(kind: &dyn CoreKind) -> &'static HdlCore {
    HDL_CORES
        .iter()
        .find(|c| c.kind.name() == kind.name())
        .unwrap_or_else(|| {
            panic!(
                "no HDL for the {} core in aqm_hdl::cores::HDL_CORES",
                kind.name()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_golden::hw::CORES;

    #[test]
    fn every_core_has_its_hdl() {
        let hdl: Vec<_> = HDL_CORES.iter().map(|c| c.kind.name()).collect();
        let golden: Vec<_> = CORES.iter().map(|k| k.name()).collect();
        assert_eq!(hdl, golden);
    }
}
