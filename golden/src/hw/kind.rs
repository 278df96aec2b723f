//! What a hardware core *is*, written once: [`CoreKind`]. Every harness (conformance, the simulator's
//! `(hw)` rows, the system-equivalence tests, the board flow and the host tool) asks the core's kind
//! instead of keeping its own copy of the ID, the capacity, the latencies, the register names, how a
//! verdict reads and how parameters become register writes.
//!
//! The kinds of the two cores are [`crate::pie::kind::PIE_CORE`] and
//! [`crate::dualpi2::kind::DUALPI2_CORE`]; [`CORES`] lists them. A third core adds its kind there (and
//! its HDL beside the others); nothing else names the cores one by one.

use super::clocked::ClockedCore;
use super::driver::{Beat, DriverError, EventDriver, Verdict, VerdictBeat};
use super::regs::{RegDef, TcAbsent, TcGroup, TcStats};
use crate::types::{Admission, DropReason, MarkReason};

/// One register write of a configuration: the parameter it carries (its tc name), where, and what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegWrite {
    pub param: &'static str,
    pub addr: u8,
    pub value: u32,
}

impl RegWrite {
    /// A core's configuration in write order: the PI controller's four parameters (`controller`:
    /// target and update interval in us, the gains in the registers' units) at the addresses both
    /// cores share, then the core's `own` writes (parameter, address, value), then the link model off
    /// (`link` is the core's LINK_BYTE_TIME) and the 64-bit `seed`, low word at `seed_lo` and high word at the next address.
    pub fn configuration(
        controller: [u32; 4],
        own: &[(&'static str, u8, u32)],
        (link, seed_lo, seed): (u8, u8, u64),
    ) -> Vec<RegWrite> {
        use super::regs::common_addr::{ALPHA, BETA, TARGET_US, TUPDATE_US};
        let [target_us, tupdate_us, alpha, beta] = controller;
        let head = [
            ("target", TARGET_US, target_us),
            ("tupdate", TUPDATE_US, tupdate_us),
            ("alpha", ALPHA, alpha),
            ("beta", BETA, beta),
        ];
        let tail = [
            ("link", link, 0),
            ("seed", seed_lo, seed as u32),
            ("seed", seed_lo + 1, (seed >> 32) as u32),
        ];
        let write = |(param, addr, value)| RegWrite { param, addr, value };
        let mut writes: Vec<RegWrite> = head.map(write).to_vec();
        writes.extend(own.iter().copied().map(write));
        writes.extend(tail.map(write));
        writes
    }
}

/// What a kind needs of a driven core: its register bus, and an empty dequeue request.
pub trait RegisterBus {
    /// Writes a register and waits until the core is idle; a rejected write is an error.
    fn write_reg(&mut self, addr: u8, value: u32) -> Result<(), DriverError>;
    /// Reads a register; an unmapped address is an error.
    fn read_reg(&mut self, addr: u8) -> Result<u32, DriverError>;
    /// One dequeue request that expects nothing (the core is empty), ended and waited out.
    fn poll_dequeue(&mut self) -> Result<(), DriverError>;
}

impl<C: ClockedCore> RegisterBus for EventDriver<C> {
    fn write_reg(&mut self, addr: u8, value: u32) -> Result<(), DriverError> {
        EventDriver::write_reg(self, addr, value)
    }
    fn read_reg(&mut self, addr: u8) -> Result<u32, DriverError> {
        EventDriver::read_reg(self, addr)
    }
    fn poll_dequeue(&mut self) -> Result<(), DriverError> {
        self.next_beat(false)?;
        self.finish_dequeue()
    }
}

/// Why the core dropped or marked a packet at dequeue, when its ports do not say (the RTL's beats carry
/// no decision): a kind's reading of its counters. Called once the dequeue is over and the core idle.
pub trait BeatReasons: Send {
    /// Why the core dropped the packet of `beat` (an egress beat with `out_drop`).
    fn drop_reason(&mut self, beat: &Beat) -> Result<DropReason, String>;
    /// Whether the core marked the packet of `beat` (sent), and why.
    fn dequeue_mark(
        &mut self,
        beat: &Beat,
        bus: &mut dyn RegisterBus,
    ) -> Result<Option<MarkReason>, String>;
}

/// Parameters a core takes through its registers.
pub trait CoreParams {
    /// Whether the hardware can take these parameters (beyond the registers' own ranges).
    fn check_hardware(&self) -> Result<(), String> {
        Ok(())
    }
    /// The register writes that configure a reset core with these parameters, its generator seeded from
    /// the simulator's `seed` as the golden qdisc seeds itself, and the link model off.
    fn register_writes(&self, seed: u64) -> Vec<RegWrite>;
}

/// What a core is, as plain values.
pub struct CoreFacts {
    /// Short name, as on command lines and in the simulator's rows: `"pie"`, `"dualpi2"`.
    pub name: &'static str,
    /// The name in prose: `"PIE"`, `"DualPI2"`.
    pub title: &'static str,
    /// The value of the ID register (four ASCII characters: the core and its version).
    pub id: u32,
    /// Descriptors the core holds (its CAPACITY register).
    pub capacity: u32,
    /// Cycles from the ingress handshake to the verdict (the shortest case).
    pub verdict_latency: u64,
    /// Cycles from one parameter write to the next the core takes (DualPI2's parameter engine refuses a
    /// write while the one before is still going in).
    pub write_spacing: u64,
    /// The register map (`hdl/REGISTERS.md` is generated from it), with each parameter's tc option.
    pub regs: &'static [RegDef],
    /// The tc options of the core's qdisc (`name`) that the hardware does not have, and why.
    pub tc_absent: &'static [TcAbsent],
    /// tc options that set several registers at once (DualPI2's `max_rtt` / `typical_rtt`).
    pub tc_groups: &'static [TcGroup],
    /// What `tc -s qdisc show` prints for the core.
    pub tc_stats: &'static TcStats,
}

/// One hardware core: everything the harnesses need to know about it.
pub trait CoreKind: Sync {
    /// The core's values ([`CoreFacts`]); the accessors below read them.
    fn facts(&self) -> &'static CoreFacts;
    /// See [`CoreFacts::name`].
    fn name(&self) -> &'static str {
        self.facts().name
    }
    /// See [`CoreFacts::title`].
    fn title(&self) -> &'static str {
        self.facts().title
    }
    /// See [`CoreFacts::id`].
    fn id(&self) -> u32 {
        self.facts().id
    }
    /// See [`CoreFacts::capacity`].
    fn capacity(&self) -> u32 {
        self.facts().capacity
    }
    /// See [`CoreFacts::verdict_latency`].
    fn verdict_latency(&self) -> u64 {
        self.facts().verdict_latency
    }
    /// See [`CoreFacts::write_spacing`].
    fn write_spacing(&self) -> u64 {
        self.facts().write_spacing
    }
    /// See [`CoreFacts::regs`].
    fn regs(&self) -> &'static [RegDef] {
        self.facts().regs
    }
    /// See [`CoreFacts::tc_absent`].
    fn tc_absent(&self) -> &'static [TcAbsent] {
        self.facts().tc_absent
    }
    /// See [`CoreFacts::tc_groups`].
    fn tc_groups(&self) -> &'static [TcGroup] {
        self.facts().tc_groups
    }
    /// See [`CoreFacts::tc_stats`].
    fn tc_stats(&self) -> &'static TcStats {
        self.facts().tc_stats
    }
    /// The register at `addr`, if it is mapped.
    fn register(&self, addr: u8) -> Option<&'static RegDef> {
        self.regs().iter().find(|d| d.addr == addr)
    }
    /// The register called `name` (as the map spells it: `TARGET_US`; case-insensitive).
    fn register_by_name(&self, name: &str) -> Option<&'static RegDef> {
        self.regs()
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(name))
    }
    /// The golden cycle-accurate model of the core, out of power-on (drive `rst` first).
    fn model(&self) -> Box<dyn ClockedCore + Send>;
    /// The register writes of the default parameters the hardware can hold (DualPI2: Linux's defaults
    /// with the limit of its descriptor memory), the generator seeded from `seed`.
    fn default_writes(&self, seed: u64) -> Vec<RegWrite>;
    /// What follows the register writes before the core takes traffic (DualPI2: one empty dequeue
    /// request, which loads its WRR credit from the configured MTU and C protection).
    fn after_configure(&self, _bus: &mut dyn RegisterBus) -> Result<(), DriverError> {
        Ok(())
    }
    /// The simulator's admission for a verdict of this core (an error names what the core may not do).
    fn admission(&self, v: &VerdictBeat) -> Result<Admission, String>;
    /// A fresh reader of the reasons behind dequeue drops and marks.
    fn beat_reasons(&self) -> Box<dyn BeatReasons>;
}

