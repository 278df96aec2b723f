//! DualPI2's dequeue side: the WRR scheduler, the per-packet decision at dequeue and the link model
//! (spec/dualpi2.md, "Per-packet decision at dequeue" and "Scheduler"; timing in hdl/DUALPI2-CORE.md).
//!
//! The egress shows ahead: in every cycle in which the link model is Idle and a queue has a head,
//! `out_valid` is high and the stream carries the packet that a dequeue in this cycle gets, decided
//! from this cycle's state: the queue the credit picks, its head, the departure time (kept through a
//! chain of drops), the sojourn, the 2*MTU gate (the backlog without the head), the three rolls of the
//! generator's next word (first <= p', second <= p', first <= k p') and the step threshold. `out_ready`
//! is the request and the handshake at once: at the edge it pops the queue, steps the generator, moves
//! the credit (a sent packet while both queues were backlogged), records the departure time in the link
//! model and starts it (a sent packet), and registers the decision for the counters, which count it at
//! the next edge (so the decision drives a few flip-flops, not the enables of ten counters). With
//! `out_ready` held high and the link model off, a packet leaves every cycle.
//!
//! For the clock, each queue's packet is decided from its own head before the pick, and the pick (the
//! credit's sign) chooses among the two decisions last: L's step threshold (its sojourn's comparison in
//! chains of at most 32 bits side by side, [`AgeAbove`]) and each queue's 2 MTU gate are off the path from the
//! credit to the credit. The gate is one 17-bit chain: the ingress keeps the backlog's gap to 2 MTU,
//! L + C - 2 MTU, in a register computed a cycle ahead, so that only the head's length is subtracted
//! here. In the small form only the credit's own w x len (7 x 16 bits) follows the pick, and the
//! credit is a leaf of its adder tree (for a C packet inverted, and the sum inverted), so the loop
//! from the credit to the credit holds three adders, not a product's three and then the add. In the
//! fast form each head's w x len waits in a register, made a cycle ahead from the queue's next entry
//! (`LookQueue`), so the loop holds one adder.
//!
//! The drop decides last, so it drives single flip-flops only: the credit after a dequeue with both
//! queues backlogged goes into `cand` whatever the decision, and `pend` (the packet was sent) chooses
//! between `cand` and the credit before (`base`) in the next cycle; the link model records every
//! dequeue's departure time and only its state takes `send` (after a drop its next cycle is exact: it
//! gives the drop's departure time, the chain of drops, with no register and mux of the egress's own
//! in front of the step threshold's chains). (Without these, the drop drove the
//! enables of the credit's 24 and `link_free`'s 48 flip-flops, the DualPI2 card's longest path.) The
//! registers hold the credit less one, so that the pick's credit <= 0 is a sign bit, not a 24-bit OR:
//! the loads take one off and the `credit` port adds it back, both off the loop.

