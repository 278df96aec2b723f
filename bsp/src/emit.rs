//! Board tops as Verilog: `board_pie` / `board_dualpi2` as the bitstreams have them (PLL, 1 Mbaud), and
//! `board_pie_sim` / `board_dualpi2_sim` for simulation: the same logic clocked directly, with a 4-cycle
//! UART bit.

use crate::top::{
    BoardDualPi2, BoardDualPi2Sim, BoardPie, BoardPieSim, BoardRev, BOARD_CPB, BOARD_NSPC,
};
use aqm_hdl::emit::{emit, Emitted};

/// Cycles per UART bit of the simulation builds.
pub const SIM_CPB: u64 = 4;

/// Designs by name.
pub fn by_name(name: &str) -> Option<Emitted> {
    match name {
        "board_pie" => Some(emit(BoardPie::<BOARD_CPB, BOARD_NSPC>::new(BoardRev::V1))),
        "board_pie_sim" => Some(emit(BoardPieSim::<SIM_CPB, BOARD_NSPC>::new(BoardRev::V1))),
        "board_dualpi2" => Some(emit(BoardDualPi2::<BOARD_CPB, BOARD_NSPC>::new(
            BoardRev::V1,
        ))),
        "board_dualpi2_sim" => Some(emit(BoardDualPi2Sim::<SIM_CPB, BOARD_NSPC>::new(
            BoardRev::V1,
        ))),
        _ => None,
    }
}

/// The board designs the Verilator binding builds.
pub const SIM_DESIGNS: &[&str] = &["board_pie_sim", "board_dualpi2_sim"];
