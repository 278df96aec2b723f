//! What a row of a core's register map is ([`RegDef`]), written once for both cores' maps
//! ([`crate::pie::regs::PIE_REGS`], [`crate::dualpi2::regs::DUALPI2_REGS`]), with the tc option of each
//! parameter register ([`Tc`]): its word as tc-pie(8) and tc-dualpi2(8) spell it, tc's value syntax and
//! unit, and how a tc value becomes the register's value. The host tool's `set` and `show`, and the
//! `tc` column of `hdl/REGISTERS.md`, come from these rows; the tc options a core does not have are
//! listed with the reason ([`TcAbsent`]).

use crate::prng::DEFAULT_SEED;
use crate::units::{
    format_duration, format_rate, parse_duration_ns, parse_percent, parse_rate_bps, UnitError,
};

/// The addresses both cores' maps share: identification and control, then the PI controller's
/// parameters (each core's `regs::addr` module re-exports these beside its own).
pub mod common_addr {
    pub const ID: u8 = 0x00;
    pub const STATUS: u8 = 0x01;
    pub const CONTROL: u8 = 0x02;
    pub const CAPACITY: u8 = 0x03;
    pub const TARGET_US: u8 = 0x10;
    pub const TUPDATE_US: u8 = 0x11;
    pub const ALPHA: u8 = 0x12;
    pub const BETA: u8 = 0x13;
}

/// How a register may be accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read-only.
    Ro,
    /// Read and write.
    Rw,
    /// Write-only (reads return 0).
    Wo,
    /// Read; writing 1 to a bit clears it.
    Rw1c,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::Wo => "WO",
            Access::Rw1c => "RW1C",
        }
    }
}

/// One register of a map.
#[derive(Clone, Copy, Debug)]
pub struct RegDef {
    pub addr: u8,
    pub name: &'static str,
    pub access: Access,
    /// Significant bits of the value (of the whole value for _LO/_HI pairs).
    pub width: u32,
    pub unit: &'static str,
    /// Value read after reset (for a _LO/_HI half, that half of the reset value).
    pub reset: u32,
    /// Accepted write values, inclusive, for parameters with a range.
    pub range: Option<(u32, u32)>,
    pub doc: &'static str,
    /// The option that sets it on a tc line (or, for a register tc has no option for, the host tool's).
    pub tc: Option<Tc>,
}

/// The option of a parameter register on a tc line.
#[derive(Clone, Copy, Debug)]
pub struct Tc {
    /// The word, as tc spells it: `target`, `coupling_factor`.
    pub word: &'static str,
    /// Other spellings taken too (the simulator's names: `k`, `step`, `c_protection`).
    pub aliases: &'static [&'static str],
    /// Whether tc has the option; false for the host tool's own words (`mtu`, `link`, `seed`, `prob`).
    pub in_tc: bool,
    /// Its name in `tc -s -j qdisc show`.
    pub json: &'static str,
    pub value: TcValue,
}

/// A tc value and how it becomes the register's value.
#[derive(Clone, Copy, Debug)]
pub enum TcValue {
    /// TIME (tc's units); the register holds whole microseconds. `packets`: why a count of packets
    /// (`5p`, which tc may take for this option) is refused.
    TimeUs { packets: Option<&'static str> },
    /// A whole number in the register's unit; `suffixes` may follow it (`p` for packets).
    Integer { suffixes: &'static [&'static str] },
    /// A decimal in Hz (tc-dualpi2's `alpha 0.16`); the register holds Hz x `scale`, rounded to the
    /// nearest, so that what `show` prints (two decimals) reads back as the same register value.
    Hz { scale: u32 },
    /// PERCENTAGE, whole percent (`10%` or `10`).
    Percent,
    /// A switch without a value: the word sets 1, `off` sets 0. `show` prints the word when set, and
    /// `off` when clear if `show_off`; `json` gives the JSON strings for set and clear, else a boolean.
    Flag {
        off: &'static str,
        show_off: bool,
        json: Option<(&'static str, &'static str)>,
    },
    /// Words without a value that set the register (`l4s_ect` = 1, with the JSON string); the word
    /// itself (not tc's) takes the raw number.
    Choice {
        words: &'static [(&'static str, u32, &'static str)],
    },
    /// RATE or `off`: the link model's LINK_BYTE_TIME, 8e9 * 256 / rate in ns per byte (Q16.8), 0 off.
    LinkRate,
    /// A 64-bit number, decimal or 0x-hex, in this _LO register and the _HI register after it.
    U64Pair,
    /// A probability, `5%` of `max` (100 %) or the raw value; in this _LO register and the _HI after it
    /// if `pair`.
    Prob { max: u64, pair: bool },
}

