//! A network-simulator run's descriptor trace, streamed to the board at the simulator's pace.
//!
//! [`simulate`] runs a named scenario of `aqm-netsim` and records every packet offered to the bottleneck
//! AQM: its arrival time, length and ECN field (and the simulator's verdict, for comparison).
//! [`stream_paced`] then offers those descriptors to the board's core at the same times (scaled by
//! `speed`), with the core configured as the simulated AQM and its link model at the scenario's rate, and
//! collects the board's verdicts and departures; [`crate::stream::check_stream`] checks them bit for bit
//! against the golden model of the core.
//!
//! The board's verdicts need not be the simulator's: the board sees the arrivals without the simulator's
//! feedback loop, a little later than scheduled (the UART), and drains them with its own link model. What
//! must hold exactly is that the board does what the golden core model does with the same inputs.

use crate::client::{Client, ClientError};
use crate::stream::StreamRecord;
use crate::tc::link_byte_time;
use crate::transport::Transport;
use aqm_golden::pie::regs::addr;
use aqm_golden::pie::PieParams;
use aqm_golden::{Admission, DropReason};
use aqm_hil::PieHw;
use aqm_netsim::registry::{pie_params, AqmSpec, Params, Registry};
use aqm_netsim::runner::run_one_recorded;
use aqm_netsim::scenario::{named, NAMED};
use aqm_netsim::trace::AqmEvent;
use aqm_protocol::{Descriptor, MAX_INJECT};
use std::time::Duration;

/// Which run to take the trace of.
#[derive(Clone, Debug)]
pub struct SimRunOptions {
    /// A named scenario (`aqm-netsim list`).
    pub scenario: String,
    /// The sweep point, 0 for a scenario without a sweep.
    pub point: usize,
    /// The AQM of the simulated run, `NAME[:key=value,...]`; a PIE spec also configures the board.
    pub aqm: String,
    pub seed: u64,
    /// Multiplies the scenario's durations.
    pub time_scale: f64,
    /// Keep only the first this many arrivals.
    pub max: Option<usize>,
}

/// One arrival at the bottleneck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Simulated time, ns.
    pub at_ns: u64,
    pub len: u16,
    pub ecn: u8,
    /// The simulator's verdict code (0 enqueued, 1 marked, 2 dropped by the AQM, 3 tail drop).
    pub sim_code: u8,
}

/// A simulated run's descriptor trace and the board configuration that goes with it.
#[derive(Clone, Debug)]
pub struct SimRun {
    /// `mix`, `l4s rtt=20ms`, ...
    pub label: String,
    pub seed: u64,
    pub rate_bps: u64,
    pub duration_ns: u64,
    /// Every arrival of the run (before `max` is applied).
    pub total_arrivals: usize,
    pub arrivals: Vec<Arrival>,
    /// The PIE parameters the board gets (the simulated AQM's, or the defaults for another AQM).
    pub params: PieParams,
}

impl SimRun {
    /// Register writes that configure the board's core: the PIE parameters, the generator seeded as the
    /// simulator seeds PIE, and the link model at the scenario's rate.
    pub fn register_writes(&self) -> Vec<(u8, u32)> {
        let mut w: Vec<(u8, u32)> = PieHw {
            params: self.params,
            seed: self.seed,
        }
        .register_writes()
        .into_iter()
        .filter(|&(_, a, _)| a != addr::LINK_BYTE_TIME)
        .map(|(_, a, v)| (a, v))
        .collect();
        w.push((addr::LINK_BYTE_TIME, link_byte_time(self.rate_bps)));
        w
    }

    /// The trace as `stream` reads it: `len ecn` per line, the arrival time in a comment.
    pub fn trace_text(&self) -> String {
        let mut s = format!(
            "# descriptor trace of the simulator's {} (seed {}), {} of {} arrivals\n",
            self.label,
            self.seed,
            self.arrivals.len(),
            self.total_arrivals
        );
        for a in &self.arrivals {
            s.push_str(&format!("{} {}  # t={} ns\n", a.len, a.ecn, a.at_ns));
        }
        s
    }

    /// The descriptors in order, as `stream` and `check_stream` take them.
    pub fn descriptors(&self) -> Vec<(u16, u8)> {
        self.arrivals.iter().map(|a| (a.len, a.ecn)).collect()
    }
}

fn code(a: &Admission) -> u8 {
    match a {
        Admission::Enqueued => 0,
        Admission::Marked(_) => 1,
        Admission::Dropped(DropReason::Overlimit) => 3,
        Admission::Dropped(_) => 2,
    }
}

