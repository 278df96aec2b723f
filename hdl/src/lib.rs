//! The AQM cores in rust-hdl: what they share (the descriptor queues, link model, random generator, their
//! ports and register front), the PIE core (`pie`), the DualPI2 core (`dualpi2`), Verilog emission
//! (`emit`) and the external checks of the emitted Verilog (`synth`).
//!
//! The cycle-by-cycle contract between each core, its golden model and the Verilated RTL is a page beside
//! this crate: `hdl/PIE-CORE.md` and `hdl/DUALPI2-CORE.md`, kept in sync with the golden timing constants
//! (and PIE's cycle facts with `aqm_golden::pie::core::PieCoreModel`) by `hdl/tests/contract_pages.rs`.

pub mod arith;
pub mod bram;
mod core_ports;
pub mod cores;
pub mod desc_queue;
pub mod dualpi2;
pub mod emit;
pub mod formal;
pub mod head_queue;
pub mod konst;
pub mod link;
pub mod pie;
pub mod prng;
pub mod regfront;
pub mod reset;
pub mod serial_delta;
pub mod sim;
pub mod synth;

/// The register maps of the cores as Markdown (hdl/REGISTERS.md is this, checked by a test).
pub fn registers_markdown() -> String {
    format!(
        "# Register maps\n\nGenerated from the tables in `aqm_golden` by `cargo run -p aqm-hdl --bin aqm-emit -- \
         --registers`; a test fails when this file and the code disagree.\n\n\
         32-bit registers on 8-bit word addresses. Reads answer one cycle after `reg_re`; writes are applied \
         one cycle after `reg_we`. A write outside a parameter's range, to a read-only or unmapped address, or \
         a read of an unmapped address is rejected: nothing changes, `reg_err` pulses and STATUS.write_error \
         sticks until cleared. For 64-bit values, reading _LO latches _HI; writing _LO stages the low half and \
         writing _HI commits both.\n\n## PIE core\n\n{}\n## DualPI2 core\n\n\
         A parameter write (0x10-0x1C) takes effect, and reads back, {} cycles after `reg_we` (the parameter \
         engine converts it meanwhile; STATUS bit 1 is set and further parameter writes are rejected); see \
         [DUALPI2-CORE.md](DUALPI2-CORE.md) for the core's timing.\n\n{}",
        aqm_golden::pie::regs::markdown(),
        aqm_golden::dualpi2::consts::PARAM_CYCLES,
        aqm_golden::dualpi2::regs::markdown()
    )
}
