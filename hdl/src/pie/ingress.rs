//! PIE's enqueue side: the verdict pipeline, one descriptor per clock.
//!
//! ```text
//! accept  P0  the slow state is sampled (steps 1, 2 and the ECN condition of step 8, all from
//!             registered flags) and the operand of the local probability: prob, or prob/MTU in bytemode;
//!             the tag and length go into a ring in block RAM
//!        [P0  bytemode only: len x (prob/MTU), one hex digit of prob/MTU per cycle, 13 cycles, during
//!             which `in_ready` is low. Packet mode never stalls.]
//!         P1  local probability lp (step 4), lp - 0.85 and lp - 8.5; the packet takes one random
//!             word; its tag and length are read from the ring
//!         P2  look-ahead: acc + lp, and acc + lp >= 0.85 and >= 8.5, for each accumulator the packet
//!             can find in V (the one now, the sum of the packet in V, or 0), the right one chosen by
//!             the verdict of the packet in V; (rnd >> 8) < lp
//!         V   the verdict from the flags of P2 (with the limit and 2*MTU checks against the queue as V
//!             finds it, from LIMIT and MTU of P1, made for both pushes of the packet ahead and chosen
//!             in V by that push, registered; a departure in the cycle before V still counts);
//!             enqueue
//! ```
//! The verdict appears 5 cycles after acceptance. Only the accumulator, the queue length and the byte
//! backlog carry from one packet to the next. The accumulator is the loop that has to close in one clock
//! at one packet per clock, so nothing wide is computed on it in V: P2 computes, for the packet behind
//! the one in V, its sum and both threshold comparisons against every accumulator V can leave (kept,
//! cleared, or the sum of the packet in V), and V's verdict only selects among them. Every carry chain
//! is at most 32 bits (the HX8K closes a bare 64-bit adder at only ~90 MHz): 60-bit sums are carry-select
//! on 30-bit halves. A comparison acc + lp >= C is the sign of acc + (lp - C), lp - C made in P1
//! ([`SubConst`]), in carry-select chains side by side ([`SignSplit`]): after the accumulator's
//! flip-flops one chain and a select, and V reads each comparison from one flip-flop. As balanced LUT
//! trees on the sum's bits (fewer cells: a comparison in a chain takes a logic cell per bit that holds
//! only the carry), they waited for the sum's chain and ABC9 made them six to nine LUTs deep: the PIE
//! card then routed at best to 78.0 MHz, 1.3 ns short of 12 ns; as signs it met 83.3 MHz, for about
//! 400 logic cells (6057 -> 6448 on the card).
//! The accumulator saturates at 8.5 (`ACCU_MAX` = `ACCU_HIGH`), so "saturated" is the comparison with
//! 8.5 that the look-ahead makes anyway: a sum at or above it stands for 8.5, and acc + lp < 2^60.

use crate::arith::{SignSplit, SubConst};
use crate::bram::BlockRam;
use crate::konst::K;
use aqm_golden::pie::consts::{ACCU_HIGH, ACCU_LOW, ACCU_MAX};
use rust_hdl::prelude::*;

/// The ingress timing, defined once with the golden model (hdl/PIE-CORE.md).
pub use aqm_golden::pie::consts::{BYTEMODE_HOLD, VERDICT_LATENCY};

