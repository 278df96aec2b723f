//! PIE's dequeue side: the link model that paces departures, the departure stream, and the delay sample
//! and burst allowance of spec/pie.md ("Dequeue side").
//!
//! The link model is a small state machine in front of the queue head:
//!
//! ```text
//! Idle  the link is free: the head may leave whenever out_ready is high
//!   | departure, LINK_BYTE_TIME != 0
//!   v
//! Tx    len x LINK_BYTE_TIME (ns per byte, Q16.8) in a 16-step shift-add multiplier, then
//!       link_free = departure + transmission time in two halves (19 cycles in all)
//!   v
//! Wait  until now >= link_free, then back to Idle, remembering that the link became free at exactly
//!       link_free
//! ```
//! A packet that departs in the first Idle cycle after a Wait (it was already waiting) departs at exactly
//! `link_free`, with the fraction of a nanosecond carried on, so a backlogged link runs at its nominal rate
//! whatever the clock period; a packet that finds the link idle departs at `now`. With LINK_BYTE_TIME = 0
//! the model is off: departures follow `out_ready` alone, one per clock at most. The departure time stamps
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
use rust_hdl::prelude::*;

/// Reset value of the burst allowance: Linux's 150 ms, in ticks.
pub const RESET_BURST_TICKS: u64 = 2_343_750;
/// Cycles in state Tx after a departure: 16 multiplier steps and 3 for the final sum in two halves.
pub const TX_CYCLES: u64 = 19;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum LinkState {
    Idle,
    Tx,
    Wait,
}

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

    state: DFF<LinkState>,
    exact: DFF<Bit>,
    link_free_r: DFF<Bits<40>>,
    link_frac: DFF<Bits<8>>,
    tx_cnt: DFF<Bits<5>>,
    tx_len: DFF<Bits<16>>,
    tx_bt: DFF<Bits<40>>,
    tx_acc: DFF<Bits<40>>,
    tx_dep: DFF<Bits<40>>,
    tx_frac: DFF<Bits<8>>,
    tx_lo: DFF<Bits<25>>,
    d1_valid: DFF<Bit>,
    d1_dep: DFF<Bits<40>>,
    d1_ts: DFF<Bits<40>>,
    d1_len: DFF<Bits<16>>,
    d1_empty: DFF<Bit>,
    dq_first: DFF<Bit>,
    dq_stale: DFF<Bit>,
    dq_ns: DFF<Bits<40>>,
    d2_valid: DFF<Bit>,
    d2_dtime: DFF<Bits<34>>,
    qdelay_r: DFF<Bits<34>>,
    burst_r: DFF<Bits<32>>,
    sent_pkts_r: DFF<Bits<32>>,
    sent_bytes_r: DFF<Bits<40>>,
    now40: Signal<Local, Bits<40>>,
    dep: Signal<Local, Bits<40>>,
    dep_frac: Signal<Local, Bits<8>>,
    handshake: Signal<Local, Bit>,
    head_ts: Signal<Local, Bits<40>>,
    wait_diff: Signal<Local, Bits<40>>,
    age: Signal<Local, Bits<40>>,
    reset_burst: K<32, RESET_BURST_TICKS>,
    stale_dtime: K<34, { (1 << 34) - 1 }>,
}

