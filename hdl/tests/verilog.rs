//! The emitted Verilog of every design lints clean with Verilator and synthesises for the iCE40 without
//! warnings, into block RAM and within the HX8K; the cores share a design, several instances of each.

use aqm_hdl::cores::HDL_CORES;
use aqm_hdl::emit::side_by_side;
use aqm_hdl::synth::{verilator_lint, yosys_ice40};
use std::path::PathBuf;

fn emit(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verilog");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.v"));
    std::fs::write(&path, aqm_hdl::emit::by_name(name).unwrap().verilog).unwrap();
    path
}

#[test]
fn every_design_lints_clean() {
    for name in aqm_hdl::emit::designs() {
        verilator_lint(&emit(&name), &name).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn two_of_each_core_share_one_design() {
    let cores: Vec<_> = HDL_CORES.iter().map(|c| c.emitted()).collect();
    let mut instances = vec![];
    for (k, e) in cores.iter().enumerate() {
        for n in 0..2 {
            instances.push((format!("p{}", 2 * k + n), e));
        }
    }
    let instances: Vec<(&str, _)> = instances.iter().map(|(n, e)| (n.as_str(), *e)).collect();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verilog");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("four_ports.v");
    std::fs::write(&path, side_by_side("four_ports", &instances).verilog).unwrap();
    verilator_lint(&path, "four_ports").unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn pie_core_synthesises_for_the_hx8k() {
    let r = yosys_ice40(&emit("pie_core"), "pie_core", None).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("pie_core: {r:?}");
    assert!(r.warnings.is_empty(), "yosys warnings: {:#?}", r.warnings);
    // The descriptor FIFO (1024 x 74 bits) must land in block RAM, not in flip-flops.
    assert!((16..=24).contains(&r.brams), "{} block RAMs", r.brams);
    assert!(
        r.flip_flops < 4_000,
        "{} flip-flops: the FIFO was not mapped to block RAM?",
        r.flip_flops
    );
    // The HX8K has 7680 logic cells; the core must leave room for the board's UART and bridge.
    assert!(r.luts < 6_000, "{} LUTs", r.luts);
}

#[test]
fn register_document_matches_the_code() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/REGISTERS.md"))
        .unwrap_or_default();
    assert!(
        doc == aqm_hdl::registers_markdown(),
        "hdl/REGISTERS.md is out of date: run `cargo run -p aqm-hdl --bin aqm-emit -- --registers`"
    );
}