/// A tc option a core does not have, and why.
#[derive(Clone, Copy, Debug)]
pub struct TcAbsent {
    pub option: &'static str,
    pub why: &'static str,
}

/// Options that together set several registers (tc-dualpi2's `max_rtt` / `typical_rtt`): each takes a
/// TIME, and `writes` turns the times given (in ns, `None` if not given) into register writes, which
/// override the same registers set by other words on the line, as tc does.
#[derive(Clone, Copy, Debug)]
pub struct TcGroup {
    pub words: &'static [&'static str],
    pub doc: &'static str,
    pub writes: GroupWrites,
}

/// The register writes (address, value) of a [`TcGroup`]'s times, in ns (`None`: not given).
pub type GroupWrites = fn(&[Option<u64>]) -> Result<Vec<(u8, u32)>, String>;

/// What a word on a tc line is to a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcWord {
    /// The option's word (or an alias): a value follows, except for a flag, which sets 1.
    Option,
    /// A flag's `off` word: sets 0.
    Off,
    /// A choice's word: sets this value.
    Choice(u32),
}

/// The register whose option is `word`, and what the word does.
pub fn find_word(regs: &'static [RegDef], word: &str) -> Option<(&'static RegDef, TcWord)> {
    regs.iter().find_map(|d| {
        let tc = d.tc.as_ref()?;
        if tc.word == word || tc.aliases.contains(&word) {
            return Some((d, TcWord::Option));
        }
        match tc.value {
            TcValue::Flag { off, .. } if off == word => Some((d, TcWord::Off)),
            TcValue::Choice { words } => words
                .iter()
                .find(|(w, _, _)| *w == word)
                .map(|&(_, v, _)| (d, TcWord::Choice(v))),
            _ => None,
        }
    })
}

/// What tc takes after a count of packets (tc-dualpi2's `step_thresh 5p`).
const PACKET_UNITS: &[&str] = &["p", "pkt", "pkts", "packet", "packets"];

/// A unit error of the value of option `word`.
fn unit_err(word: &str) -> impl Fn(UnitError) -> String + '_ {
    move |e| format!("{word}: {e}")
}

/// A 64-bit number, decimal or 0x-hex.
fn parse_u64(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|_| format!("{s:?}: expected a decimal or 0x-hex number"))
}

/// LINK_BYTE_TIME (ns per byte, Q16.8) of a link rate, saturated at the register's 24 bits.
pub fn link_byte_time(rate_bps: u64) -> u32 {
    ((8.0e9 * 256.0 / rate_bps.max(1) as f64).round() as u64).min(0xFF_FFFF) as u32
}

/// The link rates, bit/s, whose LINK_BYTE_TIME the register holds: from the slowest with a byte time of
/// at most [`crate::hw::link::BYTE_TIME_RANGE`]'s top to the fastest whose byte time rounds to 1 (0 is
/// the link model off).
pub fn link_rate_range() -> (u64, u64) {
    let top = crate::hw::link::BYTE_TIME_RANGE.1;
    let bt = |r: u64| (8.0e9 * 256.0 / r as f64).round();
    // From an estimate to the exact bound (rounding decides the last step).
    let mut lo = (8.0e9 * 256.0 / (top as f64 + 0.5)) as u64;
    while bt(lo) > top as f64 {
        lo += 1;
    }
    while lo > 1 && bt(lo - 1) <= top as f64 {
        lo -= 1;
    }
    let mut hi = (8.0e9 * 256.0 / 0.5) as u64;
    while bt(hi) < 1.0 {
        hi -= 1;
    }
    while bt(hi + 1) >= 1.0 {
        hi += 1;
    }
    (lo, hi)
}

/// LINK_BYTE_TIME of a link rate, or an error giving the representable range (where
/// [`link_byte_time`] would saturate, or round to 0 and so turn the link model off).
pub fn link_byte_time_checked(rate_bps: u64) -> Result<u32, String> {
    let (lo, hi) = link_rate_range();
    if !(lo..=hi).contains(&rate_bps) {
        return Err(format!(
            "{} is outside the link model's range: expected {}..={} ({lo}..={hi} bit/s; LINK_BYTE_TIME \
             1..={} in 1/256 ns per byte), or off",
            format_rate(rate_bps),
            format_rate(lo),
            format_rate(hi),
            crate::hw::link::BYTE_TIME_RANGE.1
        ));
    }
    Ok(link_byte_time(rate_bps))
}

impl Tc {
    /// Whether the word takes a value after it.
    pub fn takes_value(&self, how: TcWord) -> bool {
        how == TcWord::Option && !matches!(self.value, TcValue::Flag { .. })
    }

