//! `aqm-netsim`: run the simulator's scenarios for any AQM from the command line.

use aqm_netsim::output::{cost_table, per_seed_table, summary_table, write_all, write_cost};
use aqm_netsim::plot::write_plots;
use aqm_netsim::scenario::{named, NAMED};
use aqm_netsim::{bench, run_scenario, AqmSpec, Error, Registry, Scenario};
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
        /// A named scenario (see `list`).
        scenario: Option<String>,
        /// A scenario file (TOML; `show NAME` prints one to start from).
        #[arg(long, conflicts_with = "scenario")]
        config: Option<PathBuf>,
        /// AQMs, comma separated, each NAME or NAME:key=value,key=value (e.g. "pie,codel:target=5ms,interval=100ms").
        /// Default: the scenario's list, or every available AQM.
        #[arg(long, action = clap::ArgAction::Append)]
        aqm: Vec<String>,
        /// Seeds, comma separated. Default: the scenario's (1,2,3).
        #[arg(long, value_delimiter = ',')]
        seeds: Vec<u64>,
        /// Directory for summary.csv, runs.csv, results.json and the plots.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Also print every seed's row.
        #[arg(long)]
        per_seed: bool,
        /// Multiply every duration of the scenario by this (e.g. 0.1 for a quick look).
        #[arg(long, default_value_t = 1.0)]
        time_scale: f64,
        /// Skip the plots.
        #[arg(long)]
        no_plots: bool,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
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
        /// Run each point this many times and keep the fastest.
        #[arg(long, default_value_t = 5)]
        repeat: u32,
    },
}

/// Splits `--aqm` values on commas, keeping `key=value` items with the AQM before them:
/// "pie,codel:target=5ms,interval=100ms" is pie and codel:target=5ms,interval=100ms.
fn parse_aqm_list(values: &[String]) -> Result<Vec<AqmSpec>, Error> {
    let mut specs: Vec<String> = Vec::new();
    for v in values {
        for item in v.split(',') {
            let item = item.trim();
            match specs.last_mut() {
                Some(last) if item.contains('=') && !item.contains(':') && last.contains(':') => {
                    last.push(',');
                    last.push_str(item);
                }
                _ => specs.push(item.to_string()),
            }
        }
    }
    Ok(specs
        .iter()
        .map(|s| AqmSpec::parse(s))
        .collect::<Result<_, _>>()?)
}

fn load_scenario(name: Option<&str>, config: Option<&PathBuf>) -> Result<Scenario, Error> {
    match (name, config) {
        (_, Some(path)) => {
            let shown = path.display().to_string();
            let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
                path: shown.clone(),
                source,
            })?;
            Scenario::from_toml(&text, &shown).map_err(Error::Config)
        }
        (Some(n), None) => named(n).ok_or_else(|| {
            Error::Config(format!(
                "unknown scenario {n:?}; named scenarios: {}",
                NAMED.join(", ")
            ))
        }),
        (None, None) => Err(Error::Config(
            "name a scenario (see `aqm-netsim list`) or give --config FILE".into(),
        )),
    }
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
        Command::Run {
            scenario,
            config,
            aqm,
            seeds,
            out,
            per_seed,
            time_scale,
            no_plots,
            jobs,
        } => {
            let mut s = load_scenario(scenario.as_deref(), config.as_ref())?;
            if !(time_scale.is_finite() && time_scale > 0.0 && time_scale <= 100.0) {
                return Err(Error::Config(format!(
                    "--time-scale {time_scale}: must be more than 0 and at most 100"
                )));
            }
            if time_scale != 1.0 {
                s.scale_time(time_scale);
                s.validate()
                    .map_err(|e| Error::Config(format!("--time-scale {time_scale}: {e}")))?;
            }
            let aqms = if !aqm.is_empty() {
                parse_aqm_list(&aqm)?
            } else if !s.aqm.is_empty() {
                // A scenario's own list may name AQMs this build lacks (a hardware core not built
                // yet): leave them out and say so. Named on the command line, they are an error.
                let mut specs = parse_aqm_list(&s.aqm)?;
                specs.retain(|a| match registry.check_available(&a.name) {
                    Err(e @ aqm_netsim::RegistryError::NotAvailable { .. }) => {
                        eprintln!("aqm-netsim: note: leaving out {e}");
                        false
                    }
                    _ => true,
                });
                specs
            } else {
                registry
                    .available()
                    .iter()
                    .filter(|n| !aqm_netsim::registry::WRAPPERS.contains(&n.as_str()))
                    .map(|n| AqmSpec::parse(n))
                    .collect::<Result<_, _>>()?
            };
            let seeds = if seeds.is_empty() {
                s.seeds.clone()
            } else {
                seeds
            };
            if let Some(n) = jobs {
                // Only fails if the pool was already built, in which case it is used as it is.
                let _ = rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build_global();
            }
            let report = run_scenario(
                &s,
                &aqms,
                &seeds,
                &registry,
                std::io::stderr().is_terminal(),
            )?;
            print!("{}", summary_table(&report));
            if per_seed {
                println!();
                print!("{}", per_seed_table(&report));
            }
            println!();
            print!("{}", cost_table(&report));
            if let Some(dir) = out {
                let mut files = write_all(&report, &dir)?;
                files.push(write_cost(&report, &dir)?);
                if !no_plots {
                    files.extend(write_plots(&report, &dir)?);
                }
                eprintln!("wrote {} files to {}", files.len(), dir.display());
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aqm-netsim: error: {e}");
            ExitCode::FAILURE
        }
    }
}
