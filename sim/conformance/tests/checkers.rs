//! The checkers are checked: a golden model made to lie on one output (at one cycle, only after a
//! reset, only across the wrap of the 40-bit time) must be caught by `agree` at that cycle, naming the
//! signal, with a waveform that shows both values at that time. And the lockstep's own conservation
//! check must catch a model that swallows a verdict.

mod common;

use aqm_conformance::lockstep::{agree, run, Beside, OUTPUT_PORTS};
use aqm_conformance::stimulus::{busy_setup, Stimulus, StimulusConfig};
use aqm_golden::dualpi2::core::DualPi2CoreModel;
use aqm_golden::dualpi2::kind::DUALPI2_CORE;
use aqm_golden::hw::{ClockedCore, CoreInputs, CoreOutputs, TIME_MASK};
use aqm_golden::pie::core::PieCoreModel;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// When the liar lies.
#[derive(Clone, Copy, Debug)]
enum When {
    /// At this cycle only.
    At(u64),
    /// At the first cycle out of the reset that follows cycle 0's.
    AfterSecondReset,
    /// From the cycle whose time has wrapped past 2^40 ns on.
    AcrossTheWrap,
}

/// A golden model that tells the truth, except for one output when `when` says.
struct Liar<C: ClockedCore> {
    inner: C,
    when: When,
    lie: fn(&mut CoreOutputs),
    cycle: u64,
    resets: u32,
    in_reset: bool,
    prev_now: Option<u64>,
    wrapped: bool,
    /// The cycle of the first lie, and the true and the false value of the outputs then.
    first_lie: Option<(u64, CoreOutputs, CoreOutputs)>,
}

impl<C: ClockedCore> Liar<C> {
    fn new(inner: C, when: When, lie: fn(&mut CoreOutputs)) -> Liar<C> {
        Liar {
            inner,
            when,
            lie,
            cycle: 0,
            resets: 0,
            in_reset: false,
            prev_now: None,
            wrapped: false,
            first_lie: None,
        }
    }

    fn lies_now(&mut self, i: &CoreInputs) -> bool {
        if i.rst && !self.in_reset {
            self.resets += 1;
        }
        let out_of_reset = self.in_reset && !i.rst;
        self.in_reset = i.rst;
        if let Some(p) = self.prev_now {
            if i.now & TIME_MASK < p & TIME_MASK {
                self.wrapped = true;
            }
        }
        self.prev_now = Some(i.now);
        match self.when {
            When::At(c) => self.cycle == c,
            When::AfterSecondReset => out_of_reset && self.resets == 2,
            When::AcrossTheWrap => self.wrapped,
        }
    }
}

impl<C: ClockedCore> ClockedCore for Liar<C> {
    fn model_name(&self) -> &'static str {
        "golden"
    }
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
        self.inner.peek(i)
    }
    fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        let truth = self.inner.step(i);
        let mut o = truth;
        if self.lies_now(i) {
            (self.lie)(&mut o);
            if self.first_lie.is_none() {
                self.first_lie = Some((self.cycle, truth, o));
            }
        }
        self.cycle += 1;
        o
    }
    fn extra_verdict_latency(&self, len: u16) -> u64 {
        self.inner.extra_verdict_latency(len)
    }
}

/// The values of every signal at one time of a VCD, by scope and name, as the file has them.
fn vcd_values_at(text: &str, time: u64) -> HashMap<(String, String), u64> {
    let mut names: HashMap<String, (String, String)> = HashMap::new();
    let mut scope = String::new();
    let mut values: HashMap<(String, String), u64> = HashMap::new();
    let mut now: Option<u64> = None;
    let mut seen_time = false;
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["$scope", "module", name, "$end"] => scope = name.to_string(),
            ["$var", "wire", _width, id, name, "$end"] => {
                names.insert(id.to_string(), (scope.clone(), name.to_string()));
            }
            [t] if t.starts_with('#') => {
                let t: u64 = t[1..].parse().expect("a VCD time");
                if now == Some(time) && t > time {
                    break;
                }
                now = Some(t);
                seen_time |= t == time;
            }
            [bits, id] if bits.starts_with('b') => {
                let v = u64::from_str_radix(&bits[1..], 2).expect("binary value");
                values.insert(names[*id].clone(), v);
            }
            [one] if one.starts_with('0') || one.starts_with('1') => {
                let (v, id) = one.split_at(1);
                values.insert(names[id].clone(), v.parse().expect("0 or 1"));
            }
            _ => {}
        }
    }
    assert!(seen_time, "the VCD has no time #{time}");
    values
}

fn tmp() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
}

