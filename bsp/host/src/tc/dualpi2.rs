//! tc-like words for the DualPI2 core's registers, with `tc qdisc ... dualpi2`'s names (and the
//! simulator's short ones), and its counters like `tc -s qdisc show` shows dualpi2's.
//!
//! `target 15ms tupdate 16ms alpha 41 beta 819 coupling_factor|k 2 step_thresh|step 1ms
//! min_qlen_step 0 l4s_ect any_ect ecn_mask 1..3 drop_on_overload overflow limit 1024 mtu 1514
//! classic_protection|c_protection 10[%] link 20mbit|off seed 0x1234 prob 5%|0x...`
//!
//! Units are the registers': alpha and beta in Hz x 256 (tc's 0.16 and 3.2 are 41 and 819), durations
//! in whole microseconds; the step threshold is a time (the core has no packet-count mode).

use super::{link_text, us_text, Words};
use aqm_golden::dualpi2::consts::MAX_PROB;
use aqm_golden::dualpi2::regs::addr;

/// Appends the register writes of `word` (and its value, taken from `w`) to `out`.
pub fn word(word: &str, w: &mut Words, out: &mut Vec<(u8, u32)>) -> Result<(), String> {
    match word {
        "target" => out.push((addr::TARGET_US, w.us(word)?)),
        "tupdate" => out.push((addr::TUPDATE_US, w.us(word)?)),
        "alpha" => out.push((addr::ALPHA, w.int(word, "Hz x 256")?)),
        "beta" => out.push((addr::BETA, w.int(word, "Hz x 256")?)),
        "coupling_factor" | "k" => out.push((addr::K, w.int(word, "a factor")?)),
        "step_thresh" | "step" => out.push((addr::STEP_US, w.us(word)?)),
        "min_qlen_step" => out.push((addr::MIN_QLEN_STEP, w.int(word, "packets")?)),
        "l4s_ect" => out.push((addr::ECN_MASK, 1)),
        "any_ect" => out.push((addr::ECN_MASK, 3)),
        "ecn_mask" => out.push((addr::ECN_MASK, w.int(word, "1, 2 or 3")?)),
        "drop_on_overload" => out.push((addr::DROP_OVERLOAD, 1)),
        "overflow" => out.push((addr::DROP_OVERLOAD, 0)),
        "limit" => out.push((addr::LIMIT, w.int(word, "packets")?)),
        "mtu" => out.push((addr::MTU, w.int(word, "bytes")?)),
        "classic_protection" | "c_protection" => {
            let s = w.arg(word, "a percentage")?;
            let v = s
                .strip_suffix('%')
                .unwrap_or(s)
                .parse::<u32>()
                .map_err(|_| format!("{s:?}: expected a whole percentage"))?;
            out.push((addr::C_PROTECTION, v));
        }
        "link" => out.push((addr::LINK_BYTE_TIME, w.link(word)?)),
        "seed" => {
            let v = w.u64(word)?;
            out.push((addr::SEED_LO, v as u32));
            out.push((addr::SEED_HI, (v >> 32) as u32));
        }
        "prob" => {
            let v = w.prob(word, MAX_PROB as u64)?;
            let v = u32::try_from(v).map_err(|_| {
                format!("prob {v}: p' is 32 bits, 2^32 - 1 = 100 %")
            })?;
            out.push((addr::PROB, v));
        }
        other => {
            return Err(format!(
                "unknown word {other:?}: the DualPI2 core takes target, tupdate, alpha, beta, coupling_factor, \
                 step_thresh, min_qlen_step, l4s_ect, any_ect, ecn_mask, drop_on_overload, overflow, limit, \
                 mtu, classic_protection, link, seed or prob"
            ))
        }
    }
    Ok(())
}

