//! A descriptor queue whose entries reach the head three cycles after their push (`golden::hw::queue`
//! with a lag of 3), in one of two forms with that one timing contract, chosen by `HR`:
//!
//! - [`HEAD_REG`]: [`DescQueue`] (block RAM, first word fall through) behind a one-entry head register,
//!   so that what a consumer reads of the head comes from flip-flops (0.5 ns after the clock) and not
//!   from the block RAM's output (2.2 ns on the HX8K, 5.6 ns on the ECP5). The head register takes the
//!   RAM queue's head whenever it is empty or popped. It costs a flip-flop per bit of entry, which on an
//!   iCE40 is a logic cell of its own (a flip-flop fed straight from a block RAM shares no cell).
//! - [`HEAD_RAM`]: the RAM queue's own head, shown a cycle later: `head_valid` is a flip-flop that
//!   holds an entry back until the cycle its head register would have taken it, and `head_data` is the
//!   block RAM's output. It costs a few logic cells.
//!
//! Either way the queue sustains one push and one pop per clock. An entry pushed in cycle c reaches the
//! head in cycle c+3 at the earliest, one more than [`DescQueue`]'s; a pop in cycle c shows the next
//! entry in c+1 if it was pushed before c-1. `count` counts every entry, the head included, from the
//! cycle after its push; the capacity is 2^A + 1 with the head register and 2^A without (the AQMs'
//! limit checks keep `count` at most 2^A).

use crate::desc_queue::{fwft_queue, DescQueue};
use crate::konst::K;
use rust_hdl::prelude::*;

/// `HR` of [`HeadQueue`]: the head in a register.
pub const HEAD_REG: u64 = 1;
/// `HR` of [`HeadQueue`]: the head at the block RAM's output, shown a cycle late.
pub const HEAD_RAM: u64 = 0;

/// The two head forms by name, for the code that picks one (a core's `HR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heads {
    /// [`HEAD_REG`]: in flip-flops.
    Registers,
    /// [`HEAD_RAM`]: at the block RAM's output.
    Ram,
}

fwft_queue! {
    /// `W`-bit entries, `2^A` deep in block RAM (plus the head register if `HR` = [`HEAD_REG`]);
    /// `C = A + 1` bits of count.
    pub struct HeadQueue<const HR: u64> {
        ram: DescQueue<W, A, C>,
        hv: DFF<Bit>,
        hd: DFF<Bits<W>>,
        cnt: DFF<Bits<C>>,
        pl: DFF<Bit>, // a push in the previous cycle (the form without the head register)
        hr: K<1, HR>,
        popped: Signal<Local, Bit>,
        take: Signal<Local, Bit>,
    }
}

impl<const W: usize, const A: usize, const C: usize, const HR: u64> Logic
    for HeadQueue<W, A, C, HR>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hv, hd, cnt, pl);
        clock!(self, clock, ram);
        self.ram.rst.next = self.rst.val();
        self.ram.push.next = self.push.val();
        self.ram.push_data.next = self.push_data.val();
        self.popped.next = self.pop.val() & self.hv.q.val();
        self.take.next = self.ram.head_valid.val() & (!self.hv.q.val() | self.pop.val());
        self.pl.d.next = self.push.val();
        if self.hr.val().any() {
            // The register takes the RAM queue's head when it is empty or being emptied.
            self.ram.pop.next = self.take.val();
            self.head_data.next = self.hd.q.val();
            self.count.next = self.cnt.q.val();
            if self.take.val() {
                self.hv.d.next = true;
                self.hd.d.next = self.ram.head_data.val();
            } else if self.popped.val() {
                self.hv.d.next = false;
            }
        } else {
            // The RAM queue pops with the consumer. Next cycle's head is an entry left after this
            // cycle's pop and pushed before the previous cycle: count - popped - pl >= 1.
            // The RAM queue's count is the queue's (its own `cnt` is then unused).
            self.ram.pop.next = self.popped.val();
            self.head_data.next = self.ram.head_data.val();
            self.count.next = self.ram.count.val();
            self.hv.d.next = self.ram.count.val().any()
                & !((self.ram.count.val() == 1) & (self.popped.val() | self.pl.q.val()))
                & !((self.ram.count.val() == 2) & self.popped.val() & self.pl.q.val());
        }
        if self.push.val() & !self.popped.val() {
            self.cnt.d.next = self.cnt.q.val() + 1;
        }
        if !self.push.val() & self.popped.val() {
            self.cnt.d.next = self.cnt.q.val() - 1;
        }
        self.head_valid.next = self.hv.q.val();
        if self.rst.val() {
            self.hv.d.next = false;
            self.pl.d.next = false;
            self.cnt.d.next = 0.into();
        }
    }
}

