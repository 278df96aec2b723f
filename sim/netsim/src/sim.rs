//! The discrete-event simulator of one bottleneck.
//!
//! Senders hand packets straight to the AQM in front of a link of rate R. When the link is free and the AQM
//! holds packets, the link asks it for one (`dequeue`) and sends it in len*8/R ns (rounded up). A sent
//! packet then spends its flow's base RTT in a delay line: at the end of it the receiver takes the packet
//! and the sender gets the ACK (ACKs never queue, so receiver and ACK are one event). Each flow's delay line
//! is a FIFO and only its head is in the event queue, which keeps the heap as small as the number of flows.

use crate::cc::{Cc, CcKind};
use crate::event::{Event, EventQueue};
use crate::hist::Histogram;
use crate::metrics::{Conservation, RunMetrics, RunSamples};
use crate::rng::SimRng;
use crate::tcp::{Ack, EcnMode, Receiver, Send, Sender};
use aqm_golden::{Admission, Aqm, DropReason, Dropped, Ecn, Header, MarkReason, Packet, QueueId};
use std::collections::{BTreeMap, VecDeque};

/// Long flows start at a random time in this first stretch of the run, ns.
pub const START_SPREAD_NS: u64 = 1_000_000_000;
/// Each long flow's base RTT is drawn uniformly in this range times the nominal RTT.
pub const RTT_SPREAD: (f64, f64) = (0.9, 1.1);

/// One kind of traffic in a run.
#[derive(Clone, Debug, PartialEq)]
pub enum Traffic {
    /// `count` bulk TCP flows (start in the first second, base RTT spread around `rtt_ns`).
    Long {
        cc: CcKind,
        ecn: EcnMode,
        count: u32,
        rtt_ns: u64,
    },
    /// Poisson arrivals of finite Reno flows of `packets` packets each.
    Short {
        per_second: f64,
        packets: u32,
        rtt_ns: u64,
    },
    /// One `size`-byte packet every `interval_ns`, no congestion control.
    Probe {
        interval_ns: u64,
        size: u32,
        rtt_ns: u64,
    },
    /// Constant bit rate of `size`-byte packets, ignoring loss and marks.
    Cbr {
        rate_bps: u64,
        size: u32,
        rtt_ns: u64,
    },
}

/// A second queue after the AQM's link: a modem or switch port with its own FIFO and (usually lower)
/// rate. The AQM then sits at a host or gateway egress whose link runs at [`RunSpec::rate_bps`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Downstream {
    /// The downstream link's rate, bit/s.
    pub rate_bps: u64,
    /// Its FIFO's limit in packets, if any.
    pub limit_packets: Option<u64>,
    /// Its FIFO's limit in bytes, if any.
    pub limit_bytes: Option<u64>,
}

/// Everything one run needs, in simulator units.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// Rate of the link the AQM feeds (the bottleneck, unless there is a `downstream` queue), bit/s.
    pub rate_bps: u64,
    /// Simulated time, ns.
    pub duration_ns: u64,
    /// Statistics ignore what happens before this, ns.
    pub warmup_ns: u64,
    /// TCP packet size, bytes.
    pub packet_size: u32,
    pub traffic: Vec<Traffic>,
    /// Record the mean queueing delay in bins of this width, ns.
    pub timeseries_bin_ns: Option<u64>,
    /// Compute Jain's index also at these times, ns (label, time).
    pub checkpoints: Vec<(String, u64)>,
    /// A FIFO after the AQM's link (the two-queue path), if any.
    pub downstream: Option<Downstream>,
    /// All flows share one 5-tuple (a tunnel): the AQM sees one flow id; only the ECN field tells them
    /// apart.
    pub tunnel: bool,
    /// IP-header fields (DSCP, hosts) of each traffic group's packets, by group index; missing groups get
    /// `Header::default()`.
    pub headers: Vec<Header>,
    /// Report the peak queue in bytes, at the AQM and downstream.
    pub track_peak_queue: bool,
}

impl RunSpec {
    /// A plain run: one link of `rate_bps`, 1500-byte packets, `traffic` for `duration_ns` of which
    /// the first `warmup_ns` are not measured; no time series, checkpoints, downstream link, tunnel,
    /// extra headers or peak-queue tracking.
    pub fn plain(rate_bps: u64, duration_ns: u64, warmup_ns: u64, traffic: Vec<Traffic>) -> Self {
        RunSpec {
            rate_bps,
            duration_ns,
            warmup_ns,
            packet_size: 1500,
            traffic,
            timeseries_bin_ns: None,
            checkpoints: Vec::new(),
            downstream: None,
            tunnel: false,
            headers: Vec::new(),
            track_peak_queue: false,
        }
    }

    /// The rate of the path's narrowest link, bit/s.
    pub fn bottleneck_bps(&self) -> u64 {
        self.downstream.map_or(self.rate_bps, |d| d.rate_bps)
    }
}

/// A run that broke packet conservation (or got an impossible answer from the AQM).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConservationError(pub String);

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    Conservation(ConservationError),
    /// The AQM reported a failure of its own ([`Aqm::fault`]: the hardware core stopped answering).
    Aqm(String),
}

