//! DualPI2's state between packets and updates: the controller's p' and last delay, and the scheduler's
//! credit.

use super::params::DualPi2Params;
use super::scheduler::initial_credit;

/// The state DualPI2 carries. Delays are in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DualPi2Vars {
    /// The base probability p', 100 % = MAX_PROB = 2^32 - 1.
    pub prob: u32,
    /// The head-of-queue delay of the previous controller update, ns.
    pub last_qdelay: u64,
    /// The WRR credit, bytes x percent; L is served while it is <= 0 (or C is empty).
    pub credit: i64,
}

impl DualPi2Vars {
    /// State after reset: p' = 0, no delay history, the initial credit.
    pub fn new(params: &DualPi2Params) -> DualPi2Vars {
        DualPi2Vars {
            prob: 0,
            last_qdelay: 0,
            credit: initial_credit(params),
        }
    }
}
