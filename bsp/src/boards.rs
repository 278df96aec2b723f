//! The line cards, one per core: which board top carries which core ([`BOARDS`]). The flow, the
//! Verilog emission and the Verilator binding of the board tops all take their designs from here; what a
//! core is comes from its [`CoreKind`].

use crate::top::{
    BoardDualPi2, BoardDualPi2Sim, BoardPie, BoardPieSim, BoardRev, BOARD_CPB, BOARD_NSPC,
};
use aqm_golden::dualpi2::kind::DUALPI2_CORE;
use aqm_golden::hw::CoreKind;
use aqm_golden::pie::kind::PIE_CORE;
use aqm_hdl::emit::{emit, Emitted};
use rust_hdl::prelude::*;

/// Cycles per UART bit of the simulation builds.
pub const SIM_CPB: u64 = 4;

/// A board top's Verilog and pin constraints.
pub struct TopFiles {
    pub verilog: String,
    pub pcf: String,
}

/// One line card: its core, its board top (PLL, 1 Mbaud) and the same logic for simulation (clocked
/// directly, a [`SIM_CPB`]-cycle UART bit).
pub struct Board {
    pub kind: &'static dyn CoreKind,
    /// The board top for a board revision.
    pub top: fn(BoardRev) -> TopFiles,
    /// The simulation top.
    pub sim: fn() -> Emitted,
}

impl Board {
    /// `board_<core>`: the design name of the board top.
    pub fn design(&self) -> String {
        format!("board_{}", self.kind.name())
    }

    /// `board_<core>_sim`: the design name of the simulation top.
    pub fn sim_design(&self) -> String {
        format!("board_{}_sim", self.kind.name())
    }
}

/// A connected board top's Verilog and pin constraints.
fn top_files<T: Block>(mut top: T) -> TopFiles {
    top.connect_all();
    TopFiles {
        verilog: generate_verilog(&top),
        pcf: rust_hdl::fpga::toolchains::icestorm::generate_pcf(&top),
    }
}

/// Every line card, in the order of [`aqm_golden::hw::CORES`] (both do not fit the HX8K at once).
pub static BOARDS: &[Board] = &[
    Board {
        kind: &PIE_CORE,
        top: |rev| top_files(BoardPie::<BOARD_CPB, BOARD_NSPC>::new(rev)),
        sim: || emit(BoardPieSim::<SIM_CPB, BOARD_NSPC>::new(BoardRev::V1)),
    },
    Board {
        kind: &DUALPI2_CORE,
        top: |rev| top_files(BoardDualPi2::<BOARD_CPB, BOARD_NSPC>::new(rev)),
        sim: || emit(BoardDualPi2Sim::<SIM_CPB, BOARD_NSPC>::new(BoardRev::V1)),
    },
];

/// The line card of `kind`'s core.
pub fn board(kind: &dyn CoreKind) -> &'static Board {
    BOARDS
        .iter()
        .find(|b| b.kind.name() == kind.name())
        .unwrap_or_else(|| {
            panic!(
                "no line card for the {} core in aqm_bsp::boards::BOARDS",
                kind.name()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_has_its_line_card() {
        let boards: Vec<_> = BOARDS.iter().map(|b| b.kind.name()).collect();
        let cores: Vec<_> = aqm_golden::hw::CORES.iter().map(|k| k.name()).collect();
        assert_eq!(boards, cores);
    }
}