impl From<ConservationError> for RunError {
    fn from(e: ConservationError) -> Self {
        RunError::Conservation(e)
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Conservation(e) => write!(f, "packet conservation violated: {}", e.0),
            RunError::Aqm(why) => write!(f, "the AQM failed: {why}"),
        }
    }
}

/// A finished run: its results and the AQM as the run left it (for its counters).
pub struct Finished {
    pub metrics: RunMetrics,
    pub samples: RunSamples,
    pub aqm: Box<dyn Aqm>,
}

/// What kind of flow a flow is, for the statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Long { kind: CcKind, scalable: bool },
    Short,
    Probe,
    Cbr,
}

impl Class {
    fn label(self) -> &'static str {
        match self {
            Class::Long {
                kind: CcKind::Reno, ..
            } => "reno",
            Class::Long {
                kind: CcKind::Cubic,
                ..
            } => "cubic",
            Class::Long {
                kind: CcKind::Scalable,
                ..
            } => "scalable",
            Class::Short => "short",
            Class::Probe => "probe",
            Class::Cbr => "cbr",
        }
    }
}

/// A packet on its way back from the link: in the delay line until `arrive_ns`.
#[derive(Clone, Copy, Debug)]
struct Transit {
    arrive_ns: u64,
    /// Event sequence number taken when it entered the line (orders ties).
    ev_seq: u64,
    seq: u32,
    xmit: u64,
    sent_ns: u64,
    len: u32,
    ce: bool,
}

struct Flow {
    class: Class,
    header: Header,
    rtt_ns: u64,
    len: u32,
    ecn: Ecn,
    tcp: Option<(Sender, Receiver)>,
    transit: VecDeque<Transit>,
    /// When this flow's pending Timer event fires, if one is pending.
    timer_at: Option<u64>,
    start_ns: u64,
    /// Next sequence number of a flow without congestion control.
    next_seq: u32,
    /// Bytes delivered for the first time at or after the warm-up.
    goodput_bytes: u64,
    done: bool,
}

/// Where a packet is, from the simulator's own books.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Where {
    Queued,
    OnLink,
    Gone,
}

/// The simulator's record of a packet it handed to the AQM.
#[derive(Clone, Copy, Debug)]
struct Meta {
    flow: u32,
    seq: u32,
    xmit: u64,
    len: u32,
    sent_ns: u64,
    at: Where,
}

/// Records of packets by id. Ids are handed out in order and packets leave roughly in order, so a deque
/// that forgets its finished front is enough: its length is about the number of packets in the system.
#[derive(Default)]
struct MetaRing {
    base: u64,
    slots: VecDeque<Meta>,
}

impl MetaRing {
    fn push(&mut self, m: Meta) -> u64 {
        self.slots.push_back(m);
        self.base + self.slots.len() as u64 - 1
    }

    fn get_mut(&mut self, id: u64) -> Option<&mut Meta> {
        let i = id.checked_sub(self.base)?;
        self.slots.get_mut(usize::try_from(i).ok()?)
    }

    /// The packet inside the AQM that has been there longest: its id and record.
    fn oldest_queued(&self) -> Option<(u64, &Meta)> {
        self.slots
            .iter()
            .enumerate()
            .find(|(_, m)| m.at == Where::Queued)
            .map(|(k, m)| (self.base + k as u64, m))
    }

    fn retire(&mut self, id: u64) {
        if let Some(m) = self.get_mut(id) {
            m.at = Where::Gone;
        }
        while self.slots.front().is_some_and(|m| m.at == Where::Gone) {
            self.slots.pop_front();
            self.base += 1;
        }
    }
}

enum Source {
    Probe {
        flow: u32,
        interval_ns: u64,
    },
    Cbr {
        flow: u32,
        interval_ns: u64,
    },
    Short {
        group: usize,
        mean_gap_s: f64,
        packets: u32,
        rtt_ns: u64,
        rng: SimRng,
    },
}

/// Counters kept while measuring.
#[derive(Default)]
struct Stats {
    long_delay: Histogram,
    probe_delay: Histogram,
    /// By traffic class: [classic, scalable] long flows.
    class_delay: [Histogram; 2],
    /// By AQM queue: [Classic, L].
    queue_delay: [Histogram; 2],
    fct: Histogram,
    /// Time the link spent sending within [warm-up, end], ns.
    busy_ns: u64,
    drops: BTreeMap<String, u64>,
    marks: BTreeMap<String, u64>,
    probe_sent: u64,
    probe_dropped: u64,
    short_started: u64,
    short_done: u64,
    short_timed_out: u64,
    /// Per bin: (sum of delays ns, packets).
    bins: Vec<(u64, u64)>,
    jain_at: BTreeMap<String, f64>,
    /// Peak bytes queued at the AQM and in the downstream FIFO.
    peak_qdisc_bytes: u64,
    peak_port_bytes: u64,
}

/// The downstream FIFO and its link.
#[derive(Default)]
struct Port {
    fifo: VecDeque<OnLink>,
    bytes: u64,
    sending: Option<OnLink>,
}

/// The packet on the link.
#[derive(Clone, Copy)]
struct OnLink {
    id: u64,
    ce: bool,
}

