//! Tables for the terminal, CSV and JSON files. Numbers are printed from the values alone (no wall clock,
//! no map iteration order), so the same runs give the same bytes. The one exception is what the runs
//! cost ([`cost_table`], cost.csv): wall time, apart from the results.

use crate::metrics::Conservation;
use crate::runner::{Report, SummaryRow};
use crate::Error;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::path::Path;

/// Columns left out of the terminal table (they are in the CSV and JSON files).
fn in_table(name: &str) -> bool {
    !(name.starts_with("goodput.") || name == "short_done" || name == "short_unfinished")
}

fn is_count(name: &str) -> bool {
    name.starts_with("drops.")
        || name.starts_with("marks.")
        || name.starts_with("short_")
        || name == "timeouts_long"
}

/// A value for the terminal: counts as integers, others with three significant-ish digits.
fn fmt_value(name: &str, v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if is_count(name) && v.fract() == 0.0 => format!("{v:.0}"),
        Some(v) if v.abs() >= 100.0 => format!("{v:.1}"),
        Some(v) if v.abs() >= 10.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.3}"),
    }
}

/// Column names in first-seen order over `rows`.
fn column_names<'a>(rows: impl Iterator<Item = &'a Vec<(String, Option<f64>)>>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for cols in rows {
        for (n, v) in cols {
            if v.is_some() && !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    names
}

fn lookup(cols: &[(String, Option<f64>)], name: &str) -> Option<f64> {
    cols.iter().find(|(n, _)| n == name).and_then(|(_, v)| *v)
}

/// Lays out a table; the first `left` columns are names (left-aligned), the rest numbers. A leading
/// "point" column that is empty in every row (no sweep) is left out.
fn render(mut header: Vec<String>, mut body: Vec<Vec<String>>, mut left: usize) -> String {
    if header[0] == "point" && body.iter().all(|r| r[0].is_empty()) {
        header.remove(0);
        body.iter_mut().for_each(|r| {
            r.remove(0);
        });
        left -= 1;
    }
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for row in &body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for (i, row) in std::iter::once(&header).chain(&body).enumerate() {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                if c < left {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
        if i == 0 {
            let _ = writeln!(
                out,
                "{}",
                widths
                    .iter()
                    .map(|w| "-".repeat(*w))
                    .collect::<Vec<_>>()
                    .join("  ")
            );
        }
    }
    out
}

/// The median table: one row per (point, AQM).
pub fn summary_table(report: &Report) -> String {
    let rows = report.summary();
    let names: Vec<String> = column_names(rows.iter().map(|r| &r.columns))
        .into_iter()
        .filter(|n| in_table(n))
        .collect();
    let mut header = vec!["point".to_string(), "aqm".to_string()];
    header.extend(names.iter().cloned());
    let body = rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.point.clone(), r.aqm.clone()];
            cells.extend(names.iter().map(|n| fmt_value(n, lookup(&r.columns, n))));
            cells
        })
        .collect();
    let mut out = format!(
        "scenario {} ({}), median over seeds {}\n",
        report.scenario.name,
        report.scenario.description,
        report
            .seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    out += &render(header, body, 2);
    out
}

