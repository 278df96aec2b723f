//! The line cards, one per core: which board top carries which core ([`BOARDS`]). The flow, the
//! Verilog emission and the Verilator binding of the board tops all take their designs from here; what a
//! core is comes from its [`CoreKind`].

use crate::top::{uart_cpb, BoardDualPi2, BoardDualPi2Sim, BoardPie, BoardPieSim, BoardRev};
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

/// The PIE card's core clock, ns per cycle: 83.3 MHz (since 2026-12-07; 71.4 MHz before). The card
/// met it at 85.0 MHz on nextpnr's default seed in a trial (g12): the look-ahead's comparisons with
/// 0.85 and 8.5 are the signs of carry-select chains of acc + (lp - C), lp - C made a stage ahead
/// (`arith::SignSplit`, `arith::SubConst`), and the burst reset leaves a flip-flop. With the
/// comparisons as LUT trees after the sum's chain (ABC9 made them six to nine LUTs deep) and the
/// burst reset fixed, 12 ns routed to 78.0 MHz at best of three seeds; before, 71.8. 14 ns (71.4 MHz)
/// before that, met at 75.0 (c2a681d, default seed); the history of that clock: 73.2 MHz on the
/// default seed in 54 s (since the ingress's len <= MTU is the sign of MTU - len), 72.6 before
/// (since the link model's carry no longer takes one net on both operands; before, 73.2 on seed 2 in
/// 125 s, the default seed's route stalled and stopped after 58 s). 66.7 MHz (15 ns) before, met at
/// 78.2 on the default seed (d8dea43: V takes the queue flags made for both pushes of the packet ahead
/// with that push registered; 71.5 before, 65.4 before the burst-reset strobe left the reset's path);
/// 62.5 MHz before that.
pub const PIE_NSPC: u64 = 12;
/// The DualPI2 card's core clock, ns per cycle: 55.6 MHz (since 2026-12-07; 50 MHz before). The card
/// meets it at 56.8 MHz on seed 2 (default seed 55.0), in 72 s of place and route with the seeds side
/// by side (dd29b61: the drop drives single flip-flops, the credit is kept less one so that the pick is
/// a sign bit, the coupled roll is a 32-bit comparison). At 20 ns the same logic met 56.6 on the default
/// seed. Before: 50 MHz, met at 50.8 on the default seed (9775491), and at 50.4 on seed 3 only (default
/// seed 48.8, seed 2 48.9) in 189 s of place and route with the seeds side by side, 282 s one after
/// the other (with the parameters read from a block RAM and the link model's carry fixed; 51.5 on seed 2
/// before, in 291 s with the default seed's stalled route stopped after 58 s; 50 MHz since the ingress
/// keeps the backlog's gap to 2 MTU in a register and the egress's gate is one 17-bit chain; at 41.7
/// MHz the same logic closed at 48.0 on the default seed). 41.7 MHz (24 ns) before, met at 45.0; 40 MHz
/// (25 ns) before that. With one packet per 3 clocks the card closed at 59.8 MHz.
pub const DUALPI2_NSPC: u64 = 18;

/// One line card: its core, its core clock, its board top (PLL, 1 Mbaud) and the same logic for
/// simulation (clocked directly, a [`SIM_CPB`]-cycle UART bit, the same time step).
pub struct Board {
    pub kind: &'static dyn CoreKind,
    /// The core clock, ns per cycle: the PLL's output ([`crate::top::pll_settings`]) and the cores' time step.
    pub nspc: u64,
    /// The board top for a board revision.
    pub top: fn(BoardRev) -> TopFiles,
    /// The simulation top.
    pub sim: fn() -> Emitted,
}

impl Board {
    /// The core clock, MHz: the flow's timing target.
    pub fn clock_mhz(&self) -> f64 {
        1000.0 / self.nspc as f64
    }

    /// UART cycles per bit on the board.
    pub fn cpb(&self) -> u64 {
        uart_cpb(self.nspc)
    }

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
        nspc: PIE_NSPC,
        top: |rev| top_files(BoardPie::<{ uart_cpb(PIE_NSPC) }, PIE_NSPC>::new(rev)),
        sim: || emit(BoardPieSim::<SIM_CPB, PIE_NSPC>::new(BoardRev::V1)),
    },
    Board {
        kind: &DUALPI2_CORE,
        nspc: DUALPI2_NSPC,
        top: |rev| top_files(BoardDualPi2::<{ uart_cpb(DUALPI2_NSPC) }, DUALPI2_NSPC>::new(rev)),
        sim: || emit(BoardDualPi2Sim::<SIM_CPB, DUALPI2_NSPC>::new(BoardRev::V1)),
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
    use crate::top::pll_settings;

    #[test]
    fn every_core_has_its_line_card() {
        let boards: Vec<_> = BOARDS.iter().map(|b| b.kind.name()).collect();
        let cores: Vec<_> = aqm_golden::hw::CORES.iter().map(|k| k.name()).collect();
        assert_eq!(boards, cores);
    }

    /// The settings icepll (fpga-icestorm) gives for 40, 41.7, 50, 55.6, 62.5, 66.7, 71.4 and 83.3 MHz from 100, and none for a clock
    /// the PLL cannot make exactly.
    #[test]
    fn pll_settings_match_icepll() {
        let s = |divr, divf, divq, filter_range| {
            Some(crate::top::PllSettings {
                divr,
                divf,
                divq,
                filter_range,
            })
        };
        assert_eq!(pll_settings(25), s(4, 31, 4, 2));
        assert_eq!(pll_settings(24), s(2, 19, 4, 3));
        assert_eq!(pll_settings(20), s(0, 7, 4, 5));
        assert_eq!(pll_settings(18), s(8, 79, 4, 1));
        assert_eq!(pll_settings(16), s(0, 9, 4, 5));
        assert_eq!(pll_settings(15), s(2, 15, 3, 3));
        assert_eq!(pll_settings(14), s(6, 39, 3, 1));
        // (`icepll -o 83.34`; asked for 83.3333 it gives DIVR 8, DIVF 59, just as exact, which its
        // floating-point error comparison happens to prefer.)
        assert_eq!(pll_settings(12), s(2, 19, 3, 3));
        // 1 / 22 GHz needs a phase detector below 10 MHz; 1 / 17 GHz has no exact ratio.
        assert_eq!(pll_settings(22), None);
        assert_eq!(pll_settings(17), None);
        for b in BOARDS {
            assert!(pll_settings(b.nspc).is_some(), "{}", b.design());
            // 1 Mbaud within 1 %.
            let baud = 1e9 / (b.nspc * b.cpb()) as f64;
            assert!((baud - 1e6).abs() < 1e4, "{}: {baud} baud", b.design());
        }
        assert_eq!((uart_cpb(25), uart_cpb(16), uart_cpb(15)), (40, 63, 67));
    }
}
