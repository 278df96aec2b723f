//! `aqm-soak`: a long conformance run of each core, its golden model against its Verilated RTL with every
//! output compared on every cycle, in chunks with different seeds and stimulus settings; then the speed of
//! each model alone (golden, Verilated, rust-hdl).
//!
//! ```text
//! aqm-soak [--core pie|dualpi2|all] [--cycles N] [--chunk N] [--seed S] [--rtl-cycles N]
//! ```
//!
//! `--core all` (the default) soaks PIE, then DualPI2, each for the full `--cycles`. The settings of each
//! chunk are drawn from the core's conformance strategy (`config_strategy`, `dualpi2_config_strategy`):
//! idle links to overload, every ECN code, back-pressure, small limits, register traffic, forced
//! probabilities, resets and time jumps; for DualPI2 also both queues, every ECN mask, overload with and
//! without drop_overload. A mismatch stops the run with the first differing cycle and signal, and the
//! waveform of the cycles before it in `build/soak/<core>-chunk<k>.vcd`. Every line of the report starts
//! with the core's name.

use aqm_conformance::lockstep;
use aqm_conformance::stimulus::{
    config_strategy, dualpi2_config_strategy, Stimulus, StimulusConfig,
};
use aqm_golden::dualpi2::core::{DualPi2CoreModel, DualPi2Coverage};
use aqm_golden::hw::ClockedCore;
use aqm_golden::pie::core::{PieCoreModel, PieCoverage};
use aqm_hdl::cores::{RustHdlDualPi2, RustHdlPie};
use aqm_verilated::VerilatedCore;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str =
    "usage: aqm-soak [--core pie|dualpi2|all] [--cycles N] [--chunk N] [--seed S] [--rtl-cycles N]";

/// Cycles of each speed measurement of the golden and the Verilated model.
const SPEED_CYCLES: u64 = 2_000_000;

