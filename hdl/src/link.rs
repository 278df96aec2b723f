//! The link model in front of a core's egress: it paces departures at LINK_BYTE_TIME ns per byte.
//!
//! ```text
//! Idle  the link is free: a packet may depart
//!   | start (a departure), LINK_BYTE_TIME != 0
//!   v
//! Tx    len x LINK_BYTE_TIME (ns per byte, Q16.8) in a 16-step shift-add multiplier, then
//!       link_free = departure + transmission time in two halves (19 cycles in all)
//!   v
//! Wait  until now >= link_free, then back to Idle, remembering that the link became free at exactly
//!       link_free
//! ```
//! A packet that departs in the first Idle cycle after a Wait (it was already waiting) departs at exactly
//! `link_free`, with the fraction of a nanosecond carried on (`dep`, `dep_frac`), so a backlogged link runs
//! at its nominal rate whatever the clock period; a packet that finds the link idle departs at `now`.
//! With LINK_BYTE_TIME = 0 the model is off: a start records its departure time as `link_free` and the
//! link stays Idle. Both cores use this block (`aqm_golden::hw::link` is its model).

use rust_hdl::prelude::*;

/// Cycles in state Tx after a departure: 16 multiplier steps and 3 for the final sum in two halves
/// (defined once with the golden model).
pub use aqm_golden::hw::link::TX_CYCLES;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum LinkState {
    Idle,
    Tx,
    Wait,
}

#[derive(LogicBlock, Default)]
pub struct LinkModel {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now40: Signal<In, Bits<40>>,   // ns, low 40 bits
    pub link_bt: Signal<In, Bits<24>>, // ns per byte, Q16.8; 0 = no link model
    /// A departure this cycle (only while `idle`), of `start_len` bytes at `start_dep` + `start_frac`/256.
    pub start: Signal<In, Bit>,
    pub start_len: Signal<In, Bits<16>>,
    pub start_dep: Signal<In, Bits<40>>,
    pub start_frac: Signal<In, Bits<8>>,
    /// The link is free (state Idle).
    pub idle: Signal<Out, Bit>,
    /// The departure time of a packet leaving this cycle: exactly `link_free` right after a Wait, else now.
    pub dep: Signal<Out, Bits<40>>,
    pub dep_frac: Signal<Out, Bits<8>>,
    /// The end of the current transmission (ns, low 40 bits), meaningful while `link_busy`.
    pub link_free: Signal<Out, Bits<40>>,
    /// Tx or Wait.
    pub link_busy: Signal<Out, Bit>,
    /// Tx: the transmission time is being computed.
    pub in_tx: Signal<Out, Bit>,
    /// The first Idle cycle after a Wait.
    pub exact: Signal<Out, Bit>,

    state: DFF<LinkState>,
    exact_r: DFF<Bit>,
    link_free_r: DFF<Bits<40>>,
    link_frac: DFF<Bits<8>>,
    tx_cnt: DFF<Bits<5>>,
    tx_len: DFF<Bits<16>>,
    tx_bt: DFF<Bits<40>>,
    tx_acc: DFF<Bits<40>>,
    tx_dep: DFF<Bits<40>>,
    tx_frac: DFF<Bits<8>>,
    tx_lo: DFF<Bits<25>>,
    wait_diff: Signal<Local, Bits<40>>,
}

impl Logic for LinkModel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            exact_r,
            link_free_r,
            link_frac,
            tx_cnt,
            tx_len,
            tx_bt,
            tx_acc,
            tx_dep,
            tx_frac,
            tx_lo
        );
        self.dep.next = self.now40.val();
        self.dep_frac.next = 0.into();
        if self.exact_r.q.val() {
            self.dep.next = self.link_free_r.q.val();
            self.dep_frac.next = self.link_frac.q.val();
        }
        self.wait_diff.next = self.now40.val() - self.link_free_r.q.val();

        match self.state.q.val() {
            LinkState::Idle => {
                self.exact_r.d.next = false;
                if self.start.val() {
                    if self.link_bt.val().any() {
                        self.state.d.next = LinkState::Tx;
                        self.tx_cnt.d.next = 0.into();
                        self.tx_len.d.next = self.start_len.val();
                        self.tx_bt.d.next = bit_cast::<40, 24>(self.link_bt.val());
                        self.tx_acc.d.next = 0.into();
                        self.tx_dep.d.next = self.start_dep.val();
                        self.tx_frac.d.next = self.start_frac.val();
                    } else {
                        self.link_free_r.d.next = self.start_dep.val();
                        self.link_frac.d.next = self.start_frac.val();
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
                    self.exact_r.d.next = true;
                }
            }
            _ => {
                self.state.d.next = LinkState::Idle;
            }
        }

        self.idle.next = self.state.q.val() == LinkState::Idle;
        self.in_tx.next = self.state.q.val() == LinkState::Tx;
        self.link_busy.next = self.state.q.val() != LinkState::Idle;
        self.link_free.next = self.link_free_r.q.val();
        self.exact.next = self.exact_r.q.val();
        if self.rst.val() {
            self.state.d.next = LinkState::Idle;
            self.exact_r.d.next = false;
            self.link_free_r.d.next = 0.into();
            self.link_frac.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_synthesizable() {
        let mut b = LinkModel::default();
        b.connect_all();
        yosys_validate("link_model", &generate_verilog(&b)).unwrap();
    }
}
