//! Streaming a descriptor trace through the board, and checking what came back against the golden cycle
//! model of the board's core.
//!
//! The board reports everything that drives its core: the reset (START, time 0), each register write
//! with the time the core took it, each descriptor with the time it was accepted (its verdict's time less
//! the verdict latency); `out_ready` is always high (see bsp/src/bridge/). From those the host rebuilds
//! the core's input on every cycle and runs the golden model of the core HELLO names
//! ([`aqm_golden::hw::CoreKind::model`]: the PIE core or the DualPI2 core) through the same cycles:
//! its verdicts and departures (with the DualPI2 core's drops at dequeue, its queue bits and every
//! sojourn) must be the board's, bit for bit.

use crate::board_core::{from_id, Core};
use crate::client::{BoardInfo, Client, ClientError, DepartEvent, VerdictEvent};
use crate::transport::Transport;
use aqm_golden::hw::{ClockedCore, CoreInputs};
use aqm_protocol::{Descriptor, MAX_INJECT};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::time::Duration;

/// A descriptor trace: `len ecn` per line (ecn 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE); `#` comments.
pub fn parse_trace(text: &str) -> Result<Vec<(u16, u8)>, String> {
    let mut v = vec![];
    for (k, line) in text.lines().enumerate() {
        let code = line.split('#').next().unwrap_or("");
        let w: Vec<&str> = code.split_whitespace().collect();
        if w.is_empty() {
            continue;
        }
        let at = || format!("line {}", k + 1);
        if w.len() != 2 {
            return Err(format!(
                "{}: expected `len ecn`, found {} fields",
                at(),
                w.len()
            ));
        }
        let len = w[0]
            .parse::<u16>()
            .map_err(|_| format!("{}: len {:?}: expected 0..=65535", at(), w[0]))?;
        let ecn = w[1]
            .parse::<u8>()
            .ok()
            .filter(|&e| e <= 3)
            .ok_or_else(|| format!("{}: ecn {:?}: expected 0, 1, 2 or 3", at(), w[1]))?;
        v.push((len, ecn));
    }
    Ok(v)
}

/// What a stream produced on the board.
#[derive(Clone, Debug, Default)]
pub struct StreamRecord {
    pub info: Option<BoardInfo>,
    /// Register writes: (time the core took it, address, value).
    pub writes: Vec<(u64, u8, u32)>,
    pub verdicts: Vec<VerdictEvent>,
    pub departures: Vec<DepartEvent>,
}

/// How to stream: descriptors per INJECT (1..=32), board time between INJECTs, quiet time at the end.
#[derive(Clone, Copy, Debug)]
pub struct Pacing {
    pub batch: usize,
    pub gap: Duration,
    pub drain: Duration,
}

/// The longest gap between INJECT frames [`stream`] takes (board time).
pub const MAX_GAP: Duration = Duration::from_secs(10);

impl Pacing {
    /// The pacing, checked: 1..=32 descriptors per INJECT, a gap of at most [`MAX_GAP`], a drain of at
    /// most [`MAX_GAP`].
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_INJECT).contains(&self.batch) {
            return Err(format!(
                "batch {}: expected 1..={MAX_INJECT} descriptors per INJECT",
                self.batch
            ));
        }
        for (what, d) in [("gap", self.gap), ("drain", self.drain)] {
            if d > MAX_GAP {
                return Err(format!(
                    "{what} {} us: expected 0..={} us",
                    d.as_micros(),
                    MAX_GAP.as_micros()
                ));
            }
        }
        Ok(())
    }
}

impl Default for Pacing {
    /// As fast as the UART goes.
    fn default() -> Self {
        Pacing {
            batch: MAX_INJECT,
            gap: Duration::ZERO,
            drain: Duration::from_millis(50),
        }
    }
}

impl StreamRecord {
    /// Starts a stream on the board: HELLO, START, then the register writes `params` (address,
    /// value), each recorded with the board time it took effect. Also gives the transport's clock
    /// right after START.
    pub fn begin<T: Transport>(
        client: &mut Client<T>,
        params: &[(u8, u32)],
    ) -> Result<(StreamRecord, Duration), ClientError> {
        let info = client.hello()?;
        client.start()?;
        let started = client.transport.elapsed();
        let mut rec = StreamRecord {
            info: Some(info),
            ..StreamRecord::default()
        };
        for &(a, v) in params {
            let t = client.write(a, v)?;
            rec.writes.push((t, a, v));
        }
        Ok((rec, started))
    }
}

