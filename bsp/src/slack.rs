//! Slack at every endpoint of a routed HX8K design, grouped by register: nextpnr-ice40 names only the
//! worst path of each clock, so the line cards' flow runs [`SCRIPT`] inside nextpnr after routing
//! (`--post-route`) and the report lists the registers below the clock (or, when timing is met, the
//! closest ones), each with its worst path's start. Its arrival times use nextpnr's routed net delays
//! and fixed cell delays, so a slack here is within a few tenths of a nanosecond of nextpnr's own.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// The analysis, a Python script for nextpnr-ice40's `--post-route`; its output format is in its
/// header, and [`parse`] reads it.
pub const SCRIPT: &str = include_str!("slack.py");

/// The script's file name in a run's directory.
pub const SCRIPT_FILE: &str = "slack.py";

/// One register's endpoints (a flip-flop group's or a block RAM's inputs).
#[derive(Clone, Debug, PartialEq)]
pub struct SlackGroup {
    /// The register's name, up to yosys's first `$` or `_SB_` suffix.
    pub name: String,
    /// Its endpoints below the clock.
    pub below: u64,
    /// Its worst slack, ns.
    pub worst_ns: f64,
    /// The cell and port of that endpoint, and where its path starts.
    pub endpoint: String,
    pub start: String,
}

/// What the script found for one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Slack {
    pub period_ns: f64,
    pub endpoints: u64,
    /// Endpoints below the clock.
    pub below: u64,
    /// The registers with the least slack, worst first.
    pub groups: Vec<SlackGroup>,
    /// The worst path of the first groups: (group, [(arrival ns, cell.port)], start first).
    pub paths: Vec<(String, Vec<(f64, String)>)>,
    /// The script's own failure, when it had one.
    pub error: Option<String>,
}

/// Whether this machine's nextpnr-ice40 runs Python after routing (Debian's does; a build without
/// Python has no `--post-route`, and the cards are then built without the analysis).
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        Command::new("nextpnr-ice40")
            .arg("--help")
            .output()
            .map(|o| {
                // It prints its help on stderr.
                let help = [o.stdout, o.stderr].concat();
                String::from_utf8_lossy(&help).contains("--post-route")
            })
            .unwrap_or(false)
    })
}

/// The file the analysis of place-and-route run `run` (its log's name) writes in its directory.
pub fn out_file(run: &str) -> String {
    format!("{run}-slack.tsv")
}

/// The arguments and environment that make nextpnr-ice40 run the analysis at `mhz` for run `run`,
/// writing [`out_file`] (both in the run's directory, where [`write_script`] put the script); nothing
/// when it is not [`available`].
pub fn add_to(cmd: &mut Command, mhz: f64, run: &str) {
    if available() {
        cmd.args(["--post-route", SCRIPT_FILE])
            .env("SLACK_PERIOD_NS", format!("{}", 1000.0 / mhz))
            .env("SLACK_OUT", out_file(run));
    }
}

/// Puts the script into `dir`.
pub fn write_script(dir: &Path) -> Result<(), String> {
    let path = dir.join(SCRIPT_FILE);
    std::fs::write(&path, SCRIPT).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads the script's output; a line it does not know is an error (what, where).
pub fn parse(text: &str) -> Result<Slack, String> {
    let mut s = Slack::default();
    for (n, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        let bad = || format!("slack output line {}: cannot read {line:?}", n + 1);
        let num = |i: usize| -> Result<f64, String> {
            f.get(i).and_then(|x| x.parse().ok()).ok_or_else(bad)
        };
        let int = |i: usize| -> Result<u64, String> {
            f.get(i).and_then(|x| x.parse().ok()).ok_or_else(bad)
        };
        let text = |i: usize| -> Result<String, String> {
            f.get(i).map(|x| x.to_string()).ok_or_else(bad)
        };
        match f[0] {
            "period" => {
                s.period_ns = num(1)?;
                s.endpoints = int(2)?;
                s.below = int(3)?;
            }
            "group" => s.groups.push(SlackGroup {
                name: text(1)?,
                below: int(2)?,
                worst_ns: num(3)?,
                endpoint: text(4)?,
                start: text(5)?,
            }),
            "step" => {
                let group = text(1)?;
                let step = (num(2)?, text(3)?);
                match s.paths.last_mut() {
                    Some((g, steps)) if *g == group => steps.push(step),
                    _ => s.paths.push((group, vec![step])),
                }
            }
            "error" => s.error = Some(text(1)?),
            _ => return Err(bad()),
        }
    }
    Ok(s)
}

/// The report's section.
pub fn markdown(s: &Slack) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "## Slack by register (every endpoint, after routing)\n");
    if let Some(e) = &s.error {
        let _ = writeln!(m, "The analysis failed: {e}\n");
        return m;
    }
    let _ = writeln!(
        m,
        "{} of {} endpoints are below the {:.2} ns clock. The registers with the least slack (cell \
         delays approximate, routing nextpnr's):\n\n| register | endpoints below | worst slack (ns) | \
         its path starts at |\n|---|---:|---:|---|",
        s.below, s.endpoints, s.period_ns
    );
    for g in &s.groups {
        let _ = writeln!(
            m,
            "| {} | {} | {:.2} | {} |",
            g.name,
            g.below,
            g.worst_ns,
            short(&g.start)
        );
    }
    for (group, steps) in &s.paths {
        let _ = writeln!(m, "\nThe worst path to {group} (arrival ns, cell):\n\n```");
        // A carry chain's cells, one per bit, as its first and last.
        let mut k = 0;
        while k < steps.len() {
            let run = steps[k..]
                .iter()
                .take_while(|(_, at)| at.ends_with(".COUT"))
                .count();
            if run > 2 {
                let (t0, first) = &steps[k];
                let (t1, last) = &steps[k + run - 1];
                let _ = writeln!(m, "{t0:>6.2}  {}", short(first));
                let _ = writeln!(m, "        ... {} more carries", run - 2);
                let _ = writeln!(m, "{t1:>6.2}  {}", short(last));
                k += run;
            } else {
                let (t, at) = &steps[k];
                let _ = writeln!(m, "{t:>6.2}  {}", short(at));
                k += 1;
            }
        }
        let _ = writeln!(m, "```");
    }
    m.push('\n');
    m
}

