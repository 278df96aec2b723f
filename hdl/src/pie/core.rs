//! The PIE core: ingress descriptors in, verdicts and paced departures out, registers on the side.
//!
//! ```text
//!             +-----------+  push   +------------+  head  +-----------+
//!  in_* ----->|  ingress  |-------->| head queue |------->|  egress   |-----> out_* (link model)
//!  (1/clock)  | 5 stages  |         | BRAM, 1024 |<-------| D1, D2    |
//!             +-----------+         +------------+  pop   +-----------+
//!  verdict_* <---'  ^  ^ rnd                               |  ^ qdelay, burst, deq len
//!                   |  '------ prng                        |  |
//!                   | prob, ppb, acc clear     +------------+ |
//!                   '--------------------------| controller |<'  every tupdate, bit-serial
//!                                              +------------+
//!  reg_* <-----> register file: parameters (tc units), counters, status
//! ```
//! Every accepted descriptor gets exactly one verdict on the verdict stream, 5 cycles later, and every
//! enqueued one leaves exactly once on the egress stream. `now` (ns) is an input, so a simulator can move
//! time without clocking idle cycles; `idle` says when nothing is in flight and nothing is due, and
//! `next_update` / `link_free` (low 40 bits of ns) say when the core will next act on its own.

use super::controller::PieController;
use super::egress::PieEgress;
use super::ingress::PieIngress;
use super::regs::PieRegs;
use crate::core_ports::{aqm_core, core_logic};
use crate::head_queue::HeadQueue;
use crate::prng::Prng;
use crate::reset::ResetFanout;
use rust_hdl::prelude::*;

/// The core with bytemode in hardware.
pub const PIE_FULL: u64 = 1;
/// The core without the bytemode multiplier (BYTEMODE is then refused).
pub const PIE_LITE: u64 = 0;

/// Descriptor FIFO entries: `2^QUEUE_ADDR_BITS` (the LIMIT register's maximum).
pub const QUEUE_ADDR_BITS: usize = 10;

aqm_core! {
    /// `BM` = 1: with the bytemode multiplier ([`PIE_FULL`], what the conformance tests and the board
    /// use); 0: without ([`PIE_LITE`], about 700 LUT4 smaller, for a smaller part). `HR`: where the
    /// queue keeps its head ([`crate::head_queue`]: in flip-flops, [`crate::head_queue::HEAD_REG`],
    /// or at its block RAM's output, [`crate::head_queue::HEAD_RAM`]; one timing contract).
    #[derive(LogicBlock, Default)]
    pub struct PieCore<const BM: u64, const HR: u64> {
        rst_i: Signal<Local, Bit>,
        /// The reset of regs, ctrl, ingress, egress, prng and the queue.
        resets: ResetFanout<6>,
        regs: PieRegs<BM>,
        ctrl: PieController,
        ingress: PieIngress<BM>,
        egress: PieEgress,
        queue: HeadQueue<74, QUEUE_ADDR_BITS, 11, HR>,
        prng: Prng<0>,
    }
}

core_logic! {
    impl<const BM: u64, const HR: u64> Logic for PieCore<BM, HR> {
        #[hdl_gen]
        fn update(&mut self) {
            clock!(self, clock, queue);
            self.queue.rst.next = self.resets.rst_o.val().get_bit(5);
            self.ctrl.now.next = self.now.val();
            self.ingress.now.next = self.now.val();
            self.egress.now.next = self.now.val();

            // Ingress.
            self.ingress.prob.next = self.ctrl.prob.val();
            self.ingress.prob_lt20.next = self.ctrl.prob_lt20.val();
            self.ingress.prob_le10.next = self.ctrl.prob_le10.val();
            self.ingress.ppb.next = self.ctrl.ppb.val();
            self.ingress.burst.next = self.egress.burst.val();
            self.ingress.qdelay.next = self.egress.qdelay.val();
            self.ingress.target_half.next = self.regs.target_half.val();
            self.ingress.ecn_en.next = self.regs.ecn.val();
            self.ingress.bytemode.next = self.regs.bytemode.val();
            self.ingress.mtu.next = self.regs.mtu.val();
            self.ingress.limit.next = self.regs.limit.val();
            self.ingress.count.next = self.queue.count.val();
            self.ingress.deq_valid.next = self.egress.deq_valid.val();
            self.ingress.deq_len.next = self.egress.deq_len.val();
            self.ingress.rnd.next = self.prng.word.val();
            self.ingress.acc_clear.next = self.ctrl.burst_reset.val();
            self.verdict_queue.next = false;

            // Queue and random generator.
            self.queue.push.next = self.ingress.push.val();
            self.queue.push_data.next = self.ingress.push_data.val();
            self.queue.pop.next = self.egress.pop.val();
            self.prng.take.next = self.ingress.rnd_take.val();

            // Egress.
            self.egress.head_valid.next = self.queue.head_valid.val();
            self.egress.head_data.next = self.queue.head_data.val();
            self.egress.count.next = self.queue.count.val();
            self.egress.link_bt.next = self.regs.link_bt.val();
            self.egress.max_burst.next = self.regs.max_burst.val();
            self.egress.burst_reset.next = self.ctrl.burst_reset.val();
            self.out_queue.next = false;
            self.out_drop.next = false;

            // Controller.
            self.ctrl.qdelay.next = self.egress.qdelay.val();
            self.ctrl.backlog.next = self.ingress.backlog.val();
            self.ctrl.target.next = self.regs.target_ticks.val();
            self.ctrl.target_half.next = self.regs.target_half.val();
            self.ctrl.alpha.next = self.regs.alpha.val();
            self.ctrl.beta.next = self.regs.beta.val();
            self.ctrl.tupdate.next = self.regs.tupdate_ns.val();
            self.ctrl.mtu.next = self.regs.mtu.val();
            self.ctrl.mtu_we.next = self.regs.mtu_we.val();

            // Registers.
            self.regs.pkts_in.next = self.ingress.pkts_in.val();
            self.regs.sent_pkts.next = self.egress.sent_pkts.val();
            self.regs.sent_bytes.next = self.egress.sent_bytes.val();
            self.regs.dropped.next = self.ingress.dropped.val();
            self.regs.overlimit.next = self.ingress.overlimit.val();
            self.regs.marked.next = self.ingress.marked.val();
            self.regs.backlog_bytes.next = self.ingress.backlog.val();
            self.regs.backlog_pkts.next = self.queue.count.val();
            self.regs.maxq.next = self.ingress.maxq.val();
            self.regs.qdelay.next = self.egress.qdelay.val();
            self.regs.acc.next = self.ingress.acc.val();
            self.regs.burst.next = self.egress.burst.val();

            // An entry on its way to the queue's head (queued, no head yet) is work in flight.
            self.idle.next = !self.ingress.busy.val()
                & !self.egress.busy.val()
                & !(self.queue.count.val().any() & !self.queue.head_valid.val())
                & !self.ctrl.busy.val()
                & !self.ctrl.pending.val()
                & !self.regs.soft_reset.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_synthesizable() {
        let mut b = PieCore::<PIE_FULL, { crate::head_queue::HEAD_REG }>::default();
        b.connect_all();
        yosys_validate("pie_core", &generate_verilog(&b)).unwrap();
    }
}
