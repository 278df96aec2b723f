//! The ports both AQM cores share (PIE and DualPI2 have the same names), driven on a Verilated model and
//! clocked only around events.
//!
//! ```text
//!  rst, now ------------------>+----------+
//!  in_valid/in_ready/len/ecn/tag ->| core  |--> verdict_valid/tag/code/queue
//!  reg_addr/wdata/we/re ------>|          |--> out_valid/len/ecn/tag/sojourn/queue/drop  (out_ready <--)
//!                              +----------+--> reg_rdata/rvalid/err, idle, next_update, link_free/busy
//! ```
//!
//! Time is an input: between events the model is not clocked at all. Before an event at time `t` the
//! driver steps `now` to each controller update that falls due at or before `t` and clocks until the core
//! is `idle` (the update fires and commits at its own time, as the golden qdiscs run it), then sets `now`
//! to `t` for the event. Every rising edge is counted.

use crate::HilError;
use aqm_golden::{Ecn, QueueId};
use aqm_verilated::{Model, PortId};

/// The core keeps the low 40 bits of `now` (ns); differences are taken modulo 2^40.
const TIME_BITS: u32 = 40;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;
/// The most `now` may move from one clock cycle to the next, ns (the core's contract).
pub const MAX_NOW_STEP: u64 = 1 << 38;
/// Cycles to wait for the core to answer before calling it stuck: the longest job, a controller
/// update, takes 2609 cycles.
pub const MAX_WAIT_CYCLES: u64 = 100_000;

/// Input ports, in [`IN_NAMES`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    Rst,
    Now,
    InValid,
    InLen,
    InEcn,
    InTag,
    OutReady,
    RegAddr,
    RegWdata,
    RegWe,
    RegRe,
}

const IN_NAMES: [&str; 11] = [
    "rst",
    "now",
    "in_valid",
    "in_len",
    "in_ecn",
    "in_tag",
    "out_ready",
    "reg_addr",
    "reg_wdata",
    "reg_we",
    "reg_re",
];

/// Output ports, resolved once.
struct Outs {
    in_ready: PortId,
    verdict_valid: PortId,
    verdict_tag: PortId,
    verdict_code: PortId,
    verdict_queue: PortId,
    out_valid: PortId,
    out_len: PortId,
    out_ecn: PortId,
    out_tag: PortId,
    out_sojourn: PortId,
    out_queue: PortId,
    out_drop: PortId,
    reg_rdata: PortId,
    reg_rvalid: PortId,
    reg_err: PortId,
    idle: PortId,
    next_update: PortId,
}

/// A verdict from the verdict stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerdictBeat {
    pub tag: u16,
    /// 2-bit verdict code (what it means is the core's: see [`crate::CoreKind::admission`]).
    pub code: u8,
    pub queue: QueueId,
}

/// One transfer on the egress stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beat {
    pub tag: u16,
    /// Bytes.
    pub len: u16,
    /// ECN field as the packet leaves.
    pub ecn: Ecn,
    /// Ns, 40 bits.
    pub sojourn_ns: u64,
    pub queue: QueueId,
    /// Dropped at dequeue (DualPI2's AQM drops), not sent.
    pub drop: bool,
}

/// A Verilated core behind its ports, with a cycle counter.
pub struct CoreDriver {
    m: Model,
    /// Input ports, in [`IN_NAMES`] order.
    ins: Vec<PortId>,
    /// The value each input is driven with (ports are written only when the value changes).
    driven: [u64; 11],
    outs: Outs,
    /// `now` as driven, ns (the core sees the low 40 bits).
    now: u64,
    cycles: u64,
}

fn queue_of(bit: u64) -> QueueId {
    if bit & 1 != 0 {
        QueueId::L
    } else {
        QueueId::Classic
    }
}

impl CoreDriver {
    /// Resolves the shared ports on `model` and holds the core in reset for two cycles at time 0.
    pub fn new(model: Model) -> Result<CoreDriver, HilError> {
        let design = model.design_name();
        let find = |name: &str| {
            model.port(name).ok_or_else(|| HilError::MissingPort {
                design: design.to_string(),
                port: name.to_string(),
            })
        };
        let ins = IN_NAMES
            .iter()
            .map(|n| find(n))
            .collect::<Result<Vec<_>, _>>()?;
        let outs = Outs {
            in_ready: find("in_ready")?,
            verdict_valid: find("verdict_valid")?,
            verdict_tag: find("verdict_tag")?,
            verdict_code: find("verdict_code")?,
            verdict_queue: find("verdict_queue")?,
            out_valid: find("out_valid")?,
            out_len: find("out_len")?,
            out_ecn: find("out_ecn")?,
            out_tag: find("out_tag")?,
            out_sojourn: find("out_sojourn")?,
            out_queue: find("out_queue")?,
            out_drop: find("out_drop")?,
            reg_rdata: find("reg_rdata")?,
            reg_rvalid: find("reg_rvalid")?,
            reg_err: find("reg_err")?,
            idle: find("idle")?,
            next_update: find("next_update")?,
        };
        let mut d = CoreDriver {
            m: model,
            ins,
            driven: [u64::MAX; 11],
            outs,
            now: 0,
            cycles: 0,
        };
        for (k, v) in [(Input::Rst, 1), (Input::Now, 0)] {
            d.drive(k, v);
        }
        for k in [
            Input::InValid,
            Input::InLen,
            Input::InEcn,
            Input::InTag,
            Input::OutReady,
            Input::RegAddr,
            Input::RegWdata,
            Input::RegWe,
            Input::RegRe,
        ] {
            d.drive(k, 0);
        }
        d.cycle();
        d.cycle();
        d.drive(Input::Rst, 0);
        Ok(d)
    }

