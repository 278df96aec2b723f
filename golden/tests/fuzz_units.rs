//! Fuzzing the tc unit parser (durations, rates, sizes, percentages), which the host tool and the
//! simulator both read: arbitrary text and valid quantities mutated. Never a panic; an error says what
//! it was reading, quotes the text and points at a byte inside it.

#[path = "support/fuzz.rs"]
mod fuzz;

use aqm_golden::units::{
    format_duration, format_rate, parse_duration_ns, parse_percent, parse_rate_bps,
    parse_size_bytes, UnitError,
};
use fuzz::*;
use proptest::prelude::*;

const VALID: &[&str] = &[
    "15ms", "1.5s", "250usecs", "100ns", "10MS", "20 ms", "1000", "20mbit", "2.5Gbit", "64000bit",
    "1mbps", "1kibit", "1mibps", "1514b", "1kb", "2m", "64kbit", "10%", "2.5%", "100", " 7 sec ",
];

const INSERTS: &[&[u8]] = &[
    b".",
    b" ",
    b"%",
    b"e9",
    b"-",
    b"99999999999999999999",
    b"ms",
    b"bit",
    b"\xc3\xa9",
];

fn check_error(what: &str, text: &str, e: &UnitError) -> Result<(), TestCaseError> {
    prop_assert!(e.at <= text.len(), "{what}: at {} in {text:?}", e.at);
    prop_assert!(
        text.is_char_boundary(e.at),
        "{what}: at {} in {text:?}",
        e.at
    );
    prop_assert_eq!(&e.text, text);
    let m = e.to_string();
    prop_assert!(
        m.contains(&format!("at byte {}", e.at)) && m.contains(&format!("{text:?}")),
        "{what}: {m}"
    );
    Ok(())
}

fn check(text: &str) -> Result<(), TestCaseError> {
    if let Err(e) = parse_duration_ns(text) {
        check_error("duration", text, &e)?;
    }
    if let Err(e) = parse_rate_bps(text) {
        check_error("rate", text, &e)?;
    }
    if let Err(e) = parse_size_bytes(text) {
        check_error("size", text, &e)?;
    }
    match parse_percent(text) {
        Err(e) => check_error("percentage", text, &e)?,
        Ok(p) => prop_assert!((0.0..=100.0).contains(&p), "{text:?} -> {p}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn arbitrary_text_is_a_quantity_or_an_error_pointing_into_it(text in arbitrary_text(24)) {
        check(&text)?;
    }

    #[test]
    fn valid_quantities_mutated(base in prop::sample::select(VALID), edits in byte_edits(4, INSERTS)) {
        check(&apply_text(base, &edits))?;
    }

    #[test]
    fn printed_quantities_parse_back(ns in 0u64..(1 << 62), bps in 0u64..1_000_000_000_000_000) {
        prop_assert_eq!(parse_duration_ns(&format_duration(ns)), Ok(ns));
        prop_assert_eq!(parse_rate_bps(&format_rate(bps)), Ok(bps));
    }
}

/// Found by `printed_quantities_parse_back`: a whole number went through f64 and came back rounded
/// beyond 2^53 (`40266997139500977ns` read as ...976).
#[test]
fn whole_numbers_beyond_2_pow_53_are_exact() {
    assert_eq!(
        parse_duration_ns("40266997139500977ns"),
        Ok(40_266_997_139_500_977)
    );
    assert_eq!(
        parse_size_bytes("9007199254740993b"),
        Ok(9_007_199_254_740_993)
    );
    assert_eq!(parse_duration_ns("9223372036854775807ns"), Ok(u64::MAX / 2));
    let e = parse_duration_ns(" 9223372036854775808ns").unwrap_err();
    assert!(e.to_string().contains("too large") && e.at == 1, "{e}");
}
