//! `plan`: a grid's runs as a manifest, with stable ids, and a wall-time estimate; and reading a plan
//! back (for `exec` and `merge`), checked against what this build makes of it.

use super::Grid;
use crate::registry::{AqmSpec, Registry};
use crate::runner::{check_grid, expand, run_one_costed, Job};
use crate::scenario::{Point, Scenario};
use crate::sim::{RunSpec, Traffic};
use crate::Error;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The format of plan.json, to refuse a plan from an incompatible version.
const FORMAT: &str = "aqm-netsim plan 1";

/// A run's simulated time above which the calibration run is shortened to this, ns.
const CALIBRATION_NS: u64 = 2_000_000_000;

/// One run of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRun {
    /// Stable id: a hash of the run's full configuration (scenario, point, AQM, seed, traffic), so it
    /// does not change when other runs are added to or taken from the grid.
    pub id: String,
    /// Position in report order (point, AQM, seed); shard K of N holds the runs with index % N == K.
    pub index: usize,
    pub job: Job,
}

/// A plan read back from its directory.
#[derive(Clone, Debug)]
pub struct Plan {
    pub dir: PathBuf,
    pub scenario: Scenario,
    pub aqms: Vec<AqmSpec>,
    pub seeds: Vec<u64>,
    pub points: Vec<Point>,
    pub runs: Vec<PlannedRun>,
}

impl Plan {
    /// Where run `id`'s result goes.
    pub fn result_path(&self, id: &str) -> PathBuf {
        results_dir(&self.dir).join(format!("{id}.toml"))
    }
}

/// The results folder of a plan directory.
pub fn results_dir(dir: &Path) -> PathBuf {
    dir.join("results")
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let shown = path.display().to_string();
    move |source| Error::Io {
        path: shown,
        source,
    }
}

/// A run's configuration in simulator units, every field named.
fn spec_json(spec: &RunSpec) -> Value {
    let traffic: Vec<Value> = spec
        .traffic
        .iter()
        .map(|t| match t {
            Traffic::Long {
                cc,
                ecn,
                count,
                rtt_ns,
            } => json!({ "kind": "long", "cc": format!("{cc:?}"), "ecn": format!("{ecn:?}"),
                         "count": count, "rtt_ns": rtt_ns }),
            Traffic::Short {
                per_second,
                packets,
                rtt_ns,
            } => json!({ "kind": "short", "per_second": per_second, "packets": packets,
                         "rtt_ns": rtt_ns }),
            Traffic::Probe {
                interval_ns,
                size,
                rtt_ns,
            } => json!({ "kind": "probe", "interval_ns": interval_ns, "size": size,
                         "rtt_ns": rtt_ns }),
            Traffic::Cbr {
                rate_bps,
                size,
                rtt_ns,
            } => json!({ "kind": "cbr", "rate_bps": rate_bps, "size": size, "rtt_ns": rtt_ns }),
        })
        .collect();
    json!({
        "rate_bps": spec.rate_bps,
        "duration_ns": spec.duration_ns,
        "warmup_ns": spec.warmup_ns,
        "packet_size": spec.packet_size,
        "traffic": traffic,
        "timeseries_bin_ns": spec.timeseries_bin_ns,
        "checkpoints": spec.checkpoints,
    })
}

/// 64-bit FNV-1a: small, fixed and the same on every machine.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The runs of a grid with their ids, and the manifest (one JSON line per run).
fn manifest(
    scenario: &Scenario,
    points: &[Point],
    aqms: &[AqmSpec],
    seeds: &[u64],
) -> Result<(Vec<PlannedRun>, String), Error> {
    let mut runs: Vec<PlannedRun> = Vec::new();
    let mut text = String::new();
    for (index, job) in expand(points.len(), aqms.len(), seeds)
        .into_iter()
        .enumerate()
    {
        let point = &points[job.point];
        let aqm = aqms[job.aqm].to_string();
        let config = json!({
            "scenario": scenario.name,
            "point": point.label,
            "aqm": aqm,
            "seed": job.seed,
            "run": spec_json(&point.spec),
        });
        let id = format!("{:016x}", fnv1a(config.to_string().as_bytes()));
        if let Some(twin) = runs.iter().find(|r| r.id == id) {
            return Err(Error::Config(format!(
                "runs {} and {index} are the same run ({}, {aqm}, seed {}): is an AQM or a seed given twice?",
                twin.index, point.label, job.seed
            )));
        }
        let line = json!({ "id": id, "index": index, "config": config });
        let _ = writeln!(text, "{line}");
        runs.push(PlannedRun { id, index, job });
    }
    Ok((runs, text))
}

