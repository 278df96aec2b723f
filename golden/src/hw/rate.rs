//! Packets per clock at a core's ports, measured on any clocked core (golden, rust-hdl, Verilated):
//! descriptors taken per clock at ingress with `in_valid` held high, and egress beats (sent or dropped)
//! per clock with `out_ready` held high, with the link model off and `now` held still. The conformance
//! suite measures all three models and the bench prints it next to Fmax.

use super::driver::{DriverError, EventDriver};
use super::kind::{configure, CoreKind};
use super::ClockedCore;

/// How many descriptors each measurement offers.
pub const RATE_PACKETS: u64 = 256;

/// The rates of one core.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PacketRates {
    /// Descriptors taken per clock over [`RATE_PACKETS`] cycles of back-to-back offers.
    pub ingress: f64,
    /// Egress beats per clock between the first and the last beat of emptying those descriptors.
    pub egress: f64,
    /// The beats counted for `egress` (every descriptor taken, or the measurement is an error).
    pub beats: u64,
}

/// Measures `core` (out of power-on) with `kind`'s default parameters and the link model off.
pub fn packet_rates<C: ClockedCore>(
    kind: &dyn CoreKind,
    core: C,
) -> Result<PacketRates, DriverError> {
    let mut d = EventDriver::new(core);
    configure(kind, &mut d, &kind.default_writes(1))?;
    d.run_until_idle("the configuration")?;
    // Ingress: back to back, nothing leaves (the queue holds more than RATE_PACKETS).
    let offered = d.stream(RATE_PACKETS, true, false, 64, 0);
    let rest = d.stream(kind.verdict_latency() + 64, false, false, 64, 0);
    if offered.verdicts + rest.verdicts != offered.taken {
        return Err(DriverError::Core {
            at_ns: d.now(),
            cycle: d.cycles(),
            what: format!(
                "{} descriptors taken, {} verdicts",
                offered.taken,
                offered.verdicts + rest.verdicts
            ),
        });
    }
    d.run_until_idle("the verdicts")?;
    // Egress: out_ready high until every descriptor has left.
    let start = d.cycles();
    let first = d.stream(1, false, true, 64, 0);
    let mut beats = first.beats;
    let mut first_beat = (first.beats > 0).then_some(start);
    let mut last_beat = start;
    let mut waited = 0;
    while beats < offered.taken && waited < 64 * RATE_PACKETS {
        let at = d.cycles();
        let s = d.stream(1, false, true, 64, 0);
        if s.beats > 0 {
            beats += s.beats;
            first_beat.get_or_insert(at);
            last_beat = at;
        }
        waited += 1;
    }
    if beats != offered.taken {
        return Err(DriverError::Core {
            at_ns: d.now(),
            cycle: d.cycles(),
            what: format!(
                "{} descriptors taken, {beats} egress beats after {waited} cycles of out_ready",
                offered.taken
            ),
        });
    }
    let span = last_beat - first_beat.unwrap_or(last_beat);
    Ok(PacketRates {
        ingress: offered.taken as f64 / RATE_PACKETS as f64,
        egress: if span == 0 {
            beats as f64
        } else {
            (beats - 1) as f64 / span as f64
        },
        beats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::CORES;

    #[test]
    fn every_golden_core_takes_one_descriptor_per_clock_and_empties_its_queue() {
        for kind in CORES {
            let r = packet_rates(*kind, kind.model())
                .unwrap_or_else(|e| panic!("{}: {e}", kind.name()));
            assert_eq!(r.ingress, 1.0, "{}: {r:?}", kind.name());
            assert_eq!(r.beats, RATE_PACKETS, "{}: {r:?}", kind.name());
            assert!(r.egress > 0.0 && r.egress <= 1.0, "{}: {r:?}", kind.name());
            eprintln!("{}: {r:?}", kind.name());
        }
    }
}
