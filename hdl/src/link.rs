//! The link model in front of a core's egress: it paces departures at LINK_BYTE_TIME ns per byte.
//!
//! ```text
//! Idle  the link is free: a packet may depart; a dequeue, sent or dropped, sets link_free = its
//!       departure time
//!   | start & send (a sent packet), LINK_BYTE_TIME != 0
//!   v
//! Tx    len x LINK_BYTE_TIME (ns per byte, Q16.8) in a 16-step shift-add multiplier, then
//!       link_free += transmission time in two parts, then a cycle to commit it (19 cycles in all)
//!   v
//! Wait  until the previous cycle's now >= link_free, then back to Idle, remembering that the link
//!       became free at exactly link_free
//! ```
//! A packet that departs in the first Idle cycle after a Wait (it was already waiting) departs at exactly
//! `link_free`, with the fraction of a nanosecond carried on (`dep`, `dep_frac`), so a backlogged link runs
//! at its nominal rate whatever the clock period; a packet that finds the link idle departs at `now`.
//! With LINK_BYTE_TIME = 0 the model is off: a start records its departure time as `link_free` and the
//! link stays Idle. A dropped packet (`start` without `send`, DualPI2's dequeue drops) records its
//! departure time too, so that of the decision only `send` reaches the state register, not the 48
//! bits of `link_free`; and the cycle after it is exact, so that a departure in it leaves at the drop's
//! time (DualPI2's chain of drops is this, with no departure-time register and mux of its own). Both
//! cores use this block (`aqm_golden::hw::link` is its model).
//!
//! For the clock: every output comes from a register through at most one LUT (`dep` is a mux of `now40`
//! and `link_free`); Wait's 40-bit comparison is made one cycle ahead, against the new `link_free` in the
//! Tx registers (final from the last Tx cycle on) and registered, hence `WAIT_LAG`; and only the state
//! depends on `send` and on LINK_BYTE_TIME being zero (the multiplier's registers load in every Idle
//! cycle).

use rust_hdl::prelude::*;

/// Cycles in state Tx after a departure: 16 multiplier steps, 2 for the final sum and 1 to commit it
/// (defined once with the golden model).
pub use aqm_golden::hw::link::TX_CYCLES;
/// Wait compares `link_free` with the previous cycle's `now40` (the comparison is split over two cycles).
pub use aqm_golden::hw::link::WAIT_LAG;

const _: () = assert!(TX_CYCLES == 19 && WAIT_LAG == 1);

#[derive(LogicBlock, Default)]
pub struct LinkModel {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now40: Signal<In, Bits<40>>,   // ns, low 40 bits
    pub link_bt: Signal<In, Bits<24>>, // ns per byte, Q16.8; 0 = no link model
    /// A dequeue this cycle (only while `idle`), of `start_len` bytes at `start_dep` + `start_frac`/256.
    pub start: Signal<In, Bit>,
    /// With `start`: the packet is sent (else dropped: it leaves only its departure time).
    pub send: Signal<In, Bit>,
    pub start_len: Signal<In, Bits<16>>,
    pub start_dep: Signal<In, Bits<40>>,
    pub start_frac: Signal<In, Bits<8>>,
    /// The link is free (state Idle).
    pub idle: Signal<Out, Bit>,
    /// The departure time of a packet leaving this cycle: exactly `link_free` right after a Wait, else now.
    pub dep: Signal<Out, Bits<40>>,
    pub dep_frac: Signal<Out, Bits<8>>,
    /// The end of the current transmission (ns, low 40 bits), meaningful in Wait; in Tx the departure
    /// time of the packet.
    pub link_free: Signal<Out, Bits<40>>,
    /// Tx or Wait.
    pub link_busy: Signal<Out, Bit>,
    /// Tx: the transmission time is being computed.
    pub in_tx: Signal<Out, Bit>,
    /// The first Idle cycle after a Wait.
    pub exact: Signal<Out, Bit>,

    // The state, one hot: Tx, Wait (Idle = neither). (`wait` is a Verilog keyword.)
    sending: DFF<Bit>,
    waiting: DFF<Bit>,
    exact_r: DFF<Bit>,
    link_free_r: DFF<Bits<40>>,
    link_frac: DFF<Bits<8>>,
    /// Tx step (0-18); `tx_last`: step 18.
    tx_cnt: DFF<Bits<5>>,
    tx_last: DFF<Bit>,
    /// The multiplier: len shifts right and takes in the product's low bits; `tx_acc` holds the high 24.
    /// Loaded in every Idle cycle, so that only the state depends on `send`.
    tx_len: DFF<Bits<16>>,
    tx_bt: DFF<Bits<24>>,
    tx_acc: DFF<Bits<24>>,
    /// {carry, link_free bits 15..0, fraction} (step 16), then link_free bits 39..16 (step 17): the new
    /// `link_free` is in these registers from the last Tx cycle on, for the Wait comparison.
    tx_lo: DFF<Bits<25>>,
    tx_hi: DFF<Bits<24>>,
    /// Bit 39 of (now40 - the new link_free) in the previous cycle: now had not reached it.
    ahead: DFF<Bit>,
    tx_sum: Signal<Local, Bits<25>>,
    tx_hi_sum: Signal<Local, Bits<25>>,
    lf_new: Signal<Local, Bits<40>>,
    wait_lo: Signal<Local, Bits<21>>,
    wait_hi0: Signal<Local, Bits<20>>,
    wait_hi1: Signal<Local, Bits<20>>,
}