struct Args {
    pie: bool,
    dualpi2: bool,
    cycles: u64,
    chunk: u64,
    seed: u64,
    rtl_cycles: u64,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        pie: true,
        dualpi2: true,
        cycles: 100_000_000,
        chunk: 500_000,
        seed: 1,
        rtl_cycles: 50_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--core" {
            (a.pie, a.dualpi2) = match it.next().as_deref() {
                Some("pie") => (true, false),
                Some("dualpi2") => (false, true),
                Some("all") => (true, true),
                Some(other) => {
                    return Err(format!(
                        "--core: expected pie, dualpi2 or all, found {other:?}"
                    ))
                }
                None => return Err("--core: expected pie, dualpi2 or all after it".into()),
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

/// Coverage counters summed over chunks: counts, and arrays of them.
trait Count {
    fn add(&mut self, other: &Self);
}

impl Count for u64 {
    fn add(&mut self, other: &u64) {
        *self += other;
    }
}

impl<T: Count, const N: usize> Count for [T; N] {
    fn add(&mut self, other: &[T; N]) {
        for (a, b) in self.iter_mut().zip(other) {
            a.add(b);
        }
    }
}

/// `total.f += c.f` for each field `f`.
macro_rules! add_fields {
    ($total:ident, $c:ident: $($f:ident),+ $(,)?) => {
        $( $total.$f.add(&$c.$f); )+
    };
}

/// What the soak needs of a core: its three models, its stimulus settings and what its golden model
/// counts.
trait SoakCore {
    /// The name at the start of each report line and in the waveform's file name.
    const NAME: &'static str;
    type Golden: ClockedCore;
    type RustHdl: ClockedCore + Default;
    type Coverage: Default;
    fn golden() -> Self::Golden;
    fn verilated() -> VerilatedCore;
    fn strategy() -> BoxedStrategy<StimulusConfig>;
    fn coverage(golden: &Self::Golden) -> &Self::Coverage;
    fn add(total: &mut Self::Coverage, c: &Self::Coverage);
    /// What the run exercised, one string per report line.
    fn exercised(total: &Self::Coverage) -> Vec<String>;
}

struct Pie;

impl SoakCore for Pie {
    const NAME: &'static str = "pie";
    type Golden = PieCoreModel;
    type RustHdl = RustHdlPie;
    type Coverage = PieCoverage;

    fn golden() -> PieCoreModel {
        PieCoreModel::new()
    }

    fn verilated() -> VerilatedCore {
        VerilatedCore::new(&aqm_golden::pie::kind::PIE_CORE)
    }

    fn strategy() -> BoxedStrategy<StimulusConfig> {
        config_strategy().boxed()
    }

    fn coverage(golden: &PieCoreModel) -> &PieCoverage {
        &golden.coverage
    }

    fn add(total: &mut PieCoverage, c: &PieCoverage) {
        add_fields!(total, c: updates, burst_resets, recomputes, bytemode_products, verdicts, departures,
            resets);
    }

    fn exercised(t: &PieCoverage) -> Vec<String> {
        vec![format!(
            "{} updates, {} burst resets, {} recomputations, {} bytemode products, verdicts \
             enqueue/mark/early/tail {:?}, {} departures, {} resets",
            t.updates,
            t.burst_resets,
            t.recomputes,
            t.bytemode_products,
            t.verdicts,
            t.departures,
            t.resets
        )]
    }
}

struct DualPi2;

impl SoakCore for DualPi2 {
    const NAME: &'static str = "dualpi2";
    type Golden = DualPi2CoreModel;
    type RustHdl = RustHdlDualPi2;
    type Coverage = DualPi2Coverage;

    fn golden() -> DualPi2CoreModel {
        DualPi2CoreModel::new()
    }

    fn verilated() -> VerilatedCore {
        VerilatedCore::new(&aqm_golden::dualpi2::kind::DUALPI2_CORE)
    }

    fn strategy() -> BoxedStrategy<StimulusConfig> {
        dualpi2_config_strategy().boxed()
    }

    fn coverage(golden: &DualPi2CoreModel) -> &DualPi2Coverage {
        &golden.coverage
    }

    fn add(total: &mut DualPi2Coverage, c: &DualPi2Coverage) {
        add_fields!(total, c: resets, soft_resets, updates, saturations, caps, recomputes, param_commits,
            k_commits, rejected_writes, verdicts, tail_drops, picks_l, picks_c, chained_picks, passes,
            drops, marks, overload_decisions, gated_decisions, credit_resets, departures);
    }

    fn exercised(t: &DualPi2Coverage) -> Vec<String> {
        vec![
            format!(
                "{} updates ({} clamped, {} capped at MAX/k), {} recomputations, {} parameter commits \
                 ({} of k), {} rejected writes, {} reset cycles ({} soft resets)",
                t.updates,
                t.saturations,
                t.caps,
                t.recomputes,
                t.param_commits,
                t.k_commits,
                t.rejected_writes,
                t.resets,
                t.soft_resets
            ),
            format!(
                "verdicts enqueue/tail C {:?} L {:?}, tail drops by packets/bytes/capacity {:?}",
                t.verdicts[0], t.verdicts[1], t.tail_drops
            ),
            format!(
                "picks L/C {}/{} ({} after a drop, {} credit resets), {} passes, \
                 classic/coupled/overload/step drops {:?} marks {:?}, {} overload decisions, {} below \
                 the 2 MTU gate, {} departures",
                t.picks_l,
                t.picks_c,
                t.chained_picks,
                t.credit_resets,
                t.passes,
                t.drops,
                t.marks,
                t.overload_decisions,
                t.gated_decisions,
                t.departures
            ),
        ]
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

/// The soak of core `C`: golden against Verilated chunk by chunk, then the speed of each model alone.
fn soak<C: SoakCore>(a: &Args) -> Result<(), String> {
    let name = format!("{:<8}", C::NAME);
    let strategy = C::strategy();
    let t = Instant::now();
    let mut done = 0u64;
    let mut total = C::Coverage::default();
    let mut k = 0u64;
    while done < a.cycles {
        let n = a.chunk.min(a.cycles - done);
        let cfg = config(&strategy, a.seed, k);
        let seed = a.seed ^ (k << 20);
        let mut golden = C::golden();
        let mut vl = C::verilated();
        let mut stim = Stimulus::new(seed, cfg.clone());
        let vcd = PathBuf::from(format!("build/soak/{}-chunk{k}.vcd", C::NAME));
        let stats = {
            let mut models: Vec<&mut dyn ClockedCore> = vec![&mut golden, &mut vl];
            lockstep::run(&mut models, &mut stim, n, Some(&vcd))
        }
        .map_err(|e| {
            format!(
                "{}: chunk {k} (stimulus seed {seed}, {cfg:?}) failed: {e}",
                C::NAME
            )
        })?;
        done += stats.cycles;
        C::add(&mut total, C::coverage(&golden));
        k += 1;
        if k.is_multiple_of(20) {
            eprintln!(
                "aqm-soak: {}: {done} cycles agree ({:.0} s)",
                C::NAME,
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
    for (j, line) in C::exercised(&total).iter().enumerate() {
        let head = if j == 0 { "exercised:" } else { "          " };
        println!("{name}   {head} {line}");
    }
    let cfg = config(&strategy, a.seed, 0);
    println!("{name} speed of each model alone (cycles per second):");
    let r = speed(&mut C::golden(), a.seed, cfg.clone(), SPEED_CYCLES);
    println!("{name}   golden     {r:>12.0}");
    let r = speed(&mut C::verilated(), a.seed, cfg.clone(), SPEED_CYCLES);
    println!("{name}   verilator  {r:>12.0}");
    if a.rtl_cycles > 0 {
        let r = speed(&mut C::RustHdl::default(), a.seed, cfg, a.rtl_cycles);
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
    if a.pie {
        r = soak::<Pie>(&a);
    }
    if a.dualpi2 && r.is_ok() {
        r = soak::<DualPi2>(&a);
    }
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aqm-soak: {e}");
            ExitCode::FAILURE
        }
    }
}