impl Logic for PieEgress {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            exact,
            link_free_r,
            link_frac,
            tx_cnt,
            tx_len,
            tx_bt,
            tx_acc,
            tx_dep,
            tx_frac,
            tx_lo,
            d1_valid,
            d1_dep,
            d1_ts,
            d1_len,
            d1_empty,
            dq_first,
            dq_stale,
            dq_ns,
            d2_valid,
            d2_dtime,
            qdelay_r,
            burst_r,
            sent_pkts_r,
            sent_bytes_r
        );
        self.now40.next = self.now.val().get_bits::<40>(0);
        // The departure time: exactly link_free right after a Wait, else now.
        self.dep.next = self.now40.val();
        self.dep_frac.next = 0.into();
        if self.exact.q.val() {
            self.dep.next = self.link_free_r.q.val();
            self.dep_frac.next = self.link_frac.q.val();
        }
        self.head_ts.next = self.head_data.val().get_bits::<40>(34);
        self.out_valid.next = self.head_valid.val() & (self.state.q.val() == LinkState::Idle);
        self.out_len.next = 0.into();
        self.out_ecn.next = 0.into();
        self.out_tag.next = 0.into();
        self.out_sojourn.next = 0.into();
        if self.out_valid.val() {
            self.out_len.next = self.head_data.val().get_bits::<16>(0);
            self.out_ecn.next = self.head_data.val().get_bits::<2>(16);
            self.out_tag.next = self.head_data.val().get_bits::<16>(18);
            self.out_sojourn.next = self.dep.val() - self.head_ts.val();
        }
        self.handshake.next = self.out_valid.val() & self.out_ready.val();
        self.pop.next = self.handshake.val();
        self.wait_diff.next = self.now40.val() - self.link_free_r.q.val();

        match self.state.q.val() {
            LinkState::Idle => {
                self.exact.d.next = false;
                if self.handshake.val() {
                    if self.link_bt.val().any() {
                        self.state.d.next = LinkState::Tx;
                        self.tx_cnt.d.next = 0.into();
                        self.tx_len.d.next = self.head_data.val().get_bits::<16>(0);
                        self.tx_bt.d.next = bit_cast::<40, 24>(self.link_bt.val());
                        self.tx_acc.d.next = 0.into();
                        self.tx_dep.d.next = self.dep.val();
                        self.tx_frac.d.next = self.dep_frac.val();
                    } else {
                        self.link_free_r.d.next = self.dep.val();
                        self.link_frac.d.next = self.dep_frac.val();
                    }
                }
            }
            LinkState::Tx => {
                // Steps 0-15: one bit of len each; 16-18: {dep, frac} + tx in two halves.
                self.tx_cnt.d.next = self.tx_cnt.q.val() + 1;
                if self.tx_cnt.q.val() < 16 {
                    if self.tx_len.q.val().get_bit(0) {
                        self.tx_acc.d.next = self.tx_acc.q.val() + self.tx_bt.q.val();
                    }
                    self.tx_bt.d.next = self.tx_bt.q.val() << 1;
                    self.tx_len.d.next = self.tx_len.q.val() >> 1;
                }
                if self.tx_cnt.q.val() == 16 {
                    self.tx_lo.d.next =
                        ((bit_cast::<25, 16>(self.tx_dep.q.val().get_bits::<16>(0)) << 8)
                            | bit_cast::<25, 8>(self.tx_frac.q.val()))
                            + bit_cast::<25, 24>(self.tx_acc.q.val().get_bits::<24>(0));
                }
                if self.tx_cnt.q.val() == 17 {
                    // The high half of tx plus the low half's carry (tx_bt is free by now).
                    self.tx_bt.d.next = bit_cast::<40, 24>(
                        bit_cast::<24, 16>(self.tx_acc.q.val().get_bits::<16>(24))
                            + bit_cast::<24, 1>(self.tx_lo.q.val().get_bit(24).into()),
                    );
                }
                if self.tx_cnt.q.val() == 18 {
                    self.link_free_r.d.next = (bit_cast::<40, 24>(
                        self.tx_dep.q.val().get_bits::<24>(16)
                            + self.tx_bt.q.val().get_bits::<24>(0),
                    ) << 16)
                        | bit_cast::<40, 16>(self.tx_lo.q.val().get_bits::<16>(8));
                    self.link_frac.d.next = self.tx_lo.q.val().get_bits::<8>(0);
                    self.state.d.next = LinkState::Wait;
                }
            }
            LinkState::Wait => {
                // now >= link_free, modulo 2^40.
                if !self.wait_diff.val().get_bit(39) {
                    self.state.d.next = LinkState::Idle;
                    self.exact.d.next = true;
                }
            }
            _ => {
                self.state.d.next = LinkState::Idle;
            }
        }

        // Departure: D1.
        self.d1_valid.d.next = self.handshake.val();
        if self.handshake.val() {
            self.d1_dep.d.next = self.dep.val();
            self.d1_ts.d.next = self.head_ts.val();
            self.d1_len.d.next = self.head_data.val().get_bits::<16>(0);
            self.d1_empty.d.next = self.count.val() == 1;
        }
        // The previous dequeue is too old for a 40-bit difference: the next one drains the whole allowance.
        self.age.next = self.now40.val() - self.dq_ns.q.val();
        if !self.dq_first.q.val() & self.age.val().get_bits::<2>(38).any() {
            self.dq_stale.d.next = true;
        }
        // D1: the delay sample and the time since the previous dequeue, in ticks (ns >> 6).
        self.d2_valid.d.next = self.d1_valid.q.val();
        if self.d1_valid.q.val() {
            self.qdelay_r.d.next = 0.into();
            if !self.d1_empty.q.val() {
                self.qdelay_r.d.next = bit_cast::<34, 40>(self.d1_dep.q.val() >> 6)
                    - bit_cast::<34, 40>(self.d1_ts.q.val() >> 6);
            }
            self.d2_dtime.d.next = bit_cast::<34, 40>(self.d1_dep.q.val() >> 6)
                - bit_cast::<34, 40>(self.dq_ns.q.val() >> 6);
            if self.dq_first.q.val() {
                self.d2_dtime.d.next = 0.into();
            }
            if self.dq_stale.q.val() {
                self.d2_dtime.d.next = self.stale_dtime.val();
            }
            self.dq_ns.d.next = self.d1_dep.q.val();
            self.dq_first.d.next = false;
            self.dq_stale.d.next = false;
            self.sent_pkts_r.d.next = self.sent_pkts_r.q.val() + 1;
            self.sent_bytes_r.d.next =
                self.sent_bytes_r.q.val() + bit_cast::<40, 16>(self.d1_len.q.val());
        }

        // D2: the burst allowance drains by the time between dequeues.
        if self.d2_valid.q.val() & self.d2_dtime.q.val().any() {
            if self.d2_dtime.q.val() >= bit_cast::<34, 32>(self.burst_r.q.val()) {
                self.burst_r.d.next = 0.into();
            } else {
                self.burst_r.d.next =
                    self.burst_r.q.val() - bit_cast::<32, 34>(self.d2_dtime.q.val());
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
        self.link_busy.next = self.state.q.val() != LinkState::Idle;
        self.busy.next =
            (self.state.q.val() == LinkState::Tx) | self.d1_valid.q.val() | self.d2_valid.q.val();

        if self.clear_counters.val() {
            self.sent_pkts_r.d.next = 0.into();
            self.sent_bytes_r.d.next = 0.into();
        }
        if self.rst.val() {
            self.state.d.next = LinkState::Idle;
            self.exact.d.next = false;
            self.link_free_r.d.next = 0.into();
            self.link_frac.d.next = 0.into();
            self.d1_valid.d.next = false;
            self.d2_valid.d.next = false;
            self.dq_first.d.next = true;
            self.dq_stale.d.next = false;
            self.dq_ns.d.next = 0.into();
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
