//! A simple dual-port block RAM (one write port, one synchronous read port, one clock) whose
//! read-during-write result is undefined.
//!
//! rust-hdl's `RAM` promises the old word when a cycle reads the address it writes. The iCE40 block RAM
//! does not, so Yosys builds that promise out of logic: a register on the write address and data and a
//! bypass multiplexer on every read bit, about two logic cells per data bit. The descriptor queues and
//! the bridge's buffers never use a word read in the cycle it is written, so they do not need it; this
//! RAM marks its memory `no_rw_check` and Yosys maps it onto the block RAM alone (the DualPI2 line card:
//! 8052 -> 7475 logic cells).
//!
//! The simulation keeps the caller honest: a read of the address written at the same edge returns the
//! old word inverted, so a design that used such a word would fail its conformance against the golden
//! model and the Verilated RTL (which returns the old word).

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock, Default)]
pub struct BlockRam<const W: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    _mem: BTreeMap<Bits<N>, Bits<W>>,
}

impl<const W: usize, const N: usize> Logic for BlockRam<W, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let old = self
                ._mem
                .get(&self.read_address.val())
                .copied()
                .unwrap_or_default();
            let collision =
                self.write_enable.val() && self.write_address.val() == self.read_address.val();
            self.read_data.next = if collision { !old } else { old };
            if self.write_enable.val() {
                self._mem
                    .insert(self.write_address.val(), self.write_data.val());
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check *)
reg[{msb}:0] mem[{last}:0];

always @(posedge clock) begin
   read_data <= mem[read_address];
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            msb = W - 1,
            last = (1usize << N) - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "bram_read".into(),
                clock: "clock".into(),
                inputs: vec!["read_address".into()],
                outputs: vec!["read_data".into()],
            },
            TimingInfo {
                name: "bram_write".into(),
                clock: "clock".into(),
                inputs: vec![
                    "write_address".into(),
                    "write_data".into(),
                    "write_enable".into(),
                ],
                outputs: vec![],
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{clock_edge, settle};

    #[test]
    fn reads_the_word_written_earlier_and_poisons_a_same_cycle_read() {
        let mut r = BlockRam::<8, 4>::default();
        r.connect_all();
        r.write_enable.next = true;
        r.write_address.next = 3.into();
        r.write_data.next = 0x5A.into();
        r.read_address.next = 2.into();
        settle(&mut r);
        clock_edge(&mut r, |r| &mut r.clock);
        assert_eq!(r.read_data.val(), Bits::<8>::from(0));
        r.write_address.next = 3.into();
        r.write_data.next = 0x11.into();
        r.read_address.next = 3.into();
        settle(&mut r);
        clock_edge(&mut r, |r| &mut r.clock);
        // Read and write of one address at one edge: undefined in hardware, the old word inverted here.
        assert_eq!(r.read_data.val(), Bits::<8>::from(0xA5));
        r.write_enable.next = false;
        settle(&mut r);
        clock_edge(&mut r, |r| &mut r.clock);
        assert_eq!(r.read_data.val(), Bits::<8>::from(0x11));
    }

    #[test]
    fn is_synthesizable() {
        let mut r = BlockRam::<74, 10>::default();
        r.connect_all();
        yosys_validate("bram", &generate_verilog(&r)).unwrap();
    }
}
