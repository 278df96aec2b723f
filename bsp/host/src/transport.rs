//! Byte transports to the board: a serial port, or the Verilated board top driven bit by bit.

use crate::board_core::Core;
use aqm_board_verilated::{VerilatedBoard, BOARD_SIM_CPB};
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// Bytes to and from the board. `recv` waits at most `timeout` of the board's time for one byte.
pub trait Transport {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()>;
    fn recv(&mut self, timeout: Duration) -> io::Result<Option<u8>>;
    /// Lets `d` of the board's time pass (bytes that arrive meanwhile are kept).
    fn idle(&mut self, d: Duration);
    /// The board's time since the transport was opened (as near as the host can tell).
    fn elapsed(&self) -> Duration;
}

/// A real board on a serial port (8N1).
pub struct SerialTransport {
    port: Box<dyn serialport::SerialPort>,
    opened: Instant,
}

impl SerialTransport {
    pub fn open(path: &str, baud: u32) -> io::Result<SerialTransport> {
        let port = serialport::new(path, baud)
            .timeout(Duration::from_millis(10))
            .open()
            .map_err(|e| io::Error::other(format!("cannot open {path} at {baud} baud: {e}")))?;
        Ok(SerialTransport {
            port,
            opened: Instant::now(),
        })
    }
}

impl Transport for SerialTransport {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.port.write_all(bytes)?;
        self.port.flush()
    }

    fn recv(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
        let start = Instant::now();
        let mut b = [0u8];
        loop {
            match self.port.read(&mut b) {
                Ok(1) => return Ok(Some(b[0])),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                Err(e) => return Err(e),
            }
            if start.elapsed() >= timeout {
                return Ok(None);
            }
        }
    }

    fn idle(&mut self, d: Duration) {
        std::thread::sleep(d);
    }

    /// Wall time: the board's clock runs in real time.
    fn elapsed(&self) -> Duration {
        self.opened.elapsed()
    }
}

/// A Verilated board top (the PIE or the DualPI2 line card) with a software UART on each line, at the
/// simulation build's cycles per bit. Board time advances only when the host waits for bytes, by the
/// board's ns per clock cycle.
pub struct SimTransport {
    board: VerilatedBoard,
    cycles_per_bit: u64,
    ns_per_cycle: u64,
    out: VecDeque<u8>,
    /// The byte being sent: its 10 line levels and the cycles left on the current one.
    tx_bits: VecDeque<bool>,
    tx_left: u64,
    tx_level: bool,
    rx_state: Option<(u64, u8, u32)>,
    rx_prev: bool,
    inbox: VecDeque<u8>,
    pub cycles: u64,
}

impl SimTransport {
    /// A freshly reset line card with the `core` (aqm_board_verilated builds one board top per core, by the
    /// core's name; a core without one is an error).
    pub fn new(core: Core) -> io::Result<SimTransport> {
        let board = VerilatedBoard::of(core.name()).ok_or_else(|| {
            io::Error::other(format!(
                "no Verilated line card carries the {} core",
                core.name()
            ))
        })?;
        let ns_per_cycle = board.ns_per_cycle();
        let mut t = SimTransport {
            board,
            cycles_per_bit: BOARD_SIM_CPB,
            ns_per_cycle,
            out: VecDeque::new(),
            tx_bits: VecDeque::new(),
            tx_left: 0,
            tx_level: true,
            rx_state: None,
            rx_prev: true,
            inbox: VecDeque::new(),
            cycles: 0,
        };
        for _ in 0..8 {
            t.board.step(false, true);
        }
        for _ in 0..8 {
            t.cycle();
        }
        Ok(t)
    }

    /// Whole board cycles in `d` (saturated at u64::MAX).
    fn cycles_in(&self, d: Duration) -> u64 {
        u64::try_from(d.as_nanos() / u128::from(self.ns_per_cycle.max(1))).unwrap_or(u64::MAX)
    }

    /// The LEDs now.
    pub fn leds(&mut self) -> u8 {
        self.board.step(true, self.tx_level).1
    }

    /// One board cycle: the host's line into the FPGA, the FPGA's line sampled in mid-bit.
    fn cycle(&mut self) {
        if self.tx_left == 0 {
            if self.tx_bits.is_empty() {
                if let Some(b) = self.out.pop_front() {
                    self.tx_bits.push_back(false);
                    self.tx_bits.extend((0..8).map(|k| b >> k & 1 != 0));
                    self.tx_bits.push_back(true);
                }
            }
            match self.tx_bits.pop_front() {
                Some(level) => {
                    self.tx_level = level;
                    self.tx_left = self.cycles_per_bit;
                }
                None => self.tx_level = true,
            }
        }
        self.tx_left = self.tx_left.saturating_sub(1);
        let (line, _) = self.board.step(true, self.tx_level);
        self.cycles += 1;
        // The receiver: a falling edge starts a byte; sample each bit in its middle.
        match &mut self.rx_state {
            None => {
                if self.rx_prev && !line {
                    self.rx_state = Some((self.cycles_per_bit / 2, 0, 0));
                }
            }
            Some((wait, byte, n)) => {
                if *wait > 1 {
                    *wait -= 1;
                } else {
                    *wait = self.cycles_per_bit;
                    match *n {
                        0 => {
                            // Middle of the start bit: a glitch if the line is high again.
                            if line {
                                self.rx_state = None;
                            } else {
                                *n = 1;
                            }
                        }
                        1..=8 => {
                            *byte |= (line as u8) << (*n - 1);
                            *n += 1;
                        }
                        _ => {
                            if line {
                                self.inbox.push_back(*byte);
                            }
                            self.rx_state = None;
                        }
                    }
                }
            }
        }
        self.rx_prev = line;
    }
}

impl Transport for SimTransport {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.extend(bytes);
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
        let limit = self.cycles.saturating_add(self.cycles_in(timeout));
        while self.inbox.is_empty() && self.cycles < limit {
            self.cycle();
        }
        Ok(self.inbox.pop_front())
    }

    fn idle(&mut self, d: Duration) {
        for _ in 0..self.cycles_in(d) {
            self.cycle();
        }
    }

    fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.cycles.saturating_mul(self.ns_per_cycle))
    }
}
