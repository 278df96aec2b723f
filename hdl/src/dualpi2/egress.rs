//! DualPI2's dequeue side: the WRR scheduler, the per-packet decision at dequeue and the link model
//! (spec/dualpi2.md, "Per-packet decision at dequeue" and "Scheduler"; timing in hdl/DUALPI2-CORE.md).
//!
//! ```text
//! Idle    out_ready (a dequeue request), the link free, a packet at a head: pick the queue by credit,
//!         pop it, step the random generator, latch the departure time (kept through a chain of drops)
//!         and the sojourn
//! Decide  the 2*MTU gate, the three rolls (first <= p', second <= p', first <= k p'), the step
//!         threshold -> drop, mark or pass (computed with the gate open and shut, the gate choosing
//!         last); the egress register; w x len for the credit
//! Out     out_valid until out_ready; the counters take the registered decision at the first Out
//!         cycle's edge (so the decision drives a few flip-flops, not the enables of ten counters). A
//!         drop goes back to Idle to pick again at the same departure time; a sent packet moves the
//!         credit (if both queues were backlogged) and starts the link
//! ```
//! A request that finds both queues empty resets the credit. With `out_ready` held high and the link
//! model off, a packet leaves every 3 cycles.

use crate::arith::AddSub;
use crate::konst::K;
use crate::link::LinkModel;
use aqm_golden::dualpi2::params::HARDWARE_PARAMS;
use aqm_golden::dualpi2::scheduler::initial_credit;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum DeqState {
    Idle,
    Decide,
    Out,
}

#[derive(LogicBlock, Default)]
pub struct DualPi2Egress {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now40: Signal<In, Bits<40>>,
    // The queue heads: {step[1], ts[40], tag[16], ecn[2], len[16]}.
    pub hv_l: Signal<In, Bit>,
    pub head_l: Signal<In, Bits<75>>,
    pub hv_c: Signal<In, Bit>,
    pub head_c: Signal<In, Bits<75>>,
    pub pop_l: Signal<Out, Bit>,
    pub pop_c: Signal<Out, Bit>,
    pub pop_len: Signal<Out, Bits<16>>,
    pub bytes_l: Signal<In, Bits<22>>,
    pub bytes_c: Signal<In, Bits<22>>,
    // The random generator: a pick takes its next word, which is then its state while the packet is
    // decided.
    pub rnd_take: Signal<Out, Bit>,
    pub rnd_state: Signal<In, Bits<64>>,
    // The controller.
    pub prob: Signal<In, Bits<32>>,
    pub kp: Signal<In, Bits<40>>,
    pub overload: Signal<In, Bit>,
    // Parameters in effect.
    pub mtu: Signal<In, Bits<11>>,
    pub step_ns: Signal<In, Bits<30>>,
    pub drop_overload: Signal<In, Bit>,
    pub wc: Signal<In, Bits<7>>,
    pub init_credit: Signal<In, Bits<24>>,
    /// The parameter engine commits new weights: the credit restarts from `credit_load`.
    pub credit_commit: Signal<In, Bit>,
    pub credit_load: Signal<In, Bits<24>>,
    pub link_bt: Signal<In, Bits<24>>,
    pub clear_counters: Signal<In, Bit>,
    // Egress stream.
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_len: Signal<Out, Bits<16>>,
    pub out_ecn: Signal<Out, Bits<2>>,
    pub out_tag: Signal<Out, Bits<16>>,
    pub out_sojourn: Signal<Out, Bits<40>>,
    pub out_queue: Signal<Out, Bit>,
    pub out_drop: Signal<Out, Bit>,
    // State and counters.
    pub credit: Signal<Out, Bits<24>>, // signed
    pub sent_pkts_l: Signal<Out, Bits<32>>,
    pub sent_pkts_c: Signal<Out, Bits<32>>,
    pub sent_bytes_l: Signal<Out, Bits<40>>,
    pub sent_bytes_c: Signal<Out, Bits<40>>,
    pub dropped_l: Signal<Out, Bits<32>>,
    pub dropped_c: Signal<Out, Bits<32>>,
    pub marked_l: Signal<Out, Bits<32>>,
    pub marked_c: Signal<Out, Bits<32>>,
    pub step_marks: Signal<Out, Bits<32>>,
    pub overloads: Signal<Out, Bits<32>>,
    pub link_free: Signal<Out, Bits<40>>,
    pub link_busy: Signal<Out, Bit>,
    /// The FSM is working or about to start, or the link model computes a transmission.
    pub busy: Signal<Out, Bit>,

