//! A descriptor queue whose head is a register: [`DescQueue`] (block RAM, first word fall through)
//! behind a one-entry head register, so that what a consumer reads of the head comes from flip-flops
//! (0.5 ns after the clock) and not from the block RAM's output (2.2 ns on the HX8K).
//!
//! The head register takes the RAM queue's head whenever it is empty or popped, so the queue still
//! sustains one push and one pop per clock. An entry pushed in cycle c reaches the head three cycles
//! later at the earliest (written in c, at the RAM queue's head in c+2, in the register in c+3), one more
//! than [`DescQueue`]'s. `count` counts every entry, the head register included, from the cycle after
//! its push; the capacity is 2^A + 1 (the AQM's limit check keeps `count` at most 2^A).

use crate::desc_queue::DescQueue;
use rust_hdl::prelude::*;

/// `W`-bit entries, `2^A` deep in block RAM plus the head; `C = A + 1` bits of count.
#[derive(LogicBlock, Default)]
pub struct HeadQueue<const W: usize, const A: usize, const C: usize> {
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
    ram: DescQueue<W, A, C>,
    hv: DFF<Bit>,
    hd: DFF<Bits<W>>,
    cnt: DFF<Bits<C>>,
    popped: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
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
    use crate::sim::{clock_edge, settle};
    use std::collections::VecDeque;

    type Q = HeadQueue<20, 4, 5>;

    /// The queue against a VecDeque with the same visibility rule (an entry reaches the head three
    /// cycles after its push), under random pushes, pops, idle gaps and resets.
    fn run(seed: u64, push_pct: u64, pop_pct: u64, cycles: usize) {
        let mut q = Q::default();
        q.connect_all();
        let mut rng = aqm_golden::prng::XorShift64::new(seed).unwrap();
        // (entry, cycle pushed)
        let mut model: VecDeque<(u64, usize)> = VecDeque::new();
        let mut next = 1u64;
        for cycle in 0..cycles {
            let r = rng.next_word();
            let rst = r.is_multiple_of(997);
            let full = model.len() == 17;
            let push = !full && (r >> 8) % 100 < push_pct;
            let pop = (r >> 16) % 100 < pop_pct;
            q.rst.next = rst;
            q.push.next = push;
            q.push_data.next = next.into();
            q.pop.next = pop;
            settle(&mut q);
            let valid = model.front().is_some_and(|&(_, c)| c + 3 <= cycle);
            assert_eq!(q.head_valid.val(), valid, "cycle {cycle}: head_valid");
            assert_eq!(q.count.val().index(), model.len(), "cycle {cycle}: count");
            if valid {
                assert_eq!(
                    q.head_data.val().to_u64(),
                    model[0].0,
                    "cycle {cycle}: head"
                );
            }
            if pop && valid {
                model.pop_front();
            }
            if push {
                model.push_back((next, cycle));
                next += 1;
            }
            if rst {
                model.clear();
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
        let mut b = Q::default();
        b.connect_all();
        yosys_validate("head_queue", &generate_verilog(&b)).unwrap();
    }
}
