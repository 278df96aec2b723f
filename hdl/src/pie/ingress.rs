//! PIE's enqueue side: the verdict pipeline, one descriptor per clock.
//!
//! ```text
//! accept  P0  the slow state is sampled (steps 1, 2 and the ECN condition of step 8, all from
//!             registered flags) and the operand of the local probability: prob, or prob/MTU in bytemode
//!        [P0  bytemode only: len x (prob/MTU) in a carry-save shift-add multiplier, 13 cycles, during
//!             which `in_ready` is low. Packet mode never stalls.]
//!         P1  local probability lp (step 4)
//!         P2  one random word per packet; (rnd >> 8) < lp and 0.85 - lp, 8.5 - lp, low halves
//!         P3  the high halves
//!         V   the verdict against the live queue (limit, 2*MTU) and accumulator; enqueue; counters
//! ```
//! The verdict appears 5 cycles after acceptance. Only the accumulator, the queue length and the byte
//! backlog carry from one packet to the next, and stage V alone reads and writes them, so back-to-back
//! packets see each other exactly as in a sequential model. Every wide operation is split into 28- to
//! 31-bit halves so that no carry chain in the design is longer than about 34 bits (the HX8K closes a
//! bare 64-bit adder at only ~90 MHz): `acc + lp >= C` becomes `lp >= C || acc >= C - lp` with `C - lp`
//! from P3, and `acc + lp` is a carry-select adder.

use crate::konst::K;
use aqm_golden::pie::consts::{ACCU_HIGH, ACCU_LOW, ACCU_MAX};
use rust_hdl::prelude::*;

/// The ingress timing, defined once with the golden model (hdl/PIE-CORE.md).
pub use aqm_golden::pie::consts::{BYTEMODE_HOLD, VERDICT_LATENCY};