use crate::arith::{AgeAbove, Csa, WeightedAdd, WeightedCs};
use crate::konst::K;
use crate::link::LinkModel;
use aqm_golden::dualpi2::params::HARDWARE_PARAMS;
use aqm_golden::dualpi2::scheduler::initial_credit;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct DualPi2Egress<const TWO: u64> {
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
    /// L + C - 2 MTU, bytes, 24-bit two's complement (the ingress's register).
    pub gap: Signal<In, Bits<24>>,
    /// The random generator: the shown packet is decided with its next word, which a dequeue takes.
    pub rnd_take: Signal<Out, Bit>,
    pub rnd_word: Signal<In, Bits<64>>,
    // The controller.
    pub prob: Signal<In, Bits<32>>,
    pub kp: Signal<In, Bits<40>>,
    pub overload: Signal<In, Bit>,
    // Parameters in effect.
    pub step_ns: Signal<In, Bits<30>>,
    pub drop_overload: Signal<In, Bit>,
    pub wc: Signal<In, Bits<7>>,
    pub wl: Signal<In, Bits<7>>,
    /// The weights after this edge, and each queue's next entry's length with "the head takes it at
    /// this edge" (`LookQueue`'s `next_data` and `advance`): the fast form keeps each head's
    /// weighted length in a register made a cycle ahead.
    pub wc_next: Signal<In, Bits<7>>,
    pub wl_next: Signal<In, Bits<7>>,
    pub next_len_l: Signal<In, Bits<16>>,
    pub adv_l: Signal<In, Bit>,
    pub next_len_c: Signal<In, Bits<16>>,
    pub adv_c: Signal<In, Bit>,
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
    /// A dequeue this cycle, a decision not yet counted, or the link model computing a transmission.
    pub busy: Signal<Out, Bit>,

    link: LinkModel,
    /// L's sojourn above its step threshold.
    age_l: AgeAbove,
    /// With two trees (`TWO` = 1) also L's sojourn at `now40` in `age_now`, beside `age_l`'s at
    /// `link_free`; the link model's `exact` chooses between them after the chains.
    age_now: AgeAbove,
    above_l: Signal<Local, Bit>,
    /// Each queue's 2 MTU gate on the backlog without its head, gap - len < 0: shut when the gap is
    /// negative, open when it is 2^16 or more, else the low 16 bits against the length (one 17-bit
    /// chain, whose sign is `lo_l[16]`).
    lo_l: Signal<Local, Bits<17>>,
    lo_c: Signal<Local, Bits<17>>,
    /// 0 <= gap < 2^16.
    gap_mid: Signal<Local, Bit>,
    shut_l: Signal<Local, Bit>,
    shut_c: Signal<Local, Bit>,
    /// The dequeued packet's decision, for the counters at the next edge.
    count: DFF<Bit>,
    o_l: DFF<Bit>,
    o_len: DFF<Bits<16>>,
    o_mark: DFF<Bit>,
    o_drop: DFF<Bit>,
    o_step: DFF<Bit>,
    o_ovl: DFF<Bit>,
    /// The credit less one is `cr`: `cand` if `pend`, else `base`. A dequeue with both queues
    /// backlogged loads `cand` with the credit (less one) after it, sent or dropped; `pend` records
    /// that it was sent, so the drop drives one flip-flop and not the credit's enable. `base` takes `cr`
    /// in every cycle. Less one, so that the pick's credit <= 0 is `cr`'s sign: no 24-bit OR on the
    /// loop. (The credit stays within +-100 x 65535, far inside 24 bits, so `cr` never wraps.)
    cand: DFF<Bits<24>>,
    base: DFF<Bits<24>>,
    pend: DFF<Bit>,
    cr: Signal<Local, Bits<24>>,
    /// The credit's loads (a commit's, else the initial credit), and less one.
    load: Signal<Local, Bits<24>>,
    load_m1: Signal<Local, Bits<24>>,
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
    // Combinational helpers: each queue's packet as a dequeue now would take it, then the pick's.
    avail: Signal<Local, Bit>,
    deq: Signal<Local, Bit>,
    pick_l: Signal<Local, Bit>,
    dep: Signal<Local, Bits<40>>,
    frac: Signal<Local, Bits<8>>,
    first: Signal<Local, Bits<32>>,
    second: Signal<Local, Bits<32>>,
    squared: Signal<Local, Bit>,
    coupled: Signal<Local, Bit>,
    ect_l: Signal<Local, Bit>,
    ect_c: Signal<Local, Bit>,
    c_drop_l: Signal<Local, Bit>,
    c_mark_l: Signal<Local, Bit>,
    step_hit_l: Signal<Local, Bit>,
    step_l: Signal<Local, Bit>,
    drop_l: Signal<Local, Bit>,
    mark_l: Signal<Local, Bit>,
    step_mark_l: Signal<Local, Bit>,
    ovl_l: Signal<Local, Bit>,
    drop_c: Signal<Local, Bit>,
    mark_c: Signal<Local, Bit>,
    ovl_c: Signal<Local, Bit>,
    head: Signal<Local, Bits<75>>,
    len: Signal<Local, Bits<16>>,
    soj: Signal<Local, Bits<40>>,
    drop: Signal<Local, Bit>,
    mark: Signal<Local, Bit>,
    step_mark: Signal<Local, Bit>,
    ovl: Signal<Local, Bit>,
    w: Signal<Local, Bits<7>>,
    /// A C packet takes its change off the credit as ~(~credit + w x len): `inv` is all ones then.
    inv: Signal<Local, Bits<24>>,
    /// The credit after the shown packet (less one, as `cr`). One tree (`TWO` = 0): the picked
    /// queue's w x len on the credit (inverted for C) in `wa_l`. The fast form (`TWO` = 1): each
    /// queue's candidate beside the pick, `cr + wlen_l` and `cr - wlen_c`, the pick choosing last.
    next_cr: Signal<Local, Bits<24>>,
    wa_l: WeightedAdd,
    /// The fast form: each head's weighted length (wc x len for L, wl x len for C) in carry-save
    /// form in a pair of registers (`*_s` + `*_k`), made a cycle ahead from the weights after the
    /// edge and the entry the head has after the edge: the next entry's (`wn_*`) if the head takes
    /// it, else the head's own (`wh_*`, for a weight commit). The credit's loop then holds one
    /// carry-save level, one adder (`cs_*`: cr + wlen for L, ~(~cr + wlen) for C) and the pick.
    wlen_l_s: DFF<Bits<24>>,
    wlen_l_k: DFF<Bits<24>>,
    wlen_c_s: DFF<Bits<24>>,
    wlen_c_k: DFF<Bits<24>>,
    wh_l: WeightedCs,
    wn_l: WeightedCs,
    wh_c: WeightedCs,
    wn_c: WeightedCs,
    cs_l: Csa<24>,
    cs_c: Csa<24>,
    /// The fast form (the core's heads in flip-flops): the heads' weighted lengths made a cycle
    /// ahead, and L's step threshold at both departure times. Either form computes the same
    /// decisions.
    two: K<1, TWO>,
    c_reset_credit_m1: K<24, { ((initial_credit(&HARDWARE_PARAMS) - 1) as u64) & ((1 << 24) - 1) }>,
}