    /// The register writes of this option at register `d`: `how` the word named it, with `value` (the
    /// next word, when [`Tc::takes_value`]). Ranges are the caller's to check against the map.
    pub fn writes(
        &self,
        d: &RegDef,
        how: TcWord,
        value: Option<&str>,
    ) -> Result<Vec<(u8, u32)>, String> {
        let word = self.word;
        let one = |v: u32| Ok(vec![(d.addr, v)]);
        match how {
            TcWord::Off => return one(0),
            TcWord::Choice(v) => return one(v),
            TcWord::Option => {}
        }
        if let TcValue::Flag { .. } = self.value {
            return one(1);
        }
        let s = value.ok_or_else(|| format!("`{word}` needs a value ({})", self.syntax()))?;
        match self.value {
            TcValue::TimeUs { packets } => {
                let counted = s.trim_start_matches(|c: char| c.is_ascii_digit());
                if let (Some(why), true) =
                    (packets, s != counted && PACKET_UNITS.contains(&counted))
                {
                    return Err(format!(
                        "{word} {s}: a count of packets is not taken: {why}"
                    ));
                }
                let ns = parse_duration_ns(s).map_err(unit_err(word))?;
                if ns % 1000 != 0 {
                    return Err(format!("{word} {s}: the core takes whole microseconds"));
                }
                u32::try_from(ns / 1000)
                    .map_err(|_| format!("{word} {s}: too long"))
                    .and_then(one)
            }
            TcValue::Integer { suffixes } => {
                let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
                let (n, rest) = s.split_at(digits);
                if !(rest.is_empty() || suffixes.contains(&rest)) {
                    return Err(format!(
                        "{word} {s}: expected a whole number{}",
                        match suffixes.first() {
                            Some(x) => format!(" (optionally followed by {x})"),
                            None => String::new(),
                        }
                    ));
                }
                n.parse::<u32>()
                    .map_err(|_| format!("{word} {s}: expected a whole number of {}", d.unit))
                    .and_then(one)
            }
            TcValue::Hz { scale } => {
                let hz: f64 = s
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| {
                        format!("{word} {s}: expected a decimal number of Hz, like 0.16")
                    })?;
                let v = (hz * scale as f64).round();
                if v > u32::MAX as f64 {
                    return Err(format!("{word} {s}: too large"));
                }
                one(v as u32)
            }
            TcValue::Percent => {
                let p = parse_percent(s).map_err(unit_err(word))?;
                if p.fract() != 0.0 {
                    return Err(format!("{word} {s}: the core takes whole percent"));
                }
                one(p as u32)
            }
            TcValue::Choice { .. } => s
                .parse::<u32>()
                .map_err(|_| format!("{word} {s}: expected a whole number"))
                .and_then(one),
            TcValue::LinkRate => match s {
                "off" => one(0),
                r => {
                    let bps = parse_rate_bps(r).map_err(unit_err(word))?;
                    one(link_byte_time_checked(bps).map_err(|e| format!("{word} {r}: {e}"))?)
                }
            },
            TcValue::U64Pair => {
                let v = parse_u64(s)?;
                Ok(vec![(d.addr, v as u32), (d.addr + 1, (v >> 32) as u32)])
            }
            TcValue::Prob { max, pair } => {
                let v = match s.strip_suffix('%') {
                    Some(_) => {
                        let p = parse_percent(s).map_err(unit_err(word))?;
                        (p / 100.0 * max as f64) as u64
                    }
                    None => parse_u64(s)?,
                };
                if pair {
                    Ok(vec![(d.addr, v as u32), (d.addr + 1, (v >> 32) as u32)])
                } else {
                    let v = u32::try_from(v).map_err(|_| {
                        format!("{word} {v}: the register is 32 bits, 2^32 - 1 = 100 %")
                    })?;
                    one(v)
                }
            }
            TcValue::Flag { .. } => unreachable!("handled above"),
        }
    }

    /// tc's syntax of the value (`TIME`, `PACKETS`), for messages and the documentation.
    pub fn syntax(&self) -> &'static str {
        match self.value {
            TcValue::TimeUs { .. } => "TIME",
            TcValue::Integer { .. } => "NUMBER",
            TcValue::Hz { .. } => "a decimal in Hz",
            TcValue::Percent => "PERCENTAGE",
            TcValue::Flag { .. } => "",
            TcValue::Choice { .. } => "NUMBER",
            TcValue::LinkRate => "RATE or off",
            TcValue::U64Pair => "a 64-bit number",
            TcValue::Prob { .. } => "PERCENTAGE% or the raw value",
        }
    }

    /// The option as `tc -s qdisc show` prints it for register value `v` (`target 15ms`, `alpha 0.16`,
    /// `ecn`); empty when tc prints nothing (a clear flag, no link model).
    pub fn show(&self, v: u64) -> String {
        let w = self.word;
        match self.value {
            TcValue::TimeUs { .. } => format!("{w} {}", format_duration(v.saturating_mul(1000))),
            TcValue::Integer { suffixes } => format!("{w} {v}{}", suffixes.first().unwrap_or(&"")),
            TcValue::Hz { scale } => format!("{w} {:.2}", v as f64 / scale as f64),
            TcValue::Percent => format!("{w} {v}%"),
            TcValue::Flag { off, show_off, .. } => match (v != 0, show_off) {
                (true, _) => w.to_string(),
                (false, true) => off.to_string(),
                (false, false) => String::new(),
            },
            TcValue::Choice { words } => match words.iter().find(|c| c.1 as u64 == v) {
                Some((cw, _, _)) => cw.to_string(),
                None => format!("{w} {v}"),
            },
            TcValue::LinkRate => match v {
                0 => String::new(),
                bt => format!("{w} {:.3}Mbit", 8.0e9 * 256.0 / bt as f64 / 1e6),
            },
            TcValue::U64Pair => format!("{w} 0x{v:X}"),
            TcValue::Prob { max, .. } => format!("{w} {:.6}", v as f64 / max as f64),
        }
    }

    /// The value as `tc -s -j qdisc show` gives it (a JSON number, string or boolean).
    pub fn json_value(&self, v: u64) -> String {
        match self.value {
            TcValue::Hz { scale } => format!("{}", v as f64 / scale as f64),
            TcValue::Flag { json, .. } => match json {
                Some((on, off)) => format!("\"{}\"", if v != 0 { on } else { off }),
                None => (v != 0).to_string(),
            },
            TcValue::Choice { words } => match words.iter().find(|c| c.1 as u64 == v) {
                Some((_, _, j)) => format!("\"{j}\""),
                None => v.to_string(),
            },
            TcValue::Prob { max, .. } => format!("{}", v as f64 / max as f64),
            _ => v.to_string(),
        }
    }

    /// The `tc` column of the register table: the option, its value and how it becomes the register's.
    pub fn doc(&self) -> String {
        let mut names = vec![format!("`{}`", self.word)];
        names.extend(self.aliases.iter().map(|a| format!("`{a}`")));
        let words = names.join(" or ");
        let how = match self.value {
            TcValue::TimeUs { .. } => format!("{words} TIME (e.g. `15ms`): whole us"),
            TcValue::Integer { suffixes } => match suffixes.first() {
                Some(s) => format!("{words} NUMBER[{s}]"),
                None => format!("{words} NUMBER"),
            },
            TcValue::Hz { scale } => {
                format!("{words} Hz as a decimal (e.g. `0.16`): x {scale}, rounded")
            }
            TcValue::Percent => format!("{words} PERCENTAGE (e.g. `10%`)"),
            TcValue::Flag { off, .. } => format!("{words}: 1, `{off}`: 0"),
            TcValue::Choice { words: cs } => {
                let c: Vec<String> = cs.iter().map(|(w, v, _)| format!("`{w}`: {v}")).collect();
                format!(
                    "{}; {words} NUMBER (the raw value; host only)",
                    c.join(", ")
                )
            }
            TcValue::LinkRate => {
                format!("{words} RATE (e.g. `20mbit`): 8e9 x 256 / rate, or `off`: 0")
            }
            TcValue::U64Pair => format!("{words} NUMBER (64 bits, with the _HI half)"),
            TcValue::Prob { .. } => format!("{words} PERCENTAGE% or the raw value"),
        };
        if self.in_tc {
            how
        } else {
            format!("{how} (host only, not in tc)")
        }
    }
}

