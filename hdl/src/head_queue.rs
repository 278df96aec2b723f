//! A descriptor queue whose head is a register: [`DescQueue`] (block RAM, first word fall through)
//! behind a one-entry head register, so that what a consumer reads of the head comes from flip-flops
//! (0.5 ns after the clock) and not from the block RAM's output (2.2 ns on the HX8K).
//!
//! The head register takes the RAM queue's head whenever it is empty or popped, so the queue still
//! sustains one push and one pop per clock. An entry pushed in cycle c reaches the head three cycles
//! later at the earliest (written in c, at the RAM queue's head in c+2, in the register in c+3), one more
//! than [`DescQueue`]'s. `count` counts every entry, the head register included, from the cycle after
//! its push; the capacity is 2^A + 1 (the AQM's limit check keeps `count` at most 2^A).

use crate::desc_queue::{fwft_queue, DescQueue};
use rust_hdl::prelude::*;

fwft_queue! {
    /// `W`-bit entries, `2^A` deep in block RAM plus the head; `C = A + 1` bits of count.
    pub struct HeadQueue {
        ram: DescQueue<W, A, C>,
        hv: DFF<Bit>,
        hd: DFF<Bits<W>>,
        cnt: DFF<Bits<C>>,
        popped: Signal<Local, Bit>,
        take: Signal<Local, Bit>,
    }
}

impl<const W: usize, const A: usize, const C: usize> Logic for HeadQueue<W, A, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hv, hd, cnt);
        clock!(self, clock, ram);
        self.ram.rst.next = self.rst.val();
        self.ram.push.next = self.push.val();
        self.ram.push_data.next = self.push_data.val();
        self.popped.next = self.pop.val() & self.hv.q.val();
        // The register takes the RAM queue's head when it is empty or being emptied.
        self.take.next = self.ram.head_valid.val() & (!self.hv.q.val() | self.pop.val());
        self.ram.pop.next = self.take.val();
        if self.take.val() {
            self.hv.d.next = true;
            self.hd.d.next = self.ram.head_data.val();
        } else if self.popped.val() {
            self.hv.d.next = false;
        }
        if self.push.val() & !self.popped.val() {
            self.cnt.d.next = self.cnt.q.val() + 1;
        }
        if !self.push.val() & self.popped.val() {
            self.cnt.d.next = self.cnt.q.val() - 1;
        }
        self.head_valid.next = self.hv.q.val();
        self.head_data.next = self.hd.q.val();
        self.count.next = self.cnt.q.val();
        if self.rst.val() {
            self.hv.d.next = false;
            self.cnt.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // An entry reaches the head three cycles after its push.
    crate::sim::fifo_model_tests!(HeadQueue<20, 4, 5>, 3, 17, "head_queue");
}