impl<const TWO: u64> Logic for DualPi2Egress<TWO> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            count,
            o_l,
            o_len,
            o_mark,
            o_drop,
            o_step,
            o_ovl,
            cand,
            base,
            pend,
            wlen_l_s,
            wlen_l_k,
            wlen_c_s,
            wlen_c_k,
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

        // What both queues' packets share: the departure time (the link model's, which after a drop
        // is the drop's: a chain of drops) and the rolls.
        self.cr.next = self.base.q.val();
        if self.pend.q.val() {
            self.cr.next = self.cand.q.val();
        }
        self.base.d.next = self.cr.val();
        self.pend.d.next = false;
        self.avail.next = self.link.idle.val() & (self.hv_l.val() | self.hv_c.val());
        self.deq.next = self.avail.val() & self.out_ready.val();
        self.dep.next = self.link.dep.val();
        self.frac.next = self.link.dep_frac.val();
        self.first.next = self.rnd_word.val().get_bits::<32>(0);
        self.second.next = self.rnd_word.val().get_bits::<32>(32);
        self.squared.next =
            (self.first.val() <= self.prob.val()) & (self.second.val() <= self.prob.val());
        // first <= kp with first < 2^32: kp's high byte set, or a 32-bit comparison (not a 41-bit
        // chain on the rolls' path). (kp >= 2^32 is the overload flag, committed with kp, and overload
        // decides before the coupled roll: the high byte's term only keeps this line exact alone.)
        self.coupled.next = self.kp.val().get_bits::<8>(32).any()
            | (self.first.val() <= self.kp.val().get_bits::<32>(0));
        self.ect_l.next = self.head_l.val().get_bits::<2>(16).any();
        self.ect_c.next = self.head_c.val().get_bits::<2>(16).any();
        self.age_l.now.next = self.dep.val();
        self.age_l.ts.next = self.head_l.val().get_bits::<40>(34);
        self.age_l.thr.next = self.step_ns.val();
        self.age_now.now.next = self.now40.val();
        self.age_now.ts.next = self.head_l.val().get_bits::<40>(34);
        self.age_now.thr.next = self.step_ns.val();
        self.above_l.next = self.age_l.above.val();
        if self.two.val().any() {
            self.age_l.now.next = self.link.link_free.val();
            if !self.link.exact.val() {
                self.above_l.next = self.age_now.above.val();
            }
        }

        // Each queue's 2 MTU gate, on the backlog without its head.
        self.lo_l.next = bit_cast::<17, 16>(self.gap.val().get_bits::<16>(0))
            - bit_cast::<17, 16>(self.head_l.val().get_bits::<16>(0));
        self.lo_c.next = bit_cast::<17, 16>(self.gap.val().get_bits::<16>(0))
            - bit_cast::<17, 16>(self.head_c.val().get_bits::<16>(0));
        self.gap_mid.next = !self.gap.val().get_bits::<8>(16).any();
        self.shut_l.next =
            self.gap.val().get_bit(23) | (self.gap_mid.val() & self.lo_l.val().get_bit(16));
        self.shut_c.next =
            self.gap.val().get_bit(23) | (self.gap_mid.val() & self.lo_c.val().get_bit(16));

        // L's packet: in overload a drop with p'^2 when drop_overload, else a mark; otherwise k p',
        // a drop only for a Not-ECT packet; then the step threshold for what the coupled part left
        // alone. With the 2 MTU gate shut, the step threshold alone.
        self.c_drop_l.next = false;
        self.c_mark_l.next = false;
        if self.overload.val() {
            self.c_drop_l.next = self.drop_overload.val() & self.squared.val();
            self.c_mark_l.next = !(self.drop_overload.val() & self.squared.val());
        } else if self.coupled.val() {
            self.c_drop_l.next = !self.ect_l.val();
            self.c_mark_l.next = self.ect_l.val();
        }
        self.step_hit_l.next = self.head_l.val().get_bit(74) & self.above_l.val();
        self.step_l.next = self.step_hit_l.val() & !self.c_drop_l.val() & !self.c_mark_l.val();
        self.drop_l.next = self.c_drop_l.val() | (self.step_l.val() & !self.ect_l.val());
        self.mark_l.next = self.c_mark_l.val() | (self.step_l.val() & self.ect_l.val());
        self.step_mark_l.next = self.step_l.val() & self.ect_l.val();
        self.ovl_l.next = self.overload.val();
        if self.shut_l.val() {
            self.drop_l.next = self.step_hit_l.val() & !self.ect_l.val();
            self.mark_l.next = self.step_hit_l.val() & self.ect_l.val();
            self.step_mark_l.next = self.step_hit_l.val() & self.ect_l.val();
            self.ovl_l.next = false;
        }
        // C's packet: p'^2, a drop if Not-ECT or in overload; nothing with the gate shut.
        self.drop_c.next = self.squared.val() & (self.overload.val() | !self.ect_c.val());
        self.mark_c.next = self.squared.val() & !self.overload.val() & self.ect_c.val();
        self.ovl_c.next = self.overload.val();
        if self.shut_c.val() {
            self.drop_c.next = false;
            self.mark_c.next = false;
            self.ovl_c.next = false;
        }

        // The pick, last: L while the credit is <= 0 (or C is empty).
        // Credit <= 0: the sign of the credit less one, from `cand` or `base` as `pend` says.
        self.pick_l.next = self.hv_l.val() & (!self.hv_c.val() | self.base.q.val().get_bit(23));
        if self.pend.q.val() {
            self.pick_l.next = self.hv_l.val() & (!self.hv_c.val() | self.cand.q.val().get_bit(23));
        }
        self.head.next = self.head_c.val();
        self.drop.next = self.drop_c.val();
        self.mark.next = self.mark_c.val();
        self.step_mark.next = false;
        self.ovl.next = self.ovl_c.val();
        if self.pick_l.val() {
            self.head.next = self.head_l.val();
            self.drop.next = self.drop_l.val();
            self.mark.next = self.mark_l.val();
            self.step_mark.next = self.step_mark_l.val();
            self.ovl.next = self.ovl_l.val();
        }
        self.len.next = self.head.val().get_bits::<16>(0);
        // The picked packet's sojourn, for the stream only.
        self.soj.next = self.dep.val() - self.head.val().get_bits::<40>(34);

        // The credit's next value: credit + w x len for an L packet (w = wc), credit - w x len for a C
        // packet (w = wl = 100 - wc, a register). One tree: as ~(~credit + w x len), w x len as
        // seven shifted partial products summed with the credit (inverted for C) in one tree of
        // adders, the sum inverted for C (Form E of hdl/timing/credit_loop.v). The fast form: each
        // head's w x len is in a register (Form B2), so the loop from the credit to the credit is
        // one adder and the pick's mux.
        self.w.next = self.wl.val();
        if self.pick_l.val() {
            self.w.next = self.wc.val();
        }
        self.inv.next = 0.into();
        if !self.pick_l.val() {
            self.inv.next = 0xff_ffff.into();
        }
        self.wa_l.acc.next = self.cr.val() ^ self.inv.val();
        self.wa_l.w.next = self.w.val();
        self.wa_l.len.next = self.len.val();
        self.next_cr.next = self.wa_l.sum.val() ^ self.inv.val();
        self.wh_l.w.next = self.wc_next.val();
        self.wh_l.len.next = self.head_l.val().get_bits::<16>(0);
        self.wn_l.w.next = self.wc_next.val();
        self.wn_l.len.next = self.next_len_l.val();
        self.wh_c.w.next = self.wl_next.val();
        self.wh_c.len.next = self.head_c.val().get_bits::<16>(0);
        self.wn_c.w.next = self.wl_next.val();
        self.wn_c.len.next = self.next_len_c.val();
        self.wlen_l_s.d.next = self.wh_l.s.val();
        self.wlen_l_k.d.next = self.wh_l.k.val();
        if self.adv_l.val() {
            self.wlen_l_s.d.next = self.wn_l.s.val();
            self.wlen_l_k.d.next = self.wn_l.k.val();
        }
        self.wlen_c_s.d.next = self.wh_c.s.val();
        self.wlen_c_k.d.next = self.wh_c.k.val();
        if self.adv_c.val() {
            self.wlen_c_s.d.next = self.wn_c.s.val();
            self.wlen_c_k.d.next = self.wn_c.k.val();
        }
        self.cs_l.a.next = self.cr.val();
        self.cs_l.b.next = self.wlen_l_s.q.val();
        self.cs_l.c.next = self.wlen_l_k.q.val();
        self.cs_c.a.next = !self.cr.val();
        self.cs_c.b.next = self.wlen_c_s.q.val();
        self.cs_c.c.next = self.wlen_c_k.q.val();
        if self.two.val().any() {
            self.next_cr.next = !(self.cs_c.s.val() + (self.cs_c.k.val() << 1));
            if self.pick_l.val() {
                self.next_cr.next = self.cs_l.s.val() + (self.cs_l.k.val() << 1);
            }
        }

        // The dequeue: pop, take the word, count at the next edge, give the link model the departure
        // time (after a drop, the next dequeue's too), a send moves the credit (by `pend`) and starts
        // the link.
        self.pop_l.next = self.deq.val() & self.pick_l.val();
        self.pop_c.next = self.deq.val() & !self.pick_l.val();
        self.pop_len.next = self.len.val();
        self.rnd_take.next = self.deq.val();
        self.link.rst.next = self.rst.val();
        self.link.now40.next = self.now40.val();
        self.link.link_bt.next = self.link_bt.val();
        self.link.start.next = self.deq.val();
        self.link.send.next = !self.drop.val();
        self.link.start_len.next = self.len.val();
        self.link.start_dep.next = self.dep.val();
        self.link.start_frac.next = self.frac.val();
        self.count.d.next = self.deq.val();
        if self.deq.val() {
            self.o_l.d.next = self.pick_l.val();
            self.o_len.d.next = self.len.val();
            self.o_mark.d.next = self.mark.val();
            self.o_drop.d.next = self.drop.val();
            self.o_step.d.next = self.step_mark.val();
            self.o_ovl.d.next = self.ovl.val();
            if self.hv_l.val() & self.hv_c.val() {
                self.cand.d.next = self.next_cr.val();
                self.pend.d.next = !self.drop.val();
            }
        }
        // A request that finds both queues empty (the link Idle) resets the credit.
        self.load.next = self.init_credit.val();
        if self.credit_commit.val() {
            self.load.next = self.credit_load.val();
        }
        self.load_m1.next = self.load.val() - 1;
        if self.out_ready.val() & self.link.idle.val() & !self.hv_l.val() & !self.hv_c.val() {
            self.base.d.next = self.load_m1.val();
        }

        // The counters, at the edge after the dequeue, from the registered decision.
        if self.count.q.val() {
            if self.o_ovl.q.val() {
                self.overloads_r.d.next = self.overloads_r.q.val() + 1;
            }
            if self.o_drop.q.val() {
                if self.o_l.q.val() {
                    self.dropped_l_r.d.next = self.dropped_l_r.q.val() + 1;
                } else {
                    self.dropped_c_r.d.next = self.dropped_c_r.q.val() + 1;
                }
            } else if self.o_l.q.val() {
                self.sent_pkts_l_r.d.next = self.sent_pkts_l_r.q.val() + 1;
                self.sent_bytes_l_r.d.next =
                    self.sent_bytes_l_r.q.val() + bit_cast::<40, 16>(self.o_len.q.val());
            } else {
                self.sent_pkts_c_r.d.next = self.sent_pkts_c_r.q.val() + 1;
                self.sent_bytes_c_r.d.next =
                    self.sent_bytes_c_r.q.val() + bit_cast::<40, 16>(self.o_len.q.val());
            }
            if self.o_mark.q.val() {
                if self.o_l.q.val() {
                    self.marked_l_r.d.next = self.marked_l_r.q.val() + 1;
                } else {
                    self.marked_c_r.d.next = self.marked_c_r.q.val() + 1;
                }
            }
            if self.o_step.q.val() {
                self.step_marks_r.d.next = self.step_marks_r.q.val() + 1;
            }
        }

        self.out_valid.next = self.avail.val();
        self.out_len.next = 0.into();
        self.out_ecn.next = 0.into();
        self.out_tag.next = 0.into();
        self.out_sojourn.next = 0.into();
        self.out_queue.next = false;
        self.out_drop.next = false;
        if self.avail.val() {
            self.out_len.next = self.len.val();
            self.out_ecn.next = self.head.val().get_bits::<2>(16);
            if self.mark.val() {
                self.out_ecn.next = 3.into();
            }
            self.out_tag.next = self.head.val().get_bits::<16>(18);
            self.out_sojourn.next = self.soj.val();
            self.out_queue.next = self.pick_l.val();
            self.out_drop.next = self.drop.val();
        }
        self.credit.next = self.cr.val() + 1;
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
        self.busy.next = self.deq.val() | self.count.q.val() | self.link.in_tx.val();

        if self.credit_commit.val() {
            self.base.d.next = self.load_m1.val();
            self.pend.d.next = false;
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
            self.count.d.next = false;
            self.base.d.next = self.c_reset_credit_m1.val();
            self.pend.d.next = false;
        }
    }
}
