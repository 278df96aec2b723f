//! Streaming a descriptor trace through the board, and checking what came back against the golden cycle
//! model of the core.
//!
//! The board reports everything that drives its core: the reset (START, time 0), each register write
//! with the time the core took it, each descriptor with the time it was accepted (its verdict's time less
//! the verdict latency); `out_ready` is always high. From those the host rebuilds the core's input on
//! every cycle and runs [`PieCoreModel`] through the same cycles: its verdicts and departures must be the
//! board's, bit for bit.

use crate::client::{BoardInfo, Client, ClientError, DepartEvent, VerdictEvent};
use crate::transport::Transport;
use aqm_golden::pie::core::{PieCoreInputs, PieCoreModel};
use aqm_protocol::{Descriptor, MAX_INJECT};
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

/// Resets the core, writes `params`, injects `descs` (tags 0, 1, 2, ... mod 2^16) and collects every
/// verdict and departure.
pub fn stream<T: Transport>(
    client: &mut Client<T>,
    params: &[(u8, u32)],
    descs: &[(u16, u8)],
    pacing: Pacing,
) -> Result<StreamRecord, ClientError> {
    let batch = pacing.batch.clamp(1, MAX_INJECT);
    let info = client.hello()?;
    client.start()?;
    let mut rec = StreamRecord {
        info: Some(info),
        ..StreamRecord::default()
    };
    for &(a, v) in params {
        let t = client.write(a, v)?;
        rec.writes.push((t, a, v));
    }
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

/// The outcome of a check against the golden model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckSummary {
    pub verdicts: usize,
    pub departures: usize,
    /// Verdict counts by code: enqueue, mark, early drop, tail drop.
    pub by_code: [usize; 4],
    pub cycles: u64,
}

/// Rebuilds the core's input from the record and the descriptors that were injected (in order), runs
/// the golden model of the board's core (the lite PIE core) through the same cycles, and compares
/// every verdict and every departure.
pub fn check_stream(rec: &StreamRecord, descs: &[(u16, u8)]) -> Result<CheckSummary, String> {
    let info = rec.info.ok_or("no HELLO in the record")?;
    let nspc = info.ns_per_cycle as u64;
    let cycle_of = |t: u64| -> Result<u64, String> {
        if t.is_multiple_of(nspc) {
            Ok(t / nspc)
        } else {
            Err(format!("time {t} ns is not a whole cycle of {nspc} ns"))
        }
    };
    let mut writes = std::collections::BTreeMap::new();
    for &(t, a, v) in &rec.writes {
        writes.insert(cycle_of(t)?, (a, v));
    }
    let mut accepts = std::collections::BTreeMap::new();
    for (k, v) in rec.verdicts.iter().enumerate() {
        let (len, ecn) = *descs.get(k).ok_or_else(|| {
            format!(
                "verdict {k} (tag {}) for a descriptor that was not sent",
                v.tag
            )
        })?;
        accepts.insert(cycle_of(v.accepted_ns)?, (len, ecn, v.tag));
    }
    if rec.verdicts.len() != descs.len() {
        return Err(format!(
            "{} descriptors sent, {} verdicts received",
            descs.len(),
            rec.verdicts.len()
        ));
    }
    let mut golden = PieCoreModel::lite();
    let (mut gv, mut gd) = (vec![], vec![]);
    let last = accepts
        .keys()
        .chain(writes.keys())
        .max()
        .copied()
        .unwrap_or(0);
    let mut c = 0u64;
    // Until every verdict and departure the board reported has its golden twin, and a little after.
    let enough = |gv: &Vec<VerdictEvent>, gd: &Vec<DepartEvent>| {
        gv.len() >= rec.verdicts.len() && gd.len() >= rec.departures.len()
    };
    let mut after = 0u64;
    while c <= last || !enough(&gv, &gd) || after < 1000 {
        if c > last && enough(&gv, &gd) {
            after += 1;
        }
        if c > last + 50_000_000_000 / nspc {
            return Err(format!(
                "the golden model gave {} verdicts and {} departures after {c} cycles; the board {} and {}",
                gv.len(),
                gd.len(),
                rec.verdicts.len(),
                rec.departures.len()
            ));
        }
        let mut i = PieCoreInputs {
            rst: c == 0,
            now: c * nspc,
            out_ready: true,
            ..PieCoreInputs::default()
        };
        if let Some(&(a, v)) = writes.get(&c) {
            i.reg_we = true;
            i.reg_addr = a;
            i.reg_wdata = v;
        }
        if let Some(&(len, ecn, tag)) = accepts.get(&c) {
            i.in_valid = true;
            i.in_len = len;
            i.in_ecn = ecn;
            i.in_tag = tag;
        }
        let o = golden.step(&i);
        if i.in_valid && !o.in_ready {
            return Err(format!(
                "cycle {c}: the golden core is not ready for tag {}",
                i.in_tag
            ));
        }
        if o.verdict_valid {
            gv.push(VerdictEvent {
                tag: o.verdict_tag,
                code: o.verdict_code,
                queue: o.verdict_queue as u8,
                accepted_ns: (c - info.verdict_latency as u64) * nspc,
            });
        }
        if o.out_valid {
            gd.push(DepartEvent {
                tag: o.out_tag,
                len: o.out_len,
                ecn: o.out_ecn,
                dropped: o.out_drop,
                queue: o.out_queue as u8,
                sojourn_ns: o.out_sojourn,
            });
        }
        c += 1;
    }
    for (k, (b, g)) in rec.verdicts.iter().zip(&gv).enumerate() {
        if b != g {
            return Err(format!("verdict {k}: board {b:?}, golden {g:?}"));
        }
    }
    if gv.len() != rec.verdicts.len() {
        return Err(format!(
            "golden {} verdicts, board {}",
            gv.len(),
            rec.verdicts.len()
        ));
    }
    for (k, (b, g)) in rec.departures.iter().zip(&gd).enumerate() {
        if b != g {
            return Err(format!("departure {k}: board {b:?}, golden {g:?}"));
        }
    }
    if gd.len() != rec.departures.len() {
        return Err(format!(
            "golden {} departures, board {}",
            gd.len(),
            rec.departures.len()
        ));
    }
    let mut by_code = [0; 4];
    for v in &rec.verdicts {
        by_code[v.code as usize & 3] += 1;
    }
    Ok(CheckSummary {
        verdicts: gv.len(),
        departures: gd.len(),
        by_code,
        cycles: c,
    })
}
