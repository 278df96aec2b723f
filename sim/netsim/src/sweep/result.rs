//! One run's result file, `results/ID.toml`: its metrics, the samples behind the plots and what it
//! cost, exactly (TOML prints every float so that it reads back to the same bits, NaN and infinities
//! included), so that `merge` makes the same bytes as `run`.

use crate::hist::Histogram;
use crate::metrics::{RunMetrics, RunSamples};
use crate::runner::{RunCost, RunResult};
use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HistFile {
    n: u64,
    /// A u128, as text (TOML integers are 64-bit).
    sum: String,
    counts: Vec<u64>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CostFile {
    wall_s: f64,
    packets: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cycles: Option<u64>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultFile {
    id: String,
    point: String,
    aqm: String,
    seed: u64,
    cost: CostFile,
    metrics: RunMetrics,
    timeseries: Vec<(f64, f64)>,
    long_delay: HistFile,
    probe_delay: HistFile,
}

fn hist_file(h: &Histogram) -> HistFile {
    let (counts, n, sum) = h.parts();
    HistFile {
        n,
        sum: sum.to_string(),
        counts: counts.to_vec(),
    }
}

fn histogram(f: HistFile) -> Result<Histogram, String> {
    let sum: u128 = f.sum.parse().map_err(|_| format!("bad sum {:?}", f.sum))?;
    Histogram::from_parts(f.counts, f.n, sum).ok_or_else(|| "counts do not add up to n".to_string())
}

/// The text of run `id`'s result file.
pub fn to_text(id: &str, r: &RunResult) -> Result<String, Error> {
    let file = ResultFile {
        id: id.to_string(),
        point: r.point.clone(),
        aqm: r.aqm.clone(),
        seed: r.seed,
        cost: CostFile {
            wall_s: r.cost.wall_s,
            packets: r.cost.packets,
            cycles: r.cost.cycles,
        },
        metrics: r.metrics.clone(),
        timeseries: r.samples.timeseries.clone(),
        long_delay: hist_file(&r.samples.long_delay),
        probe_delay: hist_file(&r.samples.probe_delay),
    };
    toml::to_string(&file)
        .map_err(|e| Error::Config(format!("run {id}: cannot write its result: {e}")))
}

/// What a result file holds: its id, point label, AQM and seed as written, and the result (with `x`
/// from the caller, who knows the point).
pub struct Stored {
    pub id: String,
    pub result: RunResult,
}

/// Parses a result file; `origin` names it in errors.
pub fn from_text(text: &str, x: f64, origin: &str) -> Result<Stored, Error> {
    let bad = |why: String| Error::Config(format!("{origin}: not a result file: {why}"));
    let f: ResultFile = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
    let samples = RunSamples {
        long_delay: histogram(f.long_delay).map_err(|e| bad(format!("long_delay: {e}")))?,
        probe_delay: histogram(f.probe_delay).map_err(|e| bad(format!("probe_delay: {e}")))?,
        timeseries: f.timeseries,
    };
    Ok(Stored {
        id: f.id,
        result: RunResult {
            point: f.point,
            x,
            aqm: f.aqm,
            seed: f.seed,
            metrics: f.metrics,
            samples,
            cost: RunCost {
                wall_s: f.cost.wall_s,
                cycles: f.cost.cycles,
                packets: f.cost.packets,
            },
        },
    })
}

/// Writes `text` to `path` atomically: into a temporary file beside it, flushed, then renamed over it,
/// so a reader (or a job killed half-way) never sees part of a file.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), Error> {
    use std::io::Write as _;
    let io = |p: &Path| {
        let shown = p.display().to_string();
        move |source| Error::Io {
            path: shown,
            source,
        }
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(&tmp)(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(path)(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_reads_back_to_the_same_bits() {
        let mut m = RunMetrics {
            utilisation: 0.1 + 0.2,
            delay_p50_ms: Some(f64::NAN),
            delay_p99_ms: Some(f64::INFINITY),
            probe_p50_ms: Some(5e-324),
            probe_p99_ms: Some(1.7976931348623157e308),
            jain: Some(-0.0),
            ..RunMetrics::default()
        };
        m.drops.insert("codel".into(), 7);
        m.goodput_mbps.insert("reno".into(), 1.0 / 3.0);
        m.jain_at.insert("60s".into(), 0.999_999_999_999);
        let mut h = Histogram::default();
        for v in [1, 70, 5_000_000, u64::MAX / 2] {
            h.record(v);
        }
        let r = RunResult {
            point: "rate=5Mbit".into(),
            x: 5.0,
            aqm: "codel:target=5ms".into(),
            seed: 3,
            metrics: m,
            samples: RunSamples {
                long_delay: h.clone(),
                probe_delay: Histogram::default(),
                timeseries: vec![(0.01, 2.0 / 3.0)],
            },
            cost: RunCost {
                wall_s: 0.123_456_789,
                cycles: Some(42),
                packets: 9,
            },
        };
        let text = to_text("abc", &r).unwrap();
        let back = from_text(&text, 5.0, "t").unwrap();
        assert_eq!(back.id, "abc");
        let b = back.result;
        let bits = |m: &RunMetrics| {
            m.columns()
                .iter()
                .map(|(n, v)| (n.clone(), v.map(f64::to_bits)))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&b.metrics), bits(&r.metrics));
        assert_eq!(b.samples.long_delay.parts(), h.parts());
        assert_eq!(b.samples.timeseries, r.samples.timeseries);
        assert_eq!(b.cost, r.cost);
        assert_eq!((b.point, b.aqm, b.seed), (r.point, r.aqm, r.seed));
        assert!(from_text("id = 1", 0.0, "t").is_err());
    }
}
