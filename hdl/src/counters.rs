//! Event counters whose low bits are flip-flops and whose high bits live in block RAM.
//!
//! A 32-bit counter that counts one event per cycle at most costs, in flip-flops, a logic cell per bit
//! for its register and incrementer and as many inputs of the register file's read multiplexer. Here
//! each counter keeps only its low `L` bits in flip-flops ([`LoCounter`]) and signals the carry out of
//! them (`wrap`); [`CounterHigh`] keeps the high `H` bits of all `K` counters in block RAM and applies
//! the carries in the background, and answers a register read of a counter's high bits.
//!
//! The high bank:
//! - `p` (a flip-flop per counter): a carry is pending. A wrap sets it; the service clears it.
//! - `nz` (a flip-flop per counter): the RAM holds the high bits; when clear, they read as 0 whatever
//!   the RAM holds. `clear` and reset clear every `nz` (so a clear takes one edge for all counters); the
//!   service's first write sets it.
//! - The service visits the 16 slots in turn, one per cycle (`sp`): in the visit cycle it reads the
//!   counter's word from copy A of the RAM, and in the next cycle, if the carry is still pending, writes
//!   `(nz ? word : 0) + 1` into both copies, clears `p` and sets `nz` at that edge (a `clear` at the same
//!   edge wins). A carry is applied at most 17 cycles after its wrap; the next wrap of the same counter
//!   comes `2^L` cycles later at the earliest, so 17 < `2^L` is enough (checked at compile time).
//! - A read (`re` with the counter's index `idx`) reads copy B at that edge and takes `p`, `z` and
//!   the service's write of that edge; the next cycle `hi` is the counter's high bits as they were in
//!   the `re` cycle: the service's new word if it wrote this counter at the read's edge (the RAM's word
//!   is undefined then), else `(nz ? word : 0) + p`. `hi` holds that value until the next `re`. Two
//!   copies give the service and the reads a read port each, so neither waits for the other.
//!
//! A counter's value in a cycle is `(high << L) | low`, with the high bits as above and the low bits the
//! [`LoCounter`]'s. The cycle's values of both halves are what a read in that cycle returns, as a register
//! file of plain 32-bit counters does.

use crate::bram::BlockRam;
use rust_hdl::prelude::*;

/// The low `L` bits of a counter: +1 in a cycle with `tick`, 0 after a cycle with `clear` (which wins);
/// `wrap` is high in a tick cycle whose increment carries out of the `L` bits (the value is all ones).
#[derive(LogicBlock, Default)]
pub struct LoCounter<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub tick: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub value: Signal<Out, Bits<L>>,
    pub wrap: Signal<Out, Bit>,
    r: DFF<Bits<L>>,
}

impl<const L: usize> Logic for LoCounter<L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        self.value.next = self.r.q.val();
        self.wrap.next = self.tick.val() & self.r.q.val().all();
        if self.tick.val() {
            self.r.d.next = self.r.q.val() + 1;
        }
        if self.clear.val() {
            self.r.d.next = 0.into();
        }
    }
}

/// The high `H` bits of `K` counters in block RAM (two copies of 2^8 words), with the carries of their
/// low `L` bits applied in the background; see the module docs. `fits(K, H, L)` must hold.
#[derive(LogicBlock, Default)]
pub struct CounterHigh<const K: usize, const H: usize, const L: usize> {
    pub clock: Signal<In, Clock>,
    /// Reset and `clear` (CONTROL.clear_counters) zero every counter's high bits at this edge.
    pub rst: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    /// Bit k: counter k's low bits carried out at this edge (its [`LoCounter`]'s `wrap`).
    pub wraps: Signal<In, Bits<K>>,
    /// A read of counter `idx` (< K) in this cycle.
    pub re: Signal<In, Bit>,
    pub idx: Signal<In, Bits<4>>,
    /// The high bits of the counter last read, as of its `re` cycle: from the cycle after it.
    pub hi: Signal<Out, Bits<H>>,
    p: DFF<Bits<K>>,
    nz: DFF<Bits<K>>,
    /// The service: the counter visited (its copy-A word arrives next cycle), and the one visited last.
    sp: DFF<Bits<4>>,
    s_i: DFF<Bits<4>>,
    s_v: DFF<Bit>,
    /// The read: its counter's p and nz, whether the service wrote it at the read's edge, and that word.
    r_p: DFF<Bit>,
    r_nz: DFF<Bit>,
    r_coll: DFF<Bit>,
    r_w: DFF<Bits<H>>,
    /// The cycle after a read (`hi` from the RAM), and `hi` held from the cycle after that.
    r_now: DFF<Bit>,
    held: DFF<Bits<H>>,
    copy_a: BlockRam<H, 8>,
    copy_b: BlockRam<H, 8>,
    w_en: Signal<Local, Bit>,
    w_word: Signal<Local, Bits<H>>,
    w_mask: Signal<Local, Bits<K>>,
    hi_now: Signal<Local, Bits<H>>,
    one: Signal<Local, Bits<K>>,
    p_sp: Signal<Local, Bits<K>>,
    p_si: Signal<Local, Bits<K>>,
    nz_si: Signal<Local, Bits<K>>,
    p_idx: Signal<Local, Bits<K>>,
    nz_idx: Signal<Local, Bits<K>>,
}

