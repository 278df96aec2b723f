//! tc's words for a core's registers, and its counters shown the way `tc -s qdisc show` (and
//! `tc -s -j qdisc show`) does. Everything comes from the core's golden description: each parameter
//! register's tc option ([`aqm_golden::hw::regs::Tc`]: word, value syntax and unit, conversion), the tc
//! options the hardware lacks with the reason, the options that set several registers (DualPI2's
//! `max_rtt` / `typical_rtt`) and what `tc -s` prints ([`aqm_golden::hw::regs::TcStats`]).

use crate::board_core::Core;
use aqm_golden::hw::regs::{find_word, TcValue};
use aqm_golden::units::parse_duration_ns;

pub use aqm_golden::hw::regs::link_byte_time;

/// Every word `core` takes, for messages.
fn known_words(core: Core) -> String {
    let mut words = vec![];
    for d in core.regs() {
        let Some(tc) = &d.tc else { continue };
        words.push(tc.word);
        match tc.value {
            TcValue::Flag { off, .. } => words.push(off),
            TcValue::Choice { words: cs } => words.extend(cs.iter().map(|c| c.0)),
            _ => {}
        }
    }
    for g in core.tc_groups() {
        words.extend(g.words);
    }
    words.join(", ")
}

/// `v` at register `a` within the register's range, or an error naming the word, the register and the
/// range.
fn in_range(core: Core, word: &str, a: u8, v: u32) -> Result<(), String> {
    match core.register(a) {
        Some(d) => match d.range {
            Some((lo, hi)) if !(lo..=hi).contains(&v) => Err(format!(
                "{word}: {} = {v} is out of range: expected {lo}..={hi}",
                d.name
            )),
            _ => Ok(()),
        },
        None => Err(format!("{word}: register 0x{a:02X} is not in the map")),
    }
}

/// Turns tc words (`target 15ms limit 1000 ecn`, as tc-pie(8) and tc-dualpi2(8) spell them) into
/// register writes (address, value) of `core`, each checked against its register's range, so that
/// nothing is half-applied by a refusal later. An option the hardware does not have is refused with
/// the reason.
pub fn parse_set(core: Core, words: &[String]) -> Result<Vec<(u8, u32)>, String> {
    let regs = core.regs();
    let groups = core.tc_groups();
    let mut group_times: Vec<Vec<Option<u64>>> =
        groups.iter().map(|g| vec![None; g.words.len()]).collect();
    let mut out: Vec<(u8, u32)> = vec![];
    let mut it = words.iter().map(String::as_str);
    while let Some(word) = it.next() {
        if let Some(a) = core.tc_absent().iter().find(|a| a.option == word) {
            return Err(format!(
                "{word}: the {} core does not have this tc option: {}",
                core.title(),
                a.why
            ));
        }
        let in_group = groups
            .iter()
            .enumerate()
            .find_map(|(gi, g)| g.words.iter().position(|w| *w == word).map(|wi| (gi, wi)));
        if let Some((gi, wi)) = in_group {
            let s = it
                .next()
                .ok_or_else(|| format!("`{word}` needs a value (TIME)"))?;
            let ns = parse_duration_ns(s).map_err(|e| format!("{word}: {e}"))?;
            group_times[gi][wi] = Some(ns);
            continue;
        }
        let (d, how) = find_word(regs, word).ok_or_else(|| {
            format!(
                "unknown word {word:?}: the {} core takes {}",
                core.title(),
                known_words(core)
            )
        })?;
        let tc =
            d.tc.as_ref()
                .expect("find_word finds registers with a tc option");
        let value = if tc.takes_value(how) {
            Some(
                it.next()
                    .ok_or_else(|| format!("`{word}` needs a value ({})", tc.syntax()))?,
            )
        } else {
            None
        };
        let writes = tc.writes(d, how, value)?;
        for &(a, v) in &writes {
            let said = value.map_or(word.to_string(), |s| format!("{word} {s}"));
            in_range(core, &said, a, v)?;
        }
        out.extend(writes);
    }
    // Options that set several registers override the same registers set by other words, as in tc.
    for (g, times) in groups.iter().zip(&group_times) {
        if times.iter().all(Option::is_none) {
            continue;
        }
        let writes = (g.writes)(times)?;
        out.retain(|w| !writes.iter().any(|x| x.0 == w.0));
        for &(a, v) in &writes {
            in_range(core, &g.words.join("/"), a, v)?;
        }
        out.extend(writes);
    }
    Ok(out)
}

