//! Driving a core the way an event simulator does, and the DualPI2 core model behind the simulator's
//! [`Aqm`] interface.
//!
//! Time is an input: between events the core is not clocked, and during an event `now` is held at the
//! event's time. [`EventDriver`] works on anything that takes one cycle's inputs ([`ClockedCore`]): this
//! golden model, or a simulated RTL core with the same ports, so that the hardware in the loop follows
//! the same discipline:
//!
//! - Before an event at `t`, every controller update due at or before `t` runs at its own time: `now`
//!   = the core's `next_update`, clock until `idle` ([`EventDriver::advance_to`]).
//! - Enqueue: `in_valid` until `in_ready`, then clock until the verdict has come out and the core is
//!   `idle` ([`EventDriver::offer`]).
//! - Dequeue: `out_ready` high; every transfer on the egress stream is a beat, the AQM's drops first,
//!   then the packet sent; stop at the sent packet, or when the core is `idle` with nothing out (after
//!   that cycle's edge, which resets the WRR credit when both queues are empty); then `out_ready` low
//!   and clock until `idle` ([`EventDriver::next_beat`], [`EventDriver::finish_dequeue`]).
//! - Register write: `reg_we` for one cycle, `reg_err` two cycles later says whether it was rejected,
//!   then clock until `idle` (the parameter engine is busy for [`super::PARAM_CYCLES`]); register read:
//!   `reg_re` for one cycle, the answer the next.
//!
//! Every check of an output is made before the cycle's edge, as a simulator settles the design, reads
//! the outputs, then clocks it.

use super::super::decision::{Decision, Verdict};
use super::super::params::DualPi2Params;
use super::super::qdisc::run_seed;
use super::super::regs::{addr, find};
use super::{queue_of, DualPi2CoreModel, CODE_ENQUEUE, CODE_TAIL_DROP};
use crate::aqm::Aqm;
use crate::hw::{CoreInputs, CoreOutputs, TIME_BITS, TIME_MASK};
use crate::types::{Admission, Departure, DropReason, Dropped, Ecn, Packet, QueueId};
use std::collections::HashMap;
use std::fmt;

/// The most `now` may move from one clock cycle to the next, ns (the cores' contract).
pub const MAX_NOW_STEP: u64 = 1 << 38;
/// Cycles to wait for the core before calling it stuck (the longest job, an update, takes 40).
pub const MAX_WAIT_CYCLES: u64 = 10_000;

/// A core clocked one cycle at a time.
pub trait ClockedCore {
    /// The outputs of a cycle with these inputs, without its rising edge.
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs;
    /// The outputs of a cycle with these inputs, then its rising edge.
    fn step(&mut self, i: &CoreInputs) -> CoreOutputs;
    /// The decision behind the packet on the egress stream, if the core can tell (a model can; the
    /// RTL's ports do not carry it).
    fn egress_decision(&self) -> Option<Decision> {
        None
    }
}

impl ClockedCore for DualPi2CoreModel {
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
        self.outputs(i)
    }

    fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        DualPi2CoreModel::step(self, i)
    }

    fn egress_decision(&self) -> Option<Decision> {
        DualPi2CoreModel::egress_decision(self)
    }
}

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

/// A verdict from the verdict stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerdictBeat {
    pub tag: u16,
    /// [`CODE_ENQUEUE`] or [`CODE_TAIL_DROP`].
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
    /// ns, 40 bits.
    pub sojourn_ns: u64,
    pub queue: QueueId,
    /// Dropped at dequeue by the AQM, not sent.
    pub drop: bool,
    /// The decision behind it, when the core can tell ([`ClockedCore::egress_decision`]).
    pub decision: Option<Decision>,
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
                    code: o.verdict_code,
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
                    decision: self.core.egress_decision(),
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

