//! Board tops as Verilog: `board_pie` as the bitstream has it (1 Mbaud), and `board_pie_sim` with a
//! 4-cycle UART bit for simulation (the same design with a shorter bit).

use crate::top::{BoardPie, BoardRev, BOARD_CPB};
use aqm_hdl::emit::{emit, Emitted};

/// Cycles per UART bit of the simulation builds.
pub const SIM_CPB: u64 = 4;

/// Designs by name.
pub fn by_name(name: &str) -> Option<Emitted> {
    match name {
        "board_pie" => Some(emit(BoardPie::<BOARD_CPB>::new(BoardRev::V1))),
        "board_pie_sim" => Some(emit(BoardPie::<SIM_CPB>::new(BoardRev::V1))),
        _ => None,
    }
}

/// The board designs the Verilator binding builds.
pub const SIM_DESIGNS: &[&str] = &["board_pie_sim"];
