//! 8N1 UART receiver and transmitter; `CPB` clock cycles per bit (100 at 100 MHz = 1 Mbaud).

use aqm_hdl::konst::K;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum RxState {
    Idle,
    Start,
    Data,
    Stop,
}

/// Receiver: samples each bit in its middle; a byte whose stop bit is not high is discarded.
#[derive(LogicBlock, Default)]
pub struct UartRx<const CPB: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// The line, asynchronous to the clock.
    pub rx: Signal<In, Bit>,
    pub data: Signal<Out, Bits<8>>,
    /// One cycle per received byte.
    pub valid: Signal<Out, Bit>,
    s1: DFF<Bit>,
    s2: DFF<Bit>,
    state: DFF<RxState>,
    cnt: DFF<Bits<16>>,
    bitn: DFF<Bits<3>>,
    sh: DFF<Bits<8>>,
    out: DFF<Bits<8>>,
    out_valid: DFF<Bit>,
    cpb: K<16, CPB>,
}

impl<const CPB: u64> Logic for UartRx<CPB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1, s2, state, cnt, bitn, sh, out, out_valid);
        // Two flip-flops against metastability; the idle line is high.
        self.s1.d.next = self.rx.val();
        self.s2.d.next = self.s1.q.val();
        self.out_valid.d.next = false;
        self.cnt.d.next = self.cnt.q.val() + 1;
        match self.state.q.val() {
            RxState::Idle => {
                self.cnt.d.next = 0.into();
                if !self.s2.q.val() {
                    self.state.d.next = RxState::Start;
                }
            }
            RxState::Start => {
                // Middle of the start bit: still low, or it was a glitch.
                if self.cnt.q.val() == (self.cpb.val() >> 1) {
                    self.cnt.d.next = 0.into();
                    self.bitn.d.next = 0.into();
                    if self.s2.q.val() {
                        self.state.d.next = RxState::Idle;
                    } else {
                        self.state.d.next = RxState::Data;
                    }
                }
            }
            RxState::Data => {
                if self.cnt.q.val() == (self.cpb.val() - 1) {
                    self.cnt.d.next = 0.into();
                    self.sh.d.next =
                        (self.sh.q.val() >> 1) | (bit_cast::<8, 1>(self.s2.q.val().into()) << 7);
                    self.bitn.d.next = self.bitn.q.val() + 1;
                    if self.bitn.q.val() == 7 {
                        self.state.d.next = RxState::Stop;
                    }
                }
            }
            RxState::Stop => {
                if self.cnt.q.val() == (self.cpb.val() - 1) {
                    self.state.d.next = RxState::Idle;
                    if self.s2.q.val() {
                        self.out.d.next = self.sh.q.val();
                        self.out_valid.d.next = true;
                    }
                }
            }
            _ => {
                self.state.d.next = RxState::Idle;
            }
        }
        self.data.next = self.out.q.val();
        self.valid.next = self.out_valid.q.val();
        if self.rst.val() {
            self.state.d.next = RxState::Idle;
            self.out_valid.d.next = false;
            self.s1.d.next = true;
            self.s2.d.next = true;
        }
    }
}

/// Transmitter: start bit, 8 data bits least significant first, stop bit.
#[derive(LogicBlock, Default)]
pub struct UartTx<const CPB: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub data: Signal<In, Bits<8>>,
    /// Takes `data` when `ready` is high.
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub tx: Signal<Out, Bit>,
    busy: DFF<Bit>,
    cnt: DFF<Bits<16>>,
    bitn: DFF<Bits<4>>,
    sh: DFF<Bits<10>>,
    line: DFF<Bit>,
    cpb: K<16, CPB>,
}

impl<const CPB: u64> Logic for UartTx<CPB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, cnt, bitn, sh, line);
        self.ready.next = !self.busy.q.val();
        self.line.d.next = true;
        if self.busy.q.val() {
            self.line.d.next = self.sh.q.val().get_bit(0);
            self.cnt.d.next = self.cnt.q.val() + 1;
            if self.cnt.q.val() == (self.cpb.val() - 1) {
                self.cnt.d.next = 0.into();
                self.sh.d.next = self.sh.q.val() >> 1;
                self.bitn.d.next = self.bitn.q.val() + 1;
                if self.bitn.q.val() == 9 {
                    self.busy.d.next = false;
                    self.line.d.next = true;
                }
            }
        } else if self.valid.val() {
            // {stop, data, start}
            self.sh.d.next = (bit_cast::<10, 8>(self.data.val()) << 1) | 0x200_u64;
            self.busy.d.next = true;
            self.cnt.d.next = 0.into();
            self.bitn.d.next = 0.into();
            self.line.d.next = false;
        }
        self.tx.next = self.line.q.val();
        if self.rst.val() {
            self.busy.d.next = false;
            self.line.d.next = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_hdl::sim::{clock_edge, settle};

    /// The transmitter's line into the receiver: every byte comes back, at 4 cycles per bit and at the
    /// board's 100.
    fn loopback<const CPB: u64>() {
        let mut tx = UartTx::<CPB>::default();
        let mut rx = UartRx::<CPB>::default();
        tx.connect_all();
        rx.connect_all();
        let bytes: Vec<u8> = (0..=255u8)
            .step_by(7)
            .chain([0, 0xFF, 0x55, 0xAA])
            .collect();
        let (mut sent, mut got) = (0usize, vec![]);
        for cycle in 0..(bytes.len() as u64 + 2) * 12 * CPB {
            tx.rst.next = cycle == 0;
            rx.rst.next = cycle == 0;
            tx.valid.next = sent < bytes.len() && cycle > 2;
            tx.data.next = (*bytes.get(sent).unwrap_or(&0) as u64).to_bits();
            settle(&mut tx);
            if tx.valid.val() && tx.ready.val() {
                sent += 1;
            }
            rx.rx.next = tx.tx.val();
            settle(&mut rx);
            if rx.valid.val() {
                got.push(rx.data.val().to_u8());
            }
            clock_edge(&mut tx, |t| &mut t.clock);
            clock_edge(&mut rx, |r| &mut r.clock);
        }
        assert_eq!(got, bytes);
    }

    #[test]
    fn loopback_at_4_cycles_per_bit() {
        loopback::<4>();
    }

    #[test]
    fn loopback_at_1_mbaud() {
        loopback::<100>();
    }
}
