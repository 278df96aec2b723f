//! Emits each core's Verilog with aqm-hdl, verilates it and compiles the model and its C shim (see
//! aqm-verilator-build), and compiles Verilator's runtime, once for every binding of a binary: the board
//! tops' binding (aqm-board-verilated) links against it and finds Verilator through
//! `DEP_AQM_VERILATED_ROOT`. `bindings.rs` in OUT_DIR lists each design's ports for the Rust side.

use aqm_verilator_build::{compile_runtime, verilate, verilator_root};
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    let root = verilator_root();
    let mut bindings = String::new();
    for name in aqm_hdl::emit::designs() {
        let design = aqm_hdl::emit::by_name(&name).expect("known design");
        verilate(&name, &design, &out, &root, "aqm_verilated", &mut bindings);
    }
    compile_runtime(&root, "aqm_verilator_runtime");
    println!("cargo:root={}", root.display());
    std::fs::write(out.join("bindings.rs"), bindings).expect("write bindings.rs");
}
