//! The DualPI2 core's descriptor: one 512 x 75-bit block-RAM FIFO per queue (L and C) behind two
//! registers, the head and the entry after it (`aqm_hdl::head_queue::LookQueue<75, 9, 10>`), in the
//! shared queue model ([`crate::hw::queue`] with a lag of 4: an entry reaches the head four cycles
//! after its push at the earliest, a pop shows the next entry the cycle after).

use crate::hw::Desc;

/// One queued descriptor: 40 + 16 + 2 + 16 + 1 = 75 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Enqueue time, ns, low 40 bits.
    pub ts: u64,
    /// As it arrived.
    pub desc: Desc,
    /// The L queue held at least MIN_QLEN_STEP packets at enqueue: the step marker may act.
    pub apply_step: bool,
}

pub type Queue = crate::hw::queue::Queue<Entry, 4>;
