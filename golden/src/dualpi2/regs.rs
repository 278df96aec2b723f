//! The DualPI2 core's register map: one table that the hardware register file, the golden core model,
//! the host tool and the documentation follow. Same conventions and row format as the PIE core's map
//! ([`crate::pie::regs`]):
//!
//! 32-bit registers on word addresses. Parameters are in tc's units and reset to [`HARDWARE_PARAMS`]
//! (Linux's defaults, with the limit of the descriptor memory); a write outside a parameter's range, to a
//! read-only or unmapped address, or a read of an unmapped address is rejected: nothing changes, the
//! `reg_err` output pulses and STATUS.write_error sticks until cleared. 64-bit values are split in _LO /
//! _HI halves: reading _LO latches the matching _HI half, so a _LO then _HI read pair is consistent;
//! writing _LO stages the low half and writing _HI commits both at once. Delays read in ns, saturated at
//! 2^32 - 1 (4.29 s); CREDIT is a signed two's-complement value.

use super::params::{range, rtt_auto_config, DualPi2Params, HARDWARE_PARAMS};
use crate::dualpi2::consts::{HW_QUEUE_CAPACITY, MAX_PROB};
use crate::dualpi2::scheduler::initial_credit;
use crate::hw::link::BYTE_TIME_RANGE;
use crate::hw::regs::tc_value::{NUMBER, PACKETS, TIME};
use crate::hw::regs::{
    register_map, ro, rw, seed_hi_reg, seed_lo_reg, with_tc, Src, TcAbsent, TcGroup, TcStats,
    TcValue, XForm, XStat,
};
use crate::hw::FLAG_RANGE;

pub use crate::hw::regs::{Access, RegDef};
pub use crate::pie::regs::{
    CONTROL_CLEAR_COUNTERS, CONTROL_RESET, STATUS_CTRL_BUSY, STATUS_WRITE_ERROR,
};

/// Register addresses.
pub mod addr {
    pub use crate::hw::regs::common_addr::*;
    pub const K: u8 = 0x14;
    pub const STEP_US: u8 = 0x15;
    pub const MIN_QLEN_STEP: u8 = 0x16;
    pub const ECN_MASK: u8 = 0x17;
    pub const DROP_OVERLOAD: u8 = 0x18;
    pub const LIMIT: u8 = 0x19;
    pub const MTU: u8 = 0x1A;
    pub const C_PROTECTION: u8 = 0x1B;
    pub const LINK_BYTE_TIME: u8 = 0x1C;
    pub const SEED_LO: u8 = 0x1D;
    pub const SEED_HI: u8 = 0x1E;
    pub const PROB: u8 = 0x1F;
    pub const PKTS_IN_L: u8 = 0x20;
    pub const PKTS_IN_C: u8 = 0x21;
    pub const SENT_PKTS_L: u8 = 0x22;
    pub const SENT_PKTS_C: u8 = 0x23;
    pub const SENT_BYTES_L_LO: u8 = 0x24;
    pub const SENT_BYTES_L_HI: u8 = 0x25;
    pub const SENT_BYTES_C_LO: u8 = 0x26;
    pub const SENT_BYTES_C_HI: u8 = 0x27;
    pub const DROPPED_ENQ_L: u8 = 0x28;
    pub const DROPPED_ENQ_C: u8 = 0x29;
    pub const DROPPED_AQM_L: u8 = 0x2A;
    pub const DROPPED_AQM_C: u8 = 0x2B;
    pub const MARKED_L: u8 = 0x2C;
    pub const MARKED_C: u8 = 0x2D;
    pub const STEP_MARKS: u8 = 0x2E;
    pub const OVERLOAD: u8 = 0x2F;
    pub const BACKLOG_BYTES_L: u8 = 0x30;
    pub const BACKLOG_BYTES_C: u8 = 0x31;
    pub const BACKLOG_PKTS_L: u8 = 0x32;
    pub const BACKLOG_PKTS_C: u8 = 0x33;
    pub const MAXQ: u8 = 0x34;
    pub const DELAY_L: u8 = 0x35;
    pub const DELAY_C: u8 = 0x36;
    pub const LAST_QDELAY: u8 = 0x37;
    pub const CREDIT: u8 = 0x38;
    pub const UPDATES: u8 = 0x39;
}