/// What `plan` wrote and estimated.
#[derive(Clone, Debug)]
pub struct PlanSummary {
    pub runs: usize,
    pub points: usize,
    pub aqms: usize,
    pub seeds: usize,
    /// Estimated wall time of all runs on one core, s, and per AQM kind (name, s per run on average);
    /// None without calibration.
    pub estimate_s: Option<f64>,
    pub per_kind: Vec<(String, f64)>,
    /// Runs that already have a result (a plan written again over the same directory).
    pub done: usize,
}

impl PlanSummary {
    /// The lines `plan` prints.
    pub fn report(&self, dir: &Path) -> String {
        let mut out = format!(
            "{} runs ({} points x {} AQMs x {} seeds) in {}\n",
            self.runs,
            self.points,
            self.aqms,
            self.seeds,
            dir.join("manifest.jsonl").display()
        );
        if self.done > 0 {
            let _ = writeln!(out, "{} of them already have a result", self.done);
        }
        if let Some(total) = self.estimate_s {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let _ = writeln!(
                out,
                "estimated wall time: {} on one core, {} on {cores} cores of this machine",
                human(total),
                human(total / cores as f64)
            );
            for (kind, s) in &self.per_kind {
                let _ = writeln!(out, "  {kind:<14} {s:.3} s per run on average");
            }
        }
        out
    }
}

/// A duration in s, min or h.
fn human(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.1} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Wall time per simulated ns of one AQM kind at one point, from a run cut to at most
/// [`CALIBRATION_NS`] of simulated time.
fn calibrate(point: &Point, aqm: &AqmSpec, seed: u64, registry: &Registry) -> Result<f64, Error> {
    let mut spec = point.spec.clone();
    if spec.duration_ns > CALIBRATION_NS {
        let f = CALIBRATION_NS as f64 / spec.duration_ns as f64;
        spec.warmup_ns = (spec.warmup_ns as f64 * f) as u64;
        spec.duration_ns = CALIBRATION_NS;
        spec.checkpoints.clear();
    }
    let (_, _, cost) = run_one_costed(&spec, registry, aqm, seed)?;
    Ok(cost.wall_s / spec.duration_ns as f64)
}

