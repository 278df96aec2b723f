//! CAKE's configuration: the tc-cake(8) keywords as typed values (host isolation, DiffServ modes and their
//! DSCP mapping, RTT presets, overhead and framing keywords).

use std::fmt;

/// What the flow hash isolates (tc-cake's `flowblind` .. `triple-isolate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowMode {
    /// One queue for everything.
    Flowblind,
    /// One queue per source host.
    SrcHost,
    /// One queue per destination host.
    DstHost,
    /// One queue per (source, destination) host pair.
    Hosts,
    /// One queue per flow (the 5-tuple).
    Flows,
    /// Per-flow queues, shared fairly first between source hosts.
    DualSrcHost,
    /// Per-flow queues, shared fairly first between destination hosts.
    DualDstHost,
    /// Per-flow queues, fair between source hosts and between destination hosts (the default).
    TripleIsolate,
}

impl FlowMode {
    pub const ALL: [(&'static str, FlowMode); 8] = [
        ("flowblind", FlowMode::Flowblind),
        ("srchost", FlowMode::SrcHost),
        ("dsthost", FlowMode::DstHost),
        ("hosts", FlowMode::Hosts),
        ("flows", FlowMode::Flows),
        ("dual-srchost", FlowMode::DualSrcHost),
        ("dual-dsthost", FlowMode::DualDstHost),
        ("triple-isolate", FlowMode::TripleIsolate),
    ];

    /// The queue is chosen by the flow (5-tuple), not only by hosts.
    pub fn by_flow(self) -> bool {
        matches!(
            self,
            FlowMode::Flows
                | FlowMode::DualSrcHost
                | FlowMode::DualDstHost
                | FlowMode::TripleIsolate
        )
    }

    /// Flow queues share by source host first.
    pub fn fair_src(self) -> bool {
        matches!(self, FlowMode::DualSrcHost | FlowMode::TripleIsolate)
    }

    /// Flow queues share by destination host first.
    pub fn fair_dst(self) -> bool {
        matches!(self, FlowMode::DualDstHost | FlowMode::TripleIsolate)
    }

    fn src(self) -> bool {
        matches!(self, FlowMode::SrcHost | FlowMode::Hosts)
    }

    fn dst(self) -> bool {
        matches!(self, FlowMode::DstHost | FlowMode::Hosts)
    }

    /// The value the queue is chosen by, from the flow id and the hosts (before keyed hashing).
    pub(crate) fn key(self, flow: u32, src: u32, dst: u32) -> Option<u64> {
        if self.by_flow() {
            return Some(u64::from(flow) | 1 << 63);
        }
        let mut k = 0u64;
        if self.src() {
            k ^= u64::from(src) << 1 | 1 << 40;
        }
        if self.dst() {
            k ^= u64::from(dst) << 2 | 1 << 41;
        }
        (k != 0).then_some(k)
    }

    pub fn from_word(w: &str) -> Option<FlowMode> {
        FlowMode::ALL.iter().find(|(n, _)| *n == w).map(|(_, m)| *m)
    }
}

impl fmt::Display for FlowMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = FlowMode::ALL
            .iter()
            .find(|(_, m)| m == self)
            .map_or("?", |(n, _)| n);
        f.write_str(name)
    }
}

/// The DiffServ tin layout (tc-cake's `besteffort` .. `diffserv8`, and `precedence`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diffserv {
    Besteffort,
    /// Bulk (CS1, LE), Best Effort, Voice (TOS4, VA, EF, CS6, CS7). The default.
    Diffserv3,
    /// Bulk, Best Effort, Video, Voice.
    Diffserv4,
    /// Eight tins by traffic class.
    Diffserv8,
    /// Eight tins by IP precedence (the top three DSCP bits).
    Precedence,
}

/// One tin's share of the configured rate and of the unshaped DRR weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TinSpec {
    pub name: &'static str,
    /// Threshold rate as the configured rate shifted right by this (or scaled by 7/8 per step for the
    /// eight-tin modes: see [`Diffserv::tins`]).
    pub rate_num: u64,
    pub rate_den: u64,
    /// DRR weight between tins when unshaped.
    pub quantum: u32,
}

