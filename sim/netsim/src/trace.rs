//! What an AQM was asked and what it answered, event by event: to check that two AQMs that must agree
//! (the golden model and the Verilated core) gave the same verdicts, and to take the descriptor trace of
//! a run (what arrived, when) to replay it elsewhere (the board, with `aqm-host`).
//!
//! [`Recorder`] wraps any AQM and appends to a shared [`Log`], so the log outlives the run that consumes
//! the AQM.

use aqm_golden::{Admission, Aqm, Departure, Dropped, Ecn, Header, Packet};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

/// One call to the AQM and its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AqmEvent {
    Enqueue {
        at_ns: u64,
        pkt: Packet,
        admission: Admission,
        /// Packets already queued that this arrival pushed out (FQ-CoDel).
        pushed_out: Vec<Dropped>,
    },
    Dequeue {
        at_ns: u64,
        departure: Option<Departure>,
        /// Packets dropped at dequeue on the way.
        drops: Vec<Dropped>,
    },
}

impl AqmEvent {
    pub fn at_ns(&self) -> u64 {
        match self {
            AqmEvent::Enqueue { at_ns, .. } | AqmEvent::Dequeue { at_ns, .. } => *at_ns,
        }
    }
}

fn pkt_str(p: &Packet) -> String {
    format!("packet {} (flow {}, {} B, {})", p.id, p.flow, p.len, p.ecn)
}

fn drops_str(d: &[Dropped]) -> String {
    d.iter()
        .map(|d| {
            format!(
                "; dropped {} ({}, {:?} queue, sojourn {} ns)",
                pkt_str(&d.pkt),
                d.reason,
                d.queue,
                d.sojourn_ns
            )
        })
        .collect()
}

impl fmt::Display for AqmEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AqmEvent::Enqueue {
                at_ns,
                pkt,
                admission,
                pushed_out,
            } => write!(
                f,
                "t={at_ns} ns enqueue {} -> {admission:?}{}",
                pkt_str(pkt),
                drops_str(pushed_out)
            ),
            AqmEvent::Dequeue {
                at_ns,
                departure,
                drops,
            } => {
                write!(f, "t={at_ns} ns dequeue -> ")?;
                match departure {
                    None => write!(f, "nothing")?,
                    Some(d) => write!(
                        f,
                        "{} sent as {}, sojourn {} ns, {:?} queue, mark {:?}",
                        pkt_str(&d.pkt),
                        d.pkt.ecn,
                        d.sojourn_ns,
                        d.queue,
                        d.mark
                    )?,
                }
                f.write_str(&drops_str(drops))
            }
        }
    }
}

/// A log shared between a [`Recorder`] and whoever reads it after the run.
pub type Log = Arc<Mutex<Vec<AqmEvent>>>;

/// A new, empty log.
pub fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

/// The events of `log` so far (taken out of it).
pub fn take(log: &Log) -> Vec<AqmEvent> {
    std::mem::take(&mut *log.lock().unwrap_or_else(PoisonError::into_inner))
}

/// An AQM that records every call to the AQM it wraps.
pub struct Recorder {
    inner: Box<dyn Aqm>,
    log: Log,
}

impl Recorder {
    pub fn new(inner: Box<dyn Aqm>, log: Log) -> Recorder {
        Recorder { inner, log }
    }

    fn push(&self, e: AqmEvent) {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(e);
    }
}

impl Recorder {
    /// Records an enqueue and passes its verdict on.
    fn enqueued(&mut self, at_ns: u64, pkt: Packet, admission: Admission) -> Admission {
        self.push(AqmEvent::Enqueue {
            at_ns,
            pkt,
            admission,
            pushed_out: Vec::new(),
        });
        admission
    }
}

