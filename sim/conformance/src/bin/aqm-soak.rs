//! `aqm-soak`: a long conformance run of the golden PIE model against the Verilated core, in chunks with
//! different seeds and stimulus settings, then the speed of each model alone.
//!
//! ```text
//! aqm-soak [--cycles N] [--chunk N] [--seed S] [--rtl-cycles N]
//! ```

use aqm_conformance::lockstep;
use aqm_conformance::model::{CoreModel, RustHdlPie};
use aqm_conformance::stimulus::{config_strategy, Stimulus, StimulusConfig};
use aqm_golden::pie::core::{PieCoreModel, PieCoverage};
use aqm_verilated::VerilatedCore;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    cycles: u64,
    chunk: u64,
    seed: u64,
    rtl_cycles: u64,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        cycles: 100_000_000,
        chunk: 500_000,
        seed: 1,
        rtl_cycles: 50_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
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
            "-h" | "--help" => {
                return Err(
                    "usage: aqm-soak [--cycles N] [--chunk N] [--seed S] [--rtl-cycles N]".into(),
                )
            }
            other => return Err(format!("unknown argument {other:?}; try --help")),
        }
    }
    Ok(a)
}

/// The stimulus settings of chunk `k`: drawn from the conformance strategy with a fixed seed.
fn config(seed: u64, k: u64) -> StimulusConfig {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&k.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    config_strategy()
        .new_tree(&mut runner)
        .expect("strategy")
        .current()
}

/// Cycles per second of one model stepping alone through `cycles` cycles of stimulus.
fn speed(model: &mut dyn CoreModel, seed: u64, cycles: u64) -> f64 {
    let mut stim = Stimulus::new(seed, config(seed, 0));
    let t = Instant::now();
    for _ in 0..cycles {
        let i = stim.next().expect("endless");
        let o = model.step(&i);
        stim.feedback(&o);
    }
    cycles as f64 / t.elapsed().as_secs_f64()
}

fn add(total: &mut PieCoverage, c: &PieCoverage) {
    total.updates += c.updates;
    total.burst_resets += c.burst_resets;
    total.recomputes += c.recomputes;
    total.bytemode_products += c.bytemode_products;
    for k in 0..4 {
        total.verdicts[k] += c.verdicts[k];
    }
    total.departures += c.departures;
    total.resets += c.resets;
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("aqm-soak: {e}");
            return ExitCode::FAILURE;
        }
    };
    let t = Instant::now();
    let mut done = 0u64;
    let mut total = PieCoverage::default();
    let mut k = 0u64;
    while done < a.cycles {
        let n = a.chunk.min(a.cycles - done);
        let cfg = config(a.seed, k);
        let mut golden = PieCoreModel::new();
        let mut vl = VerilatedCore::pie();
        let mut stim = Stimulus::new(a.seed ^ (k << 20), cfg.clone());
        let vcd = PathBuf::from(format!("build/soak/chunk{k}.vcd"));
        let r = {
            let mut models: Vec<&mut dyn CoreModel> = vec![&mut golden, &mut vl];
            lockstep::run(&mut models, &mut stim, n, Some(&vcd))
        };
        match r {
            Ok(stats) => done += stats.cycles,
            Err(e) => {
                eprintln!("aqm-soak: chunk {k} (seed {}, {cfg:?}) failed: {e}", a.seed);
                return ExitCode::FAILURE;
            }
        }
        add(&mut total, &golden.coverage);
        k += 1;
        if k.is_multiple_of(20) {
            eprintln!(
                "aqm-soak: {done} cycles agree ({:.0} s)",
                t.elapsed().as_secs_f64()
            );
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "golden vs verilator: {done} cycles in {k} chunks agree on every output ({secs:.1} s, {:.2} M cycles/s \
         for the pair)",
        done as f64 / secs / 1e6
    );
    println!(
        "  exercised: {} updates, {} burst resets, {} recomputations, {} bytemode products, verdicts \
         enqueue/mark/early/tail {:?}, {} departures, {} resets",
        total.updates,
        total.burst_resets,
        total.recomputes,
        total.bytemode_products,
        total.verdicts,
        total.departures,
        total.resets
    );
    let n = 2_000_000;
    println!("speed of each model alone (cycles per second):");
    println!(
        "  golden     {:>12.0}",
        speed(&mut PieCoreModel::new(), a.seed, n)
    );
    println!(
        "  verilator  {:>12.0}",
        speed(&mut VerilatedCore::pie(), a.seed, n)
    );
    if a.rtl_cycles > 0 {
        println!(
            "  rust-hdl   {:>12.0}",
            speed(&mut RustHdlPie::default(), a.seed, a.rtl_cycles)
        );
    }
    ExitCode::SUCCESS
}
