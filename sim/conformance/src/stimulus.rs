//! Input sequences for the conformance runs.
//!
//! A [`Stimulus`] is a deterministic function of a seed and a [`StimulusConfig`]: arrivals (single and
//! back-to-back bursts), packet lengths (64..1518 and the edges around them, or a given set), every ECN
//! code point, egress back-pressure, register traffic (valid and invalid parameter writes, reads of every
//! address, forced probabilities, seeds, given parameters rewritten under traffic), resets in the
//! middle of traffic, and time that advances by a configurable step with occasional jumps.
//! [`config_strategy`] gives proptest strategies over the settings.

use aqm_golden::dualpi2::kind::DUALPI2_CORE;
use aqm_golden::dualpi2::regs as d2;
use aqm_golden::hw::{CoreInputs, CoreKind, CoreOutputs};
use aqm_golden::pie::kind::PIE_CORE;
use aqm_golden::pie::regs::addr;
use aqm_golden::prng::XorShift64;
use proptest::prelude::*;

/// The address of the register called `name` in `core`'s map (every core has LINK_BYTE_TIME).
pub fn reg_addr(core: &dyn CoreKind, name: &str) -> u8 {
    core.register_by_name(name)
        .unwrap_or_else(|| panic!("the {} core has no register {name}", core.name()))
        .addr
}

/// Lengths at and around the edges that matter: tiny, 64, the MTU (1514), the Ethernet maximum (1518),
/// the MTU register's maximum (2047), and the field's maximum.
pub const EDGE_LENGTHS: [u16; 14] = [
    0, 1, 63, 64, 65, 1513, 1514, 1515, 1517, 1518, 2047, 2048, 9000, 65535,
];

/// The knobs of a stimulus.
#[derive(Clone, Debug, PartialEq)]
pub struct StimulusConfig {
    /// Percent of cycles that start a burst of arrivals.
    pub arrival_pct: u32,
    /// Longest back-to-back burst.
    pub max_burst: u32,
    /// Percent of lengths drawn from [`EDGE_LENGTHS`] instead of 64..=1518.
    pub edge_len_pct: u32,
    /// When not empty, every length is drawn from these instead (`edge_len_pct` is then unused).
    pub lengths: Vec<u16>,
    /// Percent of cycles with `out_ready` high.
    pub ready_pct: u32,
    /// Typical advance of `now` per cycle, ns.
    pub ns_per_cycle: u64,
    /// One cycle in this many jumps time forward by up to `max_jump_ns`.
    pub jump_every: u32,
    pub max_jump_ns: u64,
    /// `now` in the first cycle, ns (the cores keep 40 bits of it: a start shortly before a multiple of
    /// 2^40 ns runs through the wrap of their time).
    pub start_ns: u64,
    /// One cycle in this many is a reset (0: never after the first).
    pub reset_every: u32,
    /// Percent of cycles with a register access.
    pub reg_pct: u32,
    /// Every this many cycles, a sweep reads every register of the map in turn, one per cycle without
    /// another register access (0: never), so that the counters are compared however rare the random
    /// reads (a read changes no state but the latched high half of a 64-bit pair).
    pub sweep_every: u32,
    /// Parameters written after each reset (register address, value).
    pub setup: Vec<(u8, u32)>,
    /// One cycle in this many (after the setup writes) writes one of `rewrites`, drawn at random
    /// (0: never): parameters changed under traffic.
    pub rewrite_every: u32,
    pub rewrites: Vec<(u8, u32)>,
    /// One cycle in this many writes a random probability up to `force_prob_max` (0: never).
    pub force_prob_every: u32,
    pub force_prob_max: u64,
    /// When not empty, every forced probability is drawn from these instead (`force_prob_max` is then
    /// unused).
    pub force_probs: Vec<u64>,
    /// The core driven: the cores share the ports but not the register map.
    pub core: &'static dyn CoreKind,
}

impl Default for StimulusConfig {
    fn default() -> Self {
        StimulusConfig {
            arrival_pct: 10,
            max_burst: 8,
            edge_len_pct: 10,
            lengths: vec![],
            ready_pct: 90,
            ns_per_cycle: 2_000,
            jump_every: 5_000,
            max_jump_ns: 2_000_000_000,
            start_ns: 1_000,
            reset_every: 200_000,
            reg_pct: 1,
            sweep_every: 0,
            setup: vec![],
            rewrite_every: 0,
            rewrites: vec![],
            force_prob_every: 0,
            force_prob_max: 0,
            force_probs: vec![],
            core: &PIE_CORE,
        }
    }
}

