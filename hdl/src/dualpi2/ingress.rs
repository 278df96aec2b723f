//! DualPI2's enqueue side (spec/dualpi2.md, "Classification at enqueue"): one descriptor per clock.
//!
//! ```text
//! accept  the descriptor and its class, (ECN & ecn_mask) != 0 -> L
//! V       the limits against the live queues (packets of both, bytes of both, the packet's own queue
//!         full), the step bit (L held >= min_qlen_step); push with the enqueue timestamp; counters
//! +1      the verdict: 0 enqueued, 3 tail drop; the queue
//! ```
//! Stage V alone reads the queue counts and the byte backlogs that carry from one packet to the next, so
//! back-to-back packets see each other exactly as in a sequential model. The byte backlogs live here:
//! each cycle they take this cycle's push and the egress's pop (`pop_l`/`pop_c` of `pop_len` bytes).
//!
//! Beside the backlogs, the ingress keeps their gap to 2 MTU, L + C - 2 MTU, for the egress's 2 MTU gate:
//! computed from the same push and pop and the parameter engine's next MTU (a commit or a reset included),
//! so that it is exact in every cycle and the gate's path starts at a register. (From the backlogs, the
//! gate was three carry-save levels and a chain ahead of the drop and the credit's update.)
//!
//! The byte limit is checked on the gap too: L + C + len > byte limit is gap + (len + 2 MTU - byte
//! limit - 1) >= 0, and the accept stage takes that second term from the descriptor and the engine's
//! next MTU and byte limit (those of stage V's cycle, a commit included), so V's check is one carry
//! chain of two registers. The loop that closes a cycle, gap -> the check -> the push -> gap, then
//! holds that one chain: the gap's update is made with the push and without it, and the push chooses
//! last. (Checked on the backlogs, behind two carry-save levels, with the update after the push, it
//! held two chains and four LUT levels; the backlogs' own updates are no longer on a loop.)

use crate::arith::{AddSub, Csa};
use crate::konst::K;
use aqm_golden::dualpi2::params::HARDWARE_PARAMS as H;
use rust_hdl::prelude::*;

/// The gap out of a reset: no backlog, MTU at its reset value.
const RESET_GAP: u64 = (1 << 24) - 2 * H.mtu as u64;

