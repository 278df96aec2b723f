//! The DualPI2 core's kind: what every harness needs to know of `aqm_hdl::dualpi2::DualPi2Core`.
//!
//! The ports say a packet was dropped or sent CE, not by which rule; the golden model's reasons follow
//! from the classification (the C queue never holds a CE arrival, the L queue holds ECN-capable packets
//! only) and, for a CE departure from L, from the MARKED_L and STEP_MARKS counters.

use super::consts::{HW_QUEUE_CAPACITY, PARAM_CYCLES, VERDICT_LATENCY};
use super::core::DualPi2CoreModel;
use super::params::DualPi2Params;
use super::qdisc::run_seed;
use super::regs::{
    addr, DUALPI2_ID, DUALPI2_REGS, DUALPI2_TC_ABSENT, DUALPI2_TC_GROUPS, DUALPI2_TC_STATS,
};
use crate::hw::clocked::ClockedCore;
use crate::hw::driver::{Beat, DriverError, Verdict, VerdictBeat};
use crate::hw::kind::{BeatReasons, CoreFacts, CoreKind, CoreParams, RegWrite, RegisterBus};
use crate::types::{Admission, DropReason, Ecn, MarkReason, QueueId};

/// The DualPI2 core.
pub struct DualPi2Kind;

/// The DualPI2 core's kind.
pub static DUALPI2_CORE: DualPi2Kind = DualPi2Kind;

impl CoreParams for DualPi2Params {
    fn check_hardware(&self) -> Result<(), String> {
        self.validate_hardware().map_err(|e| e.to_string())
    }

    fn register_writes(&self, seed: u64) -> Vec<RegWrite> {
        let p = self;
        RegWrite::configuration(
            [p.target_us, p.tupdate_us, p.alpha, p.beta],
            &[
                ("coupling_factor", addr::K, p.k),
                ("step_thresh", addr::STEP_US, p.step_us),
                ("min_qlen_step", addr::MIN_QLEN_STEP, p.min_qlen_step),
                ("ecn_mask", addr::ECN_MASK, p.ecn_mask),
                (
                    "drop_on_overload",
                    addr::DROP_OVERLOAD,
                    p.drop_overload as u32,
                ),
                ("limit", addr::LIMIT, p.limit),
                ("mtu", addr::MTU, p.mtu),
                ("classic_protection", addr::C_PROTECTION, p.c_protection),
            ],
            (addr::LINK_BYTE_TIME, addr::SEED_LO, run_seed(seed)),
        )
    }
}

/// MARKED_L and STEP_MARKS as last read.
#[derive(Default)]
struct MarkCounters {
    marked_l: u32,
    step_marks: u32,
}

impl BeatReasons for MarkCounters {
    fn drop_reason(&mut self, beat: &Beat) -> Result<DropReason, String> {
        Ok(match beat.queue {
            QueueId::Classic => DropReason::Classic,
            QueueId::L => DropReason::LowLatency,
        })
    }

    fn dequeue_mark(
        &mut self,
        beat: &Beat,
        bus: &mut dyn RegisterBus,
    ) -> Result<Option<MarkReason>, String> {
        if beat.ecn != Ecn::Ce {
            return Ok(None);
        }
        if beat.queue == QueueId::Classic {
            return Ok(Some(MarkReason::Classic));
        }
        let mut read = |a| bus.read_reg(a).map_err(|e| e.to_string());
        let (marked, step) = (read(addr::MARKED_L)?, read(addr::STEP_MARKS)?);
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

impl CoreKind for DualPi2Kind {
    fn facts(&self) -> &'static CoreFacts {
        &CoreFacts {
            name: "dualpi2",
            title: "DualPI2",
            id: DUALPI2_ID,
            capacity: HW_QUEUE_CAPACITY,
            verdict_latency: VERDICT_LATENCY,
            write_spacing: PARAM_CYCLES,
            regs: DUALPI2_REGS,
            tc_absent: DUALPI2_TC_ABSENT,
            tc_groups: DUALPI2_TC_GROUPS,
            tc_stats: &DUALPI2_TC_STATS,
        }
    }
    fn model(&self) -> Box<dyn ClockedCore + Send> {
        Box::new(DualPi2CoreModel::new())
    }
    fn default_writes(&self, seed: u64) -> Vec<RegWrite> {
        DualPi2Params::hardware().register_writes(seed)
    }
    fn after_configure(&self, bus: &mut dyn RegisterBus) -> Result<(), DriverError> {
        bus.poll_dequeue()
    }
    fn admission(&self, v: &VerdictBeat) -> Result<Admission, String> {
        match v.verdict {
            Verdict::Enqueue => Ok(Admission::Enqueued),
            Verdict::TailDrop => Ok(Admission::Dropped(DropReason::Overlimit)),
            other => Err(format!(
                "verdict {other:?}: DualPI2 enqueues or tail-drops at enqueue"
            )),
        }
    }
    fn beat_reasons(&self) -> Box<dyn BeatReasons> {
        Box::<MarkCounters>::default()
    }
}
