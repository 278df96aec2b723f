//! The PIE core's kind: what every harness needs to know of `aqm_hdl::pie::PieCore`.

use super::core::{PieCoreModel, VERDICT_LATENCY};
use super::params::PieParams;
use super::qdisc::run_seed;
use super::regs::{addr, CAPACITY, PIE_ID, PIE_REGS, PIE_TC_ABSENT, PIE_TC_STATS};
use crate::hw::clocked::ClockedCore;
use crate::hw::driver::{Beat, VerdictBeat};
use crate::hw::kind::{
    admission_of, BeatReasons, CoreFacts, CoreKind, CoreParams, RegWrite, RegisterBus,
};
use crate::types::{Admission, DropReason, MarkReason, QueueId};

/// The PIE core.
pub struct PieKind;

/// The PIE core's kind.
pub static PIE_CORE: PieKind = PieKind;

impl CoreParams for PieParams {
    fn register_writes(&self, seed: u64) -> Vec<RegWrite> {
        let p = self;
        RegWrite::configuration(
            [p.target_us, p.tupdate_us, p.alpha, p.beta],
            &[
                ("limit", addr::LIMIT, p.limit),
                ("ecn", addr::ECN, p.ecn as u32),
                ("bytemode", addr::BYTEMODE, p.bytemode as u32),
                ("mtu", addr::MTU, p.mtu),
                ("burst", addr::MAX_BURST_US, p.max_burst_us),
            ],
            (addr::LINK_BYTE_TIME, addr::SEED_LO, run_seed(seed)),
        )
    }
}

/// PIE drops at enqueue only, and marks at enqueue only.
struct EnqueueOnly;

impl BeatReasons for EnqueueOnly {
    fn drop_reason(&mut self, _beat: &Beat) -> Result<DropReason, String> {
        Err("PIE drops at enqueue only, the core dropped it at dequeue".into())
    }

    fn dequeue_mark(
        &mut self,
        _beat: &Beat,
        _bus: &mut dyn RegisterBus,
    ) -> Result<Option<MarkReason>, String> {
        Ok(None)
    }
}

impl CoreKind for PieKind {
    fn facts(&self) -> &'static CoreFacts {
        &CoreFacts {
            name: "pie",
            title: "PIE",
            id: PIE_ID,
            capacity: CAPACITY,
            verdict_latency: VERDICT_LATENCY,
            write_spacing: 2,
            regs: PIE_REGS,
            tc_absent: PIE_TC_ABSENT,
            tc_groups: &[],
            tc_stats: &PIE_TC_STATS,
        }
    }
    fn model(&self) -> Box<dyn ClockedCore + Send> {
        Box::new(PieCoreModel::new())
    }
    fn default_writes(&self, seed: u64) -> Vec<RegWrite> {
        PieParams::default().register_writes(seed)
    }
    fn admission(&self, v: &VerdictBeat) -> Result<Admission, String> {
        if v.queue != QueueId::Classic {
            return Err("PIE has one queue, the verdict names the L queue".into());
        }
        Ok(admission_of(v.verdict))
    }
    fn beat_reasons(&self) -> Box<dyn BeatReasons> {
        Box::new(EnqueueOnly)
    }
}
