//! `exec`: runs one shard of a plan (or named runs), each run's result written atomically into its own
//! file; runs that already have a result are skipped, so a killed job, run again, goes on where it
//! stopped.

use super::manifest::{load, PlannedRun};
use super::result;
use crate::registry::Registry;
use crate::runner::run_job;
use crate::Error;
use rayon::prelude::*;
use std::path::Path;

/// Which runs of a plan to execute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Every run.
    All,
    /// Shard `k` of `n` (0 <= k < n): the runs whose index % n == k.
    Shard { k: usize, n: usize },
    /// These runs, by id.
    Runs(Vec<String>),
}

impl Selection {
    /// Parses `K/N` (K from 0 to N-1, as `$SLURM_ARRAY_TASK_ID` counts with `--array=0-(N-1)`).
    pub fn shard(s: &str) -> Result<Selection, Error> {
        let bad = |why: &str| Error::Config(format!("--shard {s:?}: {why}"));
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| bad("expected K/N, e.g. 0/8"))?;
        let k: usize = k
            .trim()
            .parse()
            .map_err(|_| bad("K is not a whole number"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        if n == 0 {
            return Err(bad("N must be at least 1"));
        }
        if k >= n {
            return Err(bad(&format!("K must be from 0 to {} (N - 1)", n - 1)));
        }
        Ok(Selection::Shard { k, n })
    }

    fn label(&self) -> String {
        match self {
            Selection::All => "all runs".into(),
            Selection::Shard { k, n } => format!("shard {k}/{n}"),
            Selection::Runs(ids) => format!("{} named runs", ids.len()),
        }
    }
}

/// What `exec` did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecSummary {
    /// Runs in the selection.
    pub selected: usize,
    /// Of them, runs that had a result already.
    pub skipped: usize,
    /// Runs run now and written.
    pub ran: usize,
    /// Runs that failed: (id, error).
    pub failed: Vec<(String, String)>,
}

/// Runs the selected runs of the plan in `dir` that have no result yet, in parallel on the current
/// rayon pool, writing each result as it finishes. Messages go to stderr; a failed run does not stop
/// the others, and the summary lists it.
pub fn exec(dir: &Path, selection: &Selection, registry: &Registry) -> Result<ExecSummary, Error> {
    let plan = load(dir)?;
    let chosen: Vec<&PlannedRun> = match selection {
        Selection::All => plan.runs.iter().collect(),
        Selection::Shard { k, n } => plan.runs.iter().filter(|r| r.index % n == *k).collect(),
        Selection::Runs(ids) => {
            let mut out = Vec::new();
            for id in ids {
                let r = plan.runs.iter().find(|r| r.id == *id).ok_or_else(|| {
                    Error::Config(format!(
                        "--run {id}: no such run in {}/manifest.jsonl",
                        dir.display()
                    ))
                })?;
                if !out.contains(&r) {
                    out.push(r);
                }
            }
            out
        }
    };
    let pending: Vec<&PlannedRun> = chosen
        .iter()
        .copied()
        .filter(|r| !plan.result_path(&r.id).exists())
        .collect();
    let mut summary = ExecSummary {
        selected: chosen.len(),
        skipped: chosen.len() - pending.len(),
        ..ExecSummary::default()
    };
    // The results directory takes files: checked before any run, not after the first one.
    if let Some(results) = pending
        .first()
        .and_then(|r| plan.result_path(&r.id).parent().map(Path::to_path_buf))
    {
        crate::output::check_out_dir(&results, "the plan's results directory")?;
    }
    eprintln!(
        "aqm-netsim exec {}: {}: {} runs, {} already done, {} to run",
        dir.display(),
        selection.label(),
        summary.selected,
        summary.skipped,
        pending.len()
    );
    let outcomes: Vec<(String, Result<(), Error>)> = pending
        .par_iter()
        .map(|r| {
            let outcome = run_job(&plan.scenario, &plan.points, &plan.aqms, r.job, registry)
                .and_then(|res| {
                    let text = result::to_text(&r.id, &res)?;
                    result::write_atomic(&plan.result_path(&r.id), &text)?;
                    eprintln!(
                        "aqm-netsim exec: run {} done ({}{}, seed {}, {:.3} s)",
                        r.id,
                        if res.point.is_empty() {
                            String::new()
                        } else {
                            format!("{}, ", res.point)
                        },
                        res.aqm,
                        res.seed,
                        res.cost.wall_s
                    );
                    Ok(())
                });
            (r.id.clone(), outcome)
        })
        .collect();
    for (id, outcome) in outcomes {
        match outcome {
            Ok(()) => summary.ran += 1,
            Err(e) => {
                eprintln!(
                    "aqm-netsim exec: run {id} failed: {}",
                    aqm_golden::text::escape_controls(&e.to_string())
                );
                summary.failed.push((id, e.to_string()));
            }
        }
    }
    Ok(summary)
}
