//! The bitstream flow: rust-hdl Verilog -> yosys synth_ice40 -> nextpnr-ice40 (HX8K, CB132, our pin
//! constraints, timing checked at the core clock) -> icepack, with a report of utilisation, Fmax per
//! clock, the critical path, tool versions, and a check that the core survived synthesis whole.
//! nextpnr runs with the seeds of [`PNR_SEEDS`] in turn until timing is met. Any tool failure, or a
//! timing failure with every seed, is an error, after the report is written.

use crate::boards::board;
use crate::top::{BoardRev, CORE_CLOCK_HZ};
use aqm_golden::hw::CoreKind;
use aqm_hdl::cores::hdl_core;
use aqm_hdl::synth::{yosys_ice40, SynthReport};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A clock's timing as nextpnr reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockTiming {
    pub clock: String,
    pub fmax_mhz: f64,
    pub target_mhz: f64,
    pub pass: bool,
}

/// What the flow produced.
#[derive(Clone, Debug, Default)]
pub struct FlowReport {
    pub dir: PathBuf,
    /// What the core-alone line of the report describes.
    pub core_desc: String,
    pub lcs: u64,
    pub lcs_total: u64,
    pub brams: u64,
    pub ios: u64,
    pub plls: u64,
    pub clocks: Vec<ClockTiming>,
    pub critical_path: Vec<String>,
    pub board_synth: SynthReport,
    pub core_synth: SynthReport,
    pub versions: Vec<(String, String)>,
    /// Each place-and-route run: its seed (`None`: nextpnr's default) and the lowest Fmax over the
    /// clocks against its target; the last is the bitstream's.
    pub pnr_runs: Vec<(Option<u32>, f64, f64)>,
}

/// The nextpnr seeds tried in turn until every clock meets its target, nextpnr's default first. Near a
/// full HX8K the placement decides a few MHz either way, so a design that misses by a little with one
/// seed often meets timing with the next; the report lists every run.
pub const PNR_SEEDS: [Option<u32>; 3] = [None, Some(2), Some(3)];

