//! PIE's enqueue side: the verdict pipeline, one descriptor per clock.
//!
//! ```text
//! accept -> P0 input registers
//!        -> P1 state snapshot (burst allowance, low-delay bypass, ECN rule, bytemode) and the first level
//!              of the bytemode product len x (prob / MTU), 11 partial products summed in pairs
//!        -> P2, P3 the rest of the adder tree           -> P4 local probability lp
//!        -> P5 one random word per packet: (rnd >> 8) < lp; thresholds 0.85 - lp and 8.5 - lp
//!        -> V  the verdict against the live queue (limit, 2*MTU) and accumulator; enqueue; verdict out
//! ```
//! Everything that depends on the previous packet's verdict (the accumulator, the queue length and the byte
//! backlog) is read in stage V only, so back-to-back packets see each other exactly as a sequential model
//! would. The slowly changing state (prob, burst allowance, qdelay) is sampled in P1; the golden core model
//! samples it at the same cycle. The accumulator comparisons are split so that V has a single carry chain
//! in its loop: `acc + lp >= C` is evaluated as `lp >= C || acc >= C - lp` with `C - lp` from P5.
//! In packet mode the "product" is prob itself: P1 loads it as the only non-zero partial sum.

use aqm_golden::pie::consts::{ACCU_HIGH, ACCU_LOW, PROB_10PCT, PROB_20PCT};
use crate::konst::K;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct PieIngress {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// Ns; the enqueue timestamp is taken in stage V.
    pub now: Signal<In, Bits<64>>,
    // Ingress descriptor stream (always ready).
    pub in_valid: Signal<In, Bit>,
    pub in_len: Signal<In, Bits<16>>,  // bytes
    pub in_ecn: Signal<In, Bits<2>>,   // 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE
    pub in_tag: Signal<In, Bits<16>>,  // opaque
    // State owned elsewhere, sampled in P1.
    pub prob: Signal<In, Bits<64>>,     // 2^56 - 1 = 100 %
    pub ppb: Signal<In, Bits<64>>,      // prob / mtu
    pub burst: Signal<In, Bits<32>>,    // ticks
    pub qdelay: Signal<In, Bits<34>>,   // ticks
    // Parameters.
    pub target_half: Signal<In, Bits<24>>, // ticks
    pub ecn_en: Signal<In, Bit>,
    pub bytemode: Signal<In, Bit>,
    pub mtu: Signal<In, Bits<16>>,      // bytes
    pub limit: Signal<In, Bits<11>>,    // packets
    // The queue.
    pub count: Signal<In, Bits<11>>,    // packets queued
    pub deq_valid: Signal<In, Bit>,     // a packet departed last cycle ...
    pub deq_len: Signal<In, Bits<16>>,  // ... with this length: taken off the byte backlog now
    pub push: Signal<Out, Bit>,
    pub push_data: Signal<Out, Bits<74>>, // {ts[40], tag[16], ecn[2], len[16]}
    // The random generator.
    pub rnd: Signal<In, Bits<64>>,
    pub rnd_take: Signal<Out, Bit>,
    // Controller commit of a new measurement cycle: clear the accumulator.
    pub acc_clear: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    // Verdict stream: one per accepted descriptor, 7 cycles after it.
    pub verdict_valid: Signal<Out, Bit>,
    pub verdict_tag: Signal<Out, Bits<16>>,
    pub verdict_code: Signal<Out, Bits<2>>, // 0 enqueue, 1 mark, 2 early drop, 3 tail drop
    // State and counters.
    pub acc: Signal<Out, Bits<64>>,
    pub backlog: Signal<Out, Bits<32>>, // bytes
    pub pkts_in: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
    pub overlimit: Signal<Out, Bits<32>>,
    pub marked: Signal<Out, Bits<32>>,
    pub maxq: Signal<Out, Bits<11>>,
    /// A descriptor is in the pipeline.
    pub busy: Signal<Out, Bit>,

    // P0
    v0: DFF<Bit>,
    len0: DFF<Bits<16>>,
    ecn0: DFF<Bits<2>>,
    tag0: DFF<Bits<16>>,
    // P1
    v1: DFF<Bit>,
    len1: DFF<Bits<16>>,
    ecn1: DFF<Bits<2>>,
    tag1: DFF<Bits<16>>,
    pass1: DFF<Bit>,
    ecnok1: DFF<Bit>,
    s0: DFF<Bits<64>>,
    s1: DFF<Bits<64>>,
    s2: DFF<Bits<64>>,
    s3: DFF<Bits<64>>,
    s4: DFF<Bits<64>>,
    s5: DFF<Bits<64>>,
    // P2
    v2: DFF<Bit>,
    len2: DFF<Bits<16>>,
    ecn2: DFF<Bits<2>>,
    tag2: DFF<Bits<16>>,
    pass2: DFF<Bit>,
    ecnok2: DFF<Bit>,
    t0: DFF<Bits<64>>,
    t1: DFF<Bits<64>>,
    t2: DFF<Bits<64>>,
    // P3
    v3: DFF<Bit>,
    len3: DFF<Bits<16>>,
    ecn3: DFF<Bits<2>>,
    tag3: DFF<Bits<16>>,
    pass3: DFF<Bit>,
    ecnok3: DFF<Bit>,
    u0: DFF<Bits<64>>,
    u1: DFF<Bits<64>>,
    // P4
    v4: DFF<Bit>,
    len4: DFF<Bits<16>>,
    ecn4: DFF<Bits<2>>,
    tag4: DFF<Bits<16>>,
    pass4: DFF<Bit>,
    ecnok4: DFF<Bit>,
    lp4: DFF<Bits<64>>,
    // P5
    v5: DFF<Bit>,
    len5: DFF<Bits<16>>,
    ecn5: DFF<Bits<2>>,
    tag5: DFF<Bits<16>>,
    pass5: DFF<Bit>,
    ecnok5: DFF<Bit>,
    lp5: DFF<Bits<64>>,
    hit5: DFF<Bit>,
    lpz5: DFF<Bit>,
    gelo5: DFF<Bit>,
    thrlo5: DFF<Bits<64>>,
    gehi5: DFF<Bit>,
    thrhi5: DFF<Bits<64>>,
    // Verdict outputs and state.
    vv: DFF<Bit>,
    vtag: DFF<Bits<16>>,
    vcode: DFF<Bits<2>>,
    acc_r: DFF<Bits<64>>,
    backlog_r: DFF<Bits<32>>,
    pkts_in_r: DFF<Bits<32>>,
    dropped_r: DFF<Bits<32>>,
    overlimit_r: DFF<Bits<32>>,
    marked_r: DFF<Bits<32>>,
    maxq_r: DFF<Bits<11>>,
    // Combinational helpers.
    bytes0: Signal<Local, Bit>,
    pp0: Signal<Local, Bits<64>>,
    pp1: Signal<Local, Bits<64>>,
    pp2: Signal<Local, Bits<64>>,
    pp3: Signal<Local, Bits<64>>,
    pp4: Signal<Local, Bits<64>>,
    pp5: Signal<Local, Bits<64>>,
    pp6: Signal<Local, Bits<64>>,
    pp7: Signal<Local, Bits<64>>,
    pp8: Signal<Local, Bits<64>>,
    pp9: Signal<Local, Bits<64>>,
    pp10: Signal<Local, Bits<64>>,
    sum65: Signal<Local, Bits<65>>,
    sat: Signal<Local, Bits<64>>,
    ge_lo: Signal<Local, Bit>,
    ge_hi: Signal<Local, Bit>,
    early: Signal<Local, Bit>,
    code: Signal<Local, Bits<2>>,
    acc_n: Signal<Local, Bits<64>>,
    ecn_out: Signal<Local, Bits<2>>,
    bl_base: Signal<Local, Bits<32>>,
    bl_plus: Signal<Local, Bits<32>>,
    prob_10pct: K<64, PROB_10PCT>,
    prob_20pct: K<64, PROB_20PCT>,
    accu_low: K<64, ACCU_LOW>,
    accu_high: K<64, ACCU_HIGH>,
    all_ones: K<64, { u64::MAX }>,
}

