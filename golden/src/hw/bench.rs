//! A bench for the cycle facts of a contract page (hdl/PIE-CORE.md, hdl/DUALPI2-CORE.md), pinned on any
//! clocked core: the golden models here, the rust-hdl cores in hdl's tests.
//!
//! Cycle numbers as on the pages: the bench is "in cycle n" between two edges; [`Bench::clk`] gives the
//! outputs of cycle n and moves to cycle n+1; the model's own accessors (`b.m`) show the state of the
//! cycle the bench is in.

use super::{ClockedCore, CoreInputs, CoreOutputs};
use crate::types::Ecn;

/// Cycles a bench waits for a core to take a descriptor, give a verdict or become idle before it
/// fails the test.
const PATIENCE: u64 = 100_000;

pub struct Bench<C: ClockedCore> {
    pub m: C,
    /// The inputs of this cycle (the bench's helpers put back what they raise).
    pub i: CoreInputs,
    /// The cycle the bench is in.
    pub n: u64,
    /// ns added to `now` at every edge (0: time stands still).
    pub dt: u64,
}

impl<C: ClockedCore> Bench<C> {
    /// `m` reset in cycle 0 at `now`; the bench is in cycle 1.
    pub fn after_reset(m: C, now: u64) -> Self {
        let mut b = Bench {
            m,
            i: CoreInputs {
                rst: true,
                now,
                ..CoreInputs::default()
            },
            n: 0,
            dt: 0,
        };
        b.clk();
        b.i.rst = false;
        b
    }

    /// The outputs of this cycle (before its edge).
    pub fn out(&mut self) -> CoreOutputs {
        self.m.peek(&self.i)
    }

    /// This cycle's outputs, then its edge.
    pub fn clk(&mut self) -> CoreOutputs {
        self.n += 1;
        let o = self.m.step(&self.i);
        self.i.now += self.dt;
        o
    }

    pub fn clks(&mut self, n: u64) {
        for _ in 0..n {
            self.clk();
        }
    }

    /// `reg_we` in this cycle (w); returns w and moves to w+1.
    pub fn write(&mut self, a: u8, v: u32) -> u64 {
        let w = self.n;
        self.i.reg_we = true;
        self.i.reg_addr = a;
        self.i.reg_wdata = v;
        self.clk();
        self.i.reg_we = false;
        w
    }

    /// A write that must be accepted (no `reg_err` at w+2), then clocks until the core is idle.
    pub fn set(&mut self, a: u8, v: u32) {
        self.write(a, v);
        self.clk();
        assert!(!self.out().reg_err, "write of {v} to 0x{a:02X} rejected");
        self.settle();
    }

    /// `reg_re` in this cycle; returns (rdata, reg_err) of the next cycle, where the bench then is.
    pub fn read(&mut self, a: u8) -> (u32, bool) {
        self.i.reg_re = true;
        self.i.reg_addr = a;
        self.clk();
        self.i.reg_re = false;
        let o = self.out();
        assert!(o.reg_rvalid);
        (o.reg_rdata, o.reg_err)
    }

    /// A read that must be accepted.
    pub fn reg(&mut self, a: u8) -> u32 {
        let (v, err) = self.read(a);
        assert!(!err, "read of 0x{a:02X} rejected");
        v
    }

    /// Clocks until `idle` holds, and still holds two edges later (for what `idle` leaves out: a
    /// verdict register, a push on its way to the head, a write being taken).
    pub fn settle(&mut self) {
        for _ in 0..PATIENCE {
            if self.out().idle {
                self.clks(2);
                if self.out().idle {
                    return;
                }
            }
            self.clk();
        }
        panic!("not idle after {PATIENCE} cycles");
    }

    /// Offers a descriptor from this cycle on; returns the cycle it was accepted in (`in_ready` high)
    /// and moves to the next.
    pub fn offer(&mut self, len: u16, ecn: Ecn, tag: u16) -> u64 {
        self.i.in_valid = true;
        self.i.in_len = len;
        self.i.in_ecn = ecn.bits();
        self.i.in_tag = tag;
        for _ in 0..PATIENCE {
            let a = self.n;
            if self.clk().in_ready {
                self.i.in_valid = false;
                return a;
            }
        }
        panic!("descriptor {tag} not accepted in {PATIENCE} cycles");
    }

    /// Clocks until a verdict appears; returns its cycle, tag and code.
    pub fn next_verdict(&mut self) -> (u64, u16, u8) {
        for _ in 0..PATIENCE {
            let c = self.n;
            let o = self.clk();
            if o.verdict_valid {
                return (c, o.verdict_tag, o.verdict_code);
            }
        }
        panic!("no verdict in {PATIENCE} cycles");
    }
}