    link: LinkModel,
    /// L + C - 2 MTU, whose sign is the 2 MTU gate: one carry chain (the backlogs are below 2^22, so the
    /// 24-bit result keeps its sign).
    gate: AddSub<24>,
    state: DFF<DeqState>,
    chain: DFF<Bit>,
    d_desc: DFF<Bits<75>>,
    d_l: DFF<Bit>,
    d_both: DFF<Bit>,
    d_dep: DFF<Bits<40>>,
    /// The picked packet's sojourn, (departure time - ts) mod 2^40, computed at the pick.
    soj_r: DFF<Bits<40>>,
    d_frac: DFF<Bits<8>>,
    o_mark: DFF<Bit>,
    o_drop: DFF<Bit>,
    /// The decision's step mark and overload flag, for the counters.
    o_step: DFF<Bit>,
    o_ovl: DFF<Bit>,
    /// The first Out cycle: the counters take the decision, from these registers, at its edge.
    count: DFF<Bit>,
    wprod: DFF<Bits<24>>,
    credit_r: DFF<Bits<24>>,
    sent_pkts_l_r: DFF<Bits<32>>,
    sent_pkts_c_r: DFF<Bits<32>>,
    sent_bytes_l_r: DFF<Bits<40>>,
    sent_bytes_c_r: DFF<Bits<40>>,
    dropped_l_r: DFF<Bits<32>>,
    dropped_c_r: DFF<Bits<32>>,
    marked_l_r: DFF<Bits<32>>,
    marked_c_r: DFF<Bits<32>>,
    step_marks_r: DFF<Bits<32>>,
    overloads_r: DFF<Bits<32>>,
    // Combinational helpers.
    go: Signal<Local, Bit>,
    pick_l: Signal<Local, Bit>,
    head: Signal<Local, Bits<75>>,
    len: Signal<Local, Bits<16>>,
    ecn: Signal<Local, Bits<2>>,
    ect: Signal<Local, Bit>,
    dep: Signal<Local, Bits<40>>,
    gated: Signal<Local, Bit>,
    ovl: Signal<Local, Bit>,
    first: Signal<Local, Bits<32>>,
    second: Signal<Local, Bits<32>>,
    squared: Signal<Local, Bit>,
    coupled: Signal<Local, Bit>,
    c_drop: Signal<Local, Bit>,
    c_mark: Signal<Local, Bit>,
    step_hit: Signal<Local, Bit>,
    step: Signal<Local, Bit>,
    step_mark: Signal<Local, Bit>,
    drop: Signal<Local, Bit>,
    mark: Signal<Local, Bit>,
    w: Signal<Local, Bits<7>>,
    len24: Signal<Local, Bits<24>>,
    pp0: Signal<Local, Bits<24>>,
    pp1: Signal<Local, Bits<24>>,
    pp2: Signal<Local, Bits<24>>,
    pp3: Signal<Local, Bits<24>>,
    pp4: Signal<Local, Bits<24>>,
    pp5: Signal<Local, Bits<24>>,
    pp6: Signal<Local, Bits<24>>,
    c_hundred: K<7, 100>,
    c_reset_credit: K<24, { (initial_credit(&HARDWARE_PARAMS) as u64) & ((1 << 24) - 1) }>,
}

