//! A first-word-fall-through descriptor queue in block RAM.
//!
//! The head entry is always presented at `head_data` while `head_valid` is high; `pop` takes it and the
//! next entry appears on the following cycle, so the queue sustains one push and one pop per clock. The
//! RAM's read port is addressed with the read pointer of the *next* cycle (`rd_ptr + pop`), which is the
//! usual way to get FWFT behaviour from a synchronous-read RAM without a separate output register.
//!
//! A pushed entry becomes visible at the head two cycles later at the earliest (write, then read): a read
//! of the address being written (an empty queue taking a push) is never used, so the RAM's
//! read-during-write behaviour never matters ([`BlockRam`] leaves it undefined). `count` includes every
//! pushed entry from the cycle after the push. Pushing into a full queue is a caller error: the AQM's
//! limit check keeps `count` below the capacity.

use crate::bram::BlockRam;
use rust_hdl::prelude::*;

/// `fwft_queue! { /// docs \n pub struct Name<const X: u64, ..> { own fields } }`: a queue block with
/// `W`-bit entries and `C` bits of count, generic in `W`, `A` (its RAM's address bits), `C` and the
/// block's own `u64` constants, if any; the ports come first,
/// then the block's own fields (private, or ports of its own). [`DescQueue`] and [`crate::head_queue::HeadQueue`] are the
/// same block to the outside.
macro_rules! fwft_queue {
    (
        $(#[$m:meta])*
        pub struct $name:ident $(<$(const $g:ident: u64),+>)? {
            $($(#[$fm:meta])* $v:vis $f:ident: $t:ty,)*
        }
    ) => {
        $(#[$m])*
        #[derive(LogicBlock, Default)]
        pub struct $name<const W: usize, const A: usize, const C: usize $($(, const $g: u64)+)?> {
            pub clock: Signal<In, Clock>,
            /// Synchronous reset: empties the queue.
            pub rst: Signal<In, Bit>,
            pub push: Signal<In, Bit>,
            pub push_data: Signal<In, Bits<W>>,
            /// Take the head entry; ignored while `head_valid` is low.
            pub pop: Signal<In, Bit>,
            pub head_valid: Signal<Out, Bit>,
            pub head_data: Signal<Out, Bits<W>>,
            /// Entries held, the head included.
            pub count: Signal<Out, Bits<C>>,
            $($(#[$fm])* $v $f: $t,)*
        }
    };
}
pub(crate) use fwft_queue;

fwft_queue! {
    /// `W`-bit entries, `2^A` deep; `C = A + 1` bits of count. A reset leaves the RAM's stale
    /// contents, never read.
    pub struct DescQueue {
        ram: BlockRam<W, A>,
        wr_ptr: DFF<Bits<A>>,
        rd_ptr: DFF<Bits<A>>,
        cnt: DFF<Bits<C>>,
        valid: DFF<Bit>,
    }
}

impl<const W: usize, const A: usize, const C: usize> Logic for DescQueue<W, A, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, rd_ptr, cnt, valid);
        clock!(self, clock, ram);
        self.ram.write_address.next = self.wr_ptr.q.val();
        self.ram.write_data.next = self.push_data.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.read_address.next = self.rd_ptr.q.val();
        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
        }
        if self.pop.val() & self.valid.q.val() {
            self.ram.read_address.next = self.rd_ptr.q.val() + 1;
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
            // The head is refilled from the RAM next cycle if an entry written before this cycle remains.
            self.valid.d.next = self.cnt.q.val() != 1;
            if !self.push.val() {
                self.cnt.d.next = self.cnt.q.val() - 1;
            }
        } else {
            self.valid.d.next = self.cnt.q.val() != 0;
            if self.push.val() {
                self.cnt.d.next = self.cnt.q.val() + 1;
            }
        }
        self.head_valid.next = self.valid.q.val();
        self.head_data.next = self.ram.read_data.val();
        self.count.next = self.cnt.q.val();
        if self.rst.val() {
            self.wr_ptr.d.next = 0.into();
            self.rd_ptr.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // An entry reaches the head two cycles after its push.
    crate::sim::fifo_model_tests!(DescQueue<20, 4, 5>, 2, 16, "desc_queue");
}
