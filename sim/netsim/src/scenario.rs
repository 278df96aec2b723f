//! Scenarios: the named ones of spec/scenarios.md and custom ones from TOML files, in one format.
//!
//! A scenario is a link, a set of traffic groups, a run length with a warm-up, default seeds and AQMs, and
//! optionally a sweep over one dimension (rate, number of long flows, duration or RTT), each value of which
//! is a "point" with its own runs. `aqm-netsim show NAME` prints a named scenario as TOML to start from.

use crate::cc::CcKind;
use crate::sim::{Downstream, RunSpec, Traffic};
use crate::tcp::EcnMode;
use crate::units::{Duration, Rate};
use serde::{Deserialize, Serialize};

const S: u64 = 1_000_000_000;

/// A scenario as written in a TOML file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Rate of the link the AQM feeds: the bottleneck, unless a `downstream` port follows it.
    pub rate: Rate,
    /// Nominal base RTT of the flows that do not give their own.
    pub rtt: Duration,
    /// Simulated time of each run.
    pub duration: Duration,
    /// Statistics start after this.
    pub warmup: Duration,
    /// Seeds to run (the table shows the median over them).
    #[serde(default = "default_seeds")]
    pub seeds: Vec<u64>,
    /// AQMs to run when none are named on the command line (empty: every available one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aqm: Vec<String>,
    /// TCP packet size, bytes.
    #[serde(default = "default_packet_size")]
    pub packet_size: u32,
    /// Record the queueing delay over time in bins of this width (for a plot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<Duration>,
    /// Also compute Jain's index at these times.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checkpoints: Vec<Duration>,
    pub flows: Vec<FlowGroup>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
    /// AQM parameter sweeps, `[aqm_sweep.codel] target = ["1ms", "5ms"]` (see [`crate::sweep`]).
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub aqm_sweep: toml::Table,
    /// A second queue after the AQM's link (a modem or switch port): the two-queue path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downstream: Option<Port>,
    /// Every flow shares one 5-tuple (a tunnel), so flow queuing cannot tell them apart.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tunnel: bool,
    /// Report the peak queue in bytes at the AQM and at the port.
    #[serde(default, skip_serializing_if = "is_false")]
    pub peak_queue: bool,
}

/// A downstream port: its link rate and its FIFO's size, in packets or bytes (or both).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Port {
    pub rate: Rate,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_packets: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<u64>,
}

fn default_seeds() -> Vec<u64> {
    vec![1, 2, 3]
}

fn default_packet_size() -> u32 {
    1500
}

fn one() -> u32 {
    1
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A group of bulk classic TCP flows (Reno or CUBIC); `ecn = true` makes them classic ECN senders
/// (ECT(0)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassicBulk {
    #[serde(default = "one")]
    pub count: u32,
    #[serde(default, skip_serializing_if = "is_false")]
    pub ecn: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<Duration>,
}

/// One group of traffic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum FlowGroup {
    /// Bulk NewReno flows.
    Reno(ClassicBulk),
    /// Bulk CUBIC flows.
    Cubic(ClassicBulk),
    /// Bulk scalable (L4S, ECT(1)) flows.
    Scalable {
        #[serde(default = "one")]
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rtt: Option<Duration>,
    },
    /// Poisson arrivals (`rate` per second) of Reno flows of `packets` packets.
    Short {
        rate: f64,
        packets: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rtt: Option<Duration>,
    },
    /// One `size`-byte packet every `interval`.
    Probe {
        interval: Duration,
        size: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rtt: Option<Duration>,
    },
    /// Constant bit rate, unresponsive.
    Cbr {
        rate: Rate,
        #[serde(default = "default_packet_size")]
        size: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rtt: Option<Duration>,
    },
}