/// A parameter set that makes things happen in few cycles: a fast controller, a slow link, the given
/// ECN and bytemode switches.
pub fn busy_setup(
    tupdate_us: u32,
    link_bt: u32,
    ecn: bool,
    bytemode: bool,
    limit: u32,
) -> Vec<(u8, u32)> {
    vec![
        (addr::TUPDATE_US, tupdate_us),
        (addr::LINK_BYTE_TIME, link_bt),
        (addr::ECN, ecn as u32),
        (addr::BYTEMODE, bytemode as u32),
        (addr::LIMIT, limit),
    ]
}

/// `busy_setup` with a target (us) and the burst allowance of later measurement cycles (us).
pub fn tuned_setup(base: Vec<(u8, u32)>, target_us: u32, max_burst_us: u32) -> Vec<(u8, u32)> {
    let mut v = base;
    v.push((addr::TARGET_US, target_us));
    v.push((addr::MAX_BURST_US, max_burst_us));
    v
}

/// What both cores' strategies draw first, the same way: arrivals, lengths and back-pressure
/// (`arrival_pct`, `max_burst`, `edge_len_pct`, `ready_pct`), then time (`ns_per_cycle`, `jump_every`).
type Traffic = ((u32, u32, u32, u32), (u64, u32));

fn traffic_strategy() -> impl Strategy<Value = Traffic> {
    (
        (1u32..60, 1u32..40, 0u32..40, 10u32..=100),
        (
            prop_oneof![Just(10u64), 100u64..5_000, 5_000u64..100_000],
            500u32..20_000,
        ),
    )
}

/// TUPDATE_US and LINK_BYTE_TIME from their draws: 100 us, 1 ms or `tupdate_ms10` x 10 us; the link
/// model off (`bt_sel` below 15), else `bt_sel` x 8 ns/byte, 120 (67 Mbit/s) to 800 (10 Mbit/s), Q16.8.
fn tupdate_and_link(tu_sel: u32, tupdate_ms10: u32, bt_sel: u32) -> (u32, u32) {
    let tupdate_us = [100, 1_000, tupdate_ms10 * 10][tu_sel as usize];
    let link_bt = if bt_sel < 15 { 0 } else { (bt_sel * 8) << 8 };
    (tupdate_us, link_bt)
}

/// A stimulus for `core` with the settings both cores draw alike; the core's strategy adds its
/// parameter writes (`setup`) and forced probabilities (`force_prob_max`).
fn drawn_config(
    ((arrival_pct, max_burst, edge_len_pct, ready_pct), (ns_per_cycle, jump_every)): Traffic,
    (reset_every, reg_pct): (u32, u32),
    (force_prob_every, start_ns): (u32, u64),
    core: &'static dyn CoreKind,
) -> StimulusConfig {
    StimulusConfig {
        arrival_pct,
        max_burst,
        edge_len_pct,
        lengths: vec![],
        ready_pct,
        ns_per_cycle,
        jump_every,
        max_jump_ns: 2_000_000_000,
        start_ns,
        reset_every,
        reg_pct,
        sweep_every: 0,
        setup: vec![],
        rewrite_every: 0,
        rewrites: vec![],
        force_prob_every,
        force_prob_max: 0,
        force_probs: vec![],
        core,
    }
}

/// Proptest strategy over stimulus settings, from idle links to overload.
pub fn config_strategy() -> impl Strategy<Value = StimulusConfig> {
    (
        traffic_strategy(),
        (
            0u32..3,
            100u32..3000,
            0u32..=100u32,
            any::<bool>(),
            any::<bool>(),
            2u32..=1024,
        ),
        (
            prop_oneof![Just(0u32), 20_000u32..200_000],
            0u32..3,
            200u32..30_000,
            0u32..=150_000,
        ),
        (
            prop_oneof![Just(0u32), 500u32..5_000],
            1u64..=30,
            start_strategy(),
        ),
    )
        .prop_map(
            |(
                traffic,
                (tu_sel, tupdate_ms10, bt_sel, ecn, bytemode, limit),
                (reset_every, reg_pct, target_us, max_burst_us),
                (force_prob_every, force_pct, start_ns),
            )| {
                let (tupdate_us, link_bt) = tupdate_and_link(tu_sel, tupdate_ms10, bt_sel);
                StimulusConfig {
                    setup: tuned_setup(
                        busy_setup(tupdate_us, link_bt, ecn, bytemode, limit),
                        target_us,
                        max_burst_us,
                    ),
                    force_prob_max: aqm_golden::pie::consts::MAX_PROB / 100 * force_pct,
                    ..drawn_config(
                        traffic,
                        (reset_every, reg_pct),
                        (force_prob_every, start_ns),
                        &PIE_CORE,
                    )
                }
            },
        )
}

