//! `aqm-bitstream [--rev v1|v2] [--out DIR]`: builds the PIE line card for the Alchitry Cu and writes
//! DIR/pie-<rev>/{top.v, top.pcf, top.json, top.asc, top.bin, report.md} (default DIR: build/bitstream).
//! Fails when a tool fails or timing is not met.
//! `aqm-bitstream --docs` rewrites bsp/PROTOCOL.md.

use aqm_bsp::flow::build_pie;
use aqm_bsp::top::BoardRev;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut rev = BoardRev::V1;
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
                eprintln!("aqm-bitstream: unknown argument {other:?}; usage: aqm-bitstream [--rev v1|v2] [--out DIR] | --docs");
                return ExitCode::FAILURE;
            }
        }
    }
    match build_pie(rev, &out) {
        Ok(r) => {
            println!(
                "{}",
                std::fs::read_to_string(r.dir.join("report.md")).unwrap_or_default()
            );
            println!("bitstream: {}", r.dir.join("top.bin").display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("aqm-bitstream: {e}");
            ExitCode::FAILURE
        }
    }
}