/// Value of the ID register: "DPI2".
pub const DUALPI2_ID: u32 = 0x4450_4932;

const HZ: TcValue = TcValue::Hz { scale: 256 };

const H: DualPi2Params = HARDWARE_PARAMS;

/// The map, in address order.
#[rustfmt::skip]
pub const DUALPI2_REGS: &[RegDef] = register_map!(
    id: DUALPI2_ID, "\"DPI2\""; busy: "busy (controller or parameter engine)"; capacity: HW_QUEUE_CAPACITY, "descriptors each queue (L, C) holds; an arrival into a full queue is a tail drop";
    with_tc(rw(addr::TARGET_US, "TARGET_US", 20, "us", H.target_us, range::TARGET_US, "tc target: PI2 target delay"), "target", &[], true, "target", TIME),
    with_tc(rw(addr::TUPDATE_US, "TUPDATE_US", 20, "us", H.tupdate_us, range::TUPDATE_US, "tc tupdate: controller interval (first update one interval after reset)"), "tupdate", &[], true, "tupdate", TIME),
    with_tc(rw(addr::ALPHA, "ALPHA", 20, "Hz x 256", H.alpha, range::GAIN, "tc alpha; internal alpha_i = floor(floor(alpha * (2^32-1) / 4) / 10^9)"), "alpha", &[], true, "alpha", HZ),
    with_tc(rw(addr::BETA, "BETA", 20, "Hz x 256", H.beta, range::GAIN, "tc beta; internal beta_i as alpha_i"), "beta", &[], true, "beta", HZ),
    with_tc(rw(addr::K, "K", 8, "", H.k, range::K, "tc coupling_factor: p_CL = k * p'"), "coupling_factor", &["k"], true, "coupling", NUMBER),
    with_tc(rw(addr::STEP_US, "STEP_US", 20, "us", H.step_us, range::STEP_US, "tc step_thresh: L packets with sojourn strictly above it are marked"), "step_thresh", &["step"], true, "step-thresh-us", TcValue::TimeUs { packets: Some("the core's step threshold is a sojourn time; it has no packet-count mode") }),
    with_tc(rw(addr::MIN_QLEN_STEP, "MIN_QLEN_STEP", 32, "packets", H.min_qlen_step, range::MIN_QLEN_STEP, "tc min_qlen_step: the step applies to L packets that found at least this many in L"), "min_qlen_step", &[], true, "min-qlen-step", PACKETS),
    with_tc(rw(addr::ECN_MASK, "ECN_MASK", 2, "", H.ecn_mask, range::ECN_MASK, "(ECN & mask) != 0 -> L: 1 ECT(1)+CE, 2 ECT(0)+CE, 3 any ECT"), "ecn_mask", &[], true, "ecn-mask", TcValue::Choice { words: &[("l4s_ect", 1, "l4s-ect"), ("any_ect", 3, "any-ect")] }),
    with_tc(rw(addr::DROP_OVERLOAD, "DROP_OVERLOAD", 1, "", H.drop_overload as u32, FLAG_RANGE, "tc drop_on_overload; off: p' capped at MAX / k at each update"), "drop_on_overload", &["drop_overload"], true, "drop-overload", TcValue::Flag { off: "overflow", show_off: true, json: Some(("drop", "overflow")) }),
    with_tc(rw(addr::LIMIT, "LIMIT", 11, "packets", H.limit, range::HW_LIMIT, "tc limit, both queues; byte limit = LIMIT * 2 * MTU"), "limit", &[], true, "limit", PACKETS),
    with_tc(rw(addr::MTU, "MTU", 11, "bytes", H.mtu, range::MTU, "MTU of the 2*MTU gate, the byte limit and the initial credit"), "mtu", &[], false, "mtu", NUMBER),
    with_tc(rw(addr::C_PROTECTION, "C_PROTECTION", 7, "%", H.c_protection, range::C_PROTECTION, "tc classic_protection: WRR weight wc (wl = 100 - wc)"), "classic_protection", &["c_protection"], true, "c-protection", TcValue::Percent),
    with_tc(rw(addr::LINK_BYTE_TIME, "LINK_BYTE_TIME", 24, "ns/byte, Q16.8", 0, BYTE_TIME_RANGE, "link model: transmission time per byte; 0 = no link model (egress paced by out_ready)"), "link", &[], false, "link", TcValue::LinkRate),
    seed_lo_reg(addr::SEED_LO, "PRNG state, low half (write: staged); steps once per packet taken off a queue head"),
    seed_hi_reg(addr::SEED_HI),
    with_tc(RegDef { addr: addr::PROB, name: "PROB", access: Access::Rw, width: 32, unit: "2^32-1 = 100 %", reset: 0, range: Some((0, MAX_PROB)), doc: "p' (write: rejected while the controller runs; no cap until the next update)", tc: None }, "prob", &[], false, "prob", TcValue::Prob { max: MAX_PROB as u64, pair: false }),
    ro(addr::PKTS_IN_L, "PKTS_IN_L", 32, "packets", "packets queued in L (tc pkts_in_l)"),
    ro(addr::PKTS_IN_C, "PKTS_IN_C", 32, "packets", "packets queued in C (tc pkts_in_c)"),
    ro(addr::SENT_PKTS_L, "SENT_PKTS_L", 32, "packets", "departures from L"),
    ro(addr::SENT_PKTS_C, "SENT_PKTS_C", 32, "packets", "departures from C"),
    ro(addr::SENT_BYTES_L_LO, "SENT_BYTES_L_LO", 40, "bytes", "departed bytes from L, low half"),
    ro(addr::SENT_BYTES_L_HI, "SENT_BYTES_L_HI", 40, "bytes", "departed bytes from L, high half"),
    ro(addr::SENT_BYTES_C_LO, "SENT_BYTES_C_LO", 40, "bytes", "departed bytes from C, low half"),
    ro(addr::SENT_BYTES_C_HI, "SENT_BYTES_C_HI", 40, "bytes", "departed bytes from C, high half"),
    ro(addr::DROPPED_ENQ_L, "DROPPED_ENQ_L", 32, "packets", "L arrivals tail-dropped (packet, byte or capacity limit)"),
    ro(addr::DROPPED_ENQ_C, "DROPPED_ENQ_C", 32, "packets", "C arrivals tail-dropped"),
    ro(addr::DROPPED_AQM_L, "DROPPED_AQM_L", 32, "packets", "L packets dropped at dequeue (coupled, overload, step)"),
    ro(addr::DROPPED_AQM_C, "DROPPED_AQM_C", 32, "packets", "C packets dropped at dequeue (p'^2)"),
    ro(addr::MARKED_L, "MARKED_L", 32, "packets", "L departures CE-marked by any rule"),
    ro(addr::MARKED_C, "MARKED_C", 32, "packets", "C departures CE-marked"),
    ro(addr::STEP_MARKS, "STEP_MARKS", 32, "packets", "of MARKED_L, those marked by the step threshold alone (tc step_marks)"),
    ro(addr::OVERLOAD, "OVERLOAD", 32, "packets", "packets judged with k * p' > 100 % (at or above the 2*MTU gate)"),
    ro(addr::BACKLOG_BYTES_L, "BACKLOG_BYTES_L", 22, "bytes", "bytes queued in L"),
    ro(addr::BACKLOG_BYTES_C, "BACKLOG_BYTES_C", 22, "bytes", "bytes queued in C"),
    ro(addr::BACKLOG_PKTS_L, "BACKLOG_PKTS_L", 10, "packets", "packets queued in L"),
    ro(addr::BACKLOG_PKTS_C, "BACKLOG_PKTS_C", 10, "packets", "packets queued in C"),
    ro(addr::MAXQ, "MAXQ", 11, "packets", "most packets both queues held together (tc maxq)"),
    ro(addr::DELAY_L, "DELAY_L", 32, "ns", "age of the L head packet now, 0 if empty (tc delay_l)"),
    ro(addr::DELAY_C, "DELAY_C", 32, "ns", "age of the C head packet now, 0 if empty (tc delay_c)"),
    ro(addr::LAST_QDELAY, "LAST_QDELAY", 32, "ns", "head-of-queue delay of the last controller update"),
    ro(addr::CREDIT, "CREDIT", 32, "bytes x %", "WRR credit, signed; L is served while <= 0 (tc credit)").reset_to(initial_credit(&H) as u32),
    ro(addr::UPDATES, "UPDATES", 32, "updates", "controller updates run since reset"),
);

