//! The PIE core's register map: one table that the hardware register file, the golden core model, the
//! host tool and the documentation (`hdl/REGISTERS.md`, generated from it) all follow.
//!
//! 32-bit registers on word addresses. Parameters are in tc's units and reset to Linux's defaults; a
//! write outside a parameter's range, to a read-only or unmapped address, or a read of an unmapped address
//! is rejected: nothing changes, the `reg_err` output pulses and STATUS.write_error sticks until cleared.
//! 64-bit values are split in _LO / _HI halves: reading _LO latches the matching _HI half, so a _LO then
//! _HI read pair is consistent; writing _LO stages the low half and writing _HI commits both at once.

use super::consts::{us_to_ticks, MAX_PROB};
use super::params::{range, PieParams, DEFAULT_PARAMS};
use crate::prng::DEFAULT_SEED;

/// Register addresses.
pub mod addr {
    pub const ID: u8 = 0x00;
    pub const STATUS: u8 = 0x01;
    pub const CONTROL: u8 = 0x02;
    pub const CAPACITY: u8 = 0x03;
    pub const TARGET_US: u8 = 0x10;
    pub const TUPDATE_US: u8 = 0x11;
    pub const ALPHA: u8 = 0x12;
    pub const BETA: u8 = 0x13;
    pub const LIMIT: u8 = 0x14;
    pub const ECN: u8 = 0x15;
    pub const BYTEMODE: u8 = 0x16;
    pub const MTU: u8 = 0x17;
    pub const MAX_BURST_US: u8 = 0x18;
    pub const LINK_BYTE_TIME: u8 = 0x19;
    pub const SEED_LO: u8 = 0x1A;
    pub const SEED_HI: u8 = 0x1B;
    pub const PROB_LO: u8 = 0x1C;
    pub const PROB_HI: u8 = 0x1D;
    pub const PKTS_IN: u8 = 0x20;
    pub const SENT_PKTS: u8 = 0x21;
    pub const SENT_BYTES_LO: u8 = 0x22;
    pub const SENT_BYTES_HI: u8 = 0x23;
    pub const DROPPED: u8 = 0x24;
    pub const OVERLIMIT: u8 = 0x25;
    pub const ECN_MARK: u8 = 0x26;
    pub const BACKLOG_BYTES: u8 = 0x27;
    pub const BACKLOG_PKTS: u8 = 0x28;
    pub const MAXQ: u8 = 0x29;
    pub const QDELAY: u8 = 0x2A;
    pub const ACCU_LO: u8 = 0x2B;
    pub const ACCU_HI: u8 = 0x2C;
    pub const BURST: u8 = 0x2D;
}

/// Value of the ID register: "PIE1".
pub const PIE_ID: u32 = 0x5049_4531;
/// Depth of the hardware descriptor FIFO.
pub const CAPACITY: u32 = 1024;
/// STATUS bits.
pub const STATUS_WRITE_ERROR: u32 = 1 << 0;
pub const STATUS_CTRL_BUSY: u32 = 1 << 1;
/// CONTROL bits.
pub const CONTROL_RESET: u32 = 1 << 0;
pub const CONTROL_CLEAR_COUNTERS: u32 = 1 << 1;

/// How a register may be accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read-only.
    Ro,
    /// Read and write.
    Rw,
    /// Write-only (reads return 0).
    Wo,
    /// Read; writing 1 to a bit clears it.
    Rw1c,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::Wo => "WO",
            Access::Rw1c => "RW1C",
        }
    }
}

/// One register of the map.
#[derive(Clone, Copy, Debug)]
pub struct RegDef {
    pub addr: u8,
    pub name: &'static str,
    pub access: Access,
    /// Significant bits of the value (of the whole value for _LO/_HI pairs).
    pub width: u32,
    pub unit: &'static str,
    /// Value read after reset (for a _LO/_HI half, that half of the reset value).
    pub reset: u32,
    /// Accepted write values, inclusive, for parameters with a range.
    pub range: Option<(u32, u32)>,
    pub doc: &'static str,
}

