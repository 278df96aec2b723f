//! A Verilated core as a queue discipline of the simulator.
//!
//! - enqueue at `t`: run the controller updates due at or before `t` at their own times, set `now = t`,
//!   offer the descriptor (its tag is a 16-bit sequence number), wait for its verdict and for `idle`.
//! - dequeue at `t` (the link is free): the same catch-up, then `out_ready` until one packet is sent:
//!   every beat before it with `out_drop` is a drop at dequeue, reported in `drops`; none when the core
//!   holds nothing. Then `out_ready` low and clock until `idle`.
//!
//! The packets the core holds are kept here by tag, so a departure is matched to the packet the
//! simulator handed in (and a tag the core never got, or a changed length, is a fault). A fault stops
//! the core: from then on every arrival is refused, nothing departs, and [`Aqm::fault`] reports it, so
//! that the simulator ends the run with the message.

use crate::driver::{Beat, CoreDriver, VerdictBeat};
use crate::HilError;
use aqm_golden::{Admission, Aqm, Departure, DropReason, Dropped, MarkReason, Packet};
use aqm_verilated::Model;

/// What a core's outputs mean, and how its registers are set: everything that differs between the PIE
/// and DualPI2 cores.
pub trait CoreKind: Send + 'static {
    /// The row name in the simulator's tables (`"pie (hw)"`).
    fn name(&self) -> String;

    /// Outputs beyond the shared ones to sample with each egress beat (into [`Beat::extra`]), such as
    /// the rule behind a mark at dequeue.
    fn extra_egress_ports(&self) -> &'static [&'static str] {
        &[]
    }

    /// Writes the parameters and the generator seed; the core is out of reset with `now` = 0.
    fn configure(&self, core: &mut CoreDriver) -> Result<(), HilError>;

    /// The simulator's admission for a verdict.
    fn admission(&self, v: &VerdictBeat) -> Result<Admission, String>;

    /// What an egress beat is: the packet sent (with the reason if it was marked at dequeue), or
    /// dropped at dequeue (with the golden model's reason). `arrived` is the packet as it was offered.
    fn egress(&self, beat: &Beat, arrived: &Packet) -> Result<Egress, String>;
}

/// The meaning of one egress beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Egress {
    Sent { mark: Option<MarkReason> },
    Dropped(DropReason),
}

/// Tags are 16 bits; the core holds far fewer packets than that.
const TAGS: usize = 1 << 16;

/// A Verilated core behind the simulator's [`Aqm`] trait.
pub struct HwAqm<K: CoreKind> {
    kind: K,
    core: CoreDriver,
    /// The packets inside the core, by tag.
    held: Vec<Option<Packet>>,
    next_tag: u16,
    packets: usize,
    bytes: u64,
    fault: Option<String>,
}

impl<K: CoreKind> HwAqm<K> {
    /// Resets `model`, lets `kind` configure it and waits for it to be idle.
    pub fn new(kind: K, model: Model) -> Result<HwAqm<K>, HilError> {
        let mut core = CoreDriver::new(model, kind.extra_egress_ports())?;
        kind.configure(&mut core)?;
        core.run_until_idle("the configuration")?;
        Ok(HwAqm {
            kind,
            core,
            held: vec![None; TAGS],
            next_tag: 0,
            packets: 0,
            bytes: 0,
            fault: None,
        })
    }

    /// The driver, to read the core's registers or trace it.
    pub fn core(&mut self) -> &mut CoreDriver {
        &mut self.core
    }

    fn fail(&mut self, e: HilError) {
        if self.fault.is_none() {
            self.fault = Some(format!("{}: {e}", self.kind.name()));
        }
    }

    fn core_error(&self, what: String) -> HilError {
        HilError::Core {
            at_ns: self.core.now(),
            cycle: self.core.cycles(),
            what,
        }
    }

    fn try_enqueue(&mut self, now_ns: u64, mut pkt: Packet) -> Result<Admission, HilError> {
        let len = u16::try_from(pkt.len).map_err(|_| {
            HilError::Config(format!(
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
        let admission = self
            .kind
            .admission(&v)
            .map_err(|w| self.core_error(format!("verdict of packet {}: {w}", pkt.id)))?;
        match admission {
            Admission::Dropped(_) => {}
            Admission::Enqueued | Admission::Marked(_) => {
                if matches!(admission, Admission::Marked(_)) {
                    pkt.ecn = aqm_golden::Ecn::Ce;
                }
                self.held[tag as usize] = Some(pkt);
                self.packets += 1;
                self.bytes += u64::from(pkt.len);
            }
        }
        Ok(admission)
    }

    fn try_dequeue(
        &mut self,
        now_ns: u64,
        drops: &mut Vec<Dropped>,
    ) -> Result<Option<Departure>, HilError> {
        self.core.advance_to(now_ns)?;
        let mut sent = None;
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
            let meaning = self.kind.egress(&beat, &pkt).map_err(|w| {
                self.core_error(format!("departure of packet {} (tag {}): {w}", pkt.id, beat.tag))
            })?;
            match meaning {
                Egress::Dropped(reason) => drops.push(Dropped {
                    pkt,
                    reason,
                    sojourn_ns: beat.sojourn_ns,
                    queue: beat.queue,
                }),
                Egress::Sent { mark } => {
                    sent = Some(Departure {
                        pkt: Packet {
                            ecn: beat.ecn,
                            ..pkt
                        },
                        sojourn_ns: beat.sojourn_ns,
                        mark,
                        queue: beat.queue,
                    });
                    break;
                }
            }
        }
        self.core.finish_dequeue()?;
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
