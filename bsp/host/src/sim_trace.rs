//! A network-simulator run's descriptor trace, streamed to the board at the simulator's pace.
//!
//! [`simulate`] runs a named scenario of `aqm-netsim` and records every packet offered to the bottleneck
//! AQM: its arrival time, length and ECN field (and what the simulator's AQM did with it, for
//! comparison). [`stream_paced`] then offers those descriptors to the board's core at the same times
//! (scaled by `speed`), with the core configured as the simulated AQM (PIE or DualPI2, whichever the
//! board carries) and its link model at the scenario's rate, and collects the board's verdicts and
//! departures; [`crate::stream::check_stream`] checks them bit for bit against the golden model of the
//! core.
//!
//! The board's verdicts need not be the simulator's: the board sees the arrivals without the simulator's
//! feedback loop, a little later than scheduled (the UART), and drains them with its own link model. What
//! must hold exactly is that the board does what the golden core model does with the same inputs.

use crate::board_core::Core;
use crate::client::{Client, ClientError};
use crate::stream::{Fate, StreamRecord};
use crate::transport::Transport;
use aqm_golden::dualpi2::params::HARDWARE_PARAMS;
use aqm_golden::hw::regs::{link_byte_time, link_byte_time_checked};
use aqm_golden::hw::{CoreParams, RegWrite};
use aqm_golden::{dualpi2, Admission, DropReason};
use aqm_netsim::registry::{dualpi2_params_over, pie_params, AqmSpec, Params, Registry};
use aqm_netsim::runner::run_one_recorded;
use aqm_netsim::scenario::{named, NAMED};
use aqm_netsim::trace::AqmEvent;
use aqm_protocol::{Descriptor, MAX_INJECT};
use std::collections::HashMap;
use std::time::Duration;

/// Which run to take the trace of.
#[derive(Clone, Debug)]
pub struct SimRunOptions {
    /// A named scenario (`aqm-netsim list`).
    pub scenario: String,
    /// The sweep point, 0 for a scenario without a sweep.
    pub point: usize,
    /// The AQM of the simulated run, `NAME[:key=value,...]`; a spec of the board's AQM (`pie` or
    /// `pie (hw)` for the PIE core, `dualpi2` or `dualpi2 (hw)` for the DualPI2 core) also configures
    /// the board.
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
    /// What the simulator's AQM did with it.
    pub sim_fate: Fate,
}

/// A simulated run's descriptor trace and the board configuration that goes with it.
#[derive(Clone, Debug)]
pub struct SimRun {
    /// `mix`, `l4s rtt=20ms`, ...
    pub label: String,
    /// The simulated AQM as it ran, `NAME[:key=value,...]` (for DualPI2, with the hardware's limits).
    pub aqm: String,
    /// The simulated AQM is the board's core, and the board gets its parameters (otherwise the core's
    /// defaults).
    pub same_aqm: bool,
    pub seed: u64,
    pub rate_bps: u64,
    pub duration_ns: u64,
    /// Every arrival of the run (before `max` is applied).
    pub total_arrivals: usize,
    pub arrivals: Vec<Arrival>,
    /// The board's core.
    pub core: Core,
    /// The register writes of the parameters the board's core gets, its generator seeded from `seed`.
    pub writes: Vec<RegWrite>,
}