const fn rw(
    addr: u8,
    name: &'static str,
    width: u32,
    unit: &'static str,
    reset: u32,
    range: (u32, u32),
    doc: &'static str,
) -> RegDef {
    RegDef {
        addr,
        name,
        access: Access::Rw,
        width,
        unit,
        reset,
        range: Some(range),
        doc,
    }
}

const fn ro(
    addr: u8,
    name: &'static str,
    width: u32,
    unit: &'static str,
    doc: &'static str,
) -> RegDef {
    RegDef {
        addr,
        name,
        access: Access::Ro,
        width,
        unit,
        reset: 0,
        range: None,
        doc,
    }
}

const D: PieParams = DEFAULT_PARAMS;

/// The map, in address order.
pub const PIE_REGS: &[RegDef] = &[
    RegDef { addr: addr::ID, name: "ID", access: Access::Ro, width: 32, unit: "", reset: PIE_ID, range: None, doc: "\"PIE1\"" },
    RegDef { addr: addr::STATUS, name: "STATUS", access: Access::Rw1c, width: 2, unit: "", reset: 0, range: None, doc: "bit 0 write_error (sticky, write 1 to clear); bit 1 controller busy" },
    RegDef { addr: addr::CONTROL, name: "CONTROL", access: Access::Wo, width: 2, unit: "", reset: 0, range: None, doc: "bit 0: reset the core (state and parameters); bit 1: clear the counters" },
    RegDef { addr: addr::CAPACITY, name: "CAPACITY", access: Access::Ro, width: 32, unit: "packets", reset: CAPACITY, range: None, doc: "depth of the descriptor FIFO" },
    rw(addr::TARGET_US, "TARGET_US", 32, "us", D.target_us, range::TARGET_US, "tc target"),
    rw(addr::TUPDATE_US, "TUPDATE_US", 32, "us", D.tupdate_us, range::TUPDATE_US, "tc tupdate"),
    rw(addr::ALPHA, "ALPHA", 6, "1/16 Hz", D.alpha, range::GAIN, "tc alpha"),
    rw(addr::BETA, "BETA", 6, "1/16 Hz", D.beta, range::GAIN, "tc beta"),
    rw(addr::LIMIT, "LIMIT", 11, "packets", D.limit, range::LIMIT, "tc limit"),
    rw(addr::ECN, "ECN", 1, "", 0, (0, 1), "tc ecn: mark ECN-capable packets while prob <= 10 %"),
    rw(addr::BYTEMODE, "BYTEMODE", 1, "", 0, (0, 1), "tc bytemode (0 only in a core built without the bytemode multiplier, PIE_LITE)"),
    rw(addr::MTU, "MTU", 11, "bytes", D.mtu, range::MTU, "MTU of the 2*MTU bypass and of bytemode"),
    rw(addr::MAX_BURST_US, "MAX_BURST_US", 32, "us", D.max_burst_us, range::MAX_BURST_US, "burst allowance of a new measurement cycle"),
    rw(addr::LINK_BYTE_TIME, "LINK_BYTE_TIME", 24, "ns/byte, Q16.8", 0, (0, 0xFF_FFFF), "link model: transmission time per byte; 0 = no link model (egress paced by out_ready)"),
    RegDef { addr: addr::SEED_LO, name: "SEED_LO", access: Access::Rw, width: 64, unit: "", reset: DEFAULT_SEED as u32, range: None, doc: "PRNG state, low half (write: staged)" },
    RegDef { addr: addr::SEED_HI, name: "SEED_HI", access: Access::Rw, width: 64, unit: "", reset: (DEFAULT_SEED >> 32) as u32, range: None, doc: "PRNG state, high half (write: loads {SEED_HI, staged SEED_LO}; zero rejected)" },
    RegDef { addr: addr::PROB_LO, name: "PROB_LO", access: Access::Rw, width: 56, unit: "2^56-1 = 100 %", reset: 0, range: None, doc: "drop probability, low half (write: staged)" },
    RegDef { addr: addr::PROB_HI, name: "PROB_HI", access: Access::Rw, width: 56, unit: "2^56-1 = 100 %", reset: 0, range: None, doc: "drop probability, high half (write: loads both; rejected above 100 % or while the controller runs)" },
    ro(addr::PKTS_IN, "PKTS_IN", 32, "packets", "descriptors judged (tc pkts_in)"),
    ro(addr::SENT_PKTS, "SENT_PKTS", 32, "packets", "departures (tc Sent ... pkt)"),
    ro(addr::SENT_BYTES_LO, "SENT_BYTES_LO", 40, "bytes", "departed bytes, low half"),
    ro(addr::SENT_BYTES_HI, "SENT_BYTES_HI", 40, "bytes", "departed bytes, high half"),
    ro(addr::DROPPED, "DROPPED", 32, "packets", "early drops and tail drops (tc dropped)"),
    ro(addr::OVERLIMIT, "OVERLIMIT", 32, "packets", "tail drops at the limit (tc overlimit)"),
    ro(addr::ECN_MARK, "ECN_MARK", 32, "packets", "CE marks (tc ecn_mark)"),
    ro(addr::BACKLOG_BYTES, "BACKLOG_BYTES", 32, "bytes", "bytes queued"),
    ro(addr::BACKLOG_PKTS, "BACKLOG_PKTS", 11, "packets", "packets queued"),
    ro(addr::MAXQ, "MAXQ", 11, "packets", "largest queue length seen (tc maxq)"),
    ro(addr::QDELAY, "QDELAY", 32, "ticks of 64 ns", "latest delay sample, saturated at 2^32-1 (tc delay)"),
    ro(addr::ACCU_LO, "ACCU_LO", 60, "2^56-1 = 100 %", "derandomisation accumulator (saturates at 2^60-1), low half"),
    ro(addr::ACCU_HI, "ACCU_HI", 60, "2^56-1 = 100 %", "derandomisation accumulator, high half"),
    RegDef { addr: addr::BURST, name: "BURST", access: Access::Ro, width: 32, unit: "ticks of 64 ns", reset: us_to_ticks(D.max_burst_us as u64) as u32, range: None, doc: "remaining burst allowance (reset: MAX_BURST_US)" },
];