    /// Rising edges so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// `now` as last driven, ns.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The Verilated model (to trace it into a VCD, for instance).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    fn drive(&mut self, port: Input, v: u64) {
        let k = port as usize;
        if self.driven[k] != v {
            self.driven[k] = v;
            self.m.set(self.ins[k], v);
        }
    }

    fn get(&self, p: PortId) -> u64 {
        self.m.get(p)
    }

    fn settle(&mut self) {
        self.m.settle();
    }

    fn edge(&mut self) {
        self.m.rising_edge();
        self.cycles += 1;
    }

    fn cycle(&mut self) {
        self.settle();
        self.edge();
    }

    /// Fails on a verdict or a departure the caller did not ask for (the model is settled).
    fn check_quiet(&self, during: &str) -> Result<(), HilError> {
        if self.get(self.outs.verdict_valid) != 0 {
            return Err(self.stuck(format!(
                "a verdict (tag {}) came out during {during}",
                self.get(self.outs.verdict_tag)
            )));
        }
        if self.driven[Input::OutReady as usize] != 0 && self.get(self.outs.out_valid) != 0 {
            return Err(self.stuck(format!(
                "a departure (tag {}) was taken during {during}",
                self.get(self.outs.out_tag)
            )));
        }
        Ok(())
    }

    fn stuck(&self, what: String) -> HilError {
        HilError::Core {
            at_ns: self.now,
            cycle: self.cycles,
            what,
        }
    }

    /// Clocks until the core says it is idle (nothing in flight, nothing due), with no stream traffic.
    pub fn run_until_idle(&mut self, during: &str) -> Result<(), HilError> {
        for _ in 0..MAX_WAIT_CYCLES {
            self.settle();
            self.check_quiet(during)?;
            if self.get(self.outs.idle) != 0 {
                return Ok(());
            }
            self.edge();
        }
        Err(self.stuck(format!("not idle {MAX_WAIT_CYCLES} cycles into {during}")))
    }

    /// Moves `now` forward to `t` without clocking (in steps the core accepts, clocking between them if
    /// the jump is longer than [`MAX_NOW_STEP`]).
    fn set_now(&mut self, t: u64) -> Result<(), HilError> {
        if t < self.now {
            return Err(HilError::TimeWentBack {
                from_ns: self.now,
                to_ns: t,
            });
        }
        while t - self.now > MAX_NOW_STEP {
            self.now += MAX_NOW_STEP;
            self.drive(Input::Now, self.now);
            self.cycle();
        }
        self.now = t;
        self.drive(Input::Now, t);
        Ok(())
    }

    /// When the controller fires next (from the core's 40-bit `next_update`), ns; `now` if it is due.
    pub fn next_update_ns(&self) -> u64 {
        let ahead = self.get(self.outs.next_update).wrapping_sub(self.now) & TIME_MASK;
        if ahead >> (TIME_BITS - 1) == 0 {
            self.now + ahead
        } else {
            self.now
        }
    }

    /// Runs every controller update due at or before `t`, each with `now` at its own due time, and leaves
    /// `now` at `t`.
    pub fn advance_to(&mut self, t: u64) -> Result<(), HilError> {
        loop {
            let due = self.next_update_ns();
            if due > t {
                break;
            }
            self.set_now(due)?;
            self.run_until_idle("a controller update")?;
            if self.next_update_ns() <= due {
                return Err(self.stuck(format!(
                    "the controller update due at {due} ns did not move next_update on"
                )));
            }
        }
        self.set_now(t)
    }

    /// Offers one descriptor at the current `now`, waits for its verdict and for the core to go idle.
    pub fn offer(&mut self, len: u16, ecn: Ecn, tag: u16) -> Result<VerdictBeat, HilError> {
        self.drive(Input::InLen, len as u64);
        self.drive(Input::InEcn, ecn.bits() as u64);
        self.drive(Input::InTag, tag as u64);
        self.drive(Input::InValid, 1);
        let mut accepted = false;
        for _ in 0..MAX_WAIT_CYCLES {
            self.settle();
            self.check_quiet("an ingress handshake")?;
            let ready = self.get(self.outs.in_ready) != 0;
            self.edge();
            if ready {
                accepted = true;
                break;
            }
        }
        self.drive(Input::InValid, 0);
        if !accepted {
            return Err(self.stuck(format!(
                "in_ready stayed low for {MAX_WAIT_CYCLES} cycles (tag {tag})"
            )));
        }
        let mut verdict = None;
        for _ in 0..MAX_WAIT_CYCLES {
            self.settle();
            if self.get(self.outs.verdict_valid) != 0 {
                let v = VerdictBeat {
                    tag: self.get(self.outs.verdict_tag) as u16,
                    code: self.get(self.outs.verdict_code) as u8,
                    queue: queue_of(self.get(self.outs.verdict_queue)),
                };
                if verdict.is_some() || v.tag != tag {
                    return Err(self.stuck(format!(
                        "verdict for tag {} while waiting for the verdict of tag {tag}",
                        v.tag
                    )));
                }
                verdict = Some(v);
            } else if let Some(v) = verdict {
                if self.get(self.outs.idle) != 0 {
                    return Ok(v);
                }
            }
            self.edge();
        }
        Err(self.stuck(match verdict {
            None => format!("no verdict for tag {tag} within {MAX_WAIT_CYCLES} cycles"),
            Some(_) => format!("not idle {MAX_WAIT_CYCLES} cycles after the verdict of tag {tag}"),
        }))
    }

    /// Asks for the next egress transfer at the current `now` (out_ready high) and returns it. With
    /// `expect` false (nothing should be queued) it gives up after one cycle of request once the core
    /// is idle and returns `None`; with `expect` true it waits for a transfer. Leaves out_ready high:
    /// call [`CoreDriver::finish_dequeue`] when done.
    pub fn next_beat(&mut self, expect: bool) -> Result<Option<Beat>, HilError> {
        self.drive(Input::OutReady, 1);
        for _ in 0..MAX_WAIT_CYCLES {
            self.settle();
            if self.get(self.outs.verdict_valid) != 0 {
                return Err(self.stuck("a verdict came out during a dequeue".into()));
            }
            if self.get(self.outs.out_valid) != 0 {
                let o = &self.outs;
                let beat = Beat {
                    tag: self.get(o.out_tag) as u16,
                    len: self.get(o.out_len) as u16,
                    ecn: Ecn::from_bits(self.get(o.out_ecn) as u8),
                    sojourn_ns: self.get(o.out_sojourn) & TIME_MASK,
                    queue: queue_of(self.get(o.out_queue)),
                    drop: self.get(o.out_drop) != 0,
                };
                self.edge();
                return Ok(Some(beat));
            }
            let idle = self.get(self.outs.idle) != 0;
            self.edge();
            if !expect && idle {
                return Ok(None);
            }
        }
        Err(self.stuck(format!(
            "no departure within {MAX_WAIT_CYCLES} cycles of asking for one"
        )))
    }

    /// Ends a dequeue request (out_ready low) and clocks until the core is idle.
    pub fn finish_dequeue(&mut self) -> Result<(), HilError> {
        self.drive(Input::OutReady, 0);
        self.run_until_idle("the end of a dequeue")
    }

    /// Writes a register and waits until the core is idle again (a parameter may take effect cycles
    /// later); a rejected write (out of range, read-only, unmapped) is an error.
    pub fn write_reg(&mut self, addr: u8, value: u32) -> Result<(), HilError> {
        self.drive(Input::RegAddr, addr as u64);
        self.drive(Input::RegWdata, value as u64);
        self.drive(Input::RegWe, 1);
        self.cycle();
        self.drive(Input::RegWe, 0);
        // The register file takes the write at the next edge; reg_err pulses the cycle after.
        self.cycle();
        self.settle();
        let err = self.get(self.outs.reg_err) != 0;
        self.edge();
        if err {
            return Err(HilError::Rejected { addr, value });
        }
        self.run_until_idle("a register write")
    }

    /// Reads a register; an unmapped address is an error.
    pub fn read_reg(&mut self, addr: u8) -> Result<u32, HilError> {
        self.drive(Input::RegAddr, addr as u64);
        self.drive(Input::RegRe, 1);
        self.cycle();
        self.drive(Input::RegRe, 0);
        self.settle();
        let (valid, err) = (
            self.get(self.outs.reg_rvalid) != 0,
            self.get(self.outs.reg_err) != 0,
        );
        let v = self.get(self.outs.reg_rdata) as u32;
        self.edge();
        if err || !valid {
            return Err(HilError::ReadRejected { addr });
        }
        Ok(v)
    }
}