/// The definition of the register at `a`, if any.
pub fn find(a: u8) -> Option<&'static RegDef> {
    DUALPI2_REGS.iter().find(|r| r.addr == a)
}

/// The definition of the register called `name` (case-insensitive), if any.
pub fn by_name(name: &str) -> Option<&'static RegDef> {
    DUALPI2_REGS
        .iter()
        .find(|r| r.name.eq_ignore_ascii_case(name))
}

/// The tc-dualpi2(8) options the core does not have.
pub const DUALPI2_TC_ABSENT: &[TcAbsent] = &[
    TcAbsent { option: "memlimit", why: "the limit is in packets: the core's byte limit is LIMIT x 2 x MTU, not a setting of its own" },
    TcAbsent { option: "drop_enqueue", why: "where the core drops is fixed: it drops and marks at dequeue, and only tail-drops at enqueue" },
    TcAbsent { option: "drop_dequeue", why: "where the core drops is fixed (at dequeue, as drop_dequeue asks), so the word sets nothing" },
    TcAbsent { option: "split_gso", why: "the core judges one descriptor per packet: it never sees a GSO aggregate to split" },
    TcAbsent { option: "no_split_gso", why: "the core judges one descriptor per packet: it never sees a GSO aggregate" },
];

/// tc-dualpi2's `max_rtt` / `typical_rtt`: target, tupdate, alpha and beta derived from the RTTs.
pub const DUALPI2_TC_GROUPS: &[TcGroup] = &[TcGroup {
    words: &["max_rtt", "typical_rtt"],
    doc: "set target, tupdate, alpha and beta as tc-dualpi2(8) derives them (RFC 9332 A.1; the one not given is the other x 6 or / 6), overriding those words on the same line",
    writes: |t| {
        let c = rtt_auto_config(t[0], t[1])?;
        Ok(vec![
            (addr::TARGET_US, c.target_us),
            (addr::TUPDATE_US, c.tupdate_us),
            (addr::ALPHA, c.alpha),
            (addr::BETA, c.beta),
        ])
    },
}];