impl Aqm for Recorder {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        let admission = self.inner.enqueue(now_ns, pkt);
        self.enqueued(now_ns, pkt, admission)
    }

    fn enqueue_with_header(&mut self, now_ns: u64, pkt: Packet, header: &Header) -> Admission {
        let admission = self.inner.enqueue_with_header(now_ns, pkt, header);
        self.enqueued(now_ns, pkt, admission)
    }

    fn next_dequeue_ns(&self) -> Option<u64> {
        self.inner.next_dequeue_ns()
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        let before = drops.len();
        let departure = self.inner.dequeue(now_ns, drops);
        self.push(AqmEvent::Dequeue {
            at_ns: now_ns,
            departure,
            drops: drops[before..].to_vec(),
        });
        departure
    }

    fn backlog_packets(&self) -> usize {
        self.inner.backlog_packets()
    }

    fn backlog_bytes(&self) -> u64 {
        self.inner.backlog_bytes()
    }

    fn take_pushed_out(&mut self, drops: &mut Vec<Dropped>) {
        let before = drops.len();
        self.inner.take_pushed_out(drops);
        if drops.len() > before {
            let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(AqmEvent::Enqueue { pushed_out, .. }) = log.last_mut() {
                pushed_out.extend_from_slice(&drops[before..]);
            }
        }
    }

    fn fault(&self) -> Option<String> {
        self.inner.fault()
    }

    fn cycles_clocked(&self) -> Option<u64> {
        self.inner.cycles_clocked()
    }
}

/// The first event where two logs differ, described for a person: its index, both versions, and the
/// events just before it. `None` if they are identical.
pub fn first_difference(
    a_name: &str,
    a: &[AqmEvent],
    b_name: &str,
    b: &[AqmEvent],
) -> Option<String> {
    let k = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or_else(|| (a.len() != b.len()).then_some(a.len().min(b.len())))?;
    let show = |e: Option<&AqmEvent>| e.map_or("(no more events)".to_string(), |e| e.to_string());
    let mut s = format!(
        "first difference at event {k} of {} / {}:\n  {a_name}: {}\n  {b_name}: {}\n",
        a.len(),
        b.len(),
        show(a.get(k)),
        show(b.get(k))
    );
    if k > 0 {
        s.push_str("  after (both):\n");
        for e in &a[k.saturating_sub(3)..k] {
            s.push_str(&format!("    {e}\n"));
        }
    }
    Some(s)
}

/// The descriptor trace of a run: every arrival at the AQM as (time ns, length B, ECN code point).
pub fn arrivals(events: &[AqmEvent]) -> Vec<(u64, u32, Ecn)> {
    events
        .iter()
        .filter_map(|e| match e {
            AqmEvent::Enqueue { at_ns, pkt, .. } => Some((*at_ns, pkt.len, pkt.ecn)),
            AqmEvent::Dequeue { .. } => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_golden::reference::{TailDrop, TailDropParams};
    use aqm_golden::{DropReason, QueueId};

    fn pkt(id: u64) -> Packet {
        Packet {
            id,
            flow: 1,
            len: 1000,
            ecn: Ecn::Ect0,
        }
    }

    #[test]
    fn the_recorder_logs_every_call_and_answers_as_the_wrapped_aqm() {
        let log = new_log();
        let mut q = Recorder::new(
            Box::new(TailDrop::new(TailDropParams { limit: 1 })),
            log.clone(),
        );
        assert_eq!(q.enqueue(5, pkt(0)), Admission::Enqueued);
        assert_eq!(
            q.enqueue(6, pkt(1)),
            Admission::Dropped(DropReason::Overlimit)
        );
        let d = q.dequeue(9, &mut vec![]).unwrap();
        assert_eq!((d.pkt.id, d.sojourn_ns, d.queue), (0, 4, QueueId::Classic));
        assert!(q.dequeue(10, &mut vec![]).is_none());
        let events = take(&log);
        assert_eq!(events.len(), 4);
        assert_eq!(
            arrivals(&events),
            vec![(5, 1000, Ecn::Ect0), (6, 1000, Ecn::Ect0)]
        );
        assert_eq!(first_difference("a", &events, "b", &events), None);
    }

    #[test]
    fn a_difference_names_the_event_and_both_answers() {
        let e = |admission| AqmEvent::Enqueue {
            at_ns: 7,
            pkt: pkt(3),
            admission,
            pushed_out: vec![],
        };
        let a = vec![e(Admission::Enqueued), e(Admission::Enqueued)];
        let b = vec![
            e(Admission::Enqueued),
            e(Admission::Dropped(DropReason::Early)),
        ];
        let d = first_difference("golden", &a, "hw", &b).unwrap();
        assert!(d.contains("event 1 of 2 / 2"), "{d}");
        assert!(d.contains("hw: t=7 ns enqueue packet 3"), "{d}");
        assert!(d.contains("Dropped(Early)"), "{d}");
        let d = first_difference("golden", &a, "hw", &a[..1]).unwrap();
        assert!(d.contains("(no more events)"), "{d}");
    }
}
