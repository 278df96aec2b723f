//! `aqm-netsim`: run the simulator's scenarios for any AQM from the command line.

use aqm_netsim::output::{
    check_out_dir, conservation_lines, cost_table, per_seed_table, summary_table, write_all,
    write_cost,
};
use aqm_netsim::plot::write_plots;
use aqm_netsim::scenario::{named, NAMED};
use aqm_netsim::sweep::{self, load_scenario, GridArgs};
use aqm_netsim::{bench, run_scenario, AqmSpec, Error, Registry, Report};
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "aqm-netsim",
    version,
    about = "Packet-level simulator of a bottleneck with any AQM"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a named scenario or one from a TOML file for one or more AQMs and seeds.
    Run {
        #[command(flatten)]
        grid: GridArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// Worker threads, 1 to 4 per core (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Write a grid's runs into DIR as a manifest (one line per run, with a stable id), to run by shards
    /// with `exec` (on a cluster: a Slurm job array, GNU parallel) and gather with `merge`; prints the
    /// number of runs and an estimate of the wall time.
    Plan {
        #[command(flatten)]
        grid: GridArgs,
        /// The plan directory.
        #[arg(long)]
        out: PathBuf,
        /// Skip the calibration runs (and the wall-time estimate).
        #[arg(long)]
        no_calibration: bool,
    },
    /// Run the runs of a plan that have no result yet: shard K of N, named runs, or all. Each result is
    /// written atomically into DIR/results/ID.toml, so a killed job, run again, resumes.
    Exec {
        /// A directory made by `plan`.
        dir: PathBuf,
        /// Shard K of N (K from 0 to N-1): the runs whose index modulo N is K.
        #[arg(long, value_name = "K/N", conflicts_with = "run")]
        shard: Option<String>,
        /// A run by id (from DIR/manifest.jsonl); may be repeated.
        #[arg(long = "run", value_name = "ID", action = clap::ArgAction::Append)]
        run: Vec<String>,
        /// Worker threads, 1 to 4 per core (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Gather a plan's results into the tables, CSV, JSON and plots `run` makes; names every run that
    /// has no result yet.
    Merge {
        /// A directory made by `plan`.
        dir: PathBuf,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// List the named scenarios and the AQMs.
    List,
    /// Print a named scenario as TOML.
    Show { scenario: String },
    /// Time one run per point of a scenario for one AQM and seed: events and packets per second.
    Bench {
        #[arg(long, default_value = "mix")]
        scenario: String,
        #[arg(long, default_value = "codel")]
        aqm: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Run each point this many times and keep the fastest (1..=1000).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
        repeat: u32,
    },
}

/// What `run` and `merge` print and write.
#[derive(clap::Args)]
struct OutputArgs {
    /// Directory for summary.csv, runs.csv, results.json and the plots.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also print every seed's row.
    #[arg(long)]
    per_seed: bool,
    /// Skip the plots.
    #[arg(long)]
    no_plots: bool,
}

/// Prints a report's tables and writes its files: the same for `run` and `merge`.
fn emit(report: &Report, o: &OutputArgs) -> Result<(), Error> {
    print!("{}", summary_table(report));
    if o.per_seed {
        println!();
        print!("{}", per_seed_table(report));
    }
    println!();
    print!("{}", conservation_lines(report, o.per_seed));
    println!();
    print!("{}", cost_table(report));
    if let Some(dir) = &o.out {
        let mut files = write_all(report, dir)?;
        files.push(write_cost(report, dir)?);
        if !o.no_plots {
            files.extend(write_plots(report, dir)?);
        }
        eprintln!("wrote {} files to {}", files.len(), dir.display());
    }
    Ok(())
}

/// Worker threads per core `--jobs` may ask for at most.
const JOBS_PER_CORE: usize = 4;

/// Sets the worker threads, `--jobs` checked: 1 to [`JOBS_PER_CORE`] per core of this machine.
fn set_jobs(jobs: Option<usize>) -> Result<(), Error> {
    let Some(n) = jobs else { return Ok(()) };
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let max = cores * JOBS_PER_CORE;
    if !(1..=max).contains(&n) {
        return Err(Error::Config(format!(
            "--jobs {n}: expected 1..={max} ({JOBS_PER_CORE} per core, {cores} cores here)"
        )));
    }
    // Only fails if the pool was already built, in which case it is used as it is.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global();
    Ok(())
}

fn run(cli: Cli) -> Result<(), Error> {
    let registry = Registry::with_builtins();
    match cli.command {
        Command::List => {
            println!("scenarios:");
            for n in NAMED {
                if let Some(s) = named(n) {
                    println!("  {n:<14} {}", s.description);
                }
            }
            println!("AQMs:");
            for row in registry.list() {
                let aliases = if row.aliases.is_empty() {
                    String::new()
                } else {
                    format!(" (alias {})", row.aliases.join(", "))
                };
                let state = if row.available {
                    ""
                } else {
                    " [not available yet]"
                };
                println!("  {:<14} {}{aliases}{state}", row.name, row.about);
            }
        }
        Command::Show { scenario } => print!("{}", load_scenario(Some(&scenario), None)?.to_toml()),
        Command::Bench {
            scenario,
            aqm,
            seed,
            repeat,
        } => {
            let s = load_scenario(Some(&scenario), None)?;
            let r = bench::bench(&s, &AqmSpec::parse(&aqm)?, seed, &registry, repeat)?;
            println!("{}", r.report());
        }
        Command::Run { grid, output, jobs } => {
            set_jobs(jobs)?;
            if let Some(dir) = &output.out {
                check_out_dir(dir, "--out")?;
            }
            let g = grid.resolve(&registry)?;
            let report = run_scenario(
                &g.scenario,
                &g.aqms,
                &g.seeds,
                &registry,
                std::io::stderr().is_terminal(),
            )?;
            emit(&report, &output)?;
        }
        Command::Plan {
            grid,
            out,
            no_calibration,
        } => {
            check_out_dir(&out, "--out")?;
            let g = grid.resolve(&registry)?;
            let summary = sweep::manifest::write_plan(&g, &out, &registry, !no_calibration)?;
            print!("{}", summary.report(&out));
        }
        Command::Exec {
            dir,
            shard,
            run,
            jobs,
        } => {
            let selection = match shard {
                Some(s) => sweep::exec::Selection::shard(&s)?,
                None if !run.is_empty() => sweep::exec::Selection::Runs(run),
                None => sweep::exec::Selection::All,
            };
            set_jobs(jobs)?;
            let s = sweep::exec::exec(&dir, &selection, &registry)?;
            eprintln!(
                "aqm-netsim exec: {} runs: {} already done, {} run now, {} failed",
                s.selected,
                s.skipped,
                s.ran,
                s.failed.len()
            );
            if !s.failed.is_empty() {
                return Err(Error::Config(format!(
                    "{} runs failed: {}",
                    s.failed.len(),
                    s.failed
                        .iter()
                        .map(|(id, _)| id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        Command::Merge { dir, output } => {
            if let Some(out) = &output.out {
                check_out_dir(out, "--out")?;
            }
            let report = sweep::merge::merge(&dir)?;
            emit(&report, &output)?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "aqm-netsim: error: {}",
                aqm_golden::text::escape_controls(&e.to_string())
            );
            ExitCode::FAILURE
        }
    }
}