fwft_queue! {
    /// As [`HeadQueue`], one cycle later: an entry reaches the head four cycles after its push (`golden::hw::queue`
    /// with a lag of 4), so that, with the head in a register (`HR` = [`HEAD_REG`]), the entry after
    /// the head waits in a register too (`next_data`) a cycle before it can be the head: a consumer can
    /// compute what it needs of the next head a cycle ahead, from flip-flops, and keep it in a
    /// register beside the head (`advance`: the head takes `next_data` at this edge). With the head at
    /// the block RAM's output (`HR` = [`HEAD_RAM`]) the entry is held back two cycles, `next_data` is
    /// zero and `advance` low. Capacity: 2^A + 2 with the registers, 2^A without.
    pub struct LookQueue<const HR: u64> {
        /// The entry after the head (the head register's form; else zero).
        pub next_data: Signal<Out, Bits<W>>,
        /// The head takes `next_data` at this edge (the head register's form; else low).
        pub advance: Signal<Out, Bit>,
        ram: DescQueue<W, A, C>,
        hv: DFF<Bit>,
        hd: DFF<Bits<W>>,
        nv: DFF<Bit>,
        nd: DFF<Bits<W>>,
        cnt: DFF<Bits<C>>,
        // A push in the previous cycle and in the one before (the form without the registers).
        pl: DFF<Bit>,
        pl2: DFF<Bit>,
        hr: K<1, HR>,
        popped: Signal<Local, Bit>,
        adv: Signal<Local, Bit>,
        take: Signal<Local, Bit>,
        // Entries that cannot be the head in the next cycle: this cycle's pop and the last two pushes.
        held: Signal<Local, Bits<2>>,
    }
}

