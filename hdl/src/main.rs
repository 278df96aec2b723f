//! `aqm-emit [DIR] [DESIGN...]`: writes each design's Verilog to DIR/<design>.v (default build/verilog,
//! every design). `aqm-emit --registers` rewrites hdl/REGISTERS.md from the register map.

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
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "build/verilog".into()));
    let mut names: Vec<String> = args.collect();
    if names.is_empty() {
        names = aqm_hdl::emit::DESIGNS
            .iter()
            .map(|s| s.to_string())
            .collect();
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("aqm-emit: cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for name in names {
        let Some(design) = aqm_hdl::emit::by_name(&name) else {
            eprintln!(
                "aqm-emit: unknown design {name:?}; expected one of {}",
                aqm_hdl::emit::DESIGNS.join(", ")
            );
            return ExitCode::FAILURE;
        };
        let path = dir.join(format!("{name}.v"));
        if let Err(e) = std::fs::write(&path, design.verilog) {
            eprintln!("aqm-emit: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}", path.display());
    }
    ExitCode::SUCCESS
}