fn run(dir: &Path, cmd: &mut Command, log: &str) -> Result<String, String> {
    let out = cmd.current_dir(dir).output().map_err(|e| {
        format!(
            "cannot run {:?} ({e}); scripts/setup installs the toolchain",
            cmd.get_program()
        )
    })?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    std::fs::write(dir.join(log), &text).map_err(|e| format!("cannot write {log}: {e}"))?;
    if !out.status.success() {
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        return Err(format!(
            "{:?} failed ({}); see {}:\n{}",
            cmd.get_program(),
            out.status,
            dir.join(log).display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(text)
}

fn version(cmd: &str, arg: &str) -> String {
    Command::new(cmd)
        .arg(arg)
        .output()
        .ok()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
        })
        .and_then(|s| {
            s.lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_else(|| "not found".into())
}

/// Parses nextpnr's log: utilisation, timing per clock, the critical path's cells.
fn parse_nextpnr(log: &str, r: &mut FlowReport) {
    for line in log.lines() {
        let l = line.trim_start_matches("Info:").trim();
        let used = |name: &str| -> Option<(u64, u64)> {
            let rest = l.strip_prefix(name)?.trim().strip_prefix(':')?.trim();
            let mut it = rest.split('/');
            let a = it.next()?.trim().parse().ok()?;
            let b = it.next()?.split_whitespace().next()?.parse().ok()?;
            Some((a, b))
        };
        if let Some((a, b)) = used("ICESTORM_LC") {
            r.lcs = a;
            r.lcs_total = b;
        } else if let Some((a, _)) = used("ICESTORM_RAM") {
            r.brams = a;
        } else if let Some((a, _)) = used("SB_IO") {
            r.ios = a;
        } else if let Some((a, _)) = used("ICESTORM_PLL") {
            r.plls = a;
        }
    }
    // The last timing summary (after routing) wins.
    let mut clocks: Vec<ClockTiming> = vec![];
    for line in log.lines() {
        let Some(rest) = line.split("Max frequency for clock '").nth(1) else {
            continue;
        };
        let Some((clock, tail)) = rest.split_once("': ") else {
            continue;
        };
        let mhz = |s: &str| {
            s.split_whitespace()
                .next()
                .and_then(|x| x.parse::<f64>().ok())
        };
        let Some(fmax) = mhz(tail) else { continue };
        let pass = tail.contains("PASS");
        let target = tail.split(" at ").nth(1).and_then(mhz).unwrap_or(0.0);
        clocks.retain(|c| c.clock != clock);
        clocks.push(ClockTiming {
            clock: clock.to_string(),
            fmax_mhz: fmax,
            target_mhz: target,
            pass,
        });
    }
    r.clocks = clocks;
    let report = log
        .rsplit("Critical path report for clock")
        .next()
        .unwrap_or("");
    r.critical_path = report
        .lines()
        .take_while(|l| !l.contains("ns logic"))
        .filter_map(|l| {
            let l = l.trim_start_matches("Info:").trim();
            let mut w = l.split_whitespace();
            let (_, total, kind, cell) = (w.next()?, w.next()?, w.next()?, w.next()?);
            // Yosys names mapped cells after the signal they drive plus a chain of `_SB_...` suffixes;
            // the signal says where the path goes.
            let signal = cell.split("_SB_").next().unwrap_or(cell);
            (kind == "Source").then(|| format!("{total:>5} ns  {signal}"))
        })
        .collect();
    if let Some(split) = report.lines().find(|l| l.contains("ns logic")) {
        r.critical_path
            .push(split.trim_start_matches("Info:").trim().to_string());
    }
}

/// Builds the line card with `core` for board revision `rev` into `out`/<core>-<rev>.
pub fn build(core: &dyn CoreKind, rev: BoardRev, out: &Path) -> Result<FlowReport, String> {
    let name = format!(
        "{}-{}",
        core.name(),
        match rev {
            BoardRev::V1 => "v1",
            BoardRev::V2 => "v2",
        }
    );
    let dir = out.join(&name);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let top = (board(core).top)(rev);
    std::fs::write(dir.join("top.v"), &top.verilog).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("top.pcf"), &top.pcf).map_err(|e| e.to_string())?;

    let mut r = FlowReport {
        dir: dir.clone(),
        core_desc: format!("the {} core alone", core.title()),
        ..FlowReport::default()
    };
    r.versions = vec![
        ("yosys".into(), version("yosys", "-V")),
        (
            "nextpnr-ice40".into(),
            version("nextpnr-ice40", "--version"),
        ),
        ("icepack".into(), "fpga-icestorm (no version flag)".into()),
        ("verilator".into(), version("verilator", "--version")),
    ];
    // The core alone, for the comparison.
    let core_v = hdl_core(core).emitted();
    std::fs::write(dir.join("core.v"), &core_v.verilog).map_err(|e| e.to_string())?;
    r.core_synth = yosys_ice40(&dir.join("core.v"), &core_v.module, None)?;
    r.board_synth = yosys_ice40(&dir.join("top.v"), "top", Some(&dir.join("top.json")))?;
    let mhz = CORE_CLOCK_HZ as f64 / 1e6;
    for seed in PNR_SEEDS {
        let mut cmd = Command::new("nextpnr-ice40");
        cmd.args([
            "--hx8k",
            "--package",
            "cb132",
            "--pcf",
            "top.pcf",
            "--json",
            "top.json",
            "--asc",
            "top.asc",
            "--freq",
            &format!("{mhz}"),
            "--timing-allow-fail",
        ]);
        let log_name = match seed {
            None => "nextpnr.log".to_string(),
            Some(n) => {
                cmd.args(["--seed", &n.to_string()]);
                format!("nextpnr-seed{n}.log")
            }
        };
        let log = run(&dir, &mut cmd, &log_name)?;
        parse_nextpnr(&log, &mut r);
        let worst = r
            .clocks
            .iter()
            .min_by(|a, b| a.fmax_mhz.total_cmp(&b.fmax_mhz))
            .map_or((0.0, mhz), |c| (c.fmax_mhz, c.target_mhz));
        r.pnr_runs.push((seed, worst.0, worst.1));
        if !r.clocks.is_empty() && r.clocks.iter().all(|c| c.pass) {
            break;
        }
    }
    run(
        &dir,
        Command::new("icepack").args(["top.asc", "top.bin"]),
        "icepack.log",
    )?;
    std::fs::write(dir.join("report.md"), report_markdown(&name, &r)).map_err(|e| e.to_string())?;
    check(&r)?;
    Ok(r)
}

/// A board top's Verilog and pin constraints.
/// Everything the report promises: timing met on every clock, the core whole in the board.
pub fn check(r: &FlowReport) -> Result<(), String> {
    if r.clocks.is_empty() {
        return Err("nextpnr reported no clock timing".into());
    }
    for c in &r.clocks {
        if !c.pass {
            return Err(format!(
                "timing fails: clock {} reaches {:.2} MHz, {:.2} MHz needed (see {})",
                c.clock,
                c.fmax_mhz,
                c.target_mhz,
                r.dir.join("report.md").display()
            ));
        }
    }
    if r.board_synth.brams < r.core_synth.brams || r.board_synth.luts < r.core_synth.luts {
        return Err(format!(
            "the board has fewer cells than its core alone ({} LUTs / {} block RAMs against {} / {}): \
             part of the core was optimised away",
            r.board_synth.luts, r.board_synth.brams, r.core_synth.luts, r.core_synth.brams
        ));
    }
    Ok(())
}

/// The report as Markdown.
pub fn report_markdown(name: &str, r: &FlowReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Bitstream report: {name}\n");
    let _ = writeln!(
        s,
        "Alchitry Cu, iCE40-HX8K-CB132; 100 MHz in, the core clock from the PLL.\n"
    );
    let _ = writeln!(
        s,
        "## Utilisation (nextpnr)\n\n| resource | used | of |\n|---|---|---|"
    );
    let _ = writeln!(
        s,
        "| logic cells | {} | {} ({:.0} %) |",
        r.lcs,
        r.lcs_total,
        100.0 * r.lcs as f64 / r.lcs_total.max(1) as f64
    );
    let _ = writeln!(s, "| block RAMs (4 Kbit) | {} | 32 |", r.brams);
    let _ = writeln!(s, "| IOs | {} | 95 |", r.ios);
    let _ = writeln!(s, "| PLLs | {} | 2 |\n", r.plls);
    let _ = writeln!(
        s,
        "## Timing\n\n| clock | Fmax (MHz) | target (MHz) | |\n|---|---|---|---|"
    );
    for c in &r.clocks {
        let _ = writeln!(
            s,
            "| {} | {:.2} | {:.2} | {} |",
            c.clock,
            c.fmax_mhz,
            c.target_mhz,
            if c.pass { "PASS" } else { "FAIL" }
        );
    }
    let seed_name = |seed: &Option<u32>| match seed {
        None => "nextpnr's default seed".to_string(),
        Some(n) => format!("seed {n}"),
    };
    if let Some((last, earlier)) = r.pnr_runs.split_last() {
        let _ = write!(s, "\nPlaced and routed with {}", seed_name(&last.0));
        if !earlier.is_empty() {
            let tries: Vec<String> = earlier
                .iter()
                .map(|(seed, f, t)| format!("{} reached {f:.2} of {t:.2} MHz", seed_name(seed)))
                .collect();
            let _ = write!(s, " (before it: {})", tries.join("; "));
        }
        let _ = writeln!(s, ".");
    }
    let _ = writeln!(s, "\nCritical path (cumulative delay, source cell):\n\n```");
    for l in &r.critical_path {
        let _ = writeln!(s, "{l}");
    }
    let _ = writeln!(s, "```\n");
    let _ = writeln!(
        s,
        "## The core survived synthesis whole\n\n| | LUT4 | carries | flip-flops | block RAMs |\n|---|---|---|---|---|"
    );
    for (what, y) in [
        (r.core_desc.as_str(), &r.core_synth),
        ("the whole board", &r.board_synth),
    ] {
        let _ = writeln!(
            s,
            "| {what} | {} | {} | {} | {} |",
            y.luts, y.carries, y.flip_flops, y.brams
        );
    }
    let whole =
        r.board_synth.luts >= r.core_synth.luts && r.board_synth.brams >= r.core_synth.brams;
    let _ = writeln!(
        s,
        "\n{}\n",
        if whole {
            "The board holds at least the core's own cells and all its block RAMs: nothing of the core was optimised away."
        } else {
            "WARNING: the board has fewer cells than the core alone: part of the core was optimised away."
        }
    );
    let _ = writeln!(s, "## Tools\n");
    for (t, v) in &r.versions {
        let _ = writeln!(s, "- {t}: {v}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_the_seed_that_met_timing_and_the_runs_before_it() {
        let mut r = FlowReport {
            pnr_runs: vec![(None, 37.22, 40.0), (Some(2), 44.08, 40.0)],
            ..FlowReport::default()
        };
        let s = report_markdown("dualpi2-v1", &r);
        assert!(
            s.contains("Placed and routed with seed 2 (before it: nextpnr's default seed reached 37.22 of 40.00 MHz)."),
            "{s}"
        );
        r.pnr_runs.truncate(1);
        assert!(
            report_markdown("x", &r).contains("Placed and routed with nextpnr's default seed."),
        );
    }
}
