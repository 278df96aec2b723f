//! Durations, rates, sizes and percentages as tc(8) writes them, parsed once for the host tool and the
//! network simulator.
//!
//! The grammar is tc's: a decimal number, then a unit, case-insensitive (spaces between them are
//! allowed). The units are tc(8)'s:
//!
//! - times: `s`, `sec`, `secs`; `ms`, `msec`, `msecs`; `us`, `usec`, `usecs`; `ns`, `nsec`, `nsecs`; a
//!   bare number is microseconds, as tc reads it.
//! - rates: `bit` (or a bare number), `kbit`, `mbit`, `gbit`, `tbit` in bits per second; `bps`, `kbps`,
//!   `mbps`, `gbps`, `tbps` in **bytes** per second (`mbps` is 8 Mbit/s, as tc(8) and tc-pie(8) say);
//!   IEC prefixes (`kibit`, `mibit`, ..., `kibps`, `mibps`, ...) are powers of 1024.
//! - sizes: `b` (or a bare number), `k`/`kb`, `m`/`mb`, `g`/`gb` in bytes, `kbit`, `mbit`, `gbit` in
//!   bits; the multiples are powers of 1024, as tc's `get_size` takes them.
//! - percentages: `10%` or a bare `10`.
//!
//! An error says what was being read, the text, where in it the parse stopped, and what was expected.

use std::fmt;

/// What kind of quantity a text was read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    Duration,
    Rate,
    Size,
    Percent,
}

impl Quantity {
    fn name(self) -> &'static str {
        match self {
            Quantity::Duration => "duration",
            Quantity::Rate => "rate",
            Quantity::Size => "size",
            Quantity::Percent => "percentage",
        }
    }

    /// What a valid text of this quantity looks like.
    fn expected(self) -> &'static str {
        match self {
            Quantity::Duration => {
                "a number with a time unit (s, ms, us, ns; a bare number is us), like 15ms or 1.5s"
            }
            Quantity::Rate => {
                "a number with a rate unit (bit, kbit, mbit, gbit, tbit in bit/s; bps, kbps, mbps, gbps, \
                 tbps in bytes/s), like 20Mbit or 2.5Gbit"
            }
            Quantity::Size => {
                "a number with a size unit (b, kb, mb, gb in bytes; kbit, mbit, gbit in bits), like 1514b \
                 or 1kb"
            }
            Quantity::Percent => "a number from 0 to 100, with or without %, like 10%",
        }
    }
}

/// A text that is not a valid quantity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitError {
    /// What was being read.
    pub quantity: Quantity,
    /// The text as given.
    pub text: String,
    /// Byte offset in `text` where the parse stopped.
    pub at: usize,
    /// What is wrong there.
    pub problem: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} {:?}: {} at byte {}; expected {}",
            self.quantity.name(),
            self.text,
            self.problem,
            self.at,
            self.quantity.expected()
        )
    }
}

impl std::error::Error for UnitError {}

/// A number and the unit after it: `"12.5ms"` is (12.5, "ms", offset of the unit).
struct Split<'a> {
    value: f64,
    /// The number as written, and its offset.
    digits: &'a str,
    at: usize,
    unit: &'a str,
    unit_at: usize,
}

fn split(q: Quantity, text: &str) -> Result<Split<'_>, UnitError> {
    let err = |at: usize, problem: String| UnitError {
        quantity: q,
        text: text.to_string(),
        at,
        problem,
    };
    let start = text.len() - text.trim_start().len();
    let body = text.trim();
    let digits = body
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(body.len());
    if digits == 0 {
        let found = body
            .chars()
            .next()
            .map_or("nothing".to_string(), |c| format!("{c:?}"));
        return Err(err(start, format!("found {found} where a number starts")));
    }
    let value: f64 = body[..digits]
        .parse()
        .map_err(|_| err(start, format!("{:?} is not a number", &body[..digits])))?;
    let rest = &body[digits..];
    let unit = rest.trim_start();
    Ok(Split {
        value,
        digits: &body[..digits],
        at: start,
        unit,
        unit_at: start + digits + (rest.len() - unit.len()),
    })
}

/// The scale of `unit` in `table` (case-insensitive); `""` is the bare number's scale.
fn scale(q: Quantity, text: &str, s: &Split, table: &[(&[&str], f64)]) -> Result<f64, UnitError> {
    let unit = s.unit.to_ascii_lowercase();
    table
        .iter()
        .find(|(names, _)| names.contains(&unit.as_str()))
        .map(|&(_, k)| k)
        .ok_or_else(|| UnitError {
            quantity: q,
            text: text.to_string(),
            at: s.unit_at,
            problem: format!("unknown unit {:?}", s.unit),
        })
}

