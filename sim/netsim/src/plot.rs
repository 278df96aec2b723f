//! Plots as SVG and PNG: delay CDFs, queueing delay over time, sweeps, and L vs C delay. Text is drawn
//! with an embedded DejaVu Sans, so no system font library is needed.

use crate::hist::Histogram;
use crate::runner::Report;
use crate::Error;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

const SIZE: (u32, u32) = (960, 600);
/// Log-scale plots show delays below this as this, ms.
const MIN_LOG_MS: f64 = 0.01;

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The embedded font is a valid TrueType file; if it were not, text would be missing, not the plot.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// A line chart: named series of (x, y) points.
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Plot log10(x) and label the axis in powers of ten.
    pub log_x: bool,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// A bar chart: groups along x, one bar per named series in each group.
pub struct BarChart {
    pub title: String,
    pub y_label: String,
    pub groups: Vec<String>,
    /// (series name, one value per group)
    pub series: Vec<(String, Vec<f64>)>,
}

fn err<E: std::fmt::Display>(path: &str) -> impl Fn(E) -> Error + '_ {
    move |e| Error::Plot {
        path: path.to_string(),
        msg: e.to_string(),
    }
}

fn bounds(series: &[(String, Vec<(f64, f64)>)]) -> ((f64, f64), (f64, f64)) {
    let pts = || series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &(x, y) in pts() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= 0.0 {
        y1 = 1.0;
    }
    ((x0, x1), (0.0, y1 * 1.05))
}

fn draw_lines<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    c: &LineChart,
    path: &str,
) -> Result<(), Error> {
    root.fill(&WHITE).map_err(err(path))?;
    let series: Vec<(String, Vec<(f64, f64)>)> = c
        .series
        .iter()
        .map(|(n, pts)| {
            let pts = pts
                .iter()
                .map(|&(x, y)| {
                    if c.log_x {
                        (x.max(MIN_LOG_MS).log10(), y)
                    } else {
                        (x, y)
                    }
                })
                .collect();
            (n.clone(), pts)
        })
        .collect();
    let ((x0, x1), (y0, y1)) = bounds(&series);
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err(path))?;
    let log_x = c.log_x;
    let x_fmt = move |v: &f64| {
        if log_x {
            // Label the decades only; the ticks between them stay blank.
            let decade = v.round();
            if (v - decade).abs() > 1e-6 {
                String::new()
            } else if decade >= 0.0 {
                format!("{}", 10f64.powi(decade as i32))
            } else {
                format!("{:.*}", (-decade) as usize, 10f64.powi(decade as i32))
            }
        } else {
            format!("{v}")
        }
    };
    chart
        .configure_mesh()
        .x_desc(c.x_label.as_str())
        .y_desc(c.y_label.as_str())
        .x_label_formatter(&x_fmt)
        .draw()
        .map_err(err(path))?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(err(path))?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        if pts.len() <= 12 {
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(err(path))?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(err(path))?;
    root.present().map_err(err(path))
}

