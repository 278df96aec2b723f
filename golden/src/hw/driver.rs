//! Driving a core the way an event simulator does: the one driver of every clocked core (the golden
//! cycle models, the rust-hdl simulations and the Verilated cores, [`ClockedCore`]).
//!
//! Time is an input: between events the core is not clocked, and during an event `now` is held at the
//! event's time:
//!
//! - Before an event at `t`, every controller update due at or before `t` runs at its own time: `now`
//!   = the core's `next_update`, clock until `idle` ([`EventDriver::advance_to`]).
//! - Enqueue: `in_valid` until `in_ready`, then clock until the verdict has come out and the core is
//!   `idle` ([`EventDriver::offer`]).
//! - Dequeue: `out_ready` high; every transfer on the egress stream is a beat, the AQM's drops first,
//!   then the packet sent; stop at the sent packet, or when the core is `idle` with nothing out (after
//!   that cycle's edge, which resets DualPI2's WRR credit when both queues are empty); then `out_ready`
//!   low and clock until `idle` ([`EventDriver::next_beat`], [`EventDriver::finish_dequeue`]).
//! - Register write: `reg_we` for one cycle, `reg_err` two cycles later says whether it was rejected,
//!   then clock until `idle` (a parameter engine may be busy); register read: `reg_re` for one cycle,
//!   the answer the next.
//!
//! Every check of an output is made before the cycle's edge, as a simulator settles the design, reads
//! the outputs, then clocks it.

use super::clocked::ClockedCore;
use super::{CoreInputs, CoreOutputs, TIME_BITS, TIME_MASK};
use crate::dualpi2::decision::Decision;
use crate::types::{Ecn, QueueId};
use std::fmt;

/// The most `now` may move from one clock cycle to the next, ns (the cores' contract).
pub const MAX_NOW_STEP: u64 = 1 << 38;
/// Cycles to wait for the core before calling it stuck (the longest job, an update, takes 40).
pub const MAX_WAIT_CYCLES: u64 = 10_000;

/// What can go wrong driving a core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriverError {
    /// The core rejected a register write.
    Rejected {
        addr: u8,
        value: u32,
    },
    /// The core rejected a register read (unmapped).
    ReadRejected {
        addr: u8,
    },
    /// A parameter the core's register refused, by its tc name.
    Param {
        param: &'static str,
        register: &'static str,
        value: u32,
    },
    TimeWentBack {
        from_ns: u64,
        to_ns: u64,
    },
    /// The core did not behave as its contract says.
    Core {
        at_ns: u64,
        cycle: u64,
        what: String,
    },
    /// A parameter set or a packet the core cannot take.
    Config(String),
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverError::Rejected { addr, value } => {
                write!(
                    f,
                    "register 0x{addr:02X}: the core rejected the write of {value}"
                )
            }
            DriverError::ReadRejected { addr } => {
                write!(f, "register 0x{addr:02X}: the core rejected the read")
            }
            DriverError::Param {
                param,
                register,
                value,
            } => write!(
                f,
                "{param} = {value}: the core's register {register} rejected it"
            ),
            DriverError::TimeWentBack { from_ns, to_ns } => {
                write!(f, "time went back from {from_ns} ns to {to_ns} ns")
            }
            DriverError::Core { at_ns, cycle, what } => {
                write!(f, "the core at {at_ns} ns (cycle {cycle}): {what}")
            }
            DriverError::Config(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for DriverError {}

/// What a core decided for an arrival: the 2-bit `verdict_code` of both cores, and the admission decision
/// of the golden PIE ([`crate::pie::enqueue`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Code 0: queued.
    Enqueue,
    /// Code 1: queued with CE set (PIE's ECN mark at enqueue).
    Mark,
    /// Code 2: dropped by the AQM at enqueue (PIE).
    EarlyDrop,
    /// Code 3: dropped because the queue is full.
    TailDrop,
}

impl Verdict {
    /// The verdict a 2-bit code stands for (higher bits are ignored, as the ports carry two).
    pub fn from_code(code: u8) -> Verdict {
        match code & 3 {
            0 => Verdict::Enqueue,
            1 => Verdict::Mark,
            2 => Verdict::EarlyDrop,
            _ => Verdict::TailDrop,
        }
    }

    /// The code on the `verdict_code` port.
    pub fn code(self) -> u8 {
        match self {
            Verdict::Enqueue => 0,
            Verdict::Mark => 1,
            Verdict::EarlyDrop => 2,
            Verdict::TailDrop => 3,
        }
    }

    /// The packet goes into the queue.
    pub fn is_enqueued(self) -> bool {
        matches!(self, Verdict::Enqueue | Verdict::Mark)
    }
}

/// A verdict from the verdict stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerdictBeat {
    pub tag: u16,
    pub verdict: Verdict,
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
    /// ns, 40 bits.
    pub sojourn_ns: u64,
    pub queue: QueueId,
    /// Dropped at dequeue by the AQM, not sent.
    pub drop: bool,
    /// The decision behind it, when the core can tell ([`ClockedCore::egress_decision`]).
    pub decision: Option<Decision>,
}

