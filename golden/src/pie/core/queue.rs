//! The descriptor queue (`aqm_hdl::desc_queue::DescQueue`): an entry reaches the head two cycles after it
//! is pushed, and a pop refills the head from the next entry on the following cycle.

use std::collections::VecDeque;

/// One queued descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Enqueue time, ns, low 40 bits.
    pub ts: u64,
    pub tag: u16,
    pub ecn: u8,
    pub len: u16,
}

#[derive(Clone, Debug, Default)]
pub struct Queue {
    entries: VecDeque<Entry>,
    head_valid: bool,
}

impl Queue {
    pub fn count(&self) -> u32 {
        self.entries.len() as u32
    }

    /// The head entry, when it is presented.
    pub fn head(&self) -> Option<Entry> {
        if self.head_valid {
            self.entries.front().copied()
        } else {
            None
        }
    }

    pub fn clock(&mut self, rst: bool, push: Option<Entry>, pop: bool) {
        let popped = pop && self.head_valid;
        if popped {
            self.entries.pop_front();
        }
        self.head_valid = !self.entries.is_empty();
        if let Some(e) = push {
            self.entries.push_back(e);
        }
        if rst {
            self.entries.clear();
            self.head_valid = false;
        }
    }
}