// The multiplier forms 52 bits of product in the 13 cycles a bytemode packet stalls P0 (4 per cycle).
const _: () = assert!(BYTEMODE_HOLD - 1 == 13);

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
    pub deq_valid: Signal<In, Bit>,    // a packet departed last cycle (D1) ...
    pub deq_len: Signal<In, Bits<16>>, // ... with this length: off the byte backlog in its D2
    pub push: Signal<Out, Bit>,
    pub push_data: Signal<Out, Bits<74>>, // {~ts[40], tag[16], ecn[2], len[16]}
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

    /// Each accepted descriptor's tag and length, written at its acceptance into a ring in block RAM and
    /// read when it is in P1, so that they reach P2 (`ring_tag`, `ring_len`) without a register per
    /// stage: at most two descriptors are between acceptance and the end of P1, and P1 to V never stall.
    ring: BlockRam<32, 4>,
    wptr: DFF<Bits<4>>,
    rptr: DFF<Bits<4>>,
    ring_tag: Signal<Local, Bits<16>>,
    ring_len: Signal<Local, Bits<16>>,

    // P0 and the bytemode multiplier.
    v0: DFF<Bit>,
    len0: DFF<Bits<16>>,
    ecn0: DFF<Bits<2>>,
    pass0: DFF<Bit>,
    ecnok0: DFF<Bit>,
    bytes0: DFF<Bit>,
    op0: DFF<Bits<56>>,
    mcnt: DFF<Bits<4>>,
    mlen3: DFF<Bits<13>>, // 3 x len, for the multiplier's digits
    macc: DFF<Bits<11>>,  // the product above the bits already formed
    // P1
    v1: DFF<Bit>,
    ecn1: DFF<Bits<2>>,
    pass1: DFF<Bit>,
    ecnok1: DFF<Bit>,
    lp1: DFF<Bits<56>>,
    // P2
    v2: DFF<Bit>,
    ecn2: DFF<Bits<2>>,
    pass2: DFF<Bit>,
    ecnok2: DFF<Bit>,
    lp2: DFF<Bits<56>>,
    lpz2: DFF<Bit>,
    rwn2: DFF<Bits<56>>, // the random word >> 8, inverted: lp > rw is the carry out of lp + ~rw
    // lp - 0.85 and lp - 8.5, 61-bit two's complement: acc + lp >= C is the sign of acc + (lp - C).
    dl2: DFF<Bits<61>>,
    dh2: DFF<Bits<61>>,
    // For the limit and 2*MTU checks of the packet in P2, from P1: LIMIT, and the bounds on the byte
    // backlog below which it is under 2*MTU (the packet in P2 enqueued or not).
    lim2: DFF<Bits<11>>,
    limm2: DFF<Bits<12>>, // LIMIT - 1 (bit 11: LIMIT was 0), for count + 1 >= LIMIT
    w0_2: DFF<Bits<18>>,  // 2*MTU + the bytes leaving the backlog with the packet in P2 in V
    w1_2: DFF<Bits<19>>,  // w0 - the length of the packet in P2 (signed)
    // P3 = V: the flags chosen by P2's look-ahead.
    v3: DFF<Bit>,
    len3: DFF<Bits<16>>,
    ecn3: DFF<Bits<2>>,
    tag3: DFF<Bits<16>>,
    lpz3: DFF<Bit>, // lp = 0
    ecnok3: DFF<Bit>,
    hit3: DFF<Bit>, // (rnd >> 8) < lp
    zb3: DFF<Bit>,  // lp = 0 or no ECN: at or above 8.5 the accumulator is cleared
    // The queue checks folded with the packet's valid bit and flags (all decided by the end of P2):
    vt3: DFF<Bit>,  // valid, tail drop
    vok3: DFF<Bit>, // valid, no tail drop
    vnb3: DFF<Bit>, // valid, no tail drop, no bypass
    vnl3: DFF<Bit>, // ... and lp != 0
    vnd3: DFF<Bit>, // ... and no ECN mark possible: an early decision drops
    // The same five flags for the queue after a push by the packet now in V, and that push: V takes
    // the set its predecessor's push chose, so that the push (late, with a large fanout) ends at a
    // register instead of running into the flags of the packet behind it.
    vt3p: DFF<Bit>,
    vok3p: DFF<Bit>,
    vnb3p: DFF<Bit>,
    vnl3p: DFF<Bit>,
    vnd3p: DFF<Bit>,
    pushed_r: DFF<Bit>,
    vt: Signal<Local, Bit>,
    vok: Signal<Local, Bit>,
    vnb: Signal<Local, Bit>,
    vnl: Signal<Local, Bit>,
    vnd: Signal<Local, Bit>,
    sum3: DFF<Bits<60>>, // acc + lp of the packet in V (with the accumulator it finds), or 8.5 ...
    // ... acc + lp >= 0.85 (l) and >= 8.5 (h, and then sum3 stands for 8.5).
    gel3: DFF<Bit>,
    geh3: DFF<Bit>,
    gel: Signal<Local, Bit>,
    geh: Signal<Local, Bit>,
    // D2 of a departure: its length leaves the byte backlog.
    dq2_valid: DFF<Bit>,
    dq2_len: DFF<Bits<16>>,
    // Verdict outputs and state.
    vv: DFF<Bit>,
    vtag: DFF<Bits<16>>,
    vcode: DFF<Bits<2>>,
    vcount: DFF<Bits<11>>, // the queue's count in V, for MAXQ
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
    /// MTU - len (17 bits): negative for a packet longer than the MTU.
    len_over: Signal<Local, Bits<17>>,
    ml: Signal<Local, Bits<13>>,
    m_lo: Signal<Local, Bits<13>>,
    m_hi: Signal<Local, Bits<13>>,
    m_t: Signal<Local, Bits<15>>,
    m_s: Signal<Local, Bits<15>>,
    // P2's look-ahead with the sum of the packet in V.
    a_gel: Signal<Local, Bit>,
    a_geh: Signal<Local, Bit>,
    /// lp - 0.85 and lp - 8.5, from P1 into P2.
    sub_l: SubConst<ACCU_LOW>,
    sub_h: SubConst<ACCU_HIGH>,
    w0: Signal<Local, Bits<18>>,
    sm0: Signal<Local, Bit>,
    sm1: Signal<Local, Bit>,
    bl_hi_zero: Signal<Local, Bit>,
    tg0: Signal<Local, Bit>,
    tg1: Signal<Local, Bit>,
    // V.
    hit_lo: Signal<Local, Bits<31>>,
    hit_h0: Signal<Local, Bits<27>>,
    hit_h1: Signal<Local, Bits<27>>,
    hit: Signal<Local, Bit>,
    t0: Signal<Local, Bit>,
    t1: Signal<Local, Bit>,
    nb0: Signal<Local, Bit>,
    nb1: Signal<Local, Bit>,
    early: Signal<Local, Bit>,
    drop: Signal<Local, Bit>,
    sel_zero: Signal<Local, Bit>,
    sel_add: Signal<Local, Bit>,
    code: Signal<Local, Bits<2>>,
    ecn_out: Signal<Local, Bits<2>>,
    deq: Signal<Local, Bits<32>>,
    len32: Signal<Local, Bits<32>>,
    bl_base: Signal<Local, Bits<32>>,
    cs_s: Signal<Local, Bits<32>>,
    cs_c: Signal<Local, Bits<32>>,
    bl_plus: Signal<Local, Bits<32>>,
    accu_max: K<60, ACCU_MAX>, // 8.5
    // The look-ahead's comparisons with 0.85 (l) and 8.5 (h), as logic (no carry chain): of the sum with
    // the accumulator kept (k), with the sum of the packet in V (a), and of lp alone (z).
    /// P2's look-ahead on the kept accumulator and on the sum of the packet in V.
    kept: LookAhead,
    added: LookAhead,
    bytemode_hw: K<1, BM>,
}

