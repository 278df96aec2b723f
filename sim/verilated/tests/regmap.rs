//! Every entry of each core's register map against its Verilated RTL (see aqm_golden::hw::regcheck).

use aqm_golden::hw::{check_register_map, CORES};
use aqm_verilated::VerilatedCore;

#[test]
fn the_verilated_cores_follow_their_maps() {
    for kind in CORES {
        let report =
            check_register_map(*kind, VerilatedCore::new(*kind)).unwrap_or_else(|e| panic!("{e}"));
        assert!(report.refused > 200, "{}: {report:?}", kind.name());
    }
}
