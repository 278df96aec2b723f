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

/// `verilator --lint-only` with [`LINT_FLAGS`] of the module `top` in `verilog`; `Err` carries every
/// message.
pub fn verilator_lint(verilog: &Path, top: &str) -> Result<(), String> {
    let out = Command::new("verilator")
        .arg("--lint-only")
        .args(LINT_FLAGS)
        .args(["--top-module", top])
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
    /// The counts of the last statistics block of a Yosys log (the final netlist) and its warnings.
    pub fn parse(log: &str) -> SynthReport {
        // The last statistics block is the final netlist.
        let stats = log.rsplit("Printing statistics.").next().unwrap_or("");
        let mut r = SynthReport::count(stats);
        r.warnings = log
            .lines()
            .filter(|l| l.starts_with("Warning:"))
            .map(|l| l.to_string())
            .collect();
        r
    }

    /// The cell counts of one statistics section, for the iCE40 (`SB_*` cells) or the ECP5 (`LUT4`,
    /// `CCU2C`: two bits of carry each, `TRELLIS_FF`, `DP16KD`). Yosys 0.23 prints `NAME  COUNT`, later
    /// versions `COUNT  NAME`; both are read.
    pub fn count(stats: &str) -> SynthReport {
        let mut r = SynthReport::default();
        for line in stats.lines() {
            let mut w = line.split_whitespace();
            let (Some(a), Some(b)) = (w.next(), w.next()) else {
                continue;
            };
            let (name, n) = match (a.parse::<u64>(), b.parse::<u64>()) {
                (_, Ok(n)) => (a, n),
                (Ok(n), _) => (b, n),
                _ => continue,
            };
            match name {
                "SB_LUT4" | "LUT4" => r.luts += n,
                "SB_CARRY" => r.carries += n,
                "CCU2C" => r.carries += 2 * n,
                "SB_RAM40_4K" | "DP16KD" => r.brams += n,
                "TRELLIS_FF" => r.flip_flops += n,
                x if x.starts_with("SB_DFF") => r.flip_flops += n,
                "cells" => r.cells = n,
                _ => {}
            }
        }
        if r.cells == 0 {
            r.cells = stats
                .lines()
                .find_map(|l| l.trim().strip_prefix("Number of cells:"))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0);
        }
        r
    }

    fn add(&mut self, o: &SynthReport) {
        self.luts += o.luts;
        self.carries += o.carries;
        self.flip_flops += o.flip_flops;
        self.brams += o.brams;
        self.cells += o.cells;
    }
}

/// The synthesis options of every iCE40 build: ABC9 with flip-flop mapping packs the DualPI2 line card
/// into about 2.5 % fewer logic cells than the default mapping.
const ICE40_SYNTH: &str = "-abc9 -dff";

/// `yosys synth_ice40 -abc9 -dff` of the module `top` in `verilog`; writes the netlist as JSON to `json`
/// when given (for nextpnr). Fails when Yosys fails, and when the netlist has a carry cell that
/// nextpnr-ice40 may never finish routing ([`carries_on_one_net`]).
pub fn yosys_ice40(verilog: &Path, top: &str, json: Option<&Path>) -> Result<SynthReport, String> {
    let mut script = format!(
        "read_verilog {}; synth_ice40 -top {top} {ICE40_SYNTH}",
        verilog.display()
    );
    if let Some(j) = json {
        script.push_str(&format!(" -json {}", j.display()));
    }
    script.push_str("; stat");
    let report = SynthReport::parse(&yosys(verilog, &script)?);
    if let Some(j) = json {
        let nets = carries_on_one_net(j)?;
        if !nets.is_empty() {
            return Err(format!(
                "{}: {} carry cell(s) of {top} take one net on both operands ({}): nextpnr-ice40's \
                 router can livelock routing them; write the sum with a constant in one operand's \
                 place (e.g. {{a, c}} + {{b, 1}} for a + b + c)",
                j.display(),
                nets.len(),
                nets.join(", ")
            ));
        }
    }
    Ok(report)
}

