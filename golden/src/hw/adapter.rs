//! Any clocked core as a queue discipline of the simulator ([`CoreAqm`]): the golden cycle models (the
//! `(core model)` rows of the system tests) and the Verilated RTL (the simulator's `(hw)` rows) alike.
//!
//! - enqueue at `t`: run the controller updates due at or before `t` at their own times, set `now = t`,
//!   offer the descriptor (its tag is a 16-bit sequence number), wait for its verdict and for `idle`;
//!   the core's [`CoreKind`] says what the verdict means.
//! - dequeue at `t` (the link is free): the same catch-up, then `out_ready` high until one packet is
//!   sent: every beat before it with `out_drop` set is a drop at dequeue, reported in `drops`; no beat
//!   when the core holds nothing (the request then lasts one cycle). Then `out_ready` low and clock
//!   until `idle`; only then is each beat's reason read: from the model's decision when it has one,
//!   else from the kind's [`BeatReasons`] (which may read the core's counters).
//!
//! The packets the core holds are kept here by tag, so a departure is matched to the packet the
//! simulator handed in (and a tag the core never got, or a changed length, is a fault). A fault stops
//! the core: from then on every arrival is refused, nothing departs, and [`Aqm::fault`] reports it, so
//! that the simulator ends the run with the message.

use super::clocked::ClockedCore;
use super::driver::{Beat, DriverError, EventDriver};
use super::kind::{configure, BeatReasons, CoreKind, RegWrite};
use crate::aqm::Aqm;
use crate::dualpi2::decision::Verdict as Decided;
use crate::types::{Admission, Departure, DropReason, Dropped, MarkReason, Packet};

/// Tags are 16 bits; the cores hold far fewer packets than that.
const TAGS: usize = 1 << 16;

/// A clocked core behind the simulator's [`Aqm`] trait.
pub struct CoreAqm<C: ClockedCore> {
    kind: &'static dyn CoreKind,
    name: String,
    core: EventDriver<C>,
    reasons: Box<dyn BeatReasons>,
    /// The packets inside the core, by tag.
    held: Vec<Option<Packet>>,
    next_tag: u16,
    packets: usize,
    bytes: u64,
    /// The beats of the dequeue in progress, with the packets they carried.
    beats: Vec<(Beat, Packet)>,
    fault: Option<String>,
}

impl CoreAqm<Box<dyn ClockedCore + Send>> {
    /// The golden cycle model of `kind`, configured with `writes`.
    pub fn golden(
        kind: &'static dyn CoreKind,
        writes: &[RegWrite],
    ) -> Result<CoreAqm<Box<dyn ClockedCore + Send>>, DriverError> {
        CoreAqm::new(kind, kind.model(), writes)
    }
}

impl<C: ClockedCore> CoreAqm<C> {
    /// Resets `core`, configures it with `writes` as `kind` says and waits for it to be idle.
    pub fn new(
        kind: &'static dyn CoreKind,
        core: C,
        writes: &[RegWrite],
    ) -> Result<CoreAqm<C>, DriverError> {
        let name = match core.model_name() {
            "golden" => format!("{} (core model)", kind.name()),
            "verilator" => format!("{} (hw)", kind.name()),
            other => format!("{} ({other})", kind.name()),
        };
        let mut core = EventDriver::new(core);
        configure(kind, &mut core, writes)?;
        core.run_until_idle("the configuration")?;
        Ok(CoreAqm {
            kind,
            name,
            core,
            reasons: kind.beat_reasons(),
            held: vec![None; TAGS],
            next_tag: 0,
            packets: 0,
            bytes: 0,
            beats: Vec::new(),
            fault: None,
        })
    }

    /// The core's kind.
    pub fn kind(&self) -> &'static dyn CoreKind {
        self.kind
    }

    /// The driver, to read the core's registers or clock it by hand.
    pub fn driver(&mut self) -> &mut EventDriver<C> {
        &mut self.core
    }

    fn fail(&mut self, e: DriverError) {
        if self.fault.is_none() {
            self.fault = Some(format!("{}: {e}", self.name));
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

    /// Why the core dropped (`Ok(Err(reason))`) or sent (`Ok(Ok(mark))`) the packet of `beat`.
    fn reason(&mut self, beat: &Beat) -> Result<Result<Option<MarkReason>, DropReason>, String> {
        match (beat.decision, beat.drop) {
            (Some(d), drop) => match (drop, d.verdict) {
                (true, Decided::Drop(rule)) => Ok(Err(rule.drop_reason())),
                (false, Decided::Pass) => Ok(Ok(None)),
                (false, Decided::Mark(rule)) => Ok(Ok(Some(rule.mark_reason()))),
                (drop, v) => Err(format!("out_drop {drop} with the decision {v:?}")),
            },
            (None, true) => self.reasons.drop_reason(beat).map(Err),
            (None, false) => self.reasons.dequeue_mark(beat, &mut self.core).map(Ok),
        }
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
            let reason = self.reason(&beat).map_err(|w| {
                self.core_error(format!(
                    "departure of packet {} (tag {}): {w}",
                    pkt.id, beat.tag
                ))
            })?;
            match reason {
                Err(reason) => drops.push(Dropped {
                    pkt,
                    reason,
                    sojourn_ns: beat.sojourn_ns,
                    queue: beat.queue,
                }),
                Ok(mark) => {
                    sent = Some(Departure {
                        pkt: Packet {
                            ecn: beat.ecn,
                            ..pkt
                        },
                        sojourn_ns: beat.sojourn_ns,
                        mark,
                        queue: beat.queue,
                    })
                }
            }
        }
        Ok(sent)
    }
}

impl<C: ClockedCore + Send> Aqm for CoreAqm<C> {
    fn name(&self) -> String {
        self.name.clone()
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
