//! The board top: the 100 MHz clock (P7) into the iCE40 PLL, which clocks everything at the line card's
//! core clock (`aqm_bsp::boards::Board::nspc`: each card runs as fast as its placements close timing with
//! margin, not yet at 100 MHz: see the bitstream reports), the reset button (rst_n, P8, active low) through
//! a synchroniser, the USB-UART (FPGA input usb_rx P14, output usb_tx M9), the protocol bridge, an AQM
//! core, and eight LEDs. [`board_top!`] instantiates it twice for a core type (every core has the same
//! ports): with [`PllClock`] for the board, and with [`DirectClock`] for simulation, where the PLL has
//! no model.
//!
//! LEDs (0..7): heartbeat, frame answered, frame refused, enqueued, CE-marked, early drop, tail drop,
//! departure; each event stretched to 4 or 5 ticks of 2^20 cycles (50 to 63 ms at 83.3 MHz, 75 to
//! 94 ms at 55.6 MHz).

use rust_hdl::prelude::*;

/// Which Alchitry Cu revision: the LED pins differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardRev {
    V1,
    V2,
}

impl BoardRev {
    /// LED pins 0..7.
    pub fn led_pins(self) -> [&'static str; 8] {
        match self {
            BoardRev::V1 => ["J11", "K11", "K12", "K14", "L12", "L14", "M12", "N14"],
            BoardRev::V2 => ["J11", "K11", "G12", "H12", "K14", "J12", "L14", "K12"],
        }
    }

    pub fn parse(s: &str) -> Option<BoardRev> {
        match s {
            "v1" | "V1" | "1" => Some(BoardRev::V1),
            "v2" | "V2" | "2" => Some(BoardRev::V2),
            _ => None,
        }
    }
}

/// The settings of the iCE40's `SB_PLL40_CORE` (simple feedback) for one output clock from the board's
/// 100 MHz: output = 100 MHz x (DIVF + 1) / ((DIVR + 1) x 2^DIVQ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PllSettings {
    pub divr: u64,
    pub divf: u64,
    pub divq: u64,
    pub filter_range: u64,
}

/// The PLL settings that give exactly 1 / `nspc` GHz (a core clock of `nspc` ns per cycle) from the
/// board's 100 MHz, within the limits icepll applies (the phase detector between 10 and 133 MHz, the
/// VCO between 533 and 1066 MHz, DIVQ 1 to 6), the first in icepll's order
/// (DIVR, then DIVF, then DIVQ, rising); the loop filter's range from the phase detector's frequency
/// as icepll sets it. `None` when no setting is exact (the time step of the core must be a whole number
/// of ns).
pub const fn pll_settings(nspc: u64) -> Option<PllSettings> {
    let mut divr = 0;
    while divr < 16 {
        let mut divf = 0;
        while divf < 128 {
            let mut divq = 1;
            while divq < 7 {
                // The phase detector runs at 100 / (DIVR + 1) MHz, the VCO at that x (DIVF + 1); the
                // output is exact when (DIVF + 1) / ((DIVR + 1) 2^DIVQ) = 10 / nspc.
                let (r, f) = (divr + 1, divf + 1);
                let exact = f * nspc == 10 * r * (1 << divq);
                let pfd_ok = 100 >= 10 * r && 100 <= 133 * r;
                let vco_ok = 100 * f >= 533 * r && 100 * f <= 1066 * r;
                if exact && pfd_ok && vco_ok {
                    // icepll's loop filter ranges: the phase detector below 17, 26, 44, 66, 101 MHz.
                    let filter_range = if 100 < 17 * r {
                        1
                    } else if 100 < 26 * r {
                        2
                    } else if 100 < 44 * r {
                        3
                    } else if 100 < 66 * r {
                        4
                    } else if 100 < 101 * r {
                        5
                    } else {
                        6
                    };
                    return Some(PllSettings {
                        divr,
                        divf,
                        divq,
                        filter_range,
                    });
                }
                divq += 1;
            }
            divf += 1;
        }
        divr += 1;
    }
    None
}