/// The carry cells (`SB_CARRY`) of a Yosys iCE40 netlist in JSON whose two operands, I0 and I1, are
/// one net: the names of those nets. nextpnr-ice40 0.4's router (router1) can livelock on such a cell:
/// the net's two arcs end on two inputs of one logic cell (the carry's operands are the LUT's I1 and
/// I2), both through the same local wire and the LUT's input permutation, and routing either arc rips
/// up the other, forever: the log shows the same count of arcs left, line after line. Both line cards
/// had one, in the link model's {a, c} + {b, c} (a + b + c in one carry chain), and their routes on
/// nextpnr's default seed stalled so until 2026-12-07 (`--debug-router` named the net).
pub fn carries_on_one_net(json: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(json)
        .map_err(|e| format!("cannot read the netlist {}: {e}", json.display()))?;
    let netlist: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a Yosys JSON netlist: {e}", json.display()))?;
    let mut found = vec![];
    let modules = netlist["modules"].as_object().ok_or_else(|| {
        format!(
            "{}: no \"modules\" object (expected Yosys's write_json output)",
            json.display()
        )
    })?;
    for module in modules.values() {
        let net_of = |pin: &serde_json::Value| pin.as_array()?.first()?.as_u64();
        let Some(cells) = module["cells"].as_object() else {
            continue;
        };
        let twice: Vec<u64> = cells
            .values()
            .filter(|cell| cell["type"] == "SB_CARRY")
            .filter_map(|cell| {
                let c = &cell["connections"];
                let (a, b) = (net_of(&c["I0"])?, net_of(&c["I1"])?);
                (a == b).then_some(a)
            })
            .collect();
        if twice.is_empty() {
            continue;
        }
        // A name per net: the shortest of the names Yosys keeps for it (its own are long), with the
        // bit's index when the name is a vector's.
        let mut names: std::collections::HashMap<u64, String> = Default::default();
        if let Some(nets) = module["netnames"].as_object() {
            for (name, net) in nets {
                let Some(bits) = net["bits"].as_array() else {
                    continue;
                };
                for (i, b) in bits.iter().enumerate() {
                    let Some(b) = b.as_u64() else { continue };
                    let named = if bits.len() == 1 {
                        name.clone()
                    } else {
                        format!("{name}[{i}]")
                    };
                    if names.get(&b).is_none_or(|n| named.len() < n.len()) {
                        names.insert(b, named);
                    }
                }
            }
        }
        found.extend(
            twice
                .iter()
                .map(|a| names.get(a).cloned().unwrap_or_else(|| format!("net {a}"))),
        );
    }
    Ok(found)
}

/// One block of a design and what it costs on the iCE40.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockArea {
    /// The block's path below the top (`ingress`, `core$ctrl`); empty for the top itself.
    pub path: String,
    /// Its cells and those of every block inside it.
    pub cells: SynthReport,
}

