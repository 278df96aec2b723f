//! PIE's dequeue side: the link model that paces departures, the departure stream, and the delay sample
//! and burst allowance of spec/pie.md ("Dequeue side").
//!
//! The link model is a gate in front of the queue head: it opens when `now` reaches `link_free`, the time
//! the previous packet's transmission ends, and a departure then occupies the link for
//! `len x link_bt` (ns per byte, Q16.8; 0 switches the model off and leaves pacing to `out_ready`). The
//! transmission time comes from a 16-cycle shift-add multiplier, during which the gate stays shut. A packet
//! that was already waiting when the gate opened departs at exactly `link_free`, with the fraction of a
//! nanosecond carried on, so a backlogged link runs at its nominal rate whatever the clock period; a packet
//! that finds the link idle departs at `now`. That departure time stamps everything: the sojourn on the
//! egress stream, PIE's delay sample and the time between dequeues.
//!
//! ```text
//! cycle c    handshake: pop the head, start the multiplier (or, link model off, link_free = departure)
//! cycle c+1  D1: delay sample (0 if the queue emptied), time since the previous dequeue, sent counters;
//!            the byte backlog drops by the packet's length (see PieIngress)
//! cycle c+2  D2: the burst allowance drains by that time
//! c+1..c+17  multiplier; link_free = departure + transmission time at the end of c+17
//! ```

use crate::konst::K;
use rust_hdl::prelude::*;

/// Reset value of the burst allowance: Linux's 150 ms, in ticks.
pub const RESET_BURST_TICKS: u64 = 2_343_750;
/// Multiplier steps: one per bit of the packet length.
pub const TX_MUL_CYCLES: u64 = 16;

#[derive(LogicBlock, Default)]
pub struct PieEgress {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now: Signal<In, Bits<64>>, // ns
    // The queue head.
    pub head_valid: Signal<In, Bit>,
    pub head_data: Signal<In, Bits<74>>, // {ts[40], tag[16], ecn[2], len[16]}
    pub count: Signal<In, Bits<11>>,     // packets queued, head included
    pub pop: Signal<Out, Bit>,
    // Egress stream.
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_len: Signal<Out, Bits<16>>,     // bytes
    pub out_ecn: Signal<Out, Bits<2>>,      // CE if marked
    pub out_tag: Signal<Out, Bits<16>>,
    pub out_sojourn: Signal<Out, Bits<40>>, // ns
    // Parameters.
    pub link_bt: Signal<In, Bits<24>>,   // ns per byte, Q16.8; 0 = no link model
    pub max_burst: Signal<In, Bits<32>>, // ticks
    // Controller commit of a new measurement cycle: refill the burst allowance.
    pub burst_reset: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    // State and counters.
    pub deq_valid: Signal<Out, Bit>, // a packet departed last cycle (D1) ...
    pub deq_len: Signal<Out, Bits<16>>, // ... with this length
    pub qdelay: Signal<Out, Bits<34>>, // ticks
    pub burst: Signal<Out, Bits<32>>,  // ticks
    pub sent_pkts: Signal<Out, Bits<32>>,
    pub sent_bytes: Signal<Out, Bits<48>>,
    pub link_free: Signal<Out, Bits<64>>, // ns
    /// The multiplier or the dequeue stages are working.
    pub busy: Signal<Out, Bit>,

    link_free_r: DFF<Bits<64>>,
    link_frac: DFF<Bits<8>>,
    prev_closed: DFF<Bit>,
    tx_busy: DFF<Bit>,
    tx_cnt: DFF<Bits<5>>,
    tx_len: DFF<Bits<16>>,
    tx_bt: DFF<Bits<40>>,
    tx_acc: DFF<Bits<40>>,
    tx_dep: DFF<Bits<64>>,
    tx_dep_frac: DFF<Bits<8>>,
    d1_valid: DFF<Bit>,
    d1_dep: DFF<Bits<64>>,
    d1_ts: DFF<Bits<40>>,
    d1_len: DFF<Bits<16>>,
    d1_empty: DFF<Bit>,
    dq_first: DFF<Bit>,
    dq_tstamp: DFF<Bits<64>>,
    d2_valid: DFF<Bit>,
    d2_dtime: DFF<Bits<64>>,
    qdelay_r: DFF<Bits<34>>,
    burst_r: DFF<Bits<32>>,
    sent_pkts_r: DFF<Bits<32>>,
    sent_bytes_r: DFF<Bits<48>>,
    gate_open: Signal<Local, Bit>,
    dep: Signal<Local, Bits<64>>,
    dep_frac: Signal<Local, Bits<8>>,
    handshake: Signal<Local, Bit>,
    head_ts: Signal<Local, Bits<40>>,
    dep_ticks: Signal<Local, Bits<64>>,
    sum72: Signal<Local, Bits<72>>,
    reset_burst: K<32, RESET_BURST_TICKS>,
}