impl Logic for LinkModel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            sending,
            waiting,
            exact_r,
            link_free_r,
            link_frac,
            tx_cnt,
            tx_last,
            tx_len,
            tx_bt,
            tx_acc,
            tx_lo,
            tx_hi,
            ahead
        );
        self.dep.next = self.now40.val();
        self.dep_frac.next = 0.into();
        if self.exact_r.q.val() {
            self.dep.next = self.link_free_r.q.val();
            self.dep_frac.next = self.link_frac.q.val();
        }
        // now40 - the new link_free (final in the tx registers from the last Tx cycle on), registered: Wait
        // looks at the previous cycle's comparison. Bit 39 of the difference without a 40-bit carry
        // chain: the high 20 bits' difference with and without the low 20 bits' borrow, side by side.
        self.lf_new.next = (bit_cast::<40, 24>(self.tx_hi.q.val()) << 16)
            | bit_cast::<40, 16>(self.tx_lo.q.val().get_bits::<16>(8));
        self.wait_lo.next = bit_cast::<21, 20>(self.now40.val().get_bits::<20>(0))
            - bit_cast::<21, 20>(self.lf_new.val().get_bits::<20>(0));
        self.wait_hi0.next =
            self.now40.val().get_bits::<20>(20) - self.lf_new.val().get_bits::<20>(20);
        self.wait_hi1.next =
            self.now40.val().get_bits::<20>(20) + !self.lf_new.val().get_bits::<20>(20);
        self.ahead.d.next = self.wait_hi0.val().get_bit(19);
        if self.wait_lo.val().get_bit(20) {
            self.ahead.d.next = self.wait_hi1.val().get_bit(19);
        }
        // The multiplier's step: the high part plus link_bt if the next bit of len is set.
        self.tx_sum.next = bit_cast::<25, 24>(self.tx_acc.q.val());
        if self.tx_len.q.val().get_bit(0) {
            self.tx_sum.next =
                bit_cast::<25, 24>(self.tx_acc.q.val()) + bit_cast::<25, 24>(self.tx_bt.q.val());
        }
        // {dep, frac} (48 bits) + product (40 bits: bits 23..0 = {tx_acc bits 7..0, tx_len}, bits 39..24 =
        // tx_acc bits 23..8) in two parts. The high part with the low part's carry c:
        // {a, c} + {b, 1} = 2 (a + b + c) + 1 - c, one carry chain whose first carry is c. (Not
        // {b, c}: a carry cell with one net on both operands makes nextpnr-ice40's router livelock,
        // see `aqm_hdl::synth::carries_on_one_net`.)
        self.tx_hi_sum.next = ((bit_cast::<25, 24>(self.link_free_r.q.val().get_bits::<24>(16))
            << 1)
            | bit_cast::<25, 1>(self.tx_lo.q.val().get_bit(24).into()))
            + ((bit_cast::<25, 16>(self.tx_acc.q.val().get_bits::<16>(8)) << 1) | 1_u64.to_bits());

        self.exact_r.d.next = false;
        self.tx_last.d.next = false;
        if !self.sending.q.val() & !self.waiting.q.val() {
            // Idle.
            self.tx_cnt.d.next = 0.into();
            self.tx_len.d.next = self.start_len.val();
            self.tx_bt.d.next = self.link_bt.val();
            self.tx_acc.d.next = 0.into();
            if self.start.val() {
                // link_free holds the departure time through Tx, which adds the transmission to it.
                self.link_free_r.d.next = self.start_dep.val();
                self.link_frac.d.next = self.start_frac.val();
                self.sending.d.next = self.send.val() & self.link_bt.val().any();
                // After a drop the next cycle's departure leaves at the drop's time.
                self.exact_r.d.next = !self.send.val();
            }
        }
        if self.sending.q.val() {
            // Steps 0-15: one bit of len each (the product is {tx_acc, tx_len} after step 15); 16, 17: the
            // sum, low part first; 18: link_free takes it.
            self.tx_cnt.d.next = self.tx_cnt.q.val() + 1;
            self.tx_last.d.next = self.tx_cnt.q.val() == 17;
            if !self.tx_cnt.q.val().get_bit(4) {
                self.tx_acc.d.next = self.tx_sum.val().get_bits::<24>(1);
                self.tx_len.d.next = (self.tx_len.q.val() >> 1)
                    | (bit_cast::<16, 1>(self.tx_sum.val().get_bit(0).into()) << 15);
            }
            if self.tx_cnt.q.val() == 16 {
                self.tx_lo.d.next =
                    ((bit_cast::<25, 16>(self.link_free_r.q.val().get_bits::<16>(0)) << 8)
                        | bit_cast::<25, 8>(self.link_frac.q.val()))
                        + ((bit_cast::<25, 8>(self.tx_acc.q.val().get_bits::<8>(0)) << 16)
                            | bit_cast::<25, 16>(self.tx_len.q.val()));
            }
            if self.tx_cnt.q.val() == 17 {
                self.tx_hi.d.next = self.tx_hi_sum.val().get_bits::<24>(1);
            }
            if self.tx_last.q.val() {
                self.link_free_r.d.next = (bit_cast::<40, 24>(self.tx_hi.q.val()) << 16)
                    | bit_cast::<40, 16>(self.tx_lo.q.val().get_bits::<16>(8));
                self.link_frac.d.next = self.tx_lo.q.val().get_bits::<8>(0);
                self.sending.d.next = false;
                self.waiting.d.next = true;
            }
        }
        if self.waiting.q.val() & !self.ahead.q.val() {
            // The previous cycle's now40 >= link_free, modulo 2^40.
            self.waiting.d.next = false;
            self.exact_r.d.next = true;
        }

        self.idle.next = !self.sending.q.val() & !self.waiting.q.val();
        self.in_tx.next = self.sending.q.val();
        self.link_busy.next = self.sending.q.val() | self.waiting.q.val();
        self.link_free.next = self.link_free_r.q.val();
        self.exact.next = self.exact_r.q.val();
        if self.rst.val() {
            self.sending.d.next = false;
            self.waiting.d.next = false;
            self.exact_r.d.next = false;
            self.link_free_r.d.next = 0.into();
            self.link_frac.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{clock_edge, settle};
    use aqm_golden::hw::link::{LinkModel as Golden, Start};
    use aqm_golden::hw::TIME_MASK;
    use aqm_golden::prng::XorShift64;

    #[test]
    fn is_synthesizable() {
        let mut b = LinkModel::default();
        b.connect_all();
        yosys_validate("link_model", &generate_verilog(&b)).unwrap();
    }

    /// Every output on every cycle equals the golden model's, with random lengths, byte times (0 too),
    /// departures whenever the link is idle, `now` steps from 0 to 2^38 (wrapping at 2^40) and resets.
    #[test]
    fn follows_the_golden_model_cycle_by_cycle() {
        let mut r = XorShift64::new(0x005E_ED0F_114C).unwrap();
        let mut b = LinkModel::default();
        let mut g = Golden::default();
        let mut now: u64 = TIME_MASK - 50_000;
        let mut bt: u32 = 0;
        // Wait exits, and those where the previous cycle's now decided (this cycle's had reached already).
        let (mut exits, mut lagged) = (0, 0);
        for cycle in 0..200_000u64 {
            let x = r.next_word();
            let rst = cycle < 2 || x.is_multiple_of(5_000);
            now =
                (now + match x >> 60 {
                    0 => 0,
                    1 => 1 << 38,
                    2..=9 => (x >> 20) & 0xFF,
                    _ => (x >> 20) & 0x3FFF,
                }) & TIME_MASK;
            if (x >> 8).is_multiple_of(300) {
                bt = match (x >> 40) % 4 {
                    0 => 0,
                    1 => ((x >> 12) & 0xFF_FFFF) as u32,
                    _ => ((x >> 12) & 0x3FF) as u32,
                };
            }
            let len = ((x >> 24) & 0xFFFF) as u16;
            let (dep, frac) = g.dep(now);
            let start = g.idle() && (x >> 44) & 3 != 0;
            // One start in eight a drop.
            let sends = (x >> 46) & 7 != 0;
            b.rst.next = rst;
            b.now40.next = now.to_bits();
            b.link_bt.next = (bt as u64).to_bits();
            b.start.next = start;
            b.send.next = sends;
            b.start_len.next = (len as u64).to_bits();
            b.start_dep.next = dep.to_bits();
            b.start_frac.next = frac.to_bits();
            settle(&mut b);
            let hw = (
                b.idle.val(),
                b.dep.val().to_u64(),
                b.dep_frac.val().to_u64(),
                b.link_free.val().to_u64(),
                b.link_busy.val(),
                b.in_tx.val(),
                b.exact.val(),
            );
            let want = (
                g.idle(),
                dep,
                frac,
                g.link_free,
                g.busy(),
                g.in_tx(),
                g.exact(),
            );
            assert_eq!(hw, want, "cycle {cycle}");
            let waiting = g.busy() && !g.in_tx();
            let reached_now = aqm_golden::hw::time_reached(now, g.link_free);
            clock_edge(&mut b, |b| &mut b.clock);
            let s = Start {
                len,
                dep,
                frac,
                sends,
            };
            g.clock(rst, now, start.then_some(s), bt);
            if waiting && !rst {
                exits += g.idle() as u32;
                lagged += (!g.idle() && reached_now) as u32;
            }
        }
        assert!(
            exits > 1_000 && lagged > 300,
            "{exits} exits, {lagged} lagged"
        );
    }
}