/// What `tc -s qdisc show` prints for the DualPI2 core (the L and C queues' counters summed where tc
/// shows one number).
pub const DUALPI2_TC_STATS: TcStats = {
    use addr::*;
    const fn x(label: &'static str, json: &'static str, src: &'static [Src], form: XForm) -> XStat {
        XStat {
            label,
            json,
            src,
            form,
        }
    }
    const C: XForm = XForm::Count;
    TcStats {
        limit: LIMIT,
        options: &[
            STEP_US,
            MIN_QLEN_STEP,
            K,
            DROP_OVERLOAD,
            C_PROTECTION,
            ECN_MASK,
            LINK_BYTE_TIME,
        ],
        fixed: &[("drop_dequeue", "drop-early", "drop-dequeue")],
        bytes: &[Src::Pair(SENT_BYTES_L_LO), Src::Pair(SENT_BYTES_C_LO)],
        packets: &[Src::Reg(SENT_PKTS_L), Src::Reg(SENT_PKTS_C)],
        drops: &[
            Src::Reg(DROPPED_ENQ_L),
            Src::Reg(DROPPED_ENQ_C),
            Src::Reg(DROPPED_AQM_L),
            Src::Reg(DROPPED_AQM_C),
        ],
        overlimits: &[Src::Reg(DROPPED_ENQ_L), Src::Reg(DROPPED_ENQ_C)],
        backlog: &[Src::Reg(BACKLOG_BYTES_L), Src::Reg(BACKLOG_BYTES_C)],
        qlen: &[Src::Reg(BACKLOG_PKTS_L), Src::Reg(BACKLOG_PKTS_C)],
        xstats: &[
            &[
                x(
                    "prob",
                    "prob",
                    &[Src::Reg(PROB)],
                    XForm::Prob {
                        max: MAX_PROB as u64,
                    },
                ),
                x(
                    "delay_c",
                    "delay-c",
                    &[Src::Reg(DELAY_C)],
                    XForm::Us { ns: 1 },
                ),
                x(
                    "delay_l",
                    "delay-l",
                    &[Src::Reg(DELAY_L)],
                    XForm::Us { ns: 1 },
                ),
            ],
            &[
                x("pkts_in_c", "pkts-in-c", &[Src::Reg(PKTS_IN_C)], C),
                x("pkts_in_l", "pkts-in-l", &[Src::Reg(PKTS_IN_L)], C),
                x("maxq", "maxq", &[Src::Reg(MAXQ)], C),
            ],
            &[
                x(
                    "ecn_mark",
                    "ecn-mark",
                    &[Src::Reg(MARKED_L), Src::Reg(MARKED_C)],
                    C,
                ),
                x("step_mark", "step-mark", &[Src::Reg(STEP_MARKS)], C),
            ],
            &[x("credit", "credit", &[Src::Reg(CREDIT)], XForm::Credit)],
        ],
    }
};

