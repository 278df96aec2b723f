//! Grids that outgrow one machine: `plan` writes a manifest of runs, `exec` runs a shard of it (each run's
//! result in its own file, written atomically, so a killed job resumes), `merge` makes the tables, files
//! and plots that `run` would have made, byte for byte.
//!
//! A grid is a scenario's points x AQMs (each with its parameter variants, `--sweep codel.target=1ms,5ms`
//! or `[aqm_sweep.codel] target = ["1ms", "5ms"]` in the scenario file) x seeds. [`GridArgs::resolve`]
//! turns the command line into one, and [`crate::runner::expand`] into runs, for `run` and `plan` alike.
//!
//! A plan directory holds `plan.json` (the AQMs, seeds and run count), `scenario.toml` (the scenario as
//! resolved, time scale applied), `manifest.jsonl` (one line per run: id, point, AQM, seed and the run's
//! full configuration) and `results/ID.toml`, one file per finished run.

pub mod exec;
pub mod manifest;
pub mod merge;
pub mod result;

use crate::registry::{AqmSpec, Registry, RegistryError};
use crate::scenario::{named, Scenario, NAMED};
use crate::Error;
use std::path::PathBuf;

/// The command-line arguments that name a grid (shared by `run` and `plan`).
#[derive(clap::Args, Clone, Debug)]
pub struct GridArgs {
    /// A named scenario (see `list`).
    pub scenario: Option<String>,
    /// A scenario file (TOML; `show NAME` prints one to start from).
    #[arg(long, conflicts_with = "scenario")]
    pub config: Option<PathBuf>,
    /// AQMs, comma separated, each NAME or NAME:key=value,key=value (e.g. "pie,codel:target=5ms,interval=100ms").
    /// Default: the scenario's list, or every available AQM.
    #[arg(long, action = clap::ArgAction::Append)]
    pub aqm: Vec<String>,
    /// Seeds, comma separated. Default: the scenario's (1,2,3).
    #[arg(long, value_delimiter = ',')]
    pub seeds: Vec<u64>,
    /// An AQM parameter sweep, AQM.PARAM=V1,V2,... (e.g. codel.target=1ms,5ms,20ms): each such AQM
    /// becomes one variant per value. Repeat for a product of several parameters.
    #[arg(long = "sweep", value_name = "KEY=V1,V2,..", action = clap::ArgAction::Append)]
    pub sweep: Vec<String>,
    /// Multiply every duration of the scenario by this (e.g. 0.1 for a quick look).
    #[arg(long, default_value_t = 1.0)]
    pub time_scale: f64,
}

/// A resolved grid: the scenario (time scale applied), the AQMs with their variants, the seeds.
#[derive(Clone, Debug)]
pub struct Grid {
    pub scenario: Scenario,
    pub aqms: Vec<AqmSpec>,
    pub seeds: Vec<u64>,
}