/// The number times `scale`, rounded, within `max`: exact for a whole number and a whole scale (f64
/// would round numbers above 2^53), else in f64.
fn scaled(q: Quantity, text: &str, s: &Split, scale: f64, max: u64) -> Result<u64, UnitError> {
    let too_large = || UnitError {
        quantity: q,
        text: text.to_string(),
        at: s.at,
        problem: format!("too large (at most {max} in the base unit)"),
    };
    if !s.digits.contains('.') && scale.fract() == 0.0 {
        return s
            .digits
            .parse::<u128>()
            .ok()
            .and_then(|n| n.checked_mul(scale as u128))
            .filter(|&v| v <= max as u128)
            .map(|v| v as u64)
            .ok_or_else(too_large);
    }
    let v = (s.value * scale).round();
    if !(v.is_finite() && v as u64 <= max) {
        return Err(too_large());
    }
    Ok(v as u64)
}

const TIME_UNITS: &[(&[&str], f64)] = &[
    (&["s", "sec", "secs"], 1e9),
    (&["ms", "msec", "msecs"], 1e6),
    (&["us", "usec", "usecs", ""], 1e3),
    (&["ns", "nsec", "nsecs"], 1.0),
];

const K: f64 = 1024.0;

const RATE_UNITS: &[(&[&str], f64)] = &[
    (&["bit", ""], 1.0),
    (&["kbit"], 1e3),
    (&["mbit"], 1e6),
    (&["gbit"], 1e9),
    (&["tbit"], 1e12),
    (&["kibit"], K),
    (&["mibit"], K * K),
    (&["gibit"], K * K * K),
    (&["tibit"], K * K * K * K),
    (&["bps"], 8.0),
    (&["kbps"], 8e3),
    (&["mbps"], 8e6),
    (&["gbps"], 8e9),
    (&["tbps"], 8e12),
    (&["kibps"], 8.0 * K),
    (&["mibps"], 8.0 * K * K),
    (&["gibps"], 8.0 * K * K * K),
    (&["tibps"], 8.0 * K * K * K * K),
];

const SIZE_UNITS: &[(&[&str], f64)] = &[
    (&["b", ""], 1.0),
    (&["k", "kb"], K),
    (&["m", "mb"], K * K),
    (&["g", "gb"], K * K * K),
    (&["kbit"], K / 8.0),
    (&["mbit"], K * K / 8.0),
    (&["gbit"], K * K * K / 8.0),
];

/// A duration in ns: `15ms`, `1s`, `500us`, `1.5s`, `20000ns`; a bare number is microseconds (tc's
/// `get_time`).
pub fn parse_duration_ns(text: &str) -> Result<u64, UnitError> {
    let q = Quantity::Duration;
    let s = split(q, text)?;
    let k = scale(q, text, &s, TIME_UNITS)?;
    // Half of u64: far beyond any parameter, and sums of two stay in range.
    scaled(q, text, &s, k, u64::MAX / 2)
}

/// A rate in bit/s: `20mbit`, `2.5Gbit`, `500kbit`; `mbps` is megaBYTES per second (8 Mbit/s), as in tc.
pub fn parse_rate_bps(text: &str) -> Result<u64, UnitError> {
    let q = Quantity::Rate;
    let s = split(q, text)?;
    let k = scale(q, text, &s, RATE_UNITS)?;
    scaled(q, text, &s, k, 1_000_000_000_000_000)
}

/// A size in bytes: `1514b`, `1kb` (1024 bytes), `2m`, `64kbit` (8192 bytes); a bare number is bytes.
pub fn parse_size_bytes(text: &str) -> Result<u64, UnitError> {
    let q = Quantity::Size;
    let s = split(q, text)?;
    let k = scale(q, text, &s, SIZE_UNITS)?;
    scaled(q, text, &s, k, u64::MAX / 2)
}

/// A percentage from 0 to 100: `10%` or `10` (fractions allowed: `2.5%`).
pub fn parse_percent(text: &str) -> Result<f64, UnitError> {
    let q = Quantity::Percent;
    let s = split(q, text)?;
    scale(q, text, &s, &[(&["%", ""], 1.0)])?;
    if s.value > 100.0 {
        return Err(UnitError {
            quantity: q,
            text: text.to_string(),
            at: s.at,
            problem: "above 100".into(),
        });
    }
    Ok(s.value)
}

/// A duration as tc prints it: the largest of s, ms, us that shows it exactly, else ns (`15ms`, `1500us`).
pub fn format_duration(ns: u64) -> String {
    for (unit, scale) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= scale && ns.is_multiple_of(scale) {
            return format!("{}{unit}", ns / scale);
        }
    }
    format!("{ns}ns")
}