#[derive(LogicBlock, Default)]
pub struct DualPi2Ingress<const TWO: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now40: Signal<In, Bits<40>>, // ns; the enqueue timestamp is taken in stage V
    // Ingress descriptor stream.
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_len: Signal<In, Bits<16>>,
    pub in_ecn: Signal<In, Bits<2>>,
    pub in_tag: Signal<In, Bits<16>>,
    // Parameters in effect.
    pub ecn_mask: Signal<In, Bits<2>>,
    pub limit: Signal<In, Bits<11>>,
    /// The byte limit after this edge (the parameter engine's register input).
    pub byte_limit_next: Signal<In, Bits<23>>,
    pub min_qlen_step: Signal<In, Bits<10>>,
    /// MTU after this edge (the parameter engine's register input).
    pub mtu_next: Signal<In, Bits<11>>,
    // The queues.
    pub cnt_l: Signal<In, Bits<10>>,
    pub cnt_c: Signal<In, Bits<10>>,
    pub push_l: Signal<Out, Bit>,
    pub push_c: Signal<Out, Bit>,
    pub push_data: Signal<Out, Bits<75>>, // {step[1], ts[40], tag[16], ecn[2], len[16]}
    pub pop_l: Signal<In, Bit>,
    pub pop_c: Signal<In, Bit>,
    pub pop_len: Signal<In, Bits<16>>,
    pub clear_counters: Signal<In, Bit>,
    // Verdict stream.
    pub verdict_valid: Signal<Out, Bit>,
    pub verdict_tag: Signal<Out, Bits<16>>,
    pub verdict_code: Signal<Out, Bits<2>>, // 0 enqueued, 3 tail drop
    pub verdict_queue: Signal<Out, Bit>,    // 1 = L
    // State and counters.
    pub bytes_l: Signal<Out, Bits<22>>,
    pub bytes_c: Signal<Out, Bits<22>>,
    /// L + C - 2 MTU (bytes, 24-bit two's complement) in a register of its own: the egress's 2 MTU
    /// gate less the head's length.
    pub gap: Signal<Out, Bits<24>>,
    pub pkts_in_l: Signal<Out, Bits<32>>,
    pub pkts_in_c: Signal<Out, Bits<32>>,
    pub dropped_l: Signal<Out, Bits<32>>,
    pub dropped_c: Signal<Out, Bits<32>>,
    pub maxq: Signal<Out, Bits<11>>,
    /// A descriptor in stage V, or pushed in one of the last three cycles (not at its queue's head yet).
    pub busy: Signal<Out, Bit>,

    v_valid: DFF<Bit>,
    v_len: DFF<Bits<16>>,
    v_ecn: DFF<Bits<2>>,
    v_tag: DFF<Bits<16>>,
    v_l: DFF<Bit>,
    /// len + 2 MTU - byte limit - 1 (25-bit two's complement), with stage V's MTU and byte limit.
    v_room: DFF<Bits<25>>,
    /// Its sum at accept: len + 2 MTU' + ~byte limit' in one carry-save level and one chain.
    r_csa: Csa<25>,
    pushed: DFF<Bit>,
    pushed2: DFF<Bit>,
    pushed3: DFF<Bit>,
    vv: DFF<Bit>,
    vtag: DFF<Bits<16>>,
    vcode: DFF<Bits<2>>,
    vq: DFF<Bit>,
    bytes_l_r: DFF<Bits<22>>,
    bytes_c_r: DFF<Bits<22>>,
    pkts_in_l_r: DFF<Bits<32>>,
    pkts_in_c_r: DFF<Bits<32>>,
    dropped_l_r: DFF<Bits<32>>,
    dropped_c_r: DFF<Bits<32>>,
    maxq_r: DFF<Bits<11>>,
    total: Signal<Local, Bits<11>>,
    own: Signal<Local, Bits<10>>,
    // The packet limit as one carry chain behind carry-save compression (3:2: three words to a sum
    // word and a carry word): L + C >= LIMIT is L + C - LIMIT not negative. The byte limit: the sign of
    // gap + room. (A complement in a signal of its own width: inside a wider expression Verilog would
    // widen before the `~`.)
    cnt_chk: AddSub<13>,
    nbl: Signal<Local, Bits<25>>,
    b_chk: Signal<Local, Bits<25>>,
    drop: Signal<Local, Bit>,
    enq: Signal<Local, Bit>,
    step: Signal<Local, Bit>,
    /// Each byte backlog's update: backlog - pop (`keep_*`), and backlog + the packet in V - pop
    /// (`add_*`), made beside V's decision, which then only chooses between them (as for the gap):
    /// V's limit checks are not in front of a 22-bit chain. (With the push's length added after the
    /// decision, the ECP5 DualPI2 core's longest path ran from the packet count's check through the
    /// push into L's backlog, 11.4 ns. As one `AddSub` each, synthesis gave the core 166 more LUT4,
    /// flattened.) In the fast form (`TWO` = 1) the pop is one chain from either: backlog + the
    /// packet in V (`pre_*`) is summed from flip-flops beside it (with keep + len after the pop, the
    /// pick's path into a backlog held two chains: 12.4 ns on the ECP5 DualPI2 core); the small form
    /// adds the packet to `keep_*` (two chains fewer, 68 LUT4 on the iCE40).
    add_l: Signal<Local, Bits<22>>,
    add_c: Signal<Local, Bits<22>>,
    pre_l: Signal<Local, Bits<22>>,
    pre_c: Signal<Local, Bits<22>>,
    sub_l: Signal<Local, Bits<22>>,
    sub_c: Signal<Local, Bits<22>>,
    keep_l: Signal<Local, Bits<22>>,
    keep_c: Signal<Local, Bits<22>>,
    /// The gap after this edge, L + C + push - pop - 2 MTU', from the backlogs before it: ~(2 MTU')
    /// and ~pop (each -x - 1) with the 1s in the empty low bits of the shifted majority words:
    /// L + C - 2 MTU' - pop in two carry-save levels, the gap without the push in one chain from
    /// there; with the push, + len in a third level and a chain; the push chooses.
    gap_r: DFF<Bits<24>>,
    n2mtu: Signal<Local, Bits<24>>,
    sub: Signal<Local, Bits<24>>,
    nsub: Signal<Local, Bits<24>>,
    g1: Csa<24>,
    g2: Csa<24>,
    g3: Csa<24>,
    gap_push: Signal<Local, Bits<24>>,
    gap_keep: Signal<Local, Bits<24>>,
    c_reset_gap: K<24, RESET_GAP>,
    /// The core's fast form (heads in registers).
    two: K<1, TWO>,
}