/// The register writes that configure a DualPI2 core with `params` and the simulator's `seed` (the
/// generator then draws the same words as [`super::super::DualPi2Qdisc`] seeded with `seed`), the link
/// model off: (tc name, address, value).
pub fn register_writes(params: &DualPi2Params, seed: u64) -> Vec<(&'static str, u8, u32)> {
    let p = params;
    let s = run_seed(seed);
    vec![
        ("target", addr::TARGET_US, p.target_us),
        ("tupdate", addr::TUPDATE_US, p.tupdate_us),
        ("alpha", addr::ALPHA, p.alpha),
        ("beta", addr::BETA, p.beta),
        ("coupling_factor", addr::K, p.k),
        ("step_thresh", addr::STEP_US, p.step_us),
        ("min_qlen_step", addr::MIN_QLEN_STEP, p.min_qlen_step),
        ("ecn_mask", addr::ECN_MASK, p.ecn_mask),
        (
            "drop_on_overload",
            addr::DROP_OVERLOAD,
            p.drop_overload as u32,
        ),
        ("limit", addr::LIMIT, p.limit),
        ("mtu", addr::MTU, p.mtu),
        ("classic_protection", addr::C_PROTECTION, p.c_protection),
        ("link", addr::LINK_BYTE_TIME, 0),
        ("seed", addr::SEED_LO, s as u32),
        ("seed", addr::SEED_HI, (s >> 32) as u32),
    ]
}

/// The DualPI2 core model as a queue discipline of the simulator: the cycle-accurate twin of
/// [`super::super::DualPi2Qdisc`], driven by [`EventDriver`].
///
/// Configuration happens at time 0 through the register bus, then one dequeue request on the empty
/// core loads the WRR credit with the configured MTU and C protection (reset loads the defaults').
/// The first controller update falls one *default* tupdate (16 ms) after the reset, whatever TUPDATE_US
/// is set to. A fault (the core breaking its contract) stops the model: every arrival is refused from
/// then on and [`Aqm::fault`] reports it.
pub struct DualPi2CoreAqm {
    core: EventDriver<DualPi2CoreModel>,
    /// The packets inside the core, by tag.
    held: HashMap<u16, Packet>,
    next_tag: u16,
    bytes: u64,
    fault: Option<String>,
}

impl DualPi2CoreAqm {
    /// A reset core configured with `params` (which must suit the hardware) and seeded from `seed`.
    pub fn new(params: DualPi2Params, seed: u64) -> Result<DualPi2CoreAqm, DriverError> {
        params
            .validate_hardware()
            .map_err(|e| DriverError::Config(e.to_string()))?;
        let mut core = EventDriver::new(DualPi2CoreModel::new());
        for (param, a, value) in register_writes(&params, seed) {
            core.write_reg(a, value).map_err(|e| match (e, find(a)) {
                (DriverError::Rejected { .. }, Some(def)) => DriverError::Param {
                    param,
                    register: def.name,
                    value,
                },
                (e, _) => e,
            })?;
        }
        core.next_beat(false)?;
        core.finish_dequeue()?;
        Ok(DualPi2CoreAqm {
            core,
            held: HashMap::new(),
            next_tag: 0,
            bytes: 0,
            fault: None,
        })
    }

    /// The driver, to read registers or clock the model by hand.
    pub fn driver(&mut self) -> &mut EventDriver<DualPi2CoreModel> {
        &mut self.core
    }

    pub fn model(&self) -> &DualPi2CoreModel {
        self.core.core()
    }

    /// Writes p' through the PROB register at `now_ns` (after the updates due by then), as
    /// [`super::super::DualPi2Qdisc::set_prob`] sets it.
    pub fn set_prob(&mut self, now_ns: u64, prob: u32) -> Result<(), DriverError> {
        self.core.advance_to(now_ns)?;
        self.core.write_reg(addr::PROB, prob)
    }

    fn core_error(&self, what: String) -> DriverError {
        DriverError::Core {
            at_ns: self.core.now(),
            cycle: self.core.cycles(),
            what,
        }
    }