/// The per-seed table: one row per run.
pub fn per_seed_table(report: &Report) -> String {
    let cols: Vec<Vec<(String, Option<f64>)>> =
        report.runs.iter().map(|r| r.metrics.columns()).collect();
    let names: Vec<String> = column_names(cols.iter())
        .into_iter()
        .filter(|n| in_table(n))
        .collect();
    let mut header = vec!["point".to_string(), "aqm".to_string(), "seed".to_string()];
    header.extend(names.iter().cloned());
    let body = report
        .runs
        .iter()
        .zip(&cols)
        .map(|(r, c)| {
            let mut cells = vec![r.point.clone(), r.aqm.clone(), r.seed.to_string()];
            cells.extend(names.iter().map(|n| fmt_value(n, lookup(c, n))));
            cells
        })
        .collect();
    render(header, body, 2)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv_number(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// One CSV line: the `lead` fields, then the `values`.
fn csv_line<const N: usize>(
    out: &mut String,
    lead: [String; N],
    values: impl Iterator<Item = String>,
) {
    let fields: Vec<String> = lead.into_iter().chain(values).collect();
    out.push_str(&fields.join(","));
    out.push('\n');
}

/// summary.csv: the medians, every column.
pub fn summary_csv(rows: &[SummaryRow]) -> String {
    let names = column_names(rows.iter().map(|r| &r.columns));
    let mut out = String::new();
    csv_line(
        &mut out,
        ["point".into(), "aqm".into()],
        names.iter().cloned(),
    );
    for r in rows {
        let values = names.iter().map(|n| csv_number(lookup(&r.columns, n)));
        csv_line(&mut out, [csv_field(&r.point), csv_field(&r.aqm)], values);
    }
    out
}

/// The last columns of runs.csv, the packet accounting: the events simulated, then
/// generated = delivered + dropped + queued + on_link + in_transit.
pub const ACCOUNTING_COLUMNS: [&str; 7] = [
    "events",
    "generated",
    "delivered",
    "dropped",
    "queued",
    "on_link",
    "in_transit",
];

/// runs.csv: every run, every column.
pub fn runs_csv(report: &Report) -> String {
    let cols: Vec<Vec<(String, Option<f64>)>> =
        report.runs.iter().map(|r| r.metrics.columns()).collect();
    let mut names = column_names(cols.iter());
    // The packet accounting, last.
    names.extend(ACCOUNTING_COLUMNS.map(String::from));
    let mut out = String::new();
    let head = ["point".into(), "aqm".into(), "seed".into()];
    csv_line(&mut out, head, names.iter().cloned());
    for (r, c) in report.runs.iter().zip(&cols) {
        let k = &r.metrics.conservation;
        let values = names.iter().map(|n| match n.as_str() {
            "events" => r.metrics.events.to_string(),
            "generated" => k.generated.to_string(),
            "delivered" => k.delivered.to_string(),
            "dropped" => k.dropped.to_string(),
            "queued" => k.queued.to_string(),
            "on_link" => k.on_link.to_string(),
            "in_transit" => k.in_transit.to_string(),
            _ => csv_number(lookup(c, n)),
        });
        let lead = [csv_field(&r.point), csv_field(&r.aqm), r.seed.to_string()];
        csv_line(&mut out, lead, values);
    }
    out
}

/// The packet accounting of `c` as one equation: `generated G = delivered D + dropped X + ...`.
pub fn conservation_equation(c: &Conservation) -> String {
    format!(
        "generated {} = delivered {} + dropped {} + queued {} + on link {} + in transit {}",
        c.generated, c.delivered, c.dropped, c.queued, c.on_link, c.in_transit
    )
}

/// Packet conservation, checked in every run: one line with the sums over the runs, and with `per_run`
/// one line per run (point, AQM, seed).
pub fn conservation_lines(report: &Report, per_run: bool) -> String {
    let mut total = Conservation::default();
    let mut balanced = 0;
    for r in &report.runs {
        let c = &r.metrics.conservation;
        total.generated += c.generated;
        total.delivered += c.delivered;
        total.dropped += c.dropped;
        total.queued += c.queued;
        total.on_link += c.on_link;
        total.in_transit += c.in_transit;
        balanced += usize::from(c.balanced());
    }
    let mut out = format!(
        "packet conservation, {balanced} of {} runs balanced: {}\n",
        report.runs.len(),
        conservation_equation(&total)
    );
    if per_run {
        for r in &report.runs {
            let _ = writeln!(
                out,
                "  {}{}, seed {}: {}",
                point_prefix(&r.point),
                r.aqm,
                r.seed,
                conservation_equation(&r.metrics.conservation)
            );
        }
    }
    out
}

fn point_prefix(label: &str) -> String {
    if label.is_empty() {
        String::new()
    } else {
        format!("{label}, ")
    }
}

/// results.json: the scenario, the medians and every run's metrics.
pub fn json(report: &Report) -> String {
    let summary: Vec<Value> = report
        .summary()
        .iter()
        .map(|r| {
            let metrics: Map<String, Value> = r
                .columns
                .iter()
                .map(|(n, v)| (n.clone(), json!(v)))
                .collect();
            json!({ "point": r.point, "aqm": r.aqm, "median": metrics })
        })
        .collect();
    let runs: Vec<Value> = report
        .runs
        .iter()
        .map(|r| json!({ "point": r.point, "aqm": r.aqm, "seed": r.seed, "metrics": r.metrics }))
        .collect();
    let doc = json!({
        "scenario": report.scenario,
        "aqms": report.aqms,
        "seeds": report.seeds,
        "summary": summary,
        "runs": runs,
    });
    let mut s =
        serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// What the runs cost per AQM: wall time per run (one point, one seed), and for the hardware in the
/// loop the clock cycles per packet offered to it. Wall time depends on the machine and on what else
/// runs (runs go in parallel), so this is not part of the results.
pub fn cost_table(report: &Report) -> String {
    let header = [
        "aqm",
        "runs",
        "wall_s_per_run",
        "wall_s_max",
        "packets_per_run",
        "cycles_per_run",
        "cycles_per_packet",
    ]
    .map(String::from)
    .to_vec();
    let body = report
        .aqms
        .iter()
        .map(|aqm| {
            let runs: Vec<_> = report.runs.iter().filter(|r| &r.aqm == aqm).collect();
            let n = runs.len().max(1) as f64;
            let wall: f64 = runs.iter().map(|r| r.cost.wall_s).sum();
            let wall_max = runs.iter().map(|r| r.cost.wall_s).fold(0.0, f64::max);
            let packets: u64 = runs.iter().map(|r| r.cost.packets).sum();
            let cycles: Option<u64> = runs.iter().map(|r| r.cost.cycles).sum();
            vec![
                aqm.clone(),
                runs.len().to_string(),
                format!("{:.3}", wall / n),
                format!("{wall_max:.3}"),
                format!("{:.0}", packets as f64 / n),
                cycles.map_or("-".into(), |c| format!("{:.0}", c as f64 / n)),
                cycles.map_or("-".into(), |c| {
                    format!("{:.1}", c as f64 / packets.max(1) as f64)
                }),
            ]
        })
        .collect();
    format!(
        "cost of the runs (wall time on this machine, runs spread over its cores; not part of the results)\n{}",
        render(header, body, 1)
    )
}

/// cost.csv: every run's wall time, packets and hardware cycles.
pub fn cost_csv(report: &Report) -> String {
    let mut out = String::from("point,aqm,seed,wall_s,packets,cycles\n");
    for r in &report.runs {
        let _ = writeln!(
            out,
            "{},{},{},{:.6},{},{}",
            csv_field(&r.point),
            csv_field(&r.aqm),
            r.seed,
            r.cost.wall_s,
            r.cost.packets,
            r.cost.cycles.map(|c| c.to_string()).unwrap_or_default()
        );
    }
    out
}

pub(crate) fn write_file(path: &Path, contents: &str) -> Result<(), Error> {
    std::fs::write(path, contents).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Checks before a long run that `dir` (the value of `flag`) can take the output: it is created if
/// needed, and a probe file is written into it and removed.
pub fn check_out_dir(dir: &Path, flag: &str) -> Result<(), Error> {
    let fail = |what: &str, e: std::io::Error| {
        Error::Config(format!(
            "{flag} {:?}: {what}: {e} (expected a directory this user can write)",
            dir.display().to_string()
        ))
    };
    std::fs::create_dir_all(dir).map_err(|e| fail("cannot create it", e))?;
    let probe = dir.join(format!(".aqm-netsim-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| fail("cannot write into it", e))?;
    std::fs::remove_file(&probe).map_err(|e| fail("cannot remove a file from it", e))?;
    Ok(())
}

/// Writes summary.csv, runs.csv and results.json into `dir` (created if needed); returns the paths.
/// (cost.csv, which is not reproducible, is written apart by [`write_cost`].)
pub fn write_all(report: &Report, dir: &Path) -> Result<Vec<String>, Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let files = [
        ("summary.csv", summary_csv(&report.summary())),
        ("runs.csv", runs_csv(report)),
        ("results.json", json(report)),
    ];
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        write_file(&path, &text)?;
        written.push(path.display().to_string());
    }
    Ok(written)
}

/// Writes cost.csv into `dir` (which must exist); returns its path.
pub fn write_cost(report: &Report, dir: &Path) -> Result<String, Error> {
    let path = dir.join("cost.csv");
    write_file(&path, &cost_csv(report))?;
    Ok(path.display().to_string())
}
