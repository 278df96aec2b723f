//! CAKE (Common Applications Kept Enhanced; tc-cake(8), Linux `sch_cake`) as a software reference AQM:
//! a deficit-mode shaper with overhead compensation, DiffServ tins, 8-way set-associative flow hashing
//! with host isolation, DRR++ over new, old and decaying flow lists, and COBALT (CoDel + BLUE) per flow
//! queue. The rules are written out in golden/REFERENCE-AQMS.md.
//!
//! Differences from Linux, all deliberate: lengths are the simulator's (network-layer) lengths, memory is
//! counted as packet bytes rather than `truesize`, the control law uses an exact square root, and there is
//! no GSO splitting, NAT lookup, fwmark/priority override, autorate or `ack-filter` (see
//! [`config::ACK_FILTER_LEFT_OUT`]).

pub mod cobalt;
pub mod config;

pub use cobalt::{CobaltParams, CobaltVars, Verdict};
pub use config::{CakeParams, Diffserv, FlowMode, Framing, KeywordError};

use super::MTU;
use crate::types::{
    Admission, Departure, DropReason, Dropped, Ecn, Header, MarkReason, Packet, QueueId,
};
use crate::Aqm;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// Flow queues per tin.
pub const QUEUES: usize = 1024;
/// Ways of the set-associative flow (and host) tables.
pub const SET_WAYS: usize = 8;

/// Which rotation a flow queue is in (Linux's `CAKE_SET_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowSet {
    None,
    /// In new_flows.
    Sparse,
    /// In old_flows but still counted as sparse (it emptied before using its quantum).
    SparseWait,
    /// In old_flows.
    Bulk,
    /// Empty, in decaying_flows until its COBALT state is at rest.
    Decaying,
}

#[derive(Clone, Debug)]
struct Flow {
    /// (packet, enqueue time, length charged to the shaper)
    q: VecDeque<(Packet, u64, u32)>,
    backlog: u64,
    deficit: i64,
    cvars: CobaltVars,
    /// Its source and destination host ([`SRC`], [`DST`]).
    host: [usize; 2],
    set: FlowSet,
    dropped: u64,
}

/// A host's tag and bulk-flow count, as a source ([`SRC`]) and as a destination ([`DST`]).
#[derive(Clone, Copy, Debug, Default)]
struct Host {
    tag: [u32; 2],
    bulk: [u32; 2],
}

/// The source end of a flow, an index into [`Flow::host`] and [`Host`]'s arrays.
const SRC: usize = 0;
/// The destination end.
const DST: usize = 1;

/// One tin's statistics, as `tc -s qdisc show` prints them for CAKE.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TinStats {
    pub name: &'static str,
    /// Threshold rate, bit/s (0: unlimited).
    pub thresh_bps: u64,
    pub target_ns: u64,
    pub interval_ns: u64,
    /// Delay EWMAs, ns: peak (fast up), average, base (fast down).
    pub peak_delay_ns: u64,
    pub avg_delay_ns: u64,
    pub base_delay_ns: u64,
    /// Packets and bytes enqueued.
    pub packets: u64,
    pub bytes: u64,
    /// Hash lookups that found the flow at its direct index, in another way, in a free way, or collided.
    pub way_inds: u64,
    pub way_hits: u64,
    pub way_miss: u64,
    pub way_cols: u64,
    /// COBALT and BLUE drops at dequeue plus over-limit drops.
    pub drops: u64,
    pub marks: u64,
    /// Packets dropped because the memory limit was reached while they arrived.
    pub overlimit_drops: u64,
    pub sparse_flows: u32,
    pub bulk_flows: u32,
    pub unresponsive_flows: u32,
    pub max_len: u32,
    pub backlog_bytes: u64,
}

#[derive(Clone, Debug)]
struct Tin {
    flows: Vec<Flow>,
    tags: Vec<u32>,
    hosts: Vec<Host>,
    flow_quantum: u32,
    cparams: CobaltParams,
    bulk: u32,
    sparse: u32,
    decaying: u32,
    unresponsive: u32,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    decaying_flows: VecDeque<usize>,
    time_next_packet: u64,
    /// ns per byte << 32 at the tin's threshold rate; 0 unlimited.
    rate_q: u64,
    quantum: i64,
    deficit: i64,
    backlog: u64,
    stats: TinStats,
}

