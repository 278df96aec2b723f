//! `aqm-bitstream [--core pie|dualpi2|all] [--rev v1|v2] [--out DIR]`: builds the line card for the
//! Alchitry Cu with each chosen core (default: both, one after the other) and writes
//! DIR/<core>-<rev>/{top.v, top.pcf, top.json, top.asc, top.bin, report.md} (default DIR:
//! build/bitstream). Fails when a tool fails or timing is not met.
//! `aqm-bitstream --docs` rewrites bsp/PROTOCOL.md.

use aqm_bsp::flow::build;
use aqm_bsp::top::BoardRev;
use aqm_golden::hw::{by_name, names, CoreKind, CORES};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut rev = BoardRev::V1;
    let mut cores: Vec<&dyn CoreKind> = CORES.to_vec();
    let mut out = PathBuf::from("build/bitstream");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--docs" => {
                let path = concat!(env!("CARGO_MANIFEST_DIR"), "/PROTOCOL.md");
                return match std::fs::write(path, aqm_protocol::markdown()) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("aqm-bitstream: cannot write {path}: {e}");
                        ExitCode::FAILURE
                    }
                };
            }
            "--core" => match args.next().as_deref() {
                Some("all") => cores = CORES.to_vec(),
                Some(c) if by_name(c).is_some() => cores = by_name(c).into_iter().collect(),
                other => {
                    eprintln!(
                        "aqm-bitstream: --core: expected one of {}, or all; found {other:?}",
                        names()
                    );
                    return ExitCode::FAILURE;
                }
            },
            "--rev" => match args.next().as_deref().and_then(BoardRev::parse) {
                Some(r) => rev = r,
                None => {
                    eprintln!("aqm-bitstream: --rev: expected v1 or v2");
                    return ExitCode::FAILURE;
                }
            },
            "--out" => match args.next() {
                Some(d) => out = PathBuf::from(d),
                None => {
                    eprintln!("aqm-bitstream: --out: expected a directory");
                    return ExitCode::FAILURE;
                }
            },
            other => {
                eprintln!("aqm-bitstream: unknown argument {other:?}; usage: aqm-bitstream [--core pie|dualpi2|all] [--rev v1|v2] [--out DIR] | --docs");
                return ExitCode::FAILURE;
            }
        }
    }
    let mut failed = false;
    for core in cores {
        match build(core, rev, &out) {
            Ok(r) => {
                println!(
                    "{}",
                    std::fs::read_to_string(r.dir.join("report.md")).unwrap_or_default()
                );
                println!("bitstream: {}", r.dir.join("top.bin").display());
            }
            Err(e) => {
                eprintln!("aqm-bitstream: {}: {e}", core.name());
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
