//! `merge`: the report of a plan whose runs all have a result, in report order, as `run` makes it.

use super::manifest::load;
use super::result;
use crate::registry::AqmSpec;
use crate::runner::Report;
use crate::Error;
use std::fmt::Write as _;
use std::path::Path;

/// Reads every result of the plan in `dir` into a [`Report`]. Runs without a result (or with a result
/// file that is not this run's) are all listed in the error, with their ids.
pub fn merge(dir: &Path) -> Result<Report, Error> {
    let plan = load(dir)?;
    let mut runs = Vec::with_capacity(plan.runs.len());
    let mut missing = Vec::new();
    let mut broken = Vec::new();
    for r in &plan.runs {
        let path = plan.result_path(&r.id);
        let point = &plan.points[r.job.point];
        let aqm = plan.aqms[r.job.aqm].to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing.push((r, point, aqm));
                continue;
            }
            Err(source) => {
                return Err(Error::Io {
                    path: path.display().to_string(),
                    source,
                })
            }
        };
        match result::from_text(&text, point.x, &path.display().to_string()) {
            Ok(stored)
                if stored.id == r.id
                    && stored.result.point == point.label
                    && stored.result.aqm == aqm
                    && stored.result.seed == r.job.seed =>
            {
                runs.push(stored.result)
            }
            Ok(_) => broken.push(format!("{}: holds another run's result", path.display())),
            Err(e) => broken.push(e.to_string()),
        }
    }
    if !missing.is_empty() || !broken.is_empty() {
        let mut msg = String::new();
        if !missing.is_empty() {
            let _ = writeln!(
                msg,
                "{} of the {} runs have no result yet (exec them, by shard or --run ID):",
                missing.len(),
                plan.runs.len()
            );
            for (r, point, aqm) in &missing {
                let _ = writeln!(
                    msg,
                    "  missing run {} (index {}: {}{aqm}, seed {})",
                    r.id,
                    r.index,
                    if point.label.is_empty() {
                        String::new()
                    } else {
                        format!("{}, ", point.label)
                    },
                    r.job.seed
                );
            }
        }
        for b in &broken {
            let _ = writeln!(msg, "  {b} (delete it and exec the run again)");
        }
        return Err(Error::Config(msg.trim_end().to_string()));
    }
    Ok(Report {
        scenario: plan.scenario.clone(),
        aqms: plan.aqms.iter().map(AqmSpec::to_string).collect(),
        seeds: plan.seeds.clone(),
        runs,
    })
}