impl<const W: usize, const A: usize, const C: usize, const HR: u64> Logic
    for LookQueue<W, A, C, HR>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hv, hd, nv, nd, cnt, pl, pl2);
        clock!(self, clock, ram);
        self.ram.rst.next = self.rst.val();
        self.ram.push.next = self.push.val();
        self.ram.push_data.next = self.push_data.val();
        self.popped.next = self.pop.val() & self.hv.q.val();
        self.adv.next = self.nv.q.val() & (!self.hv.q.val() | self.pop.val());
        self.take.next = self.ram.head_valid.val() & (!self.nv.q.val() | self.adv.val());
        self.pl.d.next = self.push.val();
        self.pl2.d.next = self.pl.q.val();
        self.held.next = bit_cast::<2, 1>(self.popped.val().into())
            + bit_cast::<2, 1>(self.pl.q.val().into())
            + bit_cast::<2, 1>(self.pl2.q.val().into());
        self.next_data.next = 0.into();
        self.advance.next = false;
        if self.hr.val().any() {
            // The next register takes the RAM queue's head when it is empty or moves to the head;
            // the head register takes the next register's entry when it is empty or being emptied.
            self.ram.pop.next = self.take.val();
            self.head_data.next = self.hd.q.val();
            self.next_data.next = self.nd.q.val();
            self.advance.next = self.adv.val();
            self.count.next = self.cnt.q.val();
            if self.adv.val() {
                self.hv.d.next = true;
                self.hd.d.next = self.nd.q.val();
            } else if self.popped.val() {
                self.hv.d.next = false;
            }
            if self.take.val() {
                self.nv.d.next = true;
                self.nd.d.next = self.ram.head_data.val();
            } else if self.adv.val() {
                self.nv.d.next = false;
            }
        } else {
            // The RAM queue pops with the consumer. Next cycle's head is an entry left after this
            // cycle's pop and pushed before the cycle before the previous one:
            // count - popped - pl - pl2 >= 1.
            self.ram.pop.next = self.popped.val();
            self.head_data.next = self.ram.head_data.val();
            self.count.next = self.ram.count.val();
            self.hv.d.next = (self.ram.count.val() >> 2).any()
                | (self.ram.count.val().get_bits::<2>(0) > self.held.val());
        }
        if self.push.val() & !self.popped.val() {
            self.cnt.d.next = self.cnt.q.val() + 1;
        }
        if !self.push.val() & self.popped.val() {
            self.cnt.d.next = self.cnt.q.val() - 1;
        }
        self.head_valid.next = self.hv.q.val();
        if self.rst.val() {
            self.hv.d.next = false;
            self.nv.d.next = false;
            self.pl.d.next = false;
            self.pl2.d.next = false;
            self.cnt.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // An entry reaches the head three cycles after its push, in both forms.
    mod head_reg {
        use super::*;
        crate::sim::fifo_model_tests!(HeadQueue<20, 4, 5, HEAD_REG>, 3, 17, "head_queue_reg");
    }
    mod head_ram {
        use super::*;
        crate::sim::fifo_model_tests!(HeadQueue<20, 4, 5, HEAD_RAM>, 3, 16, "head_queue_ram");
    }

    // Four cycles, in both forms; the next entry shown beside the head in the registers' form.
    mod look_reg {
        use super::*;
        crate::sim::fifo_model_tests!(LookQueue<20, 4, 5, HEAD_REG>, 4, 18, "look_queue_reg");
    }
    mod look_ram {
        use super::*;
        crate::sim::fifo_model_tests!(LookQueue<20, 4, 5, HEAD_RAM>, 4, 16, "look_queue_ram");
    }

    /// What a consumer computes from `next_data` when `advance` is high describes the next cycle's
    /// head, and a head that is not advanced past stays (the registers' form).
    #[test]
    fn the_next_entry_is_shown_a_cycle_before_it_is_the_head() {
        use crate::sim::{clock_edge, settle};
        let mut q = LookQueue::<20, 4, 5, HEAD_REG>::default();
        q.connect_all();
        let mut rng = aqm_golden::prng::XorShift64::new(7).unwrap();
        let mut expect: Option<u64> = None;
        let (mut next, mut advances) = (1u64, 0);
        for cycle in 0..5000 {
            let r = rng.next_word();
            q.rst.next = r.is_multiple_of(499);
            q.push.next = q.count.val().index() < 17 && (r >> 8) % 100 < 60;
            q.push_data.next = next.into();
            q.pop.next = (r >> 16) % 100 < 55;
            settle(&mut q);
            if let Some(e) = expect {
                assert!(q.head_valid.val(), "cycle {cycle}");
                assert_eq!(q.head_data.val().to_u64(), e, "cycle {cycle}");
            }
            let popped = q.pop.val() & q.head_valid.val();
            expect = if q.rst.val() {
                None
            } else if q.advance.val() {
                advances += 1;
                Some(q.next_data.val().to_u64())
            } else if q.head_valid.val() && !popped {
                Some(q.head_data.val().to_u64())
            } else {
                None
            };
            if q.push.val() {
                next += 1;
            }
            clock_edge(&mut q, |q| &mut q.clock);
        }
        assert!(advances > 1000, "{advances} advances");
    }
}
