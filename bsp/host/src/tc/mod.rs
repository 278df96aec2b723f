//! tc-like words for the PIE core's registers, and counters shown the way `tc -s qdisc show` does.

use aqm_golden::pie::consts::MAX_PROB;
use aqm_golden::pie::regs::{addr, find};

/// A duration like `15ms`, `500us`, `1s`, `20000ns`, in ns.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    let (num, unit) = split_unit(s);
    let scale: f64 = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e3 * 1e3,
        "s" | "sec" => 1e9,
        _ => return Err(format!("{s:?}: expected a duration like 15ms, 500us or 1s")),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?}: expected a number before the unit"))?;
    if !(v >= 0.0 && v.is_finite()) {
        return Err(format!("{s:?}: expected a duration of at least 0"));
    }
    Ok((v * scale).round() as u64)
}

/// A rate like `20mbit`, `1gbit`, `500kbit`, `1000000bit`, in bit/s.
pub fn parse_rate_bps(s: &str) -> Result<u64, String> {
    let (num, unit) = split_unit(s);
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "bit" | "bps" => 1.0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        _ => {
            return Err(format!(
                "{s:?}: expected a rate like 20mbit, 1gbit or 500kbit"
            ))
        }
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?}: expected a number before the unit"))?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(format!("{s:?}: expected a rate above 0"));
    }
    Ok((v * scale).round() as u64)
}

fn split_unit(s: &str) -> (&str, &str) {
    let k = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    (&s[..k], &s[k..])
}

/// The LINK_BYTE_TIME register value (ns per byte, Q16.8) of a link rate.
pub fn link_byte_time(rate_bps: u64) -> u32 {
    ((8.0e9 * 256.0 / rate_bps as f64).round() as u64).min(0xFF_FFFF) as u32
}

/// Turns tc-like words into register writes (address, value), checking each against the register map.
///
/// `target 15ms tupdate 15ms alpha 2 beta 20 limit 1000 ecn noecn bytemode nobytemode mtu 1514
/// burst 150ms link 20mbit|off seed 0x1234 prob 5%|0x...`
pub fn parse_set(words: &[String]) -> Result<Vec<(u8, u32)>, String> {
    let mut out = vec![];
    let mut it = words.iter().map(String::as_str);
    while let Some(w) = it.next() {
        let mut arg = |what: &str| {
            it.next()
                .ok_or_else(|| format!("`{w}` needs a value ({what})"))
        };
        let us = |s: &str| -> Result<u32, String> {
            let ns = parse_duration_ns(s)?;
            if ns % 1000 != 0 {
                return Err(format!("{s:?}: the core takes whole microseconds"));
            }
            u32::try_from(ns / 1000).map_err(|_| format!("{s:?}: too long"))
        };
        let int = |s: &str| -> Result<u32, String> {
            s.parse::<u32>()
                .map_err(|_| format!("{s:?}: expected a whole number"))
        };
        match w {
            "target" => out.push((addr::TARGET_US, us(arg("a duration")?)?)),
            "tupdate" => out.push((addr::TUPDATE_US, us(arg("a duration")?)?)),
            "burst" => out.push((addr::MAX_BURST_US, us(arg("a duration")?)?)),
            "alpha" => out.push((addr::ALPHA, int(arg("1/16 Hz")?)?)),
            "beta" => out.push((addr::BETA, int(arg("1/16 Hz")?)?)),
            "limit" => out.push((addr::LIMIT, int(arg("packets")?)?)),
            "mtu" => out.push((addr::MTU, int(arg("bytes")?)?)),
            "ecn" => out.push((addr::ECN, 1)),
            "noecn" => out.push((addr::ECN, 0)),
            "bytemode" => out.push((addr::BYTEMODE, 1)),
            "nobytemode" => out.push((addr::BYTEMODE, 0)),
            "link" => {
                let r = arg("a rate or off")?;
                let v = if r == "off" { 0 } else { link_byte_time(parse_rate_bps(r)?) };
                out.push((addr::LINK_BYTE_TIME, v));
            }
            "seed" => {
                let s = arg("a 64-bit number")?;
                let v = parse_u64(s)?;
                out.push((addr::SEED_LO, v as u32));
                out.push((addr::SEED_HI, (v >> 32) as u32));
            }
            "prob" => {
                let s = arg("a percentage or a raw value")?;
                let v = match s.strip_suffix('%') {
                    Some(p) => {
                        let f: f64 = p.parse().map_err(|_| format!("{s:?}: expected a percentage"))?;
                        if !(0.0..=100.0).contains(&f) {
                            return Err(format!("{s:?}: expected 0% to 100%"));
                        }
                        (f / 100.0 * MAX_PROB as f64) as u64
                    }
                    None => parse_u64(s)?,
                };
                out.push((addr::PROB_LO, v as u32));
                out.push((addr::PROB_HI, (v >> 32) as u32));
            }
            other => {
                return Err(format!(
                    "unknown word {other:?}: expected target, tupdate, alpha, beta, limit, ecn, noecn, bytemode, \
                     nobytemode, mtu, burst, link, seed or prob"
                ))
            }
        }
    }
    // Check against the register map now, so that nothing is half-applied by a refusal later.
    for &(a, v) in &out {
        if let Some((lo, hi)) = find(a).and_then(|d| d.range) {
            if !(lo..=hi).contains(&v) {
                let name = find(a).map_or("?", |d| d.name);
                return Err(format!(
                    "{name} = {v} is out of range: expected {lo}..={hi}"
                ));
            }
        }
    }
    Ok(out)
}