/// The board's clock source: the iCE40 PLL, 100 MHz in, 1 / `NSPC` GHz out, with the settings of
/// [`pll_settings`] (a time step with none does not compile). (rust-hdl 0.46's `ICE40PLLBlock` computes
/// FILTER_RANGE from an input frequency it never sets, so it always says 1; hence this block.) It has no
/// simulation model: simulations use [`DirectClock`].
#[derive(LogicBlock)]
pub struct PllClock<const NSPC: u64> {
    pub clock_in: Signal<In, Clock>,
    pub clock_out: Signal<Out, Clock>,
    pub locked: Signal<Out, Bit>,
    core: rust_hdl::fpga::lattice::ice40::ice_pll::ICEPLL40Core,
}

impl<const NSPC: u64> PllClock<NSPC> {
    const SETTINGS: PllSettings = match pll_settings(NSPC) {
        Some(s) => s,
        None => panic!("no iCE40 PLL setting gives this core clock exactly from 100 MHz"),
    };
}

impl<const NSPC: u64> Default for PllClock<NSPC> {
    fn default() -> Self {
        PllClock {
            clock_in: Default::default(),
            clock_out: Signal::new_with_default(Clock::default()),
            locked: Signal::new_with_default(false),
            core: rust_hdl::fpga::lattice::ice40::ice_pll::ICEPLL40Core::new(),
        }
    }
}

impl<const NSPC: u64> Logic for PllClock<NSPC> {
    fn update(&mut self) {}

    fn connect(&mut self) {
        self.clock_out.connect();
        self.locked.connect();
    }

    fn hdl(&self) -> rust_hdl::core::ast::Verilog {
        let s = Self::SETTINGS;
        rust_hdl::core::ast::Verilog::Custom(format!(
            "SB_PLL40_CORE #(.FEEDBACK_PATH(\"SIMPLE\"), .DIVR(4'd{}), .DIVF(7'd{}), .DIVQ(3'd{}), \
             .FILTER_RANGE(3'd{})) pll (.LOCK(locked), .RESETB(1'b1), .BYPASS(1'b0), \
             .REFERENCECLK(clock_in), .PLLOUTCORE(clock_out));",
            s.divr, s.divf, s.divq, s.filter_range
        ))
    }
}

/// The simulation's clock source: the input clock itself, always locked.
#[derive(LogicBlock, Default)]
pub struct DirectClock {
    pub clock_in: Signal<In, Clock>,
    pub clock_out: Signal<Out, Clock>,
    pub locked: Signal<Out, Bit>,
}

impl Logic for DirectClock {
    #[hdl_gen]
    fn update(&mut self) {
        self.clock_out.next = self.clock_in.val();
        self.locked.next = true;
    }
}

/// Stretches one-cycle events to 4 to 5 ticks of the shared ~10 ms prescaler so that an LED shows them.
#[derive(LogicBlock, Default)]
pub struct Stretch {
    pub clock: Signal<In, Clock>,
    pub pulse: Signal<In, Bit>,
    /// One cycle every 2^20 cycles (10.5 ms at 100 MHz).
    pub tick: Signal<In, Bit>,
    pub led: Signal<Out, Bit>,
    count: DFF<Bits<3>>,
}

impl Logic for Stretch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count);
        if self.tick.val() & self.count.q.val().any() {
            self.count.d.next = self.count.q.val() - 1;
        }
        if self.pulse.val() {
            self.count.d.next = 5.into();
        }
        self.led.next = self.count.q.val().any();
    }
}

