//! Emits each line card's simulation top with aqm-bsp, verilates it and compiles the model and its C
//! shim (see aqm-verilator-build). Verilator's runtime is not compiled here: aqm-verilated compiles it
//! once for every binding of a binary and says, through its `links` key (`DEP_AQM_VERILATED_ROOT`), which
//! Verilator it was built with, so the models here are compiled against the same headers.

use aqm_verilator_build::verilate;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    let root = PathBuf::from(
        std::env::var("DEP_AQM_VERILATED_ROOT")
            .expect("DEP_AQM_VERILATED_ROOT: aqm-verilated (a dependency) says where Verilator is"),
    );
    let mut bindings = String::new();
    for name in aqm_bsp::emit::sim_designs() {
        let design = aqm_bsp::emit::by_name(&name).expect("known design");
        verilate(
            &name,
            &design,
            &out,
            &root,
            "aqm_board_verilated",
            &mut bindings,
        );
    }
    let _ = writeln!(
        bindings,
        "/// UART cycles per bit of the simulated board tops.\npub const BOARD_SIM_CPB: u64 = {};\n\
         /// Each simulated board top's design name and ns per cycle (its line card's core clock).\n\
         pub const BOARD_SIM_NSPC: &[(&str, u64)] = &{:?};",
        aqm_bsp::emit::SIM_CPB,
        aqm_bsp::boards::BOARDS
            .iter()
            .map(|b| (b.sim_design(), b.nspc))
            .collect::<Vec<_>>()
    );
    std::fs::write(out.join("bindings.rs"), bindings).expect("write bindings.rs");
}