/// The register map as a Markdown table, with the tc column.
pub fn markdown() -> String {
    crate::hw::regs::markdown(DUALPI2_REGS, DUALPI2_TC_ABSENT, DUALPI2_TC_GROUPS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_resets_are_the_hardware_preset() {
        let reset = |name| by_name(name).unwrap().reset;
        let h = DualPi2Params::hardware();
        let from_regs = DualPi2Params {
            target_us: reset("TARGET_US"),
            tupdate_us: reset("TUPDATE_US"),
            alpha: reset("ALPHA"),
            beta: reset("BETA"),
            k: reset("K"),
            step_us: reset("STEP_US"),
            min_qlen_step: reset("MIN_QLEN_STEP"),
            ecn_mask: reset("ECN_MASK"),
            drop_overload: reset("DROP_OVERLOAD") == 1,
            limit: reset("LIMIT"),
            mtu: reset("MTU"),
            c_protection: reset("C_PROTECTION"),
            queue_capacity: reset("CAPACITY"),
        };
        assert_eq!(from_regs, h);
        from_regs.validate_hardware().unwrap();
    }

    #[test]
    fn resets_lie_in_their_ranges_and_widths() {
        for r in DUALPI2_REGS {
            if let Some((lo, hi)) = r.range {
                assert!(lo <= r.reset && r.reset <= hi, "{}", r.name);
                assert!(
                    r.width >= 32 || (hi as u64) < 1u64 << r.width,
                    "{}: {hi} does not fit {} bits",
                    r.name,
                    r.width
                );
            }
        }
    }

    #[test]
    fn widths_hold_what_the_hardware_can_reach() {
        let max_backlog_bytes = range::HW_LIMIT.1 as u64 * 2 * range::MTU.1 as u64;
        assert!(max_backlog_bytes < 1 << by_name("BACKLOG_BYTES_L").unwrap().width);
        assert!((HW_QUEUE_CAPACITY as u64) < 1 << by_name("BACKLOG_PKTS_L").unwrap().width);
        assert!((range::HW_LIMIT.1 as u64) < 1 << by_name("MAXQ").unwrap().width);
    }

    #[test]
    fn markdown_lists_every_register() {
        let md = markdown();
        for r in DUALPI2_REGS {
            assert!(md.contains(&format!("| {} |", r.name)), "{}", r.name);
        }
        assert_eq!(
            md.lines().filter(|l| l.starts_with("| 0x")).count(),
            DUALPI2_REGS.len()
        );
        assert_eq!(find(addr::PROB).unwrap().name, "PROB");
        assert!(find(0x0F).is_none());
    }
}