/// A register map as a Markdown table, with the tc column; then the tc options the core does not have.
pub fn markdown(regs: &[RegDef], absent: &[TcAbsent], groups: &[TcGroup]) -> String {
    let mut s = String::from(
        "| addr | name | access | width | unit | reset | range | tc | description |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for r in regs {
        let range = match r.range {
            Some((lo, hi)) => format!("{lo}..={hi}"),
            None => String::new(),
        };
        s.push_str(&format!(
            "| 0x{:02X} | {} | {} | {} | {} | 0x{:X} | {} | {} | {} |\n",
            r.addr,
            r.name,
            r.access.as_str(),
            r.width,
            r.unit,
            r.reset,
            range,
            r.tc.map_or(String::new(), |t| t.doc()),
            r.doc
        ));
    }
    for g in groups {
        let words: Vec<String> = g.words.iter().map(|w| format!("`{w}` TIME")).collect();
        s.push_str(&format!("\n{}: {}\n", words.join(", "), g.doc));
    }
    if !absent.is_empty() {
        s.push_str("\ntc options the core does not have:\n\n");
        for a in absent {
            s.push_str(&format!("- `{}`: {}\n", a.option, a.why));
        }
    }
    s
}

/// Checks that a map's tc words are unique and every parameter register with a range has one.
pub fn check_tc_words(regs: &'static [RegDef]) -> Result<(), String> {
    for d in regs {
        let Some(tc) = &d.tc else {
            if d.access == Access::Rw && d.range.is_some() {
                return Err(format!("{} has a range but no tc word", d.name));
            }
            continue;
        };
        let mut words = vec![tc.word];
        words.extend(tc.aliases);
        match tc.value {
            TcValue::Flag { off, .. } => words.push(off),
            TcValue::Choice { words: cs } => words.extend(cs.iter().map(|c| c.0)),
            _ => {}
        }
        for w in words {
            match find_word(regs, w) {
                Some((other, _)) if other.addr != d.addr => {
                    return Err(format!("{w} names {} and {}", other.name, d.name))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

impl RegDef {
    /// The same register with another reset value (a read-only register that does not read 0 after
    /// reset).
    pub const fn reset_to(self, reset: u32) -> RegDef {
        RegDef { reset, ..self }
    }
}

/// The ID register: the core's identifier (`doc` spells it).
pub const fn id_reg(id: u32, doc: &'static str) -> RegDef {
    ro(common_addr::ID, "ID", 32, "", doc).reset_to(id)
}

/// The STATUS register: bit 0 the sticky write error, bit 1 the busy flag (`doc` says what is busy).
pub const fn status_reg(doc: &'static str) -> RegDef {
    RegDef {
        access: Access::Rw1c,
        ..ro(common_addr::STATUS, "STATUS", 2, "", doc)
    }
}

/// The CONTROL register (write-only strobes).
pub const CONTROL_REG: RegDef = RegDef {
    access: Access::Wo,
    ..ro(
        common_addr::CONTROL,
        "CONTROL",
        2,
        "",
        "bit 0: reset the core (state and parameters); bit 1: clear the counters",
    )
};

/// The CAPACITY register: how many descriptors a queue holds (`doc` says which queue).
pub const fn capacity_reg(capacity: u32, doc: &'static str) -> RegDef {
    ro(common_addr::CAPACITY, "CAPACITY", 32, "packets", doc).reset_to(capacity)
}

/// A core's map, in address order: the rows every core has at [`common_addr`] (ID, STATUS, CONTROL,
/// CAPACITY), then the core's own. The head gives the ID value and how it reads, what STATUS bit 1
/// (busy) covers, and the queue capacity with what it counts.
macro_rules! register_map {
    (id: $id:expr, $id_doc:literal; busy: $busy:literal; capacity: $cap:expr, $cap_doc:literal; $($row:expr,)*) => {
        &[
            $crate::hw::regs::id_reg($id, $id_doc),
            $crate::hw::regs::status_reg(concat!("bit 0 write_error (sticky, write 1 to clear); bit 1 ", $busy)),
            $crate::hw::regs::CONTROL_REG,
            $crate::hw::regs::capacity_reg($cap, $cap_doc),
            $($row,)*
        ]
    };
}
pub(crate) use register_map;

/// SEED_LO: the PRNG state's low half (write: staged), with tc word `seed` (`doc` may say more).
pub const fn seed_lo_reg(addr: u8, doc: &'static str) -> RegDef {
    let d = RegDef {
        addr,
        name: "SEED_LO",
        access: Access::Rw,
        width: 64,
        unit: "",
        reset: DEFAULT_SEED as u32,
        range: None,
        doc,
        tc: None,
    };
    with_tc(d, "seed", &[], false, "seed", TcValue::U64Pair)
}

/// SEED_HI: the PRNG state's high half; a write loads {SEED_HI, staged SEED_LO}, and zero (a fixed point
/// of the generator) is rejected.
pub const fn seed_hi_reg(addr: u8) -> RegDef {
    RegDef {
        addr,
        name: "SEED_HI",
        access: Access::Rw,
        width: 64,
        unit: "",
        reset: (DEFAULT_SEED >> 32) as u32,
        range: None,
        doc: "PRNG state, high half (write: loads {SEED_HI, staged SEED_LO}; zero rejected)",
        tc: None,
    }
}

/// The tc value kinds both maps use.
pub mod tc_value {
    use super::TcValue;
    /// A time in us with tc's units (`15ms`).
    pub const TIME: TcValue = TcValue::TimeUs { packets: None };
    /// A plain whole number.
    pub const NUMBER: TcValue = TcValue::Integer { suffixes: &[] };
    /// A number of packets (`100` or `100p`).
    pub const PACKETS: TcValue = TcValue::Integer { suffixes: &["p"] };
}

/// A read-write parameter register with a range (its tc option added by [`with_tc`]).
pub const fn rw(
    addr: u8,
    name: &'static str,
    width: u32,
    unit: &'static str,
    reset: u32,
    range: (u32, u32),
    doc: &'static str,
) -> RegDef {
    RegDef {
        addr,
        name,
        access: Access::Rw,
        width,
        unit,
        reset,
        range: Some(range),
        doc,
        tc: None,
    }
}

/// A read-only register that resets to 0.
pub const fn ro(
    addr: u8,
    name: &'static str,
    width: u32,
    unit: &'static str,
    doc: &'static str,
) -> RegDef {
    RegDef {
        addr,
        name,
        access: Access::Ro,
        width,
        unit,
        reset: 0,
        range: None,
        doc,
        tc: None,
    }
}

/// `d` with its tc option: `word` (and `aliases`), whether tc has it, its JSON name and its value.
pub const fn with_tc(
    d: RegDef,
    word: &'static str,
    aliases: &'static [&'static str],
    in_tc: bool,
    json: &'static str,
    value: TcValue,
) -> RegDef {
    RegDef {
        tc: Some(Tc {
            word,
            aliases,
            in_tc,
            json,
            value,
        }),
        ..d
    }
}

/// Where a number of `tc -s qdisc show` comes from: a register, or a _LO register and the _HI after it.
#[derive(Clone, Copy, Debug)]
pub enum Src {
    Reg(u8),
    Pair(u8),
}

/// How a core-specific statistic prints.
#[derive(Clone, Copy, Debug)]
pub enum XForm {
    /// A count.
    Count,
    /// A probability, `max` = 1.
    Prob { max: u64 },
    /// A delay counted in units of `ns` nanoseconds, printed in us (`delay 2500us`).
    Us { ns: u64 },
    /// The WRR credit, signed, with the queue it favours (`credit -150 (L-queue)`).
    Credit,
}

/// One core-specific statistic (tc's xstats): tc's label, its JSON name, the registers summed.
#[derive(Clone, Copy, Debug)]
pub struct XStat {
    pub label: &'static str,
    pub json: &'static str,
    pub src: &'static [Src],
    pub form: XForm,
}

/// What `tc -s qdisc show` prints for a core, and where each number comes from.
#[derive(Clone, Copy, Debug)]
pub struct TcStats {
    /// The LIMIT register: tc prints limit first, then the PI controller's options ([`PI_OPTIONS`]),
    /// then the core's own.
    pub limit: u8,
    /// The core's own parameter registers, in the order tc prints their options.
    pub options: &'static [u8],
    /// What tc prints that the core always does: (text, JSON name, JSON string).
    pub fixed: &'static [(&'static str, &'static str, &'static str)],
    /// tc's generic statistics, each the sum of its registers.
    pub bytes: &'static [Src],
    pub packets: &'static [Src],
    pub drops: &'static [Src],
    pub overlimits: &'static [Src],
    pub backlog: &'static [Src],
    pub qlen: &'static [Src],
    /// The core's own statistics, line by line.
    pub xstats: &'static [&'static [XStat]],
}

impl Src {
    fn addrs(self) -> Vec<u8> {
        match self {
            Src::Reg(a) => vec![a],
            Src::Pair(lo) => vec![lo, lo + 1],
        }
    }

    fn value(self, v: &dyn Fn(u8) -> u32) -> u64 {
        match self {
            Src::Reg(a) => v(a) as u64,
            Src::Pair(lo) => (v(lo + 1) as u64) << 32 | v(lo) as u64,
        }
    }
}

/// The sum of register values read from a board: saturated, not wrapped or a panic, on values no core
/// reaches.
fn sum(src: &[Src], v: &dyn Fn(u8) -> u32) -> u64 {
    src.iter().fold(0u64, |a, s| a.saturating_add(s.value(v)))
}

/// `n` ticks of `ns` in whole microseconds, without overflow.
fn ticks_us(n: u64, ns: u64) -> u128 {
    u128::from(n) * u128::from(ns) / 1000
}

/// The PI controller's parameters, which tc-pie(8) and tc-dualpi2(8) both print right after limit.
pub const PI_OPTIONS: [u8; 4] = [
    common_addr::TARGET_US,
    common_addr::TUPDATE_US,
    common_addr::ALPHA,
    common_addr::BETA,
];

impl TcStats {
    /// The parameter registers, in the order tc prints their options.
    fn option_addrs(&self) -> impl Iterator<Item = u8> + '_ {
        std::iter::once(self.limit)
            .chain(PI_OPTIONS)
            .chain(self.options.iter().copied())
    }

    fn generic(&self) -> [(&'static str, &'static [Src]); 6] {
        [
            ("bytes", self.bytes),
            ("packets", self.packets),
            ("drops", self.drops),
            ("overlimits", self.overlimits),
            ("backlog", self.backlog),
            ("qlen", self.qlen),
        ]
    }

    /// The registers to read, in order, each once (a _LO right before its _HI: one shadow register
    /// serves all pairs); the options take theirs from `regs` (a pair for a 64-bit option).
    pub fn addresses(&self, regs: &[RegDef]) -> Vec<u8> {
        let mut srcs: Vec<Src> = self
            .option_addrs()
            .map(|a| {
                let pair = regs.iter().any(|d| {
                    d.addr == a
                        && matches!(
                            d.tc.map(|t| t.value),
                            Some(TcValue::U64Pair | TcValue::Prob { pair: true, .. })
                        )
                });
                if pair {
                    Src::Pair(a)
                } else {
                    Src::Reg(a)
                }
            })
            .collect();
        for (_, s) in self.generic() {
            srcs.extend(s);
        }
        for line in self.xstats {
            for x in *line {
                srcs.extend(x.src);
            }
        }
        let mut out: Vec<u8> = vec![];
        for s in srcs {
            let a = s.addrs();
            if !out.contains(&a[0]) {
                out.extend(a);
            }
        }
        out
    }

    fn option_value(regs: &[RegDef], a: u8, v: &dyn Fn(u8) -> u32) -> Option<(Tc, u64)> {
        let tc = regs.iter().find(|d| d.addr == a)?.tc?;
        let pair = matches!(
            tc.value,
            TcValue::U64Pair | TcValue::Prob { pair: true, .. }
        );
        let x = if pair { Src::Pair(a) } else { Src::Reg(a) }.value(v);
        Some((tc, x))
    }

    fn xstat_text(x: &XStat, v: &dyn Fn(u8) -> u32) -> String {
        let n = sum(x.src, v);
        match x.form {
            XForm::Count => format!("{} {n}", x.label),
            XForm::Prob { max } => format!("{} {:.6}", x.label, n as f64 / max as f64),
            XForm::Us { ns } => format!("{} {}us", x.label, ticks_us(n, ns)),
            XForm::Credit => {
                let c = n as u32 as i32;
                let q = if c > 0 { "C-queue" } else { "L-queue" };
                format!("{} {c} ({q})", x.label)
            }
        }
    }

    fn xstat_json(x: &XStat, v: &dyn Fn(u8) -> u32) -> String {
        let n = sum(x.src, v);
        let value = match x.form {
            XForm::Count => n.to_string(),
            XForm::Prob { max } => format!("{}", n as f64 / max as f64),
            XForm::Us { ns } => ticks_us(n, ns).to_string(),
            XForm::Credit => (n as u32 as i32).to_string(),
        };
        format!("\"{}\":{value}", x.json)
    }

    /// The text `tc -s qdisc show` prints for qdisc `kind`, from register values `v`.
    pub fn text(&self, kind: &str, regs: &[RegDef], v: &dyn Fn(u8) -> u32) -> String {
        let mut opts: Vec<String> = self
            .option_addrs()
            .filter_map(|a| Self::option_value(regs, a, v))
            .map(|(tc, x)| tc.show(x))
            .filter(|s| !s.is_empty())
            .collect();
        opts.extend(self.fixed.iter().map(|f| f.0.to_string()));
        let g = |s: &[Src]| sum(s, v);
        let mut s = format!(
            "qdisc {kind}: {}\n Sent {} bytes {} pkt (dropped {}, overlimits {} requeues 0)\n \
             backlog {}b {}p requeues 0\n",
            opts.join(" "),
            g(self.bytes),
            g(self.packets),
            g(self.drops),
            g(self.overlimits),
            g(self.backlog),
            g(self.qlen)
        );
        for line in self.xstats {
            let items: Vec<String> = line.iter().map(|x| Self::xstat_text(x, v)).collect();
            s.push_str(&format!("  {}\n", items.join(" ")));
        }
        s
    }

    /// What `tc -s -j qdisc show` prints for qdisc `kind`: a one-element array, tc's field names.
    pub fn json(&self, kind: &str, regs: &[RegDef], v: &dyn Fn(u8) -> u32) -> String {
        let mut opts: Vec<String> = self
            .option_addrs()
            .filter_map(|a| Self::option_value(regs, a, v))
            .filter(|(tc, _)| tc.in_tc)
            .map(|(tc, x)| format!("\"{}\":{}", tc.json, tc.json_value(x)))
            .collect();
        opts.extend(
            self.fixed
                .iter()
                .map(|f| format!("\"{}\":\"{}\"", f.1, f.2)),
        );
        let mut fields = vec![
            format!("\"kind\":\"{kind}\""),
            format!("\"options\":{{{}}}", opts.join(",")),
        ];
        for (name, src) in self.generic() {
            fields.push(format!("\"{name}\":{}", sum(src, v)));
            if name == "overlimits" {
                fields.push("\"requeues\":0".into());
            }
        }
        for line in self.xstats {
            fields.extend(line.iter().map(|x| Self::xstat_json(x, v)));
        }
        format!("[{{{}}}]\n", fields.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::CORES;

    #[test]
    fn link_rates_outside_the_byte_time_register_are_refused_with_the_range() {
        let (lo, hi) = link_rate_range();
        assert_eq!((lo, hi), (122_071, 4_096_000_000_000));
        let top = crate::hw::link::BYTE_TIME_RANGE.1;
        assert!(link_byte_time_checked(lo).is_ok_and(|bt| bt <= top));
        // Below it, the byte time would have saturated: the register cannot hold the rate.
        assert!((8.0e9 * 256.0 / (lo - 1) as f64).round() > top as f64);
        assert_eq!(link_byte_time_checked(hi), Ok(1));
        for r in [lo - 1, hi + 1, 1, 5_000_000_000_000] {
            let e = link_byte_time_checked(r).unwrap_err();
            assert!(e.contains("expected 122071bit..=4096Gbit"), "{e}");
        }
        assert_eq!(
            link_byte_time_checked(20_000_000),
            Ok(link_byte_time(20_000_000))
        );
    }

    #[test]
    fn every_parameter_register_has_one_unambiguous_tc_word() {
        for k in CORES {
            check_tc_words(k.regs()).unwrap_or_else(|e| panic!("{}: {e}", k.name()));
            for a in k.tc_absent() {
                assert!(find_word(k.regs(), a.option).is_none(), "{}", a.option);
            }
        }
    }

    #[test]
    fn what_show_prints_of_a_reset_value_reads_back_as_that_value() {
        for k in CORES {
            for d in k.regs() {
                let Some(tc) = d.tc else { continue };
                if matches!(tc.value, TcValue::Prob { .. }) {
                    continue;
                }
                let shown = tc.show(d.reset as u64);
                let w: Vec<&str> = shown.split_whitespace().collect();
                let Some(first) = w.first() else { continue };
                let (r, how) = find_word(k.regs(), first).expect(first);
                let writes = tc.writes(r, how, w.get(1).copied()).unwrap();
                assert_eq!(writes[0], (d.addr, d.reset), "{}: {shown}", d.name);
            }
        }
    }

    #[test]
    fn tc_values_become_register_values() {
        let regs = crate::dualpi2::regs::DUALPI2_REGS;
        let set = |line: &str| {
            let w: Vec<&str> = line.split_whitespace().collect();
            let (d, how) = find_word(regs, w[0]).unwrap();
            d.tc.unwrap().writes(d, how, w.get(1).copied())
        };
        assert_eq!(set("alpha 0.16"), Ok(vec![(0x12, 41)]));
        assert_eq!(set("beta 3.2"), Ok(vec![(0x13, 819)]));
        assert_eq!(set("step_thresh 500us"), Ok(vec![(0x15, 500)]));
        assert_eq!(set("classic_protection 25%"), Ok(vec![(0x1B, 25)]));
        assert_eq!(set("any_ect"), Ok(vec![(0x17, 3)]));
        assert_eq!(set("overflow"), Ok(vec![(0x18, 0)]));
        assert_eq!(set("link 20mbit"), Ok(vec![(0x1C, 400 << 8)]));
        assert!(set("alpha fast")
            .unwrap_err()
            .contains("decimal number of Hz"));
        assert!(set("step_thresh 5pkts")
            .unwrap_err()
            .contains("packet-count"));
        assert!(set("limit 10q").unwrap_err().contains("whole number"));
        assert!(set("classic_protection 2.5%")
            .unwrap_err()
            .contains("whole percent"));
    }

    #[test]
    fn the_register_table_has_a_tc_column_and_the_missing_options() {
        let md = crate::dualpi2::regs::markdown();
        assert!(md.starts_with(
            "| addr | name | access | width | unit | reset | range | tc | description |"
        ));
        assert!(
            md.contains("`alpha` Hz as a decimal (e.g. `0.16`): x 256, rounded"),
            "{md}"
        );
        assert!(md.contains("- `memlimit`: the limit is in packets"), "{md}");
        assert!(md.contains("`max_rtt` TIME, `typical_rtt` TIME"), "{md}");
    }
}
