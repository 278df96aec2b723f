//! The block-RAM descriptor queue (`aqm_hdl::desc_queue::DescQueue`), first word fall through: an entry
//! reaches the head two cycles after it is pushed, and a pop refills the head from the next entry on the
//! following cycle.

use std::collections::VecDeque;

/// A queue of entries `E` (each core has its own descriptor layout).
#[derive(Clone, Debug)]
pub struct Queue<E> {
    entries: VecDeque<E>,
    head_valid: bool,
}

impl<E> Default for Queue<E> {
    fn default() -> Self {
        Queue {
            entries: VecDeque::new(),
            head_valid: false,
        }
    }
}

impl<E: Copy> Queue<E> {
    /// Entries held, the head included (and an entry pushed in the previous cycle).
    pub fn count(&self) -> u32 {
        self.entries.len() as u32
    }

    /// The head entry, when it is presented.
    pub fn head(&self) -> Option<E> {
        if self.head_valid {
            self.entries.front().copied()
        } else {
            None
        }
    }

    /// The rising edge: `pop` takes the head (ignored when none is presented), `push` appends.
    pub fn clock(&mut self, rst: bool, push: Option<E>, pop: bool) {
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