impl<const BM: u64> Logic for PieIngress<BM> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            v0,
            len0,
            wptr,
            rptr,
            ecn0,
            pass0,
            ecnok0,
            bytes0,
            op0,
            mcnt,
            mlen3,
            macc,
            v1,
            ecn1,
            pass1,
            ecnok1,
            lp1,
            v2,
            ecn2,
            pass2,
            ecnok2,
            lp2,
            lpz2,
            rwn2,
            dl2,
            dh2,
            v3,
            len3,
            ecn3,
            tag3,
            lpz3,
            ecnok3,
            hit3,
            zb3,
            vt3,
            vok3,
            vnb3,
            vnl3,
            vnd3,
            vt3p,
            vok3p,
            vnb3p,
            vnl3p,
            vnd3p,
            pushed_r,
            sum3,
            gel3,
            geh3,
            dq2_valid,
            dq2_len,
            lim2,
            limm2,
            w0_2,
            w1_2,
            vv,
            vtag,
            vcode,
            vcount,
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
        // The tag and length ring: written at acceptance, read in P1 (for P2).
        clock!(self, clock, ring);
        self.ring.write_enable.next = self.accept.val();
        self.ring.write_address.next = self.wptr.q.val();
        self.ring.write_data.next =
            (bit_cast::<32, 16>(self.in_tag.val()) << 16) | bit_cast::<32, 16>(self.in_len.val());
        if self.accept.val() {
            self.wptr.d.next = self.wptr.q.val() + 1;
        }
        self.ring.read_address.next = self.rptr.q.val();
        if self.v1.q.val() {
            self.rptr.d.next = self.rptr.q.val() + 1;
        }
        self.ring_tag.next = self.ring.read_data.val().get_bits::<16>(16);
        self.ring_len.next = self.ring.read_data.val().get_bits::<16>(0);

        // len <= MTU as the sign of MTU - len, one 17-bit carry chain. Written `<=`, the PIE card's
        // longest path ran from in_len through five LUT levels into the operand's mux (72.6 MHz);
        // as the sign, 73.6 and 41 logic cells fewer.
        self.len_over.next =
            bit_cast::<17, 16>(self.mtu.val()) - bit_cast::<17, 16>(self.in_len.val());
        self.in_bytes.next = self.bytemode.val()
            & !self.len_over.val().get_bit(16)
            & self.bytemode_hw.val().get_bit(0);
        if !self.stall.val() {
            self.v0.d.next = self.accept.val();
            self.len0.d.next = self.in_len.val();
            self.ecn0.d.next = self.in_ecn.val();
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
            self.mlen3.d.next = bit_cast::<13, 11>(self.in_len.val().get_bits::<11>(0))
                + (bit_cast::<13, 11>(self.in_len.val().get_bits::<11>(0)) << 1);
            self.macc.d.next = 0.into();
        }
        // The bytemode multiplier, one hex digit of prob/MTU per cycle (len <= MTU < 2^11; prob/MTU <
        // 2^52 since MTU >= 64): each step adds len x the operand's low digit (two base-4 digits, each
        // 0, len, 2 len or 3 len) to macc, and the sum's low four bits are product bits. They enter the
        // operand's low 52 bits from above while it shifts down by a digit, so after 13 steps (the
        // stall: BYTEMODE_HOLD - 1) those hold the product's bits 0..51 and the top four bits the
        // sum's next four, bits 52..55: op0 is len x (prob/MTU) mod 2^56.
        self.ml.next = bit_cast::<13, 11>(self.len0.q.val().get_bits::<11>(0));
        self.m_lo.next = 0.into();
        if self.op0.q.val().get_bits::<2>(0) == 1 {
            self.m_lo.next = self.ml.val();
        }
        if self.op0.q.val().get_bits::<2>(0) == 2 {
            self.m_lo.next = self.ml.val() << 1;
        }
        if self.op0.q.val().get_bits::<2>(0) == 3 {
            self.m_lo.next = self.mlen3.q.val();
        }
        self.m_hi.next = 0.into();
        if self.op0.q.val().get_bits::<2>(2) == 1 {
            self.m_hi.next = self.ml.val();
        }
        if self.op0.q.val().get_bits::<2>(2) == 2 {
            self.m_hi.next = self.ml.val() << 1;
        }
        if self.op0.q.val().get_bits::<2>(2) == 3 {
            self.m_hi.next = self.mlen3.q.val();
        }
        self.m_t.next = bit_cast::<15, 11>(self.macc.q.val()) + bit_cast::<15, 13>(self.m_lo.val());
        self.m_s.next = self.m_t.val() + (bit_cast::<15, 13>(self.m_hi.val()) << 2);
        if self.stall.val() {
            self.mcnt.d.next = self.mcnt.q.val() + 1;
            self.macc.d.next = self.m_s.val().get_bits::<11>(4);
            self.op0.d.next = (bit_cast::<56, 8>(self.m_s.val().get_bits::<8>(0)) << 48)
                | bit_cast::<56, 48>(self.op0.q.val().get_bits::<48>(4));
        }

        // P1: the local probability; the random word.
        self.v1.d.next = self.advance.val();
        self.ecn1.d.next = self.ecn0.q.val();
        self.pass1.d.next = self.pass0.q.val();
        self.ecnok1.d.next = self.ecnok0.q.val();
        self.lp1.d.next = self.op0.q.val();
        self.rnd_take.next = self.v1.q.val() & !self.rst.val();
        self.v2.d.next = self.v1.q.val();
        self.ecn2.d.next = self.ecn1.q.val();
        self.pass2.d.next = self.pass1.q.val();
        self.ecnok2.d.next = self.ecnok1.q.val();
        self.lp2.d.next = self.lp1.q.val();
        self.lpz2.d.next = !self.lp1.q.val().any();
        // lp - C for both thresholds (its sign is lp < C: the look-ahead with the accumulator
        // cleared).
        self.sub_l.x.next = self.lp1.q.val();
        self.sub_h.x.next = self.lp1.q.val();
        self.dl2.d.next = self.sub_l.d.val();
        self.dh2.d.next = self.sub_h.d.val();
        self.rwn2.d.next = !bit_cast::<56, 64>(self.rnd.val() >> 8);
        // The byte backlog of the cycle after next is B - (D2 of next cycle) + (the push of the packet
        // now in P2, if any) = B - deq + push; it is under 2*MTU iff B < 2*MTU + deq - push.
        self.w0.next = bit_cast::<18, 16>(self.mtu.val()) << 1;
        if self.deq_valid.val() {
            self.w0.next =
                (bit_cast::<18, 16>(self.mtu.val()) << 1) + bit_cast::<18, 16>(self.deq_len.val());
        }
        self.w0_2.d.next = self.w0.val();
        self.w1_2.d.next =
            bit_cast::<19, 18>(self.w0.val()) - bit_cast::<19, 16>(self.ring_len.val());
        self.lim2.d.next = self.limit.val();
        self.limm2.d.next = bit_cast::<12, 11>(self.limit.val()) - 1;

        // V's comparisons of its sum with 0.85 and 8.5, made in P2.
        self.gel.next = self.gel3.q.val();
        self.geh.next = self.geh3.q.val();

        // P2: the look-ahead. Kept accumulator: acc + lp (carry-select halves), and acc + lp >= C for
        // both thresholds as the signs of acc + (lp - C).
        self.kept.base.next = self.acc_r.q.val();
        self.kept.lp.next = self.lp2.q.val();
        self.kept.dl.next = self.dl2.q.val();
        self.kept.dh.next = self.dh2.q.val();
        // The accumulator becomes the sum of the packet in V: the same against that sum (8.5 if it is
        // at or above 8.5: then so is the next; the sum itself does not matter then).
        self.added.base.next = self.sum3.q.val();
        self.added.lp.next = self.lp2.q.val();
        self.added.dl.next = self.dl2.q.val();
        self.added.dh.next = self.dh2.q.val();
        // (Past 8.5 the next sum is too. The signs are exact while the base is below 8.5, |base + lp -
        // C| < 2^60; at or above it `geh` decides, and the sum of a run of marks there may grow past
        // 2^60 unseen.)
        self.a_gel.next = self.added.ge_l.val() | self.geh.val();
        self.a_geh.next = self.added.ge_h.val() | self.geh.val();

        // The queue as the packet in P2 will find it in V: count + push against LIMIT (a packet that
        // departs in V's previous cycle still counts: that keeps the pop, a late signal with a large
        // fanout, out of this path), the byte backlog against the bounds from P1 (its high bits are
        // zero below 2^18). (No adder on the count: the queue has its own.)
        self.tg0.next = self.count.val() >= self.lim2.q.val();
        self.tg1.next = self.limm2.q.val().get_bit(11)
            | (bit_cast::<12, 11>(self.count.val()) >= self.limm2.q.val());
        self.bl_hi_zero.next = !self.backlog_r.q.val().get_bits::<14>(18).any();
        self.sm0.next =
            self.bl_hi_zero.val() & (self.backlog_r.q.val().get_bits::<18>(0) < self.w0_2.q.val());
        self.sm1.next = self.bl_hi_zero.val()
            & !self.w1_2.q.val().get_bit(18)
            & (self.backlog_r.q.val().get_bits::<18>(0) < self.w1_2.q.val().get_bits::<18>(0));

        // V: the verdict (finish() of the golden model), from registered flags only, in two LUT levels:
        // past the tail drop and the bypasses (folded into vt, vnb, ... at the end of P2), the packet
        // makes an early decision iff lp != 0 and acc + lp >= 0.85 and (acc + lp >= 8.5 or the draw
        // hits); it then clears the accumulator if it drops or drew, else (a mark at or above 8.5)
        // adds. Below 0.85 it adds; lp = 0 clears.
        self.vt.next = self.vt3.q.val();
        self.vok.next = self.vok3.q.val();
        self.vnb.next = self.vnb3.q.val();
        self.vnl.next = self.vnl3.q.val();
        self.vnd.next = self.vnd3.q.val();
        if self.pushed_r.q.val() {
            self.vt.next = self.vt3p.q.val();
            self.vok.next = self.vok3p.q.val();
            self.vnb.next = self.vnb3p.q.val();
            self.vnl.next = self.vnl3p.q.val();
            self.vnd.next = self.vnd3p.q.val();
        }
        self.sel_zero.next = self.acc_clear.val()
            | self.vt.val()
            | (self.vnb.val() & self.geh.val() & self.zb3.q.val())
            | (self.vnb.val()
                & !self.geh.val()
                & (self.lpz3.q.val() | (self.gel.val() & self.hit3.q.val())));
        self.sel_add.next = !self.acc_clear.val()
            & ((self.geh.val() & self.vnb.val() & !self.zb3.q.val())
                | (!self.geh.val() & self.vnl.val() & !(self.gel.val() & self.hit3.q.val())));
        self.early.next = self.vnl.val() & self.gel.val() & (self.geh.val() | self.hit3.q.val());
        self.drop.next = self.vnd.val() & self.gel.val() & (self.geh.val() | self.hit3.q.val());
        self.code.next = 0.into();
        if self.vt.val() {
            self.code.next = 3.into();
        } else if self.early.val() {
            if self.ecnok3.q.val() {
                self.code.next = 1.into();
            } else {
                self.code.next = 2.into();
            }
        }

        // The packet in P2 moves to V with the flags of the accumulator V leaves.
        self.v3.d.next = self.v2.q.val();
        self.len3.d.next = self.ring_len.val();
        self.ecn3.d.next = self.ecn2.q.val();
        self.tag3.d.next = self.ring_tag.val();
        self.lpz3.d.next = self.lpz2.q.val();
        // (rnd >> 8) < lp: the carry out of lp + ~rw, carry-select on the halves; then the packet's
        // own flags folded per region of acc + lp.
        self.hit_lo.next = bit_cast::<31, 30>(self.lp2.q.val().get_bits::<30>(0))
            + bit_cast::<31, 30>(self.rwn2.q.val().get_bits::<30>(0));
        self.hit_h0.next = bit_cast::<27, 26>(self.lp2.q.val().get_bits::<26>(30))
            + bit_cast::<27, 26>(self.rwn2.q.val().get_bits::<26>(30));
        // (`a - !b` is a + b + 1 in one chain.)
        self.hit_h1.next = bit_cast::<27, 26>(self.lp2.q.val().get_bits::<26>(30))
            - !bit_cast::<27, 26>(self.rwn2.q.val().get_bits::<26>(30));
        self.hit.next = self.hit_h0.val().get_bit(26);
        if self.hit_lo.val().get_bit(30) {
            self.hit.next = self.hit_h1.val().get_bit(26);
        }
        self.ecnok3.d.next = self.ecnok2.q.val();
        self.hit3.d.next = self.hit.val();
        self.zb3.d.next = self.lpz2.q.val() | !self.ecnok2.q.val();
        // The comparisons for the accumulator V leaves: kept, the sum of the packet in V, or cleared
        // (lp alone: the sign of lp - C).
        self.gel3.d.next = self.kept.ge_l.val();
        self.geh3.d.next = self.kept.ge_h.val();
        if self.sel_add.val() {
            self.gel3.d.next = self.a_gel.val();
            self.geh3.d.next = self.a_geh.val();
        }
        if self.sel_zero.val() {
            self.gel3.d.next = !self.dl2.q.val().get_bit(60);
            self.geh3.d.next = !self.dh2.q.val().get_bit(60);
        }
        self.sum3.d.next = self.kept.sum.val();
        if self.sel_add.val() {
            self.sum3.d.next = self.added.sum.val();
        }
        if self.sel_zero.val() {
            self.sum3.d.next = bit_cast::<60, 56>(self.lp2.q.val());
        }
        if self.sel_add.val() {
            self.acc_r.d.next = self.sum3.q.val();
            if self.geh.val() {
                self.acc_r.d.next = self.accu_max.val();
            }
        }
        if self.sel_zero.val() {
            self.acc_r.d.next = 0.into();
        }

        // (A push in a reset cycle is harmless: the queue and the backlog reset at that edge.)
        self.push.next = self.vok.val() & !self.drop.val();
        // The queue as the packet in P2 finds it in V: after this cycle's push and pop. Each flag for
        // both pushes, both registered; V chooses with the push registered beside them.
        self.t0.next = self.v2.q.val() & self.tg0.val();
        self.t1.next = self.v2.q.val() & self.tg1.val();
        self.nb0.next = self.v2.q.val() & !self.tg0.val() & !self.pass2.q.val() & !self.sm0.val();
        self.nb1.next = self.v2.q.val() & !self.tg1.val() & !self.pass2.q.val() & !self.sm1.val();
        self.vt3.d.next = self.t0.val();
        self.vok3.d.next = self.v2.q.val() & !self.t0.val();
        self.vnb3.d.next = self.nb0.val();
        self.vnl3.d.next = self.nb0.val() & !self.lpz2.q.val();
        self.vnd3.d.next = self.nb0.val() & !self.lpz2.q.val() & !self.ecnok2.q.val();
        self.vt3p.d.next = self.t1.val();
        self.vok3p.d.next = self.v2.q.val() & !self.t1.val();
        self.vnb3p.d.next = self.nb1.val();
        self.vnl3p.d.next = self.nb1.val() & !self.lpz2.q.val();
        self.vnd3p.d.next = self.nb1.val() & !self.lpz2.q.val() & !self.ecnok2.q.val();
        self.pushed_r.d.next = self.push.val();
        self.ecn_out.next = self.ecn3.q.val();
        if self.code.val() == 1 {
            self.ecn_out.next = 3.into();
        }
        // The timestamp is queued inverted: the egress subtracts it (an adder needs no inverter then).
        self.push_data.next = (bit_cast::<74, 40>(!self.now.val().get_bits::<40>(0)) << 34)
            | (bit_cast::<74, 16>(self.tag3.q.val()) << 18)
            | (bit_cast::<74, 2>(self.ecn_out.val()) << 16)
            | bit_cast::<74, 16>(self.len3.q.val());
        self.vv.d.next = self.v3.q.val();
        self.vtag.d.next = 0.into();
        self.vcode.d.next = 0.into();
        self.vcount.d.next = self.count.val();
        if self.v3.q.val() {
            self.vtag.d.next = self.tag3.q.val();
            self.vcode.d.next = self.code.val();
        }
        // The counters count the verdict register (the cycle after V), so that V's verdict feeds only
        // the queue and the look-ahead.
        if self.vv.q.val() {
            self.pkts_in_r.d.next = self.pkts_in_r.q.val() + 1;
            if self.vcode.q.val().get_bit(1) {
                self.dropped_r.d.next = self.dropped_r.q.val() + 1;
            }
            if self.vcode.q.val() == 3 {
                self.overlimit_r.d.next = self.overlimit_r.q.val() + 1;
            }
            if self.vcode.q.val() == 1 {
                self.marked_r.d.next = self.marked_r.q.val() + 1;
            }
            if !self.vcode.q.val().get_bit(1) & (self.vcount.q.val() >= self.maxq_r.q.val()) {
                self.maxq_r.d.next = self.vcount.q.val() + 1;
            }
        }
        // Byte backlog: the departure of two cycles ago out, this packet in. backlog + len - deq is a 3:2
        // carry-save compression and one adder: a + b + ~c + 1 = s + (carries << 1 | 1).
        self.dq2_valid.d.next = self.deq_valid.val();
        self.dq2_len.d.next = self.deq_len.val();
        self.deq.next = 0.into();
        if self.dq2_valid.q.val() {
            self.deq.next = bit_cast::<32, 16>(self.dq2_len.q.val());
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
            self.wptr.d.next = 0.into();
            self.rptr.d.next = 0.into();
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.vt3.d.next = false;
            self.vok3.d.next = false;
            self.vnb3.d.next = false;
            self.vnl3.d.next = false;
            self.vnd3.d.next = false;
            self.vt3p.d.next = false;
            self.vok3p.d.next = false;
            self.vnb3p.d.next = false;
            self.vnl3p.d.next = false;
            self.vnd3p.d.next = false;
            self.pushed_r.d.next = false;
            self.vv.d.next = false;
            self.vtag.d.next = 0.into();
            self.vcode.d.next = 0.into();
            self.acc_r.d.next = 0.into();
            self.backlog_r.d.next = 0.into();
            self.dq2_valid.d.next = false;
            self.pkts_in_r.d.next = 0.into();
            self.dropped_r.d.next = 0.into();
            self.overlimit_r.d.next = 0.into();
            self.marked_r.d.next = 0.into();
            self.maxq_r.d.next = 0.into();
        }
    }
}

