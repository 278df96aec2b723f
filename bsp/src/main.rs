//! `aqm-bitstream`: builds the chosen designs for a target and writes DIR/<design>-<rev or target>/ with
//! the Verilog, the tools' logs and report.md (default DIR: build/bitstream). Fails when a tool fails or
//! timing is not met.
//! - `--target hx8k` (default): the line cards for the Alchitry Cu, one per core, through icepack.
//! - `--target ecp5`: each core alone and the four-port design on the ECP5-85F, out of context.
//! - `--area`: the HX8K line cards' area block by block, synthesis only.
//! - `--block MODULE`: one block of a core alone between registers on the target (at `--freq`, default
//!   100 MHz on the HX8K, 150 on the ECP5): its logic cells and Fmax, the best of the flow's five seeds
//!   (tried until one meets the clock); one table row per block.
//! - `--bench`: after the builds, one table of every design: logic, block RAM, Fmax, clock, packets per
//!   clock and per second at both ports, place-and-route time.
//! - `--sweep N`: every build places and routes with N seeds (nextpnr's default, then 2 to N), each to
//!   the end, and the report adds the spread of their Fmax: judge a change near the clock on this.
//! - `--docs`: rewrites bsp/PROTOCOL.md.

use aqm_bsp::flow::{
    board_area, build_block, build_ecp5_report, build_report, check, set_seed_sweep, FlowReport,
    Target, ECP5_CLOCK_MHZ, FOUR_PORTS,
};
use aqm_bsp::top::BoardRev;
use aqm_golden::hw::{by_name, packet_rates, CoreKind, CORES};
use aqm_hdl::synth::area_markdown;
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Builds the AQM cores' bitstreams (HX8K line cards) or timed place-and-route runs (ECP5).
#[derive(Parser)]
#[command(name = "aqm-bitstream", version, about)]
struct Args {
    /// The FPGA: hx8k (the Alchitry Cu line cards) or ecp5 (ECP5-85F, out of context).
    #[arg(long, default_value = "hx8k", value_parser = target)]
    target: String,
    /// The designs: a core's name, four-ports (ECP5 only), or all.
    #[arg(long = "core", default_value = "all")]
    designs: Vec<String>,
    /// The Alchitry Cu revision (HX8K): v1 or v2 (they differ in the pins).
    #[arg(long, default_value = "v1", value_parser = rev)]
    rev: String,
    /// Where the builds go.
    #[arg(long, default_value = "build/bitstream")]
    out: PathBuf,
    /// The clock target, MHz: of the ECP5 builds (default 150), or of --block (default 100 on the HX8K,
    /// 150 on the ECP5).
    #[arg(long, value_parser = mhz)]
    freq: Option<f64>,
    /// A block of a core alone (pie_core, pie_core$ingress, dualpi2_core$egress$link, ...) on the
    /// target between registers: its logic cells and Fmax. Repeatable; builds nothing else.
    #[arg(long = "block", conflicts_with_all = ["area", "bench", "docs"])]
    blocks: Vec<String>,
    /// The HX8K line cards' area block by block (synthesis only, no place and route).
    #[arg(long, conflicts_with = "bench")]
    area: bool,
    /// After the builds, print one table of every design built.
    #[arg(long)]
    bench: bool,
    /// Place and route every build with this many seeds (2 to 32; nextpnr's default, then 2 to N),
    /// each to the end, and report the spread of their Fmax with the best run.
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=32), conflicts_with = "area")]
    sweep: Option<u32>,
    /// Rewrite bsp/PROTOCOL.md and build nothing.
    #[arg(long, conflicts_with_all = ["area", "bench", "sweep"])]
    docs: bool,
}

fn target(s: &str) -> Result<String, String> {
    Target::parse(s)
        .map(|t| t.name().to_string())
        .ok_or_else(|| "expected hx8k or ecp5".to_string())
}

fn rev(s: &str) -> Result<String, String> {
    BoardRev::parse(s)
        .map(|_| s.to_string())
        .ok_or_else(|| "expected v1 or v2".to_string())
}

