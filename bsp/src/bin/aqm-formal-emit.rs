//! `aqm-formal-emit --out DIR`: writes every design the formal proofs (`scripts/prove`) check, as
//! DIR/<module>.v: the cores as `aqm-emit` writes them, the small shared blocks of `aqm_hdl::formal`
//! (the descriptor queue with 8 entries, the PRNG) and the board bridge's frame parser; and the
//! harnesses' generated includes (DIR/<core>_resets.svh, the controllers' constants).

use aqm_hdl::cores::HDL_CORES;
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Emits the designs of the formal proofs and their generated includes.
#[derive(Parser)]
#[command(name = "aqm-formal-emit", version, about)]
struct Args {
    /// Where the Verilog goes.
    #[arg(long, default_value = "build/prove/verilog")]
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("aqm-formal-emit: cannot create {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    let cores = HDL_CORES.iter().map(|c| (c.design(), c.emitted()));
    let small = aqm_hdl::formal::designs()
        .into_iter()
        .map(|(name, design)| (name.to_string(), design));
    let parser = std::iter::once((
        "bridge_parser".to_string(),
        aqm_bsp::bridge::parser::formal_design(),
    ));
    let designs = cores
        .chain(small)
        .chain(parser)
        .map(|(name, design)| (format!("{name}.v"), design.verilog));
    for (name, text) in designs.chain(aqm_hdl::formal::includes()) {
        let path = args.out.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("aqm-formal-emit: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}", path.display());
    }
    ExitCode::SUCCESS
}