impl Logic for DualPi2Egress {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            chain,
            d_desc,
            d_l,
            d_both,
            d_dep,
            soj_r,
            d_frac,
            o_mark,
            o_drop,
            o_step,
            o_ovl,
            count,
            wprod,
            credit_r,
            sent_pkts_l_r,
            sent_pkts_c_r,
            sent_bytes_l_r,
            sent_bytes_c_r,
            dropped_l_r,
            dropped_c_r,
            marked_l_r,
            marked_c_r,
            step_marks_r,
            overloads_r
        );
        clock!(self, clock, link);
        self.link.rst.next = self.rst.val();
        self.link.now40.next = self.now40.val();
        self.link.link_bt.next = self.link_bt.val();
        self.link.start.next = false;
        self.link.start_len.next = self.d_desc.q.val().get_bits::<16>(0);
        self.link.start_dep.next = self.d_dep.q.val();
        self.link.start_frac.next = self.d_frac.q.val();

        // Idle: pick. L while the credit is <= 0 (or C is empty).
        self.go.next = (self.state.q.val() == DeqState::Idle)
            & self.out_ready.val()
            & self.link.idle.val()
            & (self.hv_l.val() | self.hv_c.val());
        self.pick_l.next = self.hv_l.val()
            & (!self.hv_c.val() | self.credit_r.q.val().get_bit(23) | !self.credit_r.q.val().any());
        self.head.next = self.head_c.val();
        if self.pick_l.val() {
            self.head.next = self.head_l.val();
        }
        self.pop_l.next = self.go.val() & self.pick_l.val();
        self.pop_c.next = self.go.val() & !self.pick_l.val();
        self.pop_len.next = self.head.val().get_bits::<16>(0);
        // The departure time of the pick: kept through a chain of drops, else the link model's.
        self.dep.next = self.link.dep.val();
        if self.chain.q.val() {
            self.dep.next = self.d_dep.q.val();
        }
        self.rnd_take.next = self.go.val();

        // Decide, from the registers of the pick.
        self.len.next = self.d_desc.q.val().get_bits::<16>(0);
        self.ecn.next = self.d_desc.q.val().get_bits::<2>(16);
        self.ect.next = self.ecn.val().any();
        self.gate.a.next = bit_cast::<24, 22>(self.bytes_l.val());
        self.gate.b.next = bit_cast::<24, 22>(self.bytes_c.val());
        self.gate.c.next = bit_cast::<24, 11>(self.mtu.val()) << 1;
        self.gated.next = self.gate.sum.val().get_bit(23);
        self.first.next = self.rnd_state.val().get_bits::<32>(0);
        self.second.next = self.rnd_state.val().get_bits::<32>(32);
        self.squared.next =
            (self.first.val() <= self.prob.val()) & (self.second.val() <= self.prob.val());
        self.coupled.next = bit_cast::<40, 32>(self.first.val()) <= self.kp.val();
        // The decision with the 2 MTU gate open (the coupled part and then the step threshold) and
        // with it shut (the step threshold alone), from registers only; the gate, a carry chain from
        // the backlogs, chooses last.
        self.c_drop.next = false;
        self.c_mark.next = false;
        if !self.d_l.q.val() {
            // Classic: p'^2; a drop if Not-ECT or in overload.
            if self.squared.val() {
                self.c_drop.next = self.overload.val() | !self.ect.val();
                self.c_mark.next = !self.overload.val() & self.ect.val();
            }
        } else if self.overload.val() {
            // L in overload: drop with p'^2 when drop_overload, else mark.
            self.c_drop.next = self.drop_overload.val() & self.squared.val();
            self.c_mark.next = !(self.drop_overload.val() & self.squared.val());
        } else if self.coupled.val() {
            // L: k p'; a drop only for a Not-ECT packet.
            self.c_drop.next = !self.ect.val();
            self.c_mark.next = self.ect.val();
        }
        // The L queue's step threshold, for L packets the coupled part left alone.
        self.step_hit.next = self.d_l.q.val()
            & self.d_desc.q.val().get_bit(74)
            & (self.soj_r.q.val() > bit_cast::<40, 30>(self.step_ns.val()));
        self.step.next = self.step_hit.val() & !self.c_drop.val() & !self.c_mark.val();
        self.drop.next = self.c_drop.val() | (self.step.val() & !self.ect.val());
        self.mark.next = self.c_mark.val() | (self.step.val() & self.ect.val());
        self.step_mark.next = self.step.val() & self.ect.val();
        self.ovl.next = self.overload.val();
        if self.gated.val() {
            self.drop.next = self.step_hit.val() & !self.ect.val();
            self.mark.next = self.step_hit.val() & self.ect.val();
            self.step_mark.next = self.step_hit.val() & self.ect.val();
            self.ovl.next = false;
        }

        // w x len for the credit: wc for L, wl = 100 - wc for C (7 x 16 bits, a tree of adders).
        self.w.next = self.c_hundred.val() - self.wc.val();
        if self.d_l.q.val() {
            self.w.next = self.wc.val();
        }
        self.len24.next = bit_cast::<24, 16>(self.len.val());
        self.pp0.next = 0.into();
        self.pp1.next = 0.into();
        self.pp2.next = 0.into();
        self.pp3.next = 0.into();
        self.pp4.next = 0.into();
        self.pp5.next = 0.into();
        self.pp6.next = 0.into();
        if self.w.val().get_bit(0) {
            self.pp0.next = self.len24.val();
        }
        if self.w.val().get_bit(1) {
            self.pp1.next = self.len24.val() << 1;
        }
        if self.w.val().get_bit(2) {
            self.pp2.next = self.len24.val() << 2;
        }
        if self.w.val().get_bit(3) {
            self.pp3.next = self.len24.val() << 3;
        }
        if self.w.val().get_bit(4) {
            self.pp4.next = self.len24.val() << 4;
        }
        if self.w.val().get_bit(5) {
            self.pp5.next = self.len24.val() << 5;
        }
        if self.w.val().get_bit(6) {
            self.pp6.next = self.len24.val() << 6;
        }

        match self.state.q.val() {
            DeqState::Idle => {
                if self.go.val() {
                    self.state.d.next = DeqState::Decide;
                    self.d_desc.d.next = self.head.val();
                    self.d_l.d.next = self.pick_l.val();
                    self.d_both.d.next = self.hv_l.val() & self.hv_c.val();
                    self.d_dep.d.next = self.dep.val();
                    self.soj_r.d.next = self.dep.val() - self.head.val().get_bits::<40>(34);
                    if !self.chain.q.val() {
                        self.d_frac.d.next = self.link.dep_frac.val();
                    }
                } else {
                    self.chain.d.next = false;
                    if self.out_ready.val()
                        & self.link.idle.val()
                        & !self.hv_l.val()
                        & !self.hv_c.val()
                    {
                        self.credit_r.d.next = self.init_credit.val();
                    }
                }
            }
            DeqState::Decide => {
                self.state.d.next = DeqState::Out;
                self.o_mark.d.next = self.mark.val();
                self.o_drop.d.next = self.drop.val();
                self.wprod.d.next = ((self.pp0.val() + self.pp1.val())
                    + (self.pp2.val() + self.pp3.val()))
                    + ((self.pp4.val() + self.pp5.val()) + self.pp6.val());
                self.o_step.d.next = self.step_mark.val();
                self.o_ovl.d.next = self.ovl.val();
            }
            DeqState::Out => {
                if self.out_ready.val() {
                    self.state.d.next = DeqState::Idle;
                    self.chain.d.next = self.o_drop.q.val();
                    if !self.o_drop.q.val() {
                        self.link.start.next = true;
                        if self.d_both.q.val() {
                            if self.d_l.q.val() {
                                self.credit_r.d.next = self.credit_r.q.val() + self.wprod.q.val();
                            } else {
                                self.credit_r.d.next = self.credit_r.q.val() - self.wprod.q.val();
                            }
                        }
                    }
                }
            }
            _ => {
                self.state.d.next = DeqState::Idle;
            }
        }

        // The counters, at the edge of the first Out cycle, from the registered decision.
        self.count.d.next = self.state.q.val() == DeqState::Decide;
        if self.count.q.val() {
            if self.o_ovl.q.val() {
                self.overloads_r.d.next = self.overloads_r.q.val() + 1;
            }
            if self.o_drop.q.val() {
                if self.d_l.q.val() {
                    self.dropped_l_r.d.next = self.dropped_l_r.q.val() + 1;
                } else {
                    self.dropped_c_r.d.next = self.dropped_c_r.q.val() + 1;
                }
            } else if self.d_l.q.val() {
                self.sent_pkts_l_r.d.next = self.sent_pkts_l_r.q.val() + 1;
                self.sent_bytes_l_r.d.next =
                    self.sent_bytes_l_r.q.val() + bit_cast::<40, 16>(self.len.val());
            } else {
                self.sent_pkts_c_r.d.next = self.sent_pkts_c_r.q.val() + 1;
                self.sent_bytes_c_r.d.next =
                    self.sent_bytes_c_r.q.val() + bit_cast::<40, 16>(self.len.val());
            }
            if self.o_mark.q.val() {
                if self.d_l.q.val() {
                    self.marked_l_r.d.next = self.marked_l_r.q.val() + 1;
                } else {
                    self.marked_c_r.d.next = self.marked_c_r.q.val() + 1;
                }
            }
            if self.o_step.q.val() {
                self.step_marks_r.d.next = self.step_marks_r.q.val() + 1;
            }
        }

        self.out_valid.next = self.state.q.val() == DeqState::Out;
        self.out_len.next = 0.into();
        self.out_ecn.next = 0.into();
        self.out_tag.next = 0.into();
        self.out_sojourn.next = 0.into();
        self.out_queue.next = false;
        self.out_drop.next = false;
        // In Out the packet's fields are still those latched at its pick.
        if self.state.q.val() == DeqState::Out {
            self.out_len.next = self.len.val();
            self.out_ecn.next = self.ecn.val();
            if self.o_mark.q.val() {
                self.out_ecn.next = 3.into();
            }
            self.out_tag.next = self.d_desc.q.val().get_bits::<16>(18);
            self.out_sojourn.next = self.soj_r.q.val();
            self.out_queue.next = self.d_l.q.val();
            self.out_drop.next = self.o_drop.q.val();
        }
        self.credit.next = self.credit_r.q.val();
        self.sent_pkts_l.next = self.sent_pkts_l_r.q.val();
        self.sent_pkts_c.next = self.sent_pkts_c_r.q.val();
        self.sent_bytes_l.next = self.sent_bytes_l_r.q.val();
        self.sent_bytes_c.next = self.sent_bytes_c_r.q.val();
        self.dropped_l.next = self.dropped_l_r.q.val();
        self.dropped_c.next = self.dropped_c_r.q.val();
        self.marked_l.next = self.marked_l_r.q.val();
        self.marked_c.next = self.marked_c_r.q.val();
        self.step_marks.next = self.step_marks_r.q.val();
        self.overloads.next = self.overloads_r.q.val();
        self.link_free.next = self.link.link_free.val();
        self.link_busy.next = self.link.link_busy.val();
        self.busy.next =
            (self.state.q.val() != DeqState::Idle) | self.go.val() | self.link.in_tx.val();

        if self.credit_commit.val() {
            self.credit_r.d.next = self.credit_load.val();
        }
        if self.clear_counters.val() | self.rst.val() {
            self.sent_pkts_l_r.d.next = 0.into();
            self.sent_pkts_c_r.d.next = 0.into();
            self.sent_bytes_l_r.d.next = 0.into();
            self.sent_bytes_c_r.d.next = 0.into();
            self.dropped_l_r.d.next = 0.into();
            self.dropped_c_r.d.next = 0.into();
            self.marked_l_r.d.next = 0.into();
            self.marked_c_r.d.next = 0.into();
            self.step_marks_r.d.next = 0.into();
            self.overloads_r.d.next = 0.into();
        }
        if self.rst.val() {
            self.state.d.next = DeqState::Idle;
            self.chain.d.next = false;
            self.count.d.next = false;
            self.credit_r.d.next = self.c_reset_credit.val();
        }
    }
}