/// Writes the plan of `grid` into `dir`: plan.json, scenario.toml, manifest.jsonl and an empty
/// results/. A directory that already holds a plan keeps it (and its results) if the new one is the
/// same grid, and is refused otherwise.
pub fn write_plan(
    grid: &Grid,
    dir: &Path,
    registry: &Registry,
    calibration: bool,
) -> Result<PlanSummary, Error> {
    let Grid {
        scenario,
        aqms,
        seeds,
    } = grid;
    check_grid(scenario, aqms, seeds, registry)?;
    for a in aqms {
        if AqmSpec::parse(&a.to_string()).ok().as_ref() != Some(a) {
            return Err(Error::Config(format!(
                "AQM {a}: does not read back as itself, so it cannot go into a plan"
            )));
        }
    }
    let points = scenario.points();
    let (runs, text) = manifest(scenario, &points, aqms, seeds)?;
    let manifest_path = dir.join("manifest.jsonl");
    if manifest_path.exists() {
        let old = std::fs::read_to_string(&manifest_path).map_err(io(&manifest_path))?;
        if old != text {
            return Err(Error::Config(format!(
                "{} already holds a different plan; give another --out or delete it",
                dir.display()
            )));
        }
    }
    let mut per_kind: Vec<(String, f64)> = Vec::new();
    let mut estimate_s = None;
    if calibration {
        // One short run per AQM kind and point, scaled by the simulated time of each run; the first
        // one twice, so that what the process does once is not counted.
        let kinds: Vec<&AqmSpec> = aqms
            .iter()
            .enumerate()
            .filter(|(i, a)| !aqms[..*i].iter().any(|b| b.name == a.name))
            .map(|(_, a)| a)
            .collect();
        calibrate(&points[0], kinds[0], seeds[0], registry)?;
        let mut total = 0.0;
        for kind in kinds {
            let per_ns: Vec<f64> = points
                .iter()
                .map(|p| calibrate(p, kind, seeds[0], registry))
                .collect::<Result<_, _>>()?;
            let mine: Vec<f64> = runs
                .iter()
                .filter(|r| aqms[r.job.aqm].name == kind.name)
                .map(|r| per_ns[r.job.point] * points[r.job.point].spec.duration_ns as f64)
                .collect();
            let sum: f64 = mine.iter().sum();
            total += sum;
            per_kind.push((kind.name.clone(), sum / mine.len().max(1) as f64));
        }
        estimate_s = Some(total);
    }
    let results = results_dir(dir);
    std::fs::create_dir_all(&results).map_err(io(&results))?;
    let plan = json!({
        "format": FORMAT,
        "scenario": scenario.name,
        "aqms": aqms.iter().map(AqmSpec::to_string).collect::<Vec<_>>(),
        "seeds": seeds,
        "points": points.iter().map(|p| p.label.clone()).collect::<Vec<_>>(),
        "runs": runs.len(),
        "estimated_wall_s_one_core": estimate_s,
    });
    let plan_text = serde_json::to_string_pretty(&plan).unwrap_or_default() + "\n";
    super::result::write_atomic(&dir.join("scenario.toml"), &scenario.to_toml())?;
    super::result::write_atomic(&dir.join("plan.json"), &plan_text)?;
    super::result::write_atomic(&manifest_path, &text)?;
    let done = runs
        .iter()
        .filter(|r| results.join(format!("{}.toml", r.id)).exists())
        .count();
    Ok(PlanSummary {
        runs: runs.len(),
        points: points.len(),
        aqms: aqms.len(),
        seeds: seeds.len(),
        estimate_s,
        per_kind,
        done,
    })
}

/// Reads the plan in `dir` and checks that this build expands its scenario, AQMs and seeds into the
/// same manifest (a plan from another version of the simulator is refused, not run differently).
pub fn load(dir: &Path) -> Result<Plan, Error> {
    let read = |name: &str| {
        let p = dir.join(name);
        std::fs::read_to_string(&p).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::Config(format!(
                "{}: no such file; is {} a directory made by `aqm-netsim plan`?",
                p.display(),
                dir.display()
            )),
            _ => io(&p)(e),
        })
    };
    let plan_path = dir.join("plan.json").display().to_string();
    let bad = |why: &str| Error::Config(format!("{plan_path}: {why}"));
    let plan: Value = serde_json::from_str(&read("plan.json")?).map_err(|e| bad(&e.to_string()))?;
    if plan["format"] != FORMAT {
        return Err(bad(&format!(
            "format {} is not {FORMAT:?}; plan again with this build",
            plan["format"]
        )));
    }
    let aqms: Vec<AqmSpec> = plan["aqms"]
        .as_array()
        .ok_or_else(|| bad("no aqms list"))?
        .iter()
        .map(|a| {
            a.as_str()
                .ok_or_else(|| bad("an AQM is not a string"))
                .and_then(|s| AqmSpec::parse(s).map_err(Error::from))
        })
        .collect::<Result<_, _>>()?;
    let seeds: Vec<u64> = plan["seeds"]
        .as_array()
        .ok_or_else(|| bad("no seeds list"))?
        .iter()
        .map(|s| {
            s.as_u64()
                .ok_or_else(|| bad("a seed is not a whole number"))
        })
        .collect::<Result<_, _>>()?;
    let scenario_path = dir.join("scenario.toml").display().to_string();
    let scenario =
        Scenario::from_toml(&read("scenario.toml")?, &scenario_path).map_err(Error::Config)?;
    let points = scenario.points();
    let (runs, text) = manifest(&scenario, &points, &aqms, &seeds)?;
    let on_disk = read("manifest.jsonl")?;
    if on_disk != text {
        let line = on_disk
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| on_disk.lines().count().min(text.lines().count()));
        return Err(Error::Config(format!(
            "{}: line {} is not what this build makes of scenario.toml and plan.json; plan again with \
             this build",
            dir.join("manifest.jsonl").display(),
            line + 1
        )));
    }
    Ok(Plan {
        dir: dir.to_path_buf(),
        scenario,
        aqms,
        seeds,
        points,
        runs,
    })
}