/// P2's look-ahead for one accumulator V can leave: `base + lp` in carry-select form (the low half,
/// and the high half without and with the low half's carry), the sum, and its comparisons with 0.85
/// (`ge_l`) and 8.5 (`ge_h`) as the signs of `base + dl` and `base + dh` (`dl` = lp - 0.85, `dh` =
/// lp - 8.5, from P1), each in the same carry-select form ([`SignSplit`]).
/// A comparison is then a carry chain and a select after the base's flip-flops: as balanced trees of
/// LUTs on the sum's bits after its chain, ABC9 made them six to nine LUTs deep, 1.3 ns short of a
/// 12 ns clock on the PIE card.
#[derive(LogicBlock, Default)]
pub struct LookAhead {
    pub base: Signal<In, Bits<60>>,
    pub lp: Signal<In, Bits<56>>,
    pub dl: Signal<In, Bits<61>>,
    pub dh: Signal<In, Bits<61>>,
    pub sum: Signal<Out, Bits<60>>,
    pub ge_l: Signal<Out, Bit>,
    pub ge_h: Signal<Out, Bit>,
    lo: Signal<Local, Bits<31>>,
    hi0: Signal<Local, Bits<31>>,
    hi1: Signal<Local, Bits<31>>,
    sign_l: SignSplit,
    sign_h: SignSplit,
}

