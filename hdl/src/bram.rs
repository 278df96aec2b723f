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

/// One clock edge of a RAM: the word read (`None` when the read port is not enabled), then the write.
/// A read of the address written at the same edge gets the old word inverted (see the module).
fn ram_edge<const W: usize, const N: usize>(
    mem: &mut BTreeMap<Bits<N>, Bits<W>>,
    read: Option<Bits<N>>,
    write: Option<(Bits<N>, Bits<W>)>,
) -> Option<Bits<W>> {
    let word = read.map(|a| {
        let old = mem.get(&a).copied().unwrap_or_default();
        if write.is_some_and(|(wa, _)| wa == a) {
            !old
        } else {
            old
        }
    });
    if let Some((wa, wd)) = write {
        mem.insert(wa, wd);
    }
    word
}

/// The RAM's Verilog, `W` x 2^`N`, its read gated by `read_enable` when `gated`.
fn ram_verilog(w: usize, n: usize, gated: bool) -> Verilog {
    let read = if gated {
        "   if (read_enable) read_data <= mem[read_address];"
    } else {
        "   read_data <= mem[read_address];"
    };
    Verilog::Custom(format!(
        "\
(* no_rw_check *)
reg[{msb}:0] mem[{last}:0];

always @(posedge clock) begin
{read}
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
        msb = w - 1,
        last = (1usize << n) - 1,
    ))
}

fn ram_timing(read_inputs: &[&str]) -> Vec<TimingInfo> {
    vec![
        TimingInfo {
            name: "bram_read".into(),
            clock: "clock".into(),
            inputs: read_inputs.iter().map(|s| s.to_string()).collect(),
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

impl<const W: usize, const N: usize> Logic for BlockRam<W, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let write = self
                .write_enable
                .val()
                .then(|| (self.write_address.val(), self.write_data.val()));
            if let Some(word) = ram_edge(&mut self._mem, Some(self.read_address.val()), write) {
                self.read_data.next = word;
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        ram_verilog(W, N, false)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        ram_timing(&["read_address"])
    }
}

/// [`BlockRam`] with a read enable: `read_data` keeps the word it read while `read_enable` is low (the
/// iCE40 block RAM's RE), so that a value read once stays on the port however the RAM is written after.
#[derive(LogicBlock, Default)]
pub struct HoldingBlockRam<const W: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub read_enable: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    _mem: BTreeMap<Bits<N>, Bits<W>>,
}

impl<const W: usize, const N: usize> Logic for HoldingBlockRam<W, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let read = self.read_enable.val().then(|| self.read_address.val());
            let write = self
                .write_enable
                .val()
                .then(|| (self.write_address.val(), self.write_data.val()));
            if let Some(word) = ram_edge(&mut self._mem, read, write) {
                self.read_data.next = word;
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        ram_verilog(W, N, true)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        ram_timing(&["read_enable", "read_address"])
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
    fn a_held_read_keeps_its_word_while_the_ram_is_written() {
        let mut r = HoldingBlockRam::<8, 4>::default();
        r.connect_all();
        r.write_enable.next = true;
        r.write_address.next = 5.into();
        r.write_data.next = 0x3C.into();
        settle(&mut r);
        clock_edge(&mut r, |r| &mut r.clock);
        r.read_enable.next = true;
        r.read_address.next = 5.into();
        r.write_enable.next = false;
        settle(&mut r);
        clock_edge(&mut r, |r| &mut r.clock);
        assert_eq!(r.read_data.val(), Bits::<8>::from(0x3C));
        // Not enabled: the word stays, though its address is written and another is addressed.
        r.read_enable.next = false;
        r.read_address.next = 6.into();
        r.write_enable.next = true;
        r.write_address.next = 5.into();
        r.write_data.next = 0x77.into();
        settle(&mut r);
        clock_edge(&mut r, |r| &mut r.clock);
        assert_eq!(r.read_data.val(), Bits::<8>::from(0x3C));
        r.read_enable.next = true;
        r.read_address.next = 5.into();
        r.write_enable.next = false;
        settle(&mut r);
        clock_edge(&mut r, |r| &mut r.clock);
        assert_eq!(r.read_data.val(), Bits::<8>::from(0x77));
    }

    #[test]
    fn is_synthesizable() {
        let mut r = BlockRam::<74, 10>::default();
        r.connect_all();
        yosys_validate("bram", &generate_verilog(&r)).unwrap();
        let mut h = HoldingBlockRam::<32, 5>::default();
        h.connect_all();
        yosys_validate("bram_hold", &generate_verilog(&h)).unwrap();
    }
}