/// The registers `show` reads, in order (each _LO right before its _HI: one shadow register serves all
/// pairs).
pub fn shown(core: Core) -> Vec<u8> {
    core.tc_stats().addresses(core.regs())
}

/// The value read at `a`, from the values of [`shown`] in order (0 for a register not read).
fn value_of<'a>(core: Core, v: &'a [u32]) -> impl Fn(u8) -> u32 + 'a {
    let addrs = shown(core);
    move |a| {
        addrs
            .iter()
            .position(|&x| x == a)
            .and_then(|k| v.get(k))
            .copied()
            .unwrap_or(0)
    }
}

/// `tc -s qdisc show`-style text from the values of [`shown`], in order.
pub fn format_show(core: Core, v: &[u32]) -> String {
    core.tc_stats()
        .text(core.name(), core.regs(), &value_of(core, v))
}

/// `tc -s -j qdisc show`-style JSON from the values of [`shown`], in order.
pub fn format_json(core: Core, v: &[u32]) -> String {
    core.tc_stats()
        .json(core.name(), core.regs(), &value_of(core, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_golden::dualpi2::kind::DUALPI2_CORE;
    use aqm_golden::dualpi2::regs::addr as d;
    use aqm_golden::pie::kind::PIE_CORE;
    use aqm_golden::pie::regs::addr as p;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn pie_tc_words_become_register_writes() {
        let v = parse_set(
            &PIE_CORE,
            &w("target 15ms tupdate 16ms alpha 2 beta 20 limit 1000 ecn nobytemode link 20mbit"),
        )
        .unwrap();
        assert_eq!(
            v,
            vec![
                (p::TARGET_US, 15_000),
                (p::TUPDATE_US, 16_000),
                (p::ALPHA, 2),
                (p::BETA, 20),
                (p::LIMIT, 1000),
                (p::ECN, 1),
                (p::BYTEMODE, 0),
                (p::LINK_BYTE_TIME, 400 << 8),
            ]
        );
        // tc(8): mbps is megabytes per second, 8 Mbit/s; a bare time is microseconds.
        assert_eq!(
            parse_set(&PIE_CORE, &w("link 2.5mbps target 1500 limit 100p")).unwrap(),
            vec![
                (p::LINK_BYTE_TIME, 400 << 8),
                (p::TARGET_US, 1500),
                (p::LIMIT, 100)
            ]
        );
    }

    #[test]
    fn pie_bad_words_are_refused_with_what_was_expected() {
        let err = |s: &str| parse_set(&PIE_CORE, &w(s)).unwrap_err();
        assert!(err("alpha 40").contains("ALPHA = 40 is out of range: expected 0..=32"));
        assert!(err("target 15furlongs").contains("invalid duration"));
        assert!(err("target 1500ns").contains("whole microseconds"));
        assert!(err("limit").contains("needs a value"));
        assert!(err("fly 2").contains("unknown word"));
        assert!(err("link 20furlongs").contains("rate"));
        assert!(err("coupling_factor 2").contains("the PIE core takes"));
        let e = err("dq_rate_estimator");
        assert!(e.contains("does not have") && e.contains("sojourn"), "{e}");
    }

    #[test]
    fn dualpi2_tc_words_become_register_writes() {
        let v = parse_set(
            &DUALPI2_CORE,
            &w(
                "target 10ms tupdate 16ms alpha 0.16 beta 3.2 coupling_factor 2 step_thresh 1ms \
                min_qlen_step 0 any_ect overflow limit 1024 mtu 1500 classic_protection 10% \
                link 40mbit prob 50%",
            ),
        )
        .unwrap();
        assert_eq!(
            v,
            vec![
                (d::TARGET_US, 10_000),
                (d::TUPDATE_US, 16_000),
                (d::ALPHA, 41),
                (d::BETA, 819),
                (d::K, 2),
                (d::STEP_US, 1_000),
                (d::MIN_QLEN_STEP, 0),
                (d::ECN_MASK, 3),
                (d::DROP_OVERLOAD, 0),
                (d::LIMIT, 1024),
                (d::MTU, 1500),
                (d::C_PROTECTION, 10),
                (d::LINK_BYTE_TIME, 200 << 8),
                (d::PROB, u32::MAX / 2),
            ]
        );
        // The simulator's short names too.
        assert_eq!(
            parse_set(&DUALPI2_CORE, &w("k 4 step 2ms c_protection 30 l4s_ect")).unwrap(),
            vec![
                (d::K, 4),
                (d::STEP_US, 2_000),
                (d::C_PROTECTION, 30),
                (d::ECN_MASK, 1)
            ]
        );
    }

    #[test]
    fn max_rtt_and_typical_rtt_configure_the_gains_and_override_them() {
        // Hand-computed (tc-dualpi2(8), RFC 9332 A.1): target 15 ms, tupdate min(15, 100/3) = 15 ms,
        // alpha 0.1 * 0.015 / 0.1^2 = 0.15 Hz = 38.4 / 256, beta 0.3 / 0.1 = 3 Hz = 768 / 256.
        let v = parse_set(
            &DUALPI2_CORE,
            &w("alpha 1 max_rtt 100ms limit 100 typical_rtt 15ms target 5ms"),
        )
        .unwrap();
        assert_eq!(
            v,
            vec![
                (d::LIMIT, 100),
                (d::TARGET_US, 15_000),
                (d::TUPDATE_US, 15_000),
                (d::ALPHA, 38),
                (d::BETA, 768),
            ]
        );
        // max_rtt alone: typical = 30 / 6 = 5 ms; alpha = 0.1 * 0.005 / 0.03^2 = 0.5556 Hz = 142.2.
        assert_eq!(
            parse_set(&DUALPI2_CORE, &w("max_rtt 30ms")).unwrap(),
            vec![
                (d::TARGET_US, 5_000),
                (d::TUPDATE_US, 5_000),
                (d::ALPHA, 142),
                (d::BETA, 2560)
            ]
        );
        let e = parse_set(&DUALPI2_CORE, &w("max_rtt 10ms typical_rtt 20ms")).unwrap_err();
        assert!(e.contains("at most max_rtt"), "{e}");
    }

    #[test]
    fn dualpi2_limits_and_missing_options_are_refused_with_the_reason() {
        let err = |s: &str| parse_set(&DUALPI2_CORE, &w(s)).unwrap_err();
        // Two queues of 512 descriptors: at most 1024 packets.
        assert!(err("limit 1025").contains("LIMIT = 1025 is out of range: expected 1..=1024"));
        assert!(err("coupling_factor 0").contains("K = 0"));
        assert!(err("ecn_mask 4").contains("1..=3"));
        assert!(err("classic_protection 101%").contains("above 100"));
        assert!(err("alpha 5000").contains("ALPHA = 1280000"));
        let e = err("step_thresh 5p");
        assert!(e.contains("packet-count mode"), "{e}");
        assert!(err("prob 0x100000000").contains("32 bits"));
        for (option, why) in [
            ("memlimit 1mb", "in packets"),
            ("drop_enqueue", "where the core drops is fixed"),
            ("drop_dequeue", "where the core drops is fixed"),
            ("split_gso", "GSO"),
        ] {
            let e = err(option);
            let word = option.split(' ').next().unwrap();
            assert!(e.starts_with(word) && e.contains(why), "{e}");
        }
        assert!(err("ecn").contains("the DualPI2 core takes"));
    }

    fn values(core: Core, set: &[(u8, u32)]) -> Vec<u32> {
        let addrs = shown(core);
        let mut v = vec![0u32; addrs.len()];
        for &(a, x) in set {
            v[addrs.iter().position(|&s| s == a).unwrap()] = x;
        }
        v
    }

    #[test]
    fn dualpi2_show_reads_like_tc() {
        let v = values(
            &DUALPI2_CORE,
            &[
                (d::LIMIT, 1024),
                (d::TARGET_US, 15_000),
                (d::TUPDATE_US, 16_000),
                (d::ALPHA, 41),
                (d::BETA, 819),
                (d::K, 2),
                (d::STEP_US, 1000),
                (d::ECN_MASK, 1),
                (d::DROP_OVERLOAD, 1),
                (d::C_PROTECTION, 10),
                (d::SENT_BYTES_L_LO, 1000),
                (d::SENT_BYTES_C_HI, 1),
                (d::SENT_PKTS_L, 3),
                (d::SENT_PKTS_C, 4),
                (d::DROPPED_ENQ_C, 2),
                (d::DROPPED_AQM_L, 5),
                (d::PROB, u32::MAX / 4),
                (d::DELAY_L, 2_500_000),
                (d::CREDIT, -150i32 as u32),
            ],
        );
        let s = format_show(&DUALPI2_CORE, &v);
        assert!(
            s.starts_with(
                "qdisc dualpi2: limit 1024p target 15ms tupdate 16ms alpha 0.16 beta 3.20 \
                 step_thresh 1ms min_qlen_step 0p coupling_factor 2 drop_on_overload \
                 classic_protection 10% l4s_ect drop_dequeue\n"
            ),
            "{s}"
        );
        assert!(
            s.contains(" Sent 4294968296 bytes 7 pkt (dropped 7, overlimits 2 requeues 0)"),
            "{s}"
        );
        assert!(
            s.contains("  prob 0.250000 delay_c 0us delay_l 2500us\n"),
            "{s}"
        );
        assert!(s.contains("  credit -150 (L-queue)\n"), "{s}");
        let j = format_json(&DUALPI2_CORE, &v);
        for field in [
            "\"kind\":\"dualpi2\"",
            "\"limit\":1024",
            "\"target\":15000",
            "\"alpha\":0.16015625",
            "\"coupling\":2",
            "\"step-thresh-us\":1000",
            "\"drop-overload\":\"drop\"",
            "\"ecn-mask\":\"l4s-ect\"",
            "\"c-protection\":10",
            "\"drop-early\":\"drop-dequeue\"",
            "\"bytes\":4294968296",
            "\"drops\":7",
            "\"delay-l\":2500",
            "\"step-mark\":0",
            "\"credit\":-150",
        ] {
            assert!(j.contains(field), "{field} in {j}");
        }
        assert!(!j.contains("\"link\""), "{j}");
    }

    #[test]
    fn pie_show_reads_like_tc() {
        let v = values(
            &PIE_CORE,
            &[
                (p::LIMIT, 100),
                (p::TARGET_US, 20_000),
                (p::TUPDATE_US, 30_000),
                (p::ALPHA, 2),
                (p::BETA, 20),
                (p::ECN, 1),
                (p::QDELAY, 1000),
                (p::SENT_PKTS, 9),
                (p::PKTS_IN, 12),
            ],
        );
        let s = format_show(&PIE_CORE, &v);
        assert!(
            s.starts_with("qdisc pie: limit 100p target 20ms tupdate 30ms alpha 2 beta 20 ecn\n"),
            "{s}"
        );
        assert!(s.contains("  prob 0.000000 delay 64us\n"), "{s}");
        assert!(
            s.contains("  pkts_in 12 overlimit 0 dropped 0 maxq 0 ecn_mark 0\n"),
            "{s}"
        );
        let j = format_json(&PIE_CORE, &v);
        assert!(
            j.starts_with("[{\"kind\":\"pie\",\"options\":{\"limit\":100,\"target\":20000,\"tupdate\":30000,\"alpha\":2,\"beta\":20,\"ecn\":true,\"bytemode\":false}"),
            "{j}"
        );
        assert!(
            j.contains("\"packets\":9")
                && j.contains("\"pkts_in\":12")
                && j.contains("\"delay\":64"),
            "{j}"
        );
    }
}
