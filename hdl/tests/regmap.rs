//! Every entry of each core's register map against its rust-hdl simulation (the golden models are
//! checked in aqm-golden, the Verilated RTL in aqm-verilated): both ends of every range taken and read
//! back, one past each end refused without changing anything, read-only and unmapped addresses refused.

use aqm_golden::hw::check_register_map;
use aqm_hdl::cores::HDL_CORES;

#[test]
fn the_rust_hdl_cores_follow_their_maps() {
    for core in HDL_CORES {
        let report =
            check_register_map(core.kind, (core.simulate)()).unwrap_or_else(|e| panic!("{e}"));
        assert!(report.refused > 200, "{}: {report:?}", core.kind.name());
    }
}
