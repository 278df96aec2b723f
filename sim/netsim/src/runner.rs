//! Runs a scenario for several AQMs and seeds, spread over the cores, and collects the results in a fixed
//! order (point, AQM, seed) whatever order the runs finish in.

use crate::metrics::{median_columns, RunMetrics, RunSamples};
use crate::registry::{AqmSpec, FactoryContext, Registry};
use crate::scenario::{Point, Scenario};
use crate::sim::{RunError, RunSpec, Simulation};
use crate::trace::{self, AqmEvent, Recorder};
use crate::Error;
use aqm_golden::Aqm;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::time::Instant;

/// One run's results.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Sweep point label (empty without a sweep) and its value for plots.
    pub point: String,
    pub x: f64,
    /// The AQM as given (`codel:target=5ms`).
    pub aqm: String,
    pub seed: u64,
    pub metrics: RunMetrics,
    pub samples: RunSamples,
    pub cost: RunCost,
}

/// What one run cost: not a result (the wall time depends on the machine and its load), so it is kept
/// out of the tables and files that must be byte-identical for a seed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunCost {
    /// Wall-clock time of the run, s.
    pub wall_s: f64,
    /// Clock cycles of the hardware model (hardware-in-the-loop AQMs only).
    pub cycles: Option<u64>,
    /// Packets offered to the AQM.
    pub packets: u64,
}

/// The median over seeds of one (point, AQM).
#[derive(Clone, Debug)]
pub struct SummaryRow {
    pub point: String,
    pub x: f64,
    pub aqm: String,
    pub columns: Vec<(String, Option<f64>)>,
}

/// Everything a scenario run produced.
#[derive(Clone, Debug)]
pub struct Report {
    pub scenario: Scenario,
    pub aqms: Vec<String>,
    pub seeds: Vec<u64>,
    /// In point-major, then AQM, then seed order.
    pub runs: Vec<RunResult>,
}

impl Report {
    /// Median over seeds per (point, AQM), in run order.
    pub fn summary(&self) -> Vec<SummaryRow> {
        let mut rows: Vec<SummaryRow> = Vec::new();
        for chunk in self
            .runs
            .chunk_by(|a, b| a.point == b.point && a.aqm == b.aqm)
        {
            let metrics: Vec<&RunMetrics> = chunk.iter().map(|r| &r.metrics).collect();
            rows.push(SummaryRow {
                point: chunk[0].point.clone(),
                x: chunk[0].x,
                aqm: chunk[0].aqm.clone(),
                columns: median_columns(&metrics),
            });
        }
        rows
    }
}

/// Runs one AQM through one point with one seed.
pub fn run_one(
    spec: &RunSpec,
    registry: &Registry,
    aqm: &AqmSpec,
    seed: u64,
) -> Result<(RunMetrics, RunSamples), Error> {
    run_one_costed(spec, registry, aqm, seed).map(|(m, s, _)| (m, s))
}

/// As [`run_one`], with what the run cost.
pub fn run_one_costed(
    spec: &RunSpec,
    registry: &Registry,
    aqm: &AqmSpec,
    seed: u64,
) -> Result<(RunMetrics, RunSamples, RunCost), Error> {
    run_wrapped(spec, registry, aqm, seed, |q| q)
}

/// As [`run_one_costed`], with every call to the AQM and its answer ([`crate::trace`]).
pub fn run_one_recorded(
    spec: &RunSpec,
    registry: &Registry,
    aqm: &AqmSpec,
    seed: u64,
) -> Result<(RunMetrics, RunCost, Vec<AqmEvent>), Error> {
    let log = trace::new_log();
    let (metrics, _, cost) = run_wrapped(spec, registry, aqm, seed, |q| {
        Box::new(Recorder::new(q, log.clone()))
    })?;
    Ok((metrics, cost, trace::take(&log)))
}

/// Runs the AQM `aqm` names, as `wrap` returns it, through one point with one seed.
fn run_wrapped(
    spec: &RunSpec,
    registry: &Registry,
    aqm: &AqmSpec,
    seed: u64,
    wrap: impl FnOnce(Box<dyn Aqm>) -> Box<dyn Aqm>,
) -> Result<(RunMetrics, RunSamples, RunCost), Error> {
    let ctx = FactoryContext {
        seed,
        link_rate_bps: spec.rate_bps,
    };
    let start = Instant::now();
    let q = wrap(registry.create(aqm, &ctx)?);
    let context = format!("aqm {aqm}, seed {seed}");
    let f = Simulation::new(spec, q, seed)
        .run_to_end()
        .map_err(|e| match e {
            RunError::Conservation(c) => Error::Conservation {
                context,
                detail: c.0,
            },
            RunError::Aqm(detail) => Error::Aqm { context, detail },
        })?;
    let cost = RunCost {
        wall_s: start.elapsed().as_secs_f64(),
        cycles: f.aqm.cycles_clocked(),
        packets: f.metrics.conservation.generated,
    };
    Ok((f.metrics, f.samples, cost))
}