/// One dimension to sweep, `[sweep] rtt = ["20ms", "50ms"]`: a table with exactly one of these keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sweep {
    Rate(Vec<Rate>),
    /// Number of flows of every bulk group.
    Flows(Vec<u32>),
    Duration(Vec<Duration>),
    /// The nominal RTT (and that of every group).
    Rtt(Vec<Duration>),
    /// The downstream port's FIFO size in bytes.
    PortBytes(Vec<u64>),
    /// Without and with the tunnel.
    Tunnel(Vec<bool>),
}

impl Sweep {
    /// How many values are swept.
    fn len(&self) -> usize {
        match self {
            Sweep::Rate(v) => v.len(),
            Sweep::Flows(v) => v.len(),
            Sweep::Duration(v) | Sweep::Rtt(v) => v.len(),
            Sweep::PortBytes(v) => v.len(),
            Sweep::Tunnel(v) => v.len(),
        }
    }

    /// The plots' axis for the swept value ([`Point::x`]).
    pub fn axis_label(&self) -> &'static str {
        match self {
            Sweep::Rate(_) => "bottleneck rate (Mbit/s)",
            Sweep::Flows(_) => "long flows",
            Sweep::Duration(_) => "duration (s)",
            Sweep::Rtt(_) => "nominal RTT (ms)",
            Sweep::PortBytes(_) => "port buffer (MB)",
            Sweep::Tunnel(_) => "tunnel (0 off, 1 on)",
        }
    }
}

/// One point of a scenario: its label (empty without a sweep) and its run.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub label: String,
    /// The swept value as a number for plots (Mbit/s, flows, s, ms); 0 without a sweep.
    pub x: f64,
    pub spec: RunSpec,
}

/// The built-in scenarios, in the order of spec/scenarios.md: each is a scenario file of
/// sim/netsim/scenarios/, read like any other.
const BUILT_IN: [(&str, &str); 11] = [
    ("mix", include_str!("../scenarios/mix.toml")),
    ("rate-sweep", include_str!("../scenarios/rate-sweep.toml")),
    ("flow-sweep", include_str!("../scenarios/flow-sweep.toml")),
    ("single", include_str!("../scenarios/single.toml")),
    ("fairness", include_str!("../scenarios/fairness.toml")),
    ("lab", include_str!("../scenarios/lab.toml")),
    ("l4s", include_str!("../scenarios/l4s.toml")),
    (
        "unresponsive",
        include_str!("../scenarios/unresponsive.toml"),
    ),
    ("gateway", include_str!("../scenarios/gateway.toml")),
    ("shared-10g", include_str!("../scenarios/shared-10g.toml")),
    ("l4s-fq", include_str!("../scenarios/l4s-fq.toml")),
];

/// Names of the built-in scenarios, in the order of spec/scenarios.md.
pub const NAMED: [&str; 11] = {
    let mut names = [""; 11];
    let mut i = 0;
    while i < BUILT_IN.len() {
        names[i] = BUILT_IN[i].0;
        i += 1;
    }
    names
};

/// A built-in scenario by name. The files are part of the program, and a test reads every one.
pub fn named(name: &str) -> Option<Scenario> {
    let (_, text) = BUILT_IN.iter().find(|(n, _)| *n == name)?;
    match Scenario::from_toml(text, &format!("sim/netsim/scenarios/{name}.toml")) {
        Ok(s) => Some(s),
        Err(e) => unreachable!("a built-in scenario does not parse: {e}"),
    }
}

