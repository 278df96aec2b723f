//! A Verilated core as a queue discipline of the simulator.
//!
//! - enqueue at `t`: run the controller updates due at or before `t` at their own times, set `now = t`,
//!   offer the descriptor (its tag is a 16-bit sequence number), wait for its verdict and for `idle`.
//! - dequeue at `t` (the link is free): the same catch-up, then `out_ready` high until one packet is
//!   sent: every beat before it with `out_drop` set is a drop at dequeue, reported in `drops`; no beat
//!   when the core holds nothing (the request then lasts one cycle). Then `out_ready` low and clock
//!   until `idle`; only then does the [`CoreKind`] say why each beat was dropped or marked, so that it
//!   may read the core's counters to tell.
//!
//! The packets the core holds are kept here by tag, so a departure is matched to the packet the
//! simulator handed in (and a tag the core never got, or a changed length, is a fault). A fault stops
//! the core: from then on every arrival is refused, nothing departs, and [`Aqm::fault`] reports it, so
//! that the simulator ends the run with the message.

use crate::{Beat, Driver, DriverError, VerdictBeat, Verilated};
use aqm_golden::dualpi2::core::driver::EventDriver;
use aqm_golden::{Admission, Aqm, Departure, DropReason, Dropped, MarkReason, Packet};
use aqm_verilated::VerilatedCore;

/// What a core's outputs mean, and how its registers are set: everything that differs between the PIE
/// and DualPI2 cores.
pub trait CoreKind: Send + 'static {
    /// The row name in the simulator's tables (`"pie (hw)"`).
    fn name(&self) -> String;

    /// Writes the parameters and the generator seed; the core is out of reset with `now` = 0.
    fn configure(&mut self, core: &mut Driver) -> Result<(), DriverError>;

    /// The simulator's admission for a verdict.
    fn admission(&mut self, v: &VerdictBeat) -> Result<Admission, String>;

    /// Why the core dropped `arrived` at dequeue (an egress beat with `out_drop`), as the golden model
    /// names it. Called once the dequeue is over and the core idle: `core` may read its registers.
    fn drop_reason(
        &mut self,
        beat: &Beat,
        arrived: &Packet,
        core: &mut Driver,
    ) -> Result<DropReason, String>;

    /// Whether the core marked `arrived` at dequeue, and why (called as [`CoreKind::drop_reason`] is).
    fn dequeue_mark(
        &mut self,
        beat: &Beat,
        arrived: &Packet,
        core: &mut Driver,
    ) -> Result<Option<MarkReason>, String>;
}

/// Tags are 16 bits; the core holds far fewer packets than that.
const TAGS: usize = 1 << 16;

/// A Verilated core behind the simulator's [`Aqm`] trait.
pub struct HwAqm<K: CoreKind> {
    kind: K,
    core: Driver,
    /// The packets inside the core, by tag.
    held: Vec<Option<Packet>>,
    next_tag: u16,
    packets: usize,
    bytes: u64,
    /// The beats of the dequeue in progress, with the packets they carried.
    beats: Vec<(Beat, Packet)>,
    fault: Option<String>,
}

impl<K: CoreKind> HwAqm<K> {
    /// Resets `core`, lets `kind` configure it and waits for it to be idle.
    pub fn new(mut kind: K, core: VerilatedCore) -> Result<HwAqm<K>, DriverError> {
        let mut core = EventDriver::new(Verilated::new(core));
        kind.configure(&mut core)?;
        core.run_until_idle("the configuration")?;
        Ok(HwAqm {
            kind,
            core,
            held: vec![None; TAGS],
            next_tag: 0,
            packets: 0,
            bytes: 0,
            beats: Vec::new(),
            fault: None,
        })
    }

    /// The driver, to read the core's registers or trace it.
    pub fn core(&mut self) -> &mut Driver {
        &mut self.core
    }

    fn fail(&mut self, e: DriverError) {
        if self.fault.is_none() {
            self.fault = Some(format!("{}: {e}", self.kind.name()));
        }
    }

    fn core_error(&self, what: String) -> DriverError {
        DriverError::Core {
            at_ns: self.core.now(),
            cycle: self.core.cycles(),
            what,
        }
    }

