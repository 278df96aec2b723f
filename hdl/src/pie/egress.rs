//! PIE's dequeue side: the link model that paces departures, the departure stream, and the delay sample
//! and burst allowance of spec/pie.md ("Dequeue side").
//!
//! The link model ([`LinkModel`]) decides when the head may leave and its departure time, which stamps
//! everything: the sojourn on the egress stream, PIE's delay sample and the time between dequeues.
//!
//! Time inside the core is the low 40 bits of `now` (about 18 minutes) compared modulo 2^40, so `now` may
//! advance by at most 2^38 ns (about 4.5 minutes) from one clock cycle to the next.
//!
//! ```text
//! cycle c    departure (handshake): pop the head, start the multiplier
//! cycle c+1  D1: delay sample (0 if the queue emptied), time since the previous dequeue, sent counters;
//!            the byte backlog drops by the packet's length (see PieIngress)
//! cycle c+2  D2: the burst allowance drains by that time
//! ```

use crate::konst::K;
use crate::link::LinkModel;
use rust_hdl::prelude::*;

/// Reset value of the burst allowance: Linux's 150 ms, in ticks.
pub const RESET_BURST_TICKS: u64 = 2_343_750;
pub use crate::link::TX_CYCLES;

#[derive(LogicBlock, Default)]
pub struct PieEgress {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now: Signal<In, Bits<64>>, // ns
    // The queue head.
    pub head_valid: Signal<In, Bit>,
    pub head_data: Signal<In, Bits<74>>, // {~ts[40], tag[16], ecn[2], len[16]}
    pub count: Signal<In, Bits<11>>,     // packets queued, head included
    pub pop: Signal<Out, Bit>,
    // Egress stream.
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_len: Signal<Out, Bits<16>>, // bytes
    pub out_ecn: Signal<Out, Bits<2>>,  // CE if marked
    pub out_tag: Signal<Out, Bits<16>>,
    pub out_sojourn: Signal<Out, Bits<40>>, // ns
    // Parameters.
    pub link_bt: Signal<In, Bits<24>>, // ns per byte, Q16.8; 0 = no link model
    pub max_burst: Signal<In, Bits<32>>, // ticks
    // Controller commit of a new measurement cycle: refill the burst allowance.
    pub burst_reset: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    // State and counters.
    pub deq_valid: Signal<Out, Bit>, // a packet departed last cycle (D1) ...
    pub deq_len: Signal<Out, Bits<16>>, // ... with this length
    pub qdelay: Signal<Out, Bits<34>>, // ticks
    pub burst: Signal<Out, Bits<32>>, // ticks
    pub sent_pkts: Signal<Out, Bits<32>>,
    pub sent_bytes: Signal<Out, Bits<40>>,
    /// The end of the current transmission (ns, low 40 bits), meaningful while `link_busy`.
    pub link_free: Signal<Out, Bits<40>>,
    /// The link model is transmitting (states Tx and Wait).
    pub link_busy: Signal<Out, Bit>,
    /// The dequeue stages are working or the multiplier runs.
    pub busy: Signal<Out, Bit>,

    link: LinkModel,
    d1_valid: DFF<Bit>,
    d1_dep: DFF<Bits<40>>,
    d1_tsn: DFF<Bits<40>>, // ~ts
    d1_len: DFF<Bits<16>>,
    d1_empty: DFF<Bit>,
    dq_first: DFF<Bit>,
    dq_stale: DFF<Bit>,
    dq_nsn: DFF<Bits<40>>, // ~(the previous departure time)
    d2_valid: DFF<Bit>,
    d2_dtn: DFF<Bits<34>>, // ~dtime, ticks
    qdelay_r: DFF<Bits<34>>,
    burst_r: DFF<Bits<32>>,
    sent_pkts_r: DFF<Bits<32>>,
    sent_bytes_r: DFF<Bits<40>>,
    now40: Signal<Local, Bits<40>>,
    handshake: Signal<Local, Bit>,
    head_tsn: Signal<Local, Bits<40>>,
    soj_lo: Signal<Local, Bits<21>>, // {borrow, (dep - ts)[19:0]}
    soj_h0: Signal<Local, Bits<20>>,
    soj_h1: Signal<Local, Bits<20>>,
    drain: Signal<Local, Bits<35>>,
    dtime: Signal<Local, Bits<34>>,
    ts_lo: Signal<Local, Bits<20>>,
    no_dtime: K<34, { (1 << 34) - 1 }>, // ~0
    /// The age of the previous dequeue, now - its time (mod 2^40), in carry-select form: whether the
    /// low 20 bits carry into the high ones (now's low bits at least its), and the high 20 bits
    /// without and with that carry. (As one 40-bit chain, 0.5 ns short of a 12 ns clock on the card.)
    age_c: Signal<Local, Bit>,
    age_h0: Signal<Local, Bits<20>>,
    age_h1: Signal<Local, Bits<20>>,
    age_top: Signal<Local, Bits<2>>,
    reset_burst: K<32, RESET_BURST_TICKS>,
}