/// A named scenario or one from a TOML file.
pub fn load_scenario(name: Option<&str>, config: Option<&PathBuf>) -> Result<Scenario, Error> {
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

/// Splits `--aqm` values on commas, keeping `key=value` items with the AQM before them:
/// "pie,codel:target=5ms,interval=100ms" is pie and codel:target=5ms,interval=100ms.
pub fn parse_aqm_list(values: &[String]) -> Result<Vec<AqmSpec>, Error> {
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

/// One AQM parameter sweep: every AQM named `aqm` gets one variant per value of `param`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSweep {
    pub aqm: String,
    pub param: String,
    pub values: Vec<String>,
}

impl ParamSweep {
    /// Parses `AQM.PARAM=V1,V2,...`.
    pub fn parse(s: &str) -> Result<ParamSweep, Error> {
        let bad = |why: &str| {
            Error::Config(format!(
                "--sweep {s:?}: {why} (expected AQM.PARAM=V1,V2,..., e.g. codel.target=1ms,5ms,20ms)"
            ))
        };
        let (key, values) = s.split_once('=').ok_or_else(|| bad("no '='"))?;
        let (aqm, param) = key.trim().split_once('.').ok_or_else(|| {
            bad("the key names no AQM (a scenario's own dimension is swept by [sweep] in its file)")
        })?;
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        ParamSweep::new(aqm, param, values).map_err(|why| bad(&why))
    }

    fn new(aqm: &str, param: &str, values: Vec<String>) -> Result<ParamSweep, String> {
        let (aqm, param) = (aqm.trim(), param.trim());
        if aqm.is_empty() || param.is_empty() {
            return Err("empty AQM or parameter name".into());
        }
        if values
            .iter()
            .any(|v| v.is_empty() || v.contains([',', ':']))
        {
            return Err("a value is empty or holds ',' or ':'".into());
        }
        if values.is_empty() {
            return Err("no values".into());
        }
        for (i, v) in values.iter().enumerate() {
            if values[..i].contains(v) {
                return Err(format!("value {v} is given twice"));
            }
        }
        Ok(ParamSweep {
            aqm: aqm.to_string(),
            param: param.to_string(),
            values,
        })
    }

    /// The sweeps of a scenario file's `[aqm_sweep]` table: `[aqm_sweep.codel] target = ["1ms", "5ms"]`
    /// (or `"codel.target" = [...]`), in key order. Numbers and switches may be written bare.
    pub fn from_table(table: &toml::Table) -> Result<Vec<ParamSweep>, Error> {
        let bad = |key: &str, why: &str| Error::Config(format!("aqm_sweep.{key}: {why}"));
        let list = |key: &str, v: &toml::Value| -> Result<Vec<String>, Error> {
            let items = v
                .as_array()
                .ok_or_else(|| bad(key, "expected a list of values"))?;
            items
                .iter()
                .map(|i| match i {
                    toml::Value::String(s) => Ok(s.clone()),
                    toml::Value::Integer(n) => Ok(n.to_string()),
                    toml::Value::Float(x) => Ok(x.to_string()),
                    toml::Value::Boolean(b) => Ok(b.to_string()),
                    _ => Err(bad(key, "values must be strings, numbers or true/false")),
                })
                .collect()
        };
        let mut out = Vec::new();
        for (k, v) in table {
            match v {
                toml::Value::Table(params) => {
                    for (p, values) in params {
                        let key = format!("{k}.{p}");
                        let values = list(&key, values)?;
                        out.push(ParamSweep::new(k, p, values).map_err(|why| bad(&key, &why))?);
                    }
                }
                _ => {
                    let (aqm, param) = k.split_once('.').ok_or_else(|| {
                        bad(
                            k,
                            "expected [aqm_sweep.AQM] PARAM = [...] or \"AQM.PARAM\" = [...]",
                        )
                    })?;
                    let values = list(k, v)?;
                    out.push(ParamSweep::new(aqm, param, values).map_err(|why| bad(k, &why))?);
                }
            }
        }
        Ok(out)
    }
}

/// Every AQM of `aqms` with its variants under `sweeps`, in order: an AQM with sweeps becomes the
/// product of their values (the first sweep varying slowest), appended to its own parameters. A sweep
/// whose AQM is not in the list, or a parameter the AQM already sets, is an error.
pub fn apply_sweeps(aqms: &[AqmSpec], sweeps: &[ParamSweep]) -> Result<Vec<AqmSpec>, Error> {
    for s in sweeps {
        if !aqms.iter().any(|a| a.name == s.aqm) {
            return Err(Error::Config(format!(
                "sweep {}.{}: {:?} is not one of the AQMs ({})",
                s.aqm,
                s.param,
                s.aqm,
                aqms.iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    let mut out = Vec::new();
    for a in aqms {
        let mut variants = vec![a.clone()];
        for s in sweeps.iter().filter(|s| s.aqm == a.name) {
            if a.params.iter().any(|(k, _)| *k == s.param) {
                return Err(Error::Config(format!(
                    "sweep {}.{}: {a} already sets {}",
                    s.aqm, s.param, s.param
                )));
            }
            variants = variants
                .iter()
                .flat_map(|v| {
                    s.values.iter().map(move |value| {
                        let mut v = v.clone();
                        v.params.push((s.param.clone(), value.clone()));
                        v
                    })
                })
                .collect();
        }
        out.extend(variants);
    }
    Ok(out)
}

impl GridArgs {
    /// The grid these arguments name. AQMs of the scenario's own list that this build lacks are left
    /// out with a note on stderr; named on the command line they are an error.
    pub fn resolve(&self, registry: &Registry) -> Result<Grid, Error> {
        let mut s = load_scenario(self.scenario.as_deref(), self.config.as_ref())?;
        let time_scale = self.time_scale;
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
        let aqms = if !self.aqm.is_empty() {
            parse_aqm_list(&self.aqm)?
        } else if !s.aqm.is_empty() {
            let mut specs = parse_aqm_list(&s.aqm)?;
            specs.retain(|a| match registry.check_available(&a.name) {
                Err(e @ RegistryError::NotAvailable { .. }) => {
                    eprintln!(
                        "aqm-netsim: note: leaving out {}",
                        aqm_golden::text::escape_controls(&e.to_string())
                    );
                    false
                }
                _ => true,
            });
            specs
        } else {
            registry
                .available()
                .iter()
                .filter(|n| !crate::registry::WRAPPERS.contains(&n.as_str()))
                .map(|n| AqmSpec::parse(n))
                .collect::<Result<_, _>>()?
        };
        let mut sweeps = ParamSweep::from_table(&s.aqm_sweep)?;
        for arg in &self.sweep {
            let p = ParamSweep::parse(arg)?;
            // The command line overrides the file's sweep of the same parameter.
            sweeps.retain(|q| !(q.aqm == p.aqm && q.param == p.param));
            sweeps.push(p);
        }
        let aqms = apply_sweeps(&aqms, &sweeps)?;
        let seeds = if self.seeds.is_empty() {
            s.seeds.clone()
        } else {
            self.seeds.clone()
        };
        Ok(Grid {
            scenario: s,
            aqms,
            seeds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(list: &str) -> Vec<AqmSpec> {
        parse_aqm_list(&[list.to_string()]).unwrap()
    }

    #[test]
    fn sweeps_make_one_variant_per_value_in_order() {
        let sweeps = [
            ParamSweep::parse("codel.target=1ms,5ms").unwrap(),
            ParamSweep::parse("codel.interval=50ms,100ms").unwrap(),
        ];
        let out = apply_sweeps(&specs("pie,codel:ecn=on"), &sweeps).unwrap();
        let names: Vec<String> = out.iter().map(AqmSpec::to_string).collect();
        assert_eq!(
            names,
            [
                "pie",
                "codel:ecn=on,target=1ms,interval=50ms",
                "codel:ecn=on,target=1ms,interval=100ms",
                "codel:ecn=on,target=5ms,interval=50ms",
                "codel:ecn=on,target=5ms,interval=100ms",
            ]
        );
    }

    #[test]
    fn bad_sweeps_are_errors_that_say_why() {
        let err = |s: &str| ParamSweep::parse(s).unwrap_err().to_string();
        assert!(err("codel.target").contains("no '='"));
        assert!(err("rate=1Mbit").contains("names no AQM"));
        assert!(err("codel.target=1ms,,2ms").contains("empty"));
        assert!(err("codel.target=1ms,1ms").contains("twice"));
        let e = apply_sweeps(
            &specs("pie"),
            &[ParamSweep::parse("codel.target=1ms").unwrap()],
        )
        .unwrap_err();
        assert!(e.to_string().contains("not one of the AQMs (pie)"), "{e}");
        let e = apply_sweeps(
            &specs("codel:target=5ms"),
            &[ParamSweep::parse("codel.target=1ms").unwrap()],
        )
        .unwrap_err();
        assert!(e.to_string().contains("already sets target"), "{e}");
    }

    #[test]
    fn scenario_files_take_sweeps_as_tables_or_dotted_keys() {
        let t: toml::Table =
            toml::from_str("[codel]\ntarget = [\"1ms\", \"5ms\"]\n[pie]\nalpha = [1, 2]\n")
                .unwrap();
        let s = ParamSweep::from_table(&t).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].values, ["1", "2"]);
        let t: toml::Table = toml::from_str("\"codel.target\" = [\"1ms\"]\n").unwrap();
        assert_eq!(ParamSweep::from_table(&t).unwrap()[0].param, "target");
        let t: toml::Table = toml::from_str("codel = 3\n").unwrap();
        assert!(ParamSweep::from_table(&t).is_err());
    }
}