/// One run in progress.
pub struct Simulation<'a> {
    spec: &'a RunSpec,
    aqm: Box<dyn Aqm>,
    events: EventQueue,
    now: u64,
    flows: Vec<Flow>,
    sources: Vec<Source>,
    meta: MetaRing,
    link: Option<OnLink>,
    count: Conservation,
    stats: Stats,
    sends: Vec<Send>,
    drops: Vec<Dropped>,
    port: Port,
    /// When a pending Wake event fires (the AQM's shaper asked to be polled then).
    wake_at: Option<u64>,
}

/// Jain's fairness index of `x`; None if all are zero or there are none.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    (sq > 0.0).then(|| sum * sum / (x.len() as f64 * sq))
}

fn ms(ns: Option<f64>) -> Option<f64> {
    ns.map(|v| v / 1e6)
}

impl<'a> Simulation<'a> {
    /// Sets up the flows and sources of `spec` with random draws from `seed`.
    pub fn new(spec: &'a RunSpec, aqm: Box<dyn Aqm>, seed: u64) -> Simulation<'a> {
        let mut sim = Simulation {
            spec,
            aqm,
            events: EventQueue::default(),
            now: 0,
            flows: Vec::new(),
            sources: Vec::new(),
            meta: MetaRing::default(),
            link: None,
            count: Conservation::default(),
            stats: Stats::default(),
            sends: Vec::new(),
            drops: Vec::new(),
            port: Port::default(),
            wake_at: None,
        };
        for (g, t) in spec.traffic.iter().enumerate() {
            let mut rng = SimRng::new(seed, g as u64);
            match *t {
                Traffic::Long {
                    cc,
                    ecn,
                    count,
                    rtt_ns,
                } => {
                    for _ in 0..count {
                        let rtt = (rtt_ns as f64 * rng.range(RTT_SPREAD.0, RTT_SPREAD.1)) as u64;
                        let start = (rng.uniform() * START_SPREAD_NS as f64) as u64;
                        let code = match ecn {
                            EcnMode::Off => Ecn::NotEct,
                            EcnMode::Classic => Ecn::Ect0,
                            EcnMode::Scalable => Ecn::Ect1,
                        };
                        let class = Class::Long {
                            kind: cc,
                            scalable: ecn == EcnMode::Scalable,
                        };
                        let f = sim.add_flow(g, class, rtt, spec.packet_size, code, start);
                        sim.flows[f].tcp =
                            Some((Sender::new(Cc::new(cc), ecn, None), Receiver::default()));
                        sim.events.push(start, Event::Start(f as u32));
                    }
                }
                Traffic::Short {
                    per_second,
                    packets,
                    rtt_ns,
                } => {
                    let mean_gap_s = 1.0 / per_second;
                    let first = (rng.exponential(mean_gap_s) * 1e9) as u64;
                    sim.add_source(
                        first,
                        Source::Short {
                            group: g,
                            mean_gap_s,
                            packets,
                            rtt_ns,
                            rng,
                        },
                    );
                }
                Traffic::Probe {
                    interval_ns,
                    size,
                    rtt_ns,
                } => {
                    let f = sim.add_flow(g, Class::Probe, rtt_ns, size, Ecn::NotEct, 0) as u32;
                    let phase = (rng.uniform() * interval_ns as f64) as u64;
                    sim.add_source(
                        phase,
                        Source::Probe {
                            flow: f,
                            interval_ns,
                        },
                    );
                }
                Traffic::Cbr {
                    rate_bps,
                    size,
                    rtt_ns,
                } => {
                    let f = sim.add_flow(g, Class::Cbr, rtt_ns, size, Ecn::NotEct, 0) as u32;
                    let interval_ns = (u64::from(size) * 8_000_000_000).div_ceil(rate_bps.max(1));
                    let phase = (rng.uniform() * interval_ns as f64) as u64;
                    sim.add_source(
                        phase,
                        Source::Cbr {
                            flow: f,
                            interval_ns,
                        },
                    );
                }
            }
        }
        for (i, (_, t)) in spec.checkpoints.iter().enumerate() {
            sim.events.push(*t, Event::Checkpoint(i as u32));
        }
        sim
    }

    fn add_flow(
        &mut self,
        group: usize,
        class: Class,
        rtt_ns: u64,
        len: u32,
        ecn: Ecn,
        start_ns: u64,
    ) -> usize {
        let header = self.spec.headers.get(group).copied().unwrap_or_default();
        self.flows.push(Flow {
            class,
            header,
            rtt_ns,
            len,
            ecn,
            tcp: None,
            transit: VecDeque::new(),
            timer_at: None,
            start_ns,
            next_seq: 0,
            goodput_bytes: 0,
            done: false,
        });
        self.flows.len() - 1
    }

    fn add_source(&mut self, first_ns: u64, s: Source) {
        self.sources.push(s);
        self.events
            .push(first_ns, Event::Source(self.sources.len() as u32 - 1));
    }

    fn measuring(&self) -> bool {
        self.now >= self.spec.warmup_ns
    }

    /// Runs to the end and returns the metrics, or the first conservation violation or AQM failure.
    pub fn run(self) -> Result<(RunMetrics, RunSamples), RunError> {
        self.run_to_end().map(|f| (f.metrics, f.samples))
    }

    /// As [`Simulation::run`], and hands back the AQM too.
    pub fn run_to_end(mut self) -> Result<Finished, RunError> {
        while let Some((t, ev)) = self.events.pop_until(self.spec.duration_ns) {
            self.now = t;
            match ev {
                Event::LinkDone => self.link_done()?,
                Event::Arrive(f) => self.arrive(f as usize)?,
                Event::Timer(f) => self.timer(f as usize)?,
                Event::Start(f) => self.transmit(f as usize)?,
                Event::Source(s) => self.source(s as usize)?,
                Event::Wake => self.wake()?,
                Event::PortDone => self.port_done()?,
                Event::Checkpoint(i) => {
                    let (label, _) = &self.spec.checkpoints[i as usize];
                    if let Some(j) = jain_index(&self.long_goodputs()) {
                        self.stats.jain_at.insert(label.clone(), j);
                    }
                }
            }
            if let Some(why) = self.aqm.fault() {
                return Err(RunError::Aqm(format!(
                    "{why} (simulated time {:.9} s)",
                    t as f64 * 1e-9
                )));
            }
        }
        self.now = self.spec.duration_ns;
        self.check_conservation()?;
        Ok(self.finish())
    }

    fn check_conservation(&self) -> Result<(), ConservationError> {
        let c = &self.count;
        let in_aqm = self.aqm.backlog_packets() as u64;
        if c.queued != in_aqm {
            // The one held longest is the first suspect: a FIFO that lost a packet sent everything
            // after it.
            let oldest = self.meta.oldest_queued().map_or(String::new(), |(id, m)| {
                format!(
                    "; the one held longest: packet {id} (flow {}, seq {}, {} B), handed to the AQM at \
                     {:.6} s and neither sent nor dropped since",
                    m.flow,
                    m.seq,
                    m.len,
                    m.sent_ns as f64 * 1e-9
                )
            });
            return Err(ConservationError(format!(
                "the simulator counts {} packets inside the AQM, the AQM reports {in_aqm}{oldest}",
                c.queued
            )));
        }
        if !c.balanced() {
            return Err(ConservationError(format!(
                "generated {} != delivered {} + dropped {} + queued {} + on link {} + in transit {}",
                c.generated, c.delivered, c.dropped, c.queued, c.on_link, c.in_transit
            )));
        }
        Ok(())
    }

    /// Hands one packet of flow `f` to the AQM, and starts the link if it is idle.
    fn send(&mut self, f: usize, seq: u32, xmit: u64) -> Result<(), ConservationError> {
        let flow = &self.flows[f];
        let (len, ecn, header) = (flow.len, flow.ecn, flow.header);
        let id = self.meta.push(Meta {
            flow: f as u32,
            seq,
            xmit,
            len,
            sent_ns: self.now,
            at: Where::Queued,
        });
        self.count.generated += 1;
        if flow.class == Class::Probe && self.measuring() {
            self.stats.probe_sent += 1;
        }
        let pkt = Packet {
            id,
            flow: self.flow_id(f as u32),
            len,
            ecn,
        };
        match self.aqm.enqueue_with_header(self.now, pkt, &header) {
            Admission::Enqueued => self.count.queued += 1,
            Admission::Marked(reason) => {
                self.count.queued += 1;
                self.count_mark(reason);
            }
            Admission::Dropped(reason) => {
                // Count it as queued for an instant so that one path accounts every drop.
                self.count.queued += 1;
                self.drop_queued(id, reason)?;
            }
        }
        let mut pushed = std::mem::take(&mut self.drops);
        self.aqm.take_pushed_out(&mut pushed);
        for d in pushed.drain(..) {
            self.drop_queued(d.pkt.id, d.reason)?;
        }
        self.drops = pushed;
        if self.spec.track_peak_queue && self.measuring() {
            let b = self.aqm.backlog_bytes();
            self.stats.peak_qdisc_bytes = self.stats.peak_qdisc_bytes.max(b);
        }
        if self.link.is_none() {
            self.start_link()?;
        }
        Ok(())
    }

    /// The flow id the AQM sees: the flow's own, or the tunnel's one id for every flow.
    fn flow_id(&self, f: u32) -> u32 {
        if self.spec.tunnel {
            u32::MAX
        } else {
            f
        }
    }

    /// The AQM's shaper said it could send now.
    fn wake(&mut self) -> Result<(), ConservationError> {
        if self.wake_at != Some(self.now) {
            return Ok(()); // superseded
        }
        self.wake_at = None;
        if self.link.is_none() {
            self.start_link()?;
        }
        Ok(())
    }

    /// Asks to be woken when the AQM's shaper lets its next packet go.
    fn arm_wake(&mut self) {
        if self.aqm.backlog_packets() == 0 {
            return;
        }
        let Some(t) = self.aqm.next_dequeue_ns() else {
            return;
        };
        let t = t.max(self.now + 1);
        if self.wake_at.is_none_or(|w| w > t || w <= self.now) {
            self.wake_at = Some(t);
            self.events.push(t, Event::Wake);
        }
    }

    fn count_mark(&mut self, reason: MarkReason) {
        if self.measuring() {
            *self.stats.marks.entry(reason.to_string()).or_insert(0) += 1;
        }
    }

    /// The AQM dropped packet `id`, which it must hold.
    fn drop_queued(&mut self, id: u64, reason: DropReason) -> Result<(), ConservationError> {
        let measuring = self.measuring();
        let m = match self.meta.get_mut(id) {
            Some(m) if m.at == Where::Queued => *m,
            _ => {
                return Err(ConservationError(format!(
                    "the AQM dropped packet {id} ({reason}), which it does not hold"
                )))
            }
        };
        self.meta.retire(id);
        self.count.queued -= 1;
        self.count.dropped += 1;
        if measuring {
            *self.stats.drops.entry(reason.to_string()).or_insert(0) += 1;
            if self.flows[m.flow as usize].class == Class::Probe {
                self.stats.probe_dropped += 1;
            }
        }
        Ok(())
    }

    /// The link is free: ask the AQM for the next packet.
    fn start_link(&mut self) -> Result<(), ConservationError> {
        let mut drops = std::mem::take(&mut self.drops);
        let departure = self.aqm.dequeue(self.now, &mut drops);
        for d in drops.drain(..) {
            self.drop_queued(d.pkt.id, d.reason)?;
        }
        self.drops = drops;
        let Some(d) = departure else {
            self.arm_wake();
            return Ok(());
        };
        let id = d.pkt.id;
        let m = match self.meta.get_mut(id) {
            Some(m) if m.at == Where::Queued => {
                m.at = Where::OnLink;
                *m
            }
            _ => {
                return Err(ConservationError(format!(
                    "the AQM sent packet {id}, which it does not hold"
                )))
            }
        };
        if d.pkt.flow != self.flow_id(m.flow) || d.pkt.len != m.len {
            return Err(ConservationError(format!(
                "the AQM changed packet {id}: flow {} len {} went in, flow {} len {} came out",
                m.flow, m.len, d.pkt.flow, d.pkt.len
            )));
        }
        self.count.queued -= 1;
        self.count.on_link += 1;
        if let Some(reason) = d.mark {
            self.count_mark(reason);
        }
        // With a downstream port, delays are measured where the bottleneck starts sending: at the port.
        if self.spec.downstream.is_none() {
            self.record_delay(m.flow, m.sent_ns, d.queue);
        }
        self.link = Some(OnLink {
            id,
            ce: d.pkt.ecn == Ecn::Ce,
        });
        let tx_ns = (u64::from(m.len) * 8_000_000_000).div_ceil(self.spec.rate_bps);
        if self.spec.downstream.is_none() {
            let busy_from = self.now.max(self.spec.warmup_ns);
            let busy_to = (self.now + tx_ns).min(self.spec.duration_ns);
            self.stats.busy_ns += busy_to.saturating_sub(busy_from);
        }
        self.events.push(self.now + tx_ns, Event::LinkDone);
        Ok(())
    }

    /// Records the queueing delay of a packet that starts on the bottleneck now.
    fn record_delay(&mut self, flow: u32, sent_ns: u64, queue: QueueId) {
        let delay = self.now - sent_ns;
        if self.measuring() {
            let class = self.flows[flow as usize].class;
            let s = &mut self.stats;
            match class {
                Class::Long { scalable, .. } => {
                    s.long_delay.record(delay);
                    s.class_delay[usize::from(scalable)].record(delay);
                }
                Class::Probe => s.probe_delay.record(delay),
                Class::Short | Class::Cbr => {}
            }
            s.queue_delay[usize::from(queue == QueueId::L)].record(delay);
        }
        if let Some(bin_ns) = self.spec.timeseries_bin_ns {
            let bin = (self.now / bin_ns) as usize;
            if bin >= self.stats.bins.len() {
                self.stats.bins.resize(bin + 1, (0, 0));
            }
            self.stats.bins[bin].0 += delay;
            self.stats.bins[bin].1 += 1;
        }
    }

    /// A packet off the AQM's link reaches the downstream FIFO: queued, or dropped if it is full.
    fn enter_port(&mut self, p: OnLink, d: Downstream) -> Result<(), ConservationError> {
        let Some(&mut m) = self.meta.get_mut(p.id) else {
            return Err(ConservationError(format!(
                "packet {} entering the port has no record",
                p.id
            )));
        };
        let full = d
            .limit_packets
            .is_some_and(|l| self.port.fifo.len() as u64 >= l)
            || d.limit_bytes
                .is_some_and(|l| self.port.bytes + u64::from(m.len) > l);
        if full {
            self.meta.retire(p.id);
            self.count.on_link -= 1;
            self.count.dropped += 1;
            if self.measuring() {
                *self.stats.drops.entry("port".into()).or_insert(0) += 1;
                if self.flows[m.flow as usize].class == Class::Probe {
                    self.stats.probe_dropped += 1;
                }
            }
            return Ok(());
        }
        self.port.bytes += u64::from(m.len);
        self.port.fifo.push_back(p);
        if self.spec.track_peak_queue && self.measuring() {
            self.stats.peak_port_bytes = self.stats.peak_port_bytes.max(self.port.bytes);
        }
        if self.port.sending.is_none() {
            self.start_port(d)?;
        }
        Ok(())
    }

    /// The downstream link takes the head of its FIFO.
    fn start_port(&mut self, d: Downstream) -> Result<(), ConservationError> {
        let Some(p) = self.port.fifo.pop_front() else {
            return Ok(());
        };
        let Some(&mut m) = self.meta.get_mut(p.id) else {
            return Err(ConservationError(format!(
                "packet {} in the port has no record",
                p.id
            )));
        };
        self.port.bytes -= u64::from(m.len);
        self.record_delay(m.flow, m.sent_ns, QueueId::Classic);
        let tx_ns = (u64::from(m.len) * 8_000_000_000).div_ceil(d.rate_bps);
        let busy_from = self.now.max(self.spec.warmup_ns);
        let busy_to = (self.now + tx_ns).min(self.spec.duration_ns);
        self.stats.busy_ns += busy_to.saturating_sub(busy_from);
        self.port.sending = Some(p);
        self.events.push(self.now + tx_ns, Event::PortDone);
        Ok(())
    }

    /// The downstream link finished its packet: it enters the delay line.
    fn port_done(&mut self) -> Result<(), ConservationError> {
        let (Some(p), Some(d)) = (self.port.sending.take(), self.spec.downstream) else {
            return Err(ConservationError(
                "the port finished a packet it was not sending".into(),
            ));
        };
        self.enter_delay_line(p)?;
        self.start_port(d)
    }

    /// The packet on the link is sent: it enters its flow's delay line (or the downstream FIFO); the link
    /// takes the next one.
    fn link_done(&mut self) -> Result<(), ConservationError> {
        let Some(p) = self.link.take() else {
            return Err(ConservationError(
                "the link finished a packet it was not sending".into(),
            ));
        };
        match self.spec.downstream {
            Some(d) => self.enter_port(p, d)?,
            None => self.enter_delay_line(p)?,
        }
        self.start_link()
    }

    /// A packet leaves the last link and enters its flow's delay line.
    fn enter_delay_line(&mut self, p: OnLink) -> Result<(), ConservationError> {
        let OnLink { id, ce } = p;
        let Some(&mut m) = self.meta.get_mut(id) else {
            return Err(ConservationError(format!(
                "packet {id} on the link has no record"
            )));
        };
        self.meta.retire(id);
        self.count.on_link -= 1;
        self.count.in_transit += 1;
        let ev_seq = self.events.take_seq();
        let f = m.flow as usize;
        let flow = &mut self.flows[f];
        let arrive_ns = self.now + flow.rtt_ns;
        if flow.transit.is_empty() {
            self.events
                .push_seq(arrive_ns, ev_seq, Event::Arrive(m.flow));
        }
        flow.transit.push_back(Transit {
            arrive_ns,
            ev_seq,
            seq: m.seq,
            xmit: m.xmit,
            sent_ns: m.sent_ns,
            len: m.len,
            ce,
        });
        Ok(())
    }

    /// The head of flow `f`'s delay line reaches the receiver; for TCP, its ACK reaches the sender.
    fn arrive(&mut self, f: usize) -> Result<(), ConservationError> {
        let measuring = self.measuring();
        let now = self.now;
        let flow = &mut self.flows[f];
        let Some(p) = flow.transit.pop_front() else {
            return Err(ConservationError(format!(
                "flow {f}'s delay line is empty at an arrival"
            )));
        };
        if let Some(next) = flow.transit.front() {
            self.events
                .push_seq(next.arrive_ns, next.ev_seq, Event::Arrive(f as u32));
        }
        self.count.in_transit -= 1;
        self.count.delivered += 1;
        let Some((sender, receiver)) = flow.tcp.as_mut() else {
            if measuring {
                flow.goodput_bytes += u64::from(p.len);
            }
            return Ok(());
        };
        let (cum, new) = receiver.on_packet(p.seq);
        if new && measuring {
            flow.goodput_bytes += u64::from(p.len);
        }
        let ack = Ack {
            seq: p.seq,
            xmit: p.xmit,
            sent_ns: p.sent_ns,
            cum,
            ce: p.ce,
        };
        sender.on_ack(now, &ack);
        if sender.is_done() && !flow.done {
            flow.done = true;
            flow.timer_at = None;
            sender.rto_deadline_ns = None;
            if flow.start_ns >= self.spec.warmup_ns {
                self.stats.short_done += 1;
                self.stats.fct.record(now - flow.start_ns);
                if sender.timeouts > 0 {
                    self.stats.short_timed_out += 1;
                }
            }
            return Ok(());
        }
        self.transmit(f)
    }

    /// Sends what flow `f`'s window allows and keeps its timer event in step with its deadline.
    fn transmit(&mut self, f: usize) -> Result<(), ConservationError> {
        let mut sends = std::mem::take(&mut self.sends);
        if let Some((sender, _)) = self.flows[f].tcp.as_mut() {
            sender.transmit(self.now, &mut sends);
        }
        for s in sends.drain(..) {
            self.send(f, s.seq, s.xmit)?;
        }
        self.sends = sends;
        self.arm_timer(f);
        Ok(())
    }

    /// Makes sure a Timer event is pending no later than the flow's RTO deadline. Deadlines mostly move
    /// later, so an early event that finds the deadline moved simply reschedules itself.
    fn arm_timer(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        let Some(deadline) = flow.tcp.as_ref().and_then(|(s, _)| s.rto_deadline_ns) else {
            return;
        };
        if flow.timer_at.is_none_or(|t| t > deadline) {
            flow.timer_at = Some(deadline);
            self.events.push(deadline, Event::Timer(f as u32));
        }
    }

    fn timer(&mut self, f: usize) -> Result<(), ConservationError> {
        let now = self.now;
        let flow = &mut self.flows[f];
        if flow.timer_at != Some(now) {
            return Ok(()); // superseded by an earlier event
        }
        flow.timer_at = None;
        let Some((sender, _)) = flow.tcp.as_mut() else {
            return Ok(());
        };
        match sender.rto_deadline_ns {
            Some(d) if d <= now => {
                sender.on_timeout(now);
                self.transmit(f)
            }
            _ => {
                self.arm_timer(f);
                Ok(())
            }
        }
    }

    fn source(&mut self, s: usize) -> Result<(), ConservationError> {
        match &mut self.sources[s] {
            &mut Source::Probe { flow, interval_ns } | &mut Source::Cbr { flow, interval_ns } => {
                self.events
                    .push(self.now + interval_ns, Event::Source(s as u32));
                let fl = &mut self.flows[flow as usize];
                let seq = fl.next_seq;
                fl.next_seq += 1;
                self.send(flow as usize, seq, u64::from(seq))
            }
            Source::Short {
                group,
                mean_gap_s,
                packets,
                rtt_ns,
                rng,
            } => {
                let group = *group;
                let rtt = (*rtt_ns as f64 * rng.range(RTT_SPREAD.0, RTT_SPREAD.1)) as u64;
                let gap = (rng.exponential(*mean_gap_s) * 1e9) as u64;
                let packets = *packets;
                self.events
                    .push(self.now + gap.max(1), Event::Source(s as u32));
                let f = self.add_flow(
                    group,
                    Class::Short,
                    rtt,
                    self.spec.packet_size,
                    Ecn::NotEct,
                    self.now,
                );
                self.flows[f].tcp = Some((
                    Sender::new(Cc::new(CcKind::Reno), EcnMode::Off, Some(packets)),
                    Receiver::default(),
                ));
                if self.measuring() {
                    self.stats.short_started += 1;
                }
                self.transmit(f)
            }
        }
    }

    fn long_goodputs(&self) -> Vec<f64> {
        self.flows
            .iter()
            .filter(|f| matches!(f.class, Class::Long { .. }))
            .map(|f| f.goodput_bytes as f64)
            .collect()
    }

    fn finish(self) -> Finished {
        let spec = self.spec;
        let jain = jain_index(&self.long_goodputs());
        let s = self.stats;
        let measured_s = (spec.duration_ns - spec.warmup_ns) as f64 * 1e-9;
        let capacity_bytes = spec.bottleneck_bps() as f64 / 8.0 * measured_s;
        let mut m = RunMetrics {
            utilisation: s.busy_ns as f64 / (spec.duration_ns - spec.warmup_ns) as f64,
            delay_p50_ms: ms(s.long_delay.quantile(0.5)),
            delay_p99_ms: ms(s.long_delay.quantile(0.99)),
            probe_p50_ms: ms(s.probe_delay.quantile(0.5)),
            probe_p99_ms: ms(s.probe_delay.quantile(0.99)),
            probe_loss: (s.probe_sent > 0).then(|| s.probe_dropped as f64 / s.probe_sent as f64),
            jain,
            jain_at: s.jain_at,
            drops: s.drops,
            marks: s.marks,
            events: self.events.processed(),
            conservation: self.count,
            ..RunMetrics::default()
        };
        if spec.track_peak_queue {
            m.peak_qdisc_kb = Some(s.peak_qdisc_bytes as f64 / 1000.0);
            if spec.downstream.is_some() {
                m.peak_port_kb = Some(s.peak_port_bytes as f64 / 1000.0);
            }
        }
        if s.short_started > 0 {
            m.fct_p50_ms = ms(s.fct.quantile(0.5));
            m.fct_p95_ms = ms(s.fct.quantile(0.95));
            m.short_done = Some(s.short_done as f64);
            let unfinished = self
                .flows
                .iter()
                .filter(|f| f.class == Class::Short && !f.done && f.start_ns >= spec.warmup_ns)
                .count();
            m.short_unfinished = Some(unfinished as f64);
            let timed_out_unfinished = self
                .flows
                .iter()
                .filter(|f| f.class == Class::Short && !f.done && f.start_ns >= spec.warmup_ns)
                .filter(|f| f.tcp.as_ref().is_some_and(|(s, _)| s.timeouts > 0))
                .count() as u64;
            m.short_timeouts = Some((s.short_timed_out + timed_out_unfinished) as f64);
        }
        let [classic, scalable] = &s.class_delay;
        if scalable.count() > 0 {
            m.scalable_mean_ms = ms(scalable.mean());
            m.scalable_p99_ms = ms(scalable.quantile(0.99));
            m.classic_mean_ms = ms(classic.mean());
            m.classic_p99_ms = ms(classic.quantile(0.99));
        }
        let [c_queue, l_queue] = &s.queue_delay;
        if l_queue.count() > 0 {
            m.l_queue_mean_ms = ms(l_queue.mean());
            m.l_queue_p99_ms = ms(l_queue.quantile(0.99));
            m.c_queue_mean_ms = ms(c_queue.mean());
            m.c_queue_p99_ms = ms(c_queue.quantile(0.99));
        }
        let (mut classic_bytes, mut classic_n, mut scalable_bytes, mut scalable_n) =
            (0.0, 0.0, 0.0, 0.0);
        let mut long_bytes = 0.0;
        for f in &self.flows {
            let b = f.goodput_bytes as f64;
            *m.goodput_mbps
                .entry(f.class.label().to_string())
                .or_insert(0.0) += b * 8.0 / measured_s / 1e6;
            if let Class::Long { scalable, .. } = f.class {
                long_bytes += b;
                m.timeouts_long += f.tcp.as_ref().map_or(0, |(s, _)| u64::from(s.timeouts));
                if scalable {
                    scalable_bytes += b;
                    scalable_n += 1.0;
                } else {
                    classic_bytes += b;
                    classic_n += 1.0;
                }
            }
        }
        if classic_n > 0.0 && scalable_n > 0.0 && scalable_bytes > 0.0 {
            m.rate_ratio = Some((classic_bytes / classic_n) / (scalable_bytes / scalable_n));
        }
        if long_bytes > 0.0 || classic_n + scalable_n > 0.0 {
            m.long_share = Some(long_bytes / capacity_bytes);
        }
        let samples = RunSamples {
            long_delay: s.long_delay,
            probe_delay: s.probe_delay,
            timeseries: match spec.timeseries_bin_ns {
                Some(bin_ns) => s
                    .bins
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, n))| *n > 0)
                    .map(|(i, (sum, n))| {
                        (
                            i as f64 * bin_ns as f64 * 1e-9,
                            *sum as f64 / *n as f64 / 1e6,
                        )
                    })
                    .collect(),
                None => Vec::new(),
            },
        };
        Finished {
            metrics: m,
            samples,
            aqm: self.aqm,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_golden::reference::{TailDrop, TailDropParams};

    const MS: u64 = 1_000_000;

    fn taildrop() -> Box<dyn Aqm> {
        Box::new(TailDrop::new(TailDropParams::default()))
    }

    fn spec(traffic: Vec<Traffic>) -> RunSpec {
        RunSpec::plain(20_000_000, 3_000 * MS, 1_000 * MS, traffic)
    }

    #[test]
    fn long_flows_get_a_base_rtt_within_ten_percent_and_start_in_the_first_second() {
        let s = spec(vec![Traffic::Long {
            cc: CcKind::Reno,
            ecn: EcnMode::Off,
            count: 200,
            rtt_ns: 50 * MS,
        }]);
        let sim = Simulation::new(&s, taildrop(), 7);
        let rtts: Vec<u64> = sim.flows.iter().map(|f| f.rtt_ns).collect();
        assert!(rtts.iter().all(|&r| (45 * MS..=55 * MS).contains(&r)));
        assert!(rtts.iter().any(|&r| r < 46 * MS) && rtts.iter().any(|&r| r > 54 * MS));
        assert!(sim.flows.iter().all(|f| f.start_ns < START_SPREAD_NS));
        assert!(sim.flows.iter().any(|f| f.start_ns > 900 * MS));
    }

    #[test]
    fn meta_ring_forgets_finished_packets_from_the_front_only() {
        let mut ring = MetaRing::default();
        let m = Meta {
            flow: 0,
            seq: 0,
            xmit: 0,
            len: 1500,
            sent_ns: 0,
            at: Where::Queued,
        };
        let ids: Vec<u64> = (0..4).map(|_| ring.push(m)).collect();
        assert_eq!(ids, vec![0, 1, 2, 3]);
        ring.retire(1);
        assert_eq!(ring.slots.len(), 4);
        ring.retire(0);
        assert_eq!((ring.base, ring.slots.len()), (2, 2));
        assert!(ring.get_mut(1).is_none());
        assert_eq!(ring.get_mut(3).map(|m| m.at), Some(Where::Queued));
    }

    #[test]
    fn jain_index_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_index(&[8.0, 0.0, 0.0, 0.0]), Some(0.25));
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn transmission_time_is_rounded_up_so_the_link_never_exceeds_its_rate() {
        let mut s = spec(vec![Traffic::Cbr {
            rate_bps: 30_000_000,
            size: 1000,
            rtt_ns: 10 * MS,
        }]);
        s.rate_bps = 3_000_000; // 1000 B take 2666.67 us: rounded up to 2667 us
        let (m, _) = Simulation::new(&s, taildrop(), 1).run().unwrap();
        assert!(
            m.utilisation <= 1.0 && m.utilisation > 0.999,
            "{}",
            m.utilisation
        );
    }
}
