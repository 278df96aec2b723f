//! The ports of a hardware AQM core (PIE and DualPI2 have the same), one clock cycle at a time.

/// A core's input ports for one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreInputs {
    pub rst: bool,
    /// Ns, never decreasing, by at most 2^38 from one cycle to the next.
    pub now: u64,
    pub in_valid: bool,
    pub in_len: u16,
    pub in_ecn: u8,
    pub in_tag: u16,
    pub out_ready: bool,
    pub reg_addr: u8,
    pub reg_wdata: u32,
    pub reg_we: bool,
    pub reg_re: bool,
}

/// A core's output ports during one clock cycle (before its rising edge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreOutputs {
    pub in_ready: bool,
    pub verdict_valid: bool,
    pub verdict_tag: u16,
    pub verdict_code: u8,
    pub verdict_queue: bool,
    pub out_valid: bool,
    pub out_len: u16,
    pub out_ecn: u8,
    pub out_tag: u16,
    /// Ns, 40 bits.
    pub out_sojourn: u64,
    pub out_queue: bool,
    pub out_drop: bool,
    pub reg_rdata: u32,
    pub reg_rvalid: bool,
    pub reg_err: bool,
    pub idle: bool,
    /// Ns, low 40 bits.
    pub next_update: u64,
    /// Ns, low 40 bits; meaningful while `link_busy`.
    pub link_free: u64,
    pub link_busy: bool,
}
