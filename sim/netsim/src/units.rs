//! Durations, rates and switches as people write them (`10ms`, `20Mbit`, `on`), parsed once with errors
//! that say what was expected, and printed back the same way.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Splits `"12.5ms"` into (12.5, "ms").
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(s.len());
    let number: String = s[..end].chars().filter(|&c| c != '_').collect();
    let value: f64 = number.parse().ok()?;
    value.is_finite().then_some((value, s[end..].trim()))
}

/// A duration in ns from `"250us"`, `"10ms"`, `"1.5s"`, `"2min"` or `"100ns"`. The unit is required.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    let expected = || {
        format!("invalid duration {s:?}: expected a number with a unit (ns, us, ms, s, min), like \"10ms\"")
    };
    let (value, unit) = split_number(s).ok_or_else(expected)?;
    let scale = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        _ => return Err(expected()),
    };
    let ns = (value * scale).round();
    if ns >= u64::MAX as f64 / 2.0 {
        return Err(format!("duration {s:?} is too long"));
    }
    Ok(ns as u64)
}

/// A rate in bit/s from `"20Mbit"`, `"1.5Gbit"`, `"500kbit"`, `"64000bit"` (`bps`, `kbps`, `Mbps` and
/// `Gbps` are accepted too). The unit is required.
pub fn parse_rate_bps(s: &str) -> Result<u64, String> {
    let expected = || {
        format!("invalid rate {s:?}: expected a number with a unit (bit, kbit, Mbit, Gbit), like \"20Mbit\"")
    };
    let (value, unit) = split_number(s).ok_or_else(expected)?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "bit" | "bps" => 1.0,
        "kbit" | "kbps" => 1e3,
        "mbit" | "mbps" => 1e6,
        "gbit" | "gbps" => 1e9,
        _ => return Err(expected()),
    };
    let bps = (value * scale).round();
    if bps >= 1e15 {
        return Err(format!("rate {s:?} is too high"));
    }
    Ok(bps as u64)
}

/// A switch from `on`/`off`, `true`/`false`, `yes`/`no` or `1`/`0`.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!(
            "invalid switch {s:?}: expected on/off, true/false, yes/no or 1/0"
        )),
    }
}

/// A duration in the largest unit that prints it exactly (`"10ms"`, `"1500us"`).
pub fn format_duration(ns: u64) -> String {
    for (unit, scale) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= scale && ns.is_multiple_of(scale) {
            return format!("{}{unit}", ns / scale);
        }
    }
    format!("{ns}ns")
}

/// A rate in the largest unit that prints it exactly (`"20Mbit"`).
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

/// A duration in a configuration file: written `"10ms"`, held in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration(pub u64);

/// A rate in a configuration file: written `"20Mbit"`, held in bit/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration(self.0))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_rate(self.0))
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// Deserialises a string with a unit through `parse`; a bare number is rejected with a hint.
struct UnitVisitor {
    what: &'static str,
    example: &'static str,
    parse: fn(&str) -> Result<u64, String>,
}

impl Visitor<'_> for UnitVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a {} as a string with a unit, like \"{}\"",
            self.what, self.example
        )
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        (self.parse)(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        Err(E::custom(format!(
            "{v} has no unit: write the {} as a string with a unit, like \"{}\"",
            self.what, self.example
        )))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        self.visit_i64(v as i64)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        Err(E::custom(format!(
            "{v} has no unit: write the {} as a string with a unit, like \"{}\"",
            self.what, self.example
        )))
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "duration",
            example: "10ms",
            parse: parse_duration_ns,
        })
        .map(Duration)
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            what: "rate",
            example: "20Mbit",
            parse: parse_rate_bps,
        })
        .map(Rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit_and_scale_to_ns() {
        assert_eq!(parse_duration_ns("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration_ns("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration_ns("250us"), Ok(250_000));
        assert_eq!(parse_duration_ns("2min"), Ok(120_000_000_000));
        assert!(parse_duration_ns("10")
            .unwrap_err()
            .contains("expected a number with a unit"));
        assert!(parse_duration_ns("ten ms").is_err());
        assert!(parse_duration_ns("-5ms").is_err());
        assert!(parse_duration_ns("5 parsecs").is_err());
    }

    #[test]
    fn rates_need_a_unit_and_scale_to_bits_per_second() {
        assert_eq!(parse_rate_bps("20Mbit"), Ok(20_000_000));
        assert_eq!(parse_rate_bps("1.5gbit"), Ok(1_500_000_000));
        assert_eq!(parse_rate_bps("500kbps"), Ok(500_000));
        assert!(parse_rate_bps("20").is_err());
        assert!(parse_rate_bps("20MB").is_err());
    }

    #[test]
    fn formatting_round_trips_through_parsing() {
        for ns in [1, 999, 1_000, 1_500_000, 10_000_000, 60_000_000_000] {
            assert_eq!(parse_duration_ns(&format_duration(ns)), Ok(ns));
        }
        for bps in [1, 64_000, 20_000_000, 1_000_000_000] {
            assert_eq!(parse_rate_bps(&format_rate(bps)), Ok(bps));
        }
        assert_eq!(format_duration(50_000_000), "50ms");
        assert_eq!(format_rate(20_000_000), "20Mbit");
    }

    #[test]
    fn switches_accept_the_usual_spellings() {
        assert_eq!(parse_bool("on"), Ok(true));
        assert_eq!(parse_bool("False"), Ok(false));
        assert!(parse_bool("maybe").is_err());
    }
}