impl Logic for PieEgress {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            d1_valid,
            d1_dep,
            d1_tsn,
            d1_len,
            d1_empty,
            dq_first,
            dq_stale,
            dq_nsn,
            d2_valid,
            d2_dtn,
            qdelay_r,
            burst_r,
            sent_pkts_r,
            sent_bytes_r
        );
        clock!(self, clock, link);
        self.now40.next = self.now.val().get_bits::<40>(0);
        self.link.rst.next = self.rst.val();
        self.link.now40.next = self.now40.val();
        self.link.link_bt.next = self.link_bt.val();
        // Times that are subtracted are held inverted (the queue holds ~ts): `a - !b` needs no inverter in
        // front of its carry chain.
        self.head_tsn.next = self.head_data.val().get_bits::<40>(34);
        // (An inversion is a signal of its own width: rust-hdl's bit_cast would let Verilog widen the
        // operand before inverting it.)
        self.ts_lo.next = !self.head_tsn.val().get_bits::<20>(0);
        self.soj_lo.next = bit_cast::<21, 20>(self.link.dep.val().get_bits::<20>(0))
            - bit_cast::<21, 20>(self.ts_lo.val());
        self.soj_h0.next =
            self.link.dep.val().get_bits::<20>(20) - !self.head_tsn.val().get_bits::<20>(20);
        self.soj_h1.next =
            self.link.dep.val().get_bits::<20>(20) + self.head_tsn.val().get_bits::<20>(20);
        self.out_valid.next = self.head_valid.val() & self.link.idle.val();
        self.out_len.next = 0.into();
        self.out_ecn.next = 0.into();
        self.out_tag.next = 0.into();
        self.out_sojourn.next = 0.into();
        if self.out_valid.val() {
            self.out_len.next = self.head_data.val().get_bits::<16>(0);
            self.out_ecn.next = self.head_data.val().get_bits::<2>(16);
            self.out_tag.next = self.head_data.val().get_bits::<16>(18);
            // dep - ts as a carry-select subtraction on 20-bit halves; the high half for a borrow is
            // dep_hi - ts_hi - 1 = dep_hi + ~ts_hi.
            self.out_sojourn.next = (bit_cast::<40, 20>(self.soj_h0.val()) << 20)
                | bit_cast::<40, 20>(self.soj_lo.val().get_bits::<20>(0));
            if self.soj_lo.val().get_bit(20) {
                self.out_sojourn.next = (bit_cast::<40, 20>(self.soj_h1.val()) << 20)
                    | bit_cast::<40, 20>(self.soj_lo.val().get_bits::<20>(0));
            }
        }
        self.handshake.next = self.out_valid.val() & self.out_ready.val();
        self.pop.next = self.handshake.val();
        self.link.start.next = self.handshake.val();
        self.link.send.next = true;
        self.link.start_len.next = self.head_data.val().get_bits::<16>(0);
        self.link.start_dep.next = self.link.dep.val();
        self.link.start_frac.next = self.link.dep_frac.val();

        // Departure: D1.
        self.d1_valid.d.next = self.handshake.val();
        if self.handshake.val() {
            self.d1_dep.d.next = self.link.dep.val();
            self.d1_tsn.d.next = self.head_tsn.val();
            self.d1_len.d.next = self.head_data.val().get_bits::<16>(0);
            self.d1_empty.d.next = self.count.val() == 1;
        }
        // The previous dequeue is too old for a 40-bit difference: the next one drains the whole allowance.
        self.age_c.next =
            self.now40.val().get_bits::<20>(0) >= !self.dq_nsn.q.val().get_bits::<20>(0);
        self.age_h0.next =
            self.now40.val().get_bits::<20>(20) + self.dq_nsn.q.val().get_bits::<20>(20);
        self.age_h1.next =
            self.now40.val().get_bits::<20>(20) - !self.dq_nsn.q.val().get_bits::<20>(20);
        self.age_top.next = self.age_h0.val().get_bits::<2>(18);
        if self.age_c.val() {
            self.age_top.next = self.age_h1.val().get_bits::<2>(18);
        }
        if !self.dq_first.q.val() & self.age_top.val().any() {
            self.dq_stale.d.next = true;
        }
        // D1: the delay sample and the time since the previous dequeue, in ticks (ns >> 6).
        self.d2_valid.d.next = self.d1_valid.q.val();
        if self.d1_valid.q.val() {
            self.qdelay_r.d.next = 0.into();
            if !self.d1_empty.q.val() {
                self.qdelay_r.d.next = bit_cast::<34, 40>(self.d1_dep.q.val() >> 6)
                    - !bit_cast::<34, 40>(self.d1_tsn.q.val() >> 6);
            }
            self.d2_dtn.d.next = !(bit_cast::<34, 40>(self.d1_dep.q.val() >> 6)
                - !bit_cast::<34, 40>(self.dq_nsn.q.val() >> 6));
            if self.dq_first.q.val() {
                self.d2_dtn.d.next = self.no_dtime.val();
            }
            if self.dq_stale.q.val() {
                self.d2_dtn.d.next = 0.into();
            }
            self.dq_nsn.d.next = !self.d1_dep.q.val();
            self.dq_first.d.next = false;
            self.dq_stale.d.next = false;
            self.sent_pkts_r.d.next = self.sent_pkts_r.q.val() + 1;
            self.sent_bytes_r.d.next =
                self.sent_bytes_r.q.val() + bit_cast::<40, 16>(self.d1_len.q.val());
        }

        // D2: the burst allowance drains by the time between dequeues: burst - dtime as one 35-bit
        // subtraction (dtime held inverted), 0 when it goes below zero.
        self.dtime.next = !self.d2_dtn.q.val();
        self.drain.next =
            bit_cast::<35, 32>(self.burst_r.q.val()) - bit_cast::<35, 34>(self.dtime.val());
        if self.d2_valid.q.val() & !self.d2_dtn.q.val().all() {
            self.burst_r.d.next = self.drain.val().get_bits::<32>(0);
            if self.drain.val().get_bit(34) {
                self.burst_r.d.next = 0.into();
            }
        }
        if self.burst_reset.val() {
            self.burst_r.d.next = self.max_burst.val();
        }

        self.deq_valid.next = self.d1_valid.q.val();
        self.deq_len.next = self.d1_len.q.val();
        self.qdelay.next = self.qdelay_r.q.val();
        self.burst.next = self.burst_r.q.val();
        self.sent_pkts.next = self.sent_pkts_r.q.val();
        self.sent_bytes.next = self.sent_bytes_r.q.val();
        self.link_free.next = self.link.link_free.val();
        self.link_busy.next = self.link.link_busy.val();
        self.busy.next = self.link.in_tx.val() | self.d1_valid.q.val() | self.d2_valid.q.val();

        if self.clear_counters.val() {
            self.sent_pkts_r.d.next = 0.into();
            self.sent_bytes_r.d.next = 0.into();
        }
        if self.rst.val() {
            self.d1_valid.d.next = false;
            self.d2_valid.d.next = false;
            self.dq_first.d.next = true;
            self.dq_stale.d.next = false;
            self.dq_nsn.d.next = 0xFF_FFFF_FFFF_u64.into();
            self.qdelay_r.d.next = 0.into();
            self.burst_r.d.next = self.reset_burst.val();
            self.sent_pkts_r.d.next = 0.into();
            self.sent_bytes_r.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_synthesizable() {
        let mut b = PieEgress::default();
        b.connect_all();
        yosys_validate("pie_egress", &generate_verilog(&b)).unwrap();
    }
}
