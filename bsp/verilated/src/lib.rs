//! The Verilated line cards: the simulation tops of aqm-bsp (`board_<core>_sim`: the line card's logic
//! around its core, the PLL bypassed, a [`BOARD_SIM_CPB`]-cycle UART bit), verilated and compiled by this
//! crate's build script, behind a safe wrapper. The models link against the Verilator runtime that
//! aqm-verilated compiles.

use aqm_verilated::{verilated_design, Design, Model, PortId};

#[allow(dead_code)]
mod ffi {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

pub use ffi::BOARD_SIM_CPB;

verilated_design!(BOARD_PIE_SIM, ffi, board_pie_sim);
verilated_design!(BOARD_DUALPI2_SIM, ffi, board_dualpi2_sim);

/// The simulation tops, one per line card of `aqm_bsp::boards::BOARDS`.
static DESIGNS: &[&Design] = &[&BOARD_PIE_SIM, &BOARD_DUALPI2_SIM];

/// A Verilated board top (`board_pie_sim` or `board_dualpi2_sim`), one clock cycle per
/// [`step`](VerilatedBoard::step).
pub struct VerilatedBoard {
    m: Model,
    rst_n: PortId,
    usb_rx: PortId,
    usb_tx: PortId,
    leds: PortId,
    nspc: u64,
}

impl VerilatedBoard {
    /// The PIE line card (`board_pie_sim`).
    pub fn pie() -> VerilatedBoard {
        VerilatedBoard::with(&BOARD_PIE_SIM)
    }

    /// The DualPI2 line card (`board_dualpi2_sim`).
    pub fn dualpi2() -> VerilatedBoard {
        VerilatedBoard::with(&BOARD_DUALPI2_SIM)
    }

    /// The line card of the core called `core` (`board_<core>_sim`), if there is one.
    pub fn of(core: &str) -> Option<VerilatedBoard> {
        let design = format!("board_{core}_sim");
        DESIGNS
            .iter()
            .find(|d| d.name() == design)
            .map(|d| VerilatedBoard::with(d))
    }

    fn with(d: &'static Design) -> VerilatedBoard {
        let m = Model::new(d);
        let [rst_n, usb_rx, usb_tx, leds] = m.ports(["rst_n", "usb_rx", "usb_tx", "leds"]);
        let nspc = ffi::BOARD_SIM_NSPC
            .iter()
            .find(|(name, _)| *name == d.name())
            .map(|&(_, n)| n)
            .unwrap_or_else(|| panic!("{}: no ns per cycle in the bindings", d.name()));
        VerilatedBoard {
            m,
            rst_n,
            usb_rx,
            usb_tx,
            leds,
            nspc,
        }
    }

    /// ns per clock cycle: the time step of the board top's clock counter, its line card's core clock.
    pub fn ns_per_cycle(&self) -> u64 {
        self.nspc
    }

    /// The underlying model (to trace it, for instance).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// One clock cycle: the reset button (active low) and the UART line into the FPGA; returns the UART
    /// line out of the FPGA and the LEDs during the cycle.
    pub fn step(&mut self, rst_n: bool, usb_rx: bool) -> (bool, u8) {
        self.m.set(self.rst_n, rst_n as u64);
        self.m.set(self.usb_rx, usb_rx as u64);
        self.m.settle();
        let out = (self.m.get(self.usb_tx) != 0, self.m.get(self.leds) as u8);
        self.m.rising_edge();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_card_has_its_simulation_top() {
        for core in ["pie", "dualpi2"] {
            let mut b = VerilatedBoard::of(core).expect("a simulation top");
            // Idle line, out of reset: the UART line out stays high (idle).
            for _ in 0..16 {
                b.step(false, true);
            }
            for _ in 0..64 {
                assert!(b.step(true, true).0, "{core}: the tx line idles high");
            }
        }
        assert!(VerilatedBoard::of("codel").is_none());
    }
}
