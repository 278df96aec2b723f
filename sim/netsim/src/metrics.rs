//! What one run measured, and the median over seeds.

use crate::hist::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Packet accounting at the end of a run: generated = delivered + dropped + queued + on_link + in_transit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conservation {
    /// Packets the sources handed to the bottleneck.
    pub generated: u64,
    /// Packets that reached their receiver.
    pub delivered: u64,
    /// Packets the AQM dropped, at enqueue or at dequeue.
    pub dropped: u64,
    /// Packets in the AQM at the end.
    pub queued: u64,
    /// Packets being sent on the link at the end (0 or 1), or, on a two-queue path, anywhere between the
    /// AQM and the delay line (the AQM's link, the downstream FIFO and its link).
    pub on_link: u64,
    /// Packets in the delay line after the link at the end.
    pub in_transit: u64,
}

impl Conservation {
    /// Whether every generated packet is accounted for exactly once.
    pub fn balanced(&self) -> bool {
        self.generated
            == self.delivered + self.dropped + self.queued + self.on_link + self.in_transit
    }
}

/// The results of one run (one scenario point, one AQM, one seed). Delays are queueing delays: from the
/// packet's arrival at the bottleneck to the start of its transmission. Everything but `conservation`,
/// `events` and `timeouts_long` is measured after the warm-up.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunMetrics {
    /// Link busy time over the measurement period.
    pub utilisation: f64,
    /// Queueing delay of the long flows' packets, median and 99th percentile, ms.
    pub delay_p50_ms: Option<f64>,
    pub delay_p99_ms: Option<f64>,
    /// Queueing delay of the probe (sparse) flow, ms, and the fraction of its packets dropped.
    pub probe_p50_ms: Option<f64>,
    pub probe_p99_ms: Option<f64>,
    pub probe_loss: Option<f64>,
    /// Jain's fairness index over the long flows' goodput.
    pub jain: Option<f64>,
    /// Jain's index over [warm-up, checkpoint], by checkpoint (`"60s"`).
    pub jain_at: BTreeMap<String, f64>,
    /// Short flows: completion time median and 95th percentile, ms; how many finished, how many of the
    /// flows started after the warm-up suffered a retransmission timeout, and how many did not finish.
    pub fct_p50_ms: Option<f64>,
    pub fct_p95_ms: Option<f64>,
    pub short_done: Option<f64>,
    pub short_timeouts: Option<f64>,
    pub short_unfinished: Option<f64>,
    /// Queueing delay by traffic class (long flows): scalable (ECT(1)) and classic, mean and p99, ms.
    pub scalable_mean_ms: Option<f64>,
    pub scalable_p99_ms: Option<f64>,
    pub classic_mean_ms: Option<f64>,
    pub classic_p99_ms: Option<f64>,
    /// Queueing delay by AQM queue (DualPI2's L queue; present only when it carried packets), ms.
    pub l_queue_mean_ms: Option<f64>,
    pub l_queue_p99_ms: Option<f64>,
    pub c_queue_mean_ms: Option<f64>,
    pub c_queue_p99_ms: Option<f64>,
    /// Mean goodput of a classic long flow over that of a scalable long flow.
    pub rate_ratio: Option<f64>,
    /// Long flows' goodput over the link capacity.
    pub long_share: Option<f64>,
    /// Goodput by kind of traffic (`reno`, `cubic`, `scalable`, `short`, `probe`, `cbr`), Mbit/s.
    pub goodput_mbps: BTreeMap<String, f64>,
    /// Drops by AQM reason.
    pub drops: BTreeMap<String, u64>,
    /// CE marks by AQM reason.
    pub marks: BTreeMap<String, u64>,
    /// Peak bytes queued at the AQM and in the downstream port's FIFO, kB (scenarios that ask for them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_qdisc_kb: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_port_kb: Option<f64>,
    /// Retransmission timeouts of the long flows over the whole run.
    pub timeouts_long: u64,
    /// Events the simulator handled.
    pub events: u64,
    pub conservation: Conservation,
}