/// The definition of the register at `a`, if any.
pub fn find(a: u8) -> Option<&'static RegDef> {
    PIE_REGS.iter().find(|r| r.addr == a)
}

/// The definition of the register called `name` (case-insensitive), if any.
pub fn by_name(name: &str) -> Option<&'static RegDef> {
    PIE_REGS.iter().find(|r| r.name.eq_ignore_ascii_case(name))
}

/// Accepts a prob write of the full 64-bit value.
pub fn prob_in_range(v: u64) -> bool {
    v <= MAX_PROB
}

/// The register map as a Markdown table.
pub fn markdown() -> String {
    let mut s = String::from(
        "| addr | name | access | width | unit | reset | range | description |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in PIE_REGS {
        let range = match r.range {
            Some((lo, hi)) => format!("{lo}..={hi}"),
            None => String::new(),
        };
        s.push_str(&format!(
            "| 0x{:02X} | {} | {} | {} | {} | 0x{:X} | {} | {} |\n",
            r.addr,
            r.name,
            r.access.as_str(),
            r.width,
            r.unit,
            r.reset,
            range,
            r.doc
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_unique_and_sorted() {
        for w in PIE_REGS.windows(2) {
            assert!(w[0].addr < w[1].addr, "{} / {}", w[0].name, w[1].name);
        }
    }

    #[test]
    fn parameter_resets_are_the_linux_defaults() {
        let d = PieParams::default();
        assert_eq!(D, d);
        for r in PIE_REGS.iter().filter(|r| r.range.is_some()) {
            let (lo, hi) = r.range.unwrap();
            assert!(lo <= r.reset && r.reset <= hi, "{}", r.name);
        }
    }
}
