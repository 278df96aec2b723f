//! tc-like words for a core's registers, and its counters shown the way `tc -s qdisc show` does: the
//! units shared by both cores here, the words of each core in [`pie`] and [`dualpi2`].

pub mod dualpi2;
pub mod pie;

use crate::board_core::BoardCore;

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

/// The LINK_BYTE_TIME register value (ns per byte, Q16.8) of a link rate; both cores have the same
/// link model.
pub fn link_byte_time(rate_bps: u64) -> u32 {
    ((8.0e9 * 256.0 / rate_bps as f64).round() as u64).min(0xFF_FFFF) as u32
}

fn parse_u64(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|_| format!("{s:?}: expected a decimal or 0x-hex number"))
}

/// The words of a `set`, with the value parsers every core's words share.
pub struct Words<'a> {
    it: std::slice::Iter<'a, String>,
}

impl<'a> Words<'a> {
    fn next_word(&mut self) -> Option<&'a str> {
        self.it.next().map(String::as_str)
    }

    /// The value after `word`, described as `what` if it is missing.
    pub fn arg(&mut self, word: &str, what: &str) -> Result<&'a str, String> {
        self.next_word()
            .ok_or_else(|| format!("`{word}` needs a value ({what})"))
    }

    /// A duration in whole microseconds.
    pub fn us(&mut self, word: &str) -> Result<u32, String> {
        let s = self.arg(word, "a duration")?;
        let ns = parse_duration_ns(s)?;
        if ns % 1000 != 0 {
            return Err(format!("{s:?}: the core takes whole microseconds"));
        }
        u32::try_from(ns / 1000).map_err(|_| format!("{s:?}: too long"))
    }

    /// A whole number in `unit`.
    pub fn int(&mut self, word: &str, unit: &str) -> Result<u32, String> {
        let s = self.arg(word, unit)?;
        s.parse::<u32>()
            .map_err(|_| format!("{s:?}: expected a whole number"))
    }

    /// `link RATE|off`: the LINK_BYTE_TIME value (0 = no link model).
    pub fn link(&mut self, word: &str) -> Result<u32, String> {
        match self.arg(word, "a rate or off")? {
            "off" => Ok(0),
            r => Ok(link_byte_time(parse_rate_bps(r)?)),
        }
    }

    /// A 64-bit number, decimal or 0x-hex (a seed).
    pub fn u64(&mut self, word: &str) -> Result<u64, String> {
        parse_u64(self.arg(word, "a 64-bit number")?)
    }

    /// A probability as a percentage (`5%`, scaled to `max` = 100 %) or as the raw register value.
    pub fn prob(&mut self, word: &str, max: u64) -> Result<u64, String> {
        let s = self.arg(word, "a percentage or a raw value")?;
        match s.strip_suffix('%') {
            Some(p) => {
                let f: f64 = p
                    .parse()
                    .map_err(|_| format!("{s:?}: expected a percentage"))?;
                if !(0.0..=100.0).contains(&f) {
                    return Err(format!("{s:?}: expected 0% to 100%"));
                }
                Ok((f / 100.0 * max as f64) as u64)
            }
            None => parse_u64(s),
        }
    }
}

/// Turns tc-like words into register writes (address, value) of `core`, each checked against its
/// register map, so that nothing is half-applied by a refusal later. The words: [`pie::word`],
/// [`dualpi2::word`].
pub fn parse_set(core: BoardCore, words: &[String]) -> Result<Vec<(u8, u32)>, String> {
    let mut out = vec![];
    let mut w = Words { it: words.iter() };
    while let Some(word) = w.next_word() {
        match core {
            BoardCore::Pie => pie::word(word, &mut w, &mut out)?,
            BoardCore::DualPi2 => dualpi2::word(word, &mut w, &mut out)?,
        }
    }
    for &(a, v) in &out {
        if let Some(d) = core.reg(a) {
            if let Some((lo, hi)) = d.range {
                if !(lo..=hi).contains(&v) {
                    return Err(format!(
                        "{} = {v} is out of range: expected {lo}..={hi}",
                        d.name
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// The registers `show` reads, in order.
pub fn shown(core: BoardCore) -> &'static [u8] {
    match core {
        BoardCore::Pie => pie::SHOWN,
        BoardCore::DualPi2 => dualpi2::SHOWN,
    }
}

/// `tc -s qdisc show`-style text from the values of [`shown`], in order.
pub fn format_show(core: BoardCore, v: &[u32]) -> String {
    match core {
        BoardCore::Pie => pie::format_show(v),
        BoardCore::DualPi2 => dualpi2::format_show(v),
    }
}

/// A duration in us as tc prints it.
fn us_text(us: u64) -> String {
    if us.is_multiple_of(1000) {
        format!("{}ms", us / 1000)
    } else {
        format!("{us}us")
    }
}

/// ` link RATE` of a LINK_BYTE_TIME value, empty without a link model.
fn link_text(byte_time: u32) -> String {
    match byte_time {
        0 => String::new(),
        bt => format!(" link {:.3}Mbit", 8.0e9 * 256.0 / bt as f64 / 1e6),
    }
}

#[cfg(test)]
fn w(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}
