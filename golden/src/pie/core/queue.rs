//! The PIE core's descriptor queue (`aqm_hdl::head_queue::HeadQueue<74, 10, 11>`: block RAM behind a
//! head register), in the shared queue model.

use crate::hw::Desc;

/// One queued descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Enqueue time, ns, low 40 bits.
    pub ts: u64,
    /// Its ECN field is the one the verdict leaves (3 once marked).
    pub desc: Desc,
}

pub type Queue = crate::hw::queue::Queue<Entry, 3>;