/// Runs `liar` beside the Verilated core and checks that the failure names the cycle and the output
/// port `signal`, and that the waveform shows the golden lie and the Verilated truth at that cycle.
fn caught<C: ClockedCore>(
    name: &str,
    mut liar: Liar<C>,
    signal: &str,
    cfg: StimulusConfig,
    cycles: u64,
) -> u64 {
    let e = agree(&mut liar, Beside::Verilator, name, (7, cfg), cycles, tmp())
        .expect_err("the lie must be caught");
    eprintln!("{e}");
    let (cycle, truth, lie) = liar.first_lie.expect("it lied");
    // The port's value as the lockstep compares it, by name: the name checked is the value checked.
    let port = OUTPUT_PORTS
        .iter()
        .position(|p| p.0 == signal)
        .unwrap_or_else(|| panic!("no output port {signal}"));
    let (t, l) = (truth.values()[port], lie.values()[port]);
    assert_ne!(t, l, "the lie changes {signal}");
    assert!(
        e.starts_with(&format!(
            "{name}: cycle {cycle}: {signal} = {l:#x} in golden but {t:#x} in verilator"
        )),
        "{e}"
    );
    let vcd: PathBuf = tmp().join(format!("{name}.vcd"));
    assert!(
        e.ends_with(&format!("(waveform: {})", vcd.display())),
        "{e}"
    );
    let text = std::fs::read_to_string(&vcd).expect("the waveform was written");
    let at = vcd_values_at(&text, cycle * 10);
    let value = |scope: &str| at.get(&(scope.to_string(), signal.to_string())).copied();
    assert_eq!(
        value("golden"),
        Some(l),
        "golden {signal} at #{}",
        cycle * 10
    );
    assert_eq!(
        value("verilator"),
        Some(t),
        "verilator {signal} at #{}",
        cycle * 10
    );
    // The waveform ends at the failing cycle.
    let last = text.lines().rfind(|l| l.starts_with('#')).expect("times");
    assert_eq!(last, format!("#{}", cycle * 10));
    cycle
}

#[test]
fn a_lie_on_one_output_at_one_cycle_is_caught_there() {
    let cfg = StimulusConfig {
        setup: busy_setup(1_000, 8 << 8, false, false, 1024),
        ..StimulusConfig::default()
    };
    let liar = Liar::new(PieCoreModel::new(), When::At(1234), |o| {
        o.out_sojourn ^= 1 << 20
    });
    let cycle = caught("checkers_one_cycle", liar, "out_sojourn", cfg, 5_000);
    assert_eq!(cycle, 1234);
    assert!(OUTPUT_PORTS.iter().any(|p| p.0 == "out_sojourn"));
}

#[test]
fn a_lie_only_after_a_reset_is_caught_at_the_first_cycle_after_it() {
    let cfg = StimulusConfig {
        reset_every: 2_000,
        ..StimulusConfig::default()
    };
    let liar = Liar::new(DualPi2CoreModel::new(), When::AfterSecondReset, |o| {
        o.idle = !o.idle
    });
    let cfg = StimulusConfig {
        core: &DUALPI2_CORE,
        ..cfg
    };
    let cycle = caught("checkers_after_reset", liar, "idle", cfg, 50_000);
    // Not the reset of cycle 0: one in the middle of the run.
    assert!(cycle > 1, "{cycle}");
}

#[test]
fn a_lie_only_across_the_40_bit_wrap_is_caught_at_the_wrap() {
    // The wrap regime of the PIE conformance: 700 ms before now reaches 2^41 (bits 0-39 wrap to 0).
    let cfg = common::pie_wrap_regime();
    // A model whose controller schedule did not wrap: bit 39 of next_update wrong after the wrap.
    let liar = Liar::new(PieCoreModel::new(), When::AcrossTheWrap, |o| {
        o.next_update ^= 1 << 39
    });
    let cycle = caught("checkers_wrap", liar, "next_update", cfg.clone(), 60_000);
    // The cycle is the first whose time has wrapped.
    let mut stim = Stimulus::new(7, cfg);
    let mut model = PieCoreModel::new();
    let mut prev = None;
    let mut wrap = None;
    for c in 0..60_000u64 {
        let i = stim.next().expect("endless");
        if prev.is_some_and(|p: u64| i.now & TIME_MASK < p & TIME_MASK) {
            wrap = Some(c);
            break;
        }
        prev = Some(i.now);
        let o = model.step(&i);
        stim.feedback(&o);
    }
    assert_eq!(Some(cycle), wrap);
    assert!(cycle > 30_000, "{cycle}");
}

/// A model that swallows the verdict of the 50th descriptor it accepts (its output says no verdict).
struct SwallowsAVerdict {
    inner: PieCoreModel,
    verdicts: u32,
    swallowed: Option<(u64, u16)>,
    cycle: u64,
}

impl ClockedCore for SwallowsAVerdict {
    fn model_name(&self) -> &'static str {
        "golden"
    }
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
        self.inner.peek(i)
    }
    fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        let mut o = self.inner.step(i);
        if o.verdict_valid {
            self.verdicts += 1;
            if self.verdicts == 50 {
                o.verdict_valid = false;
                self.swallowed = Some((self.cycle, o.verdict_tag));
            }
        }
        self.cycle += 1;
        o
    }
}

#[test]
fn the_lockstep_conservation_check_catches_a_swallowed_verdict() {
    let cfg = StimulusConfig {
        reset_every: 0,
        ..StimulusConfig::default()
    };
    let mut m = SwallowsAVerdict {
        inner: PieCoreModel::new(),
        verdicts: 0,
        swallowed: None,
        cycle: 0,
    };
    let mut stim = Stimulus::new(3, cfg);
    let vcd = tmp().join("checkers_swallowed.vcd");
    let mut models: Vec<&mut dyn ClockedCore> = vec![&mut m];
    let e = run(&mut models, &mut stim, 20_000, Some(&vcd)).expect_err("caught");
    eprintln!("{e}");
    let (at, tag) = m.swallowed.expect("it swallowed one");
    // The next verdict is for the next descriptor, not the one whose verdict went missing.
    assert!(e.what.contains(&format!("but tag {tag} was next")), "{e}");
    assert!(e.cycle > at, "{e}");
    assert_eq!(e.vcd.as_deref(), Some(vcd.as_path()));
}
