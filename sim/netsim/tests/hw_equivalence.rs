//! System-level equivalence of the golden PIE and the Verilated PIE core: every named scenario, every
//! point, run once through `pie` and once through `pie (hw)` with the same seed, gives the same verdict
//! for every packet, the same departures (ECN, sojourn) and the same result table.
//!
//! CI runs each scenario scaled to a few simulated seconds per point. For the full length, set
//! `HW_EQUIVALENCE_SECONDS` to the simulated seconds of the longest point (e.g. 300 for every scenario
//! at its own length) and run in release:
//! `HW_EQUIVALENCE_SECONDS=300 cargo test --release -p aqm-netsim --test hw_equivalence`.
#![cfg(feature = "hw")]

use aqm_golden::{Admission, DropReason};
use aqm_netsim::metrics::RunMetrics;
use aqm_netsim::output::summary_table;
use aqm_netsim::registry::{AqmSpec, FactoryContext, Registry};
use aqm_netsim::runner::{Report, RunCost, RunResult};
use aqm_netsim::scenario::{named, Point, Scenario, NAMED};
use aqm_netsim::sim::Simulation;
use aqm_netsim::trace::{first_difference, new_log, take, AqmEvent, Recorder};
use rayon::prelude::*;

/// Simulated seconds of a scenario's longest point in CI.
const CI_SECONDS: f64 = 10.0;