impl<const TWO: u64> Logic for DualPi2Ingress<TWO> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            v_valid,
            v_len,
            v_ecn,
            v_tag,
            v_l,
            v_room,
            pushed,
            pushed2,
            pushed3,
            vv,
            vtag,
            vcode,
            vq,
            bytes_l_r,
            bytes_c_r,
            pkts_in_l_r,
            pkts_in_c_r,
            dropped_l_r,
            dropped_c_r,
            maxq_r,
            gap_r
        );
        // Accept.
        self.in_ready.next = !self.rst.val();
        self.v_valid.d.next = self.in_valid.val();
        self.v_len.d.next = self.in_len.val();
        self.v_ecn.d.next = self.in_ecn.val();
        self.v_tag.d.next = self.in_tag.val();
        self.v_l.d.next = (self.in_ecn.val() & self.ecn_mask.val()).any();
        self.nbl.next = !bit_cast::<25, 23>(self.byte_limit_next.val());
        self.r_csa.a.next = bit_cast::<25, 16>(self.in_len.val());
        self.r_csa.b.next = bit_cast::<25, 11>(self.mtu_next.val()) << 1;
        self.r_csa.c.next = self.nbl.val();
        self.v_room.d.next = self.r_csa.s.val() + (self.r_csa.k.val() << 1);

        // Stage V.
        self.total.next =
            bit_cast::<11, 10>(self.cnt_l.val()) + bit_cast::<11, 10>(self.cnt_c.val());
        self.own.next = self.cnt_c.val();
        if self.v_l.q.val() {
            self.own.next = self.cnt_l.val();
        }
        self.cnt_chk.a.next = bit_cast::<13, 10>(self.cnt_l.val());
        self.cnt_chk.b.next = bit_cast::<13, 10>(self.cnt_c.val());
        self.cnt_chk.c.next = bit_cast::<13, 11>(self.limit.val());
        // gap + room = L + C + len - byte limit - 1, within +-2^24: its sign in bit 24 (the gap
        // sign-extended).
        self.b_chk.next = (bit_cast::<25, 24>(self.gap_r.q.val())
            | (bit_cast::<25, 1>(self.gap_r.q.val().get_bit(23).into()) << 24))
            + self.v_room.q.val();
        self.drop.next = !self.cnt_chk.sum.val().get_bit(12)
            | !self.b_chk.val().get_bit(24)
            | self.own.val().get_bit(9);
        self.enq.next = self.v_valid.q.val() & !self.drop.val();
        self.step.next = self.v_l.q.val() & (self.cnt_l.val() >= self.min_qlen_step.val());
        self.push_l.next = self.enq.val() & self.v_l.q.val();
        self.push_c.next = self.enq.val() & !self.v_l.q.val();
        self.push_data.next = (bit_cast::<75, 1>(self.step.val().into()) << 74)
            | (bit_cast::<75, 40>(self.now40.val()) << 34)
            | (bit_cast::<75, 16>(self.v_tag.q.val()) << 18)
            | (bit_cast::<75, 2>(self.v_ecn.q.val()) << 16)
            | bit_cast::<75, 16>(self.v_len.q.val());
        self.pushed.d.next = self.enq.val();
        self.pushed2.d.next = self.pushed.q.val();
        self.pushed3.d.next = self.pushed2.q.val();
        self.vv.d.next = self.v_valid.q.val();
        self.vtag.d.next = 0.into();
        self.vcode.d.next = 0.into();
        self.vq.d.next = false;
        if self.v_valid.q.val() {
            self.vtag.d.next = self.v_tag.q.val();
            self.vq.d.next = self.v_l.q.val();
            if self.drop.val() {
                self.vcode.d.next = 3.into();
                if self.v_l.q.val() {
                    self.dropped_l_r.d.next = self.dropped_l_r.q.val() + 1;
                } else {
                    self.dropped_c_r.d.next = self.dropped_c_r.q.val() + 1;
                }
            } else {
                if self.v_l.q.val() {
                    self.pkts_in_l_r.d.next = self.pkts_in_l_r.q.val() + 1;
                } else {
                    self.pkts_in_c_r.d.next = self.pkts_in_c_r.q.val() + 1;
                }
                if self.total.val() >= self.maxq_r.q.val() {
                    self.maxq_r.d.next = self.total.val() + 1;
                }
            }
        }

        // Byte backlogs: this cycle's push in, this cycle's pop out.
        self.sub_l.next = 0.into();
        self.sub_c.next = 0.into();
        if self.pop_l.val() {
            self.sub_l.next = bit_cast::<22, 16>(self.pop_len.val());
        }
        if self.pop_c.val() {
            self.sub_c.next = bit_cast::<22, 16>(self.pop_len.val());
        }
        self.keep_l.next = self.bytes_l_r.q.val() - self.sub_l.val();
        self.keep_c.next = self.bytes_c_r.q.val() - self.sub_c.val();
        self.pre_l.next = self.bytes_l_r.q.val() + bit_cast::<22, 16>(self.v_len.q.val());
        self.pre_c.next = self.bytes_c_r.q.val() + bit_cast::<22, 16>(self.v_len.q.val());
        self.add_l.next = self.keep_l.val() + bit_cast::<22, 16>(self.v_len.q.val());
        self.add_c.next = self.keep_c.val() + bit_cast::<22, 16>(self.v_len.q.val());
        if self.two.val().any() {
            self.add_l.next = self.pre_l.val() - self.sub_l.val();
            self.add_c.next = self.pre_c.val() - self.sub_c.val();
        }
        self.bytes_l_r.d.next = self.keep_l.val();
        self.bytes_c_r.d.next = self.keep_c.val();
        if self.push_l.val() {
            self.bytes_l_r.d.next = self.add_l.val();
        }
        if self.push_c.val() {
            self.bytes_c_r.d.next = self.add_c.val();
        }
        // The gap, from the same push and pop (each goes to one queue), the push choosing last.
        self.n2mtu.next = !(bit_cast::<24, 11>(self.mtu_next.val()) << 1);
        self.sub.next = 0.into();
        if self.pop_l.val() | self.pop_c.val() {
            self.sub.next = bit_cast::<24, 16>(self.pop_len.val());
        }
        self.nsub.next = !self.sub.val();
        self.g1.a.next = bit_cast::<24, 22>(self.bytes_l_r.q.val());
        self.g1.b.next = bit_cast::<24, 22>(self.bytes_c_r.q.val());
        self.g1.c.next = self.n2mtu.val();
        self.g2.a.next = self.g1.s.val();
        self.g2.b.next = (self.g1.k.val() << 1) | 1_u64.to_bits();
        self.g2.c.next = self.nsub.val();
        self.gap_keep.next = self.g2.s.val() + ((self.g2.k.val() << 1) | 1_u64.to_bits());
        self.g3.a.next = self.g2.s.val();
        self.g3.b.next = (self.g2.k.val() << 1) | 1_u64.to_bits();
        self.g3.c.next = bit_cast::<24, 16>(self.v_len.q.val());
        self.gap_push.next = self.g3.s.val() + (self.g3.k.val() << 1);
        self.gap_r.d.next = self.gap_keep.val();
        if self.enq.val() {
            self.gap_r.d.next = self.gap_push.val();
        }

        self.verdict_valid.next = self.vv.q.val();
        self.verdict_tag.next = self.vtag.q.val();
        self.verdict_code.next = self.vcode.q.val();
        self.verdict_queue.next = self.vq.q.val();
        self.bytes_l.next = self.bytes_l_r.q.val();
        self.bytes_c.next = self.bytes_c_r.q.val();
        self.gap.next = self.gap_r.q.val();
        self.pkts_in_l.next = self.pkts_in_l_r.q.val();
        self.pkts_in_c.next = self.pkts_in_c_r.q.val();
        self.dropped_l.next = self.dropped_l_r.q.val();
        self.dropped_c.next = self.dropped_c_r.q.val();
        self.maxq.next = self.maxq_r.q.val();
        self.busy.next = self.v_valid.q.val()
            | self.pushed.q.val()
            | self.pushed2.q.val()
            | self.pushed3.q.val();

        if self.clear_counters.val() {
            self.pkts_in_l_r.d.next = 0.into();
            self.pkts_in_c_r.d.next = 0.into();
            self.dropped_l_r.d.next = 0.into();
            self.dropped_c_r.d.next = 0.into();
            self.maxq_r.d.next = 0.into();
        }
        if self.rst.val() {
            self.v_valid.d.next = false;
            self.pushed.d.next = false;
            self.pushed2.d.next = false;
            self.pushed3.d.next = false;
            self.vv.d.next = false;
            self.vtag.d.next = 0.into();
            self.vcode.d.next = 0.into();
            self.vq.d.next = false;
            self.bytes_l_r.d.next = 0.into();
            self.bytes_c_r.d.next = 0.into();
            self.gap_r.d.next = self.c_reset_gap.val();
            self.pkts_in_l_r.d.next = 0.into();
            self.pkts_in_c_r.d.next = 0.into();
            self.dropped_l_r.d.next = 0.into();
            self.dropped_c_r.d.next = 0.into();
            self.maxq_r.d.next = 0.into();
        }
    }
}
