//! Runs several core models on the same inputs and compares every output on every cycle.

use crate::stimulus::Stimulus;
use crate::vcd::{self, Scope};
use aqm_golden::hw::ClockedCore;
use aqm_golden::hw::{CoreInputs, CoreOutputs};
use aqm_hdl::head_queue::Heads;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};

/// Cycles of history kept for the waveform of a mismatch.
const HISTORY: usize = 2_000;

/// The input ports with their widths, for the waveform.
pub const INPUT_PORTS: [(&str, u32); 11] = CoreInputs::PORTS;

/// The output ports with their widths.
pub const OUTPUT_PORTS: [(&str, u32); 19] = CoreOutputs::PORTS;

/// The first disagreement between models, or a broken invariant.
#[derive(Debug)]
pub struct Failure {
    pub cycle: u64,
    pub what: String,
    /// The waveform of the last cycles, if one was written.
    pub vcd: Option<PathBuf>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle {}: {}", self.cycle, self.what)?;
        if let Some(p) = &self.vcd {
            write!(f, " (waveform: {})", p.display())?;
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

/// What a run did, from the first model's outputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub cycles: u64,
    pub accepted: u64,
    /// Verdicts by code: enqueue, mark, early drop, tail drop.
    pub verdicts: [u64; 4],
    /// Packets that left a queue: sent, or (DualPI2) dropped at dequeue.
    pub departures: u64,
    /// Of those, dropped at dequeue.
    pub dequeue_drops: u64,
    pub resets: u64,
    pub reg_errors: u64,
}

/// Bookkeeping of every accepted descriptor: one verdict each, one departure per enqueued one, in order.
#[derive(Default)]
struct Conservation {
    /// Accepted, waiting for a verdict: tags in order.
    awaiting_verdict: VecDeque<u16>,
    /// Enqueued, waiting to depart: tag -> count.
    queued: HashMap<u16, u32>,
}

impl Conservation {
    fn clear(&mut self) {
        self.awaiting_verdict.clear();
        self.queued.clear();
    }

    fn check(&mut self, i: &CoreInputs, o: &CoreOutputs) -> Result<(), String> {
        if o.verdict_valid {
            match self.awaiting_verdict.pop_front() {
                Some(t) if t == o.verdict_tag => {}
                Some(t) => {
                    return Err(format!(
                        "verdict for tag {} but tag {t} was next",
                        o.verdict_tag
                    ))
                }
                None => {
                    return Err(format!(
                        "verdict for tag {} that was never accepted",
                        o.verdict_tag
                    ))
                }
            }
            if o.verdict_code <= 1 {
                *self.queued.entry(o.verdict_tag).or_default() += 1;
            }
        }
        if o.out_valid && i.out_ready {
            match self.queued.get_mut(&o.out_tag) {
                Some(n) if *n > 0 => *n -= 1,
                _ => {
                    return Err(format!(
                        "departure of tag {} that was not queued",
                        o.out_tag
                    ))
                }
            }
        }
        if i.in_valid && o.in_ready {
            self.awaiting_verdict.push_back(i.in_tag);
        }
        Ok(())
    }