impl PartialEq for dyn CoreKind {
    fn eq(&self, other: &dyn CoreKind) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn CoreKind {}

impl std::fmt::Debug for dyn CoreKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every core, in the order tables list them.
pub static CORES: &[&dyn CoreKind] = &[
    &crate::pie::kind::PIE_CORE,
    &crate::dualpi2::kind::DUALPI2_CORE,
];

/// The core called `name`.
pub fn by_name(name: &str) -> Option<&'static dyn CoreKind> {
    CORES.iter().copied().find(|k| k.name() == name)
}

/// The core whose ID register reads `id`.
pub fn by_id(id: u32) -> Option<&'static dyn CoreKind> {
    CORES.iter().copied().find(|k| k.id() == id)
}

/// The cores' names, for messages: `"pie, dualpi2"`.
pub fn names() -> String {
    CORES
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Configures a reset core: the writes in order (a rejected one is a [`DriverError::Param`] naming the
/// parameter and the register), then what the kind does after them.
pub fn configure(
    kind: &dyn CoreKind,
    bus: &mut dyn RegisterBus,
    writes: &[RegWrite],
) -> Result<(), DriverError> {
    for w in writes {
        bus.write_reg(w.addr, w.value).map_err(|e| {
            match (e, kind.register(w.addr).map(|d| d.name)) {
                (DriverError::Rejected { .. }, Some(register)) => DriverError::Param {
                    param: w.param,
                    register,
                    value: w.value,
                },
                (e, _) => e,
            }
        })?;
    }
    kind.after_configure(bus)
}

/// The admission of a core whose verdicts are queued, CE-marked, early- or tail-dropped.
pub fn admission_of(v: Verdict) -> Admission {
    match v {
        Verdict::Enqueue => Admission::Enqueued,
        Verdict::Mark => Admission::Marked(MarkReason::Early),
        Verdict::EarlyDrop => Admission::Dropped(DropReason::Early),
        Verdict::TailDrop => Admission::Dropped(DropReason::Overlimit),
    }
}