    fn try_enqueue(&mut self, now_ns: u64, pkt: Packet) -> Result<Admission, DriverError> {
        let len = u16::try_from(pkt.len).map_err(|_| {
            DriverError::Config(format!(
                "packet {} is {} bytes long; the core's length field takes at most 65535",
                pkt.id, pkt.len
            ))
        })?;
        let tag = self.next_tag;
        if self.held[tag as usize].is_some() {
            return Err(self.core_error(format!(
                "tag {tag} is still held: the core holds {} packets",
                self.packets
            )));
        }
        self.core.advance_to(now_ns)?;
        let v = self.core.offer(len, pkt.ecn, tag)?;
        self.next_tag = self.next_tag.wrapping_add(1);
        let admission = match self.kind.admission(&v) {
            Ok(a) => a,
            Err(w) => return Err(self.core_error(format!("verdict of packet {}: {w}", pkt.id))),
        };
        if !matches!(admission, Admission::Dropped(_)) {
            self.held[tag as usize] = Some(pkt);
            self.packets += 1;
            self.bytes += u64::from(pkt.len);
        }
        Ok(admission)
    }

    fn try_dequeue(
        &mut self,
        now_ns: u64,
        drops: &mut Vec<Dropped>,
    ) -> Result<Option<Departure>, DriverError> {
        self.core.advance_to(now_ns)?;
        self.beats.clear();
        while let Some(beat) = self.core.next_beat(self.packets > 0)? {
            let Some(pkt) = self.held[beat.tag as usize].take() else {
                return Err(self.core_error(format!(
                    "a departure with tag {}, which the core was never given or already gave back",
                    beat.tag
                )));
            };
            if u32::from(beat.len) != pkt.len {
                return Err(self.core_error(format!(
                    "packet {} (tag {}) went in with {} bytes and came out with {}",
                    pkt.id, beat.tag, pkt.len, beat.len
                )));
            }
            self.packets -= 1;
            self.bytes -= u64::from(pkt.len);
            self.beats.push((beat, pkt));
            if !beat.drop {
                break;
            }
        }
        self.core.finish_dequeue()?;
        let mut sent = None;
        for k in 0..self.beats.len() {
            let (beat, pkt) = self.beats[k];
            let why = |w: String| format!("departure of packet {} (tag {}): {w}", pkt.id, beat.tag);
            if beat.drop {
                let reason = match self.kind.drop_reason(&beat, &pkt, &mut self.core) {
                    Ok(r) => r,
                    Err(w) => return Err(self.core_error(why(w))),
                };
                drops.push(Dropped {
                    pkt,
                    reason,
                    sojourn_ns: beat.sojourn_ns,
                    queue: beat.queue,
                });
            } else {
                let mark = match self.kind.dequeue_mark(&beat, &pkt, &mut self.core) {
                    Ok(m) => m,
                    Err(w) => return Err(self.core_error(why(w))),
                };
                sent = Some(Departure {
                    pkt: Packet {
                        ecn: beat.ecn,
                        ..pkt
                    },
                    sojourn_ns: beat.sojourn_ns,
                    mark,
                    queue: beat.queue,
                });
            }
        }
        Ok(sent)
    }
}

impl<K: CoreKind> Aqm for HwAqm<K> {
    fn name(&self) -> String {
        self.kind.name()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        if self.fault.is_some() {
            return Admission::Dropped(DropReason::Overlimit);
        }
        self.try_enqueue(now_ns, pkt).unwrap_or_else(|e| {
            self.fail(e);
            Admission::Dropped(DropReason::Overlimit)
        })
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        if self.fault.is_some() {
            return None;
        }
        self.try_dequeue(now_ns, drops).unwrap_or_else(|e| {
            self.fail(e);
            None
        })
    }

    fn backlog_packets(&self) -> usize {
        self.packets
    }

    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }

    fn fault(&self) -> Option<String> {
        self.fault.clone()
    }

    fn cycles_clocked(&self) -> Option<u64> {
        Some(self.core.cycles())
    }
}