fn draw_bars<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    c: &BarChart,
    path: &str,
) -> Result<(), Error> {
    root.fill(&WHITE).map_err(err(path))?;
    let y1 = c
        .series
        .iter()
        .flat_map(|(_, v)| v.iter())
        .fold(0.0f64, |a, &b| a.max(b))
        .max(1e-3)
        * 1.1;
    let groups = c.groups.clone();
    let n = c.series.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(-0.5f64..(groups.len() as f64 - 0.5), 0.0..y1)
        .map_err(err(path))?;
    let x_fmt = move |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 {
            groups.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(c.groups.len() * 2 + 1)
        .x_label_formatter(&x_fmt)
        .y_desc(c.y_label.as_str())
        .draw()
        .map_err(err(path))?;
    for (s, (name, values)) in c.series.iter().enumerate() {
        let color = Palette99::pick(s).to_rgba();
        let width = 0.8 / n;
        let rects = values.iter().enumerate().map(move |(g, &v)| {
            let left = g as f64 - 0.4 + s as f64 * width;
            Rectangle::new([(left, 0.0), (left + width * 0.9, v)], color.filled())
        });
        chart
            .draw_series(rects)
            .map_err(err(path))?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 15, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err(path))?;
    root.present().map_err(err(path))
}

enum Chart {
    Lines(LineChart),
    Bars(BarChart),
}

/// Writes `base`.svg and `base`.png; returns both paths.
fn write_chart(chart: &Chart, base: &Path) -> Result<Vec<String>, Error> {
    register_font();
    let svg = base.with_extension("svg");
    let png = base.with_extension("png");
    let (svg_s, png_s) = (svg.display().to_string(), png.display().to_string());
    match chart {
        Chart::Lines(c) => {
            draw_lines(SVGBackend::new(&svg, SIZE).into_drawing_area(), c, &svg_s)?;
            draw_lines(
                BitMapBackend::new(&png, SIZE).into_drawing_area(),
                c,
                &png_s,
            )?;
        }
        Chart::Bars(c) => {
            draw_bars(SVGBackend::new(&svg, SIZE).into_drawing_area(), c, &svg_s)?;
            draw_bars(
                BitMapBackend::new(&png, SIZE).into_drawing_area(),
                c,
                &png_s,
            )?;
        }
    }
    Ok(vec![svg_s, png_s])
}

/// A point's file-name suffix (`_slug`) and title suffix (`, point`); both empty for the one point of a
/// scenario without a sweep.
fn point_labels(point: &str) -> (String, String) {
    if point.is_empty() {
        (String::new(), String::new())
    } else {
        (format!("_{}", slug(point)), format!(", {point}"))
    }
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn cdf_ms(h: &Histogram) -> Vec<(f64, f64)> {
    h.cdf().into_iter().map(|(ns, f)| (ns / 1e6, f)).collect()
}

/// Draws every plot that fits the report's scenario into `dir`; returns the files written.
pub fn write_plots(report: &Report, dir: &Path) -> Result<Vec<String>, Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let mut charts: Vec<(String, Chart)> = Vec::new();
    let points: Vec<(String, f64)> = {
        let mut p: Vec<(String, f64)> = Vec::new();
        for r in &report.runs {
            if !p.iter().any(|(l, _)| *l == r.point) {
                p.push((r.point.clone(), r.x));
            }
        }
        p
    };
    let name = &report.scenario.name;
    for (point, _) in &points {
        let (suffix, title_point) = point_labels(point);
        // Delay CDFs, with the samples of all seeds pooled.
        for (what, label, pick) in [
            (
                "probe",
                "probe queueing delay",
                (|r: &crate::runner::RunResult| &r.samples.probe_delay) as fn(&_) -> &_,
            ),
            ("long", "long-flow queueing delay", |r| {
                &r.samples.long_delay
            }),
        ] {
            let series: Vec<(String, Vec<(f64, f64)>)> = report
                .aqms
                .iter()
                .map(|aqm| {
                    let mut h = Histogram::default();
                    for r in report
                        .runs
                        .iter()
                        .filter(|r| r.point == *point && r.aqm == *aqm)
                    {
                        h.merge(pick(r));
                    }
                    (aqm.clone(), cdf_ms(&h))
                })
                .filter(|(_, pts)| !pts.is_empty())
                .collect();
            if !series.is_empty() {
                charts.push((
                    format!("cdf_{what}{suffix}"),
                    Chart::Lines(LineChart {
                        title: format!("{name}: CDF of the {label}{title_point}"),
                        x_label: "queueing delay (ms, log scale)".into(),
                        y_label: "fraction of packets".into(),
                        log_x: true,
                        series,
                    }),
                ));
            }
        }
        // Queueing delay over time, first seed.
        let series: Vec<(String, Vec<(f64, f64)>)> = report
            .aqms
            .iter()
            .filter_map(|aqm| {
                let r = report
                    .runs
                    .iter()
                    .find(|r| r.point == *point && r.aqm == *aqm)?;
                (!r.samples.timeseries.is_empty())
                    .then(|| (aqm.clone(), r.samples.timeseries.clone()))
            })
            .collect();
        if !series.is_empty() {
            charts.push((
                format!("delay_over_time{suffix}"),
                Chart::Lines(LineChart {
                    title: format!(
                        "{name}: queueing delay over time (seed {}){title_point}",
                        report.seeds[0]
                    ),
                    x_label: "time (s)".into(),
                    y_label: "mean queueing delay (ms)".into(),
                    log_x: false,
                    series,
                }),
            ));
        }
    }
    let summary = report.summary();
    let value = |point: &str, aqm: &str, col: &str| {
        summary
            .iter()
            .find(|r| r.point == point && r.aqm == aqm)
            .and_then(|r| r.columns.iter().find(|(n, _)| n == col))
            .and_then(|(_, v)| *v)
    };
    // Sweeps: medians against the swept value.
    if let Some(sweep) = &report.scenario.sweep {
        let x_label = sweep.axis_label();
        for (col, y_label, file) in [
            (
                "probe_p99_ms",
                "probe queueing delay p99 (ms)",
                "sweep_probe_p99",
            ),
            (
                "delay_p99_ms",
                "long-flow queueing delay p99 (ms)",
                "sweep_delay_p99",
            ),
            ("util", "link utilisation", "sweep_utilisation"),
            ("jain", "Jain's fairness index", "sweep_jain"),
        ] {
            let series: Vec<(String, Vec<(f64, f64)>)> = report
                .aqms
                .iter()
                .map(|aqm| {
                    let pts = points
                        .iter()
                        .filter_map(|(p, x)| value(p, aqm, col).map(|v| (*x, v)))
                        .collect();
                    (aqm.clone(), pts)
                })
                .filter(|(_, pts): &(String, Vec<(f64, f64)>)| !pts.is_empty())
                .collect();
            if !series.is_empty() {
                charts.push((
                    file.to_string(),
                    Chart::Lines(LineChart {
                        title: format!("{name}: {y_label}"),
                        x_label: x_label.into(),
                        y_label: y_label.into(),
                        log_x: false,
                        series,
                    }),
                ));
            }
        }
    }
    // L vs C: queueing delay of the scalable and the classic flows, per AQM.
    for (point, _) in &points {
        let cols = [
            "scalable_mean_ms",
            "scalable_p99_ms",
            "classic_mean_ms",
            "classic_p99_ms",
        ];
        let names = [
            "L (scalable) mean",
            "L (scalable) p99",
            "C (classic) mean",
            "C (classic) p99",
        ];
        if report
            .aqms
            .iter()
            .all(|a| value(point, a, cols[0]).is_none())
        {
            continue;
        }
        let series = cols
            .iter()
            .zip(names)
            .map(|(col, n)| {
                let v = report
                    .aqms
                    .iter()
                    .map(|a| value(point, a, col).unwrap_or(0.0))
                    .collect();
                (n.to_string(), v)
            })
            .collect();
        let suffix = if point.is_empty() {
            String::new()
        } else {
            format!("_{}", slug(point))
        };
        charts.push((
            format!("l_vs_c_delay{suffix}"),
            Chart::Bars(BarChart {
                title: format!(
                    "{name}: queueing delay of L and C traffic{}",
                    if point.is_empty() {
                        String::new()
                    } else {
                        format!(", {point}")
                    }
                ),
                y_label: "queueing delay (ms)".into(),
                groups: report.aqms.clone(),
                series,
            }),
        ));
    }
    // Two-queue and tunnel scenarios: latency p50/p99 per AQM and the throughput beside it.
    let sc = &report.scenario;
    let wants_bars = sc.downstream.is_some()
        || sc.tunnel
        || matches!(sc.sweep, Some(crate::scenario::Sweep::Tunnel(_)));
    for (point, _) in points.iter().filter(|_| wants_bars) {
        let (suffix, title_point) = point_labels(point);
        let probe = report
            .aqms
            .iter()
            .any(|a| value(point, a, "probe_p50_ms").is_some());
        let (p50, p99, who) = if probe {
            ("probe_p50_ms", "probe_p99_ms", "probe")
        } else {
            ("delay_p50_ms", "delay_p99_ms", "long flows")
        };
        let col = |c: &str| -> Vec<f64> {
            report
                .aqms
                .iter()
                .map(|a| value(point, a, c).unwrap_or(0.0))
                .collect()
        };
        charts.push((
            format!("latency{suffix}"),
            Chart::Bars(BarChart {
                title: format!("{name}: queueing delay of the {who}{title_point}"),
                y_label: "queueing delay (ms)".into(),
                groups: report.aqms.clone(),
                series: vec![("p50".into(), col(p50)), ("p99".into(), col(p99))],
            }),
        ));
        let goodput: Vec<(String, Vec<f64>)> = ["reno", "cubic", "scalable"]
            .iter()
            .map(|k| (k.to_string(), col(&format!("goodput.{k}_mbps"))))
            .filter(|(_, v)| v.iter().any(|&x| x > 0.0))
            .collect();
        if !goodput.is_empty() {
            charts.push((
                format!("throughput{suffix}"),
                Chart::Bars(BarChart {
                    title: format!("{name}: bulk goodput{title_point}"),
                    y_label: "goodput (Mbit/s)".into(),
                    groups: report.aqms.clone(),
                    series: goodput,
                }),
            ));
        }
    }
    let mut written = Vec::new();
    for (file, chart) in &charts {
        written.extend(write_chart(chart, &dir.join(file))?);
    }
    Ok(written)
}
