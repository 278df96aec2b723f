//! The link model in front of a core's egress (`aqm_hdl::link::LinkModel`): it paces departures at
//! LINK_BYTE_TIME ns per byte (Q16.8), or does nothing when that is 0.
//!
//! Idle: the link is free. A dequeue (`start`), sent or dropped, records its departure time as
//! `link_free`; a sent one (`sends`) with LINK_BYTE_TIME != 0 goes to Tx, which adds the transmission
//! time to `link_free` in [`TX_CYCLES`] cycles, then Wait until `now` reaches it; back in Idle the
//! first cycle is *exact*: a departure then leaves at exactly the end of the previous transmission
//! (fraction of a ns included), so a backlogged link runs at its nominal rate. With LINK_BYTE_TIME = 0
//! the link stays Idle. The cycle after a dropped dequeue (DualPI2's) is exact too: a departure in it
//! leaves at the drop's departure time, so that a chain of drops and the packet sent after them
//! share one departure time.
//!
//! Wait compares `link_free` with the `now` of the *previous* cycle ([`WAIT_LAG`] = 1): the hardware
//! subtracts the low 24 bits one cycle and the high 16 bits the next, so that no 40-bit carry chain ends
//! in the state register.

use super::{time_reached, TIME_MASK};

/// Accepted values of LINK_BYTE_TIME (ns per byte, Q16.8, 24 bits).
pub const BYTE_TIME_RANGE: (u32, u32) = (0, (1 << 24) - 1);

/// Cycles in state Tx after a departure.
pub const TX_CYCLES: u64 = 19;

/// Wait ends at the edge of the first Wait cycle c with `reached(now40 of cycle c - WAIT_LAG,
/// link_free)`.
pub const WAIT_LAG: u64 = 1;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Idle,
    /// Cycles spent in Tx so far, and the end of the transmission (ns << 8 | fraction) it will commit.
    Tx(u64, u64),
    Wait,
}

/// A dequeue while the link is Idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    pub len: u16,
    /// Departure time, ns (40 bits), and its fraction of a ns (/256).
    pub dep: u64,
    pub frac: u64,
    /// The packet is sent and occupies the link; a dropped one (DualPI2's dequeue drops) only leaves
    /// its departure time in `link_free`, for a departure in the next cycle.
    pub sends: bool,
}

#[derive(Clone, Debug, Default)]
pub struct LinkModel {
    state: State,
    exact: bool,
    /// The end of the last transmission, ns (40 bits); in Tx, the departure time of the packet; in
    /// Idle after a dequeue, that packet's departure time.
    pub link_free: u64,
    link_frac: u64,
    /// `now40` of the previous cycle (the hardware's registered half of the Wait comparison).
    now_prev: u64,
}

impl LinkModel {
    /// Free for a departure.
    pub fn idle(&self) -> bool {
        self.state == State::Idle
    }

    /// Transmitting: Tx or Wait (the `link_busy` port).
    pub fn busy(&self) -> bool {
        self.state != State::Idle
    }

    /// Computing the end of a transmission (work in flight, for `idle`).
    pub fn in_tx(&self) -> bool {
        matches!(self.state, State::Tx(..))
    }

    /// A departure in this cycle would leave at exactly the end of the previous transmission, or at
    /// the departure time of the drop in the previous cycle.
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// The departure time of a packet leaving in this cycle: (ns, fraction).
    pub fn dep(&self, now40: u64) -> (u64, u64) {
        if self.exact {
            (self.link_free, self.link_frac)
        } else {
            (now40, 0)
        }
    }

    /// The rising edge; returns true when the link entered Wait.
    pub fn clock(&mut self, rst: bool, now40: u64, start: Option<Start>, link_bt: u32) -> bool {
        let mut waits = false;
        match self.state {
            State::Idle => {
                self.exact = false;
                if let Some(s) = start {
                    // The departure time; Tx adds the transmission time to it.
                    self.link_free = s.dep;
                    self.link_frac = s.frac;
                    self.exact = !s.sends;
                    if s.sends && link_bt != 0 {
                        let tx = s.len as u64 * link_bt as u64;
                        let end = ((s.dep << 8 | s.frac) + tx) & ((1 << 48) - 1);
                        self.state = State::Tx(0, end);
                    }
                }
            }
            State::Tx(n, end) => {
                if n + 1 == TX_CYCLES {
                    self.link_free = (end >> 8) & TIME_MASK;
                    self.link_frac = end & 0xFF;
                    self.state = State::Wait;
                    waits = true;
                } else {
                    self.state = State::Tx(n + 1, end);
                }
            }
            State::Wait => {
                if time_reached(self.now_prev, self.link_free) {
                    self.state = State::Idle;
                    self.exact = true;
                }
            }
        }
        if rst {
            *self = LinkModel::default();
        }
        // Kept through a reset too: a Wait is at least TX_CYCLES cycles after one.
        self.now_prev = now40;
        waits
    }
}
