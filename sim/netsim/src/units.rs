//! Durations, rates and switches as people write them (`10ms`, `20Mbit`, `on`), with errors that say what
//! was expected, and printed back the same way. Durations and rates are tc's grammar and units, parsed by
//! [`aqm_golden::units`] (the host tool reads the same); the simulator also requires the unit and takes
//! minutes.

use aqm_golden::units;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A text that ends in its number: the simulator's files must say the unit.
fn unit_missing(s: &str, what: &str, example: &str) -> Option<String> {
    s.trim()
        .ends_with(|c: char| c.is_ascii_digit() || c == '.')
        .then(|| format!("invalid {what} {s:?}: expected a number with a unit, like \"{example}\""))
}

/// A duration in ns, in tc's grammar and units ([`aqm_golden::units::parse_duration_ns`]: `250us`,
/// `10ms`, `1.5s`, `100ns`), plus minutes (`2min`). The unit is required.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    if let Some(e) = unit_missing(s, "duration", "10ms") {
        return Err(e);
    }
    if let Some(minutes) = s.trim().strip_suffix("min") {
        // Read as seconds; an error is about the text as given (`minutes` is a prefix of it, so the
        // offsets carry over).
        let secs = units::parse_duration_ns(&format!("{minutes}s")).map_err(|e| {
            let at = e.at.min(minutes.len());
            let problem = if e.problem.starts_with("unknown unit") {
                format!("unknown unit {:?}", s.trim()[at..].trim_start())
            } else {
                e.problem
            };
            units::UnitError {
                text: s.to_string(),
                at: at + (s.len() - s.trim_start().len()),
                problem,
                ..e
            }
            .to_string()
        })?;
        return secs
            .checked_mul(60)
            .filter(|&ns| ns < u64::MAX / 2)
            .ok_or_else(|| format!("duration {s:?} is too long"));
    }
    units::parse_duration_ns(s).map_err(|e| e.to_string())
}

/// A rate in bit/s, in tc's grammar and units ([`aqm_golden::units::parse_rate_bps`]): `20Mbit`,
/// `1.5Gbit`, `500kbit`, `64000bit`; as in tc, `bps`, `kbps`, `Mbps` and `Gbps` are BYTES per second.
/// The unit is required.
pub fn parse_rate_bps(s: &str) -> Result<u64, String> {
    if let Some(e) = unit_missing(s, "rate", "20Mbit") {
        return Err(e);
    }
    units::parse_rate_bps(s).map_err(|e| e.to_string())
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

pub use aqm_golden::units::{format_duration, format_rate};

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

    // tc's grammar and units are aqm_golden::units' and tested there; these test what the simulator
    // adds: the unit is required, durations take minutes, and the text passes through to tc's parser.

    #[test]
    fn durations_need_a_unit_and_scale_to_ns() {
        assert_eq!(parse_duration_ns("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration_ns("2min"), Ok(120_000_000_000));
        assert!(parse_duration_ns("10")
            .unwrap_err()
            .contains("expected a number with a unit"));
        for bad in ["ten ms", "-5ms", "5 parsecs"] {
            assert!(parse_duration_ns(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn rates_need_a_unit_and_scale_to_bits_per_second() {
        assert_eq!(parse_rate_bps("20Mbit"), Ok(20_000_000));
        // As in tc, kbps is kiloBYTES per second.
        assert_eq!(parse_rate_bps("500kbps"), Ok(4_000_000));
        for bad in ["20", "20MB"] {
            assert!(parse_rate_bps(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn what_is_printed_is_read_back_with_its_unit() {
        // Printed by aqm_golden::units' formatters, read by the simulator's parsers that require a unit.
        let printed = [1, 999, 1_000, 1_500_000, 10_000_000, 60_000_000_000]
            .map(|ns| (ns, format_duration(ns)));
        assert!(
            printed
                .iter()
                .all(|(ns, text)| parse_duration_ns(text) == Ok(*ns)),
            "{printed:?}"
        );
        let printed = [1, 64_000, 20_000_000, 1_000_000_000].map(|bps| (bps, format_rate(bps)));
        assert!(
            printed
                .iter()
                .all(|(bps, text)| parse_rate_bps(text) == Ok(*bps)),
            "{printed:?}"
        );
        assert_eq!(format_duration(50_000_000), "50ms");
    }

    #[test]
    fn switches_accept_the_usual_spellings() {
        assert_eq!(parse_bool("on"), Ok(true));
        assert_eq!(parse_bool("False"), Ok(false));
        assert!(parse_bool("maybe").is_err());
    }
}