/// Where time starts: near 0 mostly, else up to 4 s before the 40-bit wrap of the cores' time (or of its
/// second turn, with bit 40 of `now` set), so that a run crosses it.
fn start_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => Just(1_000u64),
        1 => ((1u64 << 40) - 4_000_000_000)..(1u64 << 40),
        1 => ((1u64 << 41) - 4_000_000_000)..(1u64 << 41),
    ]
}

/// The input sequence itself.
pub struct Stimulus {
    cfg: StimulusConfig,
    rng: XorShift64,
    cycle: u64,
    now: u64,
    burst_left: u32,
    tag: u16,
    /// Cycles since the last reset, for the setup writes.
    since_reset: u64,
    /// The descriptor offered last cycle, if the core did not take it: offered again, as valid/ready wants.
    held: Option<(u16, u8, u16)>,
    offered: Option<(u16, u8, u16)>,
    /// The high half of a forced probability, written the cycle after its low half.
    prob_hi: Option<u32>,
    /// The next register of a sweep (`sweep_every`), past the map's end when none is running.
    sweep: usize,
}

/// A DualPI2 parameter set that makes things happen in few cycles: a fast controller and the given link,
/// limit, classification and overload settings (register address, value).
#[allow(clippy::too_many_arguments)]
pub fn dualpi2_setup(
    tupdate_us: u32,
    target_us: u32,
    link_bt: u32,
    limit: u32,
    ecn_mask: u32,
    drop_overload: bool,
    k: u32,
    step_us: u32,
) -> Vec<(u8, u32)> {
    use d2::addr as a;
    vec![
        (a::TUPDATE_US, tupdate_us),
        (a::TARGET_US, target_us),
        (a::LINK_BYTE_TIME, link_bt),
        (a::LIMIT, limit),
        (a::ECN_MASK, ecn_mask),
        (a::DROP_OVERLOAD, drop_overload as u32),
        (a::K, k),
        (a::STEP_US, step_us),
    ]
}

/// Proptest strategy over DualPI2 stimulus settings: both queues idle or backlogged, every ECN mask,
/// overload with and without drop_overload, small limits, back-pressure, resets.
pub fn dualpi2_config_strategy() -> impl Strategy<Value = StimulusConfig> {
    (
        traffic_strategy(),
        (0u32..3, 100u32..3000, 0u32..=100u32, 2u32..=1024, 1u32..=3),
        (
            any::<bool>(),
            prop_oneof![Just(2u32), 1u32..=4, Just(255u32)],
            0u32..3_000,
            0u32..4,
            0u32..=100,
        ),
        (
            prop_oneof![Just(0u32), 20_000u32..200_000],
            0u32..3,
            200u32..30_000,
        ),
        (
            prop_oneof![Just(0u32), 500u32..5_000],
            1u64..=100,
            start_strategy(),
        ),
    )
        .prop_map(
            |(
                traffic,
                (tu_sel, tupdate_ms10, bt_sel, limit, ecn_mask),
                (drop_overload, k, step_us, min_qlen, wc),
                (reset_every, reg_pct, target_us),
                (force_prob_every, force_pct, start_ns),
            )| {
                let (tupdate_us, link_bt) = tupdate_and_link(tu_sel, tupdate_ms10, bt_sel);
                let mut setup = dualpi2_setup(
                    tupdate_us,
                    target_us,
                    link_bt,
                    limit,
                    ecn_mask,
                    drop_overload,
                    k,
                    step_us,
                );
                setup.push((d2::addr::MIN_QLEN_STEP, min_qlen));
                setup.push((d2::addr::C_PROTECTION, wc));
                StimulusConfig {
                    setup,
                    force_prob_max: u32::MAX as u64 / 100 * force_pct,
                    ..drawn_config(
                        traffic,
                        (reset_every, reg_pct),
                        (force_prob_every, start_ns),
                        &DUALPI2_CORE,
                    )
                }
            },
        )
}

/// Makes a core's conformance settings.
pub type StrategyFn = fn() -> BoxedStrategy<StimulusConfig>;

