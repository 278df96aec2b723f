//! The external checks of emitted Verilog: Verilator's lint and a Yosys synthesis for the iCE40, with the
//! cell counts the reports quote.

use std::path::Path;
use std::process::Command;

/// Verilator's lint flags for rust-hdl output (see DESIGN.md): UNOPTFLAT is a false loop from the one
/// `always @(*)` per module, WIDTH comes from rust-hdl's 32-bit literals.
pub const LINT_FLAGS: &[&str] = &[
    "-Wall",
    "-Wno-DECLFILENAME",
    "-Wno-UNUSED",
    "-Wno-WIDTH",
    "-Wno-UNOPTFLAT",
];

/// `verilator --lint-only` with [`LINT_FLAGS`]; `Err` carries every message.
pub fn verilator_lint(verilog: &Path) -> Result<(), String> {
    let out = Command::new("verilator")
        .arg("--lint-only")
        .args(LINT_FLAGS)
        .args(["--top-module", "top"])
        .arg(verilog)
        .output()
        .map_err(|e| format!("cannot run verilator ({e}); scripts/setup installs it"))?;
    let msg =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    if out.status.success() && msg.trim().is_empty() {
        Ok(())
    } else {
        Err(format!("verilator lint of {}:\n{msg}", verilog.display()))
    }
}

/// Cell counts of a synthesis for the iCE40.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SynthReport {
    pub luts: u64,
    pub carries: u64,
    pub flip_flops: u64,
    pub brams: u64,
    pub cells: u64,
    /// Yosys warnings (a clean design has none).
    pub warnings: Vec<String>,
}

impl SynthReport {
    fn parse(log: &str) -> SynthReport {
        let mut r = SynthReport::default();
        // The last statistics block is the final netlist.
        let stats = log.rsplit("Printing statistics.").next().unwrap_or("");
        for line in stats.lines() {
            let mut w = line.split_whitespace();
            let (Some(name), Some(n)) = (w.next(), w.next()) else {
                continue;
            };
            let Ok(n) = n.parse::<u64>() else { continue };
            match name {
                "SB_LUT4" => r.luts += n,
                "SB_CARRY" => r.carries += n,
                "SB_RAM40_4K" => r.brams += n,
                x if x.starts_with("SB_DFF") => r.flip_flops += n,
                _ => {}
            }
        }
        r.cells = stats
            .lines()
            .find_map(|l| l.trim().strip_prefix("Number of cells:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        r.warnings = log
            .lines()
            .filter(|l| l.starts_with("Warning:"))
            .map(|l| l.to_string())
            .collect();
        r
    }
}

/// `yosys synth_ice40 -abc9 -dff` of `module top` in `verilog`; writes the netlist as JSON to `json` when
/// given (for nextpnr). Fails when Yosys fails. (ABC9 with flip-flop mapping packs the DualPI2 line
/// card into about 2.5 % fewer logic cells than the default mapping.)
pub fn yosys_ice40(verilog: &Path, json: Option<&Path>) -> Result<SynthReport, String> {
    let mut script = format!(
        "read_verilog {}; synth_ice40 -top top -abc9 -dff",
        verilog.display()
    );
    if let Some(j) = json {
        script.push_str(&format!(" -json {}", j.display()));
    }
    script.push_str("; stat");
    let out = Command::new("yosys")
        .args(["-p", &script])
        .output()
        .map_err(|e| format!("cannot run yosys ({e}); scripts/setup installs it"))?;
    let log = String::from_utf8_lossy(&out.stdout).to_string();
    if !out.status.success() {
        return Err(format!(
            "yosys failed on {}:\n{}{}",
            verilog.display(),
            tail(&log, 20),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(SynthReport::parse(&log))
}

/// The last `n` lines of a log.
fn tail(log: &str, n: usize) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