impl Diffserv {
    pub const ALL: [(&'static str, Diffserv); 5] = [
        ("besteffort", Diffserv::Besteffort),
        ("diffserv3", Diffserv::Diffserv3),
        ("diffserv4", Diffserv::Diffserv4),
        ("diffserv8", Diffserv::Diffserv8),
        ("precedence", Diffserv::Precedence),
    ];

    pub fn from_word(w: &str) -> Option<Diffserv> {
        Diffserv::ALL.iter().find(|(n, _)| *n == w).map(|(_, m)| *m)
    }

    /// The tins in index order with their threshold rates (as a fraction of the configured rate) and
    /// weights, as `cake_config_*` sets them.
    pub fn tins(self) -> Vec<TinSpec> {
        let t = |name, rate_num, rate_den, quantum| TinSpec {
            name,
            rate_num,
            rate_den,
            quantum,
        };
        match self {
            Diffserv::Besteffort => vec![t("Best Effort", 1, 1, 65535)],
            Diffserv::Diffserv3 => vec![
                t("Best Effort", 1, 1, 1024),
                t("Bulk", 1, 16, 64),
                t("Voice", 1, 4, 256),
            ],
            Diffserv::Diffserv4 => vec![
                t("Best Effort", 1, 1, 1024),
                t("Bulk", 1, 16, 64),
                t("Video", 1, 2, 512),
                t("Voice", 1, 4, 256),
            ],
            Diffserv::Diffserv8 | Diffserv::Precedence => {
                // Each tin gets 7/8 of the previous one's rate and weight.
                let (mut num, mut den, mut quantum) = (1u64, 1u64, 256u32);
                (0..8)
                    .map(|i| {
                        let spec = t(TIN8_NAMES[i], num, den, quantum.max(1));
                        num *= 7;
                        den *= 8;
                        quantum = quantum * 7 / 8;
                        spec
                    })
                    .collect()
            }
        }
    }

    /// The tin a DSCP maps to.
    pub fn tin_of(self, dscp: u8) -> usize {
        let dscp = dscp & 63;
        match self {
            Diffserv::Besteffort => 0,
            Diffserv::Precedence => usize::from(dscp >> 3),
            Diffserv::Diffserv3 => match dscp {
                LE | CS1 => 1,
                TOS4 | VA | EF | CS6 | CS7 => 2,
                _ => 0,
            },
            Diffserv::Diffserv4 => match dscp {
                LE | CS1 => 1,
                TOS4 | CS2 | AF21 | AF22 | AF23 | CS3 | AF31 | AF32 | AF33 | AF41 | AF42 | AF43 => {
                    2
                }
                CS4 | CS5 | VA | EF | CS6 | CS7 => 3,
                _ => 0,
            },
            Diffserv::Diffserv8 => match dscp {
                LE => 0,
                TOS2 | CS1 | AF11 | AF12 | AF13 => 1,
                CS3 | AF31 | AF32 | AF33 | AF41 | AF42 | AF43 => 3,
                TOS4 | AF21 | AF22 | AF23 => 4,
                CS2 => 5,
                CS4 | CS5 | VA | EF => 6,
                CS6 | CS7 => 7,
                _ => 2,
            },
        }
    }
}

const TIN8_NAMES: [&str; 8] = [
    "Tin 0", "Tin 1", "Tin 2", "Tin 3", "Tin 4", "Tin 5", "Tin 6", "Tin 7",
];

// DiffServ code points (RFC 2474, 2597, 3246, 5865, 8622) and the old ToS values CAKE recognises.
pub const CS0: u8 = 0;
pub const LE: u8 = 1;
pub const TOS2: u8 = 2;
pub const TOS4: u8 = 4;
pub const CS1: u8 = 8;
pub const AF11: u8 = 10;
pub const AF12: u8 = 12;
pub const AF13: u8 = 14;
pub const CS2: u8 = 16;
pub const AF21: u8 = 18;
pub const AF22: u8 = 20;
pub const AF23: u8 = 22;
pub const CS3: u8 = 24;
pub const AF31: u8 = 26;
pub const AF32: u8 = 28;
pub const AF33: u8 = 30;
pub const CS4: u8 = 32;
pub const AF41: u8 = 34;
pub const AF42: u8 = 36;
pub const AF43: u8 = 38;
pub const CS5: u8 = 40;
pub const VA: u8 = 44;
pub const EF: u8 = 46;
pub const CS6: u8 = 48;
pub const CS7: u8 = 56;

/// Link-layer framing the shaper accounts for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Bytes as they are (`noatm`).
    None,
    /// ATM cells: the frame is padded to a whole number of 48-byte payloads, each sent as a 53-byte cell.
    Atm,
    /// PTM (VDSL2): one byte in every 64 (or part of 64).
    Ptm,
}

/// An overhead keyword of tc-cake(8): per-packet overhead, minimum packet unit, framing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverheadPreset {
    pub name: &'static str,
    pub overhead: i32,
    pub mpu: u32,
    pub framing: Framing,
}