impl SimRun {
    /// Register writes that configure the board's core: its parameters, the generator seeded as the
    /// simulator seeds the AQM, and the link model at the scenario's rate.
    pub fn register_writes(&self) -> Vec<(u8, u32)> {
        let link = self.core.register_by_name("LINK_BYTE_TIME").map(|d| d.addr);
        let mut w: Vec<(u8, u32)> = self
            .writes
            .iter()
            .filter(|w| Some(w.addr) != link)
            .map(|w| (w.addr, w.value))
            .collect();
        w.extend(link.map(|a| (a, link_byte_time(self.rate_bps))));
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

/// The fate of a packet the AQM dropped: a limit's drop or the AQM's own.
fn drop_fate(r: DropReason) -> Fate {
    match r {
        DropReason::Overlimit => Fate::TailDrop,
        _ => Fate::AqmDrop,
    }
}

/// The simulated AQM's spec and the register writes of the board's parameters, for a board with `core`
/// (seeded from `seed`). A spec of the board's AQM (`NAME` or `NAME (hw)`, the core's name) gives its
/// parameters to the board, read by the simulator's parser of that AQM; DualPI2's are taken over the
/// hardware's defaults, and the simulated DualPI2 runs with the same limit and per-queue capacity (the
/// descriptor memory of the core: 2 x 512), so that the board has exactly the simulated parameters.
/// Another AQM leaves the core at its reset values (its defaults), with the generator seeded.
fn board_params(
    spec: &AqmSpec,
    core: Core,
    seed: u64,
) -> Result<(AqmSpec, Vec<RegWrite>, bool), String> {
    let e = |e: aqm_netsim::registry::RegistryError| e.to_string();
    let base = spec.name.strip_suffix(" (hw)").unwrap_or(&spec.name);
    if base != core.name() {
        let seeded = core
            .default_writes(seed)
            .into_iter()
            .filter(|w| w.param == "seed")
            .collect();
        return Ok((spec.clone(), seeded, false));
    }
    let mut p = Params::new(&spec.name, &spec.params);
    // The simulator's parameter parser of the core's AQM (aqm_netsim::registry has one per AQM).
    let (params, sim): (Box<dyn CoreParams>, AqmSpec) = match base {
        "pie" => (Box::new(pie_params(&mut p).map_err(e)?), spec.clone()),
        "dualpi2" => {
            let params = dualpi2_params_over(&mut p, HARDWARE_PARAMS).map_err(e)?;
            params.validate_hardware().map_err(|err| {
                format!(
                    "{spec}: {err} (the DualPI2 core holds at most {} packets, {} per queue)",
                    dualpi2::params::range::HW_LIMIT.1,
                    HARDWARE_PARAMS.queue_capacity
                )
            })?;
            let mut sim = spec.clone();
            for (k, v) in [
                ("limit", params.limit),
                ("queue_capacity", params.queue_capacity),
            ] {
                if !sim.params.iter().any(|(pk, _)| pk == k) {
                    sim.params.push((k.into(), v.to_string()));
                }
            }
            (Box::new(params), sim)
        }
        other => {
            return Err(format!(
                "the simulator has no parameters of the {other} core"
            ))
        }
    };
    p.finish().map_err(e)?;
    params.check_hardware()?;
    Ok((sim, params.register_writes(seed), true))
}

/// Runs the scenario and records what arrived at the AQM; the board's core is `core`.
pub fn simulate(o: &SimRunOptions, core: Core) -> Result<SimRun, String> {
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
    let (spec, writes, same_aqm) = board_params(&spec, core, o.seed)?;
    let (_, _, events) = run_one_recorded(&point.spec, &Registry::with_builtins(), &spec, o.seed)
        .map_err(|e| e.to_string())?;
    let mut arrivals = vec![];
    // Arrivals by packet id, to follow them to their dequeue.
    let mut by_id = HashMap::new();
    for e in &events {
        match e {
            AqmEvent::Enqueue {
                at_ns,
                pkt,
                admission,
                pushed_out,
            } => {
                let len = u16::try_from(pkt.len).map_err(|_| {
                    format!(
                        "packet {} is {} bytes: a descriptor takes at most 65535",
                        pkt.id, pkt.len
                    )
                })?;
                by_id.insert(pkt.id, arrivals.len());
                arrivals.push(Arrival {
                    at_ns: *at_ns,
                    len,
                    ecn: pkt.ecn.bits(),
                    sim_fate: match admission {
                        Admission::Enqueued => Fate::Queued,
                        Admission::Marked(_) => Fate::Marked,
                        Admission::Dropped(r) => drop_fate(*r),
                    },
                });
                for d in pushed_out {
                    if let Some(&k) = by_id.get(&d.pkt.id) {
                        arrivals[k].sim_fate = drop_fate(d.reason);
                    }
                }
            }
            AqmEvent::Dequeue {
                departure, drops, ..
            } => {
                for d in drops {
                    if let Some(&k) = by_id.get(&d.pkt.id) {
                        arrivals[k].sim_fate = drop_fate(d.reason);
                    }
                }
                if let Some(d) = departure {
                    if let Some(&k) = by_id.get(&d.pkt.id) {
                        let a: &mut Arrival = &mut arrivals[k];
                        if a.sim_fate == Fate::Queued {
                            a.sim_fate = if d.mark.is_some() {
                                Fate::Marked
                            } else {
                                Fate::Sent
                            };
                        }
                    }
                }
            }
        }
    }
    let total_arrivals = arrivals.len();
    // The board's link model runs at the scenario's rate: one it cannot represent is an error here, not
    // a saturated (or switched-off) link.
    link_byte_time_checked(point.spec.rate_bps).map_err(|e| {
        format!(
            "scenario {:?}{}: its rate on the board's link model: {e}",
            s.name,
            if point.label.is_empty() {
                String::new()
            } else {
                format!(" {}", point.label)
            }
        )
    })?;
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
        aqm: spec.to_string(),
        same_aqm,
        seed: o.seed,
        rate_bps: point.spec.rate_bps,
        duration_ns: point.spec.duration_ns,
        total_arrivals,
        arrivals,
        core,
        writes,
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
    let (mut rec, t0) = StreamRecord::begin(client, params)?;
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