/// `BM` = 1 builds the bytemode multiplier; with 0 the ingress never scales by length (and the register
/// file refuses BYTEMODE = 1), which saves about 600 logic cells on the HX8K.
#[derive(LogicBlock, Default)]
pub struct PieIngress<const BM: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// Ns; the enqueue timestamp (low 40 bits) is taken in stage V.
    pub now: Signal<In, Bits<64>>,
    // Ingress descriptor stream.
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_len: Signal<In, Bits<16>>, // bytes
    pub in_ecn: Signal<In, Bits<2>>,  // 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE
    pub in_tag: Signal<In, Bits<16>>, // opaque
    // State owned elsewhere, sampled on acceptance.
    pub prob: Signal<In, Bits<56>>,   // 2^56 - 1 = 100 %
    pub prob_lt20: Signal<In, Bit>,   // prob < 20 %
    pub prob_le10: Signal<In, Bit>,   // prob <= 10 %
    pub ppb: Signal<In, Bits<56>>,    // prob / mtu
    pub burst: Signal<In, Bits<32>>,  // ticks
    pub qdelay: Signal<In, Bits<34>>, // ticks
    // Parameters.
    pub target_half: Signal<In, Bits<24>>, // ticks
    pub ecn_en: Signal<In, Bit>,
    pub bytemode: Signal<In, Bit>,
    pub mtu: Signal<In, Bits<16>>,   // bytes
    pub limit: Signal<In, Bits<11>>, // packets
    // The queue.
    pub count: Signal<In, Bits<11>>,   // packets queued
    pub deq_valid: Signal<In, Bit>,    // a packet departed last cycle ...
    pub deq_len: Signal<In, Bits<16>>, // ... with this length: taken off the byte backlog now
    pub push: Signal<Out, Bit>,
    pub push_data: Signal<Out, Bits<74>>, // {ts[40], tag[16], ecn[2], len[16]}
    // The random generator.
    pub rnd: Signal<In, Bits<64>>,
    pub rnd_take: Signal<Out, Bit>,
    // Controller commit of a new measurement cycle: clear the accumulator.
    pub acc_clear: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    // Verdict stream: one per accepted descriptor.
    pub verdict_valid: Signal<Out, Bit>,
    pub verdict_tag: Signal<Out, Bits<16>>,
    pub verdict_code: Signal<Out, Bits<2>>, // 0 enqueue, 1 mark, 2 early drop, 3 tail drop
    // State and counters.
    pub acc: Signal<Out, Bits<60>>,
    pub backlog: Signal<Out, Bits<32>>, // bytes
    pub pkts_in: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
    pub overlimit: Signal<Out, Bits<32>>,
    pub marked: Signal<Out, Bits<32>>,
    pub maxq: Signal<Out, Bits<11>>,
    /// A descriptor is in the pipeline.
    pub busy: Signal<Out, Bit>,

    // P0 and the bytemode multiplier.
    v0: DFF<Bit>,
    len0: DFF<Bits<16>>,
    ecn0: DFF<Bits<2>>,
    tag0: DFF<Bits<16>>,
    pass0: DFF<Bit>,
    ecnok0: DFF<Bit>,
    bytes0: DFF<Bit>,
    op0: DFF<Bits<56>>,
    mcnt: DFF<Bits<4>>,
    mlen: DFF<Bits<16>>,
    ms: DFF<Bits<56>>,
    mc: DFF<Bits<56>>,
    mlo: DFF<Bits<29>>,
    // P1
    v1: DFF<Bit>,
    len1: DFF<Bits<16>>,
    ecn1: DFF<Bits<2>>,
    tag1: DFF<Bits<16>>,
    pass1: DFF<Bit>,
    ecnok1: DFF<Bit>,
    lp1: DFF<Bits<56>>,
    // P2
    v2: DFF<Bit>,
    len2: DFF<Bits<16>>,
    ecn2: DFF<Bits<2>>,
    tag2: DFF<Bits<16>>,
    pass2: DFF<Bit>,
    ecnok2: DFF<Bit>,
    lp2: DFF<Bits<56>>,
    lpz2: DFF<Bit>,
    lt_lo2: DFF<Bit>,
    lt_hi2: DFF<Bit>,
    eq_hi2: DFF<Bit>,
    tl_lo2: DFF<Bits<31>>, // {borrow, (0.85 - lp)[29:0]}
    th_lo2: DFF<Bits<31>>, // {borrow, (8.5 - lp)[29:0]}
    // P3
    v3: DFF<Bit>,
    len3: DFF<Bits<16>>,
    ecn3: DFF<Bits<2>>,
    tag3: DFF<Bits<16>>,
    pass3: DFF<Bit>,
    ecnok3: DFF<Bit>,
    lp3: DFF<Bits<56>>,
    lphi1_3: DFF<Bits<30>>, // lp[55:30] + 1, for the carry-select adder
    lpz3: DFF<Bit>,
    hit3: DFF<Bit>,
    tl3: DFF<Bits<60>>,
    tl_all3: DFF<Bit>, // lp > 0.85: the sum reaches 0.85 whatever acc is
    th3: DFF<Bits<60>>,
    th_all3: DFF<Bit>,
    // Verdict outputs and state.
    vv: DFF<Bit>,
    vtag: DFF<Bits<16>>,
    vcode: DFF<Bits<2>>,
    acc_r: DFF<Bits<60>>,
    backlog_r: DFF<Bits<32>>,
    pkts_in_r: DFF<Bits<32>>,
    dropped_r: DFF<Bits<32>>,
    overlimit_r: DFF<Bits<32>>,
    marked_r: DFF<Bits<32>>,
    maxq_r: DFF<Bits<11>>,
    // Combinational helpers.
    stall: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    in_bytes: Signal<Local, Bit>,
    pp: Signal<Local, Bits<56>>,
    mhi: Signal<Local, Bits<28>>,
    rs: Signal<Local, Bits<56>>,
    tl_base: Signal<Local, Bits<31>>,
    th_base: Signal<Local, Bits<31>>,
    tl_hi: Signal<Local, Bits<31>>,
    th_hi: Signal<Local, Bits<31>>,
    sum_lo: Signal<Local, Bits<31>>,
    sum_hi: Signal<Local, Bits<31>>,
    sat: Signal<Local, Bits<60>>,
    ge_lo: Signal<Local, Bit>,
    ge_hi: Signal<Local, Bit>,
    early: Signal<Local, Bit>,
    code: Signal<Local, Bits<2>>,
    acc_n: Signal<Local, Bits<60>>,
    ecn_out: Signal<Local, Bits<2>>,
    deq: Signal<Local, Bits<32>>,
    len32: Signal<Local, Bits<32>>,
    bl_base: Signal<Local, Bits<32>>,
    cs_s: Signal<Local, Bits<32>>,
    cs_c: Signal<Local, Bits<32>>,
    bl_plus: Signal<Local, Bits<32>>,
    accu_low: K<60, ACCU_LOW>,
    accu_high: K<60, ACCU_HIGH>,
    accu_max: K<60, ACCU_MAX>,
    bytemode_hw: K<1, BM>,
    accu_low_hi: K<31, { ACCU_LOW >> 30 }>,
    accu_low_hi_m1: K<31, { (ACCU_LOW >> 30) - 1 }>,
    accu_high_hi: K<31, { ACCU_HIGH >> 30 }>,
    accu_high_hi_m1: K<31, { (ACCU_HIGH >> 30) - 1 }>,
}

