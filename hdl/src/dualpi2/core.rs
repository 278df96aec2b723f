//! The DualPI2 core: the PIE core's ports, two queues, decisions at dequeue (hdl/DUALPI2-CORE.md).
//!
//! ```text
//!             +-----------+  push L  +-----------+ head L +-----------+
//!  in_* ----->|  ingress  |--------->| L queue   |------->|  egress   |-----> out_* (sent or dropped)
//!  (1/clock)  | classify, |  push C  +-----------+        | WRR pick, |
//!  verdict <--| limits    |--------->| C queue   |------->| decide,   |<---- rnd (prng)
//!             +-----------+          +-----------+ head C | link model|
//!                                          | heads        +-----------+
//!                                          v                 ^ p', k p', overload
//!                                    +------------+          |
//!                                    | controller |----------'   every tupdate, Horner shift-add
//!                                    +------------+
//!  reg_* <--> register file <--> parameter engine (tc units -> internal units, serial)
//! ```
//! Every accepted descriptor gets one verdict two cycles later (enqueued or tail-dropped), and every
//! enqueued one leaves exactly once on the egress stream, sent (possibly CE-marked) or dropped by the AQM
//! (`out_drop`).

use super::controller::DualPi2Controller;
use super::egress::DualPi2Egress;
use super::ingress::DualPi2Ingress;
use super::params::DualPi2Params;
use super::regs::DualPi2Regs;
use crate::core_ports::{aqm_core, core_logic};
use crate::head_queue::LookQueue;
use crate::prng::Prng;
use crate::reset::ResetFanout;
use rust_hdl::prelude::*;

/// Each queue holds `2^QUEUE_ADDR_BITS` descriptors (`HW_QUEUE_CAPACITY`).
pub const QUEUE_ADDR_BITS: usize = 9;

aqm_core! {
    /// `HR`: where the queues keep their heads ([`crate::head_queue`]: in flip-flops,
    /// [`crate::head_queue::HEAD_REG`], or at their block RAMs' outputs,
    /// [`crate::head_queue::HEAD_RAM`]; one timing contract, a lag of 4). With the heads in
    /// flip-flops (the fast form) each queue also keeps the entry after its head in a register, the
    /// egress keeps each head's weighted length for the credit in a register made from it a cycle
    /// ahead and compares L's sojourn at both departure times, and the generator keeps its next word
    /// in a register: the same decisions.
    #[derive(LogicBlock, Default)]
    pub struct DualPi2Core<const HR: u64> {
        rst_i: Signal<Local, Bit>,
        /// The reset of regs, ctrl, ingress, egress, prng, params, queue_l and queue_c.
        resets: ResetFanout<8>,
        now40: Signal<Local, Bits<40>>,
        regs: DualPi2Regs,
        params: DualPi2Params,
        ctrl: DualPi2Controller,
        ingress: DualPi2Ingress<HR>,
        egress: DualPi2Egress<HR>,
        queue_l: LookQueue<75, QUEUE_ADDR_BITS, 10, HR>,
        queue_c: LookQueue<75, QUEUE_ADDR_BITS, 10, HR>,
        prng: Prng<HR>,
    }
}