impl Tin {
    fn active(&self) -> u32 {
        self.sparse + self.bulk
    }

    fn list(&mut self, set: FlowSet) -> &mut VecDeque<usize> {
        match set {
            FlowSet::Sparse => &mut self.new_flows,
            FlowSet::Decaying => &mut self.decaying_flows,
            _ => &mut self.old_flows,
        }
    }
}

/// The SplitMix64 finaliser, used as a keyed hash.
fn mix64(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// ns per byte << 32 at `bps`.
fn rate_q(bps: u64) -> u64 {
    if bps == 0 {
        return 0;
    }
    ((8_000_000_000u128 << 32) / u128::from(bps)).min(u128::from(u64::MAX)) as u64
}

fn dur(len: u32, rate_q: u64) -> u64 {
    ((u128::from(len) * u128::from(rate_q)) >> 32) as u64
}

/// A CAKE qdisc.
#[derive(Clone, Debug)]
pub struct Cake {
    params: CakeParams,
    tins: Vec<Tin>,
    cur_tin: usize,
    /// Global shaper: ns per byte << 32; 0 unlimited.
    rate_q: u64,
    time_next_packet: u64,
    failsafe_next_packet: u64,
    total_packets: usize,
    total_bytes: u64,
    buffer_limit: u64,
    buffer_max_used: u64,
    key: u64,
    rng: u64,
    washed: u64,
    overlimits: u64,
    pushed_out: Vec<Dropped>,
}

impl Cake {
    /// A CAKE qdisc; its hash key and BLUE's random draws come from `seed`.
    pub fn new(params: CakeParams, seed: u64) -> Result<Cake, KeywordError> {
        params.validate()?;
        let bw = params.bandwidth_bps.unwrap_or(0);
        let tins = params
            .diffserv
            .tins()
            .into_iter()
            .map(|spec| {
                let bps = bw * spec.rate_num / spec.rate_den;
                let rq = if bw == 0 { 0 } else { rate_q(bps.max(64 * 8)) };
                let mtu_time = dur(MTU, rq);
                let cparams = CobaltParams::new(params.target_ns, params.interval_ns, mtu_time);
                let flow_quantum = if bw == 0 {
                    MTU
                } else {
                    ((bps / 8) >> 12).clamp(300, u64::from(MTU)) as u32
                };
                let flow = Flow {
                    q: VecDeque::new(),
                    backlog: 0,
                    deficit: 0,
                    cvars: CobaltVars::default(),
                    host: [0, 0],
                    set: FlowSet::None,
                    dropped: 0,
                };
                Tin {
                    flows: vec![flow; QUEUES],
                    tags: vec![0; QUEUES],
                    hosts: vec![Host::default(); QUEUES],
                    flow_quantum,
                    cparams,
                    bulk: 0,
                    sparse: 0,
                    decaying: 0,
                    unresponsive: 0,
                    new_flows: VecDeque::new(),
                    old_flows: VecDeque::new(),
                    decaying_flows: VecDeque::new(),
                    time_next_packet: 0,
                    rate_q: rq,
                    quantum: i64::from(spec.quantum),
                    deficit: 0,
                    backlog: 0,
                    stats: TinStats {
                        name: spec.name,
                        thresh_bps: bps,
                        target_ns: cparams.target_ns,
                        interval_ns: cparams.interval_ns,
                        ..TinStats::default()
                    },
                }
            })
            .collect();
        let limit_bytes = params.limit as u64 * u64::from(MTU);
        let buffer_limit = match (params.memlimit, params.bandwidth_bps) {
            (Some(m), _) => m,
            (None, Some(bps)) => {
                let four_intervals = (u128::from(bps / 8) * u128::from(params.interval_ns) * 4
                    / 1_000_000_000) as u64;
                four_intervals.max(4 << 20).min(limit_bytes)
            }
            (None, None) => limit_bytes,
        };
        Ok(Cake {
            rate_q: if bw == 0 { 0 } else { rate_q(bw) },
            tins,
            cur_tin: 0,
            time_next_packet: 0,
            failsafe_next_packet: 0,
            total_packets: 0,
            total_bytes: 0,
            buffer_limit,
            buffer_max_used: 0,
            key: mix64(seed ^ 0x6361_6b65_0000_0001),
            rng: mix64(seed ^ 0x6361_6b65_0000_0002),
            washed: 0,
            overlimits: 0,
            pushed_out: Vec::new(),
            params,
        })
    }

    pub fn params(&self) -> &CakeParams {
        &self.params
    }

    /// The memory limit in force, bytes.
    pub fn buffer_limit(&self) -> u64 {
        self.buffer_limit
    }

    fn random(&mut self) -> u32 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        (mix64(self.rng) >> 32) as u32
    }

    fn hash32(&self, salt: u64, v: u64) -> u32 {
        (mix64(v ^ self.key ^ salt) >> 32) as u32
    }

    /// The direct-mapped queue index of a flow (before set-associative placement) in a by-flow mode.
    pub fn direct_index(&self, flow: u32) -> usize {
        let k = FlowMode::Flows.key(flow, 0, 0).unwrap_or(0);
        self.hash32(1, k) as usize % QUEUES
    }

    /// The tin a packet with this header goes to.
    pub fn tin_of(&self, header: &Header) -> usize {
        self.params
            .diffserv
            .tin_of(header.dscp)
            .min(self.tins.len() - 1)
    }

    /// The flow queue (index within its tin) a packet goes to: set-associative lookup, reserving a way
    /// for a new flow, and host-table allocation for the dual and triple modes (Linux's `cake_hash`).
    fn hash(&mut self, tin: usize, flow: u32, header: &Header) -> usize {
        let mode = self.params.flow_mode;
        let Some(k) = mode.key(flow, header.src_host, header.dst_host) else {
            return 0; // flowblind
        };
        let flow_hash = self.hash32(1, k);
        let src_hash = self.hash32(2, u64::from(header.src_host));
        let dst_hash = self.hash32(3, u64::from(header.dst_host));
        let b = &mut self.tins[tin];
        let reduced = flow_hash as usize % QUEUES;
        if b.tags[reduced] == flow_hash && b.flows[reduced].set != FlowSet::None {
            b.stats.way_inds += 1;
            return reduced;
        }
        let inner = reduced % SET_WAYS;
        let outer = reduced - inner;
        let (fair_src, fair_dst) = (mode.fair_src(), mode.fair_dst());
        let mut allocate = false;
        let mut found = None;
        for i in 0..SET_WAYS {
            let k = (inner + i) % SET_WAYS;
            if b.tags[outer + k] == flow_hash {
                if i > 0 {
                    b.stats.way_hits += 1;
                }
                if b.flows[outer + k].set == FlowSet::None {
                    allocate = true;
                }
                found = Some(outer + k);
                break;
            }
        }
        if found.is_none() {
            for i in 0..SET_WAYS {
                let k = (inner + i) % SET_WAYS;
                if b.flows[outer + k].set == FlowSet::None {
                    b.stats.way_miss += 1;
                    allocate = true;
                    found = Some(outer + k);
                    break;
                }
            }
        }
        let idx = match found {
            Some(i) => i,
            None => {
                // Every way is busy: share the direct queue with whatever flow holds it.
                b.stats.way_cols += 1;
                if b.flows[reduced].set == FlowSet::Bulk {
                    let hosts = b.flows[reduced].host;
                    for end in [SRC, DST] {
                        let bulk = &mut b.hosts[hosts[end]].bulk[end];
                        *bulk = bulk.saturating_sub(1);
                    }
                }
                allocate = true;
                reduced
            }
        };
        b.tags[idx] = flow_hash;
        for (end, fair, hash) in [(SRC, fair_src, src_hash), (DST, fair_dst, dst_hash)] {
            if allocate && fair {
                let h = alloc_host(&mut b.hosts, hash, end);
                if b.flows[idx].set == FlowSet::Bulk {
                    b.hosts[h].bulk[end] += 1;
                }
                b.flows[idx].host[end] = h;
            }
        }
        idx
    }

    /// The flow quantum of a flow: the tin's quantum divided by its host's bulk-flow count (the larger of
    /// source and destination in triple-isolate), with dithering so the rounding does not accumulate.
    fn flow_quantum(&mut self, tin: usize, idx: usize, dither: bool) -> i64 {
        let r = if dither { self.random() >> 16 } else { 0 };
        let mode = self.params.flow_mode;
        let b = &self.tins[tin];
        let f = &b.flows[idx];
        let mut load = 1u32;
        for (end, fair) in [(SRC, mode.fair_src()), (DST, mode.fair_dst())] {
            if fair {
                load = load.max(b.hosts[f.host[end]].bulk[end]);
            }
        }
        let div = 65535 / u64::from(load.min(QUEUES as u32));
        ((u64::from(b.flow_quantum) * div + u64::from(r)) >> 16) as i64
    }

    fn host_bulk(&mut self, tin: usize, idx: usize, up: bool) {
        let mode = self.params.flow_mode;
        let b = &mut self.tins[tin];
        let hosts = b.flows[idx].host;
        for (end, fair) in [(SRC, mode.fair_src()), (DST, mode.fair_dst())] {
            if fair {
                let c = &mut b.hosts[hosts[end]].bulk[end];
                *c = if up { *c + 1 } else { c.saturating_sub(1) };
            }
        }
    }

    /// Charges `len` to the tin's and the global shaper (Linux's `cake_advance_shaper`).
    fn advance_shaper(&mut self, tin: usize, len: u32, now_ns: u64, drop: bool) {
        if self.rate_q == 0 {
            return;
        }
        let b = &mut self.tins[tin];
        let tin_dur = dur(len, b.rate_q);
        if b.time_next_packet < now_ns {
            b.time_next_packet += tin_dur;
        } else if b.time_next_packet < now_ns + tin_dur {
            b.time_next_packet = now_ns + tin_dur;
        }
        let global = dur(len, self.rate_q);
        self.time_next_packet += global;
        if !drop {
            self.failsafe_next_packet += global + global / 2;
        }
    }

    /// Over the memory limit: drop the head of the longest flow queue of any tin; BLUE of that queue
    /// learns that it overflowed.
    fn drop_from_longest(&mut self, now_ns: u64) {
        let mut best: Option<(u64, usize, usize)> = None;
        for (t, b) in self.tins.iter().enumerate() {
            for &i in b.new_flows.iter().chain(b.old_flows.iter()) {
                let bl = b.flows[i].backlog;
                if bl > 0 && best.is_none_or(|(m, _, _)| bl > m) {
                    best = Some((bl, t, i));
                }
            }
        }
        let Some((_, t, i)) = best else { return };
        let ingress = self.params.ingress;
        let b = &mut self.tins[t];
        let cparams = b.cparams;
        let f = &mut b.flows[i];
        let Some((pkt, enq, adj)) = f.q.pop_front() else {
            return;
        };
        if f.cvars.queue_full(&cparams, now_ns) {
            b.unresponsive += 1;
        }
        let len = u64::from(pkt.len);
        f.backlog -= len;
        f.dropped += 1;
        b.backlog -= len;
        b.stats.drops += 1;
        self.total_bytes -= len;
        self.total_packets -= 1;
        if ingress {
            self.advance_shaper(t, adj, now_ns, true);
        }
        self.pushed_out.push(Dropped {
            pkt,
            reason: DropReason::FqOverlimit,
            sojourn_ns: now_ns - enq,
            queue: QueueId::Classic,
        });
    }

    /// Per-tin statistics as of now.
    pub fn tin_stats(&self) -> Vec<TinStats> {
        self.tins
            .iter()
            .map(|b| TinStats {
                sparse_flows: b.sparse,
                bulk_flows: b.bulk,
                unresponsive_flows: b.unresponsive,
                backlog_bytes: b.backlog,
                ..b.stats.clone()
            })
            .collect()
    }

    /// Packets whose DSCP `wash` cleared.
    pub fn washed(&self) -> u64 {
        self.washed
    }

    /// The statistics in the layout of `tc -s qdisc show dev X` for CAKE.
    pub fn tc_stats(&self) -> String {
        let stats = self.tin_stats();
        let mut s = String::new();
        let bw = match self.params.bandwidth_bps {
            Some(b) => format!("{}Kbit", b / 1000),
            None => "unlimited".into(),
        };
        let _ = writeln!(
            s,
            " memory used: {}b of {}b\n capacity estimate: {bw}\n overlimits: {}  washed: {}",
            self.buffer_max_used, self.buffer_limit, self.overlimits, self.washed
        );
        let row = |s: &mut String, label: &str, f: &dyn Fn(&TinStats) -> String| {
            let _ = write!(s, "{label:<16}");
            for t in &stats {
                let _ = write!(s, "{:>14}", f(t));
            }
            s.push('\n');
        };
        let us = |ns: u64| format!("{:.1}us", ns as f64 / 1e3);
        row(&mut s, "", &|t| t.name.to_string());
        row(&mut s, "  thresh", &|t| {
            if t.thresh_bps == 0 {
                "unlimited".into()
            } else {
                format!("{}Kbit", t.thresh_bps / 1000)
            }
        });
        row(&mut s, "  target", &|t| us(t.target_ns));
        row(&mut s, "  interval", &|t| us(t.interval_ns));
        row(&mut s, "  pk_delay", &|t| us(t.peak_delay_ns));
        row(&mut s, "  av_delay", &|t| us(t.avg_delay_ns));
        row(&mut s, "  sp_delay", &|t| us(t.base_delay_ns));
        row(&mut s, "  backlog", &|t| format!("{}b", t.backlog_bytes));
        row(&mut s, "  pkts", &|t| t.packets.to_string());
        row(&mut s, "  bytes", &|t| t.bytes.to_string());
        row(&mut s, "  way_inds", &|t| t.way_inds.to_string());
        row(&mut s, "  way_miss", &|t| t.way_miss.to_string());
        row(&mut s, "  way_cols", &|t| t.way_cols.to_string());
        row(&mut s, "  drops", &|t| t.drops.to_string());
        row(&mut s, "  marks", &|t| t.marks.to_string());
        row(&mut s, "  ack_drop", &|_| "0".into());
        row(&mut s, "  sp_flows", &|t| t.sparse_flows.to_string());
        row(&mut s, "  bk_flows", &|t| t.bulk_flows.to_string());
        row(&mut s, "  un_flows", &|t| t.unresponsive_flows.to_string());
        row(&mut s, "  max_len", &|t| t.max_len.to_string());
        s
    }

    /// Serves the tin chosen: DRR++ over its flows, COBALT on the chosen flow. `None` with `Some(begin)`:
    /// start over (a flow was found empty).
    fn dequeue_inner(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        let mut first_flow = true;
        // Each pass either sends, gives up, or retires an empty flow or a spent deficit, so the number of
        // passes is bounded by the queued packets plus the flows; the guard only protects against a bug.
        let mut guard = 4 * (self.total_packets + 8 * QUEUES) + 64;
        'begin: loop {
            guard = guard.checked_sub(1)?;
            if self.total_packets == 0 {
                return None;
            }
            if self.time_next_packet > now_ns && self.failsafe_next_packet > now_ns {
                self.overlimits += 1;
                return None;
            }
            if self.rate_q == 0 {
                let (mut wrapped, mut empty) = (false, true);
                loop {
                    let b = &mut self.tins[self.cur_tin];
                    if b.deficit >= 0 && b.active() > 0 {
                        break;
                    }
                    if b.deficit <= 0 {
                        b.deficit += b.quantum;
                    }
                    if b.active() > 0 {
                        empty = false;
                    }
                    self.cur_tin += 1;
                    if self.cur_tin >= self.tins.len() {
                        self.cur_tin = 0;
                        if wrapped {
                            if empty {
                                return None;
                            }
                        } else {
                            wrapped = true;
                        }
                    }
                }
            } else {
                // The highest tin within its threshold rate, else the one whose schedule comes first.
                let mut best: Option<(i128, usize)> = None;
                for (t, b) in self.tins.iter().enumerate() {
                    if b.active() > 0 {
                        let to_pkt = b.time_next_packet as i128 - now_ns as i128;
                        if to_pkt <= 0 || best.is_none_or(|(bt, _)| to_pkt <= bt) {
                            best = Some((to_pkt, t));
                        }
                    }
                }
                self.cur_tin = best?.1;
            }
            let t = self.cur_tin;
            'retry: loop {
                guard = guard.checked_sub(1)?;
                let b = &mut self.tins[t];
                let set = if first_flow && !b.decaying_flows.is_empty() {
                    FlowSet::Decaying
                } else if !b.new_flows.is_empty() {
                    FlowSet::Sparse
                } else if !b.old_flows.is_empty() {
                    FlowSet::Bulk
                } else if !b.decaying_flows.is_empty() {
                    FlowSet::Decaying
                } else {
                    continue 'begin;
                };
                let idx = *b.list(set).front()?;
                first_flow = false;
                if b.flows[idx].deficit <= 0 {
                    if b.flows[idx].set == FlowSet::Sparse {
                        if b.flows[idx].q.is_empty() {
                            b.flows[idx].set = FlowSet::SparseWait;
                        } else {
                            b.sparse -= 1;
                            b.bulk += 1;
                            b.flows[idx].set = FlowSet::Bulk;
                            self.host_bulk(t, idx, true);
                        }
                    }
                    let q = self.flow_quantum(t, idx, true);
                    let b = &mut self.tins[t];
                    b.flows[idx].deficit += q;
                    b.list(set).pop_front();
                    b.old_flows.push_back(idx);
                    continue 'retry;
                }
                loop {
                    let b = &mut self.tins[t];
                    let cparams = b.cparams;
                    let Some((mut pkt, enq, adj)) = b.flows[idx].q.pop_front() else {
                        // The queue was empty: keep it in the decaying rotation until COBALT is at rest.
                        let f = &mut b.flows[idx];
                        if f.cvars.queue_empty(&cparams, now_ns) {
                            b.unresponsive = b.unresponsive.saturating_sub(1);
                        }
                        let old = f.set;
                        let keep = f.cvars.p_drop != 0
                            || f.cvars.count != 0
                            || now_ns < f.cvars.drop_next_ns;
                        b.list(set).pop_front();
                        match old {
                            FlowSet::Bulk => {
                                b.bulk -= 1;
                                self.host_bulk(t, idx, false);
                            }
                            FlowSet::Sparse | FlowSet::SparseWait => b.sparse -= 1,
                            _ => {}
                        }
                        let b = &mut self.tins[t];
                        if keep {
                            if old != FlowSet::Decaying {
                                b.decaying += 1;
                            }
                            b.flows[idx].set = FlowSet::Decaying;
                            b.decaying_flows.push_back(idx);
                        } else {
                            if old == FlowSet::Decaying {
                                b.decaying -= 1;
                            }
                            b.flows[idx].set = FlowSet::None;
                        }
                        continue 'begin;
                    };
                    let len = u64::from(pkt.len);
                    b.flows[idx].backlog -= len;
                    b.backlog -= len;
                    self.total_bytes -= len;
                    self.total_packets -= 1;
                    let bulk = if self.params.ingress { b.bulk } else { 0 };
                    let r = self.random();
                    let b = &mut self.tins[t];
                    let sojourn = now_ns - enq;
                    let verdict = b.flows[idx].cvars.should_drop(
                        &cparams,
                        now_ns,
                        sojourn,
                        pkt.ecn.is_ecn_capable(),
                        bulk,
                        r,
                    );
                    let last = b.flows[idx].q.is_empty();
                    let reason = match verdict {
                        Verdict::DropCodel if !last => Some(DropReason::Codel),
                        Verdict::DropBlue if !last => Some(DropReason::Blue),
                        _ => None,
                    };
                    if let Some(reason) = reason {
                        b.flows[idx].dropped += 1;
                        b.stats.drops += 1;
                        drops.push(Dropped {
                            pkt,
                            reason,
                            sojourn_ns: sojourn,
                            queue: QueueId::Classic,
                        });
                        if self.params.ingress {
                            self.advance_shaper(t, adj, now_ns, true);
                            let b = &mut self.tins[t];
                            b.flows[idx].deficit -= i64::from(adj);
                            b.deficit -= i64::from(adj);
                            continue 'retry;
                        }
                        continue;
                    }
                    let mark = verdict == Verdict::Mark;
                    if mark {
                        pkt.ecn = Ecn::Ce;
                        b.stats.marks += 1;
                    }
                    let st = &mut b.stats;
                    st.avg_delay_ns = ewma(st.avg_delay_ns, sojourn, 8);
                    let up = if sojourn > st.peak_delay_ns { 2 } else { 8 };
                    st.peak_delay_ns = ewma(st.peak_delay_ns, sojourn, up);
                    let down = if sojourn < st.base_delay_ns { 2 } else { 8 };
                    st.base_delay_ns = ewma(st.base_delay_ns, sojourn, down);
                    self.advance_shaper(t, adj, now_ns, false);
                    let b = &mut self.tins[t];
                    b.flows[idx].deficit -= i64::from(adj);
                    b.deficit -= i64::from(adj);
                    return Some(Departure {
                        pkt,
                        sojourn_ns: sojourn,
                        mark: mark.then_some(MarkReason::Codel),
                        queue: QueueId::Classic,
                    });
                }
            }
        }
    }
}

