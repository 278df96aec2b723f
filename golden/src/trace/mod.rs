//! The controller trace format of spec/trace-format.md: parsing, and replay through the golden models.
//!
//! A trace drives an AQM's controller and per-packet decision directly, without a queue: `update` gives
//! the controller its delay input and the backlog, `enqueue` asks for one decision with a given random
//! word. [`replay`] runs a whole trace and returns one output line per `update` and `enqueue`; a malformed
//! line stops it with an error naming the line and what was expected.

mod dualpi2;
mod pie;

use std::fmt;

/// Which AQM a trace drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Pie,
    DualPi2,
}

/// One command of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Mode(Mode),
    Set { key: String, value: u64 },
    Update { qdelay_us: u64, backlog: u64 },
    Enqueue(EnqueueLine),
    Elapse { us: u64 },
}

/// An `enqueue` line: the packet's length and ECN field, the PRNG word its verdict draws, and the
/// backlog in bytes it sees (the replayer's own when not given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnqueueLine {
    pub len: u64,
    pub ecn: u8,
    pub rnd: u64,
    pub backlog: Option<u64>,
}

/// A trace error: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, TraceError> {
    Err(TraceError {
        line,
        message: message.into(),
    })
}

/// A number in decimal or 0x-hex.
fn number(line: usize, what: &str, s: &str) -> Result<u64, TraceError> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse::<u64>(),
    };
    parsed.or_else(|_| {
        err(
            line,
            format!("{what}: expected a decimal or 0x-hex number, found {s:?}"),
        )
    })
}

/// The random word of `enqueue`: hex digits, with or without 0x.
fn hex_word(line: usize, s: &str) -> Result<u64, TraceError> {
    let h = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if h.is_empty() || h.len() > 16 {
        return err(
            line,
            format!("rnd: expected up to 16 hex digits, found {s:?}"),
        );
    }
    u64::from_str_radix(h, 16)
        .or_else(|_| err(line, format!("rnd: expected hex digits, found {s:?}")))
}

/// Parses one line; `None` for blank lines and comments.
pub fn parse_line(line: usize, text: &str) -> Result<Option<Command>, TraceError> {
    let code = text.split('#').next().unwrap_or("");
    let words: Vec<&str> = code.split_whitespace().collect();
    let Some((&cmd, args)) = words.split_first() else {
        return Ok(None);
    };
    let arity = |n: std::ops::RangeInclusive<usize>, usage: &str| {
        if n.contains(&args.len()) {
            Ok(())
        } else {
            err(
                line,
                format!("expected `{usage}`, found {} argument(s)", args.len()),
            )
        }
    };
    let c = match cmd {
        "mode" => {
            arity(1..=1, "mode pie | mode dualpi2")?;
            match args[0] {
                "pie" => Command::Mode(Mode::Pie),
                "dualpi2" => Command::Mode(Mode::DualPi2),
                m => {
                    return err(
                        line,
                        format!("expected `mode pie` or `mode dualpi2`, found mode {m:?}"),
                    )
                }
            }
        }
        "set" => {
            arity(2..=2, "set <key> <value>")?;
            Command::Set {
                key: args[0].to_string(),
                value: number(line, args[0], args[1])?,
            }
        }
        "update" => {
            arity(2..=2, "update <qdelay_us> <backlog_bytes>")?;
            Command::Update {
                qdelay_us: number(line, "qdelay_us", args[0])?,
                backlog: number(line, "backlog_bytes", args[1])?,
            }
        }
        "enqueue" => {
            arity(3..=4, "enqueue <len> <ecn> <rnd_hex64> [backlog_bytes]")?;
            let ecn = number(line, "ecn", args[1])?;
            if ecn > 3 {
                return err(
                    line,
                    format!(
                        "ecn: expected 0 (Not-ECT), 1 (ECT(1)), 2 (ECT(0)) or 3 (CE), found {ecn}"
                    ),
                );
            }
            Command::Enqueue(EnqueueLine {
                len: number(line, "len", args[0])?,
                ecn: ecn as u8,
                rnd: hex_word(line, args[2])?,
                backlog: args
                    .get(3)
                    .map(|b| number(line, "backlog_bytes", b))
                    .transpose()?,
            })
        }
        "elapse" => {
            arity(1..=1, "elapse <us>")?;
            Command::Elapse {
                us: number(line, "us", args[0])?,
            }
        }
        other => {
            return err(
                line,
                format!("unknown command {other:?}: expected mode, set, update, enqueue or elapse"),
            )
        }
    };
    Ok(Some(c))
}