impl Scenario {
    /// Parses a scenario from TOML text; `origin` names the file in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Scenario, String> {
        let s: Scenario = toml::from_str(text).map_err(|e| format!("{origin}: {e}"))?;
        s.validate().map_err(|e| format!("{origin}: {e}"))?;
        Ok(s)
    }

    /// The scenario as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# cannot print this scenario: {e}\n"))
    }

    /// Rejects impossible values, naming the key.
    pub fn validate(&self) -> Result<(), String> {
        let err = |key: &str, why: &str| Err(format!("{key}: {why}"));
        if self.rate.0 < 1000 {
            return err("rate", "must be at least 1kbit");
        }
        if self.rtt.0 == 0 || self.rtt.0 > 10 * S {
            return err("rtt", "must be more than 0 and at most 10s");
        }
        if self.duration.0 == 0 || self.duration.0 > 24 * 3600 * S {
            return err("duration", "must be more than 0 and at most 24 hours");
        }
        if self.warmup.0 >= self.duration.0 {
            return err("warmup", "must be shorter than duration");
        }
        if self.seeds.is_empty() {
            return err("seeds", "needs at least one seed");
        }
        if !(64..=9000).contains(&self.packet_size) {
            return err("packet_size", "must be in 64..=9000 bytes");
        }
        if self.timeseries.is_some_and(|t| t.0 < 1000) {
            return err("timeseries", "the bin must be at least 1us");
        }
        for c in &self.checkpoints {
            if c.0 <= self.warmup.0 || c.0 > self.duration.0 {
                return err(
                    "checkpoints",
                    &format!("{c} is not after warmup and within duration"),
                );
            }
        }
        if self.flows.is_empty() {
            return err("flows", "needs at least one [[flows]] group");
        }
        if let Some(d) = &self.downstream {
            if d.rate.0 < 1000 {
                return err("downstream.rate", "must be at least 1kbit");
            }
            if d.limit_packets == Some(0) || d.limit_bytes.is_some_and(|b| b < 64) {
                return err(
                    "downstream",
                    "limit_packets must be at least 1 and limit_bytes at least 64",
                );
            }
        }
        for (i, g) in self.flows.iter().enumerate() {
            let at = |key: &str| format!("flows[{i}].{key}");
            let rtt = match g {
                FlowGroup::Reno(ClassicBulk { count, rtt, .. })
                | FlowGroup::Cubic(ClassicBulk { count, rtt, .. })
                | FlowGroup::Scalable { count, rtt } => {
                    if *count == 0 || *count > 10_000 {
                        return err(&at("count"), "must be in 1..=10000");
                    }
                    rtt
                }
                FlowGroup::Short { rate, packets, rtt } => {
                    if !(rate.is_finite() && *rate > 0.0 && *rate <= 100_000.0) {
                        return err(
                            &at("rate"),
                            "must be more than 0 and at most 100000 flows per second",
                        );
                    }
                    if *packets == 0 || *packets > 1_000_000 {
                        return err(&at("packets"), "must be in 1..=1000000");
                    }
                    rtt
                }
                FlowGroup::Probe {
                    interval,
                    size,
                    rtt,
                } => {
                    if interval.0 < 1000 {
                        return err(&at("interval"), "must be at least 1us");
                    }
                    if !(40..=9000).contains(size) {
                        return err(&at("size"), "must be in 40..=9000 bytes");
                    }
                    rtt
                }
                FlowGroup::Cbr { rate, size, rtt } => {
                    if rate.0 < 1000 {
                        return err(&at("rate"), "must be at least 1kbit");
                    }
                    if !(40..=9000).contains(size) {
                        return err(&at("size"), "must be in 40..=9000 bytes");
                    }
                    rtt
                }
            };
            if rtt.is_some_and(|r| r.0 == 0 || r.0 > 10 * S) {
                return err(&at("rtt"), "must be more than 0 and at most 10s");
            }
        }
        if let Some(sw) = &self.sweep {
            if sw.len() == 0 {
                return err("sweep", "the swept list is empty");
            }
            if let Sweep::Rtt(v) = sw {
                if let Some(r) = v.iter().find(|r| r.0 == 0 || r.0 > 10 * S) {
                    return err(
                        &format!("sweep.rtt = {r}"),
                        "each RTT must be more than 0 and at most 10s",
                    );
                }
            }
            if let Sweep::Duration(v) = sw {
                if let Some(d) = v.iter().find(|d| d.0 == 0 || d.0 > 24 * 3600 * S) {
                    return err(
                        &format!("sweep.duration = {d}"),
                        "each duration must be more than 0 and at most 24 hours",
                    );
                }
            }
            if let Sweep::PortBytes(v) = sw {
                if self.downstream.is_none() {
                    return err("sweep.port_bytes", "there is no [downstream] port to size");
                }
                if v.iter().any(|&b| b < 64) {
                    return err("sweep.port_bytes", "each size must be at least 64 bytes");
                }
            }
            if matches!(sw, Sweep::Flows(_)) && !self.flows.iter().any(FlowGroup::is_bulk) {
                return err(
                    "sweep.flows",
                    "there is no reno, cubic or scalable group to sweep",
                );
            }
            for p in self.points() {
                let sweep_err =
                    |key: &str, why: &str| err(&format!("sweep.{key} = {}", p.label), why);
                if p.spec.rate_bps < 1000 {
                    return sweep_err("rate", "must be at least 1kbit");
                }
                if p.spec.warmup_ns >= p.spec.duration_ns {
                    return sweep_err("duration", "must be longer than warmup");
                }
                if self.checkpoints.iter().any(|c| c.0 > p.spec.duration_ns) {
                    return sweep_err("duration", "is shorter than a checkpoint");
                }
                if p.spec
                    .traffic
                    .iter()
                    .any(|t| matches!(t, Traffic::Long { count: 0, .. }))
                {
                    return sweep_err("flows", "must be at least 1");
                }
            }
        }
        Ok(())
    }

    /// Scales every time of the scenario (duration, warm-up, checkpoints, swept durations) by `factor`, for
    /// short test runs. Rates, RTTs and traffic stay as they are.
    pub fn scale_time(&mut self, factor: f64) {
        let scale = |d: &mut Duration| d.0 = ((d.0 as f64 * factor) as u64).max(1);
        scale(&mut self.duration);
        scale(&mut self.warmup);
        self.checkpoints.iter_mut().for_each(scale);
        if let Some(Sweep::Duration(v)) = self.sweep.as_mut() {
            v.iter_mut().for_each(scale);
        }
    }

    /// The runs of this scenario: one per swept value, or one.
    pub fn points(&self) -> Vec<Point> {
        let one =
            |label: String, x: f64, rate: u64, flows: Option<u32>, duration: u64, rtt: u64| Point {
                label,
                x,
                spec: self.run_spec(rate, flows, duration, rtt),
            };
        let (r, d, t) = (self.rate.0, self.duration.0, self.rtt.0);
        match &self.sweep {
            Some(Sweep::Rate(v)) => v
                .iter()
                .map(|x| one(format!("rate={x}"), x.0 as f64 / 1e6, x.0, None, d, t))
                .collect(),
            Some(Sweep::Flows(v)) => v
                .iter()
                .map(|&n| one(format!("flows={n}"), f64::from(n), r, Some(n), d, t))
                .collect(),
            Some(Sweep::Duration(v)) => v
                .iter()
                .map(|x| one(format!("duration={x}"), x.0 as f64 / 1e9, r, None, x.0, t))
                .collect(),
            Some(Sweep::Rtt(v)) => v
                .iter()
                .map(|x| one(format!("rtt={x}"), x.0 as f64 / 1e6, r, None, d, x.0))
                .collect(),
            Some(Sweep::PortBytes(v)) => v
                .iter()
                .map(|&b| {
                    let mut p = one(format_bytes(b), b as f64 / 1e6, r, None, d, t);
                    if let Some(ds) = p.spec.downstream.as_mut() {
                        ds.limit_bytes = Some(b);
                    }
                    p.label = format!("port={}", format_bytes(b));
                    p
                })
                .collect(),
            Some(Sweep::Tunnel(v)) => v
                .iter()
                .map(|&on| {
                    let label = format!("tunnel={}", if on { "on" } else { "off" });
                    let mut p = one(label, f64::from(u8::from(on)), r, None, d, t);
                    p.spec.tunnel = on;
                    p
                })
                .collect(),
            None => vec![one(String::new(), 0.0, r, None, d, t)],
        }
    }

    fn run_spec(
        &self,
        rate_bps: u64,
        flows: Option<u32>,
        duration_ns: u64,
        rtt_ns: u64,
    ) -> RunSpec {
        let swept_rtt = matches!(self.sweep, Some(Sweep::Rtt(_)));
        let group_rtt = |r: &Option<Duration>| match r {
            Some(d) if !swept_rtt => d.0,
            _ => rtt_ns,
        };
        let traffic = self
            .flows
            .iter()
            .map(|g| match g {
                FlowGroup::Reno(ClassicBulk { count, ecn, rtt })
                | FlowGroup::Cubic(ClassicBulk { count, ecn, rtt }) => Traffic::Long {
                    cc: if matches!(g, FlowGroup::Reno(_)) {
                        CcKind::Reno
                    } else {
                        CcKind::Cubic
                    },
                    ecn: if *ecn { EcnMode::Classic } else { EcnMode::Off },
                    count: flows.unwrap_or(*count),
                    rtt_ns: group_rtt(rtt),
                },
                FlowGroup::Scalable { count, rtt } => Traffic::Long {
                    cc: CcKind::Scalable,
                    ecn: EcnMode::Scalable,
                    count: flows.unwrap_or(*count),
                    rtt_ns: group_rtt(rtt),
                },
                FlowGroup::Short { rate, packets, rtt } => Traffic::Short {
                    per_second: *rate,
                    packets: *packets,
                    rtt_ns: group_rtt(rtt),
                },
                FlowGroup::Probe {
                    interval,
                    size,
                    rtt,
                } => Traffic::Probe {
                    interval_ns: interval.0,
                    size: *size,
                    rtt_ns: group_rtt(rtt),
                },
                FlowGroup::Cbr { rate, size, rtt } => Traffic::Cbr {
                    rate_bps: rate.0,
                    size: *size,
                    rtt_ns: group_rtt(rtt),
                },
            })
            .collect();
        RunSpec {
            rate_bps,
            duration_ns,
            warmup_ns: self.warmup.0,
            packet_size: self.packet_size,
            traffic,
            timeseries_bin_ns: self.timeseries.map(|t| t.0),
            checkpoints: self
                .checkpoints
                .iter()
                .filter(|c| c.0 <= duration_ns)
                .map(|c| (c.to_string(), c.0))
                .collect(),
            downstream: self.downstream.as_ref().map(|p| Downstream {
                rate_bps: p.rate.0,
                limit_packets: p.limit_packets,
                limit_bytes: p.limit_bytes,
            }),
            tunnel: self.tunnel,
            headers: Vec::new(),
            track_peak_queue: self.peak_queue,
        }
    }
}