/// A rate in the largest of Gbit, Mbit, kbit that shows it exactly, else bit (`20Mbit`).
pub fn format_rate(bps: u64) -> String {
    for (unit, scale) in [
        ("Gbit", 1_000_000_000),
        ("Mbit", 1_000_000),
        ("kbit", 1_000),
    ] {
        if bps >= scale && bps.is_multiple_of(scale) {
            return format!("{}{unit}", bps / scale);
        }
    }
    format!("{bps}bit")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn durations_take_tcs_time_units() {
        assert_eq!(parse_duration_ns("15ms"), Ok(15_000_000));
        assert_eq!(parse_duration_ns("1s"), Ok(1_000_000_000));
        assert_eq!(parse_duration_ns("1.5sec"), Ok(1_500_000_000));
        assert_eq!(parse_duration_ns("250usecs"), Ok(250_000));
        assert_eq!(parse_duration_ns("100ns"), Ok(100));
        assert_eq!(parse_duration_ns("10MS"), Ok(10_000_000));
        assert_eq!(parse_duration_ns("20 ms"), Ok(20_000_000));
        // A bare number is microseconds, as tc reads it.
        assert_eq!(parse_duration_ns("1000"), Ok(1_000_000));
    }

    #[test]
    fn rates_read_bit_as_bits_and_bps_as_bytes() {
        assert_eq!(parse_rate_bps("20mbit"), Ok(20_000_000));
        assert_eq!(parse_rate_bps("20Mbit"), Ok(20_000_000));
        assert_eq!(parse_rate_bps("2.5Gbit"), Ok(2_500_000_000));
        assert_eq!(parse_rate_bps("500kbit"), Ok(500_000));
        assert_eq!(parse_rate_bps("64000bit"), Ok(64_000));
        assert_eq!(parse_rate_bps("64000"), Ok(64_000));
        // tc(8): bps, kbps, mbps, gbps are bytes per second.
        assert_eq!(parse_rate_bps("1mbps"), Ok(8_000_000));
        assert_eq!(parse_rate_bps("2Mbps"), Ok(16_000_000));
        assert_eq!(parse_rate_bps("100bps"), Ok(800));
        assert_eq!(parse_rate_bps("1kibit"), Ok(1024));
        assert_eq!(parse_rate_bps("1mibps"), Ok(8 * 1024 * 1024));
    }

    #[test]
    fn sizes_take_tcs_binary_multiples() {
        assert_eq!(parse_size_bytes("1514b"), Ok(1514));
        assert_eq!(parse_size_bytes("1514"), Ok(1514));
        assert_eq!(parse_size_bytes("1kb"), Ok(1024));
        assert_eq!(parse_size_bytes("1k"), Ok(1024));
        assert_eq!(parse_size_bytes("2mb"), Ok(2 << 20));
        assert_eq!(parse_size_bytes("64kbit"), Ok(8192));
    }

    #[test]
    fn percentages_take_an_optional_sign() {
        assert_eq!(parse_percent("10%"), Ok(10.0));
        assert_eq!(parse_percent("10"), Ok(10.0));
        assert_eq!(parse_percent("2.5%"), Ok(2.5));
        assert!(parse_percent("101%")
            .unwrap_err()
            .to_string()
            .contains("above 100"));
    }

    #[test]
    fn errors_say_what_where_and_what_was_expected() {
        let e = parse_rate_bps("20furlongs").unwrap_err();
        assert_eq!((e.quantity, e.at), (Quantity::Rate, 2));
        let m = e.to_string();
        assert!(
            m.contains("invalid rate \"20furlongs\"")
                && m.contains("unknown unit \"furlongs\" at byte 2")
                && m.contains("expected a number with a rate unit"),
            "{m}"
        );
        let e = parse_duration_ns("-5ms").unwrap_err();
        assert_eq!(e.at, 0);
        assert!(e.to_string().contains("where a number starts"), "{e}");
        assert!(parse_duration_ns("").is_err());
        assert!(parse_duration_ns("1.2.3ms")
            .unwrap_err()
            .to_string()
            .contains("not a number"));
        assert!(parse_duration_ns("5 parsecs").unwrap_err().at == 2);
        assert!(parse_size_bytes("1e9b").is_err());
        assert!(parse_duration_ns("99999999999999999999s")
            .unwrap_err()
            .to_string()
            .contains("too large"));
    }

    #[test]
    fn formatting_round_trips_through_parsing() {
        for ns in [1, 999, 1_000, 1_500_000, 10_000_000, 60_000_000_000] {
            assert_eq!(parse_duration_ns(&format_duration(ns)), Ok(ns));
        }
        for bps in [1, 64_000, 20_000_000, 1_000_000_000] {
            assert_eq!(parse_rate_bps(&format_rate(bps)), Ok(bps));
        }
        assert_eq!(format_duration(15_000_000), "15ms");
        assert_eq!(format_rate(20_000_000), "20Mbit");
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,12}") {
            let _ = parse_duration_ns(&s);
            let _ = parse_rate_bps(&s);
            let _ = parse_size_bytes(&s);
            let _ = parse_percent(&s);
        }

        #[test]
        fn unit_errors_point_inside_the_text(s in "[0-9.a-z% ]{0,10}") {
            if let Err(e) = parse_rate_bps(&s) {
                prop_assert!(e.at <= s.len());
            }
        }
    }
}
