//! Every run checks packet conservation; an AQM that loses, invents or duplicates packets is an error.

use aqm_golden::reference::{TailDrop, TailDropParams};
use aqm_golden::{Admission, Aqm, Departure, Dropped, Packet};
use aqm_netsim::registry::{AqmSpec, Registry};
use aqm_netsim::scenario::named;
use aqm_netsim::{run_scenario, Error};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Tail drop that misbehaves in one way after a number of packets.
struct Faulty {
    inner: TailDrop,
    fault: Fault,
    seen: u64,
}

#[derive(Clone, Copy)]
enum Fault {
    /// Silently forgets a departing packet (neither sent nor reported dropped).
    Loses,
    /// Sends the same packet twice.
    Duplicates,
    /// Reports one packet fewer in its backlog than it holds.
    Miscounts,
}

impl Aqm for Faulty {
    fn name(&self) -> String {
        "faulty".into()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.inner.enqueue(now_ns, pkt)
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.seen += 1;
        let d = self.inner.dequeue(now_ns, drops)?;
        match self.fault {
            Fault::Loses if self.seen == 500 => self.inner.dequeue(now_ns, drops),
            Fault::Duplicates if self.seen == 500 => {
                let _ = self.inner.enqueue(now_ns, d.pkt);
                Some(d)
            }
            _ => Some(d),
        }
    }

    fn backlog_packets(&self) -> usize {
        match self.fault {
            Fault::Miscounts => self.inner.backlog_packets().saturating_sub(1),
            _ => self.inner.backlog_packets(),
        }
    }

    fn backlog_bytes(&self) -> u64 {
        self.inner.backlog_bytes()
    }
}

fn run_faulty(fault: Fault) -> Result<(), Error> {
    let mut registry = Registry::with_builtins();
    registry.register("faulty", "test AQM with a fault", move |_, _| {
        Ok(Box::new(Faulty {
            inner: TailDrop::new(TailDropParams::default()),
            fault,
            seen: 0,
        }))
    });
    let mut s = named("mix").unwrap();
    s.scale_time(0.05);
    run_scenario(
        &s,
        &[AqmSpec::parse("faulty").unwrap()],
        &[1],
        &registry,
        false,
    )
    .map(|_| ())
}

#[test]
fn an_aqm_that_loses_a_packet_is_caught() {
    let err = run_faulty(Fault::Loses).unwrap_err().to_string();
    assert!(
        err.contains("packet conservation violated") && err.contains("faulty"),
        "{err}"
    );
}

#[test]
fn an_aqm_that_sends_a_packet_twice_is_caught() {
    let err = run_faulty(Fault::Duplicates).unwrap_err().to_string();
    assert!(err.contains("which it does not hold"), "{err}");
}

#[test]
fn an_aqm_whose_backlog_disagrees_with_the_simulator_is_caught() {
    let err = run_faulty(Fault::Miscounts).unwrap_err().to_string();
    assert!(err.contains("inside the AQM"), "{err}");
}

#[test]
fn a_sound_run_balances_with_packets_still_in_flight_at_the_end() {
    let mut s = named("mix").unwrap();
    s.scale_time(0.05);
    let report = run_scenario(
        &s,
        &[AqmSpec::parse("taildrop").unwrap()],
        &[1],
        &Registry::with_builtins(),
        false,
    )
    .unwrap();
    let c = report.runs[0].metrics.conservation;
    assert!(c.balanced());
    assert!(c.queued + c.on_link + c.in_transit > 0, "{c:?}");
}

/// Tail drop that takes the 500th packet offered, says it enqueued it, and throws it away: no verdict
/// of a drop, no departure.
struct Swallows {
    inner: TailDrop,
    offered: u64,
    /// The id of the packet it threw away (u64::MAX before).
    lost: Arc<AtomicU64>,
}

impl Aqm for Swallows {
    fn name(&self) -> String {
        "swallows".into()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.offered += 1;
        if self.offered == 500 {
            self.lost.store(pkt.id, Ordering::Relaxed);
            return Admission::Enqueued;
        }
        self.inner.enqueue(now_ns, pkt)
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.inner.dequeue(now_ns, drops)
    }

    fn backlog_packets(&self) -> usize {
        self.inner.backlog_packets()
    }

    fn backlog_bytes(&self) -> u64 {
        self.inner.backlog_bytes()
    }
}

#[test]
fn a_packet_lost_without_a_verdict_is_caught_and_named() {
    let lost = Arc::new(AtomicU64::new(u64::MAX));
    let mut registry = Registry::with_builtins();
    let l = lost.clone();
    registry.register("swallows", "test AQM that loses a packet", move |_, _| {
        Ok(Box::new(Swallows {
            inner: TailDrop::new(TailDropParams::default()),
            offered: 0,
            lost: l.clone(),
        }))
    });
    let mut s = named("mix").unwrap();
    s.scale_time(0.05);
    let err = run_scenario(
        &s,
        &[AqmSpec::parse("swallows").unwrap()],
        &[1],
        &registry,
        false,
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    eprintln!("{err}");
    let id = lost.load(Ordering::Relaxed);
    assert_ne!(id, u64::MAX, "the AQM saw 500 packets");
    assert!(
        err.contains("packet conservation violated")
            && err.contains("swallows")
            && err.contains("inside the AQM")
            && err.contains(&format!("the one held longest: packet {id} (flow ")),
        "{err}"
    );
}