/// Whether `K` counters with `L` low bits and `H` high bits fit [`CounterHigh`]: a carry waits at most 17
/// cycles and the counter's next wrap is 2^L cycles away at the earliest; the RAM words are 16 bits at
/// most. Users check it at compile time (`const _: () = assert!(fits(...))`).
pub const fn fits(k: usize, h: usize, l: usize) -> bool {
    k >= 2 && k <= 16 && 17 < (1 << l) && h <= 16
}

impl<const K: usize, const H: usize, const L: usize> Logic for CounterHigh<K, H, L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, p, nz, sp, s_i, s_v, r_p, r_nz, r_coll, r_w, r_now, held);
        clock!(self, clock, copy_a, copy_b);
        self.one.next = 1.into();
        // A counter's flags, shifted down to bit 0 (a slot K..15 reads 0).
        self.p_sp.next = self.p.q.val() >> self.sp.q.val();
        self.p_si.next = self.p.q.val() >> self.s_i.q.val();
        self.nz_si.next = self.nz.q.val() >> self.s_i.q.val();
        self.p_idx.next = self.p.q.val() >> self.idx.val();
        self.nz_idx.next = self.nz.q.val() >> self.idx.val();

        // The service: visit sp (copy A's word next cycle), then write the word + 1 if still pending.
        // (Slots K..15 hold no counter: their p stays 0.)
        self.sp.d.next = self.sp.q.val() + 1;
        self.copy_a.read_address.next = bit_cast::<8, 4>(self.sp.q.val());
        self.s_i.d.next = self.sp.q.val();
        self.s_v.d.next = self.p_sp.val().get_bit(0);
        self.w_en.next = self.s_v.q.val() & self.p_si.val().get_bit(0);
        self.w_word.next = 1.into();
        if self.nz_si.val().get_bit(0) {
            self.w_word.next = self.copy_a.read_data.val() + 1;
        }
        self.w_mask.next = 0.into();
        if self.w_en.val() {
            self.w_mask.next = self.one.val() << self.s_i.q.val();
        }
        self.copy_a.write_enable.next = self.w_en.val();
        self.copy_a.write_address.next = bit_cast::<8, 4>(self.s_i.q.val());
        self.copy_a.write_data.next = self.w_word.val();
        self.copy_b.write_enable.next = self.w_en.val();
        self.copy_b.write_address.next = bit_cast::<8, 4>(self.s_i.q.val());
        self.copy_b.write_data.next = self.w_word.val();
        self.p.d.next = (self.p.q.val() & !self.w_mask.val()) | self.wraps.val();
        self.nz.d.next = self.nz.q.val() | self.w_mask.val();

        // A read: copy B at this edge; p, z and the service's write of this edge with it.
        self.copy_b.read_address.next = bit_cast::<8, 4>(self.idx.val());
        self.r_now.d.next = self.re.val();
        if self.re.val() {
            self.r_p.d.next = self.p_idx.val().get_bit(0);
            self.r_nz.d.next = self.nz_idx.val().get_bit(0);
            self.r_coll.d.next = self.w_en.val() & (self.s_i.q.val() == self.idx.val());
            self.r_w.d.next = self.w_word.val();
        }
        self.hi_now.next = bit_cast::<H, 1>(self.r_p.q.val().into());
        if self.r_nz.q.val() {
            self.hi_now.next =
                self.copy_b.read_data.val() + bit_cast::<H, 1>(self.r_p.q.val().into());
        }
        if self.r_coll.q.val() {
            self.hi_now.next = self.r_w.q.val();
        }
        self.hi.next = self.held.q.val();
        if self.r_now.q.val() {
            self.hi.next = self.hi_now.val();
            self.held.d.next = self.hi_now.val();
        }

        if self.clear.val() | self.rst.val() {
            self.p.d.next = 0.into();
            self.nz.d.next = 0.into();
        }
        if self.rst.val() {
            self.sp.d.next = 0.into();
            self.s_v.d.next = false;
            self.r_now.d.next = false;
            self.r_p.d.next = false;
            self.r_nz.d.next = false;
            self.r_coll.d.next = false;
            self.held.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{clock_edge, settle};
    use aqm_golden::prng::XorShift64;

    /// Four 8-bit counters (5 low bits in flip-flops, 3 high bits in the RAM, so that carries come
    /// every 32 events) against plain counters: random ticks (often every cycle), clears, resets and reads;
    /// every read returns the plain counter's value of its `re` cycle, the cycle after and until the next
    /// read. The read and the service collide on every counter (a read of the counter being written).
    #[derive(LogicBlock, Default)]
    struct Bench {
        clock: Signal<In, Clock>,
        rst: Signal<In, Bit>,
        clear: Signal<In, Bit>,
        ticks: Signal<In, Bits<4>>,
        re: Signal<In, Bit>,
        idx: Signal<In, Bits<4>>,
        lo: Signal<Out, Bits<5>>,
        hi: Signal<Out, Bits<3>>,
        c0: LoCounter<5>,
        c1: LoCounter<5>,
        c2: LoCounter<5>,
        c3: LoCounter<5>,
        high: CounterHigh<4, 3, 5>,
        // The low bits of the counter read, as of the `re` cycle (the register file's read register).
        lo_r: DFF<Bits<5>>,
    }

    impl Logic for Bench {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, lo_r);
            clock!(self, clock, c0, c1, c2, c3, high);
            self.c0.tick.next = self.ticks.val().get_bit(0);
            self.c1.tick.next = self.ticks.val().get_bit(1);
            self.c2.tick.next = self.ticks.val().get_bit(2);
            self.c3.tick.next = self.ticks.val().get_bit(3);
            self.c0.clear.next = self.clear.val() | self.rst.val();
            self.c1.clear.next = self.clear.val() | self.rst.val();
            self.c2.clear.next = self.clear.val() | self.rst.val();
            self.c3.clear.next = self.clear.val() | self.rst.val();
            self.high.rst.next = self.rst.val();
            self.high.clear.next = self.clear.val();
            self.high.wraps.next = bit_cast::<4, 1>(self.c0.wrap.val().into())
                | (bit_cast::<4, 1>(self.c1.wrap.val().into()) << 1)
                | (bit_cast::<4, 1>(self.c2.wrap.val().into()) << 2)
                | (bit_cast::<4, 1>(self.c3.wrap.val().into()) << 3);
            self.high.re.next = self.re.val();
            self.high.idx.next = self.idx.val();
            if self.re.val() {
                match self.idx.val().index() {
                    0 => self.lo_r.d.next = self.c0.value.val(),
                    1 => self.lo_r.d.next = self.c1.value.val(),
                    2 => self.lo_r.d.next = self.c2.value.val(),
                    _ => self.lo_r.d.next = self.c3.value.val(),
                }
            }
            if self.rst.val() {
                self.lo_r.d.next = 0.into();
            }
            self.lo.next = self.lo_r.q.val();
            self.hi.next = self.high.hi.val();
        }
    }

    const _: () = assert!(fits(4, 3, 5));

    #[test]
    fn split_counters_read_as_plain_counters() {
        let mut b = Bench::default();
        b.connect_all();
        let mut rng = XorShift64::new(11).unwrap();
        let mut plain = [0u64; 4];
        // The value the last read returns (from the cycle after it), None before the first read.
        let mut want: Option<u64> = None;
        let mut reads_after_a_carry = 0;
        let mut pending_read: Option<u64> = None;
        for cycle in 0..200_000u64 {
            let w = rng.next_word();
            let rst = cycle == 0 || w % 9973 == 0;
            let clear = !rst && (w >> 8) % 3001 == 0;
            // Busy phases tick every counter every cycle; quiet ones now and then.
            let busy = (cycle / 5000) % 2 == 0;
            let ticks = if busy {
                0xF
            } else {
                (w >> 16) & 0xF & (w >> 20)
            };
            let re = (w >> 24) % 4 == 0;
            let idx = (w >> 28) % 4;
            b.rst.next = rst;
            b.clear.next = clear;
            b.ticks.next = ticks.to_bits();
            b.re.next = re;
            b.idx.next = idx.to_bits();
            settle(&mut b);
            if let Some(v) = pending_read.take() {
                want = Some(v);
            }
            if let Some(v) = want {
                let got = (b.hi.val().to_u64() << 5) | b.lo.val().to_u64();
                assert_eq!(got, v, "cycle {cycle}: the last read's value");
            }
            if re && !rst {
                pending_read = Some(plain[idx as usize]);
                if plain[idx as usize] >= 32 {
                    reads_after_a_carry += 1;
                }
            }
            clock_edge(&mut b, |b| &mut b.clock);
            for (k, c) in plain.iter_mut().enumerate() {
                if rst || clear {
                    *c = 0;
                } else if ticks >> k & 1 == 1 {
                    *c = (*c + 1) & 0xFF;
                }
            }
            if rst {
                want = Some(0);
                pending_read = None;
            }
        }
        assert!(reads_after_a_carry > 10_000, "{reads_after_a_carry}");
    }

    #[test]
    fn is_synthesizable() {
        let mut c = CounterHigh::<13, 16, 16>::default();
        c.connect_all();
        yosys_validate("counter_high", &generate_verilog(&c)).unwrap();
    }
}