/// What [`EventDriver::stream`] counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Streamed {
    /// Descriptors taken at ingress (`in_valid` and `in_ready`).
    pub taken: u64,
    /// Verdict beats.
    pub verdicts: u64,
    /// Egress beats (sent or dropped) taken with `out_ready`.
    pub beats: u64,
    /// The driver's cycle count at the last egress beat.
    pub last_beat_cycle: u64,
}

/// A core behind its ports, clocked around events, with a cycle counter.
pub struct EventDriver<C> {
    core: C,
    i: CoreInputs,
    cycles: u64,
}

impl<C: ClockedCore> EventDriver<C> {
    /// Holds `core` in reset for two cycles at time 0.
    pub fn new(core: C) -> EventDriver<C> {
        let mut d = EventDriver {
            core,
            i: CoreInputs {
                rst: true,
                ..CoreInputs::default()
            },
            cycles: 0,
        };
        d.cycle();
        d.cycle();
        d.i.rst = false;
        d
    }

    pub fn core(&self) -> &C {
        &self.core
    }

    pub fn core_mut(&mut self) -> &mut C {
        &mut self.core
    }

    /// Rising edges so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// `now` as driven, ns.
    pub fn now(&self) -> u64 {
        self.i.now
    }

    fn cycle(&mut self) -> CoreOutputs {
        self.cycles += 1;
        self.core.step(&self.i)
    }

    fn peek(&mut self) -> CoreOutputs {
        self.core.peek(&self.i)
    }

    fn stuck(&self, what: String) -> DriverError {
        DriverError::Core {
            at_ns: self.i.now,
            cycle: self.cycles,
            what,
        }
    }

    /// Fails on a verdict or a departure nobody asked for.
    fn check_quiet(&self, o: &CoreOutputs, during: &str) -> Result<(), DriverError> {
        if o.verdict_valid {
            return Err(self.stuck(format!(
                "a verdict (tag {}) came out during {during}",
                o.verdict_tag
            )));
        }
        if self.i.out_ready && o.out_valid {
            return Err(self.stuck(format!(
                "a departure (tag {}) was taken during {during}",
                o.out_tag
            )));
        }
        Ok(())
    }

    /// Clocks until the core is idle (nothing in flight, nothing due).
    pub fn run_until_idle(&mut self, during: &str) -> Result<(), DriverError> {
        for _ in 0..MAX_WAIT_CYCLES {
            let o = self.peek();
            self.check_quiet(&o, during)?;
            if o.idle {
                return Ok(());
            }
            self.cycle();
        }
        Err(self.stuck(format!("not idle {MAX_WAIT_CYCLES} cycles into {during}")))
    }

    /// Moves `now` to `t`, clocking between steps of at most [`MAX_NOW_STEP`].
    fn set_now(&mut self, t: u64) -> Result<(), DriverError> {
        if t < self.i.now {
            return Err(DriverError::TimeWentBack {
                from_ns: self.i.now,
                to_ns: t,
            });
        }
        while t - self.i.now > MAX_NOW_STEP {
            self.i.now += MAX_NOW_STEP;
            self.cycle();
        }
        self.i.now = t;
        Ok(())
    }

    /// When the controller fires next (from the core's 40-bit `next_update`), ns; `now` if it is due.
    pub fn next_update_ns(&mut self) -> u64 {
        let next = self.peek().next_update;
        let ahead = next.wrapping_sub(self.i.now) & TIME_MASK;
        if ahead >> (TIME_BITS - 1) == 0 {
            self.i.now + ahead
        } else {
            self.i.now
        }
    }

