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
}
