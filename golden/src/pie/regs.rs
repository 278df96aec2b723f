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
use crate::hw::link::BYTE_TIME_RANGE;
use crate::hw::regs::tc_value::{NUMBER, PACKETS, TIME};
use crate::hw::regs::{
    register_map, ro, rw, seed_hi_reg, seed_lo_reg, with_tc, Src, TcAbsent, TcStats, TcValue,
    XForm, XStat,
};
use crate::hw::FLAG_RANGE;

pub use crate::hw::regs::{Access, RegDef};

/// Register addresses.
pub mod addr {
    pub use crate::hw::regs::common_addr::*;
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

/// A register with its tc option, named in JSON as on the command line.
const fn tc(d: RegDef, word: &'static str, in_tc: bool, value: TcValue) -> RegDef {
    with_tc(d, word, &[], in_tc, word, value)
}

const D: PieParams = DEFAULT_PARAMS;

/// The map, in address order.
#[rustfmt::skip]
pub const PIE_REGS: &[RegDef] = register_map!(
    id: PIE_ID, "\"PIE1\""; busy: "controller busy"; capacity: CAPACITY, "depth of the descriptor FIFO";
    tc(rw(addr::TARGET_US, "TARGET_US", 32, "us", D.target_us, range::TARGET_US, "tc target"), "target", true, TIME),
    tc(rw(addr::TUPDATE_US, "TUPDATE_US", 32, "us", D.tupdate_us, range::TUPDATE_US, "tc tupdate"), "tupdate", true, TIME),
    tc(rw(addr::ALPHA, "ALPHA", 6, "1/16 Hz", D.alpha, range::GAIN, "tc alpha"), "alpha", true, NUMBER),
    tc(rw(addr::BETA, "BETA", 6, "1/16 Hz", D.beta, range::GAIN, "tc beta"), "beta", true, NUMBER),
    tc(rw(addr::LIMIT, "LIMIT", 11, "packets", D.limit, range::LIMIT, "tc limit"), "limit", true, PACKETS),
    tc(rw(addr::ECN, "ECN", 1, "", 0, FLAG_RANGE, "tc ecn: mark ECN-capable packets while prob <= 10 %"), "ecn", true, TcValue::Flag { off: "noecn", show_off: false, json: None }),
    tc(rw(addr::BYTEMODE, "BYTEMODE", 1, "", 0, FLAG_RANGE, "tc bytemode (0 only in a core built without the bytemode multiplier, PIE_LITE)"), "bytemode", true, TcValue::Flag { off: "nobytemode", show_off: false, json: None }),
    tc(rw(addr::MTU, "MTU", 11, "bytes", D.mtu, range::MTU, "MTU of the 2*MTU bypass and of bytemode"), "mtu", false, NUMBER),
    tc(rw(addr::MAX_BURST_US, "MAX_BURST_US", 32, "us", D.max_burst_us, range::MAX_BURST_US, "burst allowance of a new measurement cycle"), "burst", false, TIME),
    tc(rw(addr::LINK_BYTE_TIME, "LINK_BYTE_TIME", 24, "ns/byte, Q16.8", 0, BYTE_TIME_RANGE, "link model: transmission time per byte; 0 = no link model (egress paced by out_ready)"), "link", false, TcValue::LinkRate),
    seed_lo_reg(addr::SEED_LO, "PRNG state, low half (write: staged)"),
    seed_hi_reg(addr::SEED_HI),
    tc(RegDef { addr: addr::PROB_LO, name: "PROB_LO", access: Access::Rw, width: 56, unit: "2^56-1 = 100 %", reset: 0, range: None, doc: "drop probability, low half (write: staged)", tc: None }, "prob", false, TcValue::Prob { max: MAX_PROB, pair: true }),
    RegDef { addr: addr::PROB_HI, name: "PROB_HI", access: Access::Rw, width: 56, unit: "2^56-1 = 100 %", reset: 0, range: None, doc: "drop probability, high half (write: loads both; rejected above 100 % or while the controller runs)", tc: None },
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
    ro(addr::ACCU_LO, "ACCU_LO", 60, "2^56-1 = 100 %", "derandomisation accumulator (saturates at 8.5), low half"),
    ro(addr::ACCU_HI, "ACCU_HI", 60, "2^56-1 = 100 %", "derandomisation accumulator, high half"),
    ro(addr::BURST, "BURST", 32, "ticks of 64 ns", "remaining burst allowance (reset: MAX_BURST_US)").reset_to(us_to_ticks(D.max_burst_us as u64) as u32),
);

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

/// The tc-pie(8) options the core does not have.
pub const PIE_TC_ABSENT: &[TcAbsent] = &[
    TcAbsent { option: "dq_rate_estimator", why: "the core measures each packet's sojourn time from its timestamp; it has no departure-rate estimator (no_dq_rate_estimator is what it does)" },
    TcAbsent { option: "no_dq_rate_estimator", why: "always the case: the core has no departure-rate estimator to turn off, so the word is not taken" },
];

/// What `tc -s qdisc show` prints for the PIE core.
pub const PIE_TC_STATS: TcStats = {
    use addr::*;
    const fn x(label: &'static str, src: &'static [Src], form: XForm) -> XStat {
        XStat {
            label,
            json: label,
            src,
            form,
        }
    }
    TcStats {
        limit: LIMIT,
        options: &[ECN, BYTEMODE, LINK_BYTE_TIME],
        fixed: &[],
        bytes: &[Src::Pair(SENT_BYTES_LO)],
        packets: &[Src::Reg(SENT_PKTS)],
        drops: &[Src::Reg(DROPPED)],
        overlimits: &[Src::Reg(OVERLIMIT)],
        backlog: &[Src::Reg(BACKLOG_BYTES)],
        qlen: &[Src::Reg(BACKLOG_PKTS)],
        xstats: &[
            &[
                x("prob", &[Src::Pair(PROB_LO)], XForm::Prob { max: MAX_PROB }),
                x("delay", &[Src::Reg(QDELAY)], XForm::Us { ns: 64 }),
            ],
            &[
                x("pkts_in", &[Src::Reg(PKTS_IN)], XForm::Count),
                x("overlimit", &[Src::Reg(OVERLIMIT)], XForm::Count),
                x("dropped", &[Src::Reg(DROPPED)], XForm::Count),
                x("maxq", &[Src::Reg(MAXQ)], XForm::Count),
                x("ecn_mark", &[Src::Reg(ECN_MARK)], XForm::Count),
            ],
        ],
    }
};

/// The register map as a Markdown table, with the tc column.
pub fn markdown() -> String {
    crate::hw::regs::markdown(PIE_REGS, PIE_TC_ABSENT, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

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