    /// Runs every controller update due at or before `t`, each with `now` at its own due time, and
    /// leaves `now` at `t`.
    pub fn advance_to(&mut self, t: u64) -> Result<(), DriverError> {
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

    /// Offers one descriptor at the current `now`; waits for its verdict and for the core to be idle.
    pub fn offer(&mut self, len: u16, ecn: Ecn, tag: u16) -> Result<VerdictBeat, DriverError> {
        self.i.in_len = len;
        self.i.in_ecn = ecn.bits();
        self.i.in_tag = tag;
        self.i.in_valid = true;
        let mut accepted = false;
        for _ in 0..MAX_WAIT_CYCLES {
            let o = self.peek();
            self.check_quiet(&o, "an ingress handshake")?;
            self.cycle();
            if o.in_ready {
                accepted = true;
                break;
            }
        }
        self.i.in_valid = false;
        if !accepted {
            return Err(self.stuck(format!(
                "in_ready stayed low for {MAX_WAIT_CYCLES} cycles (tag {tag})"
            )));
        }
        let mut verdict = None;
        for _ in 0..MAX_WAIT_CYCLES {
            let o = self.peek();
            if o.verdict_valid {
                let v = VerdictBeat {
                    tag: o.verdict_tag,
                    verdict: Verdict::from_code(o.verdict_code),
                    queue: queue_of(o.verdict_queue),
                };
                if verdict.is_some() || v.tag != tag {
                    return Err(self.stuck(format!(
                        "verdict for tag {} while waiting for the verdict of tag {tag}",
                        v.tag
                    )));
                }
                verdict = Some(v);
            } else if let Some(v) = verdict {
                if o.idle {
                    return Ok(v);
                }
            }
            self.cycle();
        }
        Err(self.stuck(match verdict {
            None => format!("no verdict for tag {tag} within {MAX_WAIT_CYCLES} cycles"),
            Some(_) => format!("not idle {MAX_WAIT_CYCLES} cycles after the verdict of tag {tag}"),
        }))
    }

    /// Asks for the next egress transfer at the current `now` (`out_ready` high) and returns it. With
    /// `expect` false it gives up after the first idle cycle (its edge included) and returns `None`;
    /// with `expect` true it waits for a transfer. Leaves `out_ready` high: end the request with
    /// [`EventDriver::finish_dequeue`].
    pub fn next_beat(&mut self, expect: bool) -> Result<Option<Beat>, DriverError> {
        self.i.out_ready = true;
        for _ in 0..MAX_WAIT_CYCLES {
            let o = self.peek();
            if o.verdict_valid {
                return Err(self.stuck("a verdict came out during a dequeue".into()));
            }
            if o.out_valid {
                let beat = Beat {
                    tag: o.out_tag,
                    len: o.out_len,
                    ecn: Ecn::from_bits(o.out_ecn),
                    sojourn_ns: o.out_sojourn & TIME_MASK,
                    queue: queue_of(o.out_queue),
                    drop: o.out_drop,
                    decision: self.core.egress_decision(&self.i),
                };
                self.cycle();
                return Ok(Some(beat));
            }
            self.cycle();
            if !expect && o.idle {
                return Ok(None);
            }
        }
        Err(self.stuck(format!(
            "no departure within {MAX_WAIT_CYCLES} cycles of asking for one"
        )))
    }

    /// Ends a dequeue request (`out_ready` low) and clocks until the core is idle.
    pub fn finish_dequeue(&mut self) -> Result<(), DriverError> {
        self.i.out_ready = false;
        self.run_until_idle("the end of a dequeue")
    }

    /// One dequeue request: the beats up to and including the packet sent (only drops, or nothing,
    /// when the queues run empty). `expect`: the caller knows packets are queued.
    pub fn dequeue(&mut self, expect: bool) -> Result<Vec<Beat>, DriverError> {
        let mut beats = vec![];
        while let Some(b) = self.next_beat(expect && beats.is_empty())? {
            beats.push(b);
            if !b.drop {
                break;
            }
        }
        self.finish_dequeue()?;
        Ok(beats)
    }

    /// Clocks `cycles` cycles at the current `now` with `in_valid` held high when `offer` (a new
    /// descriptor of `len` bytes, Not-ECT, after each one taken, tags counting up from `first_tag`) and
    /// `out_ready` held as given; counts the descriptors taken, the verdicts and the egress beats.
    /// Leaves both inputs low.
    pub fn stream(
        &mut self,
        cycles: u64,
        offer: bool,
        out_ready: bool,
        len: u16,
        first_tag: u16,
    ) -> Streamed {
        let mut n = Streamed::default();
        self.i.in_len = len;
        self.i.in_ecn = Ecn::NotEct.bits();
        self.i.in_tag = first_tag;
        self.i.in_valid = offer;
        self.i.out_ready = out_ready;
        for _ in 0..cycles {
            let o = self.peek();
            if o.verdict_valid {
                n.verdicts += 1;
            }
            if out_ready && o.out_valid {
                n.beats += 1;
                n.last_beat_cycle = self.cycles;
            }
            let taken = offer && o.in_ready;
            self.cycle();
            if taken {
                n.taken += 1;
                self.i.in_tag = self.i.in_tag.wrapping_add(1);
            }
        }
        self.i.in_valid = false;
        self.i.out_ready = false;
        n
    }

    /// Writes a register and clocks until the core is idle; a rejected write is an error.
    pub fn write_reg(&mut self, a: u8, value: u32) -> Result<(), DriverError> {
        self.run_until_idle("a register write")?;
        self.i.reg_addr = a;
        self.i.reg_wdata = value;
        self.i.reg_we = true;
        self.cycle();
        self.i.reg_we = false;
        // Taken at the next edge; reg_err is high the cycle after.
        self.cycle();
        let err = self.peek().reg_err;
        self.cycle();
        self.run_until_idle("a register write")?;
        if err {
            return Err(DriverError::Rejected { addr: a, value });
        }
        Ok(())
    }

    /// Reads a register; an unmapped address is an error.
    pub fn read_reg(&mut self, a: u8) -> Result<u32, DriverError> {
        self.i.reg_addr = a;
        self.i.reg_re = true;
        self.cycle();
        self.i.reg_re = false;
        let o = self.peek();
        self.cycle();
        if o.reg_err || !o.reg_rvalid {
            return Err(DriverError::ReadRejected { addr: a });
        }
        Ok(o.reg_rdata)
    }
}

/// The queue a 1-bit `queue` port names.
pub fn queue_of(l: bool) -> QueueId {
    if l {
        QueueId::L
    } else {
        QueueId::Classic
    }
}