fn parse_u64(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|_| format!("{s:?}: expected a decimal or 0x-hex number"))
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
    let ms = |us: u32| {
        if us.is_multiple_of(1000) {
            format!("{}ms", us / 1000)
        } else {
            format!("{us}us")
        }
    };
    let link = match g(addr::LINK_BYTE_TIME) {
        0 => String::new(),
        bt => format!(" link {:.3}Mbit", 8.0e9 * 256.0 / bt as f64 / 1e6),
    };
    let bytes = (g(addr::SENT_BYTES_HI) as u64) << 32 | g(addr::SENT_BYTES_LO) as u64;
    let prob = (g(addr::PROB_HI) as u64) << 32 | g(addr::PROB_LO) as u64;
    format!(
        "qdisc pie: limit {}p target {} tupdate {} alpha {} beta {}{}{}{}\n \
         Sent {} bytes {} pkt (dropped {}, overlimits {})\n \
         backlog {}b {}p\n  \
         prob {:.6} delay {}us\n  \
         pkts_in {} overlimit {} dropped {} maxq {} ecn_mark {}\n",
        g(addr::LIMIT),
        ms(g(addr::TARGET_US)),
        ms(g(addr::TUPDATE_US)),
        g(addr::ALPHA),
        g(addr::BETA),
        if g(addr::ECN) != 0 { " ecn" } else { "" },
        if g(addr::BYTEMODE) != 0 {
            " bytemode"
        } else {
            ""
        },
        link,
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
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn tc_words_become_register_writes() {
        let v = parse_set(&w(
            "target 15ms tupdate 15ms alpha 2 beta 20 limit 1000 ecn link 20mbit",
        ))
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
        assert!(parse_set(&w("alpha 40")).unwrap_err().contains("0..=32"));
        assert!(parse_set(&w("target 15")).unwrap_err().contains("duration"));
        assert!(parse_set(&w("target 1500ns"))
            .unwrap_err()
            .contains("whole microseconds"));
        assert!(parse_set(&w("limit"))
            .unwrap_err()
            .contains("needs a value"));
        assert!(parse_set(&w("fly 2")).unwrap_err().contains("unknown word"));
        assert!(parse_set(&w("link 20furlongs"))
            .unwrap_err()
            .contains("rate"));
    }
}
