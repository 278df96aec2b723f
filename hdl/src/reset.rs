//! A core's internal reset, one copy per block.
//!
//! A core's blocks are reset by its `rst` port or by CONTROL.reset, the register front's `soft_rst`
//! flip-flop, for one cycle. As one net, `rst | soft_rst` is a single LUT driving every register of the
//! core (about 2,600 on PIE): on the ECP5, where nextpnr routes such a net on the fabric (it puts only
//! clocks on the global network), its routing was the PIE core's longest path (`soft_rst` -> the OR ->
//! the controller, 8.6 ns of which 5.9 routing) and the four-port build's.
//!
//! [`ResetFanout`] keeps a flip-flop per block loaded from what `soft_rst` loads (`soft_next`), and gives
//! block k `rst | copy k`: the same reset in the same cycle, each net driving one block. Yosys merges
//! flip-flops with the same input (`opt_merge`), so each copy's `always` carries `(* keep *)`, which
//! yosys 0.23 and 0.70 both honour there (and not on the register's declaration).

use rust_hdl::prelude::*;

/// `N` copies of the soft reset, `rst_o[k]` = `rst` | copy k, each copy loaded with `soft_next` at every
/// edge (a flip-flop of its own, kept apart from the others in synthesis).
#[derive(LogicBlock, Default)]
pub struct ResetFanout<const N: usize> {
    pub clock: Signal<In, Clock>,
    /// The core's `rst` port, this cycle.
    pub rst: Signal<In, Bit>,
    /// What the soft reset's flip-flop loads at this edge.
    pub soft_next: Signal<In, Bit>,
    /// Block k's reset.
    pub rst_o: Signal<Out, Bits<N>>,
    q: Signal<Local, Bits<N>>,
}

impl<const N: usize> Logic for ResetFanout<N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = if self.soft_next.val() {
                !Bits::<N>::default()
            } else {
                Bits::<N>::default()
            };
        }
        self.rst_o.next = if self.rst.val() {
            !Bits::<N>::default()
        } else {
            self.q.val()
        };
    }

    fn connect(&mut self) {
        self.q.connect();
        self.rst_o.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::from("initial begin\n   q = 0;\nend\n");
        for k in 0..N {
            v.push_str(&format!(
                "(* keep *) always @(posedge clock) q[{k}] <= soft_next;\n"
            ));
        }
        v.push_str(&format!("always @(*) rst_o = q | {{{N}{{rst}}}};\n"));
        // For the proofs, which start their induction from free registers: the copies agree (each
        // loads the same bit at every edge, so this holds from the first edge on and k-induction
        // proves it, then takes it as given for the steps before the one it proves).
        v.push_str(&format!(
            "`ifdef FORMAL\nalways @(*) assert (q == {{{N}{{1'b0}}}} || q == {{{N}{{1'b1}}}});\n`endif\n"
        ));
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reset_copy".into(),
            clock: "clock".into(),
            inputs: vec!["soft_next".into()],
            outputs: vec!["rst_o".into()],
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{clock_edge, settle};

    #[test]
    fn each_copy_follows_the_soft_reset_a_cycle_later_and_rst_at_once() {
        let mut r = ResetFanout::<3>::default();
        r.connect_all();
        settle(&mut r);
        assert_eq!(r.rst_o.val(), Bits::<3>::from(0));
        r.rst.next = true;
        settle(&mut r);
        assert_eq!(
            r.rst_o.val(),
            Bits::<3>::from(7),
            "rst reaches every block in its cycle"
        );
        r.rst.next = false;
        r.soft_next.next = true;
        settle(&mut r);
        assert_eq!(
            r.rst_o.val(),
            Bits::<3>::from(0),
            "the soft reset waits for the edge"
        );
        clock_edge(&mut r, |r| &mut r.clock);
        r.soft_next.next = false;
        settle(&mut r);
        assert_eq!(r.rst_o.val(), Bits::<3>::from(7));
        clock_edge(&mut r, |r| &mut r.clock);
        assert_eq!(r.rst_o.val(), Bits::<3>::from(0), "for one cycle");
    }

    #[test]
    fn synthesis_keeps_every_copy() {
        let mut r = ResetFanout::<4>::default();
        r.connect_all();
        let dir = std::env::temp_dir().join(format!("aqm_reset_fanout_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("top.v");
        std::fs::write(&f, generate_verilog(&r)).unwrap();
        crate::synth::verilator_lint(&f, "top").unwrap();
        let stat = crate::synth::yosys_ice40(&f, "top", None).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(stat.flip_flops, 4, "one flip-flop per copy: {stat:?}");
    }
}