impl RunMetrics {
    /// Every metric as (column name, value), in table order; maps are flattened as `drops.codel`.
    pub fn columns(&self) -> Vec<(String, Option<f64>)> {
        let mut c: Vec<(String, Option<f64>)> = [
            ("util", Some(self.utilisation)),
            ("delay_p50_ms", self.delay_p50_ms),
            ("delay_p99_ms", self.delay_p99_ms),
            ("probe_p50_ms", self.probe_p50_ms),
            ("probe_p99_ms", self.probe_p99_ms),
            ("probe_loss", self.probe_loss),
            ("jain", self.jain),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        c.extend(
            self.jain_at
                .iter()
                .map(|(k, v)| (format!("jain@{k}"), Some(*v))),
        );
        c.extend(
            [
                ("fct_p50_ms", self.fct_p50_ms),
                ("fct_p95_ms", self.fct_p95_ms),
                ("short_done", self.short_done),
                ("short_timeouts", self.short_timeouts),
                ("short_unfinished", self.short_unfinished),
                ("scalable_mean_ms", self.scalable_mean_ms),
                ("scalable_p99_ms", self.scalable_p99_ms),
                ("classic_mean_ms", self.classic_mean_ms),
                ("classic_p99_ms", self.classic_p99_ms),
                ("l_queue_mean_ms", self.l_queue_mean_ms),
                ("l_queue_p99_ms", self.l_queue_p99_ms),
                ("c_queue_mean_ms", self.c_queue_mean_ms),
                ("c_queue_p99_ms", self.c_queue_p99_ms),
                ("rate_ratio", self.rate_ratio),
                ("long_share", self.long_share),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v)),
        );
        // Only where a scenario asked for them, so that other tables keep their columns.
        for (k, v) in [
            ("peak_qdisc_kb", self.peak_qdisc_kb),
            ("peak_port_kb", self.peak_port_kb),
        ] {
            if v.is_some() {
                c.push((k.to_string(), v));
            }
        }
        c.extend(
            self.goodput_mbps
                .iter()
                .map(|(k, v)| (format!("goodput.{k}_mbps"), Some(*v))),
        );
        c.extend(
            self.drops
                .iter()
                .map(|(k, v)| (format!("drops.{k}"), Some(*v as f64))),
        );
        c.extend(
            self.marks
                .iter()
                .map(|(k, v)| (format!("marks.{k}"), Some(*v as f64))),
        );
        c.push(("timeouts_long".into(), Some(self.timeouts_long as f64)));
        c
    }
}

/// The distributions behind a run's metrics, kept for plots (not written to JSON).
#[derive(Clone, Debug, Default)]
pub struct RunSamples {
    pub long_delay: Histogram,
    pub probe_delay: Histogram,
    /// Mean queueing delay per time bin: (bin start s, ms).
    pub timeseries: Vec<(f64, f64)>,
}

/// The median of the values present (mean of the middle two for an even count); None if none are.
pub fn median(values: &[Option<f64>]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().flatten().copied().collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Median over runs, column by column; a column missing from a run counts as absent for it, except the
/// drop and mark counters, which count as 0.
pub fn median_columns(runs: &[&RunMetrics]) -> Vec<(String, Option<f64>)> {
    let per_run: Vec<Vec<(String, Option<f64>)>> = runs.iter().map(|m| m.columns()).collect();
    let mut names: Vec<String> = Vec::new();
    for cols in &per_run {
        for (name, _) in cols {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let counter = name.starts_with("drops.") || name.starts_with("marks.");
            let values: Vec<Option<f64>> = per_run
                .iter()
                .map(|cols| {
                    let v = cols.iter().find(|(n, _)| *n == name).and_then(|(_, v)| *v);
                    if counter {
                        Some(v.unwrap_or(0.0))
                    } else {
                        v
                    }
                })
                .collect();
            let m = median(&values);
            (name, m)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts_skips_absent_values() {
        assert_eq!(median(&[Some(3.0), Some(1.0), Some(2.0)]), Some(2.0));
        assert_eq!(median(&[Some(4.0), None, Some(1.0)]), Some(2.5));
        assert_eq!(median(&[None]), None);
    }

    #[test]
    fn counters_missing_from_a_run_count_as_zero_in_the_median() {
        let mut a = RunMetrics::default();
        a.drops.insert("codel".into(), 10);
        let b = RunMetrics::default();
        let c = RunMetrics::default();
        let cols = median_columns(&[&a, &b, &c]);
        let drops = cols.iter().find(|(n, _)| n == "drops.codel").unwrap();
        assert_eq!(drops.1, Some(0.0));
    }
}