/// tc-cake(8)'s overhead keywords. `raw` switches compensation off (lengths as the qdisc sees them).
pub const OVERHEAD_PRESETS: [OverheadPreset; 16] = [
    preset("conservative", 48, 0, Framing::Atm),
    preset("ipoa-vcmux", 8, 0, Framing::Atm),
    preset("ipoa-llcsnap", 16, 0, Framing::Atm),
    preset("bridged-vcmux", 24, 0, Framing::Atm),
    preset("bridged-llcsnap", 32, 0, Framing::Atm),
    preset("pppoa-vcmux", 10, 0, Framing::Atm),
    preset("pppoa-llc", 14, 0, Framing::Atm),
    preset("pppoe-vcmux", 32, 0, Framing::Atm),
    preset("pppoe-llcsnap", 40, 0, Framing::Atm),
    preset("pppoe-ptm", 30, 0, Framing::Ptm),
    preset("bridged-ptm", 22, 0, Framing::Ptm),
    preset("ethernet", 38, 84, Framing::None),
    preset("ether-vlan", 42, 84, Framing::None),
    preset("docsis", 18, 64, Framing::None),
    preset("via-ethernet", 0, 0, Framing::None),
    preset("noatm", 0, 0, Framing::None),
];

const fn preset(name: &'static str, overhead: i32, mpu: u32, framing: Framing) -> OverheadPreset {
    OverheadPreset {
        name,
        overhead,
        mpu,
        framing,
    }
}

/// tc-cake(8)'s RTT presets: name and RTT (the interval); the target is a twentieth of it.
pub const RTT_PRESETS: [(&str, u64); 8] = [
    ("datacentre", 100_000),
    ("lan", 1_000_000),
    ("metro", 10_000_000),
    ("regional", 30_000_000),
    ("internet", 100_000_000),
    ("oceanic", 300_000_000),
    ("satellite", 1_000_000_000),
    ("interplanetary", 1_000_000_000_000),
];

/// The RTT of a preset name, ns.
pub fn rtt_preset(w: &str) -> Option<u64> {
    RTT_PRESETS.iter().find(|(n, _)| *n == w).map(|(_, r)| *r)
}

/// Parameters of [`super::Cake`], with tc-cake(8)'s defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CakeParams {
    /// Shaper rate, bit/s; `None` is `unlimited` (the default).
    pub bandwidth_bps: Option<u64>,
    /// CoDel interval (the `rtt`), ns. Default 100 ms (`internet`).
    pub interval_ns: u64,
    /// CoDel target, ns. Default 5 ms (a twentieth of the RTT).
    pub target_ns: u64,
    pub flow_mode: FlowMode,
    pub diffserv: Diffserv,
    /// Clear the DSCP of every packet after classification.
    pub wash: bool,
    /// Ingress mode: packets dropped here were already sent over the link, so they count against the
    /// shaper too, and COBALT is gentler with many bulk flows.
    pub ingress: bool,
    /// Compensation on: the shaper counts the packet length plus `overhead` (the simulator's lengths are
    /// network-layer lengths). Off (`raw`, the default): lengths as they are.
    pub compensate: bool,
    /// Bytes added to each packet when compensating (may be negative).
    pub overhead: i32,
    /// Minimum packet unit after the overhead, bytes.
    pub mpu: u32,
    pub framing: Framing,
    /// Memory limit, bytes; `None`: four intervals' worth of the rate, at least 4 MB (unshaped: the 10240
    /// packet limit times the MTU).
    pub memlimit: Option<u64>,
    /// Packet limit (Linux's `sch->limit`), used for the memory limit when unshaped. Default 10240.
    pub limit: usize,
}

impl Default for CakeParams {
    fn default() -> Self {
        CakeParams {
            bandwidth_bps: None,
            interval_ns: 100_000_000,
            target_ns: 5_000_000,
            flow_mode: FlowMode::TripleIsolate,
            diffserv: Diffserv::Diffserv3,
            wash: false,
            ingress: false,
            compensate: false,
            overhead: 0,
            mpu: 0,
            framing: Framing::None,
            memlimit: None,
            limit: 10240,
        }
    }
}

/// A keyword CAKE does not know, or one the model leaves out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeywordError(pub String);

impl fmt::Display for KeywordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeywordError {}

/// Why `ack-filter` is not modelled.
pub const ACK_FILTER_LEFT_OUT: &str =
    "ack-filter is not modelled: it thins queued pure ACKs, and the \
     simulator's ACKs return without queueing, so there is never a queue of ACKs to filter";

