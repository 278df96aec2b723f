//! tc-like words for the PIE core's registers, and its counters like `tc -s qdisc show` shows pie's.
//!
//! `target 15ms tupdate 15ms alpha 2 beta 20 limit 1000 ecn noecn bytemode nobytemode mtu 1514
//! burst 150ms link 20mbit|off seed 0x1234 prob 5%|0x...`

use super::{link_text, us_text, Words};
use aqm_golden::pie::consts::MAX_PROB;
use aqm_golden::pie::regs::addr;

/// Appends the register writes of `word` (and its value, taken from `w`) to `out`.
pub fn word(word: &str, w: &mut Words, out: &mut Vec<(u8, u32)>) -> Result<(), String> {
    match word {
        "target" => out.push((addr::TARGET_US, w.us(word)?)),
        "tupdate" => out.push((addr::TUPDATE_US, w.us(word)?)),
        "burst" => out.push((addr::MAX_BURST_US, w.us(word)?)),
        "alpha" => out.push((addr::ALPHA, w.int(word, "1/16 Hz")?)),
        "beta" => out.push((addr::BETA, w.int(word, "1/16 Hz")?)),
        "limit" => out.push((addr::LIMIT, w.int(word, "packets")?)),
        "mtu" => out.push((addr::MTU, w.int(word, "bytes")?)),
        "ecn" => out.push((addr::ECN, 1)),
        "noecn" => out.push((addr::ECN, 0)),
        "bytemode" => out.push((addr::BYTEMODE, 1)),
        "nobytemode" => out.push((addr::BYTEMODE, 0)),
        "link" => out.push((addr::LINK_BYTE_TIME, w.link(word)?)),
        "seed" => {
            let v = w.u64(word)?;
            out.push((addr::SEED_LO, v as u32));
            out.push((addr::SEED_HI, (v >> 32) as u32));
        }
        "prob" => {
            let v = w.prob(word, MAX_PROB)?;
            out.push((addr::PROB_LO, v as u32));
            out.push((addr::PROB_HI, (v >> 32) as u32));
        }
        other => {
            return Err(format!(
                "unknown word {other:?}: the PIE core takes target, tupdate, alpha, beta, limit, ecn, noecn, \
                 bytemode, nobytemode, mtu, burst, link, seed or prob"
            ))
        }
    }
    Ok(())
}

/// The registers `show` reads.
pub const SHOWN: &[u8] = &[
    addr::TARGET_US,
    addr::TUPDATE_US,
    addr::ALPHA,
    addr::BETA,
    addr::LIMIT,
    addr::ECN,
    addr::BYTEMODE,
    addr::MTU,
    addr::LINK_BYTE_TIME,
    addr::SENT_BYTES_LO,
    addr::SENT_BYTES_HI,
    addr::SENT_PKTS,
    addr::DROPPED,
    addr::OVERLIMIT,
    addr::BACKLOG_BYTES,
    addr::BACKLOG_PKTS,
    addr::PROB_LO,
    addr::PROB_HI,
    addr::QDELAY,
    addr::PKTS_IN,
    addr::MAXQ,
    addr::ECN_MARK,
];

/// `tc -s qdisc show`-style text from the values of [`SHOWN`], in order.
pub fn format_show(v: &[u32]) -> String {
    let g = |a: u8| v[SHOWN.iter().position(|&x| x == a).expect("shown register")];
    let bytes = (g(addr::SENT_BYTES_HI) as u64) << 32 | g(addr::SENT_BYTES_LO) as u64;
    let prob = (g(addr::PROB_HI) as u64) << 32 | g(addr::PROB_LO) as u64;
    format!(
        "qdisc pie: limit {}p target {} tupdate {} alpha {} beta {}{}{}{}\n \
         Sent {} bytes {} pkt (dropped {}, overlimits {})\n \
         backlog {}b {}p\n  \
         prob {:.6} delay {}us\n  \
         pkts_in {} overlimit {} dropped {} maxq {} ecn_mark {}\n",
        g(addr::LIMIT),
        us_text(g(addr::TARGET_US) as u64),
        us_text(g(addr::TUPDATE_US) as u64),
        g(addr::ALPHA),
        g(addr::BETA),
        if g(addr::ECN) != 0 { " ecn" } else { "" },
        if g(addr::BYTEMODE) != 0 {
            " bytemode"
        } else {
            ""
        },
        link_text(g(addr::LINK_BYTE_TIME)),
        bytes,
        g(addr::SENT_PKTS),
        g(addr::DROPPED),
        g(addr::OVERLIMIT),
        g(addr::BACKLOG_BYTES),
        g(addr::BACKLOG_PKTS),
        prob as f64 / MAX_PROB as f64,
        (g(addr::QDELAY) as u64 * 64) / 1000,
        g(addr::PKTS_IN),
        g(addr::OVERLIMIT),
        g(addr::DROPPED),
        g(addr::MAXQ),
        g(addr::ECN_MARK),
    )
}

#[cfg(test)]
mod tests {
    use super::super::{parse_set, w};
    use super::*;
    use crate::board_core::BoardCore::Pie;

    #[test]
    fn tc_words_become_register_writes() {
        let v = parse_set(
            Pie,
            &w("target 15ms tupdate 15ms alpha 2 beta 20 limit 1000 ecn link 20mbit"),
        )
        .unwrap();
        assert_eq!(
            v,
            vec![
                (addr::TARGET_US, 15_000),
                (addr::TUPDATE_US, 15_000),
                (addr::ALPHA, 2),
                (addr::BETA, 20),
                (addr::LIMIT, 1000),
                (addr::ECN, 1),
                (addr::LINK_BYTE_TIME, 400 << 8),
            ]
        );
    }

    #[test]
    fn bad_words_are_refused_with_what_was_expected() {
        let err = |s: &str| parse_set(Pie, &w(s)).unwrap_err();
        assert!(err("alpha 40").contains("0..=32"));
        assert!(err("target 15").contains("duration"));
        assert!(err("target 1500ns").contains("whole microseconds"));
        assert!(err("limit").contains("needs a value"));
        assert!(err("fly 2").contains("unknown word"));
        assert!(err("link 20furlongs").contains("rate"));
        // A DualPI2 word on the PIE core.
        assert!(err("coupling_factor 2").contains("the PIE core takes"));
    }
}
