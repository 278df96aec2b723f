//! The PIE core (`aqm_hdl::pie::core::PieCore`, Verilated as `pie_core`) in the simulator: the
//! `"pie (hw)"` twin of the golden [`aqm_golden::pie::PieQdisc`].
//!
//! Configured through its register bus like a board would be: the parameters in tc's units (a value the
//! register file refuses is an error that names the parameter), the link model off (`LINK_BYTE_TIME` 0:
//! the simulator's link pulls each packet with `out_ready`), and the generator seeded through
//! `SEED_LO`/`SEED_HI` with the golden qdisc's [`run_seed`], so both draw the same word for each packet.

use crate::adapter::{CoreKind, HwAqm};
use crate::{Beat, Driver, DriverError, VerdictBeat};
use aqm_golden::pie::qdisc::run_seed;
use aqm_golden::pie::regs::{addr, find};
use aqm_golden::pie::PieParams;
use aqm_golden::{Admission, DropReason, MarkReason, Packet, QueueId};
use aqm_verilated::VerilatedCore;

/// The PIE core with a parameter set and the simulator's seed.
#[derive(Clone, Copy, Debug)]
pub struct PieHw {
    pub params: PieParams,
    pub seed: u64,
}

impl PieHw {
    /// The Verilated PIE core, reset and configured with `params`, its generator seeded from `seed`.
    pub fn aqm(params: PieParams, seed: u64) -> Result<HwAqm<PieHw>, DriverError> {
        HwAqm::new(PieHw { params, seed }, VerilatedCore::pie())
    }

    /// The register writes that configure the core: (tc name, address, value).
    pub fn register_writes(&self) -> Vec<(&'static str, u8, u32)> {
        let p = &self.params;
        let seed = run_seed(self.seed);
        vec![
            ("target", addr::TARGET_US, p.target_us),
            ("tupdate", addr::TUPDATE_US, p.tupdate_us),
            ("alpha", addr::ALPHA, p.alpha),
            ("beta", addr::BETA, p.beta),
            ("limit", addr::LIMIT, p.limit),
            ("ecn", addr::ECN, p.ecn as u32),
            ("bytemode", addr::BYTEMODE, p.bytemode as u32),
            ("mtu", addr::MTU, p.mtu),
            ("burst", addr::MAX_BURST_US, p.max_burst_us),
            ("link", addr::LINK_BYTE_TIME, 0),
            ("seed", addr::SEED_LO, seed as u32),
            ("seed", addr::SEED_HI, (seed >> 32) as u32),
        ]
    }
}

impl CoreKind for PieHw {
    fn name(&self) -> String {
        "pie (hw)".into()
    }

    fn configure(&mut self, core: &mut Driver) -> Result<(), DriverError> {
        for (param, a, value) in self.register_writes() {
            core.write_reg(a, value).map_err(|e| match (e, find(a)) {
                (DriverError::Rejected { .. }, Some(def)) => DriverError::Param {
                    param,
                    register: def.name,
                    value,
                },
                (e, _) => e,
            })?;
        }
        Ok(())
    }

    fn admission(&mut self, v: &VerdictBeat) -> Result<Admission, String> {
        if v.queue != QueueId::Classic {
            return Err("PIE has one queue, the verdict names the L queue".into());
        }
        Ok(match v.code & 3 {
            0 => Admission::Enqueued,
            1 => Admission::Marked(MarkReason::Early),
            2 => Admission::Dropped(DropReason::Early),
            _ => Admission::Dropped(DropReason::Overlimit),
        })
    }

    fn drop_reason(
        &mut self,
        _beat: &Beat,
        _arrived: &Packet,
        _core: &mut Driver,
    ) -> Result<DropReason, String> {
        Err("PIE drops at enqueue only, the core dropped it at dequeue".into())
    }

    fn dequeue_mark(
        &mut self,
        _beat: &Beat,
        _arrived: &Packet,
        _core: &mut Driver,
    ) -> Result<Option<MarkReason>, String> {
        Ok(None)
    }
}
