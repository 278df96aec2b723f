//! `aqm-formal-emit --out DIR`: writes the small designs of the formal proofs (see `aqm_hdl::formal`) to
//! DIR/<name>.v, and the core harnesses' generated includes (DIR/<core>_resets.svh: the register reset
//! values from the golden map); `scripts/prove` calls it beside `aqm-emit` for the cores.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Emits the formal proofs' small designs (the descriptor queue with 8 entries, the PRNG).
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
    let designs = aqm_hdl::formal::designs()
        .into_iter()
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
