//! The PIE core's descriptor (`aqm_hdl::desc_queue::DescQueue<74, 10, 11>`), in the shared queue model.

/// One queued descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Enqueue time, ns, low 40 bits.
    pub ts: u64,
    pub tag: u16,
    pub ecn: u8,
    pub len: u16,
}

pub type Queue = crate::hw::queue::Queue<Entry>;
