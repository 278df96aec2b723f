//! Driving a rust-hdl block one clock cycle at a time without the threaded `Simulation` (about 500x
//! faster): set the inputs, [`settle`], read the outputs, then [`clock_edge`].

use rust_hdl::prelude::*;

/// Propagate the inputs through the combinational logic. Panics on a logic loop that does not converge,
/// which is a design error, not an input error.
pub fn settle<B: Block>(uut: &mut B) {
    assert!(
        simulate(uut, 200),
        "the circuit did not settle: combinational loop"
    );
}

/// One rising clock edge: registers take their `d` values, then the logic settles again. Inputs must have
/// been settled before (see [`settle`]), or registers would sample stale values.
pub fn clock_edge<B: Block>(uut: &mut B, clock: fn(&mut B) -> &mut Signal<In, Clock>) {
    clock(uut).next = Clock { clk: true };
    settle(uut);
    clock(uut).next = Clock { clk: false };
    settle(uut);
}