/// The conformance settings of each core, in the order of [`aqm_golden::hw::CORES`] (a test checks it).
pub static STRATEGIES: &[(&dyn CoreKind, StrategyFn)] = &[
    (&PIE_CORE, || config_strategy().boxed()),
    (&DUALPI2_CORE, || dualpi2_config_strategy().boxed()),
];

/// The conformance settings of `kind`'s core.
pub fn strategy_for(kind: &dyn CoreKind) -> Result<BoxedStrategy<StimulusConfig>, String> {
    STRATEGIES
        .iter()
        .find(|(k, _)| k.name() == kind.name())
        .map(|(_, s)| s())
        .ok_or_else(|| {
            format!(
                "no conformance stimulus for the {} core in aqm_conformance::stimulus::STRATEGIES",
                kind.name()
            )
        })
}

impl Stimulus {
    /// The core this stimulus drives.
    pub fn core(&self) -> &'static dyn CoreKind {
        self.cfg.core
    }

    pub fn new(seed: u64, cfg: StimulusConfig) -> Stimulus {
        Stimulus {
            now: cfg.start_ns,
            cfg,
            rng: XorShift64::new(seed | 1).expect("non-zero seed"),
            cycle: 0,
            burst_left: 0,
            tag: 0,
            since_reset: 0,
            held: None,
            offered: None,
            prob_hi: None,
            sweep: usize::MAX,
        }
    }

    /// The outputs of the cycle just run: a descriptor the core did not accept is offered again.
    pub fn feedback(&mut self, o: &CoreOutputs) {
        self.held = if o.in_ready { None } else { self.offered };
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.rng.next_word() % n
        }
    }

    fn pct(&mut self, p: u32) -> bool {
        self.below(100) < p as u64
    }

    fn length(&mut self) -> u16 {
        if !self.cfg.lengths.is_empty() {
            let n = self.below(self.cfg.lengths.len() as u64) as usize;
            self.cfg.lengths[n]
        } else if self.pct(self.cfg.edge_len_pct) {
            EDGE_LENGTHS[self.below(EDGE_LENGTHS.len() as u64) as usize]
        } else {
            64 + self.below(1518 - 64 + 1) as u16
        }
    }

    /// A register access: reads of any address, writes of mostly valid parameter values, some out of
    /// range, some to read-only or unmapped addresses, forced probabilities and seeds, clearing counters.
    fn register(&mut self, i: &mut CoreInputs) {
        let regs = self.cfg.core.regs();
        let r = self.below(100);
        if r < 50 {
            i.reg_re = true;
            i.reg_addr = if self.pct(90) {
                regs[self.below(regs.len() as u64) as usize].addr
            } else {
                self.below(256) as u8
            };
            return;
        }
        i.reg_we = true;
        let def = regs[self.below(regs.len() as u64) as usize];
        i.reg_addr = def.addr;
        i.reg_wdata = match (def.addr, def.range) {
            // A soft reset now and then, mostly counter clears.
            (addr::CONTROL, _) => {
                if self.pct(10) {
                    1
                } else {
                    2
                }
            }
            (_, _) if def.name == "PROB_HI" => {
                if self.pct(10) {
                    0x0100_0000 + self.below(1000) as u32
                } else {
                    self.below(1 << 24) as u32
                }
            }
            // A seed's half is zero now and then, so that a zero seed (refused) comes up.
            (_, None) if def.name.starts_with("SEED") && self.pct(40) => 0,
            (_, Some((lo, hi))) if self.pct(85) => lo + self.below((hi - lo) as u64 + 1) as u32,
            (_, Some((_, hi))) => hi.saturating_add(1 + self.below(1000) as u32),
            _ => self.rng.next_word() as u32,
        };
    }
}

impl Iterator for Stimulus {
    type Item = CoreInputs;