/// Resets the core, writes `params`, injects `descs` (tags 0, 1, 2, ... mod 2^16) and collects every
/// verdict and departure.
pub fn stream<T: Transport>(
    client: &mut Client<T>,
    params: &[(u8, u32)],
    descs: &[(u16, u8)],
    pacing: Pacing,
) -> Result<StreamRecord, ClientError> {
    pacing.check().map_err(ClientError::Input)?;
    let batch = pacing.batch;
    let (mut rec, _) = StreamRecord::begin(client, params)?;
    for (k, chunk) in descs.chunks(batch).enumerate() {
        let ds: Vec<Descriptor> = chunk
            .iter()
            .enumerate()
            .map(|(j, &(len, ecn))| Descriptor {
                len,
                ecn,
                tag: (k * batch + j) as u16,
            })
            .collect();
        client.inject(&ds)?;
        if !pacing.gap.is_zero() {
            client.transport.idle(pacing.gap);
        }
    }
    client.drain_events(pacing.drain)?;
    rec.verdicts = client.verdicts.clone();
    rec.departures = client.departures.clone();
    Ok(rec)
}

/// What became of one descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Departed as it arrived (a CE arrival stays CE).
    Sent,
    /// Departed CE-marked by the AQM (PIE marks at enqueue, DualPI2 at dequeue).
    Marked,
    /// Dropped by the AQM (PIE's early drop at enqueue, DualPI2's drop at dequeue).
    AqmDrop,
    /// Refused at enqueue by a packet, byte or capacity limit.
    TailDrop,
    /// Enqueued, and still queued when the stream ended.
    Queued,
}

/// Descriptors by [`Fate`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fates {
    pub sent: usize,
    pub marked: usize,
    pub aqm_drops: usize,
    pub tail_drops: usize,
    pub queued: usize,
}

impl Fates {
    pub fn tally(fates: impl IntoIterator<Item = Fate>) -> Fates {
        let mut t = Fates::default();
        for f in fates {
            *match f {
                Fate::Sent => &mut t.sent,
                Fate::Marked => &mut t.marked,
                Fate::AqmDrop => &mut t.aqm_drops,
                Fate::TailDrop => &mut t.tail_drops,
                Fate::Queued => &mut t.queued,
            } += 1;
        }
        t
    }
}

impl fmt::Display for Fates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} sent, {} CE-marked, {} dropped by the AQM, {} tail drops",
            self.sent, self.marked, self.aqm_drops, self.tail_drops
        )?;
        if self.queued > 0 {
            write!(f, ", {} still queued", self.queued)?;
        }
        Ok(())
    }
}

/// The fate of each descriptor (`descs`, tags 0, 1, 2, ... mod 2^16, verdict k for descriptor k) from
/// the verdicts and departures the board reported. A departure belongs to the oldest enqueued
/// descriptor with its tag that has not departed yet.
pub fn fates(
    verdicts: &[VerdictEvent],
    departures: &[DepartEvent],
    descs: &[(u16, u8)],
) -> Vec<Fate> {
    let mut fate = vec![Fate::Queued; descs.len()];
    let mut held: HashMap<u16, VecDeque<usize>> = HashMap::new();
    for (k, v) in verdicts.iter().enumerate().take(descs.len()) {
        fate[k] = match v.code & 3 {
            3 => Fate::TailDrop,
            2 => Fate::AqmDrop,
            c => {
                held.entry(v.tag).or_default().push_back(k);
                if c == 1 {
                    Fate::Marked
                } else {
                    Fate::Queued
                }
            }
        };
    }
    for d in departures {
        if let Some(k) = held.get_mut(&d.tag).and_then(VecDeque::pop_front) {
            let ce_by_aqm = d.ecn == 3 && descs[k].1 != 3;
            fate[k] = if d.dropped {
                Fate::AqmDrop
            } else if fate[k] == Fate::Marked || ce_by_aqm {
                Fate::Marked
            } else {
                Fate::Sent
            };
        }
    }
    fate
}

