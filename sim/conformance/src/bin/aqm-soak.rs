//! `aqm-soak`: a long conformance run of each core, its golden model against its Verilated RTL with every
//! output compared on every cycle, in chunks with different seeds and stimulus settings; then the speed of
//! each model alone (golden, Verilated, rust-hdl).
//!
//! ```text
//! aqm-soak [--core CORE|all] [--cycles N] [--chunk N] [--seed S] [--rtl-cycles N]
//! ```
//!
//! `--core all` (the default) soaks every core of `aqm_golden::hw::CORES` in turn, each for the full
//! `--cycles`. The settings of each chunk are drawn from the core's conformance strategy
//! (`aqm_conformance::stimulus::strategy_for`):
//! idle links to overload, every ECN code, back-pressure, small limits, register traffic, forced
//! probabilities, resets and time jumps; for DualPI2 also both queues, every ECN mask, overload with and
//! without drop_overload. A mismatch stops the run with the first differing cycle and signal, and the
//! waveform of the cycles before it in `build/soak/<core>-chunk<k>.vcd`. Every line of the report starts
//! with the core's name.

use aqm_conformance::lockstep;
use aqm_conformance::stimulus::{strategy_for, Stimulus, StimulusConfig};
use aqm_golden::hw::{by_name, names, ClockedCore, CoreKind, CORES};
use aqm_hdl::cores::hdl_core;
use aqm_verilated::VerilatedCore;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str =
    "usage: aqm-soak [--core CORE|all] [--cycles N] [--chunk N] [--seed S] [--rtl-cycles N]";

/// Cycles of each speed measurement of the golden and the Verilated model.
const SPEED_CYCLES: u64 = 2_000_000;

struct Args {
    cores: Vec<&'static dyn CoreKind>,
    cycles: u64,
    chunk: u64,
    seed: u64,
    rtl_cycles: u64,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        cores: CORES.to_vec(),
        cycles: 100_000_000,
        chunk: 500_000,
        seed: 1,
        rtl_cycles: 50_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--core" {
            let expected = format!("{} or all", names());
            a.cores = match it.next().as_deref() {
                Some("all") => CORES.to_vec(),
                Some(n) => vec![by_name(n)
                    .ok_or_else(|| format!("--core: expected {expected}, found {n:?}"))?],
                None => return Err(format!("--core: expected {expected} after it")),
            };
            continue;
        }
        let mut value = |name: &str| -> Result<u64, String> {
            let v = it
                .next()
                .ok_or_else(|| format!("{name}: expected a number after it"))?;
            v.replace('_', "")
                .parse()
                .map_err(|_| format!("{name}: expected a number, found {v:?}"))
        };
        match flag.as_str() {
            "--cycles" => a.cycles = value("--cycles")?,
            "--chunk" => a.chunk = value("--chunk")?.max(1),
            "--seed" => a.seed = value("--seed")?,
            "--rtl-cycles" => a.rtl_cycles = value("--rtl-cycles")?,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}; try --help")),
        }
    }
    Ok(a)
}

/// Coverage counters summed over chunks, by name, in the order the golden model first reports them.
#[derive(Default)]
struct Totals(Vec<(String, u64)>);

impl Totals {
    fn add(&mut self, counts: Vec<(String, u64)>) {
        for (name, n) in counts {
            match self.0.iter_mut().find(|(k, _)| *k == name) {
                Some((_, t)) => *t += n,
                None => self.0.push((name, n)),
            }
        }
    }

    /// `name n` pairs, a few to a line.
    fn lines(&self) -> Vec<String> {
        self.0
            .chunks(6)
            .map(|c| {
                c.iter()
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .collect()
    }
}

/// The stimulus settings of chunk `k`: drawn from the core's conformance strategy with a fixed seed.
fn config(strategy: &BoxedStrategy<StimulusConfig>, seed: u64, k: u64) -> StimulusConfig {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&k.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    strategy.new_tree(&mut runner).expect("strategy").current()
}

/// Cycles per second of one model stepping alone through `cycles` cycles of stimulus.
fn speed(model: &mut dyn ClockedCore, seed: u64, cfg: StimulusConfig, cycles: u64) -> f64 {
    let mut stim = Stimulus::new(seed, cfg);
    let t = Instant::now();
    for _ in 0..cycles {
        let i = stim.next().expect("endless");
        let o = model.step(&i);
        stim.feedback(&o);
    }
    cycles as f64 / t.elapsed().as_secs_f64()
}

/// The soak of one core: golden against Verilated chunk by chunk, then the speed of each model alone.
fn soak(kind: &'static dyn CoreKind, a: &Args) -> Result<(), String> {
    let name = format!("{:<8}", kind.name());
    let strategy = strategy_for(kind)?;
    let t = Instant::now();
    let mut done = 0u64;
    let mut total = Totals::default();
    let mut k = 0u64;
    while done < a.cycles {
        let n = a.chunk.min(a.cycles - done);
        let cfg = config(&strategy, a.seed, k);
        let seed = a.seed ^ (k << 20);
        let mut golden = kind.model();
        let mut vl = VerilatedCore::new(kind);
        let mut stim = Stimulus::new(seed, cfg.clone());
        let vcd = PathBuf::from(format!("build/soak/{}-chunk{k}.vcd", kind.name()));
        let stats = {
            let mut models: Vec<&mut dyn ClockedCore> = vec![&mut golden, &mut vl];
            lockstep::run(&mut models, &mut stim, n, Some(&vcd))
        }
        .map_err(|e| {
            format!(
                "{}: chunk {k} (stimulus seed {seed}, {cfg:?}) failed: {e}",
                kind.name()
            )
        })?;
        done += stats.cycles;
        total.add(golden.coverage());
        k += 1;
        if k.is_multiple_of(20) {
            eprintln!(
                "aqm-soak: {}: {done} cycles agree ({:.0} s)",
                kind.name(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{name} golden vs verilator: {done} cycles in {k} chunks agree on every output ({secs:.1} s, \
         {:.2} M cycles/s for the pair)",
        done as f64 / secs / 1e6
    );
    for (j, line) in total.lines().iter().enumerate() {
        let head = if j == 0 { "exercised:" } else { "          " };
        println!("{name}   {head} {line}");
    }
    let cfg = config(&strategy, a.seed, 0);
    println!("{name} speed of each model alone (cycles per second):");
    let r = speed(kind.model().as_mut(), a.seed, cfg.clone(), SPEED_CYCLES);
    println!("{name}   golden     {r:>12.0}");
    let r = speed(
        &mut VerilatedCore::new(kind),
        a.seed,
        cfg.clone(),
        SPEED_CYCLES,
    );
    println!("{name}   verilator  {r:>12.0}");
    if a.rtl_cycles > 0 {
        let r = speed(
            (hdl_core(kind).simulate)(aqm_hdl::head_queue::Heads::Registers).as_mut(),
            a.seed,
            cfg,
            a.rtl_cycles,
        );
        println!("{name}   rust-hdl   {r:>12.0}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("aqm-soak: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut r = Ok(());
    for kind in &a.cores {
        r = soak(*kind, &a);
        if r.is_err() {
            break;
        }
    }
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aqm-soak: {e}");
            ExitCode::FAILURE
        }
    }
}
