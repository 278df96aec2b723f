//! A deterministic packet-level simulator of one bottleneck link with any AQM in front of it.
//!
//! - [`sim`]: the event loop, link, delay lines and packet-conservation check.
//! - [`tcp`] and [`cc`]: Reno, CUBIC, classic-ECN and scalable (L4S) senders with a SACK-style scoreboard.
//! - [`scenario`]: the named scenarios of spec/scenarios.md and custom ones from TOML.
//! - [`registry`]: AQMs by name with parameter overrides; other crates register their own.
//! - [`runner`]: runs AQMs x points x seeds in parallel and collects a [`runner::Report`].
//! - [`trace`]: records every call to an AQM, to compare two AQMs event by event (the golden model and
//!   the Verilated core) and to take a run's descriptor trace.
//! - [`output`] and [`plot`]: tables, CSV, JSON and SVG/PNG plots.
//! - [`sweep`]: grids for a cluster: `plan` a manifest, `exec` it by shards, `merge` the results.
//!
//! Everything is in integer nanoseconds; floating point is only used in a fixed order, so the same seed
//! gives byte-identical output.

pub mod bench;
pub mod cc;
pub mod event;
pub mod hist;
pub mod metrics;
pub mod output;
pub mod plot;
pub mod registry;
pub mod rng;
pub mod runner;
pub mod scenario;
pub mod sim;
pub mod sweep;
pub mod tcp;
pub mod trace;
pub mod units;

pub use registry::{AqmSpec, FactoryContext, Params, Registry, RegistryError};
pub use runner::{run_scenario, Report};
pub use scenario::Scenario;

/// Everything that can go wrong, with what to fix.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error("packet conservation violated ({context}): {detail}")]
    Conservation { context: String, detail: String },
    #[error("the AQM failed ({context}): {detail}")]
    Aqm { context: String, detail: String },
    #[error("{0}")]
    Config(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("plot {path}: {msg}")]
    Plot { path: String, msg: String },
}