fn scaled(name: &str) -> Scenario {
    let seconds = std::env::var("HW_EQUIVALENCE_SECONDS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(CI_SECONDS);
    let mut s = named(name).unwrap();
    let longest = s.points().iter().map(|p| p.spec.duration_ns).max().unwrap();
    let factor = seconds * 1e9 / longest as f64;
    if factor < 1.0 {
        s.scale_time(factor);
    }
    s
}

/// One recorded run: its metrics, every call to the AQM, and its cost.
fn run(point: &Point, aqm: &str, seed: u64) -> (RunMetrics, Vec<AqmEvent>, RunCost) {
    let registry = Registry::with_builtins();
    let ctx = FactoryContext {
        seed,
        link_rate_bps: point.spec.rate_bps,
    };
    let q = registry
        .create(&AqmSpec::parse(aqm).unwrap(), &ctx)
        .unwrap_or_else(|e| panic!("{aqm}: {e}"));
    let log = new_log();
    let start = std::time::Instant::now();
    let f = Simulation::new(&point.spec, Box::new(Recorder::new(q, log.clone())), seed)
        .run_to_end()
        .unwrap_or_else(|e| panic!("{aqm}, seed {seed}, {}: {e}", point.label));
    let cost = RunCost {
        wall_s: start.elapsed().as_secs_f64(),
        cycles: f.aqm.cycles_clocked(),
        packets: f.metrics.conservation.generated,
    };
    (f.metrics, take(&log), cost)
}

/// The first metric that differs, by its column name.
fn first_metric_difference(a: &RunMetrics, b: &RunMetrics) -> Option<String> {
    let (ca, cb) = (a.columns(), b.columns());
    if let Some(((n, x), (_, y))) = ca.iter().zip(&cb).find(|(x, y)| x != y) {
        return Some(format!("{n}: golden {x:?}, hw {y:?}"));
    }
    let (ja, jb) = (
        serde_json::to_string(a).unwrap(),
        serde_json::to_string(b).unwrap(),
    );
    (ja != jb).then(|| format!("metrics JSON differs:\n  golden {ja}\n  hw     {jb}"))
}

/// Runs every point of `name` with `seeds` through both, with the parameter overrides `params` (`""` or
/// `":key=value,..."`); returns a description of each mismatch and (events compared, hw cycles, hw
/// packets, verdicts by kind).
fn check_scenario(
    name: &str,
    params: &str,
    seeds: &[u64],
) -> (Vec<String>, u64, u64, u64, [u64; 4]) {
    let s = scaled(name);
    let points = s.points();
    let jobs: Vec<(usize, u64)> = (0..points.len())
        .flat_map(|p| seeds.iter().map(move |&seed| (p, seed)))
        .collect();
    let results: Vec<_> = jobs
        .par_iter()
        .map(|&(p, seed)| {
            let point = &points[p];
            let (gm, ge, gc) = run(point, &format!("pie{params}"), seed);
            let (hm, he, hc) = run(point, &format!("pie (hw){params}"), seed);
            let at = format!(
                "scenario {name}, pie{params}, {}seed {seed}",
                point_label(point)
            );
            let mut bad = vec![];
            if let Some(d) = first_difference("golden", &ge, "hw", &he) {
                bad.push(format!("{at}: verdicts differ, {d}"));
            }
            if let Some(d) = first_metric_difference(&gm, &hm) {
                bad.push(format!("{at}: results differ, {d}"));
            }
            let result = |aqm: &str, metrics: RunMetrics, cost: RunCost| RunResult {
                point: point.label.clone(),
                x: point.x,
                aqm: aqm.into(),
                seed,
                metrics,
                samples: Default::default(),
                cost,
            };
            (
                bad,
                tally(&ge),
                hc,
                result("pie", gm, gc),
                result("pie", hm, hc),
            )
        })
        .collect();
    let mut bad = vec![];
    let (mut events, mut cycles, mut packets, mut verdicts) = (0, 0, 0, [0; 4]);
    let (mut golden_runs, mut hw_runs) = (vec![], vec![]);
    for (b, (e, v), cost, g, h) in results {
        bad.extend(b);
        events += e;
        for (t, n) in verdicts.iter_mut().zip(v) {
            *t += n;
        }
        cycles += cost.cycles.unwrap_or(0);
        packets += cost.packets;
        golden_runs.push(g);
        hw_runs.push(h);
    }
    // The tables, with both runs labelled alike, are the same text.
    let report = |runs| Report {
        scenario: s.clone(),
        aqms: vec!["pie".into()],
        seeds: seeds.to_vec(),
        runs,
    };
    let (tg, th) = (
        summary_table(&report(golden_runs)),
        summary_table(&report(hw_runs)),
    );
    if tg != th {
        bad.push(format!(
            "scenario {name}, pie{params}: tables differ\ngolden:\n{tg}\nhw:\n{th}"
        ));
    }
    (bad, events, cycles, packets, verdicts)
}

/// The number of events, and the verdicts by kind: enqueued, marked, early drop, tail drop.
fn tally(events: &[AqmEvent]) -> (u64, [u64; 4]) {
    let mut v = [0; 4];
    for e in events {
        if let AqmEvent::Enqueue { admission, .. } = e {
            v[match admission {
                Admission::Enqueued => 0,
                Admission::Marked(_) => 1,
                Admission::Dropped(DropReason::Early) => 2,
                Admission::Dropped(_) => 3,
            }] += 1;
        }
    }
    (events.len() as u64, v)
}

fn point_label(p: &Point) -> String {
    if p.label.is_empty() {
        String::new()
    } else {
        format!("{}, ", p.label)
    }
}

#[test]
fn every_named_scenario_gives_the_same_verdicts_and_tables_through_the_pie_core() {
    let mut runs: Vec<(&str, &str, &[u64])> = NAMED
        .iter()
        .map(|&n| (n, "", if n == "mix" { &[1, 2, 3][..] } else { &[1][..] }))
        .collect();
    // ECN marks (the scalable flow is ECT(1)), and a small limit with bytemode and faster gains (tail
    // drops, byte-scaled probabilities).
    runs.push(("l4s", ":ecn=on", &[2]));
    runs.push((
        "mix",
        ":target=5ms,tupdate=10ms,alpha=4,beta=30,limit=100,bytemode=on,burst=50ms",
        &[4],
    ));
    let mut bad = vec![];
    let mut all = [0; 4];
    for (name, params, seeds) in runs {
        let (b, events, cycles, packets, v) = check_scenario(name, params, seeds);
        eprintln!(
            "{name}{params}: {events} AQM calls compared, verdicts {v:?} (enqueued, marked, early, \
             tail); {cycles} cycles for {packets} packets ({:.1} per packet)",
            cycles as f64 / packets.max(1) as f64
        );
        assert!(events > 1000, "{name}: only {events} events");
        bad.extend(b);
        for (t, n) in all.iter_mut().zip(v) {
            *t += n;
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        all.iter().all(|&n| n > 0),
        "a verdict never came up: {all:?}"
    );
}

#[test]
fn a_mismatch_names_the_first_differing_event() {
    let s = scaled("single");
    let point = &s.points()[0];
    let (_, golden, _) = run(point, "pie", 1);
    let (_, other, _) = run(point, "pie (hw):target=5ms", 1);
    let d = first_difference("golden", &golden, "hw", &other).expect("the runs differ");
    assert!(d.starts_with("first difference at event "), "{d}");
    assert!(d.contains("golden: t=") && d.contains("hw: t="), "{d}");
}
