//! PIE's controller state (Linux's `pie_vars`), shared by the controller, the dequeue side and the enqueue
//! verdict.

/// The state PIE carries between packets and updates. Times are in ticks of 64 ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieVars {
    /// Drop probability, 100 % = MAX_PROB.
    pub prob: u64,
    /// The latest dequeue sample (sojourn of the last dequeued packet, 0 if it emptied the queue), ticks.
    pub qdelay: u64,
    /// The qdelay used at the previous controller update, ticks.
    pub qdelay_old: u64,
    /// Remaining burst allowance, ticks.
    pub burst_time: u64,
    /// Derandomisation accumulator (sum of local drop probabilities since the last drop).
    pub accu_prob: u64,
    /// Time of the previous dequeue, ticks; `None` before the first.
    pub dq_tstamp: Option<u64>,
}

impl PieVars {
    /// State after reset: probability 0, a full burst allowance.
    pub fn new(max_burst_ticks: u64) -> PieVars {
        PieVars {
            prob: 0,
            qdelay: 0,
            qdelay_old: 0,
            burst_time: max_burst_ticks,
            accu_prob: 0,
            dq_tstamp: None,
        }
    }
}