/// `board_top!(Board, BoardSim, core type, verdict latency, ID register value, capacity)` defines a
/// core's two board tops, `Board<CPB, NSPC>` (UART cycles per bit, ns per cycle) clocked by the PLL,
/// as built for the board, and `BoardSim<CPB, NSPC>` clocked directly, for simulation.
#[macro_export]
macro_rules! board_top {
    ($name:ident, $sim:ident, $core:ty, $vlat:expr, $id:expr, $cap:expr) => {
        $crate::board_top!(@one $name, PllClock<NSPC>, $core, $vlat, $id, $cap);
        $crate::board_top!(@one $sim, DirectClock, $core, $vlat, $id, $cap);
    };
    (@one $name:ident, $clk:ty, $core:ty, $vlat:expr, $id:expr, $cap:expr) => {
        #[derive(LogicBlock, Default)]
        pub struct $name<const CPB: u64, const NSPC: u64> {
            pub clock: Signal<In, Clock>,
            /// The reset button, active low.
            pub rst_n: Signal<In, Bit>,
            pub usb_rx: Signal<In, Bit>,
            pub usb_tx: Signal<Out, Bit>,
            pub leds: Signal<Out, Bits<8>>,
            clk: $clk,
            core_clock: Signal<Local, Clock>,
            rs1: DFF<Bit>,
            rs2: DFF<Bit>,
            prescale: DFF<Bits<20>>,
            tick: DFF<Bit>,
            heartbeat: DFF<Bits<6>>,
            rx: $crate::uart::UartRx<CPB>,
            tx: $crate::uart::UartTx<CPB>,
            bridge: $crate::bridge::Bridge<CPB, NSPC, { $vlat }, { $id }, { $cap }>,
            core: $core,
            s_ok: $crate::top::Stretch,
            s_err: $crate::top::Stretch,
            s_enq: $crate::top::Stretch,
            s_mark: $crate::top::Stretch,
            s_early: $crate::top::Stretch,
            s_tail: $crate::top::Stretch,
            s_dep: $crate::top::Stretch,
        }

        impl<const CPB: u64, const NSPC: u64> $name<CPB, NSPC> {
            /// The top with its pins placed for board revision `rev`.
            pub fn new(rev: $crate::top::BoardRev) -> Self {
                let mut t = Self::default();
                t.clock = rust_hdl_bsp_alchitry_cu::pins::clock();
                t.rst_n.add_location(0, "P8");
                t.usb_rx.add_location(0, "P14");
                t.usb_tx.add_location(0, "M9");
                for (k, pin) in rev.led_pins().iter().enumerate() {
                    t.leds.add_location(k, pin);
                }
                t
            }
        }

        impl<const CPB: u64, const NSPC: u64> Logic for $name<CPB, NSPC> {
            #[hdl_gen]
            fn update(&mut self) {
                self.clk.clock_in.next = self.clock.val();
                self.core_clock.next = self.clk.clock_out.val();
                dff_setup!(self, core_clock, rs1, rs2, prescale, tick, heartbeat);
                clock!(
                    self, core_clock, rx, tx, bridge, core, s_ok, s_err, s_enq, s_mark, s_early,
                    s_tail, s_dep
                );
                // Reset synchroniser: held while the button is down or the clock is not locked.
                self.rs1.d.next = !self.rst_n.val() | !self.clk.locked.val();
                self.rs2.d.next = self.rs1.q.val();
                self.rx.rst.next = self.rs2.q.val();
                self.tx.rst.next = self.rs2.q.val();
                self.bridge.rst.next = self.rs2.q.val();
                // The LEDs' time base: a tick every 2^20 cycles; the heartbeat toggles every 32 ticks.
                self.prescale.d.next = self.prescale.q.val() + 1;
                self.tick.d.next = self.prescale.q.val().all();
                if self.tick.q.val() {
                    self.heartbeat.d.next = self.heartbeat.q.val() + 1;
                }
                self.s_ok.tick.next = self.tick.q.val();
                self.s_err.tick.next = self.tick.q.val();
                self.s_enq.tick.next = self.tick.q.val();
                self.s_mark.tick.next = self.tick.q.val();
                self.s_early.tick.next = self.tick.q.val();
                self.s_tail.tick.next = self.tick.q.val();
                self.s_dep.tick.next = self.tick.q.val();

                self.rx.rx.next = self.usb_rx.val();
                self.usb_tx.next = self.tx.tx.val();
                self.bridge.rx_data.next = self.rx.data.val();
                self.bridge.rx_valid.next = self.rx.valid.val();
                self.tx.data.next = self.bridge.tx_data.val();
                self.tx.valid.next = self.bridge.tx_valid.val();
                self.bridge.tx_ready.next = self.tx.ready.val();

                self.core.rst.next = self.bridge.core.rst.val();
                self.core.now.next = self.bridge.now.val();
                self.core.in_valid.next = self.bridge.core.in_valid.val();
                self.core.in_len.next = self.bridge.core.in_len.val();
                self.core.in_ecn.next = self.bridge.core.in_ecn.val();
                self.core.in_tag.next = self.bridge.core.in_tag.val();
                self.bridge.core.in_ready.next = self.core.in_ready.val();
                self.bridge.events.verdict_valid.next = self.core.verdict_valid.val();
                self.bridge.events.verdict_tag.next = self.core.verdict_tag.val();
                self.bridge.events.verdict_code.next = self.core.verdict_code.val();
                self.bridge.events.verdict_queue.next = self.core.verdict_queue.val();
                self.bridge.events.out_valid.next = self.core.out_valid.val();
                self.core.out_ready.next = self.bridge.out_ready.val();
                self.bridge.events.out_len.next = self.core.out_len.val();
                self.bridge.events.out_ecn.next = self.core.out_ecn.val();
                self.bridge.events.out_tag.next = self.core.out_tag.val();
                self.bridge.events.out_sojourn.next = self.core.out_sojourn.val();
                self.bridge.events.out_queue.next = self.core.out_queue.val();
                self.bridge.events.out_drop.next = self.core.out_drop.val();
                self.core.reg_addr.next = self.bridge.core.reg_addr.val();
                self.core.reg_wdata.next = self.bridge.core.reg_wdata.val();
                self.core.reg_we.next = self.bridge.core.reg_we.val();
                self.core.reg_re.next = self.bridge.core.reg_re.val();
                self.bridge.core.reg_rdata.next = self.core.reg_rdata.val();
                self.bridge.core.reg_rvalid.next = self.core.reg_rvalid.val();
                self.bridge.core.reg_err.next = self.core.reg_err.val();

                self.s_ok.pulse.next = self.bridge.frame_ok.val();
                self.s_err.pulse.next = self.bridge.frame_err.val();
                self.s_enq.pulse.next =
                    self.core.verdict_valid.val() & (self.core.verdict_code.val() == 0);
                self.s_mark.pulse.next =
                    self.core.verdict_valid.val() & (self.core.verdict_code.val() == 1);
                self.s_early.pulse.next =
                    self.core.verdict_valid.val() & (self.core.verdict_code.val() == 2);
                self.s_tail.pulse.next =
                    self.core.verdict_valid.val() & (self.core.verdict_code.val() == 3);
                self.s_dep.pulse.next = self.core.out_valid.val() & self.bridge.out_ready.val();
                self.leds.next = bit_cast::<8, 1>(self.heartbeat.q.val().get_bit(5).into())
                    | (bit_cast::<8, 1>(self.s_ok.led.val().into()) << 1)
                    | (bit_cast::<8, 1>(self.s_err.led.val().into()) << 2)
                    | (bit_cast::<8, 1>(self.s_enq.led.val().into()) << 3)
                    | (bit_cast::<8, 1>(self.s_mark.led.val().into()) << 4)
                    | (bit_cast::<8, 1>(self.s_early.led.val().into()) << 5)
                    | (bit_cast::<8, 1>(self.s_tail.led.val().into()) << 6)
                    | (bit_cast::<8, 1>(self.s_dep.led.val().into()) << 7);
            }
        }
    };
}