fn mhz(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (1.0..=1000.0).contains(&f) => Ok(f),
        _ => Err("expected a clock in MHz between 1 and 1000".to_string()),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aqm-bitstream: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    if args.docs {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/PROTOCOL.md");
        return std::fs::write(path, aqm_protocol::markdown())
            .map_err(|e| format!("cannot write {path}: {e}"));
    }
    let target = Target::parse(&args.target).expect("checked by the argument parser");
    if let Some(n) = args.sweep {
        set_seed_sweep(n);
    }
    if !args.blocks.is_empty() {
        return block_table(
            target,
            &args.blocks,
            args.freq.unwrap_or(target.block_clock_mhz()),
            &args.out,
        );
    }
    let rev = BoardRev::parse(&args.rev).expect("checked by the argument parser");
    let known = target.designs();
    let mut designs: Vec<String> = vec![];
    for d in &args.designs {
        if d == "all" {
            designs.extend(known.iter().cloned());
        } else if known.contains(d) {
            designs.push(d.clone());
        } else {
            return Err(format!(
                "--core: no design {d:?} for the {} target; expected one of {}, or all",
                target.name(),
                known.join(", ")
            ));
        }
    }
    designs.dedup();
    if args.area {
        if target != Target::Hx8k {
            return Err("--area: the block table is made for the HX8K line cards".into());
        }
        for d in &designs {
            let core = by_name(d).expect("a known design");
            let (rows, flat) = board_area(core, rev, &args.out)?;
            println!("{}", area_markdown(&format!("{d} line card"), &rows, &flat));
        }
        return Ok(());
    }
    let mut failed = vec![];
    let mut built: Vec<(String, FlowReport)> = vec![];
    for d in &designs {
        let r = match target {
            Target::Hx8k => build_report(by_name(d).expect("a known design"), rev, &args.out),
            Target::Ecp5 => build_ecp5_report(d, &args.out, args.freq.unwrap_or(ECP5_CLOCK_MHZ)),
        };
        match r {
            Ok(r) => {
                if let Err(e) = check(&r) {
                    eprintln!("aqm-bitstream: {d}: {e}");
                    failed.push(d.clone());
                }
                println!(
                    "{}",
                    std::fs::read_to_string(r.dir.join("report.md")).unwrap_or_default()
                );
                if target == Target::Hx8k {
                    println!("bitstream: {}", r.dir.join("top.bin").display());
                }
                built.push((d.clone(), r));
            }
            Err(e) => {
                eprintln!("aqm-bitstream: {d}: {e}");
                failed.push(d.clone());
            }
        }
    }
    if args.bench {
        println!("{}", bench_table(target, &built)?);
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("failed: {}", failed.join(", ")))
    }
}

/// Each block alone at `mhz`: one row each (logic cells, the best Fmax of the seeds tried, the
/// critical path's first and last cell), after every block is built.
fn block_table(
    target: Target,
    blocks: &[String],
    mhz: f64,
    out: &std::path::Path,
) -> Result<(), String> {
    let mut s = String::from(
        "| block | logic cells (ECP5: LUT4 slots) | block RAMs | best Fmax (MHz) | target (MHz) | critical path of the last run (first, last cell) |\n|---|---|---|---|---|---|\n",
    );
    for b in blocks {
        let r = build_block(target, b, mhz, out)?;
        let fmax = r.best_fmax();
        let path = match (r.critical_path.first(), r.critical_path.last()) {
            (Some(a), Some(b)) => format!("{} -> {}", a.1, b.1),
            _ => String::new(),
        };
        s.push_str(&format!(
            "| {b} | {} | {} | {fmax:.1} | {mhz:.0} | {path} |\n",
            r.lcs, r.brams
        ));
    }
    println!("{s}");
    Ok(())
}

/// One row per design: logic, block RAM, Fmax, the clock timed, the packets per clock measured on the
/// golden model (a four-port design: per port, its slowest core) and per second at the clock or, when
/// timing is missed, at the Fmax reached, and the
/// place-and-route wall time.
fn bench_table(target: Target, built: &[(String, FlowReport)]) -> Result<String, String> {
    let mut s = String::from(
        "| target | design | logic cells | BRAM | Fmax (MHz) | clock (MHz) | timing | in / out per clock | Mpps in / out | P&R (s) |\n\
         |---|---|---:|---:|---:|---:|---|---:|---:|---:|\n",
    );
    for (name, r) in built {
        let cores: Vec<&dyn CoreKind> = if name == FOUR_PORTS {
            CORES.to_vec()
        } else {
            vec![by_name(name).expect("a known design")]
        };
        let mut rate = (f64::INFINITY, f64::INFINITY);
        for k in cores {
            let p = packet_rates(k, k.model()).map_err(|e| format!("{name}: {e}"))?;
            rate = (rate.0.min(p.ingress), rate.1.min(p.egress));
        }
        // The best seed's (the last run is the bitstream's, or the last tried when all missed).
        let fmax = r.best_fmax();
        let clock = r.clocks.iter().map(|c| c.target_mhz).fold(0.0, f64::max);
        s.push_str(&format!(
            "| {} | {name} | {} / {} | {} / {} | {fmax:.1} | {clock:.1} | {} | {:.2} / {:.2} | {:.1} / {:.1} | {:.0} |\n",
            target.name(),
            r.lcs,
            r.lcs_total,
            r.brams,
            r.brams_total,
            if !r.clocks.is_empty() && r.clocks.iter().all(|c| c.pass) {
                "met"
            } else {
                "missed"
            },
            rate.0,
            rate.1,
            rate.0 * clock.min(fmax),
            rate.1 * clock.min(fmax),
            r.pnr_seconds
        ));
    }
    Ok(s)
}