impl Logic for LookAhead {
    #[hdl_gen]
    fn update(&mut self) {
        self.lo.next = bit_cast::<31, 30>(self.base.val().get_bits::<30>(0))
            + bit_cast::<31, 30>(self.lp.val().get_bits::<30>(0));
        self.hi0.next = bit_cast::<31, 30>(self.base.val().get_bits::<30>(30))
            + bit_cast::<31, 26>(self.lp.val().get_bits::<26>(30));
        self.hi1.next = bit_cast::<31, 30>(self.base.val().get_bits::<30>(30))
            - !bit_cast::<31, 26>(self.lp.val().get_bits::<26>(30));
        self.sum.next = (bit_cast::<60, 30>(self.hi0.val().get_bits::<30>(0)) << 30)
            | bit_cast::<60, 30>(self.lo.val().get_bits::<30>(0));
        if self.lo.val().get_bit(30) {
            self.sum.next = (bit_cast::<60, 30>(self.hi1.val().get_bits::<30>(0)) << 30)
                | bit_cast::<60, 30>(self.lo.val().get_bits::<30>(0));
        }
        self.sign_l.a.next = self.base.val();
        self.sign_l.d.next = self.dl.val();
        self.sign_h.a.next = self.base.val();
        self.sign_h.d.next = self.dh.val();
        self.ge_l.next = self.sign_l.nonneg.val();
        self.ge_h.next = self.sign_h.nonneg.val();
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
        /// An idle cycle before this packet.
        gap: bool,
    }