impl Logic for PieIngress {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, v0, len0, ecn0, tag0, v1, len1, ecn1, tag1, pass1, ecnok1, s0, s1, s2, s3,
            s4, s5, v2, len2, ecn2, tag2, pass2, ecnok2, t0, t1, t2, v3, len3, ecn3, tag3, pass3,
            ecnok3, u0, u1, v4, len4, ecn4, tag4, pass4, ecnok4, lp4, v5, len5, ecn5, tag5, pass5,
            ecnok5, lp5, hit5, lpz5, gelo5, thrlo5, gehi5, thrhi5, vv, vtag, vcode, acc_r,
            backlog_r, pkts_in_r, dropped_r, overlimit_r, marked_r, maxq_r
        );
        // P0: register the input.
        self.v0.d.next = self.in_valid.val();
        self.len0.d.next = self.in_len.val();
        self.ecn0.d.next = self.in_ecn.val();
        self.tag0.d.next = self.in_tag.val();

        // P1: snapshot of the slow state, and the partial products of len x ppb.
        self.v1.d.next = self.v0.q.val();
        self.len1.d.next = self.len0.q.val();
        self.ecn1.d.next = self.ecn0.q.val();
        self.tag1.d.next = self.tag0.q.val();
        self.pass1.d.next = self.burst.val().any()
            | ((self.qdelay.val() < bit_cast::<34, 24>(self.target_half.val()))
                & (self.prob.val() < self.prob_20pct.val()));
        self.ecnok1.d.next = self.ecn_en.val()
            & (self.prob.val() <= self.prob_10pct.val())
            & self.ecn0.q.val().any();
        self.bytes0.next = self.bytemode.val() & (self.len0.q.val() <= self.mtu.val());
        self.pp0.next = 0.into();
        self.pp1.next = 0.into();
        self.pp2.next = 0.into();
        self.pp3.next = 0.into();
        self.pp4.next = 0.into();
        self.pp5.next = 0.into();
        self.pp6.next = 0.into();
        self.pp7.next = 0.into();
        self.pp8.next = 0.into();
        self.pp9.next = 0.into();
        self.pp10.next = 0.into();
        if self.bytes0.val() {
            if self.len0.q.val().get_bit(0) {
                self.pp0.next = self.ppb.val();
            }
            if self.len0.q.val().get_bit(1) {
                self.pp1.next = self.ppb.val() << 1;
            }
            if self.len0.q.val().get_bit(2) {
                self.pp2.next = self.ppb.val() << 2;
            }
            if self.len0.q.val().get_bit(3) {
                self.pp3.next = self.ppb.val() << 3;
            }
            if self.len0.q.val().get_bit(4) {
                self.pp4.next = self.ppb.val() << 4;
            }
            if self.len0.q.val().get_bit(5) {
                self.pp5.next = self.ppb.val() << 5;
            }
            if self.len0.q.val().get_bit(6) {
                self.pp6.next = self.ppb.val() << 6;
            }
            if self.len0.q.val().get_bit(7) {
                self.pp7.next = self.ppb.val() << 7;
            }
            if self.len0.q.val().get_bit(8) {
                self.pp8.next = self.ppb.val() << 8;
            }
            if self.len0.q.val().get_bit(9) {
                self.pp9.next = self.ppb.val() << 9;
            }
            if self.len0.q.val().get_bit(10) {
                self.pp10.next = self.ppb.val() << 10;
            }
        } else {
            self.pp0.next = self.prob.val();
        }
        self.s0.d.next = self.pp0.val() + self.pp1.val();
        self.s1.d.next = self.pp2.val() + self.pp3.val();
        self.s2.d.next = self.pp4.val() + self.pp5.val();
        self.s3.d.next = self.pp6.val() + self.pp7.val();
        self.s4.d.next = self.pp8.val() + self.pp9.val();
        self.s5.d.next = self.pp10.val();

        // P2, P3, P4: the adder tree.
        self.v2.d.next = self.v1.q.val();
        self.len2.d.next = self.len1.q.val();
        self.ecn2.d.next = self.ecn1.q.val();
        self.tag2.d.next = self.tag1.q.val();
        self.pass2.d.next = self.pass1.q.val();
        self.ecnok2.d.next = self.ecnok1.q.val();
        self.t0.d.next = self.s0.q.val() + self.s1.q.val();
        self.t1.d.next = self.s2.q.val() + self.s3.q.val();
        self.t2.d.next = self.s4.q.val() + self.s5.q.val();

        self.v3.d.next = self.v2.q.val();
        self.len3.d.next = self.len2.q.val();
        self.ecn3.d.next = self.ecn2.q.val();
        self.tag3.d.next = self.tag2.q.val();
        self.pass3.d.next = self.pass2.q.val();
        self.ecnok3.d.next = self.ecnok2.q.val();
        self.u0.d.next = self.t0.q.val() + self.t1.q.val();
        self.u1.d.next = self.t2.q.val();

        self.v4.d.next = self.v3.q.val();
        self.len4.d.next = self.len3.q.val();
        self.ecn4.d.next = self.ecn3.q.val();
        self.tag4.d.next = self.tag3.q.val();
        self.pass4.d.next = self.pass3.q.val();
        self.ecnok4.d.next = self.ecnok3.q.val();
        self.lp4.d.next = self.u0.q.val() + self.u1.q.val();

        // P5: the random draw and the accumulator thresholds.
        self.rnd_take.next = self.v4.q.val() & !self.rst.val();
        self.v5.d.next = self.v4.q.val();
        self.len5.d.next = self.len4.q.val();
        self.ecn5.d.next = self.ecn4.q.val();
        self.tag5.d.next = self.tag4.q.val();
        self.pass5.d.next = self.pass4.q.val();
        self.ecnok5.d.next = self.ecnok4.q.val();
        self.lp5.d.next = self.lp4.q.val();
        self.hit5.d.next = (self.rnd.val() >> 8) < self.lp4.q.val();
        self.lpz5.d.next = !self.lp4.q.val().any();
        self.gelo5.d.next = self.lp4.q.val() >= self.accu_low.val();
        self.thrlo5.d.next = self.accu_low.val() - self.lp4.q.val();
        self.gehi5.d.next = self.lp4.q.val() >= self.accu_high.val();
        self.thrhi5.d.next = self.accu_high.val() - self.lp4.q.val();

        // V: the verdict.
        self.sum65.next =
            bit_cast::<65, 64>(self.acc_r.q.val()) + bit_cast::<65, 64>(self.lp5.q.val());
        self.sat.next = bit_cast::<64, 65>(self.sum65.val());
        if self.sum65.val().get_bit(64) {
            self.sat.next = self.all_ones.val();
        }
        self.ge_lo.next = self.gelo5.q.val() | (self.acc_r.q.val() >= self.thrlo5.q.val());
        self.ge_hi.next = self.gehi5.q.val() | (self.acc_r.q.val() >= self.thrhi5.q.val());
        self.early.next = false;
        self.code.next = 0.into();
        self.acc_n.next = self.acc_r.q.val();
        if self.count.val() >= self.limit.val() {
            self.code.next = 3.into();
            self.acc_n.next = 0.into();
        } else if self.pass5.q.val()
            | (self.backlog_r.q.val() < (bit_cast::<32, 16>(self.mtu.val()) << 1))
        {
            self.acc_n.next = self.acc_r.q.val();
        } else if self.lpz5.q.val() {
            self.acc_n.next = 0.into();
        } else if !self.ge_lo.val() {
            self.acc_n.next = self.sat.val();
        } else if self.ge_hi.val() {
            self.early.next = true;
            self.acc_n.next = self.sat.val();
        } else if self.hit5.q.val() {
            self.early.next = true;
            self.acc_n.next = 0.into();
        } else {
            self.acc_n.next = self.sat.val();
        }
        if self.early.val() {
            if self.ecnok5.q.val() {
                self.code.next = 1.into();
            } else {
                self.code.next = 2.into();
                self.acc_n.next = 0.into();
            }
        }
        self.push.next = self.v5.q.val() & !self.code.val().get_bit(1) & !self.rst.val();
        self.ecn_out.next = self.ecn5.q.val();
        if self.code.val() == 1 {
            self.ecn_out.next = 3.into();
        }
        self.push_data.next = (bit_cast::<74, 40>(self.now.val().get_bits::<40>(0)) << 34)
            | (bit_cast::<74, 16>(self.tag5.q.val()) << 18)
            | (bit_cast::<74, 2>(self.ecn_out.val()) << 16)
            | bit_cast::<74, 16>(self.len5.q.val());
        self.vv.d.next = self.v5.q.val();
        self.vtag.d.next = 0.into();
        self.vcode.d.next = 0.into();
        if self.v5.q.val() {
            self.vtag.d.next = self.tag5.q.val();
            self.vcode.d.next = self.code.val();
            self.acc_r.d.next = self.acc_n.val();
            self.pkts_in_r.d.next = self.pkts_in_r.q.val() + 1;
            if self.code.val().get_bit(1) {
                self.dropped_r.d.next = self.dropped_r.q.val() + 1;
            }
            if self.code.val() == 3 {
                self.overlimit_r.d.next = self.overlimit_r.q.val() + 1;
            }
            if self.code.val() == 1 {
                self.marked_r.d.next = self.marked_r.q.val() + 1;
            }
            if !self.code.val().get_bit(1) & (self.count.val() >= self.maxq_r.q.val()) {
                self.maxq_r.d.next = self.count.val() + 1;
            }
        }
        if self.acc_clear.val() {
            self.acc_r.d.next = 0.into();
        }
        // Byte backlog: this packet in, last cycle's departure out.
        self.bl_base.next = self.backlog_r.q.val();
        if self.deq_valid.val() {
            self.bl_base.next = self.backlog_r.q.val() - bit_cast::<32, 16>(self.deq_len.val());
        }
        self.bl_plus.next = self.bl_base.val() + bit_cast::<32, 16>(self.len5.q.val());
        self.backlog_r.d.next = self.bl_base.val();
        if self.push.val() {
            self.backlog_r.d.next = self.bl_plus.val();
        }

        self.verdict_valid.next = self.vv.q.val();
        self.verdict_tag.next = self.vtag.q.val();
        self.verdict_code.next = self.vcode.q.val();
        self.acc.next = self.acc_r.q.val();
        self.backlog.next = self.backlog_r.q.val();
        self.pkts_in.next = self.pkts_in_r.q.val();
        self.dropped.next = self.dropped_r.q.val();
        self.overlimit.next = self.overlimit_r.q.val();
        self.marked.next = self.marked_r.q.val();
        self.maxq.next = self.maxq_r.q.val();
        self.busy.next = self.v0.q.val()
            | self.v1.q.val()
            | self.v2.q.val()
            | self.v3.q.val()
            | self.v4.q.val()
            | self.v5.q.val();

        if self.clear_counters.val() {
            self.pkts_in_r.d.next = 0.into();
            self.dropped_r.d.next = 0.into();
            self.overlimit_r.d.next = 0.into();
            self.marked_r.d.next = 0.into();
            self.maxq_r.d.next = 0.into();
        }
        if self.rst.val() {
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.v4.d.next = false;
            self.v5.d.next = false;
            self.vv.d.next = false;
            self.acc_r.d.next = 0.into();
            self.backlog_r.d.next = 0.into();
            self.pkts_in_r.d.next = 0.into();
            self.dropped_r.d.next = 0.into();
            self.overlimit_r.d.next = 0.into();
            self.marked_r.d.next = 0.into();
            self.maxq_r.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_synthesizable() {
        let mut b = PieIngress::default();
        b.connect_all();
        yosys_validate("pie_ingress", &generate_verilog(&b)).unwrap();
    }
}