core_logic! {
    impl<const HR: u64> Logic for DualPi2Core<HR> {
        #[hdl_gen]
        fn update(&mut self) {
            clock!(self, clock, params, queue_l, queue_c);
            self.now40.next = self.now.val().get_bits::<40>(0);
            self.params.rst.next = self.resets.rst_o.val().get_bit(5);
            self.queue_l.rst.next = self.resets.rst_o.val().get_bit(6);
            self.queue_c.rst.next = self.resets.rst_o.val().get_bit(7);
            self.regs.now40.next = self.now40.val();
            self.ctrl.now40.next = self.now40.val();
            self.ingress.now40.next = self.now40.val();
            self.egress.now40.next = self.now40.val();

            // Ingress.
            self.ingress.ecn_mask.next = self.params.ecn_mask.val();
            self.ingress.limit.next = self.params.limit.val();
            self.ingress.byte_limit_next.next = self.params.byte_limit_next.val();
            self.ingress.min_qlen_step.next = self.params.min_qlen_step.val();
            self.ingress.mtu_next.next = self.params.mtu_next.val();
            self.ingress.cnt_l.next = self.queue_l.count.val();
            self.ingress.cnt_c.next = self.queue_c.count.val();
            self.ingress.pop_l.next = self.egress.pop_l.val();
            self.ingress.pop_c.next = self.egress.pop_c.val();
            self.ingress.pop_len.next = self.egress.pop_len.val();
            self.verdict_queue.next = self.ingress.verdict_queue.val();

            // Queues and random generator.
            self.queue_l.push.next = self.ingress.push_l.val();
            self.queue_c.push.next = self.ingress.push_c.val();
            self.queue_l.push_data.next = self.ingress.push_data.val();
            self.queue_c.push_data.next = self.ingress.push_data.val();
            self.queue_l.pop.next = self.egress.pop_l.val();
            self.queue_c.pop.next = self.egress.pop_c.val();
            self.prng.take.next = self.egress.rnd_take.val();

            // Egress.
            self.egress.hv_l.next = self.queue_l.head_valid.val();
            self.egress.head_l.next = self.queue_l.head_data.val();
            self.egress.hv_c.next = self.queue_c.head_valid.val();
            self.egress.head_c.next = self.queue_c.head_data.val();
            self.egress.gap.next = self.ingress.gap.val();
            self.egress.rnd_word.next = self.prng.word.val();
            self.egress.prob.next = self.ctrl.prob.val();
            self.egress.kp.next = self.ctrl.kp.val();
            self.egress.overload.next = self.ctrl.overload.val();
            self.egress.step_ns.next = self.params.step_ns.val();
            self.egress.drop_overload.next = self.params.drop_overload.val();
            self.egress.wc.next = self.params.wc.val();
            self.egress.wl.next = self.params.wl.val();
            self.egress.wc_next.next = self.params.wc_next.val();
            self.egress.wl_next.next = self.params.wl_next.val();
            self.egress.next_len_l.next = self.queue_l.next_data.val().get_bits::<16>(0);
            self.egress.adv_l.next = self.queue_l.advance.val();
            self.egress.next_len_c.next = self.queue_c.next_data.val().get_bits::<16>(0);
            self.egress.adv_c.next = self.queue_c.advance.val();
            self.egress.init_credit.next = self.params.init_credit.val();
            self.egress.credit_commit.next = self.params.credit_commit.val();
            self.egress.credit_load.next = self.params.commit_credit.val();
            self.egress.link_bt.next = self.params.link_bt.val();
            self.out_queue.next = self.egress.out_queue.val();
            self.out_drop.next = self.egress.out_drop.val();

            // Controller.
            self.ctrl.hv_l.next = self.queue_l.head_valid.val();
            self.ctrl.ts_l.next = self.queue_l.head_data.val().get_bits::<40>(34);
            self.ctrl.hv_c.next = self.queue_c.head_valid.val();
            self.ctrl.ts_c.next = self.queue_c.head_data.val().get_bits::<40>(34);
            self.ctrl.target_ns.next = self.params.target_ns.val();
            self.ctrl.tupdate_ns.next = self.params.tupdate_ns.val();
            self.ctrl.alpha_i.next = self.params.alpha_i.val();
            self.ctrl.beta_i.next = self.params.beta_i.val();
            self.ctrl.drop_overload.next = self.params.drop_overload.val();
            self.ctrl.k.next = self.params.k.val();
            self.ctrl.cap.next = self.params.cap.val();
            self.ctrl.k_commit.next = self.params.k_commit.val();
            self.ctrl.tupdate_commit.next = self.params.tupdate_commit.val();
            self.ctrl.commit_ns.next = self.params.commit_ns.val();
            self.ctrl.clear_counters.next = self.regs.clear_counters.val();

            // Parameters and registers.
            self.params.start.next = self.regs.param_start.val();
            self.params.addr.next = self.regs.param_addr.val();
            self.params.data.next = self.regs.param_data.val();
            self.regs.param_busy.next = self.params.busy.val();
            self.regs.param_commit.next = self.params.commit_sel.val();
            self.regs.pkts_in_l.next = self.ingress.pkts_in_l.val();
            self.regs.pkts_in_c.next = self.ingress.pkts_in_c.val();
            self.regs.sent_pkts_l.next = self.egress.sent_pkts_l.val();
            self.regs.sent_pkts_c.next = self.egress.sent_pkts_c.val();
            self.regs.sent_bytes_l.next = self.egress.sent_bytes_l.val();
            self.regs.sent_bytes_c.next = self.egress.sent_bytes_c.val();
            self.regs.dropped_enq_l.next = self.ingress.dropped_l.val();
            self.regs.dropped_enq_c.next = self.ingress.dropped_c.val();
            self.regs.dropped_aqm_l.next = self.egress.dropped_l.val();
            self.regs.dropped_aqm_c.next = self.egress.dropped_c.val();
            self.regs.marked_l.next = self.egress.marked_l.val();
            self.regs.marked_c.next = self.egress.marked_c.val();
            self.regs.step_marks.next = self.egress.step_marks.val();
            self.regs.overloads.next = self.egress.overloads.val();
            self.regs.bytes_l.next = self.ingress.bytes_l.val();
            self.regs.bytes_c.next = self.ingress.bytes_c.val();
            self.regs.cnt_l.next = self.queue_l.count.val();
            self.regs.cnt_c.next = self.queue_c.count.val();
            self.regs.maxq.next = self.ingress.maxq.val();
            self.regs.hv_l.next = self.queue_l.head_valid.val();
            self.regs.ts_l.next = self.queue_l.head_data.val().get_bits::<40>(34);
            self.regs.hv_c.next = self.queue_c.head_valid.val();
            self.regs.ts_c.next = self.queue_c.head_data.val().get_bits::<40>(34);
            self.regs.last_qdelay.next = self.ctrl.last_qdelay.val();
            self.regs.credit.next = self.egress.credit.val();
            self.regs.updates.next = self.ctrl.updates.val();

            self.idle.next = !self.rst_i.val()
                & !self.ingress.busy.val()
                & !self.egress.busy.val()
                & !self.ctrl.busy.val()
                & !self.ctrl.pending.val()
                & !self.regs.prob_we.val()
                & !self.params.busy.val()
                & !self.regs.busy.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_synthesizable() {
        let mut b = DualPi2Core::<{ crate::head_queue::HEAD_REG }>::default();
        b.connect_all();
        yosys_validate("dualpi2_core", &generate_verilog(&b)).unwrap();
    }
}

#[cfg(test)]
mod area {
    use super::*;
    #[test]
    #[ignore]
    fn dump_blocks() {
        fn w<B: Block>(name: &str, mut b: B) {
            b.connect_all();
            std::fs::write(format!("/tmp/blk_{name}.v"), generate_verilog(&b)).unwrap();
        }
        w("ctrl", DualPi2Controller::default());
        w("egress", DualPi2Egress::<1>::default());
        w("ingress", DualPi2Ingress::<1>::default());
        w("params", DualPi2Params::default());
        w("regs", DualPi2Regs::default());
        w("link", crate::link::LinkModel::default());
        w("prng", Prng::<0>::default());
        w("pie_ctrl", crate::pie::controller::PieController::default());
    }
}
