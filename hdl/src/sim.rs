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

/// The unit tests of a descriptor queue block (`DescQueue`, `HeadQueue`): its ports (`rst`, `push`,
/// `push_data`, `pop`, `head_valid`, `head_data`, `count`, `clock`) against a `VecDeque` of (entry, cycle
/// pushed) whose front is visible `lag` cycles after its push, under random pushes, pops, idle gaps and
/// resets, at three mixes of traffic, and a yosys check of its Verilog. `$cap` is how many entries it holds.
#[cfg(test)]
macro_rules! fifo_model_tests {
    ($q:ty, $lag:expr, $cap:expr, $name:literal) => {
        use crate::sim::{clock_edge, settle};
        use std::collections::VecDeque;

        fn run(seed: u64, push_pct: u64, pop_pct: u64, cycles: usize) {
            let mut q = <$q>::default();
            q.connect_all();
            let mut rng = aqm_golden::prng::XorShift64::new(seed).unwrap();
            let mut model: VecDeque<(u64, usize)> = VecDeque::new();
            let mut next = 1u64;
            for cycle in 0..cycles {
                let r = rng.next_word();
                let rst = r.is_multiple_of(997);
                let full = model.len() == $cap;
                let push = !full && (r >> 8) % 100 < push_pct;
                let pop = (r >> 16) % 100 < pop_pct;
                q.rst.next = rst;
                q.push.next = push;
                q.push_data.next = next.into();
                q.pop.next = pop;
                settle(&mut q);
                let valid = model.front().is_some_and(|&(_, c)| c + $lag <= cycle);
                assert_eq!(q.head_valid.val(), valid, "cycle {cycle}: head_valid");
                assert_eq!(q.count.val().index(), model.len(), "cycle {cycle}: count");
                if valid {
                    assert_eq!(
                        q.head_data.val().to_u64(),
                        model[0].0,
                        "cycle {cycle}: head"
                    );
                }
                if pop && valid {
                    model.pop_front();
                }
                if push {
                    model.push_back((next, cycle));
                    next += 1;
                }
                if rst {
                    model.clear();
                }
                clock_edge(&mut q, |q| &mut q.clock);
            }
        }

        #[test]
        fn matches_a_fifo_model_when_mostly_idle() {
            run(1, 10, 10, 3000);
        }

        #[test]
        fn matches_a_fifo_model_with_back_to_back_traffic() {
            run(2, 100, 100, 3000);
            run(3, 90, 50, 3000);
        }

        #[test]
        fn matches_a_fifo_model_when_filling_to_capacity() {
            run(4, 80, 20, 3000);
        }

        #[test]
        fn is_synthesizable() {
            let mut q = <$q>::default();
            q.connect_all();
            yosys_validate($name, &generate_verilog(&q)).unwrap();
        }
    };
}
#[cfg(test)]
pub(crate) use fifo_model_tests;