/// Where the area of the module `top` in `verilog` goes: the iCE40 synthesis with the hierarchy kept for
/// every block down to `depth` levels below the top (a block is a module with modules inside it; the
/// flip-flops and memories rust-hdl writes as modules of their own count in their block), one row per
/// block with everything inside it, the top first, in the order of the Verilog. Keeping the hierarchy
/// stops some optimisation across blocks, so the top's row is a little larger than the flattened
/// synthesis of [`yosys_ice40`] (the chip gets that one).
pub fn ice40_area_by_block(
    verilog: &Path,
    top: &str,
    depth: usize,
) -> Result<Vec<BlockArea>, String> {
    let text = std::fs::read_to_string(verilog)
        .map_err(|e| format!("cannot read {}: {e}", verilog.display()))?;
    let modules: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("module "))
        .filter_map(|l| {
            l.split(|c: char| c == '(' || c == ';' || c.is_whitespace())
                .next()
        })
        .collect();
    let prefix = format!("{top}$");
    let composite = |m: &str| {
        let inner = format!("{m}$");
        modules.iter().any(|n| n.starts_with(&inner))
    };
    let kept: Vec<&str> = modules
        .iter()
        .copied()
        .filter(|m| {
            m.strip_prefix(&prefix)
                .is_some_and(|p| p.matches('$').count() < depth && composite(m))
        })
        .collect();
    let mut script = format!("read_verilog {};", verilog.display());
    if !kept.is_empty() {
        script.push_str(&format!(
            " setattr -mod -set keep_hierarchy 1 {};",
            kept.join(" ")
        ));
    }
    script.push_str(&format!(" synth_ice40 -top {top} {ICE40_SYNTH}; stat"));
    let log = yosys(verilog, &script)?;
    let stats = log.rsplit("Printing statistics.").next().unwrap_or("");
    let own: Vec<(String, SynthReport)> = stats
        .split("=== ")
        .skip(1)
        .filter_map(|sec| {
            let (name, body) = sec.split_once(" ===")?;
            Some((
                name.trim().trim_start_matches('\\').to_string(),
                SynthReport::count(body),
            ))
        })
        .collect();
    let mut rows = vec![];
    for m in std::iter::once(top).chain(kept.iter().copied()) {
        let inner = format!("{m}$");
        let mut cells = SynthReport::default();
        for (name, c) in &own {
            if name == m || name.starts_with(&inner) {
                cells.add(c);
            }
        }
        let path = m.strip_prefix(&prefix).unwrap_or("").to_string();
        rows.push(BlockArea { path, cells });
    }
    Ok(rows)
}

/// The area table as Markdown: one row per block (`core.ingress` is block `ingress` in `core`), then the
/// flattened synthesis.
pub fn area_markdown(title: &str, rows: &[BlockArea], flat: &SynthReport) -> String {
    let mut s = format!(
        "| {title} | LUT4 | carries | flip-flops | block RAMs |\n|---|---:|---:|---:|---:|\n"
    );
    for r in rows {
        let name = if r.path.is_empty() {
            "all blocks (hierarchy kept)".to_string()
        } else {
            r.path.replace('$', ".")
        };
        let c = &r.cells;
        s.push_str(&format!(
            "| {name} | {} | {} | {} | {} |\n",
            c.luts, c.carries, c.flip_flops, c.brams
        ));
    }
    s.push_str(&format!(
        "| flattened (as built) | {} | {} | {} | {} |\n",
        flat.luts, flat.carries, flat.flip_flops, flat.brams
    ));
    s
}

/// Runs a Yosys script over `verilog`; the log, or every message when Yosys fails.
pub(crate) fn yosys(verilog: &Path, script: &str) -> Result<String, String> {
    let out = Command::new("yosys")
        .args(["-p", script])
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
    Ok(log)
}

/// The last `n` lines of a log.
fn tail(log: &str, n: usize) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a + b + c as {a, c} + {b, c} gives a carry cell with c on both operands, which the synthesis
    /// refuses; {a, c} + {b, 1}, the same sum, passes.
    #[test]
    fn a_carry_with_one_net_on_both_operands_is_refused() {
        let dir = std::env::temp_dir().join(format!("aqm-carry-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let design = |low_b: &str| {
            format!(
                "module t(input clk, input [7:0] a, input [7:0] b, input c, output reg [7:0] s);\n\
                 wire [8:0] sum = {{a, c}} + {{b, {low_b}}};\n\
                 always @(posedge clk) s <= sum[8:1];\nendmodule\n"
            )
        };
        let v = dir.join("t.v");
        let j = dir.join("t.json");
        std::fs::write(&v, design("c")).unwrap();
        let e = yosys_ice40(&v, "t", Some(&j)).unwrap_err();
        assert!(
            e.contains("1 carry cell(s) of t take one net on both operands (c)"),
            "{e}"
        );
        assert_eq!(carries_on_one_net(&j).unwrap(), vec!["c".to_string()]);
        std::fs::write(&v, design("1'b1")).unwrap();
        let r = yosys_ice40(&v, "t", Some(&j)).unwrap();
        assert!(r.carries > 0);
        assert!(carries_on_one_net(&j).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
