//! The DualPI2 core (`aqm_hdl::dualpi2::DualPi2Core`, Verilated as `dualpi2_core`) in the simulator: the
//! `"dualpi2 (hw)"` twin of the golden [`aqm_golden::dualpi2::DualPi2Qdisc`].
//!
//! Configured through its register bus (the golden core model's [`register_writes`]: the parameters,
//! the link model off, the generator seeded as the golden qdisc seeds it), then one dequeue request on
//! the empty core, which loads the WRR credit from the configured MTU and C protection.
//!
//! The ports say a packet was dropped or sent CE, not by which rule; the golden model's reasons follow
//! from the classification (the C queue never holds a CE arrival, the L queue holds ECN-capable packets
//! only) and, for a CE departure from L, from the MARKED_L and STEP_MARKS counters.

use crate::adapter::{CoreKind, HwAqm};
use crate::{Beat, Driver, DriverError, VerdictBeat};
use aqm_golden::dualpi2::core::driver::register_writes;
use aqm_golden::dualpi2::core::{CODE_ENQUEUE, CODE_TAIL_DROP};
use aqm_golden::dualpi2::regs::{addr, find};
use aqm_golden::dualpi2::DualPi2Params;
use aqm_golden::{Admission, DropReason, Ecn, MarkReason, Packet, QueueId};
use aqm_verilated::VerilatedCore;

/// The DualPI2 core with a parameter set and the simulator's seed.
#[derive(Clone, Copy, Debug)]
pub struct DualPi2Hw {
    pub params: DualPi2Params,
    pub seed: u64,
    /// MARKED_L and STEP_MARKS as last read.
    marked_l: u32,
    step_marks: u32,
}

impl DualPi2Hw {
    /// The Verilated DualPI2 core, reset and configured with `params` (which must suit the hardware),
    /// its generator seeded from `seed`.
    pub fn aqm(params: DualPi2Params, seed: u64) -> Result<HwAqm<DualPi2Hw>, DriverError> {
        params
            .validate_hardware()
            .map_err(|e| DriverError::Config(e.to_string()))?;
        let kind = DualPi2Hw {
            params,
            seed,
            marked_l: 0,
            step_marks: 0,
        };
        HwAqm::new(kind, VerilatedCore::dualpi2())
    }
}

impl CoreKind for DualPi2Hw {
    fn name(&self) -> String {
        "dualpi2 (hw)".into()
    }

    fn configure(&mut self, core: &mut Driver) -> Result<(), DriverError> {
        for (param, a, value) in register_writes(&self.params, self.seed) {
            core.write_reg(a, value).map_err(|e| match (e, find(a)) {
                (DriverError::Rejected { .. }, Some(def)) => DriverError::Param {
                    param,
                    register: def.name,
                    value,
                },
                (e, _) => e,
            })?;
        }
        core.next_beat(false)?;
        core.finish_dequeue()
    }

    fn admission(&mut self, v: &VerdictBeat) -> Result<Admission, String> {
        match v.code {
            CODE_ENQUEUE => Ok(Admission::Enqueued),
            CODE_TAIL_DROP => Ok(Admission::Dropped(DropReason::Overlimit)),
            c => Err(format!("verdict code {c}: DualPI2 enqueues or tail-drops")),
        }
    }

    fn drop_reason(
        &mut self,
        beat: &Beat,
        _arrived: &Packet,
        _core: &mut Driver,
    ) -> Result<DropReason, String> {
        Ok(match beat.queue {
            QueueId::Classic => DropReason::Classic,
            QueueId::L => DropReason::LowLatency,
        })
    }

    fn dequeue_mark(
        &mut self,
        beat: &Beat,
        _arrived: &Packet,
        core: &mut Driver,
    ) -> Result<Option<MarkReason>, String> {
        if beat.ecn != Ecn::Ce {
            return Ok(None);
        }
        if beat.queue == QueueId::Classic {
            return Ok(Some(MarkReason::Classic));
        }
        let read = |core: &mut Driver, a| core.read_reg(a).map_err(|e| e.to_string());
        let (marked, step) = (read(core, addr::MARKED_L)?, read(core, addr::STEP_MARKS)?);
        let new = (
            marked.wrapping_sub(self.marked_l),
            step.wrapping_sub(self.step_marks),
        );
        (self.marked_l, self.step_marks) = (marked, step);
        match new {
            (0, 0) => Ok(None),
            (1, 0) => Ok(Some(MarkReason::Coupled)),
            (1, 1) => Ok(Some(MarkReason::Step)),
            (m, s) => Err(format!(
                "MARKED_L went up by {m} and STEP_MARKS by {s} for one departure"
            )),
        }
    }
}