impl<const BM: u64> Logic for PieIngress<BM> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            v0,
            len0,
            ecn0,
            tag0,
            pass0,
            ecnok0,
            bytes0,
            op0,
            mcnt,
            mlen,
            ms,
            mc,
            mlo,
            v1,
            len1,
            ecn1,
            tag1,
            pass1,
            ecnok1,
            lp1,
            v2,
            len2,
            ecn2,
            tag2,
            pass2,
            ecnok2,
            lp2,
            lpz2,
            lt_lo2,
            lt_hi2,
            eq_hi2,
            tl_lo2,
            th_lo2,
            v3,
            len3,
            ecn3,
            tag3,
            pass3,
            ecnok3,
            lp3,
            lphi1_3,
            lpz3,
            hit3,
            tl3,
            tl_all3,
            th3,
            th_all3,
            vv,
            vtag,
            vcode,
            acc_r,
            backlog_r,
            pkts_in_r,
            dropped_r,
            overlimit_r,
            marked_r,
            maxq_r
        );
        // P0: a bytemode packet holds P0 until its product is ready (mcnt reaches 13).
        self.stall.next = self.v0.q.val() & self.bytes0.q.val() & (self.mcnt.q.val() != 13);
        self.in_ready.next = !self.rst.val() & !self.stall.val();
        self.accept.next = self.in_valid.val() & !self.rst.val() & !self.stall.val();
        self.advance.next = self.v0.q.val() & !self.stall.val();
        self.in_bytes.next = self.bytemode.val()
            & (self.in_len.val() <= self.mtu.val())
            & self.bytemode_hw.val().get_bit(0);
        if !self.stall.val() {
            self.v0.d.next = self.accept.val();
            self.len0.d.next = self.in_len.val();
            self.ecn0.d.next = self.in_ecn.val();
            self.tag0.d.next = self.in_tag.val();
            self.pass0.d.next = self.burst.val().any()
                | ((self.qdelay.val() < bit_cast::<34, 24>(self.target_half.val()))
                    & self.prob_lt20.val());
            self.ecnok0.d.next = self.ecn_en.val() & self.prob_le10.val() & self.in_ecn.val().any();
            self.bytes0.d.next = self.in_bytes.val();
            self.op0.d.next = self.prob.val();
            if self.in_bytes.val() {
                self.op0.d.next = self.ppb.val();
            }
            self.mcnt.d.next = 0.into();
            self.mlen.d.next = self.in_len.val();
            self.ms.d.next = 0.into();
            self.mc.d.next = 0.into();
        }
        // The bytemode multiplier: 11 carry-save steps (one bit of len each), then the sum in two halves.
        self.pp.next = 0.into();
        if self.mlen.q.val().get_bit(0) {
            self.pp.next = self.op0.q.val();
        }
        self.mhi.next = self.ms.q.val().get_bits::<28>(28)
            + self.mc.q.val().get_bits::<28>(28)
            + bit_cast::<28, 1>(self.mlo.q.val().get_bit(28).into());
        if self.stall.val() {
            self.mcnt.d.next = self.mcnt.q.val() + 1;
            if self.mcnt.q.val() < 11 {
                self.ms.d.next = self.ms.q.val() ^ self.mc.q.val() ^ self.pp.val();
                self.mc.d.next = ((self.ms.q.val() & self.mc.q.val())
                    | (self.ms.q.val() & self.pp.val())
                    | (self.mc.q.val() & self.pp.val()))
                    << 1;
                self.op0.d.next = self.op0.q.val() << 1;
                self.mlen.d.next = self.mlen.q.val() >> 1;
            }
            if self.mcnt.q.val() == 11 {
                self.mlo.d.next = bit_cast::<29, 28>(self.ms.q.val().get_bits::<28>(0))
                    + bit_cast::<29, 28>(self.mc.q.val().get_bits::<28>(0));
            }
            if self.mcnt.q.val() == 12 {
                self.op0.d.next = (bit_cast::<56, 28>(self.mhi.val()) << 28)
                    | bit_cast::<56, 28>(self.mlo.q.val().get_bits::<28>(0));
            }
        }

        // P1: the local probability.
        self.v1.d.next = self.advance.val();
        self.len1.d.next = self.len0.q.val();
        self.ecn1.d.next = self.ecn0.q.val();
        self.tag1.d.next = self.tag0.q.val();
        self.pass1.d.next = self.pass0.q.val();
        self.ecnok1.d.next = self.ecnok0.q.val();
        self.lp1.d.next = self.op0.q.val();

        // P2: the random draw and the low halves of the threshold subtractions.
        self.rnd_take.next = self.v1.q.val() & !self.rst.val();
        self.rs.next = bit_cast::<56, 64>(self.rnd.val() >> 8);
        self.v2.d.next = self.v1.q.val();
        self.len2.d.next = self.len1.q.val();
        self.ecn2.d.next = self.ecn1.q.val();
        self.tag2.d.next = self.tag1.q.val();
        self.pass2.d.next = self.pass1.q.val();
        self.ecnok2.d.next = self.ecnok1.q.val();
        self.lp2.d.next = self.lp1.q.val();
        self.lpz2.d.next = !self.lp1.q.val().any();
        self.lt_lo2.d.next = self.rs.val().get_bits::<28>(0) < self.lp1.q.val().get_bits::<28>(0);
        self.lt_hi2.d.next = self.rs.val().get_bits::<28>(28) < self.lp1.q.val().get_bits::<28>(28);
        self.eq_hi2.d.next =
            self.rs.val().get_bits::<28>(28) == self.lp1.q.val().get_bits::<28>(28);
        self.tl_lo2.d.next = bit_cast::<31, 30>(self.accu_low.val().get_bits::<30>(0))
            - bit_cast::<31, 30>(self.lp1.q.val().get_bits::<30>(0));
        self.th_lo2.d.next = bit_cast::<31, 30>(self.accu_high.val().get_bits::<30>(0))
            - bit_cast::<31, 30>(self.lp1.q.val().get_bits::<30>(0));

        // P3: the high halves.
        // The low half's borrow selects between two constants instead of a second carry chain.
        self.tl_base.next = self.accu_low_hi.val();
        if self.tl_lo2.q.val().get_bit(30) {
            self.tl_base.next = self.accu_low_hi_m1.val();
        }
        self.th_base.next = self.accu_high_hi.val();
        if self.th_lo2.q.val().get_bit(30) {
            self.th_base.next = self.accu_high_hi_m1.val();
        }
        self.tl_hi.next =
            self.tl_base.val() - bit_cast::<31, 26>(self.lp2.q.val().get_bits::<26>(30));
        self.th_hi.next =
            self.th_base.val() - bit_cast::<31, 26>(self.lp2.q.val().get_bits::<26>(30));
        self.v3.d.next = self.v2.q.val();
        self.len3.d.next = self.len2.q.val();
        self.ecn3.d.next = self.ecn2.q.val();
        self.tag3.d.next = self.tag2.q.val();
        self.pass3.d.next = self.pass2.q.val();
        self.ecnok3.d.next = self.ecnok2.q.val();
        self.lp3.d.next = self.lp2.q.val();
        self.lphi1_3.d.next = bit_cast::<30, 26>(self.lp2.q.val().get_bits::<26>(30)) + 1;
        self.lpz3.d.next = self.lpz2.q.val();
        self.hit3.d.next = self.lt_hi2.q.val() | (self.eq_hi2.q.val() & self.lt_lo2.q.val());
        self.tl3.d.next = (bit_cast::<60, 30>(self.tl_hi.val().get_bits::<30>(0)) << 30)
            | bit_cast::<60, 30>(self.tl_lo2.q.val().get_bits::<30>(0));
        self.tl_all3.d.next = self.tl_hi.val().get_bit(30);
        self.th3.d.next = (bit_cast::<60, 30>(self.th_hi.val().get_bits::<30>(0)) << 30)
            | bit_cast::<60, 30>(self.th_lo2.q.val().get_bits::<30>(0));
        self.th_all3.d.next = self.th_hi.val().get_bit(30);

        // V: the verdict. acc + lp saturating at 2^60 - 1, as a carry-select adder on 30-bit halves.
        self.sum_lo.next = bit_cast::<31, 30>(self.acc_r.q.val().get_bits::<30>(0))
            + bit_cast::<31, 30>(self.lp3.q.val().get_bits::<30>(0));
        self.sum_hi.next = bit_cast::<31, 30>(self.acc_r.q.val().get_bits::<30>(30))
            + bit_cast::<31, 26>(self.lp3.q.val().get_bits::<26>(30));
        if self.sum_lo.val().get_bit(30) {
            self.sum_hi.next = bit_cast::<31, 30>(self.acc_r.q.val().get_bits::<30>(30))
                + bit_cast::<31, 30>(self.lphi1_3.q.val());
        }
        self.sat.next = (bit_cast::<60, 30>(self.sum_hi.val().get_bits::<30>(0)) << 30)
            | bit_cast::<60, 30>(self.sum_lo.val().get_bits::<30>(0));
        if self.sum_hi.val().get_bit(30) {
            self.sat.next = self.accu_max.val();
        }
        self.ge_lo.next = self.tl_all3.q.val()
            | (self.acc_r.q.val().get_bits::<30>(30) > self.tl3.q.val().get_bits::<30>(30))
            | ((self.acc_r.q.val().get_bits::<30>(30) == self.tl3.q.val().get_bits::<30>(30))
                & (self.acc_r.q.val().get_bits::<30>(0) >= self.tl3.q.val().get_bits::<30>(0)));
        self.ge_hi.next = self.th_all3.q.val()
            | (self.acc_r.q.val().get_bits::<30>(30) > self.th3.q.val().get_bits::<30>(30))
            | ((self.acc_r.q.val().get_bits::<30>(30) == self.th3.q.val().get_bits::<30>(30))
                & (self.acc_r.q.val().get_bits::<30>(0) >= self.th3.q.val().get_bits::<30>(0)));
        self.early.next = false;
        self.code.next = 0.into();
        self.acc_n.next = self.acc_r.q.val();
        if self.count.val() >= self.limit.val() {
            self.code.next = 3.into();
            self.acc_n.next = 0.into();
        } else if self.pass3.q.val()
            | (self.backlog_r.q.val() < (bit_cast::<32, 16>(self.mtu.val()) << 1))
        {
            self.acc_n.next = self.acc_r.q.val();
        } else if self.lpz3.q.val() {
            self.acc_n.next = 0.into();
        } else if !self.ge_lo.val() {
            self.acc_n.next = self.sat.val();
        } else if self.ge_hi.val() {
            self.early.next = true;
            self.acc_n.next = self.sat.val();
        } else if self.hit3.q.val() {
            self.early.next = true;
            self.acc_n.next = 0.into();
        } else {
            self.acc_n.next = self.sat.val();
        }
        if self.early.val() {
            if self.ecnok3.q.val() {
                self.code.next = 1.into();
            } else {
                self.code.next = 2.into();
                self.acc_n.next = 0.into();
            }
        }
        self.push.next = self.v3.q.val() & !self.code.val().get_bit(1) & !self.rst.val();
        self.ecn_out.next = self.ecn3.q.val();
        if self.code.val() == 1 {
            self.ecn_out.next = 3.into();
        }
        self.push_data.next = (bit_cast::<74, 40>(self.now.val().get_bits::<40>(0)) << 34)
            | (bit_cast::<74, 16>(self.tag3.q.val()) << 18)
            | (bit_cast::<74, 2>(self.ecn_out.val()) << 16)
            | bit_cast::<74, 16>(self.len3.q.val());
        self.vv.d.next = self.v3.q.val();
        self.vtag.d.next = 0.into();
        self.vcode.d.next = 0.into();
        if self.v3.q.val() {
            self.vtag.d.next = self.tag3.q.val();
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
        // Byte backlog: last cycle's departure out, this packet in. backlog + len - deq is a 3:2
        // carry-save compression and one adder: a + b + ~c + 1 = s + (carries << 1 | 1).
        self.deq.next = 0.into();
        if self.deq_valid.val() {
            self.deq.next = bit_cast::<32, 16>(self.deq_len.val());
        }
        self.len32.next = bit_cast::<32, 16>(self.len3.q.val());
        self.bl_base.next = self.backlog_r.q.val() - self.deq.val();
        self.cs_s.next = self.backlog_r.q.val() ^ self.len32.val() ^ !self.deq.val();
        self.cs_c.next = (self.backlog_r.q.val() & self.len32.val())
            | (self.backlog_r.q.val() & !self.deq.val())
            | (self.len32.val() & !self.deq.val());
        self.bl_plus.next = self.cs_s.val() + ((self.cs_c.val() << 1) | 1);
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
        self.busy.next = self.v0.q.val() | self.v1.q.val() | self.v2.q.val() | self.v3.q.val();

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
            self.vv.d.next = false;
            self.vtag.d.next = 0.into();
            self.vcode.d.next = 0.into();
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
    use crate::sim::{clock_edge, settle};
    use aqm_golden::pie::consts::MAX_PROB;
    use aqm_golden::pie::enqueue::{finish, Prepared, QueueView};

    #[derive(Clone, Copy)]
    struct Pkt {
        lp: u64,
        rnd: u64,
        ecn_ok: bool,
    }

    fn pkt(lp: u64, rnd: u64) -> Pkt {
        Pkt {
            lp,
            rnd,
            ecn_ok: false,
        }
    }

    /// Back-to-back packets with the given local probabilities and random words, bypasses off after the
    /// first (2 * MTU = 128 bytes, 1500-byte packets): every verdict and the accumulator after it must be
    /// what the specification's `finish` gives, packet after packet.
    fn run(pkts: &[Pkt]) -> (Vec<u64>, u64) {
        let mut b = PieIngress::<1>::default();
        b.connect_all();
        b.rst.next = true;
        settle(&mut b);
        clock_edge(&mut b, |b| &mut b.clock);
        b.rst.next = false;
        b.mtu.next = 64u64.to_bits();
        b.limit.next = 1000u64.to_bits();
        b.ecn_en.next = true;
        b.qdelay.next = 1000u64.to_bits();
        let (mut acc, mut backlog, mut got) = (0u64, 0u64, 0usize);
        let mut codes = vec![];
        for t in 0..pkts.len() + 8 {
            let p = pkts.get(t);
            b.in_valid.next = p.is_some();
            b.in_len.next = 1500u64.to_bits();
            b.in_ecn.next = 2u64.to_bits();
            b.prob.next = p.map_or(0, |p| p.lp).to_bits();
            b.prob_le10.next = p.is_some_and(|p| p.ecn_ok);
            // The word is drawn two cycles after acceptance.
            b.rnd.next = t
                .checked_sub(2)
                .and_then(|k| pkts.get(k))
                .map_or(0, |p| p.rnd)
                .to_bits();
            settle(&mut b);
            if b.verdict_valid.val() {
                let p = pkts[got];
                let prep = Prepared {
                    bypass: false,
                    ecn_ok: p.ecn_ok,
                    local_prob: p.lp,
                };
                let q = QueueView {
                    packets: 0,
                    bytes: backlog,
                };
                let d = finish(prep, acc, q, 1000, 64, p.rnd);
                assert_eq!(
                    b.verdict_code.val().to_u64(),
                    d.verdict.code() as u64,
                    "packet {got}: lp {:#x} acc {acc:#x} rnd {:#x}",
                    p.lp,
                    p.rnd
                );
                acc = d.accu_prob;
                codes.push(d.verdict.code() as u64);
                // The accumulator is updated at the same edge as the verdict register.
                assert_eq!(b.acc.val().to_u64(), acc, "accumulator after packet {got}");
                if d.verdict.is_enqueued() {
                    backlog += 1500;
                }
                got += 1;
            }
            clock_edge(&mut b, |b| &mut b.clock);
        }
        assert_eq!(got, pkts.len());
        (codes, acc)
    }

    #[test]
    fn accumulator_thresholds_are_exact() {
        let never = u64::MAX; // (rnd >> 8) = 2^56 - 1 is never below a local probability
        let mut v = vec![
            pkt(0, 0),
            pkt(ACCU_LOW - 5, never),
            pkt(4, never),
            pkt(1, 1 << 8),
            pkt(0, 0),
        ];
        // Up to 8 x 100 %, then exactly 8.5: an early drop without a draw.
        v.extend([pkt(MAX_PROB, never); 8]);
        v.push(pkt(ACCU_HIGH - 8 * MAX_PROB, never));
        // Once more, one short of 8.5: a draw that misses.
        v.extend([pkt(MAX_PROB, never); 8]);
        v.push(pkt(ACCU_HIGH - 8 * MAX_PROB - 1, never));
        let (codes, acc) = run(&v);
        assert_eq!(codes.iter().filter(|&&c| c == 2).count(), 1, "{codes:?}");
        assert_eq!(codes[13], 2);
        assert_eq!(acc, ACCU_HIGH - 1);
    }

    #[test]
    fn random_draw_is_strictly_below() {
        let lp = (1 << 40) + 12345;
        let mut v = vec![pkt(0, 0), pkt(ACCU_LOW, u64::MAX)];
        v.push(pkt(lp, lp << 8)); // rnd >> 8 == lp: no drop
        v.push(pkt(lp, (lp - 1) << 8 | 0xff)); // just below: drop
        v.push(pkt(ACCU_LOW, u64::MAX));
        v.push(pkt(lp, ((lp >> 28) << 28 | 0x0fff_ffff) << 8)); // same high half, low half above
        let (codes, _) = run(&v);
        assert_eq!(codes[2..], [0, 2, 0, 0], "{codes:?}");
    }

    #[test]
    fn carries_across_the_split_halves() {
        let v: Vec<Pkt> = [
            0,
            (1 << 30) - 1,
            1,
            (1 << 30) - 1,
            (1 << 30) + 1,
            (1 << 56) - (1 << 30),
        ]
        .into_iter()
        .map(|lp| pkt(lp, u64::MAX))
        .collect();
        run(&v);
    }

    #[test]
    fn marks_keep_the_accumulator_which_saturates_at_60_bits() {
        let mut v = vec![pkt(0, 0)];
        v.extend(
            [Pkt {
                lp: MAX_PROB,
                rnd: u64::MAX,
                ecn_ok: true,
            }; 40],
        );
        let (codes, acc) = run(&v);
        assert!(codes.iter().filter(|&&c| c == 1).count() > 25, "{codes:?}");
        assert_eq!(acc, ACCU_MAX);
    }

    #[test]
    fn is_synthesizable() {
        let mut b = PieIngress::<1>::default();
        b.connect_all();
        yosys_validate("pie_ingress", &generate_verilog(&b)).unwrap();
    }
}
