//! Every entry of each core's register map against its rust-hdl simulation, in both head forms (the
//! golden models are checked in aqm-golden, the Verilated RTL in aqm-verilated): both ends of every
//! range taken and read back, one past each end refused without changing anything, read-only and
//! unmapped addresses refused.

use aqm_golden::hw::check_register_map;
use aqm_hdl::cores::HDL_CORES;
use aqm_hdl::head_queue::Heads;

#[test]
fn the_rust_hdl_cores_follow_their_maps() {
    for core in HDL_CORES {
        for heads in [Heads::Registers, Heads::Ram] {
            let report = check_register_map(core.kind, (core.simulate)(heads))
                .unwrap_or_else(|e| panic!("{} ({heads:?}): {e}", core.kind.name()));
            assert!(report.refused > 200, "{}: {report:?}", core.kind.name());
        }
    }
}