    fn outstanding(&self) -> usize {
        self.awaiting_verdict.len() + self.queued.values().map(|&n| n as usize).sum::<usize>()
    }
}

/// A CONTROL.reset write seen at a cycle (second) and the cycle its reset acts (first).
type SoftReset = (Option<u64>, Option<u64>);

fn soft_update(soft: SoftReset, i: &CoreInputs, cycle: u64) -> SoftReset {
    let (mut acts, mut written) = soft;
    if acts == Some(cycle) {
        acts = None;
    }
    if i.rst {
        return (None, None);
    }
    if let Some(w) = written {
        if cycle == w + 1 {
            acts = Some(cycle + 1);
            written = None;
        }
    }
    // CONTROL is at the same address in both cores.
    if i.reg_we && i.reg_addr == aqm_golden::pie::regs::addr::CONTROL && i.reg_wdata & 1 != 0 {
        written = Some(cycle);
    }
    (acts, written)
}

/// Runs `models` in lockstep for `cycles` cycles of `stim` (the first model's `in_ready` feeds back into
/// the stimulus), then drains: link model off, ingress off, `out_ready` high, time running, until every
/// descriptor has its verdict and every enqueued one has left. Any output difference, a descriptor without exactly one verdict, or an
/// enqueued descriptor that does not leave exactly once fails the run; the waveform of the last
/// [`HISTORY`] cycles then goes to `vcd_path`.
pub fn run(
    models: &mut [&mut dyn ClockedCore],
    stim: &mut Stimulus,
    cycles: u64,
    vcd_path: Option<&Path>,
) -> Result<RunStats, Failure> {
    let link_bt = crate::stimulus::reg_addr(stim.core(), "LINK_BYTE_TIME");
    let mut history: VecDeque<(u64, Vec<Vec<u64>>)> = VecDeque::new();
    let mut stats = RunStats::default();
    let mut cons = Conservation::default();
    let mut drain_cycles = 0u64;
    let mut last = CoreInputs::default();
    let mut cycle = 0u64;
    let mut soft: SoftReset = (None, None);
    loop {
        let draining = cycle >= cycles;
        let i = if draining {
            // Switch the link model off, then pull with time running fast. A DualPI2 core refuses a
            // parameter write while an earlier one is still going in: the write is repeated.
            drain_cycles += 1;
            CoreInputs {
                now: last.now + 100_000,
                out_ready: true,
                reg_we: drain_cycles % 128 == 1,
                reg_addr: link_bt,
                ..Default::default()
            }
        } else {
            stim.next().expect("stimulus is endless")
        };
        last = i;
        let outs: Vec<CoreOutputs> = models.iter_mut().map(|m| m.step(&i)).collect();
        let mut sample = vec![i.values().to_vec()];
        sample.extend(outs.iter().map(|o| o.values().to_vec()));
        history.push_back((cycle, sample));
        if history.len() > HISTORY {
            history.pop_front();
        }
        let fail = |what: String, history: &VecDeque<(u64, Vec<Vec<u64>>)>| {
            let vcd = vcd_path.and_then(|p| {
                let mut scopes = vec![Scope {
                    name: "inputs".into(),
                    signals: INPUT_PORTS.to_vec(),
                }];
                for m in models.iter() {
                    scopes.push(Scope {
                        name: m.model_name().replace('-', "_"),
                        signals: OUTPUT_PORTS.to_vec(),
                    });
                }
                let first = history.front().map_or(0, |h| h.0);
                let samples: Vec<Vec<Vec<u64>>> = history.iter().map(|h| h.1.clone()).collect();
                vcd::write(p, &scopes, first, &samples)
                    .ok()
                    .map(|_| p.to_path_buf())
            });
            Failure { cycle, what, vcd }
        };
        // Every output of every model against the first.
        let reference = &history.back().expect("just pushed").1[1];
        for (m, vals) in history
            .back()
            .expect("just pushed")
            .1
            .iter()
            .enumerate()
            .skip(2)
        {
            for (k, (&a, &b)) in reference.iter().zip(vals).enumerate() {
                if a != b {
                    let what = format!(
                        "{} = {a:#x} in {} but {b:#x} in {}",
                        OUTPUT_PORTS[k].0,
                        models[0].model_name(),
                        models[m - 1].model_name()
                    );
                    return Err(fail(what, &history));
                }
            }
        }
        let o = &outs[0];
        // A reset discards everything in flight. A CONTROL.reset write resets the core two cycles after
        // the write (it is applied the next cycle, and the reset register acts the one after), unless a
        // reset comes first.
        let soft_now = soft.0 == Some(cycle);
        soft = soft_update(soft, &i, cycle);
        if i.rst {
            stats.resets += 1;
            cons.clear();
        } else {
            if let Err(e) = cons.check(&i, o) {
                return Err(fail(format!("conservation: {e}"), &history));
            }
            if soft_now {
                stats.resets += 1;
                cons.clear();
            }
        }
        if o.verdict_valid {
            stats.verdicts[o.verdict_code as usize & 3] += 1;
        }
        if o.out_valid && i.out_ready {
            stats.departures += 1;
            stats.dequeue_drops += o.out_drop as u64;
        }
        if i.in_valid && o.in_ready {
            stats.accepted += 1;
        }
        stats.reg_errors += o.reg_err as u64;
        stim.feedback(o);
        if draining && cons.outstanding() == 0 && !o.out_valid {
            break;
        }
        if drain_cycles > 200_000 {
            return Err(fail(
                format!(
                    "did not drain: {} descriptors outstanding",
                    cons.outstanding()
                ),
                &history,
            ));
        }
        cycle += 1;
    }
    cycle += 1;
    stats.cycles = cycle;
    Ok(stats)
}

/// The models that run beside a golden model in [`agree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beside {
    /// The Verilated RTL of the stimulus's core.
    Verilator,
    /// Its rust-hdl simulation and its Verilated RTL (three-way).
    RustHdlAndVerilator,
    /// The rust-hdl simulation of its other head form (`aqm_hdl::head_queue::Heads::Ram`, what the
    /// DualPI2 line card builds) and its Verilated RTL.
    RamHeadsAndVerilator,
}

/// Runs `golden` (the golden model of the stimulus's core) in lock step with that core's other models,
/// `cycles` cycles of `Stimulus::new(seed, cfg)`; a mismatch fails with the run's `name` and leaves its
/// waveform at `vcd_dir/<name>.vcd`.
pub fn agree(
    golden: &mut dyn ClockedCore,
    beside: Beside,
    name: &str,
    (seed, cfg): (u64, crate::stimulus::StimulusConfig),
    cycles: u64,
    vcd_dir: &Path,
) -> Result<RunStats, String> {
    let kind = cfg.core;
    let mut stim = Stimulus::new(seed, cfg);
    let mut vl = aqm_verilated::VerilatedCore::new(kind);
    let mut rtl = match beside {
        Beside::RustHdlAndVerilator => {
            Some((aqm_hdl::cores::hdl_core(kind).simulate)(Heads::Registers))
        }
        Beside::RamHeadsAndVerilator => Some((aqm_hdl::cores::hdl_core(kind).simulate)(Heads::Ram)),
        Beside::Verilator => None,
    };
    let mut models: Vec<&mut dyn ClockedCore> = vec![golden];
    if let Some(r) = rtl.as_mut() {
        models.push(r.as_mut());
    }
    models.push(&mut vl);
    let vcd = vcd_dir.join(format!("{name}.vcd"));
    run(&mut models, &mut stim, cycles, Some(&vcd)).map_err(|e| format!("{name}: {e}"))
}
