//! A core clocked one cycle at a time: what the event driver, the conformance harness and the register
//! map check drive. The golden cycle models implement it here; the rust-hdl simulations
//! (`aqm_hdl::cores`) and the Verilated cores (`aqm_verilated`) implement it beside their models.

use super::{CoreInputs, CoreOutputs};
use crate::dualpi2::core::DualPi2CoreModel;
use crate::dualpi2::decision::Decision;
use crate::pie::core::PieCoreModel;

/// One clock cycle at a time: a cycle's outputs for its inputs, with or without its rising edge.
pub trait ClockedCore {
    /// Which kind of model this is, for reports: `"golden"`, `"rust-hdl"` or `"verilator"`.
    fn model_name(&self) -> &'static str;
    /// The outputs of a cycle with these inputs, without its rising edge.
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs;
    /// The outputs of a cycle with these inputs, then its rising edge.
    fn step(&mut self, i: &CoreInputs) -> CoreOutputs;
    /// The decision behind the packet on the egress stream in a cycle with these inputs, if the model
    /// can tell (the golden DualPI2 model can; the RTL's ports do not carry it).
    fn egress_decision(&self, _i: &CoreInputs) -> Option<Decision> {
        None
    }
    /// What the model went through so far, counter by counter, if it counts (the golden models do).
    fn coverage(&self) -> Vec<(String, u64)> {
        Vec::new()
    }
    /// Cycles beyond the core's fixed verdict latency that a descriptor of `len` bytes accepted now
    /// takes to its verdict, with the parameters in effect (a PIE bytemode packet's multiplier holds
    /// the pipeline); 0 for a core whose verdicts always take the same time.
    fn extra_verdict_latency(&self, _len: u16) -> u64 {
        0
    }
}

impl<C: ClockedCore + ?Sized> ClockedCore for Box<C> {
    fn model_name(&self) -> &'static str {
        (**self).model_name()
    }
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
        (**self).peek(i)
    }
    fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        (**self).step(i)
    }
    fn egress_decision(&self, i: &CoreInputs) -> Option<Decision> {
        (**self).egress_decision(i)
    }
    fn coverage(&self) -> Vec<(String, u64)> {
        (**self).coverage()
    }
    fn extra_verdict_latency(&self, len: u16) -> u64 {
        (**self).extra_verdict_latency(len)
    }
}

impl ClockedCore for DualPi2CoreModel {
    fn model_name(&self) -> &'static str {
        "golden"
    }
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
        self.outputs(i)
    }
    fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        DualPi2CoreModel::step(self, i)
    }
    fn egress_decision(&self, i: &CoreInputs) -> Option<Decision> {
        DualPi2CoreModel::egress_decision(self, i)
    }
    fn coverage(&self) -> Vec<(String, u64)> {
        self.coverage.counts()
    }
}

impl ClockedCore for PieCoreModel {
    fn model_name(&self) -> &'static str {
        "golden"
    }
    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
        self.outputs(i)
    }
    fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        PieCoreModel::step(self, i)
    }
    fn coverage(&self) -> Vec<(String, u64)> {
        self.coverage.counts()
    }
    fn extra_verdict_latency(&self, len: u16) -> u64 {
        self.verdict_latency(len) - crate::pie::core::VERDICT_LATENCY
    }
}