/// Runs the scenario and records what arrived at the AQM.
pub fn simulate(o: &SimRunOptions) -> Result<SimRun, String> {
    let mut s = named(&o.scenario).ok_or_else(|| {
        format!(
            "unknown scenario {:?}; named scenarios: {}",
            o.scenario,
            NAMED.join(", ")
        )
    })?;
    if !(o.time_scale.is_finite() && o.time_scale > 0.0 && o.time_scale <= 100.0) {
        return Err(format!(
            "--time-scale {}: must be more than 0 and at most 100",
            o.time_scale
        ));
    }
    if o.time_scale != 1.0 {
        s.scale_time(o.time_scale);
        s.validate()
            .map_err(|e| format!("--time-scale {}: {e}", o.time_scale))?;
    }
    let points = s.points();
    let point = points.get(o.point).ok_or_else(|| {
        format!(
            "--point {}: scenario {} has {} point(s), 0..={}",
            o.point,
            s.name,
            points.len(),
            points.len() - 1
        )
    })?;
    let spec = AqmSpec::parse(&o.aqm).map_err(|e| e.to_string())?;
    let params = if spec.name == "pie" || spec.name == "pie (hw)" {
        let mut p = Params::new(&spec.name, &spec.params);
        let params = pie_params(&mut p).map_err(|e| e.to_string())?;
        p.finish().map_err(|e| e.to_string())?;
        params
    } else {
        PieParams::default()
    };
    if params.bytemode {
        return Err("bytemode: the board's core is built without the bytemode multiplier".into());
    }
    let (_, _, events) = run_one_recorded(&point.spec, &Registry::with_builtins(), &spec, o.seed)
        .map_err(|e| e.to_string())?;
    let mut arrivals = vec![];
    for e in &events {
        if let AqmEvent::Enqueue {
            at_ns,
            pkt,
            admission,
            ..
        } = e
        {
            let len = u16::try_from(pkt.len).map_err(|_| {
                format!(
                    "packet {} is {} bytes: a descriptor takes at most 65535",
                    pkt.id, pkt.len
                )
            })?;
            arrivals.push(Arrival {
                at_ns: *at_ns,
                len,
                ecn: pkt.ecn.bits(),
                sim_code: code(admission),
            });
        }
    }
    let total_arrivals = arrivals.len();
    if let Some(n) = o.max {
        arrivals.truncate(n);
    }
    let label = if point.label.is_empty() {
        s.name.clone()
    } else {
        format!("{} {}", s.name, point.label)
    };
    Ok(SimRun {
        label,
        seed: o.seed,
        rate_bps: point.spec.rate_bps,
        duration_ns: point.spec.duration_ns,
        total_arrivals,
        arrivals,
        params,
    })
}

/// Resets the core, writes `params`, and offers `arrivals` at their times divided by `speed` (board time
/// since the reset; those that fall due together go in one INJECT, up to 32), tags 0, 1, 2, ... mod 2^16;
/// collects every verdict and departure until nothing has come for `drain`.
pub fn stream_paced<T: Transport>(
    client: &mut Client<T>,
    params: &[(u8, u32)],
    arrivals: &[Arrival],
    speed: f64,
    drain: Duration,
) -> Result<StreamRecord, ClientError> {
    let info = client.hello()?;
    client.start()?;
    let t0 = client.transport.elapsed();
    let mut rec = StreamRecord {
        info: Some(info),
        ..StreamRecord::default()
    };
    for &(a, v) in params {
        let t = client.write(a, v)?;
        rec.writes.push((t, a, v));
    }
    let due = |a: &Arrival| Duration::from_nanos((a.at_ns as f64 / speed) as u64);
    let mut k = 0;
    while k < arrivals.len() {
        let now = client.transport.elapsed().saturating_sub(t0);
        let wait = due(&arrivals[k]).saturating_sub(now);
        if !wait.is_zero() {
            client.transport.idle(wait);
        }
        let now = client.transport.elapsed().saturating_sub(t0);
        let mut end = k + 1;
        while end < arrivals.len() && end - k < MAX_INJECT && due(&arrivals[end]) <= now {
            end += 1;
        }
        let ds: Vec<Descriptor> = (k..end)
            .map(|j| Descriptor {
                len: arrivals[j].len,
                ecn: arrivals[j].ecn,
                tag: j as u16,
            })
            .collect();
        client.inject(&ds)?;
        k = end;
    }
    client.drain_events(drain)?;
    rec.verdicts = client.verdicts.clone();
    rec.departures = client.departures.clone();
    Ok(rec)
}