fn ewma(avg: u64, sample: u64, shift: u32) -> u64 {
    avg - (avg >> shift) + (sample >> shift)
}

/// Finds (or takes over) the host entry for `hash` in its 8-way set: the way already tagged with it, else
/// the first way with no bulk flows, else the last way looked at.
fn alloc_host(hosts: &mut [Host], hash: u32, end: usize) -> usize {
    let idx = hash as usize % QUEUES;
    let inner = idx % SET_WAYS;
    let outer = idx - inner;
    for i in 0..SET_WAYS {
        let k = outer + (inner + i) % SET_WAYS;
        if hosts[k].tag[end] == hash {
            return k;
        }
    }
    let mut k = outer + inner;
    for i in 0..SET_WAYS {
        k = outer + (inner + i) % SET_WAYS;
        if hosts[k].bulk[end] == 0 {
            break;
        }
    }
    hosts[k].tag[end] = hash;
    k
}

impl Aqm for Cake {
    fn name(&self) -> String {
        "cake".into()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.enqueue_with_header(now_ns, pkt, &Header::default())
    }

    fn enqueue_with_header(&mut self, now_ns: u64, pkt: Packet, header: &Header) -> Admission {
        self.pushed_out.clear();
        let t = self.tin_of(header);
        if self.params.wash && header.dscp != 0 {
            self.washed += 1;
        }
        let idx = self.hash(t, pkt.flow, header);
        let empty_qdisc = self.total_packets == 0;
        let b = &mut self.tins[t];
        // A shaper that was idle does not bank credit for the time it was idle.
        if b.backlog == 0 {
            b.time_next_packet = b.time_next_packet.max(now_ns);
            if empty_qdisc && self.time_next_packet < now_ns {
                self.time_next_packet = now_ns;
                self.failsafe_next_packet = now_ns;
            }
        }
        let adj = self.params.adjusted_len(pkt.len);
        let len = u64::from(pkt.len);
        b.stats.max_len = b.stats.max_len.max(pkt.len);
        b.stats.packets += 1;
        b.stats.bytes += len;
        let f = &mut b.flows[idx];
        f.q.push_back((pkt, now_ns, adj));
        f.backlog += len;
        b.backlog += len;
        self.total_packets += 1;
        self.total_bytes += len;
        match f.set {
            FlowSet::None | FlowSet::Decaying => {
                if f.set == FlowSet::Decaying {
                    b.decaying -= 1;
                    // It is in the decaying rotation (or, had its deficit run out there, in old_flows).
                    for list in [&mut b.decaying_flows, &mut b.old_flows] {
                        if let Some(pos) = list.iter().position(|&i| i == idx) {
                            list.remove(pos);
                            break;
                        }
                    }
                }
                b.flows[idx].set = FlowSet::Sparse;
                b.sparse += 1;
                b.new_flows.push_back(idx);
                let q = self.flow_quantum(t, idx, false);
                self.tins[t].flows[idx].deficit = q;
            }
            FlowSet::SparseWait => {
                f.set = FlowSet::Bulk;
                b.sparse -= 1;
                b.bulk += 1;
                self.host_bulk(t, idx, true);
            }
            FlowSet::Sparse | FlowSet::Bulk => {}
        }
        self.buffer_max_used = self.buffer_max_used.max(self.total_bytes);
        let mut dropped_here = 0;
        while self.total_bytes > self.buffer_limit && self.total_packets > 0 {
            self.drop_from_longest(now_ns);
            dropped_here += 1;
        }
        self.tins[t].stats.overlimit_drops += dropped_here;
        super::arrival_verdict(&mut self.pushed_out, pkt.id)
    }

    fn take_pushed_out(&mut self, drops: &mut Vec<Dropped>) {
        drops.append(&mut self.pushed_out);
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.dequeue_inner(now_ns, drops)
    }

    fn next_dequeue_ns(&self) -> Option<u64> {
        (self.total_packets > 0 && self.rate_q != 0)
            .then(|| self.time_next_packet.min(self.failsafe_next_packet))
    }

    fn backlog_packets(&self) -> usize {
        self.total_packets
    }

    fn backlog_bytes(&self) -> u64 {
        self.total_bytes
    }
}

#[cfg(test)]
mod tests;
