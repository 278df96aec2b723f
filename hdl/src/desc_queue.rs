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

/// `W`-bit entries, `2^A` deep; `C = A + 1` bits of count.
#[derive(LogicBlock, Default)]
pub struct DescQueue<const W: usize, const A: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the queue (the RAM keeps its stale contents, never read).
    pub rst: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, Bits<W>>,
    /// Take the head entry; ignored while `head_valid` is low.
    pub pop: Signal<In, Bit>,
    pub head_valid: Signal<Out, Bit>,
    pub head_data: Signal<Out, Bits<W>>,
    /// Entries held, the head included.
    pub count: Signal<Out, Bits<C>>,
    ram: BlockRam<W, A>,
    wr_ptr: DFF<Bits<A>>,
    rd_ptr: DFF<Bits<A>>,
    cnt: DFF<Bits<C>>,
    valid: DFF<Bit>,
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
    use crate::sim::{clock_edge, settle};
    use std::collections::VecDeque;

    type Q = DescQueue<20, 4, 5>;

    /// The queue against a VecDeque with the same visibility rule (an entry reaches the head two cycles
    /// after its push), under random pushes, pops, idle gaps and resets.
    fn run(seed: u64, push_pct: u64, pop_pct: u64, cycles: usize) {
        let mut q = Q::default();
        q.connect_all();
        let mut rng = aqm_golden::prng::XorShift64::new(seed).unwrap();
        let mut model: VecDeque<u64> = VecDeque::new();
        let mut valid = false;
        let mut next = 1u64;
        for cycle in 0..cycles {
            let r = rng.next_word();
            let rst = r.is_multiple_of(997);
            let full = model.len() == 16;
            let push = !full && (r >> 8) % 100 < push_pct;
            let pop = (r >> 16) % 100 < pop_pct;
            q.rst.next = rst;
            q.push.next = push;
            q.push_data.next = next.into();
            q.pop.next = pop;
            settle(&mut q);
            assert_eq!(q.head_valid.val(), valid, "cycle {cycle}: head_valid");
            assert_eq!(q.count.val().index(), model.len(), "cycle {cycle}: count");
            if valid {
                assert_eq!(q.head_data.val().to_u64(), model[0], "cycle {cycle}: head");
            }
            let popped = pop && valid;
            if popped {
                model.pop_front();
            }
            valid = !model.is_empty();
            if push {
                model.push_back(next);
                next += 1;
            }
            if rst {
                model.clear();
                valid = false;
            }
            clock_edge(&mut q, |q| &mut q.clock);
        }
    }

    #[test]
    fn matches_a_fifo_model_when_mostly_idle() {
        run(1, 10, 10, 3000);
    }

    #[test]
    fn matches_a_fifo_model_with_back_to_back_traffic() {
        run(2, 100, 100, 3000);
        run(3, 90, 50, 3000);
    }

    #[test]
    fn matches_a_fifo_model_when_filling_to_capacity() {
        run(4, 80, 20, 3000);
    }

    #[test]
    fn is_synthesizable() {
        let mut q = DescQueue::<74, 10, 11>::default();
        q.connect_all();
        yosys_validate("desc_queue", &generate_verilog(&q)).unwrap();
    }
}