/// A cell's name cut to its first 100 characters (yosys's names of carry chains run to thousands).
fn short(name: &str) -> String {
    match name.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &name[..i]),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "period\t12.000\t11344\t3\n\
        group\tbridge.parser.state\t2\t-2.840\tbridge.parser.state$q_SB_DFFESR_Q_D_LC.CEN\tbridge.parser.payload$write_address_LC.O\n\
        group\tcore.ingress.gl_lo3\t1\t-1.360\tcore.ingress.gl_lo3$q_LC.I2\tcore.ingress$acc_LC.O\n\
        group\tcore.ctrl\t0\t0.250\tcore.ctrl$x_LC.I0\tcore.ctrl$y_LC.O\n\
        step\tbridge.parser.state\t0.540\tbridge.parser.payload$write_address_LC.O\n\
        step\tbridge.parser.state\t14.940\tbridge.parser.state$q_SB_DFFESR_Q_D_LC.CEN\n\
        step\tcore.ingress.gl_lo3\t0.540\tcore.ingress$acc_LC.O\n\
        step\tcore.ingress.gl_lo3\t1.000\tc0_LC.COUT\n\
        step\tcore.ingress.gl_lo3\t1.100\tc1_LC.COUT\n\
        step\tcore.ingress.gl_lo3\t1.200\tc2_LC.COUT\n\
        step\tcore.ingress.gl_lo3\t1.300\tc3_LC.COUT\n\
        step\tcore.ingress.gl_lo3\t2.000\tcore.ingress.gl_lo3$q_LC.I2\n";

    #[test]
    fn reads_the_scripts_output_and_writes_a_table() {
        let s = parse(OUT).unwrap();
        assert_eq!((s.period_ns, s.endpoints, s.below), (12.0, 11344, 3));
        assert_eq!(s.groups.len(), 3);
        assert_eq!(s.groups[1].name, "core.ingress.gl_lo3");
        assert_eq!(s.groups[1].worst_ns, -1.36);
        assert_eq!(s.paths.len(), 2);
        assert_eq!(s.paths[0].1.len(), 2);
        assert_eq!(s.paths[0].1[1].0, 14.94);
        let m = markdown(&s);
        assert!(m.contains("3 of 11344 endpoints are below the 12.00 ns clock"));
        assert!(m.contains(
            "| bridge.parser.state | 2 | -2.84 | bridge.parser.payload$write_address_LC.O |"
        ));
        assert!(m.contains("The worst path to core.ingress.gl_lo3"));
        // The chain's four carries as its first, the count between, and its last.
        assert!(
            m.contains("  1.00  c0_LC.COUT\n        ... 2 more carries\n  1.30  c3_LC.COUT\n"),
            "{m}"
        );
    }

    #[test]
    fn bad_output_and_the_scripts_failure_are_reported() {
        let e = parse("period\t12\tmany\t0\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("many"), "{e}");
        assert!(parse("what\n").unwrap_err().contains("line 1"));
        let s = parse("error\tKeyError('x')\n").unwrap();
        assert!(markdown(&s).contains("The analysis failed: KeyError('x')"));
    }

    #[test]
    fn long_names_are_cut() {
        let long = "x".repeat(500);
        assert_eq!(short(&long).len(), 103);
        assert_eq!(short("core.a"), "core.a");
    }
}