/// The outcome of a check against the golden model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckSummary {
    /// The board's core (from HELLO), whose golden model was replayed.
    pub core: Core,
    pub verdicts: usize,
    pub departures: usize,
    /// Verdict counts by code: enqueue, mark, early drop, tail drop (DualPI2 enqueues or tail-drops).
    pub by_code: [usize; 4],
    /// Verdicts that named the L queue (DualPI2's classification).
    pub to_l: usize,
    /// Departures dropped at dequeue (DualPI2).
    pub dequeue_drops: usize,
    pub fates: Fates,
    pub cycles: u64,
}

/// Cycles in a row with the golden core idle and its link free, after the last input, that end the
/// replay: nothing is in flight, so no verdict or departure can follow.
const QUIET_CYCLES: u32 = 1000;

/// The board time (ns after START) up to which a record is replayed: an hour.
const MAX_REPLAY_NS: u64 = 3600 * 1_000_000_000;

fn code_name(code: u8) -> &'static str {
    ["enqueue", "mark", "early drop", "tail drop"][code as usize & 3]
}

fn ecn_name(ecn: u8) -> &'static str {
    ["Not-ECT", "ECT(1)", "ECT(0)", "CE"][ecn as usize & 3]
}

fn queue_name(l: u8) -> &'static str {
    if l != 0 {
        "L"
    } else {
        "C"
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// `field: board X, golden Y` for each field that differs.
fn field_diffs(fields: &[(&str, String, String)]) -> String {
    fields
        .iter()
        .filter(|(_, b, g)| b != g)
        .map(|(f, b, g)| format!("{f}: board {b}, golden {g}"))
        .collect::<Vec<_>>()
        .join("; ")
}

fn verdict_fields(b: &VerdictEvent, g: &VerdictEvent) -> String {
    let f = |v: &VerdictEvent| {
        [
            v.tag.to_string(),
            format!("{} ({})", v.code, code_name(v.code)),
            queue_name(v.queue).to_string(),
            format!("{} ns", v.accepted_ns),
        ]
    };
    let (b, g) = (f(b), f(g));
    let names = ["tag", "code", "queue", "accepted at"];
    field_diffs(
        &(0..4)
            .map(|k| (names[k], b[k].clone(), g[k].clone()))
            .collect::<Vec<_>>(),
    )
}

fn depart_fields(b: &DepartEvent, g: &DepartEvent) -> String {
    let f = |d: &DepartEvent| {
        [
            d.tag.to_string(),
            format!("{} B", d.len),
            ecn_name(d.ecn).to_string(),
            yes(d.dropped).to_string(),
            queue_name(d.queue).to_string(),
            format!("{} ns", d.sojourn_ns),
        ]
    };
    let (b, g) = (f(b), f(g));
    let names = [
        "tag",
        "len",
        "ECN",
        "dropped at dequeue",
        "queue",
        "sojourn",
    ];
    field_diffs(
        &(0..6)
            .map(|k| (names[k], b[k].clone(), g[k].clone()))
            .collect::<Vec<_>>(),
    )
}

/// A golden departure: its cycle, the descriptor it belongs to, the event.
type GoldenDeparture = (u64, Option<usize>, DepartEvent);

/// Rebuilds the core's input from the record and the descriptors that were injected (in order, tags 0,
/// 1, 2, ... mod 2^16, as [`stream`] and [`crate::sim_trace::stream_paced`] send them), runs the golden
/// model of the board's core (HELLO's ID register says which) through the same cycles until it has
/// nothing left in flight, and compares every verdict and every departure, field by field. A
/// difference is reported at the first cycle it shows, with the descriptor, the field and both values.
pub fn check_stream(rec: &StreamRecord, descs: &[(u16, u8)]) -> Result<CheckSummary, String> {
    let info = rec.info.ok_or("no HELLO in the record")?;
    let core = from_id(info.core_id)?;
    let nspc = info.ns_per_cycle as u64;
    if nspc == 0 {
        return Err("HELLO reports 0 ns per cycle".into());
    }
    let cycle_of = |t: u64| -> Result<u64, String> {
        // The board's times are 40 bits of ns (aqm_protocol): a later one is not the board's.
        if t >> 40 != 0 {
            return Err(format!(
                "time {t} ns is beyond the board's 40-bit clock (at most {} ns)",
                (1u64 << 40) - 1
            ));
        }
        if t.is_multiple_of(nspc) {
            Ok(t / nspc)
        } else {
            Err(format!("time {t} ns is not a whole cycle of {nspc} ns"))
        }
    };
    let desc_text = |k: usize| match descs.get(k) {
        Some(&(len, ecn)) => format!(
            "descriptor {k} (tag {}, {len} B, {})",
            k as u16,
            ecn_name(ecn)
        ),
        None => format!("descriptor {k}"),
    };
    let mut writes = BTreeMap::new();
    for &(t, a, v) in &rec.writes {
        writes.insert(cycle_of(t)?, (a, v));
    }
    if rec.verdicts.len() != descs.len() {
        return Err(format!(
            "{} descriptors sent, {} verdicts received",
            descs.len(),
            rec.verdicts.len()
        ));
    }
    // Verdict k says when descriptor k was accepted (a PIE bytemode packet: that many cycles later, see
    // `ClockedCore::extra_verdict_latency`); the core takes one descriptor per cycle at most, in order.
    let mut accepts = Vec::with_capacity(descs.len());
    for (k, v) in rec.verdicts.iter().enumerate() {
        let c = cycle_of(v.accepted_ns)?;
        if let Some(&(prev, _)) = accepts.last() {
            if c <= prev {
                return Err(format!(
                    "{}: its verdict says it was accepted at {} ns, not after descriptor {} ({} ns)",
                    desc_text(k),
                    v.accepted_ns,
                    k - 1,
                    prev * nspc
                ));
            }
        }
        accepts.push((c, k));
    }

    let mut golden = core.model();
    let mut gv: Vec<(u64, VerdictEvent)> = vec![];
    let mut gd: Vec<GoldenDeparture> = vec![];
    // Enqueued descriptors by tag, oldest first: whose departure is whose.
    let mut held: HashMap<u16, VecDeque<usize>> = HashMap::new();
    let last = accepts
        .last()
        .map(|a| a.0)
        .into_iter()
        .chain(writes.keys().copied())
        .max()
        .unwrap_or(0);
    if last > MAX_REPLAY_NS / nspc {
        return Err(format!(
            "the record's last input is at {} ns after START: beyond the {} s of board time a replay takes",
            u128::from(last) * u128::from(nspc),
            MAX_REPLAY_NS / 1_000_000_000
        ));
    }
    let limit = last + 50_000_000_000 / nspc;
    let (mut c, mut next, mut quiet) = (0u64, 0usize, 0u32);
    while c <= last || quiet < QUIET_CYCLES {
        if c > limit {
            return Err(format!(
                "the golden model still had work in flight 50 s after the last input (cycle {c})"
            ));
        }
        let mut i = CoreInputs {
            rst: c == 0,
            now: c * nspc,
            out_ready: true,
            ..CoreInputs::default()
        };
        if let Some(&(a, v)) = writes.get(&c) {
            i.reg_we = true;
            i.reg_addr = a;
            i.reg_wdata = v;
        }
        let offered = match accepts.get(next) {
            Some(&(ac, k)) if ac.saturating_sub(golden.extra_verdict_latency(descs[k].0)) == c => {
                next += 1;
                let (len, ecn) = descs[k];
                i.in_valid = true;
                i.in_len = len;
                i.in_ecn = ecn;
                i.in_tag = k as u16;
                Some(k)
            }
            _ => None,
        };
        let o = golden.step(&i);
        if let Some(k) = offered {
            if !o.in_ready {
                return Err(format!(
                    "{}: the board's core accepted it at cycle {c} ({} ns), the golden core is not ready then",
                    desc_text(k),
                    c * nspc
                ));
            }
        }
        if o.verdict_valid {
            // Verdicts come in the order the descriptors were accepted.
            let k = gv.len();
            if o.verdict_code & 2 == 0 {
                held.entry(o.verdict_tag).or_default().push_back(k);
            }
            gv.push((
                c,
                VerdictEvent {
                    tag: o.verdict_tag,
                    code: o.verdict_code,
                    queue: o.verdict_queue as u8,
                    accepted_ns: c.saturating_sub(info.verdict_latency as u64) * nspc,
                },
            ));
        }
        if o.out_valid {
            let k = held.get_mut(&o.out_tag).and_then(VecDeque::pop_front);
            gd.push((
                c,
                k,
                DepartEvent {
                    tag: o.out_tag,
                    len: o.out_len,
                    ecn: o.out_ecn,
                    dropped: o.out_drop,
                    queue: o.out_queue as u8,
                    sojourn_ns: o.out_sojourn,
                },
            ));
        }
        quiet = if c > last && o.idle && !o.link_busy {
            quiet + 1
        } else {
            0
        };
        c += 1;
    }

    // The first difference of each stream, with the golden cycle it shows at (the end of the replay
    // for an event the golden model never made), and how many differ in all.
    let mut first: Option<(u64, String)> = None;
    let mut note = |cycle: u64, text: String| {
        if first.as_ref().is_none_or(|f| cycle < f.0) {
            first = Some((cycle, text));
        }
    };
    let mut verdicts_differ = 0;
    for k in 0..gv.len().max(rec.verdicts.len()) {
        let text = match (rec.verdicts.get(k), gv.get(k)) {
            (Some(b), Some((_, g))) if b == g => continue,
            (Some(b), Some((_, g))) => {
                format!("{}, its verdict: {}", desc_text(k), verdict_fields(b, g))
            }
            (Some(b), None) => format!(
                "{}: the board gave verdict {} ({}), the golden model none",
                desc_text(k),
                b.code,
                code_name(b.code)
            ),
            (None, Some((_, g))) => format!(
                "verdict {k} (tag {}): the golden model gave one, the board none",
                g.tag
            ),
            (None, None) => unreachable!("k is below one of the lengths"),
        };
        verdicts_differ += 1;
        note(gv.get(k).map_or(c, |g| g.0), text);
    }
    let mut departures_differ = 0;
    for k in 0..gd.len().max(rec.departures.len()) {
        let whose = |g: &GoldenDeparture| match g.1 {
            Some(d) => desc_text(d),
            None => format!("tag {}", g.2.tag),
        };
        let text = match (rec.departures.get(k), gd.get(k)) {
            (Some(b), Some(g)) if *b == g.2 => continue,
            (Some(b), Some(g)) => format!(
                "{}, departure {k}: {}",
                whose(g),
                depart_fields(b, &g.2)
            ),
            (Some(b), None) => format!(
                "departure {k} (tag {}, {} B): the board reported it, the golden model made no departure {k}",
                b.tag, b.len
            ),
            (None, Some(g)) => format!(
                "{}, departure {k}: the golden model made it, the board reported none",
                whose(g)
            ),
            (None, None) => unreachable!("k is below one of the lengths"),
        };
        departures_differ += 1;
        note(gd.get(k).map_or(c, |g| g.0), text);
    }
    if let Some((cycle, text)) = first {
        return Err(format!(
            "the board and the golden {} model differ, first at cycle {cycle} ({} ns after START): {text}; \
             in all {verdicts_differ} of {} verdicts and {departures_differ} of {} departures differ",
            core.title(),
            cycle * nspc,
            rec.verdicts.len(),
            rec.departures.len()
        ));
    }

    let mut by_code = [0; 4];
    for v in &rec.verdicts {
        by_code[v.code as usize & 3] += 1;
    }
    Ok(CheckSummary {
        core,
        verdicts: gv.len(),
        departures: gd.len(),
        by_code,
        to_l: rec.verdicts.iter().filter(|v| v.queue != 0).count(),
        dequeue_drops: rec.departures.iter().filter(|d| d.dropped).count(),
        fates: Fates::tally(fates(&rec.verdicts, &rec.departures, descs)),
        cycles: c,
    })
}