/// The registers `show` reads (each _LO right before its _HI: one shadow register serves all pairs).
pub const SHOWN: &[u8] = &[
    addr::TARGET_US,
    addr::TUPDATE_US,
    addr::ALPHA,
    addr::BETA,
    addr::K,
    addr::STEP_US,
    addr::MIN_QLEN_STEP,
    addr::ECN_MASK,
    addr::DROP_OVERLOAD,
    addr::LIMIT,
    addr::MTU,
    addr::C_PROTECTION,
    addr::LINK_BYTE_TIME,
    addr::SENT_BYTES_L_LO,
    addr::SENT_BYTES_L_HI,
    addr::SENT_BYTES_C_LO,
    addr::SENT_BYTES_C_HI,
    addr::SENT_PKTS_L,
    addr::SENT_PKTS_C,
    addr::DROPPED_ENQ_L,
    addr::DROPPED_ENQ_C,
    addr::DROPPED_AQM_L,
    addr::DROPPED_AQM_C,
    addr::BACKLOG_BYTES_L,
    addr::BACKLOG_BYTES_C,
    addr::BACKLOG_PKTS_L,
    addr::BACKLOG_PKTS_C,
    addr::PROB,
    addr::DELAY_C,
    addr::DELAY_L,
    addr::PKTS_IN_C,
    addr::PKTS_IN_L,
    addr::MAXQ,
    addr::MARKED_L,
    addr::MARKED_C,
    addr::STEP_MARKS,
    addr::CREDIT,
];

/// `tc -s qdisc show`-style text from the values of [`SHOWN`], in order.
pub fn format_show(v: &[u32]) -> String {
    let g = |a: u8| v[SHOWN.iter().position(|&x| x == a).expect("shown register")];
    let pair = |lo: u8, hi: u8| (g(hi) as u64) << 32 | g(lo) as u64;
    let bytes = pair(addr::SENT_BYTES_L_LO, addr::SENT_BYTES_L_HI)
        + pair(addr::SENT_BYTES_C_LO, addr::SENT_BYTES_C_HI);
    let overlimits = g(addr::DROPPED_ENQ_L) as u64 + g(addr::DROPPED_ENQ_C) as u64;
    let dropped = overlimits + g(addr::DROPPED_AQM_L) as u64 + g(addr::DROPPED_AQM_C) as u64;
    let classify = match g(addr::ECN_MASK) {
        1 => "l4s_ect".to_string(),
        3 => "any_ect".to_string(),
        m => format!("ecn_mask {m}"),
    };
    // Two's complement; L is served while the credit is at most 0.
    let credit = g(addr::CREDIT) as i32;
    format!(
        "qdisc dualpi2: limit {}p target {} tupdate {} alpha {} beta {} {classify} coupling_factor {} {} \
         step_thresh {} min_qlen_step {} classic_protection {}% mtu {}{}\n \
         Sent {bytes} bytes {} pkt (dropped {dropped}, overlimits {overlimits})\n \
         backlog {}b {}p\n  \
         prob {:.6} delay_c {}us delay_l {}us\n  \
         pkts_in_c {} pkts_in_l {} maxq {}\n  \
         ecn_mark {} step_marks {}\n  \
         credit {credit} ({})\n",
        g(addr::LIMIT),
        us_text(g(addr::TARGET_US) as u64),
        us_text(g(addr::TUPDATE_US) as u64),
        g(addr::ALPHA),
        g(addr::BETA),
        g(addr::K),
        if g(addr::DROP_OVERLOAD) != 0 {
            "drop_on_overload"
        } else {
            "overflow"
        },
        us_text(g(addr::STEP_US) as u64),
        g(addr::MIN_QLEN_STEP),
        g(addr::C_PROTECTION),
        g(addr::MTU),
        link_text(g(addr::LINK_BYTE_TIME)),
        g(addr::SENT_PKTS_L) as u64 + g(addr::SENT_PKTS_C) as u64,
        g(addr::BACKLOG_BYTES_L) as u64 + g(addr::BACKLOG_BYTES_C) as u64,
        g(addr::BACKLOG_PKTS_L) as u64 + g(addr::BACKLOG_PKTS_C) as u64,
        g(addr::PROB) as f64 / MAX_PROB as f64,
        g(addr::DELAY_C) / 1000,
        g(addr::DELAY_L) / 1000,
        g(addr::PKTS_IN_C),
        g(addr::PKTS_IN_L),
        g(addr::MAXQ),
        g(addr::MARKED_L) as u64 + g(addr::MARKED_C) as u64,
        g(addr::STEP_MARKS),
        if credit > 0 { 'C' } else { 'L' },
    )
}

