//! The block-RAM descriptor queues, first word fall through: `aqm_hdl::desc_queue::DescQueue`
//! (`LAG` = 2: an entry reaches the head two cycles after it is pushed),
//! `aqm_hdl::head_queue::HeadQueue` (`LAG` = 3: the same behind a head register, or with its head
//! shown a cycle late) and `aqm_hdl::head_queue::LookQueue` (`LAG` = 4: behind two registers, the
//! head and the entry after it, or with its head shown two cycles late). A pop refills the head from
//! the next entry on the following cycle.

use std::collections::VecDeque;

/// A queue of entries `E` (each core has its own descriptor layout) whose head shows an entry `LAG`
/// cycles after its push at the earliest (2, 3 or 4).
#[derive(Clone, Debug)]
pub struct Queue<E, const LAG: usize = 2> {
    entries: VecDeque<E>,
    head_valid: bool,
    /// An entry was pushed in the previous cycle (for `LAG` >= 3 it is not at the head yet).
    pushed_last: bool,
    /// An entry was pushed in the cycle before the previous one (for `LAG` = 4 not at the head yet).
    pushed_before: bool,
}

impl<E, const LAG: usize> Default for Queue<E, LAG> {
    fn default() -> Self {
        const { assert!(LAG >= 2 && LAG <= 4) };
        Queue {
            entries: VecDeque::new(),
            head_valid: false,
            pushed_last: false,
            pushed_before: false,
        }
    }
}

impl<E: Copy, const LAG: usize> Queue<E, LAG> {
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
        // Entries older than this cycle's push (with a head register, than last cycle's too; with
        // two, than the one before).
        let young = match LAG {
            2 => 0,
            3 => self.pushed_last as usize,
            _ => self.pushed_last as usize + self.pushed_before as usize,
        };
        self.head_valid = self.entries.len() > young;
        self.pushed_before = self.pushed_last;
        self.pushed_last = push.is_some();
        if let Some(e) = push {
            self.entries.push_back(e);
        }
        if rst {
            self.entries.clear();
            self.head_valid = false;
            self.pushed_last = false;
            self.pushed_before = false;
        }
    }
}