    fn pkt(lp: u64, rnd: u64) -> Pkt {
        Pkt {
            lp,
            rnd,
            ecn_ok: false,
            gap: false,
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
        // The cycles: each packet, after an idle one where it asks for a gap.
        let sched: Vec<Option<&Pkt>> = pkts
            .iter()
            .flat_map(|p| [None, Some(p)].into_iter().skip(if p.gap { 0 } else { 1 }))
            .collect();
        for t in 0..sched.len() + 8 {
            let p = sched.get(t).copied().flatten();
            b.in_valid.next = p.is_some();
            b.in_len.next = 1500u64.to_bits();
            b.in_ecn.next = 2u64.to_bits();
            b.prob.next = p.map_or(0, |p| p.lp).to_bits();
            b.prob_le10.next = p.is_some_and(|p| p.ecn_ok);
            // The word is drawn two cycles after acceptance.
            b.rnd.next = t
                .checked_sub(2)
                .and_then(|k| sched.get(k).copied().flatten())
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

    /// acc + lp exactly at 0.85 draws (a draw of 0 drops), one below does not: on a sum of back-to-back
    /// packets, on lp alone after a drop has cleared the accumulator, and on the accumulator kept after
    /// an idle cycle.
    #[test]
    fn the_low_threshold_is_inclusive() {
        let never = u64::MAX;
        let v = vec![
            pkt(0, 0),
            pkt(ACCU_LOW - 5, never),
            pkt(3, 0),
            pkt(1, 0),
            pkt(1, 0),
            pkt(ACCU_LOW, 0),
            pkt(ACCU_LOW - 1, 0),
            pkt(1, 0),
            pkt(ACCU_LOW - 1, 0),
            Pkt {
                gap: true,
                ..pkt(1, 0)
            },
        ];
        let (codes, _) = run(&v);
        assert_eq!(codes[1..], [0, 0, 0, 2, 2, 0, 2, 0, 2], "{codes:?}");
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
    fn marks_keep_the_accumulator_which_saturates_at_eight_and_a_half() {
        let mut v = vec![pkt(0, 0)];
        v.extend(
            [Pkt {
                ecn_ok: true,
                ..pkt(MAX_PROB, u64::MAX)
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
