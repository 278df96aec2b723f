//! The simulation tops as Verilog by design name (see [`crate::boards::BOARDS`]): `board_<core>_sim`,
//! the line card's logic clocked directly (the PLL bypassed), with a [`SIM_CPB`]-cycle UART bit. The
//! bitstream flow emits the board tops themselves ([`crate::boards::Board::top`]).

use crate::boards::BOARDS;
pub use crate::boards::SIM_CPB;
use aqm_hdl::emit::Emitted;

/// A simulation top by design name.
pub fn by_name(name: &str) -> Option<Emitted> {
    BOARDS
        .iter()
        .find(|b| b.sim_design() == name)
        .map(|b| (b.sim)())
}

/// The board designs the Verilator binding builds.
pub fn sim_designs() -> Vec<String> {
    BOARDS.iter().map(|b| b.sim_design()).collect()
}
