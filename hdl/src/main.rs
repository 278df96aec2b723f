//! `aqm-emit [DIR] [DESIGN...]`: writes each design's Verilog to DIR/<design>.v (default build/verilog,
//! every design). `aqm-emit --check [DIR]` also lints each with Verilator and synthesises it with Yosys for
//! the iCE40, and prints the cell counts. `aqm-emit --registers` rewrites hdl/REGISTERS.md.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("--registers") {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/REGISTERS.md");
        return match std::fs::write(path, aqm_hdl::registers_markdown()) {
            Ok(()) => {
                println!("{path}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("aqm-emit: cannot write {path}: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let mut args = std::env::args().skip(1).peekable();
    let check = args.peek().map(String::as_str) == Some("--check");
    if check {
        args.next();
    }
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "build/verilog".into()));
    let mut names: Vec<String> = args.collect();
    if names.is_empty() {
        names = aqm_hdl::emit::designs();
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("aqm-emit: cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for name in names {
        let Some(design) = aqm_hdl::emit::by_name(&name) else {
            eprintln!(
                "aqm-emit: unknown design {name:?}; expected one of {}",
                aqm_hdl::emit::designs().join(", ")
            );
            return ExitCode::FAILURE;
        };
        let path = dir.join(format!("{name}.v"));
        if let Err(e) = std::fs::write(&path, design.verilog) {
            eprintln!("aqm-emit: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        if !check {
            println!("{}", path.display());
            continue;
        }
        if let Err(e) = aqm_hdl::synth::verilator_lint(&path) {
            eprintln!("aqm-emit: {e}");
            return ExitCode::FAILURE;
        }
        match aqm_hdl::synth::yosys_ice40(&path, None) {
            Ok(r) if r.warnings.is_empty() => println!(
                "{}: verilator lint clean; yosys synth_ice40: {} LUT4, {} carries, {} flip-flops, {} block RAMs",
                path.display(),
                r.luts,
                r.carries,
                r.flip_flops,
                r.brams
            ),
            Ok(r) => {
                eprintln!("aqm-emit: yosys warnings for {}:\n{}", path.display(), r.warnings.join("\n"));
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("aqm-emit: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
