//! Short runs of every named scenario with every reference AQM (conservation is checked in each run).

use aqm_netsim::output::{json, summary_table};
use aqm_netsim::plot::write_plots;
use aqm_netsim::registry::{AqmSpec, Registry};
use aqm_netsim::run_scenario;
use aqm_netsim::scenario::{named, NAMED};

/// Scales each scenario to a few simulated seconds per point.
fn short(name: &str) -> aqm_netsim::Scenario {
    let mut s = named(name).unwrap();
    let longest = s.points().iter().map(|p| p.spec.duration_ns).max().unwrap();
    // The 10 Gbit/s scenario carries 800k packets a second: 1.5 s of it is plenty.
    let want = if name == "shared-10g" { 1.5e9 } else { 4e9 };
    s.scale_time(want / longest as f64);
    s
}

#[test]
fn every_named_scenario_runs_with_every_reference_aqm() {
    let registry = Registry::with_builtins();
    let aqms: Vec<AqmSpec> = [
        "taildrop",
        "red",
        "ared",
        "codel",
        "fq_codel",
        "cake",
        "docsis_pie",
    ]
    .iter()
    .map(|a| AqmSpec::parse(a).unwrap())
    .collect();
    for name in NAMED {
        let s = short(name);
        let report = run_scenario(&s, &aqms, &[1], &registry, false)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.runs.len(), s.points().len() * aqms.len());
        for r in &report.runs {
            let m = &r.metrics;
            assert!(m.conservation.balanced());
            assert!(
                m.utilisation > 0.3 && m.utilisation <= 1.0 + 1e-9,
                "{name} {}: util {}",
                r.aqm,
                m.utilisation
            );
        }
        let table = summary_table(&report);
        assert!(table.contains("fq_codel"), "{table}");
        assert!(json(&report).contains(&format!("\"name\": \"{name}\"")));
    }
}

#[test]
fn scenario_metrics_appear_where_the_spec_asks_for_them() {
    let registry = Registry::with_builtins();
    let codel = [AqmSpec::parse("codel").unwrap()];
    let run = |name: &str| run_scenario(&short(name), &codel, &[1], &registry, false).unwrap();
    let mix = run("mix");
    let m = &mix.runs[0].metrics;
    assert!(m.probe_p99_ms.is_some() && m.fct_p50_ms.is_some() && m.jain.is_some());
    let fairness = run("fairness");
    assert_eq!(fairness.runs[0].metrics.jain_at.len(), 2);
    let single = run("single");
    assert!(single.runs[0].samples.timeseries.len() > 100);
    let l4s = run("l4s");
    assert!(l4s
        .runs
        .iter()
        .all(|r| r.metrics.rate_ratio.is_some() && r.metrics.scalable_p99_ms.is_some()));
    let unresponsive = run("unresponsive");
    assert!(unresponsive.runs[0].metrics.goodput_mbps["cbr"] > 1.0);
}

#[test]
fn plots_are_written_as_svg_and_png_for_cdf_time_series_sweep_and_l4s() {
    let registry = Registry::with_builtins();
    let aqms: Vec<AqmSpec> = ["codel", "fq_codel"]
        .iter()
        .map(|a| AqmSpec::parse(a).unwrap())
        .collect();
    let dir = std::env::temp_dir().join(format!("aqm-netsim-plots-{}", std::process::id()));
    let mut files = Vec::new();
    for name in ["mix", "single", "rate-sweep", "l4s"] {
        let mut s = short(name);
        s.scale_time(0.5);
        let report = run_scenario(&s, &aqms, &[1], &registry, false).unwrap();
        files.extend(write_plots(&report, &dir.join(name)).unwrap());
    }
    for want in [
        "mix/cdf_probe.png",
        "single/delay_over_time.svg",
        "rate-sweep/sweep_utilisation.png",
        "l4s/l_vs_c_delay_rtt-20ms.svg",
    ] {
        let path = dir.join(want);
        assert!(
            files.contains(&path.display().to_string()),
            "{want} not in {files:?}"
        );
        assert!(
            std::fs::metadata(&path).unwrap().len() > 1000,
            "{want} is nearly empty"
        );
    }
    let svg = std::fs::read_to_string(dir.join("single/delay_over_time.svg")).unwrap();
    assert!(
        svg.contains("queueing delay over time"),
        "the SVG carries its title as text"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