/// The cores' head form on the line cards (the tops below instantiate `HEAD_RAM`): the block RAMs'
/// outputs, where a head register's flip-flops would each take a logic cell of the HX8K. The flow
/// synthesises the core alone in this form for its comparison with the board.
pub const CARD_HEADS: aqm_hdl::head_queue::Heads = aqm_hdl::head_queue::Heads::Ram;

board_top!(
    BoardPie,
    BoardPieSim,
    aqm_hdl::pie::core::PieCore<
        { aqm_hdl::pie::core::PIE_FULL },
        { aqm_hdl::head_queue::HEAD_RAM },
    >,
    aqm_hdl::pie::ingress::VERDICT_LATENCY,
    aqm_golden::pie::regs::PIE_ID as u64,
    aqm_golden::pie::regs::CAPACITY as u64
);

board_top!(
    BoardDualPi2,
    BoardDualPi2Sim,
    aqm_hdl::dualpi2::DualPi2Core<{ aqm_hdl::head_queue::HEAD_RAM }>,
    aqm_golden::dualpi2::consts::VERDICT_LATENCY,
    aqm_golden::dualpi2::regs::DUALPI2_ID as u64,
    aqm_golden::dualpi2::consts::HW_QUEUE_CAPACITY as u64
);

/// Cycles per UART bit at 1 Mbaud for a core clock of `nspc` ns per cycle, rounded to the nearest: 1000
/// / `nspc`, so 40 at 25 ns and 50 at 20 ns; at 12 ns (83.3 MHz) 83 cycles, a bit 0.4 % short, well
/// inside what an 8N1 receiver tolerates (it samples each bit in its middle and resynchronises on every start bit).
pub const fn uart_cpb(nspc: u64) -> u64 {
    (1000 + nspc / 2) / nspc
}