impl CakeParams {
    /// Sets the RTT (interval) and derives the target as a twentieth of it, as tc does.
    pub fn set_rtt(&mut self, rtt_ns: u64) {
        self.interval_ns = rtt_ns.max(1);
        self.target_ns = (rtt_ns / 20).max(1);
    }

    /// Applies one bare tc-cake keyword: an isolation mode, a DiffServ mode, an RTT preset, an overhead
    /// keyword, `atm`/`ptm`/`noatm`, `raw`, `wash`/`nowash`, `ingress`/`egress`, `unlimited`.
    pub fn apply_keyword(&mut self, word: &str) -> Result<(), KeywordError> {
        if let Some(m) = FlowMode::from_word(word) {
            self.flow_mode = m;
        } else if let Some(d) = Diffserv::from_word(word) {
            self.diffserv = d;
        } else if let Some(rtt) = rtt_preset(word) {
            self.set_rtt(rtt);
        } else if let Some(p) = OVERHEAD_PRESETS.iter().find(|p| p.name == word) {
            if word == "noatm" {
                self.framing = Framing::None;
            } else {
                self.compensate = true;
                self.overhead = p.overhead;
                self.mpu = p.mpu;
                self.framing = p.framing;
            }
        } else {
            match word {
                "atm" => self.framing = Framing::Atm,
                "ptm" => self.framing = Framing::Ptm,
                "raw" => {
                    self.compensate = false;
                    self.overhead = 0;
                    self.mpu = 0;
                    self.framing = Framing::None;
                }
                "wash" => self.wash = true,
                "nowash" => self.wash = false,
                "ingress" => self.ingress = true,
                "egress" => self.ingress = false,
                "unlimited" => self.bandwidth_bps = None,
                "ack-filter" | "ack-filter-aggressive" => {
                    return Err(KeywordError(ACK_FILTER_LEFT_OUT.into()))
                }
                "no-ack-filter" | "besteffort-wash" => {}
                _ => {
                    return Err(KeywordError(format!(
                        "unknown CAKE keyword {word:?}; known: {}",
                        known_keywords().join(", ")
                    )))
                }
            }
        }
        Ok(())
    }

    /// Sets a fixed per-packet overhead (tc's `overhead N`), which turns compensation on.
    pub fn set_overhead(&mut self, overhead: i32) {
        self.compensate = true;
        self.overhead = overhead;
    }

    /// The length the shaper charges for a packet of `len` bytes.
    pub fn adjusted_len(&self, len: u32) -> u32 {
        if !self.compensate && self.framing == Framing::None && self.mpu == 0 {
            return len;
        }
        let mut l = i64::from(len);
        if self.compensate {
            l += i64::from(self.overhead);
        }
        let mut l = l.max(i64::from(self.mpu)).max(1) as u64;
        match self.framing {
            Framing::None => {}
            Framing::Atm => l = l.div_ceil(48) * 53,
            Framing::Ptm => l += l.div_ceil(64),
        }
        l.min(u64::from(u32::MAX)) as u32
    }

    /// Rejects impossible values.
    pub fn validate(&self) -> Result<(), KeywordError> {
        if self.bandwidth_bps == Some(0) {
            return Err(KeywordError(
                "bandwidth must be more than 0 (or unlimited)".into(),
            ));
        }
        if self.interval_ns == 0 || self.target_ns == 0 {
            return Err(KeywordError("rtt and target must be more than 0".into()));
        }
        if self.memlimit == Some(0) || self.limit == 0 {
            return Err(KeywordError(
                "memlimit and limit must be more than 0".into(),
            ));
        }
        if !(-64..=256).contains(&self.overhead) {
            return Err(KeywordError("overhead must be in -64..=256 bytes".into()));
        }
        if self.mpu > 256 {
            return Err(KeywordError("mpu must be at most 256 bytes".into()));
        }
        Ok(())
    }
}

/// Every bare keyword [`CakeParams::apply_keyword`] takes.
pub fn known_keywords() -> Vec<&'static str> {
    let mut v: Vec<&str> = FlowMode::ALL.iter().map(|(n, _)| *n).collect();
    v.extend(Diffserv::ALL.iter().map(|(n, _)| *n));
    v.extend(RTT_PRESETS.iter().map(|(n, _)| *n));
    v.extend(OVERHEAD_PRESETS.iter().map(|p| p.name));
    v.extend([
        "atm",
        "ptm",
        "raw",
        "wash",
        "nowash",
        "ingress",
        "egress",
        "unlimited",
    ]);
    v
}