impl Logic for PieEgress {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, link_free_r, link_frac, prev_closed, tx_busy, tx_cnt, tx_len, tx_bt, tx_acc,
            tx_dep, tx_dep_frac, d1_valid, d1_dep, d1_ts, d1_len, d1_empty, dq_first, dq_tstamp,
            d2_valid, d2_dtime, qdelay_r, burst_r, sent_pkts_r, sent_bytes_r
        );
        // The gate and the departure time.
        self.gate_open.next = !self.tx_busy.q.val() & (self.now.val() >= self.link_free_r.q.val());
        self.prev_closed.d.next = self.now.val() < self.link_free_r.q.val();
        self.dep.next = self.now.val();
        self.dep_frac.next = 0.into();
        if self.prev_closed.q.val() {
            self.dep.next = self.link_free_r.q.val();
            self.dep_frac.next = self.link_frac.q.val();
        }
        self.head_ts.next = self.head_data.val().get_bits::<40>(34);
        self.out_valid.next = self.head_valid.val() & self.gate_open.val();
        self.out_len.next = 0.into();
        self.out_ecn.next = 0.into();
        self.out_tag.next = 0.into();
        self.out_sojourn.next = 0.into();
        if self.out_valid.val() {
            self.out_len.next = self.head_data.val().get_bits::<16>(0);
            self.out_ecn.next = self.head_data.val().get_bits::<2>(16);
            self.out_tag.next = self.head_data.val().get_bits::<16>(18);
            self.out_sojourn.next = self.dep.val().get_bits::<40>(0) - self.head_ts.val();
        }
        self.handshake.next = self.out_valid.val() & self.out_ready.val();
        self.pop.next = self.handshake.val();

        // Departure: D1 and the multiplier start.
        self.d1_valid.d.next = self.handshake.val();
        if self.handshake.val() {
            self.d1_dep.d.next = self.dep.val();
            self.d1_ts.d.next = self.head_ts.val();
            self.d1_len.d.next = self.head_data.val().get_bits::<16>(0);
            self.d1_empty.d.next = self.count.val() == 1;
            if self.link_bt.val().any() {
                self.tx_busy.d.next = true;
                self.tx_cnt.d.next = 16.into();
                self.tx_len.d.next = self.head_data.val().get_bits::<16>(0);
                self.tx_bt.d.next = bit_cast::<40, 24>(self.link_bt.val());
                self.tx_acc.d.next = 0.into();
                self.tx_dep.d.next = self.dep.val();
                self.tx_dep_frac.d.next = self.dep_frac.val();
            } else {
                self.link_free_r.d.next = self.dep.val();
                self.link_frac.d.next = self.dep_frac.val();
            }
        }

        // The transmission-time multiplier: len x link_bt, one length bit per cycle.
        self.sum72.next = ((bit_cast::<72, 64>(self.tx_dep.q.val()) << 8)
            | bit_cast::<72, 8>(self.tx_dep_frac.q.val()))
            + bit_cast::<72, 40>(self.tx_acc.q.val());
        if self.tx_busy.q.val() {
            if self.tx_cnt.q.val().any() {
                if self.tx_len.q.val().get_bit(0) {
                    self.tx_acc.d.next = self.tx_acc.q.val() + self.tx_bt.q.val();
                }
                self.tx_bt.d.next = self.tx_bt.q.val() << 1;
                self.tx_len.d.next = self.tx_len.q.val() >> 1;
                self.tx_cnt.d.next = self.tx_cnt.q.val() - 1;
            } else {
                self.link_free_r.d.next = bit_cast::<64, 72>(self.sum72.val() >> 8);
                self.link_frac.d.next = self.sum72.val().get_bits::<8>(0);
                self.tx_busy.d.next = false;
            }
        }

        // D1: the delay sample and the time since the previous dequeue, in ticks (ns >> 6).
        self.dep_ticks.next = self.d1_dep.q.val() >> 6;
        self.d2_valid.d.next = self.d1_valid.q.val();
        if self.d1_valid.q.val() {
            self.qdelay_r.d.next = 0.into();
            if !self.d1_empty.q.val() {
                self.qdelay_r.d.next = bit_cast::<34, 40>(
                    self.d1_dep.q.val().get_bits::<40>(0) >> 6,
                ) - bit_cast::<34, 40>(self.d1_ts.q.val() >> 6);
            }
            self.d2_dtime.d.next = 0.into();
            if !self.dq_first.q.val() {
                self.d2_dtime.d.next = self.dep_ticks.val() - self.dq_tstamp.q.val();
            }
            self.dq_tstamp.d.next = self.dep_ticks.val();
            self.dq_first.d.next = false;
            self.sent_pkts_r.d.next = self.sent_pkts_r.q.val() + 1;
            self.sent_bytes_r.d.next =
                self.sent_bytes_r.q.val() + bit_cast::<48, 16>(self.d1_len.q.val());
        }

        // D2: the burst allowance drains by the time between dequeues.
        if self.d2_valid.q.val() & self.d2_dtime.q.val().any() {
            if self.d2_dtime.q.val() >= bit_cast::<64, 32>(self.burst_r.q.val()) {
                self.burst_r.d.next = 0.into();
            } else {
                self.burst_r.d.next =
                    self.burst_r.q.val() - bit_cast::<32, 64>(self.d2_dtime.q.val());
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
        self.link_free.next = self.link_free_r.q.val();
        self.busy.next = self.tx_busy.q.val() | self.d1_valid.q.val() | self.d2_valid.q.val();

        if self.clear_counters.val() {
            self.sent_pkts_r.d.next = 0.into();
            self.sent_bytes_r.d.next = 0.into();
        }
        if self.rst.val() {
            self.link_free_r.d.next = 0.into();
            self.link_frac.d.next = 0.into();
            self.prev_closed.d.next = false;
            self.tx_busy.d.next = false;
            self.d1_valid.d.next = false;
            self.d2_valid.d.next = false;
            self.dq_first.d.next = true;
            self.dq_tstamp.d.next = 0.into();
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
