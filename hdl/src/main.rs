//! `aqm-emit`: writes each core's Verilog to DIR/<design>.v (`--out`, default build/verilog; every design
//! unless named). `--check` also lints each with Verilator and synthesises it with Yosys for the iCE40,
//! and prints the cell counts; `--area` prints where the area goes, block by block; `--heads ram` emits
//! the cores with their queues' heads at the block RAMs' outputs. `--registers` rewrites
//! hdl/REGISTERS.md.

use aqm_hdl::head_queue::Heads;
use aqm_hdl::synth::{area_markdown, ice40_area_by_block, verilator_lint, yosys_ice40};
use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Emits the AQM cores' Verilog, each as `module <design>`.
#[derive(Parser)]
#[command(name = "aqm-emit", version, about)]
struct Args {
    /// The designs to emit (default: every one).
    #[arg(value_parser = design)]
    designs: Vec<String>,
    /// Where the Verilog goes.
    #[arg(long, default_value = "build/verilog")]
    out: PathBuf,
    /// Lint each design with Verilator and synthesise it for the iCE40 (yosys synth_ice40), print the
    /// cell counts; fails on any lint message or Yosys warning.
    #[arg(long)]
    check: bool,
    /// Print the area of each design block by block (iCE40 synthesis with the blocks' hierarchy kept).
    #[arg(long)]
    area: bool,
    /// With --area: how many levels of blocks below the design get a row of their own.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=8))]
    depth: u8,
    /// Where the queues keep their heads: `registers` (flip-flops) or `ram` (the block RAMs' outputs;
    /// fewer logic cells, the same timing contract: hdl/DUALPI2-CORE.md, Queues).
    #[arg(long, default_value = "registers", value_parser = ["registers", "ram"])]
    heads: String,
    /// Rewrite hdl/REGISTERS.md from the register tables and emit nothing.
    #[arg(long, conflicts_with_all = ["designs", "check", "area"])]
    registers: bool,
}

fn design(name: &str) -> Result<String, String> {
    let names = aqm_hdl::emit::designs();
    if names.iter().any(|n| n == name) {
        Ok(name.to_string())
    } else {
        Err(format!(
            "unknown design; expected one of {}",
            names.join(", ")
        ))
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aqm-emit: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    if args.registers {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/REGISTERS.md");
        std::fs::write(path, aqm_hdl::registers_markdown())
            .map_err(|e| format!("cannot write {path}: {e}"))?;
        println!("{path}");
        return Ok(());
    }
    let names = if args.designs.is_empty() {
        aqm_hdl::emit::designs()
    } else {
        args.designs.clone()
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    for name in names {
        let heads = if args.heads == "ram" {
            Heads::Ram
        } else {
            Heads::Registers
        };
        let design =
            aqm_hdl::emit::by_name_with(&name, heads).expect("checked by the argument parser");
        let path = args.out.join(format!("{name}.v"));
        std::fs::write(&path, &design.verilog)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if !args.check && !args.area {
            println!("{}", path.display());
            continue;
        }
        check(&path, &design.module, args)?;
    }
    Ok(())
}

fn check(path: &Path, module: &str, args: &Args) -> Result<(), String> {
    if args.check {
        verilator_lint(path, module)?;
    }
    let r = yosys_ice40(path, module, None)?;
    if args.check && !r.warnings.is_empty() {
        return Err(format!(
            "yosys warnings for {}:\n{}",
            path.display(),
            r.warnings.join("\n")
        ));
    }
    if args.check {
        println!(
            "{}: verilator lint clean; yosys synth_ice40: {} LUT4, {} carries, {} flip-flops, {} block RAMs",
            path.display(),
            r.luts,
            r.carries,
            r.flip_flops,
            r.brams
        );
    }
    if args.area {
        let rows = ice40_area_by_block(path, module, args.depth as usize)?;
        println!("{}", area_markdown(module, &rows, &r));
    }
    Ok(())
}