/// One run of a grid: which point of the scenario, which AQM of the list, which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub point: usize,
    pub aqm: usize,
    pub seed: u64,
}

/// The runs of a grid of `points` points, `aqms` AQMs and `seeds`, in report order (point, then AQM,
/// then seed). The one expansion of a grid: `run` and `plan` both use it, so they cannot disagree.
pub fn expand(points: usize, aqms: usize, seeds: &[u64]) -> Vec<Job> {
    (0..points)
        .flat_map(|point| {
            (0..aqms).flat_map(move |aqm| seeds.iter().map(move |&seed| Job { point, aqm, seed }))
        })
        .collect()
}

/// Checks a grid before any work: the scenario is valid, there is something to run, and each AQM can
/// be made (so a bad name or parameter is reported once).
pub fn check_grid(
    scenario: &Scenario,
    aqms: &[AqmSpec],
    seeds: &[u64],
    registry: &Registry,
) -> Result<(), Error> {
    scenario
        .validate()
        .map_err(|e| Error::Config(format!("scenario {}: {e}", scenario.name)))?;
    if aqms.is_empty() || seeds.is_empty() {
        return Err(Error::Config("nothing to run: no AQM or no seed".into()));
    }
    // At every point's rate: an AQM's parameters may depend on it (a shaper's rate, RED's thresholds).
    let mut rates: Vec<u64> = scenario.points().iter().map(|p| p.spec.rate_bps).collect();
    rates.dedup();
    for a in aqms {
        for &link_rate_bps in &rates {
            registry.create(
                a,
                &FactoryContext {
                    seed: seeds[0],
                    link_rate_bps,
                },
            )?;
        }
    }
    Ok(())
}

/// Runs one job of a grid (`points` from [`Scenario::points`]); errors name the scenario and point.
pub fn run_job(
    scenario: &Scenario,
    points: &[Point],
    aqms: &[AqmSpec],
    job: Job,
    registry: &Registry,
) -> Result<RunResult, Error> {
    let point = &points[job.point];
    let aqm = &aqms[job.aqm];
    let seed = job.seed;
    let result =
        run_one_costed(&point.spec, registry, aqm, seed).map(|(metrics, samples, cost)| {
            RunResult {
                point: point.label.clone(),
                x: point.x,
                aqm: aqm.to_string(),
                seed,
                metrics,
                samples,
                cost,
            }
        });
    let context = |c: String| {
        format!(
            "scenario {}, {}{c}",
            scenario.name,
            point_prefix(&point.label)
        )
    };
    result.map_err(|e| match e {
        Error::Conservation { context: c, detail } => Error::Conservation {
            context: context(c),
            detail,
        },
        Error::Aqm { context: c, detail } => Error::Aqm {
            context: context(c),
            detail,
        },
        other => other,
    })
}

/// Runs every point of `scenario` for every AQM and seed, in parallel, with a progress bar on stderr if
/// `progress` is set and there is more than one run.
pub fn run_scenario(
    scenario: &Scenario,
    aqms: &[AqmSpec],
    seeds: &[u64],
    registry: &Registry,
    progress: bool,
) -> Result<Report, Error> {
    check_grid(scenario, aqms, seeds, registry)?;
    let points = scenario.points();
    let jobs = expand(points.len(), aqms.len(), seeds);
    let bar = if progress && jobs.len() > 1 {
        let b = ProgressBar::new(jobs.len() as u64);
        if let Ok(style) = ProgressStyle::with_template(
            "{prefix} [{bar:40}] {pos}/{len} runs, {elapsed} elapsed, ETA {eta}",
        ) {
            b.set_style(style.progress_chars("=> "));
        }
        b.set_prefix(scenario.name.clone());
        b
    } else {
        ProgressBar::hidden()
    };
    let runs = jobs
        .par_iter()
        .map(|&job| {
            let result = run_job(scenario, &points, aqms, job, registry);
            bar.inc(1);
            result
        })
        .collect::<Result<Vec<_>, _>>()?;
    bar.finish_and_clear();
    Ok(Report {
        scenario: scenario.clone(),
        aqms: aqms.iter().map(AqmSpec::to_string).collect(),
        seeds: seeds.to_vec(),
        runs,
    })
}

fn point_prefix(label: &str) -> String {
    if label.is_empty() {
        String::new()
    } else {
        format!("{label}, ")
    }
}