/// A `set` value for a 32-bit parameter.
fn u32_value(key: &str, v: u64) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("{key} = {v}: expected at most {}", u32::MAX))
}

/// A `set` value for an on/off parameter.
fn flag_value(key: &str, v: u64) -> Result<bool, String> {
    match v {
        0 | 1 => Ok(v == 1),
        _ => Err(format!("{key} = {v}: expected 0 or 1")),
    }
}

/// `set_fields!(params, key, value; u32 fields; flag fields)`: sets the field of `params` that `key`
/// names (a trace key is the field's name) and gives `Some(result)`, or `None` if no field has that
/// name.
macro_rules! set_fields {
    ($p:ident, $key:ident, $value:ident; $($u:ident),*; $($f:ident),*) => {
        match $key {
            $(stringify!($u) => Some(u32_value($key, $value).map(|v| $p.$u = v)),)*
            $(stringify!($f) => Some(flag_value($key, $value).map(|v| $p.$f = v)),)*
            _ => None,
        }
    };
}
use set_fields;

/// An AQM that can replay traces.
trait Replayer {
    fn set(&mut self, key: &str, value: u64) -> Result<(), String>;
    fn update(&mut self, qdelay_us: u64, backlog: u64) -> Result<String, String>;
    fn enqueue(&mut self, e: EnqueueLine) -> Result<String, String>;
    fn elapse(&mut self, us: u64) -> Result<(), String>;
}

fn replayer(mode: Mode) -> Box<dyn Replayer> {
    match mode {
        Mode::Pie => Box::new(pie::PieReplay::new()),
        Mode::DualPi2 => Box::new(dualpi2::DualPi2Replay::new()),
    }
}

/// Replays a whole trace; returns the output lines.
pub fn replay(text: &str) -> Result<Vec<String>, TraceError> {
    let mut out = vec![];
    let mut aqm: Option<Box<dyn Replayer>> = None;
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let Some(cmd) = parse_line(line, raw)? else {
            continue;
        };
        let at = |r: Result<(), String>| r.or_else(|m| err(line, m));
        match cmd {
            Command::Mode(m) => aqm = Some(replayer(m)),
            other => {
                let Some(a) = aqm.as_mut() else {
                    return err(
                        line,
                        "expected `mode pie` or `mode dualpi2` before any other command",
                    );
                };
                match other {
                    Command::Set { key, value } => at(a.set(&key, value))?,
                    Command::Update { qdelay_us, backlog } => {
                        out.push(a.update(qdelay_us, backlog).or_else(|m| err(line, m))?)
                    }
                    Command::Enqueue(e) => out.push(a.enqueue(e).or_else(|m| err(line, m))?),
                    Command::Elapse { us } => at(a.elapse(us))?,
                    Command::Mode(_) => unreachable!("handled above"),
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Each trace (text, the line its error names, a part of the message) is rejected as said.
    pub(crate) fn assert_rejected(cases: &[(&str, usize, &str)]) {
        for &(text, line, part) in cases {
            let e = replay(text).expect_err(text);
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(part), "{text:?}: {e}");
        }
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        assert_eq!(parse_line(1, "   # just a comment").unwrap(), None);
        assert_eq!(parse_line(1, "").unwrap(), None);
        assert_eq!(
            parse_line(1, "update 5000 0x10 # trailing").unwrap(),
            Some(Command::Update {
                qdelay_us: 5000,
                backlog: 16
            })
        );
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        assert_rejected(&[
            (
                "mode pie\nupdate 5000\n",
                2,
                "update <qdelay_us> <backlog_bytes>",
            ),
            ("update 1 2\n", 1, "mode"),
            ("mode pie\nenqueue 1500 7 0x0\n", 2, "ecn"),
            ("mode pie\nenqueue 1500 1 0xZZ\n", 2, "hex"),
            ("mode pie\nfly away\n", 2, "unknown command"),
            ("mode pie\nset target_us twelve\n", 2, "target_us"),
        ]);
    }

    #[test]
    fn no_input_makes_it_panic() {
        // Arbitrary bytes, truncated lines, huge numbers: errors, never a panic.
        let inputs = [
            "mode pie\nset prob 0xffffffffffffffffff\n",
            "mode pie\nupdate 18446744073709551615 18446744073709551615\n",
            "mode pie\nelapse 18446744073709551615\nenqueue 18446744073709551615 3 0x0\n",
            "mode\n",
            "mode pie pie\n",
            "\u{0}\u{1}\u{ff}",
            "mode pie\nset alpha 1000\n",
            "mode pie\nset mtu 0\nenqueue 10 1 0x0 5000\n",
        ];
        for i in inputs {
            let _ = replay(i);
        }
    }
}
