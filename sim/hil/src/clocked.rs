//! A Verilated core as the event driver's [`ClockedCore`].
//!
//! The driver looks at a cycle's outputs before it decides to clock it, with the same inputs: the design
//! is settled once for both (two evaluations per cycle, the least a clocked model needs).

use aqm_golden::dualpi2::core::driver::ClockedCore;
use aqm_golden::hw::{CoreInputs, CoreOutputs};
use aqm_verilated::VerilatedCore;

/// A Verilated PIE or DualPI2 core, cycle by cycle.
pub struct Verilated {
    core: VerilatedCore,
    /// The inputs the design is settled with now, and its outputs then.
    settled: Option<(CoreInputs, CoreOutputs)>,
}

impl Verilated {
    pub fn new(core: VerilatedCore) -> Verilated {
        Verilated {
            core,
            settled: None,
        }
    }

    /// The Verilated core (to trace it into a VCD, for instance).
    pub fn core(&mut self) -> &mut VerilatedCore {
        &mut self.core
    }
}

impl ClockedCore for Verilated {
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
        match self.settled {
            Some((si, o)) if si == *i => o,
            _ => {
                let o = self.core.peek(i);
                self.settled = Some((*i, o));
                o
            }
        }
    }

    fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        let o = self.peek(i);
        self.core.edge();
        self.settled = None;
        o
    }
}