/// A byte count for a label: `32MB`, `1500kB`, `800B`.
fn format_bytes(b: u64) -> String {
    if b >= 1_000_000 && b.is_multiple_of(1_000_000) {
        format!("{}MB", b / 1_000_000)
    } else if b >= 1000 && b.is_multiple_of(1000) {
        format!("{}kB", b / 1000)
    } else {
        format!("{b}B")
    }
}

impl FlowGroup {
    /// A group of bulk TCP flows.
    pub fn is_bulk(&self) -> bool {
        matches!(
            self,
            FlowGroup::Reno(_) | FlowGroup::Cubic(_) | FlowGroup::Scalable { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn every_named_scenario_is_valid_and_round_trips_through_toml() {
        for name in NAMED {
            let s = named(name).unwrap();
            assert_eq!(s.name, name);
            s.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
            let back = Scenario::from_toml(&s.to_toml(), name).unwrap();
            assert_eq!(back, s, "{name}");
        }
        assert!(named("nosuch").is_none());
    }

    #[test]
    fn sweeps_expand_into_one_point_per_value() {
        let p = named("rate-sweep").unwrap().points();
        assert_eq!(p.len(), 5);
        assert_eq!(p[4].spec.rate_bps, 100_000_000);
        assert_eq!(p[0].label, "rate=5Mbit");
        let p = named("flow-sweep").unwrap().points();
        assert!(matches!(
            p[5].spec.traffic[0],
            Traffic::Long { count: 32, .. }
        ));
        let p = named("l4s").unwrap().points();
        assert!(p[1].spec.traffic.iter().all(|t| matches!(
            t,
            Traffic::Long {
                rtt_ns: 50_000_000,
                ..
            }
        )));
        assert_eq!(named("lab").unwrap().points()[1].spec.duration_ns, 120 * S);
    }

    #[test]
    fn unknown_keys_are_rejected_with_their_name_and_line() {
        let text = "name = \"x\"\nrate = \"10Mbit\"\nrtt = \"20ms\"\nduration = \"5s\"\nwarmup = \"1s\"\nspeed = 3\n[[flows]]\nkind = \"reno\"\n";
        let e = Scenario::from_toml(text, "my.toml").unwrap_err();
        assert!(e.starts_with("my.toml"), "{e}");
        assert!(e.contains("speed") && e.contains("line 6"), "{e}");
        let text = "name = \"x\"\nrate = \"10Mbit\"\nrtt = \"20ms\"\nduration = \"5s\"\nwarmup = \"1s\"\n[[flows]]\nkind = \"reno\"\ncuont = 2\n";
        let e = Scenario::from_toml(text, "my.toml").unwrap_err();
        assert!(e.contains("cuont"), "{e}");
    }

    #[test]
    fn bad_units_and_impossible_values_are_rejected_with_the_key() {
        let base = "name = \"x\"\nrtt = \"20ms\"\nduration = \"5s\"\n[[flows]]\nkind = \"reno\"\n";
        let e = Scenario::from_toml(&format!("rate = 10\nwarmup = \"1s\"\n{base}"), "f.toml")
            .unwrap_err();
        assert!(e.contains("rate") && e.contains("unit"), "{e}");
        let e = Scenario::from_toml(
            &format!("rate = \"10MB\"\nwarmup = \"1s\"\n{base}"),
            "f.toml",
        )
        .unwrap_err();
        assert!(e.contains("rate") && e.contains("Mbit"), "{e}");
        let e = Scenario::from_toml(
            &format!("rate = \"10Mbit\"\nwarmup = \"9s\"\n{base}"),
            "f.toml",
        )
        .unwrap_err();
        assert!(e.contains("warmup: must be shorter than duration"), "{e}");
        let text = format!("rate = \"10Mbit\"\nwarmup = \"1s\"\n{base}count = 0\n");
        let e = Scenario::from_toml(&text, "f.toml").unwrap_err();
        assert!(e.contains("flows[0].count"), "{e}");
        let text = format!(
            "rate = \"10Mbit\"\nwarmup = \"1s\"\n{base}[sweep]\nrate = [\"1Mbit\"]\nflows = [2]\n"
        );
        let e = Scenario::from_toml(&text, "f.toml").unwrap_err();
        assert!(e.contains("[sweep]") && e.contains("exactly 1"), "{e}");
        let text = format!("rate = \"10Mbit\"\nwarmup = \"1s\"\n{base}[sweep]\nrtt = []\n");
        let e = Scenario::from_toml(&text, "f.toml").unwrap_err();
        assert!(e.contains("sweep: the swept list is empty"), "{e}");
        let text = format!("rate = \"10Mbit\"\nwarmup = \"1s\"\n{base}[sweep]\nspeed = [1]\n");
        let e = Scenario::from_toml(&text, "f.toml").unwrap_err();
        assert!(e.contains("speed") && e.contains("port_bytes"), "{e}");
    }

    #[test]
    fn scaling_time_shortens_runs_and_checkpoints() {
        let mut s = named("fairness").unwrap();
        s.scale_time(0.01);
        assert_eq!(s.duration.0, 3 * S);
        assert_eq!(s.checkpoints[0].0, 600 * MS);
        s.validate().unwrap();
    }
}