    fn next(&mut self) -> Option<CoreInputs> {
        let mut i = CoreInputs {
            now: self.now,
            ..Default::default()
        };
        let c = self.cycle;
        self.cycle += 1;
        // Reset for the first cycles, and now and then.
        let reset =
            c < 2 || (self.cfg.reset_every > 0 && self.below(self.cfg.reset_every as u64) == 0);
        if reset {
            i.rst = true;
            self.since_reset = 0;
        } else {
            self.since_reset += 1;
        }
        // Setup writes after a reset, as often as the core takes them.
        let s = self.since_reset;
        let gap = self.cfg.core.write_spacing();
        if !i.rst && s >= 1 && s % gap == 1 && ((s / gap) as usize) < self.cfg.setup.len() {
            let (a, v) = self.cfg.setup[(s / gap) as usize];
            i.reg_we = true;
            i.reg_addr = a;
            i.reg_wdata = v;
        } else if let Some(hi) = self.prob_hi.take() {
            i.reg_we = true;
            i.reg_addr = addr::PROB_HI;
            i.reg_wdata = hi;
        } else if !i.rst
            && self.cfg.rewrite_every > 0
            && !self.cfg.rewrites.is_empty()
            && s > gap * self.cfg.setup.len() as u64
            && self.below(self.cfg.rewrite_every as u64) == 0
        {
            let n = self.below(self.cfg.rewrites.len() as u64) as usize;
            let (a, v) = self.cfg.rewrites[n];
            i.reg_we = true;
            i.reg_addr = a;
            i.reg_wdata = v;
        } else if self.cfg.force_prob_every > 0 && self.below(self.cfg.force_prob_every as u64) == 0
        {
            let p = if self.cfg.force_probs.is_empty() {
                self.below(self.cfg.force_prob_max + 1)
            } else {
                let k = self.below(self.cfg.force_probs.len() as u64) as usize;
                self.cfg.force_probs[k]
            };
            i.reg_we = true;
            i.reg_wdata = p as u32;
            // A 64-bit probability goes in as a _LO, _HI pair.
            match self.cfg.core.register_by_name("PROB") {
                Some(prob) => i.reg_addr = prob.addr,
                None => {
                    i.reg_addr = reg_addr(self.cfg.core, "PROB_LO");
                    self.prob_hi = Some((p >> 32) as u32);
                }
            }
        } else if self.pct(self.cfg.reg_pct) {
            self.register(&mut i);
        }
        // A sweep of reads: started every `sweep_every` cycles, one register per free cycle.
        if self.cfg.sweep_every > 0 && c.is_multiple_of(self.cfg.sweep_every as u64) {
            self.sweep = 0;
        }
        let regs = self.cfg.core.regs();
        if !i.rst && !i.reg_we && !i.reg_re && self.sweep < regs.len() {
            i.reg_re = true;
            i.reg_addr = regs[self.sweep].addr;
            self.sweep += 1;
        }
        // Arrivals: first whatever the core refused last cycle, then bursts of new descriptors.
        self.offered = None;
        if self.burst_left == 0 && self.pct(self.cfg.arrival_pct) {
            self.burst_left = 1 + self.below(self.cfg.max_burst as u64) as u32;
        }
        if let (Some((len, ecn, tag)), false) = (self.held.take(), i.rst) {
            i.in_valid = true;
            i.in_len = len;
            i.in_ecn = ecn;
            i.in_tag = tag;
        } else if self.burst_left > 0 {
            self.burst_left -= 1;
            i.in_valid = true;
            i.in_len = self.length();
            i.in_ecn = self.below(4) as u8;
            i.in_tag = self.tag;
            self.tag = self.tag.wrapping_add(1);
        } else if self.pct(5) {
            // Idle lines carry junk: only in_valid qualifies them.
            i.in_len = self.rng.next_word() as u16;
            i.in_ecn = self.below(4) as u8;
            i.in_tag = self.rng.next_word() as u16;
        }
        if i.in_valid {
            self.offered = Some((i.in_len, i.in_ecn, i.in_tag));
        }
        i.out_ready = self.pct(self.cfg.ready_pct);
        // Time: a steady step with jitter, and now and then a jump.
        let step = self.cfg.ns_per_cycle;
        self.now += step / 2 + self.below(step + 1);
        if self.cfg.jump_every > 0 && self.below(self.cfg.jump_every as u64) == 0 {
            self.now += self.below(self.cfg.max_jump_ns + 1);
        }
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_golden::hw::CORES;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    #[test]
    fn every_core_has_its_stimulus_and_it_drives_that_core() {
        let names: Vec<_> = STRATEGIES.iter().map(|(k, _)| k.name()).collect();
        let cores: Vec<_> = CORES.iter().map(|k| k.name()).collect();
        assert_eq!(names, cores);
        let mut runner = TestRunner::deterministic();
        for kind in CORES {
            let cfg = strategy_for(*kind)
                .unwrap()
                .new_tree(&mut runner)
                .unwrap()
                .current();
            assert_eq!(cfg.core.name(), kind.name());
        }
    }
}