    fn fail(&mut self, e: DriverError) {
        if self.fault.is_none() {
            self.fault = Some(format!("dualpi2 (core model): {e}"));
        }
    }

    fn try_enqueue(&mut self, now_ns: u64, pkt: Packet) -> Result<Admission, DriverError> {
        let len = u16::try_from(pkt.len).map_err(|_| {
            DriverError::Config(format!(
                "packet {} is {} bytes long; the core's length field takes at most 65535",
                pkt.id, pkt.len
            ))
        })?;
        let tag = self.next_tag;
        if self.held.contains_key(&tag) {
            return Err(self.core_error(format!("tag {tag} is still held")));
        }
        self.core.advance_to(now_ns)?;
        let v = self.core.offer(len, pkt.ecn, tag)?;
        self.next_tag = self.next_tag.wrapping_add(1);
        match v.code {
            CODE_ENQUEUE => {
                self.held.insert(tag, pkt);
                self.bytes += pkt.len as u64;
                Ok(Admission::Enqueued)
            }
            CODE_TAIL_DROP => Ok(Admission::Dropped(DropReason::Overlimit)),
            c => Err(self.core_error(format!("verdict code {c} for packet {}", pkt.id))),
        }
    }

    fn try_dequeue(
        &mut self,
        now_ns: u64,
        drops: &mut Vec<Dropped>,
    ) -> Result<Option<Departure>, DriverError> {
        self.core.advance_to(now_ns)?;
        let mut sent = None;
        while let Some(beat) = self.core.next_beat(!self.held.is_empty())? {
            let Some(pkt) = self.held.remove(&beat.tag) else {
                return Err(self.core_error(format!(
                    "a departure with tag {}, which the core was never given or already gave back",
                    beat.tag
                )));
            };
            self.bytes -= pkt.len as u64;
            if beat.len as u32 != pkt.len {
                return Err(self.core_error(format!(
                    "packet {} went in with {} bytes and came out with {}",
                    pkt.id, pkt.len, beat.len
                )));
            }
            let Some(d) = beat.decision else {
                return Err(self.core_error("a departure without a decision".into()));
            };
            match (beat.drop, d.verdict) {
                (true, Verdict::Drop(rule)) => drops.push(Dropped {
                    pkt,
                    reason: rule.drop_reason(),
                    sojourn_ns: beat.sojourn_ns,
                    queue: beat.queue,
                }),
                (false, Verdict::Pass | Verdict::Mark(_)) => {
                    let mark = match d.verdict {
                        Verdict::Mark(rule) => Some(rule.mark_reason()),
                        _ => None,
                    };
                    sent = Some(Departure {
                        pkt: Packet {
                            ecn: beat.ecn,
                            ..pkt
                        },
                        sojourn_ns: beat.sojourn_ns,
                        mark,
                        queue: beat.queue,
                    });
                    break;
                }
                (drop, v) => {
                    return Err(self.core_error(format!(
                        "packet {}: out_drop {drop} with the decision {v:?}",
                        pkt.id
                    )))
                }
            }
        }
        self.core.finish_dequeue()?;
        Ok(sent)
    }
}

impl Aqm for DualPi2CoreAqm {
    fn name(&self) -> String {
        "dualpi2 (core model)".into()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        if self.fault.is_some() {
            return Admission::Dropped(DropReason::Overlimit);
        }
        self.try_enqueue(now_ns, pkt).unwrap_or_else(|e| {
            self.fail(e);
            Admission::Dropped(DropReason::Overlimit)
        })
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        if self.fault.is_some() {
            return None;
        }
        self.try_dequeue(now_ns, drops).unwrap_or_else(|e| {
            self.fail(e);
            None
        })
    }

    fn backlog_packets(&self) -> usize {
        self.held.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }

    fn fault(&self) -> Option<String> {
        self.fault.clone()
    }

    fn cycles_clocked(&self) -> Option<u64> {
        Some(self.core.cycles())
    }
}