#[cfg(test)]
mod tests {
    use super::super::{parse_set, w};
    use super::*;
    use crate::board_core::BoardCore::DualPi2;

    #[test]
    fn tc_words_become_register_writes() {
        let v = parse_set(
            DualPi2,
            &w(
                "target 10ms tupdate 16ms alpha 41 beta 819 coupling_factor 2 step_thresh 1ms \
                min_qlen_step 0 any_ect overflow limit 1024 mtu 1500 classic_protection 10% \
                link 40mbit prob 50%",
            ),
        )
        .unwrap();
        assert_eq!(
            v,
            vec![
                (addr::TARGET_US, 10_000),
                (addr::TUPDATE_US, 16_000),
                (addr::ALPHA, 41),
                (addr::BETA, 819),
                (addr::K, 2),
                (addr::STEP_US, 1_000),
                (addr::MIN_QLEN_STEP, 0),
                (addr::ECN_MASK, 3),
                (addr::DROP_OVERLOAD, 0),
                (addr::LIMIT, 1024),
                (addr::MTU, 1500),
                (addr::C_PROTECTION, 10),
                (addr::LINK_BYTE_TIME, 200 << 8),
                (addr::PROB, u32::MAX / 2),
            ]
        );
        assert_eq!(
            parse_set(DualPi2, &w("k 4 step 2ms c_protection 30 l4s_ect")).unwrap(),
            vec![
                (addr::K, 4),
                (addr::STEP_US, 2_000),
                (addr::C_PROTECTION, 30),
                (addr::ECN_MASK, 1)
            ]
        );
    }

    #[test]
    fn the_hardware_limits_and_bad_words_are_refused_with_what_was_expected() {
        let err = |s: &str| parse_set(DualPi2, &w(s)).unwrap_err();
        // Two queues of 512 descriptors: at most 1024 packets.
        assert!(err("limit 1025").contains("LIMIT = 1025 is out of range: expected 1..=1024"));
        assert!(err("coupling_factor 0").contains("1..=255"));
        assert!(err("ecn_mask 4").contains("1..=3"));
        assert!(err("classic_protection 101%").contains("0..=100"));
        assert!(err("step_thresh 5").contains("duration"));
        assert!(err("prob 0x100000000").contains("32 bits"));
        // A PIE word on the DualPI2 core.
        assert!(err("ecn").contains("the DualPI2 core takes"));
    }

    #[test]
    fn show_reads_like_tc() {
        let mut v = vec![0u32; SHOWN.len()];
        let mut set = |a: u8, x: u32| v[SHOWN.iter().position(|&s| s == a).unwrap()] = x;
        set(addr::LIMIT, 1024);
        set(addr::TARGET_US, 15_000);
        set(addr::TUPDATE_US, 16_000);
        set(addr::ECN_MASK, 1);
        set(addr::DROP_OVERLOAD, 1);
        set(addr::SENT_BYTES_L_LO, 1000);
        set(addr::SENT_BYTES_C_HI, 1);
        set(addr::SENT_PKTS_L, 3);
        set(addr::SENT_PKTS_C, 4);
        set(addr::DROPPED_ENQ_C, 2);
        set(addr::DROPPED_AQM_L, 5);
        set(addr::PROB, u32::MAX / 4);
        set(addr::DELAY_L, 2_500_000);
        set(addr::CREDIT, -150i32 as u32);
        let s = format_show(&v);
        assert!(s.contains("limit 1024p target 15ms tupdate 16ms"), "{s}");
        assert!(
            s.contains("l4s_ect") && s.contains("drop_on_overload"),
            "{s}"
        );
        assert!(
            s.contains("Sent 4294968296 bytes 7 pkt (dropped 7, overlimits 2)"),
            "{s}"
        );
        assert!(
            s.contains("prob 0.250000 delay_c 0us delay_l 2500us"),
            "{s}"
        );
        assert!(s.contains("credit -150 (L)"), "{s}");
    }
}
